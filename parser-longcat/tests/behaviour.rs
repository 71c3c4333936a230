//! Behaviour tables: DESIGN.md §4's conventions on the LongCat-Flash format. Every row runs one-shot
//! and under every chunking (whole, 1/2/3/5/8 characters, eight random splits, the family's tokens
//! whole), and all of them must agree before the row is checked. Then the registry (names, aliases,
//! models), the spec's tokens, and properties: exact hold-back, and random marker soup streaming like
//! one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_content_held_back_exactly, check_row,
    check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_longcat::{LONGCAT, SPECIAL_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

/// LongCat-Flash-Chat's prompt: the answer.
const CHAT: &str = "[Round 0] USER:Hi ASSISTANT:";
/// Thinking mode: the prompt opens reasoning.
const THINK: &str = "<longcat_user>Hi /think_on <longcat_assistant><longcat_think>\n";
const CALL: &str = "<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</longcat_tool_call>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");

#[rstest]
#[case::plain(CHAT, "Hello!", None, Some("Hello!"), &[])]
#[case::call(CHAT, CALL, None, None, &[PARIS])]
#[case::content_then_call(CHAT, &format!("Sure.\n{CALL}"), None, Some("Sure."), &[PARIS])]
#[case::two_calls(CHAT, &format!("{CALL}\n{CALL}"), None, None, &[PARIS, PARIS])]
#[case::model_opens_reasoning(
    CHAT,
    "<longcat_think>Hmm.</longcat_think>Hi.",
    Some("Hmm."),
    Some("Hi."),
    &[]
)]
#[case::think_not_at_start_is_content(
    CHAT,
    "Hi <longcat_think>x</longcat_think>",
    None,
    Some("Hi <longcat_think>x</longcat_think>"),
    &[]
)]
#[case::prompt_opens_reasoning(THINK, "Hmm.</longcat_think>Hi.", Some("Hmm."), Some("Hi."), &[])]
#[case::reasoning_then_call(
    THINK,
    &format!("Paris.</longcat_think>{CALL}"),
    Some("Paris."),
    None,
    &[PARIS]
)]
#[case::call_cut_in_arguments(
    CHAT,
    "<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"ci",
    None, None, &[RowCall::Invalid("get_weather")]
)]
#[case::call_cut_before_name(
    CHAT,
    "<longcat_tool_call>{\"na",
    None,
    Some("<longcat_tool_call>{\"na"),
    &[]
)]
#[case::not_json_is_content(
    CHAT,
    "<longcat_tool_call>get_weather(city)</longcat_tool_call>",
    None,
    Some("<longcat_tool_call>get_weather(city)</longcat_tool_call>"),
    &[]
)]
#[case::hermes_markers_are_text(
    CHAT,
    "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
    None,
    Some("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"),
    &[]
)]
#[case::end_of_turn_dropped(CHAT, "Hello!</longcat_s>", None, Some("Hello!"), &[])]
fn rows(
    #[case] tail: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        "longcat",
        prompt_options(Some(tail), None),
        output,
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, calls);
}

#[rstest]
#[case("longcat")]
#[case("longcat-flash")]
#[case("longcat_flash")]
fn names_resolve(#[case] name: &str) {
    assert_eq!(find_by_name(name).unwrap().name, "longcat");
}

#[rstest]
#[case("meituan-longcat/LongCat-Flash-Chat")]
#[case("meituan-longcat/LongCat-Flash-Chat-FP8")]
#[case("meituan-longcat/LongCat-Flash-Thinking")]
fn models_resolve(#[case] model: &str) {
    assert_eq!(find_for_model(model).unwrap().name, "longcat", "{model}");
}

#[test]
fn the_entry_lists_the_spec_tokens() {
    let mut tokens = LONGCAT.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
}

#[test]
fn the_sample_parses_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("longcat"), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    // Exact hold-back (DESIGN §4.2): content is released as soon as it cannot start a marker.
    #[test]
    fn content_is_held_back_exactly(pieces in proptest::collection::vec("[</_longcatkhis>]{1,4}", 1..40)) {
        let markers = ["<longcat_tool_call>", "<longcat_think>", "</longcat_s>"];
        let text: String = pieces.concat();
        prop_assume!(!markers.iter().any(|m| text.contains(m)));
        let parser = find_by_name("longcat").unwrap().parser(&prompt_options(Some(CHAT), None));
        let held_back = check_content_held_back_exactly(parser, "x", &pieces, &markers);
        prop_assert!(held_back.is_ok(), "{}", held_back.unwrap_err());
    }

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<longcat_think>"), Just("</longcat_think>"), Just("<longcat_tool_call>"),
            Just("</longcat_tool_call>"), Just("</longcat_s>"), Just("{\"name\": \"f\", \"arguments\": {"), Just("}"),
            Just("\""), Just("\n"), Just("x")], 0..24), seed in 0u64..1000, think in any::<bool>()) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_prompt_tail(if think { THINK } else { CHAT }).with_call_id_seed(7);
        let entry = find_by_name("longcat").unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS))
            .map_err(TestCaseError::fail)?;
    }
}
