//! IBM Granite's reasoning and tool-call formats (Granite 3.x and 4.x), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `granite` | Granite-3.0 … 3.3 | 3.3 with `thinking=true`: `<think>…</think><response>…</response>` written by the model | `<\|tool_call\|>[{"name": …, "arguments": {…}}, …]`: one JSON list, no closer |
//! | `granite-4` | Granite-4.0 (-h, -micro, -tiny, -small) | none | `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, one block per call (Hermes) |
//! | `granite-20b-fc` | granite-20b-functioncalling | none | `<function_call> {"name": …, "arguments": {…}}`, one per call, no closer |
//!
//! The wire formats, as the model writes them after the generation prompt
//! `<|start_of_role|>assistant<|end_of_role|>`:
//!
//! ```text
//! Granite 3.x:  <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]<|end_of_text|>
//! Granite 3.3:  <think>The user wants the weather.</think><response>It is sunny.</response><|end_of_text|>   (thinking=true)
//! 20B-FC:       <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}\n<function_call> {"name": "get_time", "arguments": {}}
//! Granite 4.x:  <tool_call>
//!               {"name": "get_weather", "arguments": {"city": "Paris"}}
//!               </tool_call><|end_of_text|>
//! ```
//!
//! `<response>` and `</response>` are removed from content; `<|end_of_text|>` is dropped. In the JSON
//! list each element is read on its own (a malformed one is an invalid call or content, its siblings
//! are still calls); the name may come after the arguments. Granite 3.1's `<tool_call>` string prefix
//! before a list and Granite 3.2's plain-text "Here is my thought process:" / "Here is my response:"
//! reasoning are not read (3.2's phrases are ordinary words, not markers).
//!
//! The formats are **data**: hand-written specs ([`granite3_spec`], [`granite4_spec`], [`granite_20b_fc_spec`]) run by the
//! generic engine of `parser-generic` (`JSON_NATIVE`: a list after a section marker, or one object per
//! call marker), which also gives their grammars ([`constraint_granite3`], [`constraint_granite4`],
//! [`constraint_granite_20b_fc`]).
//!
//! # Stage
//! Neither generation prompt opens reasoning: the output starts in the answer, and a `<think>` at its
//! very start opens reasoning (Granite 3.3 with `thinking=true`).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|start_of_role|>assistant<|end_of_role|>");
//! let message = parser_granite::granite3(&options).parse(
//!     "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|end_of_text|>",
//! );
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! let message = parser_granite::granite3(&options).parse(
//!     "<think>Easy.</think><response>Hello!</response><|end_of_text|>",
//! );
//! assert_eq!(message.reasoning.as_deref(), Some("Easy."));
//! assert_eq!(message.content.as_deref(), Some("Hello!"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{
    Analysis, Capabilities, ContentMode, JsonFields, Markers, ReasoningMode, ToolFormat,
};

/// Where the assistant's turn starts (the generation prompt).
const ASSISTANT: &str = "<|start_of_role|>assistant<|end_of_role|>";
/// The end of the turn.
const END_OF_TEXT: &str = "<|end_of_text|>";

/// Granite 3.x, as data for the generic engine.
pub fn granite3_spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        content: ContentMode::WrappedWithReasoning,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            content_start: "<response>".into(),
            content_end: "</response>".into(),
            tool_section_start: "<|tool_call|>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        capabilities: Capabilities {
            thinking_variable: Some("thinking".into()),
            thinking_default: Some(false),
            ..Capabilities::default()
        },
        generation_prompt: ASSISTANT.into(),
        turn_start: vec![ASSISTANT.into()],
        end_of_turn: vec![END_OF_TEXT.into()],
        ..Analysis::default()
    }
}

/// Granite 4.x, as data for the generic engine.
pub fn granite4_spec() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            ..Markers::default()
        },
        generation_prompt: ASSISTANT.into(),
        turn_start: vec![ASSISTANT.into()],
        end_of_turn: vec![END_OF_TEXT.into()],
        ..Analysis::default()
    }
}

