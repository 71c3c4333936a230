//! MiniMax's reasoning and tool-call formats (MiniMax-M2, M2.1, M2.5 and M3), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `minimax-m2` | MiniMax-M2, M2.1, M2.5 | forced open: the generation prompt ends in `<think>\n` | `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">VALUE</parameter>…</invoke>…</minimax:tool_call>`, values typed by the tool schema |
//! | `minimax-m3` | MiniMax-M3 | `<mm:think>…</mm:think>`, written by the model (or opened by the prompt when `thinking_mode` is `enabled`) | every tag behind `]<]minimax[>[`: `<tool_call>`, `<invoke name="NAME">`, one element per parameter (`<city>Paris</city>`), nested elements for objects, `<item>` for arrays |
//!
//! MiniMax-M2 is **data** for the generic engine (below); MiniMax-M3 is a state machine ([`m3`], which
//! says why: each value's closer repeats its parameter's name, and values nest), its grammar
//! ([`m3_grammar`]) parser-core's element calls built from the same markers.
//!
//! # MiniMax-M2
//! The wire format, as the model writes it after the generation prompt `]~b]ai\n<think>\n`:
//!
//! ```text
//! The user wants the weather.
//! </think>
//!
//! Let me check.
//! <minimax:tool_call>
//! <invoke name="get_weather">
//! <parameter name="city">Paris</parameter>
//! <parameter name="days">3</parameter>
//! </invoke>
//! <invoke name="get_time">
//! </invoke>
//! </minimax:tool_call>[e~[
//! ```
//!
//! One `<minimax:tool_call>` block holds every call of the turn, one `<invoke>` each. The chat template
//! writes a string value as is and anything else as JSON, so a value is a string unless the request's
//! tool schema types its parameter otherwise (`3` is `"3"` without a schema saying `integer`); one
//! framing newline at each end of a value is removed. `[e~[` (the end of the turn) is dropped.
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED`), which also gives its grammar ([`constraint`]).
//!
//! # Stage
//! The chat template always opens `<think>\n` in the generation prompt, so the output starts in
//! reasoning and holds only `</think>` (vLLM's `minimax_m2` reasoning parser reads it the same way;
//! its `minimax_m2_append_think` puts the reasoning back into content with a `<think>` in front, which
//! is `reasoning_format: none` here). A prompt tail that ends in `</think>` starts in the answer. A call
//! block while reasoning is open is held: calls if it ends the output (the model answered with a call
//! at once), reasoning text otherwise.
//!
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather", "parameters": {"type": "object", "properties": {
//!         "city": {"type": "string"}, "days": {"type": "integer"}}}}}])).unwrap();
//! let options = ParseOptions::new()
//!     .with_prompt_tail("]~b]user\nWeather in Paris?[e~[\n]~b]ai\n<think>\n")
//!     .with_tools(Arc::new(tools));
//! let message = parser_minimax::minimax_m2(&options).parse(concat!(
//!     "The user wants the weather.\n</think>\n\n",
//!     "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n",
//!     "<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather.\n"));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```
//!
//! # MiniMax-M3
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather", "parameters": {"type": "object", "properties": {
//!         "city": {"type": "string"}, "days": {"type": "integer"}}}}}])).unwrap();
//! let options = ParseOptions::new().with_tools(Arc::new(tools));
//! let message = parser_minimax::minimax_m3(&options).parse(concat!(
//!     "<mm:think>The user wants the weather.</mm:think>Let me check.\n",
//!     "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">",
//!     "]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[<days>3]<]minimax[>[</days>",
//!     "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.content.as_deref(), Some("Let me check.\n"));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod m3;
pub mod m3_grammar;

pub use m3::{MiniMaxM3ToolParser, minimax_m3};

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
            per_call_start: "<minimax:tool_call>".into(),
            per_call_end: "</minimax:tool_call>".into(),
            func_name_prefix: "<invoke name=\"".into(),
            func_name_suffix: "\">".into(),
            func_close: "</invoke>".into(),
            arg_name_prefix: "<parameter name=\"".into(),
            arg_name_suffix: "\">".into(),
            arg_value_suffix: "</parameter>".into(),
            ..Markers::default()
        },
        generation_prompt: "]~b]ai\n<think>\n".into(),
        end_of_turn: vec!["[e~[".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static MINIMAX_M2: DataParser = DataParser::new("minimax-m2", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<invoke name=\"",
    "\">",
    "</invoke>",
    "<parameter name=\"",
    "</parameter>",
    "[e~[",
];

/// The `minimax-m2` parser for one request.
pub fn minimax_m2(options: &ParseOptions) -> Parser {
    MINIMAX_M2.parser(options)
}

/// The `minimax-m2` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    MINIMAX_M2.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "minimax-m2",
        family: "minimax",
        // vLLM `minimax_m2` (tool and reasoning) and `minimax_m2_append_think`, SGLang `minimax-m2` and
        // its reasoning parsers `minimax` / `minimax-append-think`, smg `minimax_m2`.
        aliases: &["minimax_m2", "minimax", "minimax_m2_append_think", "minimax-append-think", "mm-m2"],
        models: &["minimax-m2"],
        summary: "MiniMax-M2 / M2.1: <think> forced open by the prompt, <minimax:tool_call><invoke name=…><parameter name=…> calls typed by the tool schema",
        sample: "The user wants the weather in Paris for three days.\n</think>\n\nLet me check.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>",
        sample_prompt_tail: "]~b]user\nWeather in Paris for three days?[e~[\n]~b]ai\n<think>\n",
        special_tokens: SPECIAL_TOKENS,
        build: minimax_m2,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "minimax-m2", build: constraint }
}

// Registered here rather than in `m3`: the linker keeps this module's registrations (a module
// nothing else references may be dropped with its `inventory` entries).
parser_core::inventory::submit! {
    ParserEntry {
        name: "minimax-m3",
        family: "minimax",
        // vLLM `minimax_m3` (tool and reasoning), SGLang `minimax-m3`, llama.cpp's `minimax_m3` handler.
        aliases: &["minimax_m3"],
        models: &["minimax-m3"],
        summary: "MiniMax-M3: <mm:think> reasoning, ]<]minimax[>[-namespaced <tool_call><invoke name=…> calls whose parameters are elements (nested objects, <item> arrays)",
        sample: "<mm:think>The user wants the weather in Paris for three days.</mm:think>Let me check.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[<days>3]<]minimax[>[</days>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        sample_prompt_tail: "]~b]user\nWeather in Paris for three days?[e~[\n]~b]ai\n",
        special_tokens: m3::SPECIAL_TOKENS,
        build: minimax_m3,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "minimax-m3", build: m3_grammar::constraint }
}
