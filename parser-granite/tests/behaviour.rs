//! Behaviour tables: DESIGN.md §4's conventions on Granite's formats. Every row runs one-shot and under
//! every chunking, all of which must agree before the row is checked. Then the registry (names,
//! aliases, models), the specs' tokens, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_granite::{
    GRANITE_20B_FC, GRANITE_20B_FC_TOKENS, GRANITE3, GRANITE3_TOKENS, GRANITE4, GRANITE4_TOKENS,
};
use proptest::prelude::*;
use rstest::rstest;

const TAIL: &str = "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");
const LIST: &str =
    "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]";

#[rstest]
#[case::plain("granite", "Hello!", None, Some("Hello!"), &[])]
#[case::think_and_response("granite", "<think>Hmm.</think><response>Hello!</response>", Some("Hmm."), Some("Hello!"), &[])]
#[case::list("granite", LIST, None, None, &[PARIS])]
#[case::list_after_text("granite", &format!("Sure.\n{LIST}"), None, Some("Sure."), &[PARIS])]
#[case::list_cut_in_arguments("granite", "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"k\": ", None, None, &[RowCall::Invalid("a")])]
#[case::list_cut_before_name("granite", "<|tool_call|>[{\"na", None, Some("<|tool_call|>[{\"na"), &[])]
#[case::end_of_text_dropped("granite", "Hello!<|end_of_text|>", None, Some("Hello!"), &[])]
#[case::granite4_call("granite-4", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", None, None, &[PARIS])]
#[case::granite4_list_marker_is_text("granite-4", LIST, None, Some(LIST), &[])]
#[case::fc_call("granite-20b-fc", "<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", None, None, &[PARIS])]
#[case::fc_cut("granite-20b-fc", "<function_call> {\"name\": \"a\", \"arguments\": {\"k\"", None, None, &[RowCall::Invalid("a")])]
fn rows(
    #[case] parser: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let tokens = match parser {
        "granite" => GRANITE3_TOKENS,
        "granite-4" => GRANITE4_TOKENS,
        _ => GRANITE_20B_FC_TOKENS,
    };
    let message = run_row(parser, prompt_options(Some(TAIL), None), output, tokens);
    check_row(&message, reasoning, content, calls);
}

#[rstest]
#[case("granite", "granite")]
#[case("granite_thinking_parser", "granite")]
#[case("granite4", "granite-4")]
#[case("granite-20b-fc", "granite-20b-fc")]
fn names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

#[rstest]
#[case("ibm-granite/granite-3.0-8b-instruct", "granite")]
#[case("ibm-granite/granite-3.1-8b-instruct", "granite")]
#[case("ibm-granite/granite-3.3-2b-instruct-GGUF", "granite")]
#[case("ibm-granite/granite-4.0-h-small", "granite-4")]
#[case("ibm-granite/granite-4.0-micro-FP8", "granite-4")]
#[case("ibm-granite/granite-20b-functioncalling", "granite-20b-fc")]
fn models_resolve(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

#[test]
fn the_entries_list_the_spec_tokens() {
    for (parser, listed) in [
        (&GRANITE3, GRANITE3_TOKENS),
        (&GRANITE4, GRANITE4_TOKENS),
        (&GRANITE_20B_FC, GRANITE_20B_FC_TOKENS),
    ] {
        let mut tokens = parser.tokens().to_vec();
        tokens.sort_unstable();
        let mut listed = listed.to_vec();
        listed.sort_unstable();
        assert_eq!(tokens, listed, "{}", parser.name());
    }
}

#[test]
fn the_samples_parse_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("granite"), 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<think>"), Just("</think>"), Just("<response>"), Just("</response>"), Just("<|tool_call|>"), Just("<tool_call>"),
            Just("</tool_call>"), Just("<function_call>"), Just("[{\"name\": \"f\", \"arguments\": {"), Just("}"), Just("]"), Just(","), Just("<|end_of_text|>"), Just("x")], 0..24),
        seed in 0u64..1000) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_prompt_tail(TAIL).with_call_id_seed(7);
        for (parser, tokens) in [("granite", GRANITE3_TOKENS), ("granite-4", GRANITE4_TOKENS), ("granite-20b-fc", GRANITE_20B_FC_TOKENS)] {
            let entry = find_by_name(parser).unwrap();
            check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, tokens))
                .map_err(TestCaseError::fail)?;
        }
    }
}
