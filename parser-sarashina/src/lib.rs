//! SoftBank Sarashina's tool-call format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `sarashina` | Sarashina2.2 instruct and later | none | a Python-literal list of dicts, `[{'name': …, 'arguments': {…}}]`, optionally after `<|tool_calls|>` |
//!
//! The wire format, as the model writes it after the generation prompt `<|assistant|>`:
//!
//! ```text
//! <|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Tokyo', 'metric': True}}]</s>
//! ```
//!
//! `<|tool_calls|>` is a special token, which servers often strip when they detokenize: a list that
//! opens the output is read as calls too. The arguments come out as JSON (`{"city": "Tokyo", "metric":
//! true}`). The format is a state machine ([`SarashinaToolParser`], module docs: why it is not data for
//! the generic engine), written on core's pieces and parser-generic's Python-literal reader.
//!
//! # Grammar
//! The constraint ([`constraint`], registered as the parser's `ConstraintEntry`) is a
//! [`FormatDescription`] from the same markers ([`format()`]): free text, then `<|tool_calls|>` and a
//! Python list of call dicts `{'name': 'NAME', 'arguments': {…}}`
//! ([`parser_core::constraint::CallName::PythonDict`]), each naming a request's tool, its arguments
//! a dict of the schema's properties whose values are Python literals of their schemas; lazy under
//! `auto`, triggered by `<|tool_calls|>`. Not written, though the parser reads them: a list without
//! the marker (a server that strips the special token does so after the grammar), one dict without a
//! list, JSON's `true` / `null`, the keys in the other order.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_sarashina::sarashina(&ParseOptions::new()).parse(
//!     "Let me check.<|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Tokyo', 'metric': True}}]",
//! );
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Tokyo", "metric": true}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod markers;
mod tool;

use std::borrow::Cow;

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ReasoningStart,
};
use parser_core::{Composed, Error, NoReasoning, ParseOptions, Parser, ParserEntry, Stage};

pub use tool::SarashinaToolParser;

use markers::*;

/// Sarashina: no reasoning; Python-literal lists of calls.
pub fn sarashina(options: &ParseOptions) -> Parser {
    let tools = SarashinaToolParser::new(options);
    let composed = Composed::new(NoReasoning, tools, Stage::Content, false);
    Parser::new(
        "sarashina",
        composed.buffer_limit(options.limits.call_buffer),
    )
}

/// Sarashina's format for constrained decoding, from the markers the parser reads: no reasoning;
/// `<|tool_calls|>` then a Python list of call dicts; `</s>` and `<|user|>` never in free text.
pub fn format() -> FormatDescription {
    FormatDescription {
        reasoning: None,
        calls: CallFormat {
            // The list's `]` closes the block: no closing marker.
            section: Some((Cow::Borrowed(TOOL_CALLS), Cow::Borrowed(""))),
            section_optional: false,
            call_begin: Cow::Borrowed(""),
            name: CallName::PythonDict {
                name: Cow::Borrowed(NAME_KEY),
                arguments: Cow::Borrowed(ARGUMENTS_KEY),
            },
            call_end: Cow::Borrowed(""),
            padding: Cow::Borrowed(""),
            separator: Cow::Borrowed(CALL_SEPARATOR),
            array: true,
        },
        reserved: RESERVED.iter().map(|&token| Cow::Borrowed(token)).collect(),
    }
}

/// The grammar of one request for `sarashina` (see the crate docs).
///
/// ```
/// use parser_core::constraint::{ConstraintRequest, ToolChoice};
/// use parser_core::{ParseOptions, Tools};
/// use std::sync::Arc;
///
/// let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
///     "name": "get_weather",
///     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
/// }}]))
/// .unwrap();
/// let options = ParseOptions::new().with_tools(Arc::new(tools));
/// let auto = parser_sarashina::constraint(&options, &ConstraintRequest::default()).unwrap();
/// assert!(auto.lazy);
/// assert_eq!(auto.triggers.words, ["<|tool_calls|>"]);
/// assert!(auto.lark().contains(r#""'get_weather'""#));
/// ```
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    format().constraint(options.tools.as_deref(), ReasoningStart::Off, request)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "sarashina", build: constraint }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "sarashina",
        family: "sarashina",
        aliases: &[],
        models: &["sarashina"],
        summary: "SoftBank Sarashina: Python-literal [{'name', 'arguments'}] lists, optionally after <|tool_calls|>",
        sample: "Let me check.<|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Tokyo', 'metric': True}}]</s>",
        sample_prompt_tail: "<|user|>東京の天気は？</s><|assistant|>",
        special_tokens: SPECIAL_TOKENS,
        build: sarashina,
    }
}
