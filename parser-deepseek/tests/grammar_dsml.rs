//! The DSML parsers' grammars (`parser_deepseek::constraint_dsml`), run through llguidance with a byte
//! vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid
//! calls whose arguments fit their schemas.

use crate::grammar::family;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use parser_deepseek::markers::{DSML_BLOCK_ENDS, DSML_BLOCKS, EOS, THINK_CLOSE};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance_of, sampled_tools, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format, and
/// the grammar holds the model to the format and to the request's tools.
const REFUSED: &[&str] = &[
    // `string="true"` on an integer parameter (the parser types it by the schema; the grammar writes
    // `string="false"` for every JSON value).
    "vllm/deepseek_v32/string_attr_true_coerced_by_schema",
    // An undeclared `arguments` parameter wrapping the arguments (the parser unwraps it).
    "vllm/deepseek_v32/arguments_wrapper_repaired",
    // The request's tools declare no properties (`"properties": {}`): the grammar offers declared
    // names only, and the parser reads undeclared ones as strings.
    "sglang/deepseek/v32_dsml_single_tool",
    "sglang/deepseek/v32_dsml_multiple_tools",
    // A JSON object written directly inside `invoke`, not as parameters.
    "sglang/deepseek/v32_dsml_direct_json_body",
    "sglang/deepseek/v32_dsml_mixed_types",
    "sglang/deepseek/v32_dsml_nested_json_param",
    "sglang/deepseek/v32_dsml_streaming_text_before",
    "sglang/deepseek/v32_dsml_streaming_single_tool",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance_of(
        &dir,
        &["vllm/deepseek_v32.jsonl", "sglang/deepseek.jsonl"],
        &[EOS],
        &["deepseek-v3.2", "deepseek-v4"],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (5, 1), "{run:?}");
}

/// One V3.2 call of `function` with `(key, string, value)` parameters.
fn call(function: &str, parameters: &[(&str, bool, &str)]) -> String {
    let mut out = format!("<｜DSML｜invoke name=\"{function}\">\n");
    for (key, string, value) in parameters {
        out.push_str(&format!(
            "<｜DSML｜parameter name=\"{key}\" string=\"{string}\">{value}</｜DSML｜parameter>\n"
        ));
    }
    out.push_str("</｜DSML｜invoke>");
    out
}

fn block(calls: &[String]) -> String {
    format!(
        "{}\n{}\n{}",
        DSML_BLOCKS[0],
        calls.join("\n"),
        DSML_BLOCK_ENDS[0]
    )
}

fn paris() -> String {
    block(&[call("get_weather", &[("city", true, "Paris")])])
}

fn constraint(
    tail: &str,
    choice: ToolChoice,
    parallel: bool,
) -> parser_core::constraint::Constraint {
    family::sampled_constraint(
        parser_deepseek::constraint_dsml::v32,
        tail,
        choice,
        parallel,
    )
}

const THINKING_OFF: &str = "<｜Assistant｜></think>";
const THINKING_ON: &str = "<｜Assistant｜><think>";

