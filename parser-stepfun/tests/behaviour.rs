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

const TAIL: &str = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<think>\n";
const CALL: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";

// Step-3.5 (DESIGN §3, §4.8): reasoning forced open by the prompt; calls after it, or a call that ends
// the output while reasoning is still open.
#[rstest]
#[case::reasoning_then_call(TAIL, &format!("Weather.\n</think>\n{CALL}"), Some("Weather."), None, 1)]
#[case::call_ends_open_reasoning(TAIL, &format!("Weather.\n{CALL}"), Some("Weather."), None, 1)]
#[case::call_in_reasoning_then_more(TAIL, &format!("Weather.\n{CALL}\n</think>\nSunny."), Some(&*format!("Weather.\n{CALL}")), Some("Sunny."), 0)]
#[case::prompt_closed_reasoning(
    "<|im_start|>assistant\n<think>\n</think>\n",
    "Sunny.",
    None,
    Some("Sunny."),
    0
)]
#[case::no_prompt_is_reasoning_until_the_end_marker(
    "",
    "Weather.\n</think>\nSunny.",
    Some("Weather."),
    Some("Sunny."),
    0
)]
fn step35(
    #[case] tail: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: usize,
) {
    let tail = (!tail.is_empty()).then_some(tail);
    let message = run("step-3.5", prompt_options(tail, None), output);
    let want: Vec<RowCall> = (0..calls)
        .map(|_| RowCall::Valid("get_weather", r#"{"city": "Paris"}"#))
        .collect();
    check_row(&message, reasoning, content, &want);
}

#[rstest]
#[case::one_call("The user wants the weather.</think><｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\">\n<steptml:parameter name=\"city\">Paris</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>", Some("The user wants the weather."), None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris"}"#)])]
#[case::two_calls("Two.</think><｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"a\"><steptml:parameter name=\"x\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"b\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>Done.", Some("Two."), Some("Done."), vec![RowCall::Valid("a", r#"{"x": "1"}"#), RowCall::Valid("b", "{}")])]
#[case::answer("Easy.</think>Sunny.", Some("Easy."), Some("Sunny."), vec![])]
fn step3(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run(
        "step-3",
        prompt_options(Some("<|BOT|>assistant\n<think>\n"), None),
        output,
    );
    check_row(&message, reasoning, content, &calls);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(
        check_sample_splits("stepfun"),
        parser_stepfun::data_parsers().len()
    );
}

#[test]
fn pushes_after_finish_do_nothing() {
    for data in parser_stepfun::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <");
    }
}

/// Each entry lists every marker of its spec as a special token (the chunking tests push them whole).
#[test]
fn special_tokens_list_the_spec_markers() {
    for data in parser_stepfun::data_parsers() {
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
#[case("stepfun-ai/Step-3.5-Flash", "step-3.5")]
#[case("stepfun-ai/Step-3.5-Flash-FP8", "step-3.5")]
#[case("stepfun-ai/step3", "step-3")]
#[case("stepfun-ai/step3-fp8", "step-3")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// The peers' names for these formats (vLLM, SGLang, llama.cpp, Ollama).
#[rstest]
#[case("step3p5", "step-3.5")]
#[case("step3", "step-3")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    // Any mix of the format's markers and text: no panic, and every chunking gives the one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(picks in proptest::collection::vec(0..64usize, 0..40), seed in any::<u64>(), which in 0..8usize) {
        let parsers = parser_stepfun::data_parsers();
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
