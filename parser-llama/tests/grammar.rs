//! The `llama3` and `llama4` grammars (`parser_llama::constraint`), run through llguidance with a byte
//! vocabulary: bare calls at the start of the answer (JSON objects, a Python list) are accepted, wrong
//! outputs refused, and sampled outputs of `required` and named-function grammars parse into valid
//! calls (under `auto` the bare grammars admit free text, not a call).

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance_of, sampled_tools, soundness_of};

const TAIL: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n";
const PARIS: &str = r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#;

#[rstest]
#[case::bare_call(PARIS, true, true)]
#[case::two_calls(&format!(r#"{PARIS}; {{"name": "now", "parameters": {{}}}}"#), true, true)]
#[case::unknown_function(r#"{"name": "get_time", "parameters": {}}"#, true, false)]
#[case::missing_required_argument(
    r#"{"name": "get_weather", "parameters": {"days": 3}}"#,
    true,
    false
)]
#[case::text_instead_of_a_call("It is sunny.", true, false)]
#[case::cut_off(&PARIS[..PARIS.len() - 1], true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new().with_prompt_tail(TAIL).with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    let constraint = parser_llama::constraint::llama3(&options, &request).unwrap();
    let result = check_both(&constraint.lark, &constraint.gbnf, output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

const TAIL_4: &str = "<|header_start|>assistant<|header_end|>\n\n";
const PARIS_4: &str = "[get_weather(city='Paris')]";

fn llama4(choice: ToolChoice, parallel: bool) -> parser_core::constraint::Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new()
        .with_prompt_tail(TAIL_4)
        .with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    parser_llama::constraint::llama4(&options, &request).unwrap()
}

#[rstest]
#[case::bare_list(PARIS_4, true, true)]
#[case::two_calls("[get_weather(city=\"Paris\", days=2),now()]", true, true)]
#[case::two_calls_when_parallel_is_off("[get_weather(city='Paris'), now()]", false, false)]
#[case::unknown_function("[get_time()]", true, false)]
#[case::missing_required_argument("[get_weather(days=3)]", true, false)]
#[case::not_in_a_list("get_weather(city='Paris')", true, false)]
#[case::in_python_start("<|python_start|>[now()]<|python_end|>", true, false)]
#[case::text_instead_of_a_call("It is sunny.", true, false)]
#[case::cut_off(&PARIS_4[..PARIS_4.len() - 1], true, false)]
fn llama4_required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = llama4(ToolChoice::Required, parallel);
    let result = check_both(&constraint.lark, &constraint.gbnf, output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn llama4_auto_allows_the_calls_or_text_that_does_not_open_a_list() {
    let auto = llama4(ToolChoice::Auto, true);
    assert!(!auto.lazy);
    assert!(check_both(&auto.lark, &auto.gbnf, PARIS_4).is_ok());
    assert!(check_both(&auto.lark, &auto.gbnf, "It is sunny.").is_ok());
    assert!(check_both(&auto.lark, &auto.gbnf, "[sunny]").is_err());
}

/// `llama4` corpus cases the grammar refuses, each with the reason.
const REFUSED_4: &[&str] = &[
    // Inside `<|python_start|>`: the parser reads it, the grammar writes the bare list.
    "vllm/llama4_pythonic/python_start",
    "vllm/llama4_pythonic/python_start_parallel_unclosed",
    "vllm/llama4_pythonic/large_steps",
    "authored/llama/llama4_python_start",
];

#[test]
fn llama4_corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = ["vllm/llama4_pythonic.jsonl", "authored/llama.jsonl"];
    let run = corpus_acceptance_of(&dir, &files, &["<|eom|>", "<|eot|>"], &["llama4"]);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED_4, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (7, 0), "{run:?}");
}

#[test]
fn llama4_sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "llama4",
        prompt_tail: TAIL_4,
        lazy_prefix: "",
    }];
    let choices = [
        (ToolChoice::Required, true),
        (ToolChoice::Required, false),
        (ToolChoice::Function("search".into()), true),
    ];
    let hints = ["\"", "'", ")", "]", "}", "1", "None"];
    let checked = soundness_of(&settings, &choices, 600, &hints);
    assert!(checked >= 570, "{checked}");
}
