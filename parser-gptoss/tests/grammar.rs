//! GPT-OSS's harmony grammar (`parser_gptoss::constraint`), run through llguidance with a byte
//! vocabulary: corpus outputs are accepted, wrong outputs refused, and sampled outputs parse into valid
//! calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use parser_gptoss::markers::{CALL, END, END_OF_TEXT, RETURN};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, sampled_tools, soundness};

/// Corpus cases the grammar refuses, each with the reason: the parser reads every header spelling,
/// the grammar writes one (`<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>`).
const REFUSED: &[&str] = &[
    // A final message after the call (the model runs on past `<|call|>`, a stop token).
    "vllm/gpt_oss/tool_then_final",
    // Text with no header after the call.
    "sglang/gpt_oss/complete_parsing",
    // Stray `commentary` text between the calls, and a message without `<|start|>assistant`.
    "sglang/gpt_oss/multiple_tools",
    // The output repeats the `<|start|>assistant` the prompt ends with.
    "sglang/gpt_oss/assistant_prefix",
    // Two spaces before `<|constrain|>`.
    "sglang/gpt_oss/whitespace_before_constrain",
    // A final message after the call, without `<|start|>assistant`.
    "sglang/gpt_oss/final_channel_after_call",
    // A preamble after the call, without `<|start|>assistant`.
    "sglang/gpt_oss/mixed_commentary_and_call",
    // The recipient in the role part (`… to=functions.NAME<|channel|>analysis`), no content type.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2474",
    // A call on the analysis channel, no content type.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2480",
    // The recipient in the role part.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2486",
    // No content type (`<|constrain|>json`).
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2492",
    // The recipient in the role part, no content type.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2498",
    // No content type.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2507",
    // An empty final message before the analysis.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2527",
    // The recipient in the role part, no content type.
    "llama_cpp/gpt_oss/openai-gpt-oss-120b-L2565",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let run = corpus_acceptance(
        &dir,
        &[
            "vllm/gpt_oss.jsonl",
            "sglang/gpt_oss.jsonl",
            "llama_cpp/gpt_oss.jsonl",
        ],
        &[END_OF_TEXT],
    );
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (4, 0), "{run:?}");
}

const AT_HEADER: &str = "<|start|>user<|message|>Weather?<|end|><|start|>assistant";
const IN_ANALYSIS: &str = "<|start|>assistant<|channel|>analysis<|message|>";
const ANALYSIS: &str = "<|channel|>analysis<|message|>The user wants the weather.<|end|>";
const PARIS: &str = "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>";
const NOW: &str = "<|start|>assistant<|channel|>commentary to=functions.now <|constrain|>json<|message|>{}<|call|>";

fn constraint(tail: &str, choice: ToolChoice, parallel: bool) -> Result<Constraint, String> {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new().with_prompt_tail(tail).with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    parser_gptoss::constraint::gpt_oss(&options, &request).map_err(|e| e.to_string())
}

/// The first message of the output has no `<|start|>assistant`: the prompt wrote it.
fn first(message: &str) -> &str {
    message
        .strip_prefix("<|start|>assistant")
        .unwrap_or(message)
}

