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

const EOS: &[&str] = &["<|plamo:tag|>"];
const TAIL: &str = "<|plamo:begin_think:plamo|>";
/// Corpus cases the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // Blocks cut off before their end tags (corpus deviations: the parser keeps the committed call);
    // the grammar writes every block whole.
    "vllm/plamo3/incomplete_arguments_cut",
    "vllm/plamo3/incomplete_arguments_closed",
    "vllm/plamo3/incomplete_request_closed",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(&dir, &["vllm/plamo3.jsonl", "authored/plamo.jsonl"], EOS);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger > 0, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_plamo::constraint, TAIL, choice, parallel)
}

const PARIS: &str = "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"city\": \"Paris\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>";
const TWO: &str = "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"city\": \"Paris\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"city\": \"Rome\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>";
const UNKNOWN: &str = "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_time<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>";

#[rstest]
#[case::valid(&format!("Paris.<|plamo:end_think:plamo|>{PARIS}"), true, true)]
#[case::two_calls(&format!("Paris.<|plamo:end_think:plamo|>{TWO}"), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("Paris.<|plamo:end_think:plamo|>{TWO}"), false, false)]
#[case::unknown_function(&format!("Paris.<|plamo:end_think:plamo|>{UNKNOWN}"), true, false)]
#[case::text_instead_of_a_call("Paris.<|plamo:end_think:plamo|>It is sunny.", true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "plamo3",
        prompt_tail: TAIL,
        lazy_prefix: "Paris.<|plamo:end_think:plamo|>",
    }];
    // No call-closing tag among the hints: written inside a JSON value's string it would end the value
    // in the parser (a hole `%json` cannot close); the reasoning closer ends the free reasoning text.
    let hints = ["<|plamo:end_think:plamo|>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 300, &hints);
    assert!(checked >= 280, "{checked}");
}
