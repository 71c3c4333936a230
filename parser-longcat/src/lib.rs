//! Meituan LongCat-Flash's reasoning and tool-call format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `longcat` | LongCat-Flash-Chat, LongCat-Flash-Thinking | `<longcat_think>…</longcat_think>`, opened by the prompt in thinking mode | `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`, one block per call |
//!
//! The wire format, as the model writes it after the generation prompt (` ASSISTANT:` for
//! LongCat-Flash-Chat, `<longcat_assistant><longcat_think>\n` in thinking mode):
//!
//! ```text
//! The user wants the weather in Paris.
//! </longcat_think>
//! Let me check.
//! <longcat_tool_call>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! </longcat_tool_call></longcat_s>
//! ```
//!
//! This is the Hermes format with LongCat's own tokens (vLLM's `longcat` tool parser is its Hermes
//! parser with these markers; its `longcat` reasoning parser reads `<longcat_think>` like DeepSeek-R1's
//! `<think>`). Arguments stream as the raw JSON the model wrote; `</longcat_s>` (the end of the turn)
//! is dropped. LongCat's later tagged calls (`<longcat_tool_call>NAME` with `<longcat_arg_key>` /
//! `<longcat_arg_value>` pairs) are not read here: vLLM's `longcat` parser does not read them either.
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`JSON_NATIVE` in per-call markers), which also gives its grammar for constrained decoding
//! ([`constraint`]).
//!
//! # Stage
//! The output starts where the prompt leaves it: in the answer after LongCat-Flash-Chat's
//! ` ASSISTANT:` (or `<longcat_assistant>`), in reasoning when the prompt ends in `<longcat_think>`
//! (thinking mode). A `<longcat_think>` at the very start of an answer opens reasoning. A
//! `<longcat_tool_call>` while reasoning is open is held: a call if the block ends the output,
//! reasoning text if `</longcat_think>` or more text follows (DESIGN §4.8).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("[Round 0] USER:Weather in Paris? ASSISTANT:");
//! let message = parser_longcat::longcat(&options).parse(
//!     "<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</longcat_tool_call></longcat_s>",
//! );
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<longcat_user>Hi /think_on <longcat_assistant><longcat_think>\n");
//! let message = parser_longcat::longcat(&options).parse("Greeting.\n</longcat_think>\nHello!</longcat_s>");
//! assert_eq!(message.reasoning.as_deref(), Some("Greeting.\n"));
//! assert_eq!(message.content.as_deref(), Some("\nHello!"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// LongCat-Flash, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<longcat_think>".into(),
            reasoning_end: "</longcat_think>".into(),
            per_call_start: "<longcat_tool_call>".into(),
            per_call_end: "</longcat_tool_call>".into(),
            ..Markers::default()
        },
        // LongCat-Flash-Chat's generation prompt: the answer, no reasoning.
        generation_prompt: " ASSISTANT:".into(),
        // Both templates' assistant headers: the Chat model's rounds and the later `<longcat_*>` roles.
        turn_start: vec!["ASSISTANT:".into(), "<longcat_assistant>".into()],
        end_of_turn: vec!["</longcat_s>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static LONGCAT: DataParser = DataParser::new("longcat", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<longcat_think>",
    "</longcat_think>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "</longcat_s>",
];

/// The `longcat` parser for one request.
pub fn longcat(options: &ParseOptions) -> Parser {
    LONGCAT.parser(options)
}

/// The `longcat` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    LONGCAT.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "longcat",
        family: "longcat",
        // vLLM's `longcat` (tool and reasoning) is this parser's own name.
        aliases: &["longcat-flash"],
        models: &["longcat-flash"],
        summary: "LongCat-Flash: <longcat_think> (thinking mode, opened by the prompt), <longcat_tool_call>{\"name\", \"arguments\"}</longcat_tool_call> calls",
        sample: "Let me check.\n<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}</longcat_tool_call></longcat_s>",
        sample_prompt_tail: "[Round 0] USER:Weather in Paris for three days? ASSISTANT:",
        special_tokens: SPECIAL_TOKENS,
        build: longcat,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "longcat", build: constraint }
}
