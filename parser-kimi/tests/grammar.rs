//! The Kimi parsers' grammars (`parser_kimi::constraint`), run through llguidance with a byte
//! vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid
//! calls whose arguments fit their schemas.

// Shared with `grammar_k3` (a file may be loaded as a module once per binary).
#[path = "../../parser-core/tests-support/family.rs"]
pub(crate) mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
pub(crate) mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use parser_kimi::markers::{CALL_END, IM_END, SECTION_END, THINK_CLOSE};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, sampled_tools, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the format (ids `functions.NAME:IDX`, every call closed, nothing
/// after the calls).
const REFUSED: &[&str] = &[
    // Ids without the `functions.` prefix, or not ending in `:IDX`.
    "vllm/kimi_k2/no_functions_prefix",
    "vllm/kimi_k2/malformed_id_skipped",
    "vllm/kimi_k2/bare_counter_id",
    // Text after the section.
    "sglang/kimi/k2_complete_parsing",
    // An id without the `functions.` prefix.
    "sglang/kimi/k2_namespaced_name_kept",
    // Calls without `<|tool_call_end|>` (the output stops after the arguments).
    "llama_cpp/kimi_k2/Kimi-K2-Thinking-L2058",
    "llama_cpp/kimi_k2/Kimi-K2-Thinking-L2075",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &[
            "vllm/kimi_k2.jsonl",
            "vllm/kimi_k2_reasoning.jsonl",
            "sglang/kimi.jsonl",
            "llama_cpp/kimi_k2.jsonl",
        ],
        &[IM_END],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (16, 11), "{run:?}");
}

const PARIS: &str = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";
const TWO: &str = "<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|>\n<|tool_call_begin|>functions.now:1<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>";

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    // K2-Thinking: the output starts inside reasoning.
    let options = ParseOptions::new().with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    parser_kimi::constraint::k2_thinking(&options, &request).unwrap()
}

#[rstest]
#[case::valid(&format!("Weather.{THINK_CLOSE}{PARIS}"), true, true)]
// A call section ends open reasoning (`BlockInReasoning::EndsReasoning`).
#[case::section_ends_reasoning(PARIS, true, true)]
#[case::section_ends_reasoning_then_text(&format!("{PARIS}Sunny."), true, false)]
#[case::unknown_function(&format!("x{THINK_CLOSE}{}", PARIS.replace("get_weather", "get_time")), true, false)]
#[case::missing_required_argument(&format!("x{THINK_CLOSE}{}", PARIS.replace("\"city\"", "\"days\"")), true, false)]
#[case::id_without_index(&format!("x{THINK_CLOSE}{}", PARIS.replace(":0", "")), true, false)]
#[case::text_instead_of_a_call("x</think>It is sunny in Paris.", true, false)]
#[case::two_calls(&format!("x{THINK_CLOSE}{TWO}"), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("x{THINK_CLOSE}{TWO}"), false, false)]
#[case::bare_call(&format!("x{THINK_CLOSE}{}", PARIS.replace("<|tool_calls_section_begin|>", "").replace(SECTION_END, "")), true, true)]
#[case::section_not_closed(&format!("x{THINK_CLOSE}{}", PARIS.trim_end_matches(SECTION_END)), true, false)]
#[case::call_not_closed(&format!("x{THINK_CLOSE}{}", PARIS.replace(CALL_END, "")), true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    const ASSISTANT: &str = "<|im_assistant|>assistant<|im_middle|>";
    let settings = [
        Setting {
            parser: "kimi-k2-thinking",
            prompt_tail: ASSISTANT,
            lazy_prefix: "The user wants the weather.</think>Let me check. ",
        },
        Setting {
            parser: "kimi-k2",
            prompt_tail: ASSISTANT,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "kimi-k2.5",
            prompt_tail: "<|im_assistant|>assistant<|im_middle|><think></think>",
            lazy_prefix: "",
        },
        Setting {
            parser: "kimi-vl",
            prompt_tail: ASSISTANT,
            lazy_prefix: "Sure. ",
        },
    ];
    let hints = [
        THINK_CLOSE,
        "◁/think▷",
        CALL_END,
        SECTION_END,
        "\"",
        "}",
        "]",
        "1",
        "null",
    ];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
