//! A model family written as data (parser-generic's `DataParser`): a hand-written spec, registered
//! through `inventory` like a family crate registers it, is found by name and by model, parses one-shot
//! as it streams under core's chunkings, decides its stage by the spec, and gives its grammar.

use parser_auto::analyze::{Analysis, Markers, ReasoningMode, ToolFormat};
use parser_auto::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_auto::generic::DataParser;
use parser_auto::{Error, ParseOptions, Parser, ParserEntry, Stage};
use parser_core::testing::{Chunking, check_chunkings, check_sample_splits};

/// Hermes-like: `<think>` reasoning the model opens itself in a ChatML turn, `<tool_call>{json}</tool_call>`.
fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            ..Markers::default()
        },
        generation_prompt: "<|im_start|>assistant\n".into(),
        turn_start: vec!["<|im_start|>assistant".into()],
        end_of_turn: vec!["<|im_end|>".into()],
        ..Analysis::default()
    }
}

static TESTDATA: DataParser = DataParser::new("testdata-hermes", spec);
const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|im_end|>",
];

fn build(options: &ParseOptions) -> Parser {
    TESTDATA.parser(options)
}

fn constraint(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    TESTDATA.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "testdata-hermes",
        family: "testdata",
        aliases: &["testdata_json"],
        models: &["testdata-model"],
        summary: "A test family written as data",
        sample: "<think>Paris.</think>Checking.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "testdata-hermes", build: constraint }
}

const OUTPUT: &str = "<think>The user wants Paris; {\"x\": 1} is not a call here.</think>Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": [1, 2]}}\n</tool_call>\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call><|im_end|>";

#[test]
fn a_registered_spec_is_found_by_name_alias_and_model() {
    let options = ParseOptions::new();
    for name in ["testdata-hermes", "testdata_json", "TestData-JSON"] {
        assert_eq!(
            parser_auto::by_name(name, &options).unwrap().name(),
            "testdata-hermes"
        );
    }
    let entry = parser_auto::entry_for_model("acme/TestData-Model-7B-GGUF").unwrap();
    assert_eq!(entry.family, "testdata");
    assert!(
        parser_auto::entries()
            .iter()
            .any(|e| e.name == "testdata-hermes")
    );
}

#[test]
fn one_shot_equals_streamed_under_every_chunking() {
    let options = ParseOptions::new().with_call_id_seed(7);
    let make = || parser_auto::by_name("testdata-hermes", &options).unwrap();
    let message = check_chunkings(&make, OUTPUT, &Chunking::standard(SPECIAL_TOKENS)).unwrap();
    assert_eq!(
        message.reasoning.as_deref(),
        Some("The user wants Paris; {\"x\": 1} is not a call here.")
    );
    assert_eq!(message.content.as_deref(), Some("Let me check.\n"));
    let calls: Vec<(&str, &str)> = message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("get_weather", r#"{"city": "Paris", "days": [1, 2]}"#),
            ("now", "{}")
        ]
    );
    assert!(message.tool_calls.iter().all(|c| c.valid));
    assert!(check_sample_splits("testdata") > 0);
}

#[test]
fn the_entry_lists_the_spec_markers() {
    let mut tokens = TESTDATA.tokens().to_vec();
    tokens.sort_unstable();
    let mut listed = SPECIAL_TOKENS.to_vec();
    listed.sort_unstable();
    assert_eq!(tokens, listed);
    assert_eq!(TESTDATA.spec(), &spec());
}

#[test]
fn the_stage_follows_the_spec_turn_start() {
    let first = |tail: &str| {
        let options = ParseOptions::new().with_prompt_tail(tail);
        let parser = parser_auto::by_name("testdata-hermes", &options).unwrap();
        let message = parser.parse("Thinking.</think>Answer.");
        if message.reasoning.is_some() {
            Stage::Reasoning
        } else {
            Stage::Content
        }
    };
    // The prompt opened reasoning in this turn.
    assert_eq!(first("<|im_start|>assistant\n<think>\n"), Stage::Reasoning);
    // Closed by the prompt.
    assert_eq!(
        first("<|im_start|>assistant\n<think>\n\n</think>\n\n"),
        Stage::Content
    );
    // A `<think>` of an earlier turn does not count: the assistant's turn starts after it.
    assert_eq!(
        first("<|im_start|>user\nWhat does <think> do?<|im_end|>\n<|im_start|>assistant\n"),
        Stage::Content
    );
    // Explicit stage wins.
    let options = ParseOptions::new().with_stage(Stage::Reasoning);
    let message = TESTDATA.parser(&options).parse("Hm.</think>Hi.");
    assert_eq!(message.reasoning.as_deref(), Some("Hm."));
}

#[test]
fn the_grammar_comes_from_the_same_spec() {
    let tools =
        parser_auto::Tools::from_json(&serde_json::json!([{"type": "function", "function": {
            "name": "now", "parameters": {"type": "object", "properties": {}}
        }}]))
        .unwrap();
    let options = ParseOptions::new().with_tools(std::sync::Arc::new(tools));
    let entry = parser_auto::entry_by_name("testdata-hermes").unwrap();
    let constraint = entry
        .constraint(&options, &ConstraintRequest::default())
        .expect("registered")
        .unwrap();
    assert_eq!(constraint.triggers.words, ["<tool_call>"]);
    assert!(constraint.lark().contains("now"), "{}", constraint.lark());
}
