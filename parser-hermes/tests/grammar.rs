//! The `hermes` grammar (`parser_hermes::constraint`, from the same spec as the parser), run through
//! llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled
//! outputs parse into valid calls whose arguments fit their schemas.

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

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &["llama_cpp/hermes.jsonl", "authored/hermes.jsonl"],
        EOS,
    );
    assert_eq!(run.refused, Vec::<(String, String)>::new());
    assert!(run.whole + run.from_trigger >= 6, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_hermes::constraint, TAIL, choice, parallel)
}

const PARIS: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const NOW: &str = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>";

#[rstest]
#[case::valid(PARIS, true, true)]
#[case::two_calls(&format!("{PARIS}\n{NOW}"), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("{PARIS}\n{NOW}"), false, false)]
#[case::unknown_function(
    "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
    true,
    false
)]
#[case::missing_required_argument(
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 3}}\n</tool_call>",
    true,
    false
)]
#[case::text_instead_of_a_call("It is sunny.", true, false)]
#[case::unclosed_call(&PARIS[..PARIS.len() - "</tool_call>".len()], true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn tool_choice_none_refuses_calls() {
    let constraint = constraint(ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), PARIS).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "hermes",
            prompt_tail: TAIL,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "hermes",
            prompt_tail: TAIL,
            lazy_prefix: "<think>Paris.</think>",
        },
    ];
    let hints = ["</think>", "</tool_call>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 400, &hints);
    assert!(checked >= 380, "{checked}");
}
