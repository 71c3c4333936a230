//! The `gemma` grammar (`parser_gemma::constraint`, from the same spec as the parser), run through
//! llguidance with a byte vocabulary: one Python call per ```` ```tool_code ```` block is accepted,
//! wrong outputs refused, and sampled outputs parse into valid calls whose arguments fit their schemas.
//! (The corpus has no Gemma call.)

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools, find_by_name};
use parser_generic::constraint::format_description;
use rstest::rstest;

use family::{Setting, check_both, sampled_tools, soundness};

#[test]
fn a_constraint_is_registered_from_the_spec() {
    for data in parser_gemma::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        assert!(format_description(data.spec()).is_ok(), "{}", data.name());
        let built = entry.constraint(&ParseOptions::new(), &ConstraintRequest::default());
        assert!(matches!(built, Some(Ok(_))), "{}", data.name());
    }
}

const TAIL: &str = "<start_of_turn>user\nWeather?<end_of_turn>\n<start_of_turn>model\n";

fn constraint(choice: ToolChoice, parallel: bool) -> Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new().with_prompt_tail(TAIL).with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    parser_gemma::constraint(&options, &request).unwrap()
}

fn block(call: &str) -> String {
    format!("```tool_code\n{call}\n```")
}

#[rstest]
#[case::one_call(&block(r#"get_weather(city="Paris", days=3)"#), true, true)]
#[case::two_blocks(&format!("{}\n{}", block("now()"), block("get_weather(city='Lyon')")), true, true)]
#[case::two_blocks_when_parallel_is_off(&format!("{}\n{}", block("now()"), block("now()")), false, false)]
#[case::a_list(&block("[now()]"), true, false)]
#[case::unknown_function(&block("get_time()"), true, false)]
#[case::missing_required_argument(&block("get_weather(days=3)"), true, false)]
#[case::text_instead_of_a_call("It is sunny.", true, false)]
#[case::unclosed_block("```tool_code\nnow()", true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(&constraint.lark, &constraint.gbnf, output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn auto_is_lazy_from_the_block_opener() {
    let constraint = constraint(ToolChoice::Auto, true);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, ["```tool_code"]);
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "gemma",
        prompt_tail: TAIL,
        lazy_prefix: "Let me check.\n",
    }];
    let hints = ["\"", "'", ")", "]", "}", "```", "1", "None"];
    let checked = soundness(&settings, 600, &hints);
    assert!(checked >= 570, "{checked}");
}
