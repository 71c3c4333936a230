//! K2 Horizon's reasoning and tool-call format (MBZUAI IFM's `<ifm|…>` tags), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `k2-horizon` | K2 Horizon | forced open, one tag pair per effort: `<ifm\|think>` (high, the default), `<ifm\|think_fast>` (medium), `<ifm\|think_faster>` (low) | `<ifm\|tool_calls><ifm\|tool_call>…</ifm\|tool_call></ifm\|tool_calls>`, each call XML (`NAME<ifm\|arg_key>K</ifm\|arg_key><ifm\|arg_value>V</ifm\|arg_value>`), typed XML (an `<ifm\|arg_type>` between key and value) or JSON (`{"name": …, "arguments": {…}}`) |
//!
//! The wire format, as the model writes it after the generation prompt (which opens reasoning):
//!
//! ```text
//! The user wants the weather.</ifm|think>Let me check.
//! <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! ```
//!
//! The three call layouts are read by one parser (see [`HorizonToolParser`]), so the request's
//! `tool_call_format` need not be known; values are typed by the declared type, else the tool schema.
//!
//! # Why a state machine
//! A call may be written in either of three layouts, told apart only by its first byte, and a typed XML
//! argument carries a type element between its key and its value: the generic engine reads one layout
//! per format and types values only by the schema. The machine is built on parser-core's scanner, call
//! bookkeeping, tagged-value reader and JSON call reader.
//!
//! Its constrained-decoding grammar ([`constraint`]) generates the native layout only (`xml`, the
//! template's default), from the same markers.
//!
//! # Stage
//! The output starts in reasoning (vLLM's `k2_horizon` reasoning parser reads it as DeepSeek-R1's: the
//! prompt opened it) unless the prompt's end says otherwise: a closer there starts in the answer. Any of
//! the three closers ends reasoning (the effort chose one); a redundant opener at the start is dropped;
//! the call group `<ifm|tool_calls>` also ends it (the model went on to call).
//!
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather", "parameters": {"type": "object", "properties": {
//!         "city": {"type": "string"}, "days": {"type": "integer"}}}}}])).unwrap();
//! let options = ParseOptions::new().with_tools(Arc::new(tools));
//! let message = parser_horizon::k2_horizon(&options).parse(concat!(
//!     "The user wants the weather.</ifm|think>Let me check.",
//!     "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key>",
//!     "<ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key>",
//!     "<ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;
pub mod markers;
mod tool;

use parser_core::{
    BlockInReasoning, Composed, ParseOptions, Parser, ParserEntry, ReasoningFormat,
    ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser,
};

pub use tool::HorizonToolParser;

use markers::*;

/// Stage detection: a reasoning opener or closer at the very end of the prompt.
pub static STAGE: StageDetector = StageDetector::new(THINK_OPENERS, THINK_CLOSERS, &[]);

/// The three reasoning tag pairs; the call group ends open reasoning.
pub static THINK: ReasoningSyntax = ReasoningSyntax::new(STAGE, &[], BLOCK_OPENERS);

/// K2 Horizon: reasoning forced open unless the prompt closed it, IFM calls in any of the three layouts.
pub fn k2_horizon(options: &ParseOptions) -> Parser {
    let decided = STAGE.from_request_without_switch(options);
    let stage = decided.unwrap_or(Stage::Reasoning);
    let inline = options.reasoning_format == ReasoningFormat::Inline;
    let reasoning = ThinkTagReasoningParser::new(&THINK, stage)
        .stage_from_default(decided.is_none())
        .inline(inline)
        .blocks_in_reasoning(BlockInReasoning::EndsReasoning);
    let tools = HorizonToolParser::new(options);
    Parser::new("k2-horizon", Composed::new(reasoning, tools, stage, inline))
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "k2-horizon",
        family: "horizon",
        // vLLM `k2_horizon` (tool and reasoning), SGLang `k2_horizon`.
        aliases: &["k2_horizon"],
        models: &["k2-horizon"],
        summary: "K2 Horizon: IFM <ifm|think> reasoning (forced open; _fast / _faster by effort), <ifm|tool_calls><ifm|tool_call> calls in XML, typed XML or JSON",
        sample: "The user wants the weather in Paris for three days.</ifm|think>Let me check.<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
        sample_prompt_tail: "",
        special_tokens: SPECIAL_TOKENS,
        build: k2_horizon,
    }
}
