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

const EOS: &[&str] = &["<|im_end|>"];
const TAIL: &str = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<think>";
/// Corpus cases the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // An integer parameter written as a word: the parser keeps the text (as the peer does), the grammar
    // writes the schema's integer.
    "authored/mimo/value_that_does_not_convert",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(&dir, &["vllm/mimo.jsonl", "authored/mimo.jsonl"], EOS);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger > 0, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_mimo::constraint, TAIL, choice, parallel)
}

const PARIS: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
const UNKNOWN: &str = "<tool_call>\n<function=get_time>\n</function>\n</tool_call>";

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
        parser: "mimo",
        prompt_tail: TAIL,
        lazy_prefix: "Paris.\n</think>\n",
    }];
    // No call-closing tag among the hints: written inside a JSON value's string it would end the value
    // in the parser (a hole `%json` cannot close); the reasoning closer ends the free reasoning text.
    let hints = ["</think>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 300, &hints);
    assert!(checked >= 280, "{checked}");
}
