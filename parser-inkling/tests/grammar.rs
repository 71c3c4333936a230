//! The `inkling` grammar (`parser_inkling::constraint`, from the markers the parser reads), run
//! through llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs refused, and
//! sampled outputs parse into valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use rstest::rstest;
use serde_json::json;

use family::{Setting, check_both, corpus_acceptance, sampled_tools, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format.
const REFUSED: &[&str] = &[
    // The header names another function than the call: the grammar writes the call's own name there.
    "sglang/inkling/header_name_ignored",
    "sglang/inkling/differing_headers",
    // A call of a function the request does not declare.
    "sglang/inkling/undeclared_tool",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = ["authored/inkling.jsonl", "sglang/inkling.jsonl"];
    let run = corpus_acceptance(&dir, &files, &[]);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (3, 3), "{run:?}");
}

const M: &str = "<|message_model|>";
const THINK: &str = "<|content_thinking|>";
const TEXT: &str = "<|content_text|>";
const CALL: &str = "<|content_invoke_tool_json|>";
const END: &str = "<|end_message|>";

fn constraint_with(choice: ToolChoice, parallel: bool, options: ParseOptions) -> Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    parser_inkling::constraint::constraint(&options.with_tools(tools), &request).unwrap()
}

fn constraint(choice: ToolChoice, parallel: bool) -> Constraint {
    constraint_with(choice, parallel, ParseOptions::new().with_prompt_tail(M))
}

fn call(name: &str, args: &str) -> String {
    format!("{name}{CALL}{{\"name\": \"{name}\", \"args\": {args}}}{END}")
}

fn paris() -> String {
    call("get_weather", r#"{"city": "Paris"}"#)
}

fn now() -> String {
    call("now", "{}")
}

#[rstest]
#[case::one_call(&paris(), true, true)]
#[case::header_name_left_out(&format!("{CALL}{{\"name\":\"now\",\"args\":{{}}}}{END}"), true, true)]
#[case::redundant_header(&format!("{M}{}", paris()), true, true)]
#[case::thinking_first(&format!("{THINK}The user wants the weather.{END}{M}{}", paris()), true, true)]
#[case::thinking_after(&format!("{}{M}{THINK}Done.{END}", paris()), true, true)]
#[case::two_calls(&format!("{}{M}{}", paris(), now()), true, true)]
#[case::two_calls_when_parallel_is_off(&format!("{}{M}{}", paris(), now()), false, false)]
#[case::unknown_function(&call("get_time", "{}"), true, false)]
#[case::missing_required_argument(&call("get_weather", r#"{"days": 3}"#), true, false)]
#[case::undeclared_argument(&call("get_weather", r#"{"city": "Paris", "x": 1}"#), true, false)]
#[case::arguments_key(&format!("now{CALL}{{\"name\": \"now\", \"arguments\": {{}}}}{END}"), true, false)]
#[case::other_header_name(&format!("now{CALL}{{\"name\": \"get_weather\", \"args\": {{\"city\": \"Paris\"}}}}{END}"), true, false)]
#[case::text_instead_of_a_call(&format!("{TEXT}It is sunny.{END}"), true, false)]
#[case::text_block_beside_the_call(&format!("{TEXT}Let me check.{END}{M}{}", paris()), true, false)]
#[case::bare_text("It is sunny.", true, false)]
#[case::only_thinking(&format!("{THINK}Hmm.{END}"), true, false)]
#[case::unended_call(&format!("now{CALL}{{\"name\": \"now\", \"args\": {{}}}}"), true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn auto_is_lazy_from_the_call_block() {
    let constraint = constraint(ToolChoice::Auto, true);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, [CALL]);
    let (lark, gbnf) = (constraint.lark(), constraint.gbnf());
    let from_trigger = |output: &str| output[output.find(CALL).unwrap()..].to_owned();
    let blocks_after = format!(
        "{}{M}{THINK}Hm.{END}{M}{TEXT}Sunny.{END}{M}{}",
        paris(),
        now()
    );
    assert!(check_both(lark, gbnf, &from_trigger(&blocks_after)).is_ok());
    assert!(check_both(lark, gbnf, &from_trigger(&call("get_time", "{}"))).is_err());
    let single = constraint_with(
        ToolChoice::Auto,
        false,
        ParseOptions::new().with_prompt_tail(M),
    );
    let two = from_trigger(&format!("{}{M}{}", paris(), now()));
    assert!(check_both(single.lark(), single.gbnf(), &two).is_err());
}

#[test]
fn tool_choice_none_and_a_named_function() {
    let none = constraint(ToolChoice::None, true);
    let answer = format!("{THINK}Easy.{END}{M}{TEXT}It is sunny.{END}{M}{THINK}Yes.{END}");
    assert!(check_both(none.lark(), none.gbnf(), &answer).is_ok());
    assert!(check_both(none.lark(), none.gbnf(), &now()).is_err());
    let named = constraint(ToolChoice::Function("now".into()), true);
    assert!(check_both(named.lark(), named.gbnf(), &now()).is_ok());
    assert!(check_both(named.lark(), named.gbnf(), &paris()).is_err());
}

#[test]
fn the_prompt_decides_where_the_output_starts_and_thinking_off_has_none() {
    let inside = constraint_with(
        ToolChoice::Required,
        true,
        ParseOptions::new().with_prompt_tail(format!("{M}{THINK}")),
    );
    let output = format!("The user wants the weather.{END}{M}{}", paris());
    assert!(check_both(inside.lark(), inside.gbnf(), &output).is_ok());
    assert!(check_both(inside.lark(), inside.gbnf(), &paris()).is_err());
    let off = constraint_with(
        ToolChoice::Required,
        true,
        ParseOptions::new()
            .with_prompt_tail(M)
            .with_enable_thinking(Some(false)),
    );
    let thought = format!("{THINK}Hm.{END}{M}{}", paris());
    assert!(check_both(off.lark(), off.gbnf(), &paris()).is_ok());
    assert!(check_both(off.lark(), off.gbnf(), &thought).is_err());
}

#[test]
fn a_response_format_holds_text_blocks_to_its_schema() {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new().with_prompt_tail(M).with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: ToolChoice::None,
        parallel_tool_calls: true,
        response_format: ResponseFormat::JsonSchema(json!({
            "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]
        })),
    };
    let constraint = parser_inkling::constraint::constraint(&options, &request).unwrap();
    let (lark, gbnf) = (constraint.lark(), constraint.gbnf());
    assert!(check_both(lark, gbnf, &format!("{TEXT}{{\"ok\": true}}{END}")).is_ok());
    assert!(check_both(lark, gbnf, &format!("{TEXT}Yes.{END}")).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "inkling",
            prompt_tail: M,
            lazy_prefix: "<|content_thinking|>The user wants the weather.<|end_message|><|message_model|><|content_text|>Let me check.<|end_message|><|message_model|>",
        },
        Setting {
            parser: "inkling",
            prompt_tail: "<|message_model|><|content_thinking|>",
            lazy_prefix: "The user wants the weather.",
        },
    ];
    let hints = [END, "\"", "]", "}", "1", "null", M];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
