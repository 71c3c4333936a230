//! Behaviour tables: DESIGN.md §4's conventions on MiniCPM 5's format. Every row runs one-shot and under
//! every chunking, all of which must agree before the row is checked. Then the stage rules, the registry
//! (names, aliases, models), the spec's tokens, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_minicpm::{MINICPM5, MINICPMV, SPECIAL_TOKENS, SPECIAL_TOKENS_V};
use proptest::prelude::*;
use rstest::rstest;

const TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
const CALL: &str = "<function name=\"get_weather\"><param name=\"city\">Paris</param></function>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");

#[rstest]
#[case::reasoning_then_answer("<think>Hmm.\n</think>\nHello!", Some("Hmm."), Some("Hello!"), &[])]
#[case::answer_only("Hello!", None, Some("Hello!"), &[])]
#[case::cut_off_reasoning("<think>Still thinking", Some("Still thinking"), None, &[])]
#[case::reasoning_then_call(&format!("<think>Paris.\n</think>\n{CALL}"), Some("Paris."), None, &[PARIS])]
#[case::call_alone(CALL, None, None, &[PARIS])]
#[case::text_between_calls(
    &format!("A {CALL} B {CALL} C"), None, Some("A  B  C"), &[PARIS, PARIS]
)]
#[case::cut_in_value(
    "<function name=\"a\"><param name=\"k\">1",
    None, None, &[RowCall::Invalid("a")]
)]
#[case::name_never_completes(
    "See <function name=\"get_wea",
    None, Some("See <function name=\"get_wea"), &[]
)]
#[case::collapsed_spelling_is_a_call(
    "<functionname=\"get_weather\"><paramname=\"city\">Paris</param></function>", None, None, &[PARIS]
)]
#[case::spellings_mixed(
    "<functionname=\"get_weather\"><param name=\"city\">Paris</param></function>", None, None, &[PARIS]
)]
#[case::collapsed_spelling_cut_in_the_name(
    "See <functionname=\"get_wea", None, Some("See <functionname=\"get_wea"), &[]
)]
#[case::collapsed_argument_cut(
    "<functionname=\"a\"><paramname=\"k", None, None, &[RowCall::Invalid("a")]
)]
#[case::end_of_turn_dropped("Hello!<|im_end|>", None, Some("Hello!"), &[])]
fn rows(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        "minicpm5",
        prompt_options(Some(TAIL), None),
        output,
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, calls);
}

#[rstest]
// The prompt opens nothing (the model writes `<think>`); thinking off closes it in the prompt.
#[case::tail_opens_nothing(Some(TAIL), None, None, Some("Hmm.</think>Hello!"))]
#[case::tail_closes(
    Some("<|im_start|>assistant\n<think>\n\n</think>\n\n"),
    None,
    None,
    Some("Hmm.</think>Hello!")
)]
#[case::prefilled_think(
    Some("<|im_start|>assistant\n<think>"),
    None,
    Some("Hmm."),
    Some("Hello!")
)]
#[case::thinking_off(None, Some(false), None, Some("Hmm.</think>Hello!"))]
fn stage(
    #[case] tail: Option<&str>,
    #[case] thinking: Option<bool>,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let message = run_row(
        "minicpm5",
        prompt_options(tail, thinking),
        "Hmm.</think>Hello!",
        SPECIAL_TOKENS,
    );
    check_row(&message, reasoning, content, &[]);
}

#[rstest]
#[case("minicpm5", "minicpm5")]
#[case("minicpm-5", "minicpm5")]
#[case("MiniCPM_5", "minicpm5")]
#[case("minicpmv", "minicpmv")]
#[case("minicpm-v", "minicpmv")]
fn names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

