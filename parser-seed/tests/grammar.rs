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

const EOS: &[&str] = &["<seed:eos>"];
const TAIL: &str = "<seed:bos>user\nWeather?<seed:eos><seed:bos>assistant\n";
/// Corpus cases the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // Call markup quoted inside reasoning (reasoning text to the parser, since more reasoning follows):
    // the grammar's reasoning text keeps out the call markers.
    "vllm/seed_oss/unlimited_budget_call_text_in_reasoning",
    // A call inside reasoning that is never closed (the parser releases a held call that ends the
    // output; the grammar wants `</seed:think>` first).
    "authored/seed/call_ends_open_reasoning",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &[
            "llama_cpp/seed_oss.jsonl",
            "vllm/seed_oss.jsonl",
            "authored/seed.jsonl",
        ],
        EOS,
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger > 0, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_seed::constraint, TAIL, choice, parallel)
}

const PARIS: &str = "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>";
const UNKNOWN: &str = "<seed:tool_call>\n<function=get_time>\n</function>\n</seed:tool_call>";

#[rstest]
#[case::valid(PARIS, true, true)]
#[case::two_calls(&format!("{PARIS}{PARIS}"), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("{PARIS}{PARIS}"), false, false)]
#[case::unknown_function(UNKNOWN, true, false)]
#[case::text_instead_of_a_call("It is sunny.", true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "seed-oss",
        prompt_tail: TAIL,
        lazy_prefix: "",
    }];
    // No call-closing tag among the hints: written inside a JSON value's string it would end the value
    // in the parser (a hole `%json` cannot close); the reasoning closer ends the free reasoning text.
    let hints = ["</seed:think>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 300, &hints);
    assert!(checked >= 280, "{checked}");
}
