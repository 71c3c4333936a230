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
    family::sampled_constraint(parser_gemma::constraint, TAIL, choice, parallel)
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
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
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

// FunctionGemma and Gemma 4: calls in Gemma's value syntax (`parser_gemma::grammar`).

const G4_TAIL: &str = "<|turn>user\nWeather?<turn|>\n<|turn>model\n";
const G4_OFF: &str = "<|turn>user\nWeather?<turn|>\n<|turn>model\n<|channel>thought\n<channel|>";
const FG_TAIL: &str = "<start_of_turn>user\nWeather?<end_of_turn>\n<start_of_turn>model\n";

fn gemma_constraint(parser: &str, tail: &str, choice: ToolChoice, parallel: bool) -> Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new().with_prompt_tail(tail).with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    find_by_name(parser)
        .unwrap()
        .constraint(&options, &request)
        .unwrap()
        .unwrap()
}

/// Corpus cases the grammars refuse, each with the reason: the parsers read more than the format.
const REFUSED: &[&str] = &[
    // The call's closer is missing (the output ends after the `}`).
    "ollama/gemma4/tool_call_done_flush_without_close_tag",
    // A bare JSON-quoted string (`query:"raw \"quoted\""`), which the parser reads but the template
    // never writes.
    "ollama/gemma4/tool_call_with_mixed_raw_and_gemma_quoted_values",
    // Text after the calls (a stray closer, then the answer): the grammar ends the output with them.
    "ollama/gemma4/extra_close_tag_without_trailing_content",
    "ollama/gemma4/extra_close_tag_before_real_content",
    "ollama/gemma4/tool_response_boundary_before_real_content",
    "ollama/gemma4/args_raw_quoted_string_with_escaped_quotes",
    // `108.` is no JSON number: the parser keeps it as a string, which the inferred schema then wants
    // between delimiters.
    "vllm/gemma4/trailing_dot_float",
    "vllm/gemma4/streaming_plain_text_after_tool_call",
    // Members without their commas.
    "vllm/functiongemma/streamed_two_keys",
    "vllm/functiongemma/streamed_three_keys",
];

#[test]
fn gemma_corpus_outputs_with_valid_calls_are_accepted() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = [
        "ollama/gemma4.jsonl",
        "vllm/gemma4.jsonl",
        "ollama/functiongemma.jsonl",
        "vllm/functiongemma.jsonl",
    ];
    let eos = [
        "<|tool_response>",
        "<turn|>",
        "<start_function_response>",
        "<end_of_turn>",
    ];
    let run = family::corpus_acceptance(&dir, &files, &eos);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert!(run.whole + run.from_trigger >= 50, "{run:?}");
}

fn g4(call: &str) -> String {
    format!("<|tool_call>call:{call}<tool_call|>")
}

fn fg(call: &str) -> String {
    format!("<start_function_call>call:{call}<end_function_call>")
}

#[rstest]
#[case::one_call("gemma4", G4_OFF, &g4(r#"get_weather{city:<|"|>Paris<|"|>,days:3}"#), true, true)]
#[case::every_type("gemma4", G4_OFF, &g4(r#"search{query:<|"|>rust & co<|"|>,limit:null,exact:true,tags:[<|"|>a<|"|>,<|"|>b<|"|>],filters:{lang:<|"|>en<|"|>}}"#), true, true)]
#[case::any_order("gemma4", G4_OFF, &g4(r#"get_weather{unit:<|"|>celsius<|"|>,days:3,city:<|"|>Paris<|"|>}"#), true, true)]
#[case::thought_first("gemma4", G4_TAIL, &format!("<|channel>thought\nWeather.<channel|>{}", g4(r#"get_weather{city:<|"|>Paris<|"|>}"#)), true, true)]
#[case::thought_when_off("gemma4", G4_OFF, &format!("<|channel>thought\nWeather.<channel|>{}", g4(r#"get_weather{city:<|"|>Paris<|"|>}"#)), true, false)]
#[case::two_calls("gemma4", G4_OFF, &format!("{}{}", g4("now{}"), g4("now{}")), true, true)]
#[case::two_calls_when_parallel_is_off("gemma4", G4_OFF, &format!("{}{}", g4("now{}"), g4("now{}")), false, false)]
#[case::unknown_function("gemma4", G4_OFF, &g4("get_time{}"), true, false)]
#[case::missing_required_argument("gemma4", G4_OFF, &g4("get_weather{days:3}"), true, false)]
#[case::undeclared_argument("gemma4", G4_OFF, &g4(r#"get_weather{city:<|"|>Paris<|"|>,x:1}"#), true, false)]
#[case::integer_not_a_number("gemma4", G4_OFF, &g4(r#"get_weather{city:<|"|>Paris<|"|>,days:<|"|>3<|"|>}"#), true, false)]
#[case::enum_not_a_member("gemma4", G4_OFF, &g4(r#"get_weather{city:<|"|>Paris<|"|>,unit:<|"|>kelvin<|"|>}"#), true, false)]
#[case::bare_string("gemma4", G4_OFF, &g4("get_weather{city:Paris}"), true, false)]
#[case::text_instead_of_a_call("gemma4", G4_OFF, "It is sunny.", true, false)]
#[case::fg_one_call("functiongemma", FG_TAIL, &fg("get_weather{city:<escape>Paris<escape>,days:3}"), true, true)]
#[case::fg_wrong_delimiter("functiongemma", FG_TAIL, &fg(r#"get_weather{city:<|"|>Paris<|"|>}"#), true, false)]
#[case::fg_no_closer(
    "functiongemma",
    FG_TAIL,
    "<start_function_call>call:now{}",
    true,
    false
)]
fn gemma_required_calls(
    #[case] parser: &str,
    #[case] tail: &str,
    #[case] output: &str,
    #[case] parallel: bool,
    #[case] accepted: bool,
) {
    let constraint = gemma_constraint(parser, tail, ToolChoice::Required, parallel);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[rstest]
#[case("gemma4", G4_TAIL, "<|tool_call>")]
#[case("functiongemma", FG_TAIL, "<start_function_call>")]
fn gemma_auto_is_lazy_from_the_call_token(
    #[case] parser: &str,
    #[case] tail: &str,
    #[case] opener: &str,
) {
    let constraint = gemma_constraint(parser, tail, ToolChoice::Auto, true);
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, [opener]);
    let tag = constraint.structural_tag().to_string();
    assert!(tag.contains("call:get_weather"), "{tag}");
}

#[test]
fn gemma_sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "gemma4",
            prompt_tail: G4_TAIL,
            lazy_prefix: "Let me check.",
        },
        Setting {
            parser: "gemma4",
            prompt_tail: G4_OFF,
            lazy_prefix: "Let me check.",
        },
        Setting {
            parser: "functiongemma",
            prompt_tail: FG_TAIL,
            lazy_prefix: "Let me check.",
        },
    ];
    let hints = [
        "<|\"|>",
        "<escape>",
        "}",
        "]",
        ",",
        "1",
        "null",
        "<channel|>",
    ];
    let checked = soundness(&settings, 900, &hints);
    assert!(checked >= 850, "{checked}");
}
