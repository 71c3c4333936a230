//! From regions to messages: the message object transformers builds ([`MessageBuilder`]), and the
//! streaming parser this library builds ([`TemplateParser`]).

use std::sync::Arc;

use parser_core::{Calls, OutputParser, ParseOptions, Sink, Stage, Tools};

use super::ParseFailure;
use super::content::{apply_transform, is_python_space};
use super::template::{ClosedRegion, Field, RegionScanner, Regions, Spec};
use super::value::Value;

/// A region's value: its content parsed, then its transform applied.
pub(crate) fn field_value(field: &Field, region: &ClosedRegion<'_>) -> Result<Value, ParseFailure> {
    let value = field.content.parse(region.body)?;
    let Some(transform) = &field.transform else {
        return Ok(value);
    };
    if field.transform_each {
        let Value::Array(items) = value else {
            return Err(ParseFailure::new(format!(
                "field '{}': transform_each needs a list, got {}",
                field.name,
                value.type_name()
            )));
        };
        return items
            .into_iter()
            .map(|item| {
                let Value::Object(entries) = item else {
                    return Err(ParseFailure::new(format!(
                        "field '{}': transform_each needs a list of objects",
                        field.name
                    )));
                };
                let scope: Vec<(String, Value)> =
                    region.captures.iter().cloned().chain(entries).collect();
                apply_transform(transform, &scope)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    let mut scope = region.captures.to_vec();
    scope.push(("content".to_string(), value));
    apply_transform(transform, &scope)
}

/// Types the string arguments of tool calls by the request's tool schemas (transformers does the same
/// when `parse_response` is given `tools`); a repeated parameter collected into a list has each item
/// typed unless the parameter is an array.
pub(crate) fn type_arguments(value: &mut Value, tools: &Tools) {
    if let Value::Array(items) = value {
        items
            .iter_mut()
            .for_each(|item| type_arguments(item, tools));
        return;
    }
    let Some(Value::Object(function)) = object_entry_mut(value, "function") else {
        return;
    };
    let name = function
        .iter()
        .find(|(k, _)| k == "name")
        .and_then(|(_, v)| v.as_str().map(str::to_string));
    let Some(schema) = name.as_deref().and_then(|n| tools.get(n)) else {
        return;
    };
    let Some((_, Value::Object(arguments))) = function.iter_mut().find(|(k, _)| k == "arguments")
    else {
        return;
    };
    for (key, argument) in arguments.iter_mut() {
        let Some(ty) = schema.param(key) else {
            continue;
        };
        match argument {
            Value::String(raw) => *argument = typed(ty, raw),
            Value::Array(items) if !matches!(ty, parser_core::ValueType::Array) => {
                for item in items.iter_mut() {
                    if let Value::String(raw) = item {
                        *item = typed(ty, raw);
                    }
                }
            }
            _ => {}
        }
    }
}

fn typed(ty: &parser_core::ValueType, raw: &str) -> Value {
    Value::from_json(&ty.coerce(raw)).unwrap_or_else(|_| Value::from(raw))
}

fn object_entry_mut<'v>(value: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    match value {
        Value::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// Builds the message object exactly as transformers' `ResponseParser` does.
pub(crate) struct MessageBuilder<'t> {
    spec: Arc<Spec>,
    tools: Option<&'t Tools>,
    output: Value,
    failure: Option<ParseFailure>,
}

impl<'t> MessageBuilder<'t> {
    pub(crate) fn new(spec: &Arc<Spec>, tools: Option<&'t Tools>) -> Self {
        MessageBuilder {
            spec: Arc::clone(spec),
            tools,
            output: spec.defaults.clone(),
            failure: None,
        }
    }

    pub(crate) fn finish(self) -> Result<Value, ParseFailure> {
        if let Some(failure) = self.failure {
            return Err(failure);
        }
        let missing: Vec<&str> = self
            .spec
            .fields
            .iter()
            .filter(|f| !f.optional && self.output.get(&f.name).is_none())
            .map(|f| f.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(ParseFailure::new(format!(
                "required response_template fields missing from the output: {}",
                missing.join(", ")
            )));
        }
        // Empty values are dropped, except for keys the defaults set.
        let Value::Object(entries) = self.output else {
            return Ok(self.output);
        };
        let defaults = &self.spec.defaults;
        Ok(Value::Object(
            entries
                .into_iter()
                .filter(|(k, v)| defaults.get(k).is_some() || !v.is_empty())
                .collect(),
        ))
    }
}

impl Regions for MessageBuilder<'_> {
    fn open(&mut self, _field: usize) {}

    fn chunk(&mut self, _field: usize, _text: &str) {}

    fn close(&mut self, field: usize, region: ClosedRegion<'_>) {
        if self.failure.is_some() {
            return;
        }
        let spec = Arc::clone(&self.spec);
        let field = &spec.fields[field];
        let mut value = match field_value(field, &region) {
            Ok(value) => value,
            Err(failure) => {
                self.failure = Some(failure);
                return;
            }
        };
        if let Some(tools) = self.tools {
            type_arguments(&mut value, tools);
        }
        let merged = if let Some(join) = &field.join {
            let Value::String(text) = value else {
                self.failure = Some(ParseFailure::new(format!(
                    "field '{}': 'join' needs each region to parse to a string, got {}",
                    field.name,
                    value.type_name()
                )));
                return;
            };
            match self.output.get(&field.name) {
                Some(Value::String(previous)) => Value::String(format!("{previous}{join}{text}")),
                _ => Value::String(text),
            }
        } else if field.repeats {
            let mut list = match self.output.get(&field.name) {
                Some(Value::Array(items)) => items.clone(),
                _ => Vec::new(),
            };
            list.push(value);
            Value::Array(list)
        } else {
            value
        };
        self.output.insert(&field.name, merged);
    }
}

/// What a field is in an OpenAI message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Content,
    Reasoning,
    ToolCalls,
    /// Anything else (`role`, custom fields): part of the message object only.
    Other,
}

