//! MiniMax-M3's grammar (`parser_minimax::m3_grammar`), run through llguidance with a byte vocabulary:
//! corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid calls
//! whose arguments fit their schemas.

use std::path::Path;

use parser_core::constraint::ToolChoice;
use parser_minimax::m3::{END_OF_TURN, NS, THINK_CLOSE, TOOL_CALL, TOOL_CALL_END};
use rstest::rstest;

use crate::grammar::family::{
    Setting, check_both, corpus_acceptance_of, sampled_constraint, soundness,
};

/// Corpus cases the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // An integer written with a leading zero (`018956`, read as Python reads it), and objects that
    // declare no properties written as elements (`metadata`, `duplicate_demo`): their closers repeat
    // names the schema does not give, which no context-free grammar can copy, so the grammar writes
    // such an object as JSON text.
    "vllm/minimax_m3/nested_tool_call",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance_of(
        &dir,
        &["vllm/minimax_m3.jsonl"],
        &[END_OF_TURN],
        &["minimax-m3"],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (1, 0), "{run:?}");
}

/// The prompt says nothing about reasoning: the model may open it.
const TAIL: &str = "]~b]user\nWeather?[e~[\n]~b]ai\n";
/// The prompt opened reasoning.
const THINKING_ON: &str = "]~b]user\nWeather?[e~[\n]~b]ai\n<mm:think>";

fn element(key: &str, value: &str) -> String {
    format!("{NS}<{key}>{value}{NS}</{key}>")
}

fn call(function: &str, arguments: &[(&str, &str)]) -> String {
    let mut out = format!("{NS}<invoke name=\"{function}\">");
    for (key, value) in arguments {
        out.push_str(&element(key, value));
    }
    out.push_str(&format!("{NS}</invoke>"));
    out
}

fn block(calls: &[String]) -> String {
    format!("{TOOL_CALL}\n{}\n{TOOL_CALL_END}", calls.join("\n"))
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
        parser_minimax::m3_grammar::constraint,
        tail,
        choice,
        parallel,
    )
}

#[rstest]
#[case::valid(TAIL, &block(&[paris()]), true, true)]
#[case::valid_after_reasoning(TAIL, &format!("<mm:think>Weather.{THINK_CLOSE}{}", block(&[paris()])), true, true)]
#[case::reasoning_left_open(THINKING_ON, &format!("Weather.{THINK_CLOSE}\n{}", block(&[paris()])), true, true)]
#[case::every_type(
    TAIL,
    &block(&[call("search", &[("query", "rust & co"), ("limit", "null"), ("exact", "true"),
        ("tags", &[element("item", "a"), element("item", "b")].concat()),
        ("filters", &element("lang", "en"))])]),
    true,
    true
)]
#[case::empty_list_and_object(
    TAIL,
    &block(&[call("search", &[("query", ""), ("exact", "false"), ("tags", "[]"), ("filters", "{}")])]),
    true,
    true
)]
#[case::list_as_json_text(
    TAIL,
    &block(&[call("search", &[("query", "q"), ("exact", "false"), ("tags", "[\"a\"]")])]),
    true,
    false
)]
#[case::too_many_items(
    TAIL,
    &block(&[call("search", &[("query", "q"), ("exact", "false"),
        ("tags", &[element("item", "a"), element("item", "b"), element("item", "c"), element("item", "d")].concat())])]),
    true,
    false
)]
#[case::undeclared_member(
    TAIL,
    &block(&[call("search", &[("query", "q"), ("exact", "false"), ("filters", &element("region", "eu"))])]),
    true,
    false
)]
#[case::any_order(
    TAIL,
    &block(&[call("get_weather", &[("unit", "celsius"), ("days", "3"), ("city", "Paris")])]),
    true,
    true
)]
#[case::unknown_function(TAIL, &block(&[call("get_time", &[])]), true, false)]
#[case::missing_required_argument(TAIL, &block(&[call("get_weather", &[("days", "3")])]), true, false)]
#[case::undeclared_argument(
    TAIL,
    &block(&[call("get_weather", &[("city", "Paris"), ("x", "1")])]),
    true,
    false
)]
#[case::closer_of_another_name(
    TAIL,
    &block(&[format!("{NS}<invoke name=\"get_weather\">{NS}<city>Paris{NS}</town>{NS}</invoke>")]),
    true,
    false
)]
#[case::integer_argument_not_a_number(
    TAIL,
    &block(&[call("get_weather", &[("city", "Paris"), ("days", "three")])]),
    true,
    false
)]
#[case::text_instead_of_a_call(TAIL, "The weather in Paris is sunny.", true, false)]
#[case::two_calls(TAIL, &block(&[paris(), call("now", &[])]), true, true)]
#[case::two_calls_when_parallel_is_off(TAIL, &block(&[paris(), call("now", &[])]), false, false)]
#[case::unclosed_block(TAIL, &format!("{TOOL_CALL}{}", paris()), true, false)]
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
    let constraint = constraint(TAIL, ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), &block(&[paris()])).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "minimax-m3",
            prompt_tail: TAIL,
            lazy_prefix: "<mm:think>The user wants the weather.</mm:think>Let me check.\n",
        },
        Setting {
            parser: "minimax-m3",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.</mm:think>",
        },
    ];
    // No closer: written inside a JSON value's string, it would end the value in the parser (the
    // hole `%json` cannot close).
    let hints = [THINK_CLOSE, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
