//! Behaviour tables: DESIGN.md §4's conventions on the ERNIE-4.5 format. Every row runs one-shot and
//! under every chunking (whole, 1/2/3/5/8 characters, eight random splits, the family's tokens whole),
//! and all of them must agree before the row is checked. Then the registry (names, aliases, models),
//! the spec's tokens, and properties: exact hold-back, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_content_held_back_exactly, check_row,
    check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_ernie::{ERNIE45, ERNIE45_INSTRUCT, SPECIAL_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

/// The Thinking model's parser and prompt: reasoning opened.
const THINK: (&str, &str) = ("ernie-4.5", "User: Hi\nAssistant: <think>\n");
/// A model without thinking: its parser and a prompt that leaves it in the answer.
const ANSWER: (&str, &str) = ("ernie-4.5-instruct", "User: Hi\nAssistant: ");
const CALL: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");

#[rstest]
#[case::reasoning_then_answer(THINK, "Hmm.</think>Hello!", Some("Hmm."), Some("Hello!"), &[])]
#[case::reasoning_then_response(
    THINK,
    "Hmm.</think><response>Hello!</response>",
    Some("Hmm."),
    Some("Hello!"),
    &[]
)]
#[case::reasoning_then_call(THINK, &format!("Paris.</think>{CALL}"), Some("Paris."), None, &[PARIS])]
#[case::cut_off_reasoning(THINK, "Still thinking", Some("Still thinking"), None, &[])]
#[case::answer_stage_plain(ANSWER, "Hello!", None, Some("Hello!"), &[])]
#[case::answer_stage_think_at_start(ANSWER, "<think>Hmm.</think>Hi.", Some("Hmm."), Some("Hi."), &[])]
#[case::answer_stage_think_later_is_content(
    ANSWER,
    "Hi <think>x</think>",
    None,
    Some("Hi <think>x</think>"),
    &[]
)]
#[case::content_then_call(ANSWER, &format!("Sure.\n{CALL}"), None, Some("Sure."), &[PARIS])]
#[case::two_calls(ANSWER, &format!("{CALL}\n{CALL}"), None, None, &[PARIS, PARIS])]
#[case::call_cut_in_arguments(
    ANSWER,
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"ci",
    None, None, &[RowCall::Invalid("get_weather")]
)]
#[case::call_cut_before_name(ANSWER, "<tool_call>\n{\"na", None, Some("<tool_call>\n{\"na"), &[])]
#[case::not_json_is_content(
    ANSWER,
    "<tool_call>\nget_weather(city)\n</tool_call>",
    None,
    Some("<tool_call>\nget_weather(city)\n</tool_call>"),
    &[]
)]
#[case::call_in_reasoning_then_text(
    THINK,
    &format!("Write {CALL} later.</think>Ok."),
    Some(&*format!("Write {CALL} later.")), Some("Ok."), &[]
)]
#[case::call_ends_open_reasoning(THINK, &format!("Quick.{CALL}"), Some("Quick."), None, &[PARIS])]
#[case::end_tokens_dropped(ANSWER, "Hello!</s>", None, Some("Hello!"), &[])]
#[case::end_of_sentence_dropped(ANSWER, "Hello!<|end_of_sentence|>", None, Some("Hello!"), &[])]
fn rows(
    #[case] (parser, tail): (&str, &str),
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        parser,
        prompt_options(Some(tail), None),
        output,
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, calls);
}

#[test]
fn without_a_prompt_tail_the_output_starts_in_reasoning() {
    let message = run_row(
        "ernie-4.5",
        prompt_options(None, None),
        "Hmm.</think>Hi.",
        SPECIAL_TOKENS,
    );
    check_row(&message, Some("Hmm."), Some("Hi."), &[]);
}

#[rstest]
#[case("ernie-4.5", "ernie-4.5")]
#[case("ernie45", "ernie-4.5")]
#[case("ernie4_5", "ernie-4.5")]
#[case("ernie-x1", "ernie-4.5")]
#[case("ernie-45-vl", "ernie-4.5")]
#[case("ernie-4.5-instruct", "ernie-4.5-instruct")]
#[case("ernie-4.5-pt", "ernie-4.5-instruct")]
fn names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

#[rstest]
#[case("baidu/ERNIE-4.5-21B-A3B-Thinking", "ernie-4.5")]
#[case("unsloth/ERNIE-4.5-21B-A3B-Thinking-GGUF", "ernie-4.5")]
#[case("baidu/ERNIE-4.5-VL-28B-A3B-Thinking", "ernie-4.5")]
#[case("baidu/ERNIE-4.5-VL-424B-A47B-PT", "ernie-4.5")]
#[case("baidu/ERNIE-4.5-21B-A3B-PT", "ernie-4.5-instruct")]
#[case("baidu/ERNIE-4.5-300B-A47B-PT", "ernie-4.5-instruct")]
#[case("baidu/ERNIE-4.5-0.3B-PT", "ernie-4.5-instruct")]
fn models_resolve(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

#[test]
fn the_entries_list_the_spec_tokens() {
    for parser in [&ERNIE45, &ERNIE45_INSTRUCT] {
        let mut tokens = parser.tokens().to_vec();
        tokens.sort_unstable();
        let mut listed = SPECIAL_TOKENS.to_vec();
        listed.sort_unstable();
        assert_eq!(tokens, listed);
    }
}

#[test]
fn the_samples_parse_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("ernie"), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    // Exact hold-back (DESIGN §4.2): content is released as soon as it cannot start a marker.
    #[test]
    fn content_is_held_back_exactly(pieces in proptest::collection::vec("[</_toolcaesnpr|>]{1,4}", 1..40)) {
        let markers = ["<tool_call>", "<response>", "</response>", "</s>", "<|end_of_sentence|>"];
        let text: String = pieces.concat();
        prop_assume!(!markers.iter().any(|m| text.contains(m)));
        let parser = find_by_name(ANSWER.0).unwrap().parser(&prompt_options(Some(ANSWER.1), None));
        let held_back = check_content_held_back_exactly(parser, "x", &pieces, &markers);
        prop_assert!(held_back.is_ok(), "{}", held_back.unwrap_err());
    }

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<think>"), Just("</think>"), Just("<response>"), Just("</response>"), Just("<tool_call>"),
            Just("</tool_call>"), Just("</s>"), Just("{\"name\": \"f\", \"arguments\": {"), Just("}"), Just("\""),
            Just("\n"), Just("x")], 0..24), seed in 0u64..1000, answer in any::<bool>()) {
        let output: String = parts.concat();
        let (parser, tail) = if answer { ANSWER } else { THINK };
        let options = ParseOptions::new().with_prompt_tail(tail).with_call_id_seed(7);
        let entry = find_by_name(parser).unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS))
            .map_err(TestCaseError::fail)?;
    }
}
