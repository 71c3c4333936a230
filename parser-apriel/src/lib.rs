//! ServiceNow Apriel's reasoning and tool-call format (Apriel-1.5 / 1.6 Thinker), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `apriel` | Apriel-1.5-15b-Thinker, Apriel-1.6-15b-Thinker | everything up to `\n[BEGIN FINAL RESPONSE]\n` (no start marker; 1.6's prompt ends in `Here are my reasoning steps:\n`) | `<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>` |
//!
//! The wire format, as the model writes it after the generation prompt (`<|assistant|>\n` for 1.5,
//! `<|begin_assistant|>\nHere are my reasoning steps:\n` for 1.6):
//!
//! ```text
//! The user wants the weather.
//! [BEGIN FINAL RESPONSE]
//! <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
//! The user said hello.
//! [BEGIN FINAL RESPONSE]
//! Hello! [END FINAL RESPONSE]          (1.5 closes its answer; the closer is dropped)
//! ```
//!
//! The format fits the generic engine (a delimiter-style reasoning end, `JSON_NATIVE` calls in an array
//! inside section markers), so this crate is data: a [`parser_generic::spec::Analysis`] run by
//! [`parser_generic`]. `<|end|>` and `[END FINAL RESPONSE]` are dropped.
//!
//! # Stage
//! The output starts in reasoning (the Thinker models always reason first) unless thinking is known to
//! be off (`enable_thinking: false`, or a prompt tail that already holds `[BEGIN FINAL RESPONSE]`);
//! reasoning ends at the first `[BEGIN FINAL RESPONSE]`. An output that never writes it is reasoning
//! (with `reasoning_format: none`, content, as llama.cpp reports it).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|begin_assistant|>\nHere are my reasoning steps:\n");
//! let message = parser_apriel::apriel(&options).parse(concat!(
//!     "The user wants the weather.\n[BEGIN FINAL RESPONSE]\n",
//!     "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</tool_calls>",
//! ));
//! assert_eq!(message.reasoning.as_deref().map(str::trim), Some("The user wants the weather."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ReasoningMode, ToolFormat};

/// Apriel: delimiter reasoning ended by `[BEGIN FINAL RESPONSE]`, `<tool_calls>[…]</tool_calls>`.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_end: "\n[BEGIN FINAL RESPONSE]\n".into(),
            tool_section_start: "<tool_calls>".into(),
            tool_section_end: "</tool_calls>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: "<|begin_assistant|>\nHere are my reasoning steps:\n".into(),
        turn_start: vec!["<|begin_assistant|>".into(), "<|assistant|>".into()],
        end_of_turn: vec!["<|end|>".into(), "[END FINAL RESPONSE]".into()],
        ..Analysis::default()
    }
}

static APRIEL: DataParser = DataParser::new("apriel", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "[BEGIN FINAL RESPONSE]",
    "<tool_calls>",
    "</tool_calls>",
    "<|end|>",
    "[END FINAL RESPONSE]",
    "<|begin_assistant|>",
    "<|assistant|>",
];

/// The `apriel` parser for one request.
pub fn apriel(options: &ParseOptions) -> Parser {
    APRIEL.parser(options)
}

/// The grammar of one request for `apriel`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    APRIEL.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&APRIEL]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "apriel",
        family: "apriel",
        aliases: &["apriel-thinker", "apriel_1_5", "apriel_1_6"],
        models: &["apriel-1.5", "apriel-1.6"],
        summary: "Apriel-1.5 / 1.6 Thinker: reasoning up to [BEGIN FINAL RESPONSE], <tool_calls>[{name, arguments}]</tool_calls> calls",
        sample: "The user wants the weather in Paris.\n[BEGIN FINAL RESPONSE]\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</tool_calls>",
        sample_prompt_tail: "<|begin_user|>\nWeather in Paris?\n<|begin_assistant|>\nHere are my reasoning steps:\n",
        special_tokens: SPECIAL_TOKENS,
        build: apriel,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "apriel", build: constraint }
}
