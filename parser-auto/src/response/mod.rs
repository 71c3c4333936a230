//! Hugging Face response parsing: parsers built from the `response_template` (streamable regions) or
//! the legacy `response_schema` (regexes over the whole output) that a tokenizer config may carry.
//!
//! Both give two things: the message object transformers' `parse_response` returns, key for key
//! ([`ResponseTemplate::parse_response`], [`ResponseSchema::parse`]), and a streaming [`Parser`] that
//! writes deltas like every other parser of this library ([`ResponseFormat::parser`]).
//!
//! Where this library's parser departs from transformers, it is to keep the rules every parser here
//! follows (DESIGN §4.6): a tool-call region that does not parse becomes content, or an invalid call
//! when its name is known, instead of failing the whole message; a text field that appears twice keeps
//! both texts (transformers keeps the last).

mod buffered;
pub(crate) mod content;
mod message;
pub mod schema;
mod template;
pub mod value;

use std::fmt;

pub use schema::ResponseSchema;
pub use template::{MessageStream, ResponseTemplate};
pub use value::Value;

use parser_core::{Error, ParseOptions, Parser};

use crate::template::invalid;

/// The response format a tokenizer config declares.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ResponseFormat {
    /// `response_template`: regions found as the text streams.
    Template(ResponseTemplate),
    /// `response_schema`: regexes over the whole output, parsed when it ends.
    Schema(Box<ResponseSchema>),
}

impl ResponseFormat {
    /// The format a `tokenizer_config.json` text declares: its `response_template`, else its
    /// `response_schema`; `None` when it has neither. A declared format that does not compile is an
    /// error that says why.
    pub fn from_tokenizer_config(json: &str) -> Result<Option<ResponseFormat>, Error> {
        let root = Value::from_json(json)
            .map_err(|e| invalid(format!("tokenizer config is not JSON: {e}")))?;
        if let Some(spec) = root.get("response_template").filter(|v| **v != Value::Null) {
            return ResponseTemplate::from_json(&spec.to_json())
                .map(|t| Some(ResponseFormat::Template(t)));
        }
        if let Some(spec) = root.get("response_schema").filter(|v| **v != Value::Null) {
            return ResponseSchema::new(&spec.to_serde())
                .map(|s| Some(ResponseFormat::Schema(Box::new(s))));
        }
        Ok(None)
    }

    /// A parser for one response (see [`ResponseTemplate::parser`]).
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        match self {
            ResponseFormat::Template(template) => template.parser(options),
            ResponseFormat::Schema(schema) => schema.parser(options),
        }
    }
}

/// Why transformers would fail to parse an output (where `parse_response` raises).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseFailure {
    message: String,
}

impl ParseFailure {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ParseFailure {
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseFailure {}

impl ResponseSchema {
    /// A parser for one response. The schema's regexes need the whole output, so the message is
    /// written when the output ends (`finish`); an output the schema cannot parse is content.
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        Parser::new(
            "hf-response-schema",
            buffered::SchemaParser::new(self, options),
        )
    }
}

impl ResponseTemplate {
    /// A streaming parser for one response. The prompt (`options.prompt_tail`, the rendered prompt or
    /// its end) is read past its last `start_anchor`, so a prefilled `<think>` starts the output inside
    /// reasoning; without a prompt, `options.stage = Reasoning` does the same.
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        Parser::new(
            "hf-response-template",
            message::TemplateParser::new(&self.inner, options),
        )
    }
}
