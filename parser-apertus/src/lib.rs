//! swiss-ai Apertus's reasoning and tool-call format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `apertus` | Apertus-8B / 70B-Instruct-2509 | `<|inner_prefix|>…<|inner_suffix|>` written by the model | `<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>`: a JSON list of objects keyed by the function name |
//!
//! The wire format, as the model writes it after the generation prompt `<|assistant_start|>`:
//!
//! ```text
//! <|inner_prefix|>The user wants the weather.<|inner_suffix|>Let me check.<|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|><|assistant_end|>
//! ```
//!
//! The format fits the generic engine (`JSON_NATIVE` calls with the name as the key, in an array inside
//! section markers), so this crate is data: a [`parser_generic::spec::Analysis`] run by
//! [`parser_generic`]. `<|assistant_end|>` is dropped.
//!
//! # Stage
//! The template never opens reasoning: a `<|inner_prefix|>` at the very start of the output does.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_apertus::apertus(&ParseOptions::new()).parse(concat!(
//!     "<|inner_prefix|>The user wants the weather.<|inner_suffix|>Let me check.",
//!     "<|tools_prefix|>[{\"get_weather\": {\"city\": \"Paris\"}}]<|tools_suffix|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ReasoningMode, ToolFormat};

/// Apertus: `<|inner_prefix|>` reasoning, `<|tools_prefix|>[{"NAME": {args}}]<|tools_suffix|>` calls.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<|inner_prefix|>".into(),
            reasoning_end: "<|inner_suffix|>".into(),
            tool_section_start: "<|tools_prefix|>".into(),
            tool_section_end: "<|tools_suffix|>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            name_is_key: true,
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: "<|assistant_start|>".into(),
        turn_start: vec!["<|assistant_start|>".into()],
        end_of_turn: vec!["<|assistant_end|>".into()],
        ..Analysis::default()
    }
}

static APERTUS: DataParser = DataParser::new("apertus", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<|inner_prefix|>",
    "<|inner_suffix|>",
    "<|tools_prefix|>",
    "<|tools_suffix|>",
    "<|assistant_end|>",
    "<|assistant_start|>",
];

/// The `apertus` parser for one request.
pub fn apertus(options: &ParseOptions) -> Parser {
    APERTUS.parser(options)
}

/// The grammar of one request for `apertus`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    APERTUS.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&APERTUS]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "apertus",
        family: "apertus",
        aliases: &["apertus2509", "apertus-2509"],
        models: &["apertus"],
        summary: "swiss-ai Apertus: <|inner_prefix|> reasoning, <|tools_prefix|>[{NAME: {args}}]<|tools_suffix|> calls",
        sample: "<|inner_prefix|>The user wants the weather in Paris.<|inner_suffix|>Let me check.<|tools_prefix|>[{\"get_weather\": {\"city\": \"Paris\"}}]<|tools_suffix|>",
        sample_prompt_tail: "<|user_start|>Weather in Paris?<|user_end|><|assistant_start|>",
        special_tokens: SPECIAL_TOKENS,
        build: apertus,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "apertus", build: constraint }
}
