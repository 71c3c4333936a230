//! The `sarashina` grammar (`parser_sarashina::constraint`, from the markers the parser reads), run
//! through llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs refused, and
//! sampled outputs parse into valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;

use parser_core::constraint::{Constraint, ToolChoice};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format.
const REFUSED: &[&str] = &[
    // One dict after the marker, without a list: the grammar writes the list.
    "authored/sarashina/single_dict_after_marker",
    // Text after the list: `required` allows nothing but calls, and a lazy `auto` grammar ends with
    // the list.
    "authored/sarashina/text_after_calls",
    // A list without `<|tool_calls|>`: a server's detokenizer strips the special token after the
    // grammar has made the model write it.
    "sglang/sarashina/markerless_bare_list",
    "sglang/sarashina/multiple_tool_calls",
    "sglang/sarashina/nested_arguments",
    "sglang/sarashina/python_literals_coerced",
    "sglang/sarashina/apostrophe_in_value",
    "sglang/sarashina/streaming_markerless_chunked",
    "sglang/sarashina/streaming_markerless_whitespace_split",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = ["authored/sarashina.jsonl", "sglang/sarashina.jsonl"];
    let run = corpus_acceptance(&dir, &files, &["</s>"]);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (2, 2), "{run:?}");
}

const OPEN: &str = "<|tool_calls|>";
const TAIL: &str = "<|user|>東京の天気は？</s><|assistant|>";

fn constraint(choice: ToolChoice, parallel: bool) -> Constraint {
    family::sampled_constraint(parser_sarashina::constraint, TAIL, choice, parallel)
}

fn block(calls: &str) -> String {
    format!("{OPEN}[{calls}]")
}

const PARIS: &str = "{'name': 'get_weather', 'arguments': {'city': 'Paris'}}";
const NOW: &str = "{'name': 'now', 'arguments': {}}";

#[rstest]
#[case::one_call(&block(PARIS), true, true)]
#[case::double_quotes(&block(r#"{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}"#), true, true)]
#[case::any_order(&block("{'name': 'get_weather', 'arguments': {'unit': 'celsius', 'days': -2, 'city': 'Paris'}}"), true, true)]
#[case::spaces(&block(" { 'name' : 'now' , 'arguments' : { } } "), true, true)]
#[case::every_type(
    &block(r#"{'name': 'search', 'arguments': {'query': 'rust "co"', 'limit': None, 'exact': True, 'tags': ['a', "b"], 'filters': {'lang': 'en'}}}"#),
    true,
    true
)]
#[case::two_calls(&block(&format!("{PARIS}, {NOW}")), true, true)]
#[case::two_calls_when_parallel_is_off(&block(&format!("{PARIS}, {NOW}")), false, false)]
#[case::unknown_function(&block("{'name': 'get_time', 'arguments': {}}"), true, false)]
#[case::missing_required_argument(&block("{'name': 'get_weather', 'arguments': {'days': 3}}"), true, false)]
#[case::undeclared_argument(&block("{'name': 'get_weather', 'arguments': {'city': 'Paris', 'x': 1}}"), true, false)]
#[case::repeated_argument(&block("{'name': 'get_weather', 'arguments': {'city': 'Paris', 'city': 'Lyon'}}"), true, false)]
#[case::integer_not_a_number(&block("{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3'}}"), true, false)]
#[case::enum_not_a_member(&block("{'name': 'get_weather', 'arguments': {'city': 'Paris', 'unit': 'kelvin'}}"), true, false)]
#[case::json_literals(&block("{'name': 'search', 'arguments': {'query': 'a', 'exact': true}}"), true, false)]
#[case::arguments_left_out(&block("{'name': 'now'}"), true, false)]
#[case::without_the_marker(&format!("[{PARIS}]"), true, false)]
#[case::one_dict_without_a_list(&format!("{OPEN}{PARIS}"), true, false)]
#[case::text_instead_of_a_call("東京は晴れです。", true, false)]
#[case::text_after_the_calls(&format!("{} Done.", block(NOW)), true, false)]
#[case::unclosed_list(&format!("{OPEN}[{NOW}"), true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn auto_is_lazy_from_the_marker() {
    let constraint = constraint(ToolChoice::Auto, true);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, [OPEN]);
    assert_eq!(constraint.preserved_tokens, [OPEN]);
    assert!(check_both(constraint.lark(), constraint.gbnf(), &block(NOW)).is_ok());
    let tag = constraint.structural_tag_json();
    assert!(
        tag.contains(r#""begin":"{'name': 'now', 'arguments': ""#),
        "{tag}"
    );
}

#[test]
fn tool_choice_none_and_a_named_function() {
    let none = constraint(ToolChoice::None, true);
    assert!(check_both(none.lark(), none.gbnf(), "晴れです。").is_ok());
    assert!(check_both(none.lark(), none.gbnf(), &block(NOW)).is_err());
    assert!(check_both(none.lark(), none.gbnf(), "Done.</s>").is_err());
    let named = constraint(ToolChoice::Function("now".into()), true);
    assert!(check_both(named.lark(), named.gbnf(), &block(NOW)).is_ok());
    assert!(check_both(named.lark(), named.gbnf(), &block(PARIS)).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "sarashina",
        prompt_tail: TAIL,
        lazy_prefix: "Let me check. ",
    }];
    let hints = ["\"", "'", "]", "}", "1", "None", "True"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
