//! AI21 Jamba's tool-call format (Jamba 1.5, 1.6, 1.7 Mini and Large), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `jamba` | AI21-Jamba-Mini / Large 1.5, 1.6, 1.7, Jamba-tiny-dev | none | `<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>` |
//!
//! The wire format, as the model writes it after the generation prompt `<|bom|><|assistant|>` (its
//! template writes a space after the role of every other turn, so the answer usually opens with one):
//!
//! ```text
//!  Sure, let me check.<tool_calls>[
//! {"name": "get_weather", "arguments": {"city": "Paris"}},
//! {"name": "get_time", "arguments": {"tz": "Europe/Paris"}}
//! ]</tool_calls><|eom|>
//! ```
//!
//! - One JSON array of `{"name", "arguments"}` objects between `<tool_calls>` and `</tool_calls>`,
//!   with content before it.
//! - `<citations>[…]</citations>` (the template's citation mode) is content, as written.
//! - `<|eom|>`, which ends the message, is dropped.
//!
//! The format fits the generic engine (`JSON_NATIVE` calls in an array inside section markers, as
//! Apriel and Nemotron-Nano-v2 write them), so this crate is data: a
//! [`parser_generic::spec::Analysis`] run by [`parser_generic`], which also builds the grammar of a
//! request from the same spec.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_jamba::jamba(&ParseOptions::new()).parse(concat!(
//!     " Sure, let me check.<tool_calls>[\n",
//!     "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n]</tool_calls><|eom|>",
//! ));
//! assert_eq!(message.content.as_deref(), Some(" Sure, let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ToolFormat};

/// Jamba: `<tool_calls>[{"name", "arguments"}, …]</tool_calls>`, `<|bom|>` / `<|eom|>` messages.
pub fn spec() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            tool_section_start: "<tool_calls>".into(),
            tool_section_end: "</tool_calls>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: "<|bom|><|assistant|>".into(),
        end_of_turn: vec!["<|eom|>".into()],
        ..Analysis::default()
    }
}

static JAMBA: DataParser = DataParser::new("jamba", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &["<tool_calls>", "</tool_calls>", "<|eom|>"];

/// The `jamba` parser for one request.
pub fn jamba(options: &ParseOptions) -> Parser {
    JAMBA.parser(options)
}

/// The grammar of one request for `jamba`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    JAMBA.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&JAMBA]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "jamba",
        family: "jamba",
        aliases: &["ai21-jamba"],
        models: &["jamba"],
        summary: "AI21 Jamba: <tool_calls>[{name, arguments}]</tool_calls>",
        sample: " Let me check.<tool_calls>[\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n]</tool_calls><|eom|>",
        sample_prompt_tail: "<|bom|><|user|> Weather in Paris?<|eom|><|bom|><|assistant|>",
        special_tokens: SPECIAL_TOKENS,
        build: jamba,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "jamba", build: constraint }
}
