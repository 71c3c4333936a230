//! The `lfm2` grammar (`parser_lfm2::constraint`, from the same spec as the parser), run through
//! llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled
//! outputs parse into valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools, find_by_name};
use parser_generic::constraint::format_description;
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, sampled_tools, soundness};

#[test]
fn a_constraint_is_registered_from_the_spec() {
    for data in parser_lfm2::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        assert!(format_description(data.spec()).is_ok(), "{}", data.name());
        let built = entry.constraint(&ParseOptions::new(), &ConstraintRequest::default());
        assert!(matches!(built, Some(Ok(_))), "{}", data.name());
    }
}

/// Corpus cases the grammar refuses, each with the reason: the parser reads more than the format,
/// and the grammar holds the model to the format and to the request's tools.
const REFUSED: &[&str] = &[
    // JSON's `true` for Python's `True`: the parser converts both, the grammar writes Python.
    "ollama/lfm2/python_style_mixed_types",
    // Text after the call block: `required` allows nothing but calls, and a lazy `auto` grammar ends
    // with the block.
    "vllm/lfm2/content_after_tool_call",
    "vllm/lfm2/full_block_and_trailing",
    "vllm/lfm2/leading_block_and_trailing",
    "vllm/lfm2/echoed_tool_call_body",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = [
        "llama_cpp/lfm2.jsonl",
        "ollama/lfm2.jsonl",
        "vllm/lfm2.jsonl",
    ];
    let run = corpus_acceptance(&dir, &files, &["<|im_end|>"]);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (18, 8), "{run:?}");
}

const OPEN: &str = "<|tool_call_start|>";
const CLOSE: &str = "<|tool_call_end|>";
const TAIL: &str = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n";

fn constraint(choice: ToolChoice, parallel: bool) -> Constraint {
    family::sampled_constraint(parser_lfm2::constraint, TAIL, choice, parallel)
}

fn block(calls: &str) -> String {
    format!("{OPEN}[{calls}]{CLOSE}")
}

#[rstest]
#[case::one_call(&block(r#"get_weather(city="Paris")"#), true, true)]
#[case::single_quotes(&block("get_weather(city='Paris', days=3)"), true, true)]
#[case::after_reasoning(&format!("<think>Weather.</think>{}", block("get_weather(city='Paris')")), true, true)]
#[case::any_order(&block(r#"get_weather(unit="celsius", days=-2, city="Paris")"#), true, true)]
#[case::spaces(&block(r#" get_weather( city = "Paris" , days=0 ) "#), true, true)]
#[case::every_type(
    &block(r#"search(query='rust "co"', limit=None, exact=True, tags=['a', "b"], filters={'lang': 'en'})"#),
    true,
    true
)]
#[case::two_calls(&block(r#"get_weather(city="Paris"), now()"#), true, true)]
#[case::two_blocks(&format!("{}{}", block("now()"), block("now()")), true, true)]
#[case::two_calls_when_parallel_is_off(&block(r#"get_weather(city="Paris"), now()"#), false, false)]
#[case::unknown_function(&block("get_time()"), true, false)]
#[case::missing_required_argument(&block("get_weather(days=3)"), true, false)]
#[case::undeclared_argument(&block("get_weather(city='Paris', x=1)"), true, false)]
#[case::repeated_argument(&block("get_weather(city='Paris', city='Lyon')"), true, false)]
#[case::positional_argument(&block("get_weather('Paris')"), true, false)]
#[case::integer_not_a_number(&block("get_weather(city='Paris', days='3')"), true, false)]
#[case::leading_zero(&block("get_weather(city='Paris', days=03)"), true, false)]
#[case::enum_not_a_member(&block("get_weather(city='Paris', unit='kelvin')"), true, false)]
#[case::string_too_long(&block(&format!("get_weather(city='{}')", "x".repeat(25))), true, false)]
#[case::json_literals(&block("search(query='a', exact=true)"), true, false)]
#[case::too_many_items(&block("search(query='a', exact=True, tags=['a', 'b', 'c', 'd'])"), true, false)]
#[case::trailing_comma(&block("get_weather(city='Paris',)"), true, false)]
#[case::text_instead_of_a_call("The weather in Paris is sunny.", true, false)]
#[case::text_after_the_calls(&format!("{}Done.", block("now()")), true, false)]
#[case::unclosed_block(&format!("{OPEN}[now()]"), true, false)]
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
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "lfm2",
            prompt_tail: TAIL,
            lazy_prefix: "Let me check. ",
        },
        Setting {
            parser: "lfm2",
            prompt_tail: TAIL,
            lazy_prefix: "<think>The user wants the weather.</think>Let me check.",
        },
    ];
    let hints = ["</think>", "\"", "'", ")", "]", "}", CLOSE, "1", "None"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}

/// `lfm2-json`: a JSON list of calls between the same markers.
#[rstest]
#[case::valid(
    "<|tool_call_start|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|tool_call_end|>",
    true
)]
#[case::python_call(
    "<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>",
    false
)]
#[case::unknown_function(
    "<|tool_call_start|>[{\"name\": \"get_time\", \"arguments\": {}}]<|tool_call_end|>",
    false
)]
#[case::text_instead_of_a_call("It is sunny.", false)]
fn json_required_calls(#[case] output: &str, #[case] accepted: bool) {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new().with_prompt_tail(TAIL).with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        parallel_tool_calls: true,
        response_format: ResponseFormat::Text,
    };
    let constraint = parser_lfm2::constraint_json(&options, &request).unwrap();
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn json_sampled_outputs_parse_into_valid_calls() {
    let settings = [Setting {
        parser: "lfm2-json",
        prompt_tail: TAIL,
        lazy_prefix: "<think>The user wants the weather.</think>Let me check.",
    }];
    let hints = ["</think>", "\"", "]", "}", CLOSE, "1", "null"];
    let checked = soundness(&settings, 300, &hints);
    assert!(checked >= 280, "{checked}");
}
