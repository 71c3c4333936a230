//! The family's grammars (from the same specs as the parsers), run through llguidance with a byte
//! vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid
//! calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;

use parser_core::constraint::ToolChoice;
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, soundness};

const EOS: &[&str] = &["<|iquest_end|>"];
const TAIL: &str = "<|iquest_user|>Weather?<|iquest_assistant|><think>";
/// Corpus cases the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // Text after a call block: the parser reads it as content; the grammar ends the turn after the calls.
    "sglang/iquest_q1/text_around_a_call",
    "sglang/iquest_q1/text_after_a_call",
    "sglang/iquest_q1/text_between_calls",
    // No `</arg_value>` before the call's end: the parser recovers, the grammar writes the closer.
    "sglang/iquest_q1/malformed_call",
    // A `$ref` property: neither the parser's typing nor the grammar's value form follows the reference;
    // the grammar asks for the referenced schema as JSON (a quoted string), the model wrote raw text.
    "sglang/iquest_q1/schema_reference_keeps_a_numeric_string",
    // A function not among the request's tools.
    "sglang/iquest_q1/unknown_tool_name",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &["sglang/iquest_q1.jsonl", "authored/iquest.jsonl"],
        EOS,
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger > 0, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_iquest::constraint, TAIL, choice, parallel)
}

const PARIS: &str = "<iquest_tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></iquest_tool_call>";
const UNKNOWN: &str = "<iquest_tool_call>get_time</iquest_tool_call>";

#[rstest]
#[case::valid(&format!("Paris.\n</think>\n{PARIS}"), true, true)]
#[case::two_calls(&format!("Paris.\n</think>\n{PARIS}{PARIS}"), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("Paris.\n</think>\n{PARIS}{PARIS}"), false, false)]
#[case::unknown_function(&format!("Paris.\n</think>\n{UNKNOWN}"), true, false)]
#[case::text_instead_of_a_call("Paris.\n</think>\nIt is sunny.", true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "iquest-q1",
        prompt_tail: TAIL,
        lazy_prefix: "Paris.\n</think>\n",
    }];
    // No call-closing tag among the hints: written inside a JSON value's string it would end the value
    // in the parser (a hole `%json` cannot close); the reasoning closer ends the free reasoning text.
    let hints = ["</think>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 300, &hints);
    assert!(checked >= 280, "{checked}");
}
