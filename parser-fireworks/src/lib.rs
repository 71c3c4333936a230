//! Fireworks' firefunction-v2 tool-call format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `firefunction-v2` | fireworks-ai/llama-3-firefunction-v2 | none | ` functools[{"name": …, "arguments": {…}}, …]` |
//!
//! The wire format, as the model writes it after the Llama 3 generation prompt
//! `<|start_header_id|>assistant<|end_header_id|>\n\n`:
//!
//! ```text
//!  functools[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]<|eot_id|>
//! ```
//!
//! The format fits the generic engine (`JSON_NATIVE` calls in an array after a section marker), so this
//! crate is data: a [`parser_generic::spec::Analysis`] run by [`parser_generic`], which also builds the grammar of a request from the same spec. `<|eot_id|>` and `<|eom_id|>` are dropped.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_fireworks::firefunction_v2(&ParseOptions::new())
//!     .parse(" functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]");
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ToolFormat};

/// firefunction-v2: ` functools[{"name", "arguments"}, …]`.
pub fn spec() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            tool_section_start: " functools".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: "<|start_header_id|>assistant<|end_header_id|>\n\n".into(),
        end_of_turn: vec!["<|eot_id|>".into(), "<|eom_id|>".into()],
        ..Analysis::default()
    }
}

static FIREFUNCTION_V2: DataParser = DataParser::new("firefunction-v2", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &["functools", "<|eot_id|>", "<|eom_id|>"];

/// The `firefunction-v2` parser for one request.
pub fn firefunction_v2(options: &ParseOptions) -> Parser {
    FIREFUNCTION_V2.parser(options)
}

/// The grammar of one request for `firefunction-v2`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    FIREFUNCTION_V2.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&FIREFUNCTION_V2]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "firefunction-v2",
        family: "fireworks",
        aliases: &["firefunction", "firefunction_v2"],
        models: &["firefunction"],
        summary: "firefunction-v2: ` functools[{name, arguments}]` calls",
        sample: " functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
        sample_prompt_tail: "<|start_header_id|>user<|end_header_id|>\n\nWeather in Paris?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        special_tokens: SPECIAL_TOKENS,
        build: firefunction_v2,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "firefunction-v2", build: constraint }
}