impl Role {
    fn of(name: &str) -> Role {
        match name {
            "content" => Role::Content,
            "reasoning_content" | "reasoning" | "thinking" => Role::Reasoning,
            "tool_calls" => Role::ToolCalls,
            _ => Role::Other,
        }
    }
}

/// The streaming parser a `response_template` gives: text regions stream as they arrive (stripped as
/// their content parser strips), tool calls are written whole when their region closes.
pub(crate) struct TemplateParser {
    scanner: RegionScanner,
    emitter: Emitter,
    stage: Stage,
}

struct Emitter {
    spec: Arc<Spec>,
    roles: Vec<Role>,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    /// Per field: whether a region of it has closed (a later one is preceded by `join`).
    closed_before: Vec<bool>,
    region: TextRegion,
}

/// The stripping state of the open text region.
#[derive(Default)]
struct TextRegion {
    /// Non-whitespace text has been written (leading whitespace is behind us).
    started: bool,
    /// The `join` separator has been written for this region.
    joined: bool,
    /// Whitespace held back: written if more text follows, dropped at the close.
    trailing: String,
}

impl TemplateParser {
    pub(crate) fn new(spec: &Arc<Spec>, options: &ParseOptions) -> TemplateParser {
        let mut emitter = Emitter {
            spec: Arc::clone(spec),
            roles: spec.fields.iter().map(|f| Role::of(&f.name)).collect(),
            calls: Calls::new(options),
            tools: options.tools.clone(),
            closed_before: vec![false; spec.fields.len()],
            region: TextRegion::default(),
        };
        let mut scanner =
            RegionScanner::new(spec, false).with_buffer_limit(options.limits.call_buffer);
        let reasoning = emitter.roles.iter().position(|r| *r == Role::Reasoning);
        match (&options.prompt_tail, options.stage, reasoning) {
            (Some(prompt), _, _) => {
                // The prompt's text is not the model's: it sets the state, nothing of it is written.
                let mut silent = Silent;
                scanner.prime(prompt, &mut silent);
            }
            (None, Some(Stage::Reasoning), Some(field)) => scanner.open_field(field),
            _ => {}
        }
        let stage = match scanner.current() {
            Some(field) if emitter.roles[field] == Role::Reasoning && scanner.is_opened() => {
                Stage::Reasoning
            }
            _ => Stage::Content,
        };
        emitter.region = TextRegion::default();
        TemplateParser {
            scanner,
            emitter,
            stage,
        }
    }
}

struct Silent;

impl Regions for Silent {
    fn open(&mut self, _field: usize) {}
    fn chunk(&mut self, _field: usize, _text: &str) {}
    fn close(&mut self, _field: usize, _region: ClosedRegion<'_>) {}
}

impl OutputParser for TemplateParser {
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        let mut regions = EmitTo {
            emitter: &mut self.emitter,
            out,
        };
        self.scanner.push(text, &mut regions);
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        let mut regions = EmitTo {
            emitter: &mut self.emitter,
            out,
        };
        self.scanner.finish(&mut regions);
    }

    fn initial_stage(&self) -> Stage {
        self.stage
    }
}

struct EmitTo<'a> {
    emitter: &'a mut Emitter,
    out: &'a mut dyn Sink,
}

