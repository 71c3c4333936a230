//! The Qwen3-Coder XML parsers' grammars (`parser_qwen::constraint::xml_format`), run through
//! llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled
//! outputs parse into valid calls whose arguments fit their schemas.

use std::path::Path;

use parser_core::constraint::ToolChoice;
use parser_qwen::markers::{EOS, THINK_CLOSE, TOOL_CALL_END};
use rstest::rstest;

use crate::grammar::family::{Setting, check_both, corpus_acceptance, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the format and to the request's tools.
const REFUSED: &[&str] = &[
    // `<function=NAME>` without the `<tool_call>` wrapper (the XML parsers read a bare one too).
    "vllm/qwen3_coder/fallback_no_tool_call_tags",
    // The request's tools declare no properties (`"properties": {}`): the grammar offers declared
    // names only, and the parser reads undeclared ones as strings.
    "sglang/qwen3_coder/single_tool",
    "sglang/qwen3_coder/multiple_sequential_tools",
    "sglang/qwen3_coder/nested_json_param",
    "sglang/qwen3_coder/string_and_number_params",
    "sglang/qwen3_coder/multiline_param_value",
    "sglang/qwen3_coder/type_conversion",
    "sglang/qwen3_coder/special_characters",
    "sglang/qwen3_coder/whitespace_trimmed",
    // A function that is not among the request's tools.
    "sglang/qwen3_coder/stream_undeclared_function_not_emitted",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &[
            "vllm/qwen3_coder.jsonl",
            "sglang/qwen3_coder.jsonl",
            "llama_cpp/qwen3_coder.jsonl",
        ],
        EOS,
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (19, 2), "{run:?}");
}

const PARIS: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
const NOW: &str = "<tool_call>\n<function=now>\n</function>\n</tool_call>";

fn constraint(
    tail: &str,
    choice: ToolChoice,
    parallel: bool,
) -> parser_core::constraint::Constraint {
    crate::grammar::family::sampled_constraint(
        parser_qwen::constraint::qwen3_coder,
        tail,
        choice,
        parallel,
    )
}

const THINKING_OFF: &str = "<|im_start|>assistant\n<think>\n\n</think>\n\n";
const THINKING_ON: &str = "<|im_start|>assistant\n<think>\n";

fn call(function: &str, parameters: &[(&str, &str)]) -> String {
    let mut out = format!("<tool_call>\n<function={function}>\n");
    for (key, value) in parameters {
        out.push_str(&format!("<parameter={key}>\n{value}\n</parameter>\n"));
    }
    out.push_str("</function>\n</tool_call>");
    out
}

#[rstest]
#[case::valid(THINKING_OFF, PARIS, true, true)]
#[case::valid_after_reasoning(THINKING_ON, &format!("Weather.{THINK_CLOSE}\n\n{PARIS}"), true, true)]
#[case::reasoning_not_closed(THINKING_ON, PARIS, true, false)]
#[case::every_type(
    THINKING_OFF,
    &call("search", &[("query", "rust & co"), ("limit", "null"), ("exact", "true"),
        ("tags", "[\"a\", \"b\"]"), ("filters", "{\"lang\": \"en\"}")]),
    true,
    true
)]
#[case::any_order(
    THINKING_OFF,
    &call("get_weather", &[("unit", "celsius"), ("days", "3"), ("city", "Paris")]),
    true,
    true
)]
#[case::value_without_framing_newlines(
    THINKING_OFF,
    "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</tool_call>",
    true,
    true
)]
#[case::unknown_function(THINKING_OFF, &call("get_time", &[]), true, false)]
#[case::missing_required_argument(THINKING_OFF, &call("get_weather", &[("days", "3")]), true, false)]
#[case::undeclared_argument(
    THINKING_OFF,
    &call("get_weather", &[("city", "Paris"), ("x", "1")]),
    true,
    false
)]
#[case::repeated_argument(
    THINKING_OFF,
    &call("get_weather", &[("city", "Paris"), ("city", "Lyon")]),
    true,
    false
)]
#[case::integer_argument_not_a_number(
    THINKING_OFF,
    &call("get_weather", &[("city", "Paris"), ("days", "three")]),
    true,
    false
)]
#[case::enum_argument_not_a_member(
    THINKING_OFF,
    &call("get_weather", &[("city", "Paris"), ("unit", "kelvin")]),
    true,
    false
)]
#[case::string_argument_too_long(
    THINKING_OFF,
    &call("get_weather", &[("city", "Llanfairpwllgwyngyllgogerychwyrndrobwll")]),
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
            parser: "qwen3-coder",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "qwen3-coder",
            prompt_tail: "<|im_start|>assistant\n",
            lazy_prefix: "",
        },
        Setting {
            parser: "qwen3.5",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.</think>\n\nLet me check. ",
        },
    ];
    // No closing tag of the call: written whole inside a JSON value's string, `</function>` or
    // `</parameter></tool_call>` would end the value in the parser (a hole `%json` cannot close; see
    // `ParameterTags`). The sampled tools' strings are bounded or enums, so no value needs one to end.
    let hints = [THINK_CLOSE, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1002, &hints);
    assert!(checked >= 950, "{checked}");
}