#[rstest]
#[case::valid(AT_HEADER, &format!("{ANALYSIS}{PARIS}"), true, true)]
#[case::valid_without_analysis(AT_HEADER, first(PARIS), true, true)]
#[case::valid_without_the_stop_token(AT_HEADER, &format!("{ANALYSIS}{}", PARIS.trim_end_matches(CALL)), true, true)]
#[case::whitespace_between_messages(AT_HEADER, &format!("{ANALYSIS}\n{PARIS}"), true, true)]
#[case::two_analyses(AT_HEADER, &format!("{ANALYSIS}<|start|>assistant{ANALYSIS}{PARIS}"), true, true)]
#[case::inside_analysis(IN_ANALYSIS, &format!("Weather.{END}{PARIS}"), true, true)]
#[case::inside_analysis_not_ended(IN_ANALYSIS, PARIS, true, false)]
#[case::unknown_function(AT_HEADER, &format!("{ANALYSIS}{}", PARIS.replace("get_weather", "get_time")), true, false)]
#[case::missing_required_argument(AT_HEADER, &format!("{ANALYSIS}{}", PARIS.replace("\"city\"", "\"days\"")), true, false)]
#[case::no_functions_namespace(AT_HEADER, &format!("{ANALYSIS}{}", PARIS.replace("functions.", "")), true, false)]
#[case::no_content_type(AT_HEADER, &format!("{ANALYSIS}{}", PARIS.replace(" <|constrain|>json", "")), true, false)]
#[case::recipient_in_the_role(AT_HEADER, &format!("{ANALYSIS}{}", PARIS.replace("assistant<|channel|>commentary to=functions.get_weather", "assistant to=functions.get_weather<|channel|>commentary")), true, false)]
#[case::final_answer_instead_of_a_call(AT_HEADER, &format!("{ANALYSIS}<|start|>assistant<|channel|>final<|message|>Sunny.{RETURN}"), true, false)]
#[case::preamble_then_call(AT_HEADER, &format!("<|channel|>commentary<|message|>Checking.{END}{PARIS}"), true, false)]
#[case::two_calls(AT_HEADER, &format!("{ANALYSIS}{PARIS}{NOW}"), true, true)]
#[case::two_calls_when_parallel_is_off(AT_HEADER, &format!("{ANALYSIS}{PARIS}{NOW}"), false, false)]
#[case::text_after_the_call(AT_HEADER, &format!("{ANALYSIS}{PARIS}Done."), true, false)]
fn required_calls(
    #[case] tail: &str,
    #[case] output: &str,
    #[case] parallel: bool,
    #[case] accepted: bool,
) {
    let constraint = constraint(tail, ToolChoice::Required, parallel).unwrap();
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn a_named_function_allows_only_it() {
    let constraint = constraint(AT_HEADER, ToolChoice::Function("now".into()), true).unwrap();
    let now = format!("{ANALYSIS}{NOW}");
    assert!(check_both(constraint.lark(), constraint.gbnf(), &now).is_ok());
    let paris = format!("{ANALYSIS}{PARIS}");
    assert!(check_both(constraint.lark(), constraint.gbnf(), &paris).is_err());
}

#[test]
fn tool_choice_none_allows_only_the_final_answer() {
    let constraint = constraint(AT_HEADER, ToolChoice::None, true).unwrap();
    let answer = format!("{ANALYSIS}<|start|>assistant<|channel|>final<|message|>Sunny.{RETURN}");
    assert!(check_both(constraint.lark(), constraint.gbnf(), &answer).is_ok());
    let call = format!("{ANALYSIS}{PARIS}");
    assert!(check_both(constraint.lark(), constraint.gbnf(), &call).is_err());
    assert!(!constraint.lark().contains("to=functions"));
    assert!(!constraint.gbnf().contains("to=functions"));
}

#[test]
fn auto_is_lazy_from_the_first_call_header() {
    let constraint = constraint(AT_HEADER, ToolChoice::Auto, true).unwrap();
    assert!(constraint.lazy);
    assert_eq!(
        constraint.triggers.words,
        ["<|channel|>commentary to=functions."]
    );
    let pattern = &constraint.triggers.patterns[0];
    assert_eq!(
        pattern,
        r"^[\s\S]*?(<\|channel\|>commentary to=functions\.)"
    );
    // From the trigger: the calls, and nothing after them.
    let calls = format!("{}{NOW}", first(PARIS));
    assert!(check_both(constraint.lark(), constraint.gbnf(), &calls).is_ok());
    let after = format!("{calls}<|start|>assistant<|channel|>final<|message|>Done.");
    assert!(check_both(constraint.lark(), constraint.gbnf(), &after).is_err());
    assert_eq!(
        constraint.preserved_tokens,
        [
            "<|start|>",
            "<|channel|>",
            "<|constrain|>",
            "<|message|>",
            "<|end|>",
            "<|call|>",
            "<|return|>"
        ]
    );
}

#[test]
fn prefilled_prompts() {
    // Inside a call's arguments: its schema, then `<|call|>`.
    let tail = "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>";
    let in_call = constraint(tail, ToolChoice::Auto, false).unwrap();
    assert!(!in_call.lazy);
    let accepts = |text: &str| check_both(in_call.lark(), in_call.gbnf(), text).is_ok();
    assert!(accepts("{\"city\": \"Paris\"}<|call|>"));
    assert!(!accepts("{\"days\": 1}<|call|>"));
    assert!(constraint(tail, ToolChoice::None, true).is_err());
    // Inside a header: not constrained (`auto` is lazy, and a header the prompt began never triggers).
    let header = "<|start|>assistant<|channel|>commentary";
    assert!(constraint(header, ToolChoice::Required, true).is_err());
    assert!(constraint(header, ToolChoice::Auto, true).unwrap().lazy);
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "gpt-oss",
            prompt_tail: AT_HEADER,
            lazy_prefix: "<|channel|>analysis<|message|>The user wants the weather.<|end|><|start|>assistant",
        },
        Setting {
            parser: "gpt-oss",
            prompt_tail: IN_ANALYSIS,
            lazy_prefix: "Need the weather.<|end|>\n<|start|>assistant",
        },
        Setting {
            parser: "gpt-oss",
            prompt_tail: AT_HEADER,
            lazy_prefix: "",
        },
        Setting {
            parser: "gpt-oss",
            prompt_tail: AT_HEADER,
            lazy_prefix: "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant",
        },
    ];
    let hints = [END, CALL, RETURN, "\"", "}", "]", "1", "null"];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}

#[test]
fn every_start_and_request_compiles() {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let tails = [
        AT_HEADER,
        IN_ANALYSIS,
        "<|start|>assistant<|channel|>final<|message|>",
        "<|start|>assistant<|channel|>commentary to=functions.now <|constrain|>json<|message|>",
    ];
    let formats = [
        ResponseFormat::Text,
        ResponseFormat::JsonSchema(serde_json::json!({"type": "object"})),
    ];
    let mut compiled = 0;
    for tail in tails {
        for choice in [ToolChoice::None, ToolChoice::Auto, ToolChoice::Required] {
            for format in &formats {
                let options = ParseOptions::new()
                    .with_prompt_tail(tail)
                    .with_tools(tools.clone());
                let request = ConstraintRequest {
                    tool_choice: choice.clone(),
                    parallel_tool_calls: true,
                    response_format: format.clone(),
                };
                // A prompt that opened a call refuses `none`; everything else builds.
                let Ok(constraint) = parser_gptoss::constraint::gpt_oss(&options, &request) else {
                    assert!(tail.contains("to=functions") && choice == ToolChoice::None);
                    continue;
                };
                llg::matcher(constraint.lark());
                llg::matcher(&llg::gbnf_to_lark(constraint.gbnf()));
                compiled += 1;
            }
        }
    }
    assert_eq!(compiled, 22);
}