impl EmitTo<'_> {
    fn write(&mut self, role: Role, text: &str) {
        match role {
            Role::Content => self.emitter.calls.content(self.out, text),
            Role::Reasoning if !text.is_empty() => self.out.reasoning(text),
            _ => {}
        }
    }

    fn write_join(&mut self, field: usize, role: Role) {
        let e = &mut *self.emitter;
        if e.region.joined || !e.closed_before[field] {
            return;
        }
        e.region.joined = true;
        if let Some(join) = e.spec.fields[field].join.clone() {
            self.write(role, &join);
        }
    }
}

impl Regions for EmitTo<'_> {
    fn open(&mut self, _field: usize) {
        self.emitter.region = TextRegion::default();
    }

    fn chunk(&mut self, field: usize, text: &str) {
        let role = self.emitter.roles[field];
        let spec = Arc::clone(&self.emitter.spec);
        let content = &spec.fields[field].content;
        if !matches!(role, Role::Content | Role::Reasoning) || !content.is_streamable_text() {
            return;
        }
        if !content.strips() {
            self.write_join(field, role);
            self.write(role, text);
            return;
        }
        let text = if self.emitter.region.started {
            text
        } else {
            text.trim_start_matches(is_python_space)
        };
        if text.is_empty() {
            return;
        }
        self.write_join(field, role);
        self.emitter.region.started = true;
        let body = text.trim_end_matches(is_python_space);
        if !body.is_empty() {
            let held = std::mem::take(&mut self.emitter.region.trailing);
            self.write(role, &held);
            self.write(role, body);
        }
        self.emitter.region.trailing.push_str(&text[body.len()..]);
    }

    fn close(&mut self, field: usize, region: ClosedRegion<'_>) {
        let role = self.emitter.roles[field];
        let spec = Arc::clone(&self.emitter.spec);
        let f = &spec.fields[field];
        match role {
            Role::Content | Role::Reasoning if f.content.is_streamable_text() => {
                self.write_join(field, role);
            }
            Role::Content | Role::Reasoning => {
                self.write_join(field, role);
                match field_value(f, &region) {
                    Ok(Value::String(text)) => self.write(role, &text),
                    Ok(other) => self.write(role, &other.to_json()),
                    Err(_) => self.write(role, region.body),
                }
            }
            Role::ToolCalls => match field_value(f, &region) {
                Ok(mut value) => {
                    if let Some(tools) = &self.emitter.tools {
                        type_arguments(&mut value, tools);
                    }
                    emit_calls(&value, &mut self.emitter.calls, self.out);
                }
                Err(failure) => {
                    tracing::debug!(field = %f.name, %failure, "tool-call region did not parse");
                    let name = region
                        .captures
                        .iter()
                        .find(|(k, _)| k == "name")
                        .and_then(|(_, v)| v.as_str());
                    match name {
                        // The model named the call: it stays, flagged, with the text it wrote.
                        Some(name) => {
                            let calls = &mut self.emitter.calls;
                            calls.start(self.out, name, None);
                            calls.args(self.out, region.body);
                            calls.end(self.out, false);
                        }
                        None => {
                            let raw = format!("{}{}{}", region.open, region.body, region.close);
                            self.emitter.calls.content(self.out, &raw);
                        }
                    }
                }
            },
            Role::Other => {}
        }
        self.emitter.closed_before[field] = true;
        self.emitter.region = TextRegion::default();
    }
}

/// Writes the calls of a `tool_calls` value: one call object or a list of them, each
/// `{"type": "function", "function": {"name", "arguments"}}` or flat `{"name", "arguments"}`.
pub(crate) fn emit_calls(value: &Value, calls: &mut Calls, out: &mut dyn Sink) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| emit_calls(item, calls, out)),
        Value::Object(_) => {
            let function = value
                .get("function")
                .filter(|f| matches!(f, Value::Object(_)));
            let body = function.unwrap_or(value);
            let name = body.get("name").and_then(Value::as_str).unwrap_or_default();
            let id = value.get("id").and_then(Value::as_str);
            let arguments = body
                .get("arguments")
                .or_else(|| body.get("parameters"))
                .cloned()
                .unwrap_or(Value::Object(Vec::new()));
            let (text, valid) = match &arguments {
                Value::Object(_) => (arguments.to_json(), true),
                // Arguments written as a JSON string holding an object.
                Value::String(s) => (
                    s.clone(),
                    matches!(Value::from_json(s), Ok(Value::Object(_))),
                ),
                other => (other.to_json(), false),
            };
            calls.start(out, name, id);
            calls.args(out, &text);
            calls.end(out, valid && !name.is_empty());
        }
        // Not a call at all: the text is kept as content.
        Value::String(text) => calls.content(out, text),
        Value::Null => {}
        other => calls.content(out, &other.to_json()),
    }
}