#[rstest]
#[case::valid(THINKING_OFF, paris(), true, true)]
#[case::valid_after_reasoning(THINKING_ON, format!("Weather.{THINK_CLOSE}{}", paris()), true, true)]
#[case::reasoning_not_closed(THINKING_ON, paris(), true, false)]
#[case::every_type(
    THINKING_OFF,
    block(&[call("search", &[("query", true, "rust & co"), ("limit", false, "null"),
        ("exact", false, "true"), ("tags", false, "[\"a\", \"b\"]"),
        ("filters", false, "{\"lang\": \"en\"}")])]),
    true,
    true
)]
#[case::any_order(
    THINKING_OFF,
    block(&[call("get_weather", &[("unit", true, "celsius"), ("days", false, "3"), ("city", true, "Paris")])]),
    true,
    true
)]
#[case::v4_block_in_v32(
    THINKING_OFF,
    format!("{}\n{}\n{}", DSML_BLOCKS[1], call("get_weather", &[("city", true, "Paris")]), DSML_BLOCK_ENDS[1]),
    true,
    false
)]
#[case::string_attribute_wrong_for_the_type(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris"), ("days", true, "3")])]),
    true,
    false
)]
#[case::unknown_function(THINKING_OFF, block(&[call("get_time", &[])]), true, false)]
#[case::missing_required_argument(
    THINKING_OFF,
    block(&[call("get_weather", &[("days", false, "3")])]),
    true,
    false
)]
#[case::undeclared_argument(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris"), ("x", true, "1")])]),
    true,
    false
)]
#[case::repeated_argument(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris"), ("city", true, "Lyon")])]),
    true,
    false
)]
#[case::integer_argument_not_a_number(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris"), ("days", false, "three")])]),
    true,
    false
)]
#[case::enum_argument_not_a_member(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris"), ("unit", true, "kelvin")])]),
    true,
    false
)]
#[case::text_instead_of_a_call(THINKING_OFF, "The weather in Paris is sunny.".to_owned(), true, false)]
#[case::two_calls(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris")]), call("now", &[])]),
    true,
    true
)]
#[case::two_calls_when_parallel_is_off(
    THINKING_OFF,
    block(&[call("get_weather", &[("city", true, "Paris")]), call("now", &[])]),
    false,
    false
)]
#[case::unclosed_block(
    THINKING_OFF,
    paris()[..paris().len() - DSML_BLOCK_ENDS[0].len()].to_owned(),
    true,
    false
)]
fn required_calls(
    #[case] tail: &str,
    #[case] output: String,
    #[case] parallel: bool,
    #[case] accepted: bool,
) {
    let constraint = constraint(tail, ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), &output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn tool_choice_none_refuses_calls() {
    let constraint = constraint(THINKING_OFF, ToolChoice::None, true);
    assert!(check_both(constraint.lark(), constraint.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(constraint.lark(), constraint.gbnf(), &paris()).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "deepseek-v3.2",
            prompt_tail: THINKING_ON,
            lazy_prefix: "The user wants the weather.</think>Let me check.",
        },
        Setting {
            parser: "deepseek-v3.2",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Let me check.\n\n",
        },
        Setting {
            parser: "deepseek-v4",
            prompt_tail: "<｜Assistant｜>",
            lazy_prefix: "",
        },
        Setting {
            parser: "deepseek-v4",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "Sure. ",
        },
        Setting {
            parser: "deepseek-v4.1",
            prompt_tail: THINKING_ON,
            lazy_prefix: "Plan.</think>Checking.\n\n",
        },
        Setting {
            parser: "deepseek-v4.1",
            prompt_tail: THINKING_OFF,
            lazy_prefix: "",
        },
    ];
    // No closing tag of the call: written whole inside a JSON value's string, `</｜DSML｜parameter>`
    // would end the value in the parser (a hole `%json` cannot close; see `ParameterTags`). The sampled
    // tools' strings are bounded or enums, so no value needs one to end.
    let hints = [THINK_CLOSE, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}

/// V4.1's corpus outputs are accepted by its grammar; the refused ones are listed with the reason.
#[test]
fn v41_corpus_outputs_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance_of(
        &dir,
        &["vllm/deepseek_v41.jsonl", "sglang/deepseek_v41.jsonl"],
        &[EOS],
        &["deepseek-v4.1"],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, V41_REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger >= 2, "{run:?}");
}

const V41_REFUSED: &[&str] = &[
    // An invoke without its block (the parser reads it; the grammar writes the block).
    "sglang/deepseek_v41/preamble_bare_invoke",
    // Two call blocks in one turn (the grammar writes one).
    "sglang/deepseek_v41/two_sections",
];

fn v41_call(function: &str, parameters: &[(&str, bool, &str)]) -> String {
    call(function, parameters)
        .replace("<｜DSML｜invoke", "<｜DSML｜ invoke")
        .replace("</｜DSML｜invoke>", "</｜DSML｜ invoke>")
        .replace("<｜DSML｜parameter", "<｜DSML｜ parameter")
        .replace("</｜DSML｜parameter>", "</｜DSML｜ parameter>")
}

fn v41_constraint(choice: ToolChoice) -> parser_core::constraint::Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new()
        .with_prompt_tail(THINKING_OFF)
        .with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: true,
        response_format: ResponseFormat::Text,
    };
    parser_deepseek::constraint_dsml::v41(&options, &request).unwrap()
}

#[rstest]
#[case::spaced(format!("<｜DSML｜ calls>\n{}\n</｜DSML｜ calls>", v41_call("get_weather", &[("city", true, "Paris")])), true)]
#[case::unspaced_v4(format!("{}\n{}\n{}", DSML_BLOCKS[1], call("get_weather", &[("city", true, "Paris")]), DSML_BLOCK_ENDS[1]), false)]
#[case::unspaced_v32(paris(), false)]
fn v41_required_calls(#[case] output: String, #[case] accepted: bool) {
    let constraint = v41_constraint(ToolChoice::Required);
    let result = check_both(constraint.lark(), constraint.gbnf(), &output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn v41_is_lazy_on_its_block_opener() {
    let constraint = v41_constraint(ToolChoice::Auto);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, ["<｜DSML｜ calls>"]);
}
