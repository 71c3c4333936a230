//! The parser a legacy `response_schema` gives. Its regexes run over the whole output, so nothing can
//! be decided before the output ends: the text is kept and parsed at `finish`.
//!
//! Up to the buffer limit ([`parser_core::Limits::call_buffer`]): an output longer than that is not
//! parsed with the schema; it streams as content from the byte where it passed the limit, and what was
//! kept is released at that moment. The decision depends only on the length, so every chunking agrees.

use std::sync::Arc;

use parser_core::{Calls, OutputParser, ParseOptions, Sink, Stage, Tools};

use super::ResponseSchema;
use super::message::{emit_calls, type_arguments};
use super::value::Value;

pub(crate) struct SchemaParser {
    schema: ResponseSchema,
    text: String,
    /// The output passed the buffer limit: content from now on.
    spilled: bool,
    calls: Calls,
    tools: Option<Arc<Tools>>,
}

impl SchemaParser {
    pub(crate) fn new(schema: &ResponseSchema, options: &ParseOptions) -> SchemaParser {
        SchemaParser {
            schema: schema.clone(),
            text: String::new(),
            spilled: false,
            calls: Calls::new(options),
            tools: options.tools.clone(),
        }
    }
}

impl OutputParser for SchemaParser {
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        if !self.spilled && self.text.len() + text.len() > self.calls.buffer_limit() {
            tracing::debug!("output over the buffer limit: response_schema not applied, content");
            self.spilled = true;
            let kept = std::mem::take(&mut self.text);
            self.calls.content(out, &kept);
        }
        if self.spilled {
            self.calls.content(out, text);
        } else {
            self.text.push_str(text);
        }
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        if self.spilled {
            return;
        }
        let text = std::mem::take(&mut self.text);
        let message = match self.schema.parse(&text) {
            Ok(message) => Value::from_serde(&message),
            Err(err) => {
                // The schema does not describe this output: it is all content, as written.
                tracing::debug!(%err, "response_schema did not parse the output");
                self.calls.content(out, &text);
                return;
            }
        };
        for key in ["reasoning_content", "reasoning", "thinking"] {
            if let Some(reasoning) = message.get(key).and_then(Value::as_str)
                && !reasoning.is_empty()
            {
                out.reasoning(reasoning);
                break;
            }
        }
        if let Some(content) = message.get("content").and_then(Value::as_str) {
            self.calls.content(out, content);
        }
        if let Some(calls) = message.get("tool_calls") {
            let mut calls_value = calls.clone();
            if let Some(tools) = &self.tools {
                type_arguments(&mut calls_value, tools);
            }
            emit_calls(&calls_value, &mut self.calls, out);
        }
    }

    fn initial_stage(&self) -> Stage {
        Stage::Content
    }
}
