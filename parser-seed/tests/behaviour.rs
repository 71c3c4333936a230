//! Behaviour tables: DESIGN.md §4's conventions on Seed-OSS's format. Every row runs one-shot and under
//! every chunking, all of which must agree before the row is checked. Then the registry (names,
//! aliases, models), the spec's tokens, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_seed::{SEED_OSS, SPECIAL_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

const TAIL: &str = "<seed:bos>user\nHi<seed:eos><seed:bos>assistant\n";
const CALL: &str = "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");
const REFLECT: &str = "<seed:cot_budget_reflect>I have used 9 tokens.</seed:cot_budget_reflect>";

#[rstest]
#[case::plain("Hello!", None, Some("Hello!"), &[])]
#[case::think_then_answer("<seed:think>Hmm.</seed:think>Hello!", Some("Hmm."), Some("Hello!"), &[])]
#[case::reflection_is_reasoning(&format!("<seed:think>A.{REFLECT}B.</seed:think>Hi."), Some(&*format!("A.{REFLECT}B.")), Some("Hi."), &[])]
#[case::think_then_call(&format!("<seed:think>Paris.</seed:think>\n{CALL}"), Some("Paris."), None, &[PARIS])]
#[case::content_then_call(&format!("Sure.\n{CALL}"), None, Some("Sure."), &[PARIS])]
#[case::call_markup_in_reasoning_then_text(
    &format!("<seed:think>Write {CALL} then.</seed:think>Ok."),
    Some(&*format!("Write {CALL} then.")), Some("Ok."), &[]
)]
#[case::call_ends_open_reasoning(&format!("<seed:think>Quick.{CALL}"), Some("Quick."), None, &[PARIS])]
#[case::cut_in_value("<seed:tool_call><function=a><parameter=k>1", None, None, &[RowCall::Invalid("a")])]
#[case::name_never_completes("<seed:tool_call><function=ge", None, Some("<seed:tool_call><function=ge"), &[])]
#[case::end_of_turn_dropped("Hello!<seed:eos>", None, Some("Hello!"), &[])]
fn rows(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        "seed-oss",
        prompt_options(Some(TAIL), None),
        output,
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, calls);
}

#[rstest]
#[case("seed-oss")]
#[case("seed_oss")]
#[case("SeedOSS")]
fn names_resolve(#[case] name: &str) {
    assert_eq!(find_by_name(name).unwrap().name, "seed-oss");
}

#[rstest]
#[case("ByteDance-Seed/Seed-OSS-36B-Instruct")]
#[case("ByteDance-Seed/Seed-OSS-36B-Base")]
#[case("unsloth/Seed-OSS-36B-Instruct-GGUF")]
fn models_resolve(#[case] model: &str) {
    assert_eq!(find_for_model(model).unwrap().name, "seed-oss", "{model}");
}

#[test]
fn the_entry_lists_the_spec_tokens() {
    let mut tokens = SEED_OSS.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
}

#[test]
fn the_sample_parses_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("seed"), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<seed:think>"), Just("</seed:think>"), Just("<seed:tool_call>"), Just("</seed:tool_call>"), Just("<function=f>"),
            Just("</function>"), Just("<parameter=k>"), Just("</parameter>"), Just("<seed:eos>"), Just(REFLECT), Just("\n"), Just("x"), Just("<")], 0..24),
        seed in 0u64..1000) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_prompt_tail(TAIL).with_call_id_seed(7);
        let entry = find_by_name("seed-oss").unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS))
            .map_err(TestCaseError::fail)?;
    }
}
