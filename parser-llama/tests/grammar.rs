//! The `llama3` grammar (`parser_llama::constraint`), run through llguidance with a byte vocabulary:
//! bare JSON calls at the start of the answer are accepted, wrong outputs refused. (No soundness walk:
//! under `auto` the bare grammar admits free text, which the core helper counts as a missing call.)

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::sync::Arc;

use parser_core::constraint::{ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use rstest::rstest;

use family::{check_both, sampled_tools};

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
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}
