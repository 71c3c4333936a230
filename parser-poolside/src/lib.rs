//! Poolside's reasoning and tool-call format (Laguna XS.2, XS-2.1, S-2.1), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `laguna` | Poolside Laguna XS.2, XS-2.1, S-2.1 | switched by `enable_thinking`: the prompt ends in `<think>` (on) or `</think>` (off) | GLM-4.5's layout: `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n…</tool_call>`, values typed by the tool schema |
//!
//! The wire format, as the model writes it after the generation prompt `<assistant>\n<think>`:
//!
//! ```text
//! The user wants the weather.
//! </think>
//! Let me check.
//! <tool_call>get_weather
//! <arg_key>city</arg_key>
//! <arg_value>Paris</arg_value>
//! <arg_key>days</arg_key>
//! <arg_value>3</arg_value>
//! </tool_call>
//! </assistant>
//! ```
//!
//! Turns are tagged `<system>`, `<user>`, `<assistant>`, each closed by its end tag; `</assistant>` (the
//! end of the model's turn) is dropped. Calls follow one another after the content. The chat template
//! writes a string value as is and anything else as JSON, so a value is a string unless the request's
//! tool schema types its parameter otherwise; one framing newline at each end of a value is removed.
//! Whitespace between the tags is framing (the model writes the name with or without a newline after
//! it).
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED`, GLM's `<arg_key>` / `<arg_value>` pairs), which also gives its grammar
//! ([`constraint`]). It is not the `glm-4.5` parser under another name: the turn markers, the
//! end-of-turn token and the thinking switch are Poolside's.
//!
//! # Stage
//! The generation prompt always says where the output starts: `<assistant>\n<think>` with thinking on,
//! `<assistant>\n</think>` with it off, so a prompt tail decides (only what follows the last
//! `<assistant>` counts: a `</think>` in an earlier turn says nothing, as vLLM's `poolside_v1` reasoning
//! parser scopes it). Without a tail, `enable_thinking` decides, and without it the parser follows
//! XS.2 / XS-2.1's template default, thinking off (S-2.1's template defaults to on: pass the prompt
//! tail or `enable_thinking`). A call block while reasoning is open is held: calls if it ends the
//! output, reasoning text otherwise.
//!
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather", "parameters": {"type": "object", "properties": {
//!         "city": {"type": "string"}, "days": {"type": "integer"}}}}}])).unwrap();
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<user>\nWeather in Paris?\n</user>\n<assistant>\n<think>")
//!     .with_tools(Arc::new(tools));
//! let message = parser_poolside::laguna(&options).parse(concat!(
//!     "The user wants the weather.\n</think>\nLet me check.\n",
//!     "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n",
//!     "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n</assistant>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather.\n"));
//! // The newlines around the content are the model's: kept.
//! assert_eq!(message.content.as_deref(), Some("\nLet me check.\n"));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
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
            // The template writes a newline after the name and between the tags: framing, trimmed.
            arg_name_prefix: "<arg_key>".into(),
            arg_name_suffix: "</arg_key>".into(),
            arg_value_prefix: "<arg_value>".into(),
            arg_value_suffix: "</arg_value>".into(),
            ..Markers::default()
        },
        capabilities: Capabilities {
            thinking_variable: Some("enable_thinking".into()),
            thinking_default: Some(false),
            ..Capabilities::default()
        },
        generation_prompt: "<assistant>\n<think>".into(),
        generation_prompt_no_thinking: Some("<assistant>\n</think>".into()),
        turn_start: vec!["<assistant>".into()],
        end_of_turn: vec!["</assistant>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static LAGUNA: DataParser = DataParser::new("laguna", spec);

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
    "</assistant>",
];

/// The `laguna` parser for one request.
pub fn laguna(options: &ParseOptions) -> Parser {
    LAGUNA.parser(options)
}

/// The `laguna` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    LAGUNA.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "laguna",
        family: "poolside",
        // vLLM and SGLang `poolside_v1` (tool and reasoning), Ollama `laguna` and `poolside-v1`.
        aliases: &["poolside_v1", "poolside"],
        models: &["laguna"],
        summary: "Poolside Laguna: <think> switched by enable_thinking, GLM-4.5 <tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value> calls typed by the tool schema",
        sample: "The user wants the weather in Paris for three days.\n</think>\nLet me check.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n</assistant>",
        sample_prompt_tail: "<user>\nWeather in Paris for three days?\n</user>\n<assistant>\n<think>",
        special_tokens: SPECIAL_TOKENS,
        build: laguna,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "laguna", build: constraint }
}
