//! The native DeepSeek parsers' grammars (`parser_deepseek::constraint`), run through llguidance with a
//! byte vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into
//! valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
pub(crate) mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
pub(crate) mod llg;

use std::path::Path;

use parser_core::constraint::{Constraint, ToolChoice};
use parser_deepseek::markers::{CALL_END, CALLS_BEGIN, CALLS_END, EOS, THINK_CLOSE};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance_of, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the native shape of its generation.
const REFUSED: &[&str] = &[
    // Text after the call section.
    "vllm/deepseek_v31/two_calls_prefix_suffix",
    "sglang/deepseek/v3_complete_parsing",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    // DSML cases in the same files are grammar_dsml.rs's.
    let run = corpus_acceptance_of(
        &dir,
        &[
            "vllm/deepseek_r1_reasoning.jsonl",
            "vllm/deepseek_v3.jsonl",
            "vllm/deepseek_v31.jsonl",
            "vllm/deepseek_v3_reasoning.jsonl",
            "sglang/deepseek.jsonl",
            "llama_cpp/deepseek_r1.jsonl",
            "llama_cpp/deepseek_v31.jsonl",
        ],
        &[EOS],
        &["deepseek-r1", "deepseek-v3", "deepseek-v3.1"],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (17, 5), "{run:?}");
}

const V31_PARIS: &str = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
const V31_TWO: &str = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>now<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
const R1_PARIS: &str = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
const R1_TWO: &str = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";

const ASSISTANT_THINK: &str = "<｜User｜>Weather?<｜Assistant｜><think>\n";
const ASSISTANT_NO_THINK: &str = "<｜User｜>Weather?<｜Assistant｜></think>";

fn constraint(parser: &str, tail: &str, choice: ToolChoice, parallel: bool) -> Constraint {
    let build = match parser {
        "r1" => parser_deepseek::constraint::r1,
        "v3" => parser_deepseek::constraint::v3,
        _ => parser_deepseek::constraint::v31,
    };
    family::sampled_constraint(build, tail, choice, parallel)
}

#[rstest]
#[case::v31_valid("v31", ASSISTANT_NO_THINK, V31_PARIS, true, true)]
#[case::v31_after_reasoning("v31", ASSISTANT_THINK, &format!("Weather.{THINK_CLOSE}{V31_PARIS}"), true, true)]
#[case::v31_bare_call("v31", ASSISTANT_NO_THINK, &V31_PARIS.replace(CALLS_BEGIN, "").replace(CALLS_END, ""), true, true)]
#[case::v31_r1_shape("v31", ASSISTANT_NO_THINK, R1_PARIS, true, false)]
#[case::v31_unknown_function("v31", ASSISTANT_NO_THINK, &V31_PARIS.replace("get_weather", "get_time"), true, false)]
#[case::v31_missing_required_argument("v31", ASSISTANT_NO_THINK, &V31_PARIS.replace("\"city\"", "\"days\""), true, false)]
#[case::v31_text_instead_of_a_call("v31", ASSISTANT_NO_THINK, "It is sunny in Paris.", true, false)]
#[case::v31_text_then_call("v31", ASSISTANT_NO_THINK, &format!("Let me check.{V31_PARIS}"), true, false)]
#[case::v31_two_calls("v31", ASSISTANT_NO_THINK, V31_TWO, true, true)]
#[case::v31_two_calls_when_parallel_is_off("v31", ASSISTANT_NO_THINK, V31_TWO, false, false)]
#[case::v31_call_not_closed("v31", ASSISTANT_NO_THINK, &V31_PARIS.replace(CALL_END, ""), true, false)]
#[case::v31_section_not_closed("v31", ASSISTANT_NO_THINK, V31_PARIS.trim_end_matches(CALLS_END), true, false)]
#[case::r1_valid("r1", ASSISTANT_THINK, &format!("Weather.{THINK_CLOSE}\n\n{R1_PARIS}"), true, true)]
// R1 forced open: the reasoning must be closed, or the call block must end the output.
#[case::r1_block_ends_reasoning("r1", ASSISTANT_THINK, &format!("Weather.\n{R1_PARIS}"), true, true)]
#[case::r1_block_in_reasoning_then_more("r1", ASSISTANT_THINK, &format!("Weather.\n{R1_PARIS}Done."), true, false)]
#[case::r1_v31_shape("r1", ASSISTANT_THINK, &format!("x{THINK_CLOSE}{V31_PARIS}"), true, false)]
#[case::r1_unknown_function("r1", ASSISTANT_THINK, &format!("x{THINK_CLOSE}{}", R1_PARIS.replace("get_weather", "get_time")), true, false)]
#[case::r1_missing_required_argument("r1", ASSISTANT_THINK, &format!("x{THINK_CLOSE}{}", R1_PARIS.replace("\"city\"", "\"days\"")), true, false)]
#[case::r1_text_instead_of_a_call("r1", ASSISTANT_THINK, "x</think>It is sunny.", true, false)]
#[case::r1_unfenced_arguments("r1", ASSISTANT_THINK, &format!("x{THINK_CLOSE}{}", R1_PARIS.replace("\n```json\n", "\n").replace("\n```", "")), true, false)]
#[case::r1_fallback_shape(
    "r1",
    ASSISTANT_THINK,
    "x</think>function<get_weather>\n```json\n{\"city\": \"Paris\"}\n```",
    true,
    false
)]
#[case::r1_two_calls("r1", ASSISTANT_THINK, &format!("x{THINK_CLOSE}{R1_TWO}"), true, true)]
#[case::r1_two_calls_when_parallel_is_off("r1", ASSISTANT_THINK, &format!("x{THINK_CLOSE}{R1_TWO}"), false, false)]
#[case::v3_valid("v3", "", R1_PARIS, true, true)]
#[case::v3_optional_reasoning("v3", "", &format!("<think>Hm.{THINK_CLOSE}{R1_PARIS}"), true, true)]
#[case::v3_thinking_off("v3", ASSISTANT_NO_THINK, &format!("<think>Hm.{THINK_CLOSE}{R1_PARIS}"), true, false)]
fn required_calls(
    #[case] parser: &str,
    #[case] tail: &str,
    #[case] output: &str,
    #[case] parallel: bool,
    #[case] accepted: bool,
) {
    let constraint = constraint(parser, tail, ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[rstest]
#[case::v31("v31", V31_PARIS)]
#[case::r1("r1", R1_PARIS)]
fn tool_choice_none_refuses_calls(#[case] parser: &str, #[case] call: &str) {
    let constraint = constraint(parser, ASSISTANT_NO_THINK, ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), call).is_err());
}

