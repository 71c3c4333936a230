//! K2 Horizon's grammar (`parser_horizon::constraint`), run through llguidance with a byte vocabulary:
//! corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid calls
//! whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;

use parser_core::constraint::ToolChoice;
use parser_horizon::markers::{
    THINK_CLOSE, THINK_FAST_CLOSE, THINK_FAST_OPEN, TOOL_CALL_END, TOOL_CALLS, TOOL_CALLS_END,
};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, sampled_constraint, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads three layouts and more
/// than the format, the grammar generates the native layout only.
const REFUSED: &[&str] = &[
    // The typed XML layout (`<ifm|arg_type>`).
    "authored/horizon/typed_array_and_schema",
    // Text after the group.
    "vllm/k2_horizon/xml_two_calls_schema_typed",
    // The JSON layout, the typed XML layout, the JSON layout.
    "vllm/k2_horizon/json_format",
    "vllm/k2_horizon/xml_typed_format",
    "vllm/k2_horizon/json_boolean_string",
    // The group is never closed.
    "vllm/k2_horizon/group_closer_missing",
    // Text after the group.
    "vllm/k2_horizon/streaming_xml",
    // The JSON layout, then the typed XML layout.
    "vllm/k2_horizon/streaming_json",
    "vllm/k2_horizon/streaming_xml_typed",
    // The group is never closed.
    "vllm/k2_horizon/calls_end_reasoning",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &["authored/horizon.jsonl", "vllm/k2_horizon.jsonl"],
        &[],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (2, 0), "{run:?}");
}

/// The prompt closed reasoning.
const THINKING_OFF: &str = "<ifm|think></ifm|think>";
/// The prompt opened reasoning at high effort.
const THINKING_ON: &str = "<ifm|think>";

fn call(function: &str, arguments: &[(&str, &str)]) -> String {
    let mut out = format!("<ifm|tool_call>{function}");
    for (key, value) in arguments {
        out.push_str(&format!(
            "<ifm|arg_key>{key}</ifm|arg_key><ifm|arg_value>{value}</ifm|arg_value>"
        ));
    }
    out.push_str(TOOL_CALL_END);
    out
}

fn group(calls: &[String]) -> String {
    format!("{TOOL_CALLS}{}{TOOL_CALLS_END}", calls.concat())
}

fn paris() -> String {
    call("get_weather", &[("city", "Paris")])
}

fn constraint(
    tail: &str,
    choice: ToolChoice,
    parallel: bool,
) -> parser_core::constraint::Constraint {
    sampled_constraint(
        parser_horizon::constraint::k2_horizon,
        tail,
        choice,
        parallel,
    )
}

#[rstest]
#[case::valid(THINKING_OFF, &group(&[paris()]), true, true)]
#[case::with_newlines(
    THINKING_OFF,
    &format!("{TOOL_CALLS}\n<ifm|tool_call>get_weather\n<ifm|arg_key>city</ifm|arg_key>\n<ifm|arg_value>Paris</ifm|arg_value>\n{TOOL_CALL_END}\n{TOOL_CALLS_END}"),
    true,
    true
)]
#[case::valid_after_reasoning(THINKING_ON, &format!("Weather.{THINK_CLOSE}{}", group(&[paris()])), true, true)]
#[case::group_ends_reasoning(THINKING_ON, &format!("Weather.{}", group(&[paris()])), true, true)]
#[case::other_effort_closer(THINKING_ON, &format!("Weather.{THINK_FAST_CLOSE}{}", group(&[paris()])), true, false)]
#[case::every_type(
    THINKING_OFF,
    &group(&[call("search", &[("query", "rust & co"), ("limit", "null"), ("exact", "true"),
        ("tags", "[\"a\", \"b\"]"), ("filters", "{\"lang\": \"en\"}")])]),
    true,
    true
)]
#[case::any_order(
    THINKING_OFF,
    &group(&[call("get_weather", &[("unit", "celsius"), ("days", "3"), ("city", "Paris")])]),
    true,
    true
)]
#[case::typed_layout_not_generated(
    THINKING_OFF,
    &group(&["<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call>".to_owned()]),
    true,
    false
)]
#[case::json_layout_not_generated(
    THINKING_OFF,
    &group(&["<ifm|tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</ifm|tool_call>".to_owned()]),
    true,
    false
)]
#[case::unknown_function(THINKING_OFF, &group(&[call("get_time", &[])]), true, false)]
#[case::missing_required_argument(THINKING_OFF, &group(&[call("get_weather", &[("days", "3")])]), true, false)]
#[case::undeclared_argument(
    THINKING_OFF,
    &group(&[call("get_weather", &[("city", "Paris"), ("x", "1")])]),
    true,
    false
)]
#[case::integer_argument_not_a_number(
    THINKING_OFF,
    &group(&[call("get_weather", &[("city", "Paris"), ("days", "three")])]),
    true,
    false
)]
#[case::text_instead_of_a_call(THINKING_OFF, "The weather in Paris is sunny.", true, false)]
#[case::two_calls(THINKING_OFF, &group(&[paris(), call("now", &[])]), true, true)]
#[case::two_calls_when_parallel_is_off(THINKING_OFF, &group(&[paris(), call("now", &[])]), false, false)]
#[case::unclosed_group(THINKING_OFF, &format!("{TOOL_CALLS}{}", paris()), true, false)]
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
fn the_prompts_effort_closes_reasoning() {
    let constraint = constraint(THINK_FAST_OPEN, ToolChoice::Required, true);
    let output = format!("Quick.{THINK_FAST_CLOSE}{}", group(&[paris()]));
    assert!(check_both(constraint.lark(), constraint.gbnf(), &output).is_ok());
    let high = format!("Quick.{THINK_CLOSE}{}", group(&[paris()]));
    assert!(check_both(constraint.lark(), constraint.gbnf(), &high).is_err());
}

#[test]
fn tool_choice_none_refuses_calls() {
    let constraint = constraint(THINKING_OFF, ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), &group(&[paris()])).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "k2-horizon",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.</ifm|think>Let me check.",
        },
        Setting {
            parser: "k2-horizon",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "k2-horizon",
            prompt_tail: THINK_FAST_OPEN,
            lazy_prefix: "Quick.</ifm|think_fast>",
        },
    ];
    // No closing tag of the call: written whole inside a JSON value's string, it would end the value
    // in the parser (a hole `%json` cannot close; see `ParameterTags`).
    let hints = [THINK_CLOSE, THINK_FAST_CLOSE, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
