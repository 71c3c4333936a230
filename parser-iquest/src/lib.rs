//! IQuest's reasoning and tool-call format (IQuest Q1), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `iquest-q1` | IQuest Q1 | forced open: the prompt ends in `<think>` | GLM-4.7's pairs in IQuest's own block: `<iquest_tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></iquest_tool_call>`, values typed by the tool schema |
//!
//! The wire format, as the model writes it after the generation prompt `<|iquest_assistant|><think>`:
//!
//! ```text
//! The user wants the weather.</think>Let me check.<iquest_tool_call>get_weather
//! <arg_key>city</arg_key><arg_value>Paris</arg_value>
//! </iquest_tool_call><|iquest_end|>
//! ```
//!
//! One block per call; whitespace between the tags is framing. A value is a string unless the request's
//! tool schema types its parameter otherwise (the peers decode the value as JSON then, and keep the
//! text when it is not valid JSON); one framing newline at each end of a value is removed.
//! `<|iquest_end|>` (the end of the turn, the tokenizer's end-of-sequence) is dropped.
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED`, GLM-4.7's `<arg_key>` / `<arg_value>` pairs in `<iquest_tool_call>` blocks), which
//! also gives its grammar ([`constraint`]).
//!
//! # Stage
//! The generation prompt opens `<think>`, so the output starts in reasoning unless the prompt tail (after
//! the last `<|iquest_assistant|>`) closed it. A call block while reasoning is still open (the peers read
//! `<iquest_tool_call>` as the end of reasoning) is held: calls if it ends the output, reasoning text
//! otherwise.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|iquest_user|>Weather in Paris?<|iquest_assistant|><think>");
//! let message = parser_iquest::iquest_q1(&options).parse(concat!(
//!     "The user wants Paris.</think>Let me check.",
//!     "<iquest_tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></iquest_tool_call><|iquest_end|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// The format, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<iquest_tool_call>".into(),
            per_call_end: "</iquest_tool_call>".into(),
            arg_name_prefix: "<arg_key>".into(),
            arg_name_suffix: "</arg_key>".into(),
            arg_value_prefix: "<arg_value>".into(),
            arg_value_suffix: "</arg_value>".into(),
            ..Markers::default()
        },
        generation_prompt: "<|iquest_assistant|><think>".into(),
        end_of_turn: vec!["<|iquest_end|>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static IQUEST_Q1: DataParser = DataParser::new("iquest-q1", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<iquest_tool_call>",
    "</iquest_tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|iquest_end|>",
];

/// The `iquest-q1` parser for one request.
pub fn iquest_q1(options: &ParseOptions) -> Parser {
    IQUEST_Q1.parser(options)
}

/// The `iquest-q1` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    IQUEST_Q1.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "iquest-q1",
        family: "iquest",
        // SGLang `iquest_q1` (tool and reasoning).
        aliases: &["iquest_q1"],
        models: &["iquest-q1"],
        summary: "IQuest Q1: <think> opened by the prompt, GLM-4.7 <arg_key>/<arg_value> calls in <iquest_tool_call> blocks, typed by the tool schema",
        sample: "The user wants the weather in Paris for three days.</think>Let me check.<iquest_tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Paris</arg_value>\n<arg_key>days</arg_key><arg_value>3</arg_value>\n</iquest_tool_call><|iquest_end|>",
        sample_prompt_tail: "<|iquest_user|>Weather in Paris for three days?<|iquest_assistant|><think>",
        special_tokens: SPECIAL_TOKENS,
        build: iquest_q1,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "iquest-q1", build: constraint }
}
