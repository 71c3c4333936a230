//! Kimi K3's grammar (`parser_kimi::constraint::k3`), run through llguidance with a byte vocabulary:
//! corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid calls
//! whose arguments fit their schemas.

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{ConstraintRequest, ToolChoice};
use parser_core::{ParseOptions, Tools};
use parser_kimi::k3::{MESSAGE_CLOSE, THINK_CLOSE, TOOLS_CLOSE, TOOLS_OPEN};
use rstest::rstest;

use crate::grammar::family::{
    Setting, check_both, corpus_acceptance_of, sampled_constraint, soundness,
};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the request's tools (these cases declare one tool, `python`, with
/// one parameter, `code`, and call it with others to test the parser's typing).
const REFUSED: &[&str] = &[
    // An argument the tool does not declare (`opts`).
    "sglang/kimi_k3/single_call",
    // The `tools` channel is never closed.
    "sglang/kimi_k3/unclosed_tools_section",
    // A function the request does not declare (`a&b`).
    "sglang/kimi_k3/attribute_unescaping_raw_strings",
    // Arguments the tool does not declare (`n`, `flag`, `bad`; `empty`, …; `value`).
    "sglang/kimi_k3/non_string_json",
    "sglang/kimi_k3/split_markers_types_escapes",
    "sglang/kimi_k3/typed_0_number",
    "sglang/kimi_k3/typed_1_null",
    "sglang/kimi_k3/typed_2_boolean",
    "sglang/kimi_k3/typed_3_array",
    "sglang/kimi_k3/typed_4_object",
    "sglang/kimi_k3/typed_5_number",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance_of(
        &dir,
        &["vllm/kimi_k3.jsonl", "sglang/kimi_k3.jsonl"],
        &[MESSAGE_CLOSE],
        &["kimi-k3"],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (2, 0), "{run:?}");
}

/// Thinking off: the prompt opened the answer channel.
const THINKING_OFF: &str = "<|open|>response<|sep|>";
/// Thinking on: the prompt opened the think channel.
const THINKING_ON: &str = "<|open|>think<|sep|>";

fn call(function: &str, index: usize, arguments: &[(&str, &str, &str)]) -> String {
    let mut out = format!("<|open|>call tool=\"{function}\" index=\"{index}\"<|sep|>");
    for (key, kind, value) in arguments {
        out.push_str(&format!(
            "<|open|>argument key=\"{key}\" type=\"{kind}\"<|sep|>{value}<|close|>argument<|sep|>"
        ));
    }
    out.push_str("<|close|>call<|sep|>");
    out
}

fn channel(calls: &[String]) -> String {
    format!("{TOOLS_OPEN}{}{TOOLS_CLOSE}", calls.concat())
}

fn paris() -> String {
    call("get_weather", 1, &[("city", "string", "Paris")])
}

fn constraint(
    tail: &str,
    choice: ToolChoice,
    parallel: bool,
) -> parser_core::constraint::Constraint {
    sampled_constraint(parser_kimi::constraint::k3, tail, choice, parallel)
}

