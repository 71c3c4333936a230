//! The Hermes-style parsers' grammars (`parser_qwen::constraint`), run through llguidance with a
//! byte vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into
//! valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
pub(crate) mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
pub(crate) mod llg;

use std::path::Path;

use parser_core::constraint::ToolChoice;
use parser_qwen::markers::{EOS, THINK_CLOSE, TOOL_CALL_END};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the format (one JSON call object per block, blocks closed, nothing
/// after the calls).
const REFUSED: &[&str] = &[
    // The call block is never closed (the output stops at EOS).
    "vllm/hermes/non_streaming_until_eos",
    // `arguments` is a JSON-encoded string, not an object.
    "vllm/hermes/serialized_arguments",
    // Qwen3-Coder XML (`<function=bash>`) inside `<tool_call>`, which the Hermes parser also reads.
    "vllm/qwen3/tool_call_no_think_end",
    // A call inside reasoning that is never closed.
    "vllm/qwen3/tool_call_with_think_no_end",
    // Qwen3-Coder XML again.
    "vllm/qwen3/thinking_disabled_with_tool_call",
    // Text after the calls.
    "sglang/qwen/text_between_and_after_calls",
    // The call block is never closed.
    "sglang/qwen/missing_close_tag_no_call",
    // Text after the calls.
    "sglang/qwen/real_world_two_calls_with_prose",
    // Text after the call, where `</tool_call>` should be.
    "sglang/qwen/fallback_missing_close_returns_text",
    // A call object without `arguments`.
    "sglang/qwen/quoted_syntax_example_is_parsed",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &[
            "vllm/hermes.jsonl",
            "vllm/qwen3_reasoning.jsonl",
            "sglang/qwen.jsonl",
            "llama_cpp/qwen.jsonl",
        ],
        EOS,
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (10, 2), "{run:?}");
}

const PARIS: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const NOW: &str = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>";

fn constraint(
    tail: &str,
    choice: ToolChoice,
    parallel: bool,
) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_qwen::constraint::qwen3, tail, choice, parallel)
}

const THINKING_OFF: &str = "<|im_start|>assistant\n<think>\n\n</think>\n\n";
const THINKING_ON: &str = "<|im_start|>assistant\n<think>\n";

#[rstest]
#[case::valid(THINKING_OFF, PARIS, true, true)]
#[case::valid_after_reasoning(THINKING_ON, &format!("Weather.{THINK_CLOSE}\n\n{PARIS}"), true, true)]
#[case::reasoning_not_closed(THINKING_ON, PARIS, true, false)]
#[case::unknown_function(
    THINKING_OFF,
    "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
    true,
    false
)]
#[case::missing_required_argument(
    THINKING_OFF,
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 3}}\n</tool_call>",
    true,
    false
)]
#[case::undeclared_argument(
    THINKING_OFF,
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"x\": 1}}\n</tool_call>",
    true,
    false
)]
#[case::text_instead_of_a_call(THINKING_OFF, "The weather in Paris is sunny.", true, false)]
#[case::two_calls(THINKING_OFF, &format!("{PARIS}\n{NOW}"), true, true)]
#[case::two_calls_when_parallel_is_off(THINKING_OFF, &format!("{PARIS}\n{NOW}"), false, false)]
#[case::unclosed_call(THINKING_OFF, &PARIS[..PARIS.len() - TOOL_CALL_END.len()], true, false)]
fn required_calls(
    #[case] tail: &str,
    #[case] output: &str,
    #[case] parallel: bool,
    #[case] accepted: bool,
) {
    let constraint = constraint(tail, ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn tool_choice_none_refuses_calls() {
    let constraint = constraint(THINKING_OFF, ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), PARIS).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "qwen3",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.</think>\n\nLet me check. ",
        },
        Setting {
            parser: "qwen3",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "qwen3",
            prompt_tail: "<|im_start|>assistant\n",
            lazy_prefix: "",
        },
        Setting {
            parser: "qwen2.5",
            prompt_tail: "<|im_start|>assistant\n",
            lazy_prefix: "Sure. ",
        },
    ];
    let hints = [THINK_CLOSE, TOOL_CALL_END, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
