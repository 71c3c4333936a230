//! Behaviour tables: DESIGN.md §4's conventions on the Hermes format. Every row runs one-shot and under
//! every chunking (whole, 1/2/3/5/8 characters, eight random splits, the family's tokens whole), and
//! all of them must agree before the row is checked. Then the registry (names, aliases, models), the
//! spec's tokens, and properties: exact hold-back, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_content_held_back_exactly, check_row,
    check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_hermes::{HERMES, SPECIAL_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

const TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
const CALL: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");

#[rstest]
#[case::plain("Hello!", None, Some("Hello!"), &[])]
#[case::think_then_answer("<think>Hmm.</think>Hello!", Some("Hmm."), Some("Hello!"), &[])]
#[case::think_then_call(&format!("<think>Paris.</think>{CALL}"), Some("Paris."), None, &[PARIS])]
#[case::content_then_call(&format!("Sure.\n{CALL}"), None, Some("Sure."), &[PARIS])]
#[case::think_not_at_start_is_content("Hi <think>x</think>", None, Some("Hi <think>x</think>"), &[])]
#[case::call_without_newlines(
    "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>",
    None, None, &[PARIS]
)]
#[case::call_cut_in_arguments(
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"ci",
    None, None, &[RowCall::Invalid("get_weather")]
)]
#[case::call_cut_before_name("<tool_call>\n{\"na", None, Some("<tool_call>\n{\"na"), &[])]
#[case::not_json_is_content("<tool_call>\nget_weather(city)\n</tool_call>", None, Some("<tool_call>\nget_weather(city)\n</tool_call>"), &[])]
#[case::call_in_reasoning_then_text(
    &format!("<think>Write {CALL} later.</think>Ok."),
    Some(&*format!("Write {CALL} later.")), Some("Ok."), &[]
)]
#[case::call_ends_open_reasoning(&format!("<think>Quick.{CALL}"), Some("Quick."), None, &[PARIS])]
#[case::end_of_turn_dropped("Hello!<|im_end|>", None, Some("Hello!"), &[])]
fn rows(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        "hermes",
        prompt_options(Some(TAIL), None),
        output,
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, calls);
}

#[test]
fn a_prefilled_think_starts_in_reasoning() {
    let options = prompt_options(Some(&format!("{TAIL}<think>")), None);
    let message = run_row("hermes", options, "Hmm.</think>Hi.", SPECIAL_TOKENS);
    check_row(&message, Some("Hmm."), Some("Hi."), &[]);
}

#[rstest]
#[case("hermes")]
#[case("hermes_2_pro")]
#[case("Hermes-2-Pro")]
#[case("hermes3")]
#[case("hermes4")]
fn names_resolve(#[case] name: &str) {
    assert_eq!(find_by_name(name).unwrap().name, "hermes");
}

#[rstest]
#[case("NousResearch/Hermes-2-Pro-Llama-3-8B")]
#[case("NousResearch/Hermes-2-Pro-Mistral-7B")]
#[case("NousResearch/Hermes-2-Theta-Llama-3-8B")]
#[case("NousResearch/Hermes-3-Llama-3.1-8B")]
#[case("NousResearch/Hermes-3-Llama-3.2-3B-GGUF")]
#[case("NousResearch/Hermes-4-70B")]
#[case("NousResearch/Hermes-4-14B-FP8")]
#[case("NousResearch/Hermes-4.3-36B")]
fn models_resolve(#[case] model: &str) {
    assert_eq!(find_for_model(model).unwrap().name, "hermes", "{model}");
}

#[test]
fn the_entry_lists_the_spec_tokens() {
    let mut tokens = HERMES.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
}

#[test]
fn the_sample_parses_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("hermes"), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    // Exact hold-back (DESIGN §4.2): content is released as soon as it cannot start a marker.
    #[test]
    fn content_is_held_back_exactly(pieces in proptest::collection::vec("[<|/_toolcaendimx>]{1,4}", 1..40)) {
        let markers = ["<tool_call>", "<|im_end|>"];
        let text: String = pieces.concat();
        prop_assume!(!markers.iter().any(|m| text.contains(m)));
        let parser = find_by_name("hermes").unwrap().parser(&prompt_options(Some(TAIL), None));
        let held_back = check_content_held_back_exactly(parser, "x", &pieces, &markers);
        prop_assert!(held_back.is_ok(), "{}", held_back.unwrap_err());
    }

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<think>"), Just("</think>"), Just("<tool_call>"), Just("</tool_call>"), Just("<|im_end|>"),
            Just("{\"name\": \"f\", \"arguments\": {"), Just("}"), Just("\""), Just("\n"), Just("x")], 0..24), seed in 0u64..1000) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_prompt_tail(TAIL).with_call_id_seed(7);
        let entry = find_by_name("hermes").unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS))
            .map_err(TestCaseError::fail)?;
    }
}
