//! The GLM parsers' grammars (`parser_glm::constraint`), run through llguidance with a byte vocabulary:
//! corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid calls
//! whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;

use parser_core::constraint::ToolChoice;
use parser_glm::markers::{EOS, THINK_CLOSE, TOOL_CALL_END};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the format and to the request's tools.
const REFUSED: &[&str] = &[
    // A literal `</arg_value>` inside a value, kept as text by the parser because no tag follows it:
    // the grammar ends a raw value at its first closer.
    "authored/glm/glm47_literal_closer_in_code",
    // The call is never closed (the output stops inside or before `</tool_call>`).
    "authored/glm/cut_inside_call_closer",
    "authored/glm/missing_only_call_closer",
    // A call inside reasoning that is never closed (the parser releases a held call that ends the
    // output; the grammar wants `</think>` first).
    "llama_cpp/glm/GLM-4.7-Flash-L1901",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(&dir, &["authored/glm.jsonl", "llama_cpp/glm.jsonl"], EOS);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (6, 3), "{run:?}");
}

const PARIS_45: &str =
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>";
const PARIS: &str =
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>";
const NOW: &str = "<tool_call>now</tool_call>";

fn constraint(
    tail: &str,
    choice: ToolChoice,
    parallel: bool,
) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_glm::constraint::glm47, tail, choice, parallel)
}

const THINKING_OFF: &str = "<|assistant|></think>";
const THINKING_ON: &str = "<|assistant|><think>";

fn call(function: &str, arguments: &[(&str, &str)]) -> String {
    let mut out = format!("<tool_call>{function}");
    for (key, value) in arguments {
        out.push_str(&format!(
            "<arg_key>{key}</arg_key><arg_value>{value}</arg_value>"
        ));
    }
    out.push_str(TOOL_CALL_END);
    out
}

#[rstest]
#[case::valid(THINKING_OFF, PARIS, true, true)]
#[case::valid_with_newlines(THINKING_OFF, PARIS_45, true, true)]
#[case::valid_after_reasoning(THINKING_ON, &format!("Weather.{THINK_CLOSE}{PARIS}"), true, true)]
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
#[case::text_instead_of_a_call(THINKING_OFF, "The weather in Paris is sunny.", true, false)]
#[case::two_calls(THINKING_OFF, &format!("{PARIS}{NOW}"), true, true)]
#[case::two_calls_when_parallel_is_off(THINKING_OFF, &format!("{PARIS}{NOW}"), false, false)]
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
            parser: "glm-4.7",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.</think>Let me check.",
        },
        Setting {
            parser: "glm-4.7",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "glm-4.5",
            prompt_tail: "<|assistant|>",
            lazy_prefix: "",
        },
        Setting {
            parser: "glm-4.5",
            prompt_tail: "<|assistant|>\n<think></think>",
            lazy_prefix: "Sure. ",
        },
    ];
    // No closing tag of the call: written whole inside a JSON value's string, `</tool_call>` or
    // `</arg_value><arg_key>` would end the value in the parser (a hole `%json` cannot close; see
    // `ParameterTags`). The sampled tools' strings are bounded or enums, so no value needs one to end.
    let hints = [THINK_CLOSE, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