#[rstest]
#[case("openbmb/MiniCPM5-8B", "minicpm5")]
#[case("openbmb/MiniCPM-5", "minicpm5")]
#[case("minicpm5", "minicpm5")]
#[case("openbmb/MiniCPM-V-4_5", "minicpmv")]
#[case("openbmb/MiniCPM-V-4_5-AWQ", "minicpmv")]
fn models_resolve(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

const TAIL_V_OFF: &str =
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
const V_CALL: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";

/// MiniCPM-V: Qwen3's format with the written-out newlines restored outside code and arguments.
#[rstest]
#[case::newline_restored("a\\nb", None, Some("a\nb"), &[])]
#[case::crlf_restored("a\\r\\nb\\rc", None, Some("a\nb\nc"), &[])]
#[case::escape_at_the_end("a\\", None, Some("a\\"), &[])]
#[case::cut_escape_at_the_end("a\\rb\\r\\", None, Some("a\nb\n\\"), &[])]
#[case::double_backslash_kept("a\\\\nb", None, Some("a\\\\nb"), &[])]
#[case::inline_code_kept("`a\\nb` c\\nd", None, Some("`a\\nb` c\nd"), &[])]
#[case::unclosed_fence_kept_to_the_end("```\\n x\\n", None, Some("```\\n x\\n"), &[])]
#[case::latex_kept("\\(a\\nb\\) $$c\\nd$$ e\\nf", None, Some("\\(a\\nb\\) $$c\\nd$$ e\nf"), &[])]
#[case::reasoning_restored("<think>x\\ny</think>z", Some("x\ny"), Some("z"), &[])]
#[case::escape_cut_by_reasoning_end("<think>x\\</think>nz", Some("x\\"), Some("nz"), &[])]
#[case::escape_cut_by_a_call(&format!("a\\{V_CALL}n"), None, Some("a\\n"), &[PARIS])]
#[case::argument_kept(
    "<tool_call><function=f><parameter=t>a\\nb</parameter></function></tool_call>",
    None, None, &[RowCall::Valid("f", "{\"t\": \"a\\\\nb\"}")]
)]
#[case::reserved_dropped("<reserved_12>a<|reserved_15|>b<|im_end|>", None, Some("ab"), &[])]
#[case::other_reserved_kept("<reserved_16>a", None, Some("<reserved_16>a"), &[])]
fn rows_v(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run_row(
        "minicpmv",
        prompt_options(Some(TAIL_V_OFF), None),
        output,
        SPECIAL_TOKENS_V,
    );
    check_row(&message, reasoning, content, calls);
}

#[rstest]
// Thinking is off unless the request turns it on; the output then starts in reasoning.
#[case::default_is_off(None, None, Some("Hmm.</think>Hello!"))]
#[case::thinking_on(Some(true), Some("Hmm."), Some("Hello!"))]
#[case::thinking_off(Some(false), None, Some("Hmm.</think>Hello!"))]
fn stage_v(
    #[case] thinking: Option<bool>,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let message = run_row(
        "minicpmv",
        prompt_options(None, thinking),
        "Hmm.</think>Hello!",
        SPECIAL_TOKENS_V,
    );
    check_row(&message, reasoning, content, &[]);
}

#[test]
fn the_v_entry_lists_the_spec_tokens() {
    let mut tokens = MINICPMV.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS_V.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
}

#[test]
fn the_entry_lists_the_spec_tokens() {
    let mut tokens = MINICPM5.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
}

#[test]
fn the_sample_parses_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("minicpm"), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn v_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<think>"), Just("</think>"), Just("<tool_call>"), Just("<function=f>"),
            Just("<parameter=k>"), Just("</parameter>"), Just("</function>"), Just("</tool_call>"),
            Just("\\"), Just("n"), Just("r"), Just("`"), Just("$"), Just("("), Just(")"), Just("["),
            Just("<reserved_12>"), Just("<|im_end|>"), Just("x")], 0..24),
        seed in 0u64..1000) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_enable_thinking(Some(seed % 2 == 0)).with_call_id_seed(7);
        let entry = find_by_name("minicpmv").unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS_V))
            .map_err(TestCaseError::fail)?;
    }

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<think>"), Just("</think>"), Just("<function name=\""), Just("f"), Just("\">"),
            Just("</function>"), Just("<param name=\""), Just("</param>"), Just("<|im_end|>"), Just("\n"),
            Just("x"), Just("<"), Just("<functionname=\""), Just("<paramname=\""), Just("<function"),
            Just("name=\"")], 0..24),
        seed in 0u64..1000) {
        let output: String = parts.concat();
        let options = ParseOptions::new().with_prompt_tail(TAIL).with_call_id_seed(7);
        let entry = find_by_name("minicpm5").unwrap();
        check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, SPECIAL_TOKENS))
            .map_err(TestCaseError::fail)?;
    }
}
