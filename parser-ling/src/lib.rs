//! inclusionAI's reasoning and tool-call format (Ling 3.0, Bailing V3), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `ling-3` | inclusionAI Ling-3.0 (flash and larger), Bailing V3 | on by default: the prompt ends in `<think>` (`<think></think>` with `enable_thinking=false`) | GLM's tags: `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n</tool_call>`, values typed by the tool schema |
//!
//! The wire format, as the model writes it after the generation prompt `<role>ASSISTANT</role>\n<think>`:
//!
//! ```text
//! The user wants the weather.</think>Let me check.
//! <tool_call>get_weather
//! <arg_key>city</arg_key>
//! <arg_value>Paris</arg_value>
//! </tool_call><|role_end|>
//! ```
//!
//! Turns are `<role>SYSTEM</role>`, `<role>HUMAN</role>`, `<role>ASSISTANT</role>`,
//! `<role>OBSERVATION</role>`, each ended by `<|role_end|>` (dropped). The chat template writes a string
//! value as is and anything else as JSON, so a value is a string unless the request's tool schema types
//! its parameter otherwise; one framing newline at each end of a value is removed, and whitespace
//! between the tags is framing (the model writes the name with or without a newline after it, the
//! template writes one before each `<arg_value>`).
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED`, GLM's `<arg_key>` / `<arg_value>` pairs), which also gives its grammar
//! ([`constraint`]).
//!
//! # Stage
//! The generation prompt opens `<think>` unless `enable_thinking` is false, when it writes
//! `<think></think>`: the prompt tail (after the last `<role>ASSISTANT</role>`) decides, then
//! `enable_thinking`, then the template's default, on. A `<tool_call>` while reasoning is still open
//! (the model calling without closing `</think>`, which the peers read as the end of reasoning) is
//! held: calls if the block ends the output, reasoning text otherwise.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<role>HUMAN</role>Weather in Paris?<|role_end|><role>ASSISTANT</role>\n<think>");
//! let message = parser_ling::ling3(&options).parse(concat!(
//!     "The user wants Paris.</think>Let me check.\n",
//!     "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call><|role_end|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//! assert_eq!(message.content.as_deref(), Some("Let me check.\n"));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Capabilities, Markers, ReasoningMode, ToolFormat};

/// The format, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            // The newlines the template writes after the name and before `<arg_value>` are framing.
            arg_name_prefix: "<arg_key>".into(),
            arg_name_suffix: "</arg_key>".into(),
            arg_value_prefix: "<arg_value>".into(),
            arg_value_suffix: "</arg_value>".into(),
            ..Markers::default()
        },
        capabilities: Capabilities {
            thinking_variable: Some("enable_thinking".into()),
            thinking_default: Some(true),
            ..Capabilities::default()
        },
        generation_prompt: "<role>ASSISTANT</role>\n<think>".into(),
        generation_prompt_no_thinking: Some("<role>ASSISTANT</role>\n<think></think>".into()),
        end_of_turn: vec!["<|role_end|>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static LING3: DataParser = DataParser::new("ling-3", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|role_end|>",
];

/// The `ling-3` parser for one request.
pub fn ling3(options: &ParseOptions) -> Parser {
    LING3.parser(options)
}

/// The `ling-3` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    LING3.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "ling-3",
        family: "ling",
        // vLLM and SGLang `ling3` (tool and reasoning), llama.cpp's `ling3` handler; Bailing V3 is the
        // architecture's name.
        aliases: &["ling3", "bailing_moe_v3"],
        models: &["ling-3", "ling3", "bailing-v3"],
        summary: "inclusionAI Ling 3: <think> opened by the prompt (enable_thinking), GLM <tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value> calls typed by the tool schema",
        sample: "The user wants the weather in Paris for three days.</think>Let me check.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call><|role_end|>",
        sample_prompt_tail: "<role>HUMAN</role>Weather in Paris for three days?<|role_end|><role>ASSISTANT</role>\n<think>",
        special_tokens: SPECIAL_TOKENS,
        build: ling3,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "ling-3", build: constraint }
}
