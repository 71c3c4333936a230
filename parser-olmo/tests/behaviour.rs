//! Behaviour tables: DESIGN.md §4's conventions on the family's formats. Every row runs one-shot and
//! under every chunking (whole, 1/2/3/5/8 characters, eight random splits, the parser's markers whole),
//! and all of them must agree before the row is checked. Then the registry: names, models, and the
//! entries' special tokens against their specs.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_finish_is_final, check_row, check_sample_splits,
    prompt_options, run_row,
};
use parser_core::{ParseOptions, ParsedMessage, find_by_name, find_for_model};
use proptest::prelude::*;
use rstest::rstest;

#[allow(unused_imports)]
use parser_core::testing::check_generated_ids;

fn run(parser: &str, options: ParseOptions, output: &str) -> ParsedMessage {
    let entry = find_by_name(parser).unwrap();
    run_row(parser, options, output, entry.special_tokens)
}

#[allow(dead_code)]
fn calls(message: &ParsedMessage) -> Vec<(&str, &str, bool)> {
    message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str(), c.valid))
        .collect()
}

const TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
const THINK_TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>";

#[rstest]
#[case::lines("<function_calls>\nget_weather(city='Paris')\nnow()\n</function_calls><|im_end|>", None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris"}"#), RowCall::Valid("now", "{}")])]
#[case::one_line("<function_calls>now(tz=\"UTC\", dst=false)</function_calls>", None, vec![RowCall::Valid("now", r#"{"tz": "UTC", "dst": false}"#)])]
#[case::content_before("Checking.<function_calls>\nnow()\n</function_calls>", Some("Checking."), vec![RowCall::Valid("now", "{}")])]
#[case::answer("It is sunny.<|im_end|>", Some("It is sunny."), vec![])]
#[case::call_outside_block_is_text("now()", Some("now()"), vec![])]
#[case::not_a_call_ends_block("<function_calls>\nnow()\nok then</function_calls>", Some("ok then</function_calls>"), vec![RowCall::Valid("now", "{}")])]
#[case::cut_off_is_invalid("<function_calls>\nget_weather(city='Pa", None, vec![RowCall::Invalid("get_weather")])]
#[case::positional_is_invalid("<function_calls>\nget_weather('Paris')\nnow()\n</function_calls>", None, vec![RowCall::Invalid("get_weather"), RowCall::Valid("now", "{}")])]
#[case::cut_off_before_paren_is_text("<function_calls>\nget_wea", Some("<function_calls>\nget_wea"), vec![])]
fn olmo3(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run("olmo3", prompt_options(Some(TAIL), None), output);
    check_row(&message, None, content, &calls);
}

#[rstest]
#[case::reasoning_then_call("Plan.</think>Checking.<function_calls>\nnow()\n</function_calls>", Some("Plan."), Some("Checking."), vec![RowCall::Valid("now", "{}")])]
#[case::reasoning_then_answer("Plan.</think>Sunny.<|im_end|>", Some("Plan."), Some("Sunny."), vec![])]
#[case::cut_off_in_reasoning("Still thinking", Some("Still thinking"), None, vec![])]
fn olmo3_think(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run(
        "olmo3-think",
        prompt_options(Some(THINK_TAIL), None),
        output,
    );
    check_row(&message, reasoning, content, &calls);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(
        check_sample_splits("olmo"),
        parser_olmo::data_parsers().len()
    );
}

#[test]
fn pushes_after_finish_do_nothing() {
    for data in parser_olmo::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <");
    }
}

/// Each entry lists every marker of its spec as a special token (the chunking tests push them whole).
#[test]
fn special_tokens_list_the_spec_markers() {
    for data in parser_olmo::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        for token in data.tokens() {
            assert!(
                entry.special_tokens.contains(token),
                "{}: {token:?} is not in its special tokens {:?}",
                entry.name,
                entry.special_tokens
            );
        }
    }
}

#[rstest]
#[case("allenai/Olmo-3-7B-Instruct", "olmo3")]
#[case("allenai/Olmo-3.1-32B-Instruct", "olmo3")]
#[case("allenai/Olmo-3-7B-Instruct-GGUF", "olmo3")]
#[case("allenai/Olmo-3-7B-Think", "olmo3-think")]
#[case("allenai/Olmo-3-32B-Think", "olmo3-think")]
#[case("allenai/Olmo-3.1-32B-Think", "olmo3-think")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// The peers' names for these formats (vLLM, SGLang, llama.cpp, Ollama).
#[rstest]
#[case("olmo3", "olmo3")]
#[case("olmo3-think", "olmo3-think")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    // Any mix of the format's markers and text: no panic, and every chunking gives the one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(picks in proptest::collection::vec(0..64usize, 0..40), seed in any::<u64>(), which in 0..8usize) {
        let parsers = parser_olmo::data_parsers();
        let data = parsers[which % parsers.len()];
        let entry = find_by_name(data.name()).unwrap();
        let mut soup: Vec<&str> = entry.special_tokens.to_vec();
        soup.extend(["<", "{", "}", "[", "]", "(", ")", "\"", "\"name\": ", "\"get_weather\"", "f(", "a=1", ",", ":", " ", "\n", "é", "text", "{\"city\": \"Paris\"}"]);
        let text: String = picks.iter().map(|&i| soup[i % soup.len()]).collect();
        let options = ParseOptions::new().with_call_id_seed(1);
        let streamed = check_chunkings(&|| entry.parser(&options), &text, &Chunking::property(seed, entry.special_tokens));
        prop_assert!(streamed.is_ok(), "{}", streamed.unwrap_err());
    }
}
