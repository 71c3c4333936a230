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

#[rstest]
#[case::two_calls("functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"now\", \"arguments\": {}}]<|end|>", None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris"}"#), RowCall::Valid("now", "{}")])]
#[case::content_kept_around_calls("Checking.\nfunctools[{\"name\": \"now\", \"arguments\": {}}]\nDone.<|end|>", Some("Checking.\n\nDone."), vec![RowCall::Valid("now", "{}")])]
#[case::answer("It is sunny.<|end|>", Some("It is sunny."), vec![])]
#[case::word_in_prose("functools.partial is handy.<|endoftext|>", Some("functools.partial is handy."), vec![])]
#[case::parameters_key("functools[{\"name\": \"now\", \"parameters\": {\"tz\": \"UTC\"}}]", None, vec![RowCall::Valid("now", r#"{"tz": "UTC"}"#)])]
#[case::cut_off_is_invalid("functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa", None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_off_before_name_is_text("functools[{\"name\": \"get_wea", Some("functools[{\"name\": \"get_wea"), vec![])]
#[case::string_arguments_invalid("functools[{\"name\": \"f\", \"arguments\": \"oops\"}]", None, vec![RowCall::Invalid("f")])]
fn phi4_mini(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run("phi4-mini", prompt_options(None, None), output);
    check_row(&message, None, content, &calls);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(check_sample_splits("phi"), parser_phi::data_parsers().len());
}

#[test]
fn pushes_after_finish_do_nothing() {
    for data in parser_phi::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <");
    }
}

/// Each entry lists every marker of its spec as a special token (the chunking tests push them whole).
#[test]
fn special_tokens_list_the_spec_markers() {
    for data in parser_phi::data_parsers() {
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
#[case("microsoft/Phi-4-mini-instruct", "phi4-mini")]
#[case("unsloth/Phi-4-mini-instruct-GGUF", "phi4-mini")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// The peers' names for these formats (vLLM, SGLang, llama.cpp, Ollama).
#[rstest]
#[case("phi4_mini_json", "phi4-mini")]
#[case("phi4-mini", "phi4-mini")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    // Any mix of the format's markers and text: no panic, and every chunking gives the one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(picks in proptest::collection::vec(0..64usize, 0..40), seed in any::<u64>(), which in 0..8usize) {
        let parsers = parser_phi::data_parsers();
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
