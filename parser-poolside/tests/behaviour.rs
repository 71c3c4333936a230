//! Behaviour tables: DESIGN.md §4's conventions on Laguna's format. Every row runs one-shot and under
//! every chunking, all of which must agree before the row is checked. Then the stage rules, the registry
//! (names, aliases, models), the spec's tokens, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_poolside::{LAGUNA, SPECIAL_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

const THINKING: &str = "<user>\nHi\n</user>\n<assistant>\n<think>";
const CALL: &str =
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");

#[rstest]
#[case::reasoning_then_answer("Hmm.\n</think>\nHello!", Some("Hmm."), Some("Hello!"), &[])]
#[case::cut_off_reasoning("Still thinking", Some("Still thinking"), None, &[])]
#[case::reasoning_then_call(&format!("Paris.\n</think>\n{CALL}"), Some("Paris."), None, &[PARIS])]
#[case::call_right_after_the_prompt(CALL, None, None, &[PARIS])]
#[case::call_markup_in_reasoning_then_text(
    &format!("Write {CALL} then.\n</think>\nOk."),
    Some(&*format!("Write {CALL} then.")), Some("Ok."), &[]
)]
#[case::glm47_layout_without_newlines(
    "x</think><tool_call>a<arg_key>k</arg_key><arg_value>1</arg_value></tool_call><tool_call>b</tool_call>",
    Some("x"), None, &[RowCall::Valid("a", "{\"k\": \"1\"}"), RowCall::Valid("b", "{}")]
)]
#[case::cut_in_value(
    "x</think><tool_call>a\n<arg_key>k</arg_key>\n<arg_value>1",
    Some("x"), None, &[RowCall::Invalid("a")]
)]
#[case::name_never_completes("x</think><tool_call>get_wea", Some("x"), Some("<tool_call>get_wea"), &[])]
#[case::end_of_turn_dropped("x</think>Hello!\n</assistant>", Some("x"), Some("Hello!"), &[])]
fn rows(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        "laguna",
        prompt_options(Some(THINKING), None),
        output,
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, calls);
}

#[rstest]
// The prompt says it: `<think>` opens reasoning, `</think>` closes it, whatever `enable_thinking` says.
#[case::tail_opens(Some(THINKING), None, Some("Hmm."), Some("Hello!"))]
#[case::tail_closes(
    Some("<assistant>\n</think>"),
    Some(true),
    None,
    Some("Hmm.</think>Hello!")
)]
// Without a tail: the switch, else the XS templates' default (off).
#[case::switch_on(None, Some(true), Some("Hmm."), Some("Hello!"))]
#[case::default_off(None, None, None, Some("Hmm.</think>Hello!"))]
fn stage(
    #[case] tail: Option<&str>,
    #[case] thinking: Option<bool>,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let message = run_row(
        "laguna",
        prompt_options(tail, thinking),
        "Hmm.</think>Hello!",
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, &[]);
}

#[rstest]
#[case("laguna")]
#[case("poolside_v1")]
#[case("poolside-v1")]
#[case("poolside")]
fn names_resolve(#[case] name: &str) {
    assert_eq!(find_by_name(name).unwrap().name, "laguna");
}

#[rstest]
#[case("poolside/Laguna-XS.2")]
#[case("poolside/Laguna-XS-2.1")]
#[case("poolside/Laguna-S-2.1")]
#[case("unsloth/Laguna-XS.2-GGUF")]
#[case("laguna:latest")]
fn models_resolve(#[case] model: &str) {
    assert_eq!(find_for_model(model).unwrap().name, "laguna", "{model}");
}

#[test]
fn the_entry_lists_the_spec_tokens() {
    let mut tokens = LAGUNA.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
}

#[test]
fn the_sample_parses_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("poolside"), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("</think>"), Just("<tool_call>"), Just("</tool_call>"), Just("f"), Just("<arg_key>"),
            Just("</arg_key>"), Just("<arg_value>"), Just("</arg_value>"), Just("</assistant>"), Just("\n"), Just("x"), Just("<")], 0..24),
        seed in 0u64..1000) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_prompt_tail(THINKING).with_call_id_seed(7);
        let entry = find_by_name("laguna").unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS))
            .map_err(TestCaseError::fail)?;
    }
}
