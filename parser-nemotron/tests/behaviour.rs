//! Behaviour tables: DESIGN.md §4's conventions on Nemotron's formats. Every row runs one-shot and under
//! every chunking, all of which must agree before the row is checked. Then the registry (names,
//! aliases, models), the specs' tokens, and random marker soup streaming like one-shot.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, find_by_name, find_for_model};
use parser_nemotron::{NANO_V2, NANO_V2_TOKENS, NANO_V3, NANO_V3_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

const V2_ON: &str = "<SPECIAL_11>User\nHi\n<SPECIAL_11>Assistant\n<think>\n";
const V2_OFF: &str = "<SPECIAL_11>User\nHi\n<SPECIAL_11>Assistant\n<think></think>";
const V3_ON: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";
const V3_OFF: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think></think>";
const PARIS: RowCall = RowCall::Valid("get_weather", "{\"city\": \"Paris\"}");
const V2_CALL: &str =
    "<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</TOOLCALL>";
const V3_CALL: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";

#[rstest]
#[case::v2_reasoning_then_answer("nemotron-nano-v2", Some(V2_ON), None, "Hmm.\n</think>\n\nHi!", Some("Hmm."), Some("Hi!"), &[])]
#[case::v2_off("nemotron-nano-v2", Some(V2_OFF), None, "Hi!<SPECIAL_12>", None, Some("Hi!"), &[])]
#[case::v2_call_after_reasoning("nemotron-nano-v2", Some(V2_ON), None, &format!("x\n</think>\n\n{V2_CALL}"), Some("x"), None, &[PARIS])]
#[case::v2_call_right_after_the_prompt("nemotron-nano-v2", Some(V2_ON), None, V2_CALL, None, None, &[PARIS])]
#[case::v2_cut("nemotron-nano-v2", Some(V2_OFF), None, "<TOOLCALL>[{\"name\": \"a\", \"arguments\": {", None, None, &[RowCall::Invalid("a")])]
#[case::v2_flag_off("nemotron-nano-v2", None, Some(false), "Hmm.</think>Hi!", None, Some("Hmm.</think>Hi!"), &[])]
#[case::v3_reasoning_then_call("nemotron-3-nano", Some(V3_ON), None, &format!("x\n</think>\n{V3_CALL}"), Some("x"), None, &[PARIS])]
#[case::v3_off("nemotron-3-nano", Some(V3_OFF), None, "Hi!<|im_end|>", None, Some("Hi!"), &[])]
#[case::v3_flag_off("nemotron-3-nano", None, Some(false), "Hi!", None, Some("Hi!"), &[])]
#[case::v3_default_reasoning("nemotron-3-nano", None, None, "Hmm.</think>Hi!", Some("Hmm."), Some("Hi!"), &[])]
#[case::v3_call_markup_in_reasoning(
    "nemotron-3-nano", Some(V3_ON), None, &format!("Write {V3_CALL} then.</think>Ok."),
    Some(&*format!("Write {V3_CALL} then.")), Some("Ok."), &[]
)]
#[case::v3_cut_in_value("nemotron-3-nano", Some(V3_OFF), None, "<tool_call>\n<function=a>\n<parameter=k>\n1", None, None, &[RowCall::Invalid("a")])]
fn rows(
    #[case] parser: &str,
    #[case] tail: Option<&str>,
    #[case] thinking: Option<bool>,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let tokens = if parser == "nemotron-nano-v2" {
        NANO_V2_TOKENS
    } else {
        NANO_V3_TOKENS
    };
    let message = run_row(parser, prompt_options(tail, thinking), output, tokens);
    check_row(&message, reasoning, content, calls);
}

#[rstest]
#[case("nemotron-nano-v2", "nemotron-nano-v2")]
#[case("nemotron_nano_v2", "nemotron-nano-v2")]
#[case("nemotron_v2", "nemotron-nano-v2")]
#[case("nemotron-3-nano", "nemotron-3-nano")]
#[case("nemotron_v3", "nemotron-3-nano")]
#[case("nemotron-3.5-nano", "nemotron-3-nano")]
#[case("nano_v3", "nemotron-3-nano")]
#[case("nemotron", "nemotron-3-nano")]
fn names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

#[rstest]
#[case("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron-nano-v2")]
#[case("nvidia/NVIDIA-Nemotron-Nano-12B-v2-FP8", "nemotron-nano-v2")]
#[case("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron-3-nano")]
#[case("unsloth/Nemotron-3-Nano-30B-A3B-GGUF", "nemotron-3-nano")]
fn models_resolve(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

#[test]
fn the_entries_list_the_spec_tokens() {
    for (parser, listed) in [(&NANO_V2, NANO_V2_TOKENS), (&NANO_V3, NANO_V3_TOKENS)] {
        let mut tokens = parser.tokens().to_vec();
        tokens.sort_unstable();
        let mut listed = listed.to_vec();
        listed.sort_unstable();
        assert_eq!(tokens, listed, "{}", parser.name());
    }
}

#[test]
fn the_samples_parse_alike_cut_anywhere() {
    assert_eq!(check_sample_splits("nemotron"), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn marker_soup_streams_like_one_shot(parts in proptest::collection::vec(
        prop_oneof![Just("<think>"), Just("</think>"), Just("<TOOLCALL>"), Just("</TOOLCALL>"), Just("[{\"name\": \"f\", \"arguments\": {"), Just("}]"),
            Just("<tool_call>"), Just("</tool_call>"), Just("<function=f>"), Just("<parameter=k>"), Just("</parameter>"), Just("</function>"),
            Just("<SPECIAL_12>"), Just("<|im_end|>"), Just("\n"), Just("x")], 0..24),
        seed in 0u64..1000) {
        let output: String = parts.concat();
        for (parser, tail, tokens) in [("nemotron-nano-v2", V2_ON, NANO_V2_TOKENS), ("nemotron-3-nano", V3_ON, NANO_V3_TOKENS)] {
            let options = ParseOptions::new().with_prompt_tail(tail).with_call_id_seed(7);
            let entry = find_by_name(parser).unwrap();
            check_chunkings(&|| entry.parser(&options), &output, &Chunking::property(seed, tokens))
                .map_err(TestCaseError::fail)?;
        }
    }
}