#[rstest]
#[case::valid(THINKING_OFF, &channel(&[paris()]), true, true)]
#[case::with_whitespace(THINKING_OFF, &format!("{TOOLS_OPEN}\n{}\n{TOOLS_CLOSE}", paris()), true, true)]
#[case::valid_after_reasoning(THINKING_ON, &format!("Weather.{THINK_CLOSE}{}", channel(&[paris()])), true, true)]
#[case::channel_ends_reasoning(THINKING_ON, &format!("Weather.{}", channel(&[paris()])), true, true)]
#[case::every_type(
    THINKING_OFF,
    &channel(&[call("search", 3, &[("query", "string", "rust & co"), ("limit", "null", "null"),
        ("exact", "boolean", "true"), ("tags", "array", "[\"a\", \"b\"]"),
        ("filters", "object", "{\"lang\": \"en\"}")])]),
    true,
    true
)]
#[case::integer_as_integer(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("city", "string", "Paris"), ("days", "integer", "3")])]),
    true,
    true
)]
#[case::any_order(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("unit", "string", "celsius"), ("days", "number", "3"),
        ("city", "string", "Paris")])]),
    true,
    true
)]
#[case::wrong_type_name(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("city", "string", "Paris"), ("days", "string", "3")])]),
    true,
    false
)]
#[case::index_not_digits(THINKING_OFF, &channel(&[call("get_weather", 0, &[("city", "string", "Paris")]).replace("index=\"0\"", "index=\"x\"")]), true, false)]
#[case::unknown_function(THINKING_OFF, &channel(&[call("get_time", 1, &[])]), true, false)]
#[case::missing_required_argument(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("days", "number", "3")])]),
    true,
    false
)]
#[case::undeclared_argument(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("city", "string", "Paris"), ("x", "number", "1")])]),
    true,
    false
)]
#[case::repeated_argument(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("city", "string", "Paris"), ("city", "string", "Lyon")])]),
    true,
    false
)]
#[case::integer_argument_not_a_number(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("city", "string", "Paris"), ("days", "number", "three")])]),
    true,
    false
)]
#[case::enum_argument_not_a_member(
    THINKING_OFF,
    &channel(&[call("get_weather", 1, &[("city", "string", "Paris"), ("unit", "string", "kelvin")])]),
    true,
    false
)]
#[case::text_instead_of_a_call(THINKING_OFF, "The weather in Paris is sunny.", true, false)]
#[case::two_calls(THINKING_OFF, &channel(&[paris(), call("now", 2, &[])]), true, true)]
#[case::two_calls_when_parallel_is_off(
    THINKING_OFF,
    &channel(&[paris(), call("now", 2, &[])]),
    false,
    false
)]
#[case::unclosed_channel(THINKING_OFF, &format!("{TOOLS_OPEN}{}", paris()), true, false)]
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
fn escaped_names_are_written_escaped() {
    let tools = Arc::new(
        Tools::from_json(&serde_json::json!([{"type": "function", "function": {
            "name": "a&b",
            "parameters": {"type": "object", "properties": {"q\"": {"type": "string"}},
                           "required": ["q\""]}
        }}]))
        .unwrap(),
    );
    let options = ParseOptions::new()
        .with_prompt_tail(THINKING_OFF)
        .with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        ..ConstraintRequest::default()
    };
    let constraint = parser_kimi::constraint::k3(&options, &request).unwrap();
    let output = channel(&[call("a&amp;b", 1, &[("q&quot;", "string", "x")])]);
    assert!(check_both(constraint.lark(), constraint.gbnf(), &output).is_ok());
    let message = parser_kimi::kimi_k3(&options).parse(&output);
    assert_eq!(message.tool_calls[0].name, "a&b");
    assert_eq!(message.tool_calls[0].arguments, r#"{"q\"": "x"}"#);
    let raw = channel(&[call("a&b", 1, &[("q&quot;", "string", "x")])]);
    assert!(check_both(constraint.lark(), constraint.gbnf(), &raw).is_err());
}

#[test]
fn tool_choice_none_refuses_calls() {
    let constraint = constraint(THINKING_OFF, ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), &channel(&[paris()])).is_err());
}

#[test]
fn auto_is_lazy_from_the_channel_opener() {
    let constraint = constraint(THINKING_ON, ToolChoice::Auto, true);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, [TOOLS_OPEN]);
    assert_eq!(
        constraint.preserved_tokens,
        ["<|open|>", "<|close|>", "<|sep|>"]
    );
    assert!(check_both(constraint.lark(), constraint.gbnf(), &channel(&[paris()])).is_ok());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "kimi-k3",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.<|close|>think<|sep|><|open|>response<|sep|>Let me check.<|close|>response<|sep|>",
        },
        Setting {
            parser: "kimi-k3",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Let me check.<|close|>response<|sep|>",
        },
    ];
    // No closer of the call or the value: written inside a JSON value's string, it would end the
    // value in the parser (the hole `%json` cannot close; see `ParameterTags`).
    let hints = [THINK_CLOSE, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