/// granite-20b-functioncalling, as data for the generic engine: one `<function_call>` before each JSON
/// call, nothing after it.
pub fn granite_20b_fc_spec() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            per_call_start: "<function_call>".into(),
            ..Markers::default()
        },
        generation_prompt: "<|assistant|>\n".into(),
        turn_start: vec!["<|assistant|>".into()],
        end_of_turn: vec!["<|endoftext|>".into()],
        ..Analysis::default()
    }
}

/// The registered `granite` parser, built from [`granite3_spec`] on first use.
pub static GRANITE3: DataParser = DataParser::new("granite", granite3_spec);
/// The registered `granite-4` parser, built from [`granite4_spec`] on first use.
pub static GRANITE4: DataParser = DataParser::new("granite-4", granite4_spec);

/// The registered `granite-20b-fc` parser, built from [`granite_20b_fc_spec`] on first use.
pub static GRANITE_20B_FC: DataParser = DataParser::new("granite-20b-fc", granite_20b_fc_spec);

/// Every marker of Granite 3.x, whole.
pub const GRANITE3_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<response>",
    "</response>",
    "<|tool_call|>",
    END_OF_TEXT,
];
/// Every marker of Granite 4.x, whole.
pub const GRANITE4_TOKENS: &[&str] = &["<tool_call>", "</tool_call>", END_OF_TEXT];

/// Every marker of granite-20b-functioncalling, whole.
pub const GRANITE_20B_FC_TOKENS: &[&str] = &["<function_call>", "<|endoftext|>"];

/// The `granite-20b-fc` parser for one request.
pub fn granite_20b_fc(options: &ParseOptions) -> Parser {
    GRANITE_20B_FC.parser(options)
}

/// The `granite-20b-fc` grammar for one request, from the same spec.
pub fn constraint_granite_20b_fc(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    GRANITE_20B_FC.constraint(options, request)
}

/// The `granite` parser (Granite 3.x) for one request.
pub fn granite3(options: &ParseOptions) -> Parser {
    GRANITE3.parser(options)
}

/// The `granite-4` parser for one request.
pub fn granite4(options: &ParseOptions) -> Parser {
    GRANITE4.parser(options)
}

/// The `granite` grammar for one request, from the same spec.
pub fn constraint_granite3(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    GRANITE3.constraint(options, request)
}

/// The `granite-4` grammar for one request, from the same spec.
pub fn constraint_granite4(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    GRANITE4.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "granite",
        family: "granite",
        // vLLM `granite` (tool and reasoning) and `granite_thinking_parser`, llama.cpp's `granite` handler.
        aliases: &["granite3", "granite-3", "granite_thinking_parser", "granite-thinking"],
        models: &["granite-3"],
        summary: "Granite 3.x: <think>…</think><response>…</response> by the model (3.3, thinking=true), <|tool_call|>[{\"name\", \"arguments\"}, …] calls",
        sample: "<think>The user wants the weather in Paris.</think><response>Let me check.</response><|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}]<|end_of_text|>",
        sample_prompt_tail: "<|start_of_role|>user<|end_of_role|>Weather in Paris for three days?<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>",
        special_tokens: GRANITE3_TOKENS,
        build: granite3,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "granite-4",
        family: "granite",
        // vLLM `granite4`.
        aliases: &["granite4"],
        models: &["granite-4"],
        summary: "Granite 4.x: <tool_call>{\"name\", \"arguments\"}</tool_call> calls (Hermes)",
        sample: "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call><|end_of_text|>",
        sample_prompt_tail: "<|start_of_role|>user<|end_of_role|>Weather in Paris for three days?<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>",
        special_tokens: GRANITE4_TOKENS,
        build: granite4,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "granite-20b-fc",
        family: "granite",
        // vLLM `granite-20b-fc`.
        aliases: &["granite_20b_fc", "granite-20b-functioncalling"],
        models: &["granite-20b-functioncalling"],
        summary: "granite-20b-functioncalling: <function_call> {\"name\", \"arguments\"} calls, one per marker",
        sample: "Let me check.\n<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}<|endoftext|>",
        sample_prompt_tail: "<|user|>\nWeather in Paris for three days?\n<|assistant|>\n",
        special_tokens: GRANITE_20B_FC_TOKENS,
        build: granite_20b_fc,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "granite", build: constraint_granite3 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "granite-20b-fc", build: constraint_granite_20b_fc }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "granite-4", build: constraint_granite4 }
}