#[test]
fn r1_free_text_never_spells_a_fallback_shape() {
    // R1 reads `function<NAME>` + a fence as a call: with tool_choice `none`, the answer may not.
    let r1 = constraint("r1", ASSISTANT_NO_THINK, ToolChoice::None, true);
    let fallback = "function<get_weather>\n```json\n{\"city\": \"Paris\"}\n```";
    assert!(check_both(r1.lark(), r1.gbnf(), fallback).is_err());
    assert!(check_both(r1.lark(), r1.gbnf(), "A function is a map.").is_ok());
    // V3 reads no fallback shape: its text may.
    let v3 = constraint("v3", ASSISTANT_NO_THINK, ToolChoice::None, true);
    assert!(check_both(v3.lark(), v3.gbnf(), fallback).is_ok());
}

#[test]
fn auto_is_lazy_from_the_section_or_a_call() {
    let v31 = constraint("v31", ASSISTANT_THINK, ToolChoice::Auto, true);
    assert!(v31.lazy);
    assert_eq!(
        v31.triggers.words,
        ["<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"]
    );
    assert!(check_both(v31.lark(), v31.gbnf(), V31_TWO).is_ok());
    assert!(check_both(v31.lark(), v31.gbnf(), &format!("{V31_PARIS}Done.")).is_err());
    assert_eq!(
        v31.preserved_tokens,
        [
            "<think>",
            "</think>",
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁sep｜>",
            "<｜tool▁call▁end｜>"
        ]
    );
    let r1 = constraint("r1", ASSISTANT_THINK, ToolChoice::Auto, true);
    assert_eq!(r1.preserved_tokens, v31.preserved_tokens);
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "deepseek-r1",
            prompt_tail: ASSISTANT_THINK,
            lazy_prefix: "The user wants the weather.</think>\n\nLet me check. ",
        },
        Setting {
            parser: "deepseek-v3",
            prompt_tail: "<｜User｜>Weather?<｜Assistant｜>",
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "deepseek-v3.1",
            prompt_tail: ASSISTANT_THINK,
            lazy_prefix: "The user wants the weather.</think>Sure. ",
        },
        Setting {
            parser: "deepseek-v3.1",
            prompt_tail: ASSISTANT_NO_THINK,
            lazy_prefix: "",
        },
    ];
    let hints = [
        THINK_CLOSE,
        CALL_END,
        CALLS_END,
        "\n```",
        "\"",
        "}",
        "]",
        "1",
        "null",
    ];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
