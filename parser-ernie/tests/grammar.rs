//! The ERNIE grammars (`parser_ernie::constraint` / `constraint_instruct`, from the same specs as the
//! parsers), run through
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

const EOS: &[&str] = &["</s>", "<|end_of_sentence|>"];
/// A prompt that leaves the model in the answer.
const ANSWER: &str = "User: Weather?\nAssistant: ";
/// The Thinking model's prompt.
const THINK: &str = "User: Weather?\nAssistant: <think>\n";

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(&dir, &["vllm/ernie45.jsonl", "authored/ernie.jsonl"], EOS);
    // vLLM's two tool-parser cases without `</think>`, run by the Thinking model's parser: the prompt
    // opened reasoning and the calls end it unclosed. The parser reads such calls (DESIGN §4.8); the
    // grammar, like every generic grammar, lets calls follow closed reasoning only, so it refuses them.
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        refused,
        [
            "vllm/ernie45/single_tool_call",
            "vllm/ernie45/multiple_tool_calls"
        ]
    );
    assert!(run.whole + run.from_trigger >= 2, "{run:?}");
}

fn constraint(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    family::sampled_constraint(parser_ernie::constraint_instruct, ANSWER, choice, parallel)
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
            parser: "ernie-4.5-instruct",
            prompt_tail: ANSWER,
            lazy_prefix: "Let me check.\n",
        },
        Setting {
            parser: "ernie-4.5",
            prompt_tail: THINK,
            lazy_prefix: "Paris.\n</think>\n\n",
        },
    ];
    let hints = ["</think>", "</tool_call>", "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 400, &hints);
    assert!(checked >= 380, "{checked}");
}
