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
const TAIL: &str = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n";
/// MiniCPM-V with thinking off, as its template renders it.
const TAIL_V: &str =
    "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
/// Corpus cases the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // Text after a call: the parser reads it as content; the grammar ends the turn after the calls.
    "vllm/minicpm5/call_between_text",
    // The tokenizer's `<functionname="` spelling: the parser reads it, the grammar writes the
    // template's `<function name="` only.
    "vllm/minicpm5/collapsed_tags",
    // A function not among the request's tools.
    "vllm/minicpm5/unknown_tool",
    // Text between and after the calls (as above).
    "vllm/minicpm5/calls_between_text",
    // Parameters the tool's schema does not declare: the parser keeps them, the grammar writes the
    // schema's properties only.
    "vllm/minicpm5/properties_wrapper",
    "vllm/minicpm5/extra_parameter",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &[
            "vllm/minicpm5.jsonl",
            "vllm/minicpmv.jsonl",
            "authored/minicpm.jsonl",
        ],
        EOS,
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger > 0, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_minicpm::constraint, TAIL, choice, parallel)
}

const PARIS: &str = "<function name=\"get_weather\"><param name=\"city\">Paris</param></function>";
const UNKNOWN: &str = "<function name=\"get_time\"></function>";

#[rstest]
#[case::valid(&format!("<think>Paris.\n</think>\n{PARIS}"), true, true)]
#[case::two_calls(&format!("<think>Paris.\n</think>\n{PARIS}{PARIS}"), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("<think>Paris.\n</think>\n{PARIS}{PARIS}"), false, false)]
#[case::unknown_function(&format!("<think>Paris.\n</think>\n{UNKNOWN}"), true, false)]
#[case::text_instead_of_a_call("<think>Paris.\n</think>\nIt is sunny.", true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "minicpm5",
            prompt_tail: TAIL,
            lazy_prefix: "<think>Paris.\n</think>\n",
        },
        Setting {
            parser: "minicpmv",
            prompt_tail: TAIL_V,
            lazy_prefix: "Paris.\n",
        },
    ];
    // No call-closing tag among the hints: written inside a JSON value's string it would end the value
    // in the parser (a hole `%json` cannot close); the reasoning closer ends the free reasoning text.
    let hints = ["</think>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 300, &hints);
    assert!(checked >= 280, "{checked}");
}
