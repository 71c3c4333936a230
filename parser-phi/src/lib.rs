//! Microsoft Phi-4-mini's tool-call format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `phi4-mini` | microsoft/Phi-4-mini-instruct | none | `functools[{"name": …, "arguments": {…}}, …]` |
//!
//! The wire format, as the model writes it after the generation prompt `<|assistant|>` (the tools are
//! listed in the system turn between `<|tool|>` and `<|/tool|>`):
//!
//! ```text
//! functools[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]<|end|>
//! ```
//!
//! - One JSON array of calls after the word `functools` (a single token in Phi-4-mini's vocabulary);
//!   there is no closing marker. Each element is `{"name", "arguments"}` (`"parameters"` is read too,
//!   as vLLM's `phi4_mini_json` does).
//! - Content may stand before the array and after it; both are kept (vLLM drops the content of an
//!   output with calls).
//! - `<|end|>` and `<|endoftext|>` are dropped.
//!
//! The format fits the generic engine (`JSON_NATIVE` calls in an array after a section marker: the
//! same calls as firefunction-v2's ` functools[…]`), so this crate is data: a
//! [`parser_generic::spec::Analysis`] run by [`parser_generic`], which also builds the grammar of a
//! request from the same spec.
//!
//! llama.cpp ships a template of its own for this model (`llama-cpp-microsoft-Phi-4-mini-instruct.jinja`)
//! that asks for `<|tool_call|>{…}<|/tool_call|>` instead; the model card's and vLLM's format is the
//! `functools` array, which is what this parser reads.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_phi::phi4_mini(&ParseOptions::new())
//!     .parse("functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|end|>");
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! assert_eq!(message.content, None);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ToolFormat};

/// Phi-4-mini: `functools[{"name", "arguments"}, …]`, `<|end|>` turns.
pub fn spec() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            tool_section_start: "functools".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: "<|assistant|>".into(),
        end_of_turn: vec!["<|end|>".into(), "<|endoftext|>".into()],
        ..Analysis::default()
    }
}

static PHI4_MINI: DataParser = DataParser::new("phi4-mini", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &["functools", "<|end|>", "<|endoftext|>"];

/// The `phi4-mini` parser for one request.
pub fn phi4_mini(options: &ParseOptions) -> Parser {
    PHI4_MINI.parser(options)
}

/// The grammar of one request for `phi4-mini`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    PHI4_MINI.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&PHI4_MINI]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "phi4-mini",
        family: "phi",
        aliases: &["phi4_mini_json"],
        models: &["phi-4-mini-instruct", "phi4-mini:"],
        summary: "Phi-4-mini: `functools[{name, arguments}]` calls",
        sample: "Let me check.functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|end|>",
        sample_prompt_tail: "<|user|>Weather in Paris?<|end|><|assistant|>",
        special_tokens: SPECIAL_TOKENS,
        build: phi4_mini,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "phi4-mini", build: constraint }
}
