//! The `olmo3` and `olmo3-think` grammars (`parser_olmo::constraint`, from the same spec as the
//! parsers), run through llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs
//! refused, and sampled outputs parse into valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ToolChoice};
use parser_core::{ParseOptions, Tools, find_by_name};
use parser_generic::constraint::format_description;
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, sampled_tools, soundness};

#[test]
fn a_constraint_is_registered_from_the_spec() {
    for data in parser_olmo::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        let format = format_description(data.spec()).unwrap();
        assert!(!format.calls.array, "{}: one call per line", data.name());
        let built = entry.constraint(&ParseOptions::new(), &ConstraintRequest::default());
        assert!(matches!(built, Some(Ok(_))), "{}", data.name());
    }
}

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format,
/// and the grammar holds the model to the format.
const REFUSED: &[&str] = &[
    // JSON's `true` for Python's `True`: the parser converts both, the grammar writes Python.
    "authored/olmo/template_layout",
    // Text inside the block after the call: the parser reads it as content, the grammar allows only
    // calls there.
    "authored/olmo/text_after_call_in_block",
    "vllm/olmo3/more_types_json_literals",
    // The tools are inferred from each name's first call, which makes `city` required: the second
    // `get_weather()` leaves it out.
    "vllm/olmo3/large_steps",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = [
        "authored/olmo.jsonl",
        "vllm/olmo3.jsonl",
        "vllm/olmo3_reasoning.jsonl",
    ];
    let run = corpus_acceptance(&dir, &files, &["<|im_end|>"]);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (7, 1), "{run:?}");
}

const OPEN: &str = "<function_calls>";
const CLOSE: &str = "</function_calls>";
const TAIL: &str = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n";
const THINK_TAIL: &str = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<think>";

fn constraint(choice: ToolChoice, parallel: bool) -> Constraint {
    family::sampled_constraint(parser_olmo::constraint, TAIL, choice, parallel)
}

fn block(calls: &str) -> String {
    format!("{OPEN}\n{calls}\n{CLOSE}")
}

#[rstest]
#[case::one_call(&block(r#"get_weather(city="Paris")"#), true, true)]
#[case::no_newlines(&format!("{OPEN}get_weather(city='Paris'){CLOSE}"), true, true)]
#[case::single_quotes(&block("get_weather(city='Paris', days=3)"), true, true)]
#[case::any_order(&block(r#"get_weather(unit="celsius", days=-2, city="Paris")"#), true, true)]
#[case::every_type(
    &block(r#"search(query='rust "co"', limit=None, exact=True, tags=['a', "b"], filters={'lang': 'en'})"#),
    true,
    true
)]
#[case::two_lines(&block("get_weather(city='Paris')\nnow()"), true, true)]
#[case::two_lines_indented(&block("get_weather(city='Paris')\n  now()"), true, false)]
#[case::two_blocks(&format!("{}\n{}", block("now()"), block("now()")), true, true)]
#[case::two_on_one_line(&block("get_weather(city='Paris') now()"), true, false)]
#[case::a_list(&block("[get_weather(city='Paris'), now()]"), true, false)]
#[case::two_calls_when_parallel_is_off(&block("get_weather(city='Paris')\nnow()"), false, false)]
#[case::unknown_function(&block("get_time()"), true, false)]
#[case::missing_required_argument(&block("get_weather(days=3)"), true, false)]
#[case::undeclared_argument(&block("get_weather(city='Paris', x=1)"), true, false)]
#[case::positional_argument(&block("get_weather('Paris')"), true, false)]
#[case::enum_not_a_member(&block("get_weather(city='Paris', unit='kelvin')"), true, false)]
#[case::json_literals(&block("search(query='a', exact=true)"), true, false)]
#[case::text_instead_of_a_call("The weather in Paris is sunny.", true, false)]
#[case::text_after_the_calls(&format!("{}Done.", block("now()")), true, false)]
#[case::unclosed_block(&format!("{OPEN}\nnow()\n"), true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint(ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn auto_is_lazy_from_the_block_opener() {
    let constraint = constraint(ToolChoice::Auto, true);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, [OPEN]);
    assert!(check_both(constraint.lark(), constraint.gbnf(), &block("now()")).is_ok());
    let tag = constraint.structural_tag_json();
    assert!(tag.contains(r#""begin":"<function_calls>\n""#), "{tag}");
    assert!(tag.contains(r#""separator":"\n""#), "{tag}");
}

#[test]
fn tool_choice_none_and_a_named_function() {
    let none = constraint(ToolChoice::None, true);
    assert!(check_both(none.lark(), none.gbnf(), "It is sunny.").is_ok());
    assert!(check_both(none.lark(), none.gbnf(), &block("now()")).is_err());
    let named = constraint(ToolChoice::Function("now".into()), true);
    assert!(check_both(named.lark(), named.gbnf(), &block("now()")).is_ok());
    let paris = block("get_weather(city='Paris')");
    assert!(check_both(named.lark(), named.gbnf(), &paris).is_err());
}

#[test]
fn the_think_models_start_inside_reasoning() {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new()
        .with_prompt_tail(THINK_TAIL)
        .with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        ..ConstraintRequest::default()
    };
    let constraint = parser_olmo::constraint_think(&options, &request).unwrap();
    let (lark, gbnf) = (constraint.lark(), constraint.gbnf());
    let output = format!("The user wants the weather.</think>{}", block("now()"));
    assert!(check_both(lark, gbnf, &output).is_ok());
    // A block that opens inside reasoning ends it when nothing follows the block (the parser reads
    // such a block as calls).
    assert!(check_both(lark, gbnf, &block("now()")).is_ok());
    assert!(check_both(lark, gbnf, &format!("{}Done.", block("now()"))).is_err());
    let plain = parser_olmo::constraint(&options, &request).unwrap();
    assert!(check_both(plain.lark(), plain.gbnf(), &output).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "olmo3",
            prompt_tail: TAIL,
            lazy_prefix: "Let me check. ",
        },
        Setting {
            parser: "olmo3-think",
            prompt_tail: THINK_TAIL,
            lazy_prefix: "The user wants the weather.</think>Let me check.",
        },
    ];
    let hints = [
        "</think>", "\"", "'", ")", "]", "}", "\n", CLOSE, "1", "None",
    ];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
