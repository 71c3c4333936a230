//! The xgrammar structural tag of a request (`{"type": "structural_tag", "format": …}`).
//!
//! Each call is a `tag` whose `begin` holds the framing up to the arguments (with the name), whose
//! content is the arguments' `json_schema`, and whose `end` closes the call; the calls are
//! `triggered_tags` (free text, then calls) for `auto`, and `tags_with_separator` with `at_least_one`
//! for `required` or a named function; `stop_after_first` when parallel calls are off. Reasoning is a
//! `tag` around `any_text` before the rest.
//!
//! A section of calls in a JSON array ([`CallFormat::array`](super::CallFormat::array)) is a `tag` whose
//! `begin` and `end` hold the brackets (`[TOOL_CALLS][`, `]`), triggered by the section's opener. Bare
//! calls ([`FormatDescription::is_bare`]) have nothing to trigger on: `auto` is an `or` of the calls and
//! a `regex` of text that cannot open one.
//!
//! A call with tagged parameters ([`CallName::Parameters`]) is a `tag` whose content is a `sequence` of
//! one `tag` per declared property, in declared order (an optional property in an `optional`): the
//! structural tag, unlike the grammars, does not let the parameters come in any order. Each value is
//! its `json_schema`, or for a raw string `any_text`, a `regex` (length bounds) or an `or` of its
//! values.

use serde_json::{Value, json};

use super::{
    CallName, FormatDescription, ParameterTags, ReasoningStart, Shape, ValueForm, counted_except,
    properties, value_form, value_stops,
};

pub(crate) fn render(format: &FormatDescription, shape: &Shape<'_>) -> Value {
    let calls = &format.calls;
    let tags: Vec<Value> = shape
        .tools
        .iter()
        .map(|tool| {
            let schema = tool.parameters().clone();
            let arguments = json!({"type": "json_schema", "json_schema": schema});
            match &calls.name {
                CallName::JsonFields {
                    name,
                    arguments: key,
                } => json!({
                    "type": "tag",
                    "begin": format!(
                        "{}{}{{{}: {}, {}: ",
                        calls.call_begin,
                        calls.padding,
                        quoted(name),
                        quoted(&tool.name),
                        quoted(key)
                    ),
                    "content": arguments,
                    "end": format!("}}{}{}", calls.padding, calls.call_end),
                }),
                CallName::NameAsKey => json!({
                    "type": "tag",
                    "begin": format!(
                        "{}{}{{{}: ",
                        calls.call_begin,
                        calls.padding,
                        quoted(&tool.name)
                    ),
                    "content": arguments,
                    "end": format!("}}{}{}", calls.padding, calls.call_end),
                }),
                CallName::Tagged {
                    prefix,
                    index_separator,
                    suffix,
                } => {
                    let begin =
                        format!("{}{}{prefix}{}", calls.call_begin, calls.padding, tool.name);
                    let content = match index_separator {
                        Some(separator) => json!({"type": "sequence", "elements": [
                            {"type": "const_string", "value": separator},
                            {"type": "regex", "pattern": "[0-9]+"},
                            {"type": "const_string", "value": suffix},
                            arguments,
                        ]}),
                        None => json!({"type": "sequence", "elements": [
                            {"type": "const_string", "value": suffix},
                            arguments,
                        ]}),
                    };
                    json!({
                        "type": "tag",
                        "begin": begin,
                        "content": content,
                        "end": format!("{}{}", calls.padding, calls.call_end),
                    })
                }
                CallName::Parameters {
                    prefix,
                    suffix,
                    parameters,
                    end,
                } => {
                    let except =
                        counted_except(parameters, &value_stops(parameters, &format.markers()));
                    let begin = if prefix.is_empty() {
                        format!("{}{}{suffix}", calls.call_begin, tool.name)
                    } else {
                        format!(
                            "{}{}{prefix}{}{suffix}",
                            calls.call_begin, calls.padding, tool.name
                        )
                    };
                    let elements: Vec<Value> = properties(tool)
                        .into_iter()
                        .map(|(name, schema, required)| {
                            let element = parameter(parameters, name, schema, &except);
                            if required {
                                element
                            } else {
                                json!({"type": "optional", "content": element})
                            }
                        })
                        .collect();
                    let content = if elements.is_empty() {
                        json!({"type": "const_string", "value": ""})
                    } else {
                        json!({"type": "sequence", "elements": elements})
                    };
                    let end = if end.is_empty() {
                        format!("{}{}", parameters.padding, calls.call_end)
                    } else {
                        format!(
                            "{}{end}{}{}",
                            parameters.padding, calls.padding, calls.call_end
                        )
                    };
                    json!({"type": "tag", "begin": begin, "content": content, "end": end})
                }
                CallName::Enclosed {
                    prefix,
                    open,
                    close,
                } => json!({
                    "type": "tag",
                    "begin": format!(
                        "{}{}{prefix}{}{open}",
                        calls.call_begin, calls.padding, tool.name
                    ),
                    "content": arguments,
                    "end": format!("{close}{}{}", calls.padding, calls.call_end),
                }),
            }
        })
        .collect();
    let free = || json!({"type": "any_text"});
    // A bare format's text cannot open a call: the parser would read one.
    let opening = format
        .call_opening()
        .map(|c| super::grammar::regex_escape(&c.to_string()));
    let bare_text = json!({"type": "regex", "pattern": format!(
        r"\s*([^\s{}][\s\S]*)?",
        opening.unwrap_or_default()
    )});
    let answer = match shape.json {
        Some(schema) => json!({"type": "json_schema", "json_schema": schema}),
        None if format.is_bare() => bare_text.clone(),
        None => free(),
    };
    let rest = if tags.is_empty() {
        answer
    } else {
        let stop_after_first = !shape.parallel;
        match &calls.section {
            None if shape.required => json!({
                "type": "tags_with_separator",
                "tags": tags,
                "separator": calls.separator,
                "at_least_one": true,
                "stop_after_first": stop_after_first,
            }),
            // Bare calls (no marker to trigger on): the calls, or text that cannot open one.
            None if format.is_bare() => json!({"type": "or", "elements": [
                {
                    "type": "tags_with_separator",
                    "tags": tags,
                    "separator": calls.separator,
                    "at_least_one": true,
                    "stop_after_first": stop_after_first,
                },
                bare_text,
            ]}),
            None => json!({
                "type": "triggered_tags",
                "triggers": [calls.call_begin],
                "tags": tags,
                "at_least_one": false,
                "stop_after_first": stop_after_first,
            }),
            Some((opener, closer)) => {
                // The section's opener triggers it; an array's brackets stand right inside its markers.
                let trigger = opener.to_string();
                let (begin, end) = if calls.array {
                    (format!("{opener}["), format!("]{closer}"))
                } else {
                    (opener.to_string(), closer.to_string())
                };
                let section = json!({
                    "type": "tag",
                    "begin": begin,
                    "content": {
                        "type": "tags_with_separator",
                        "tags": tags,
                        "separator": calls.separator,
                        "at_least_one": true,
                        "stop_after_first": stop_after_first,
                    },
                    "end": end,
                });
                match (shape.required, calls.section_optional) {
                    (true, false) => section,
                    (true, true) => json!({"type": "or", "elements": [
                        section,
                        {
                            "type": "tags_with_separator",
                            "tags": tags,
                            "separator": calls.separator,
                            "at_least_one": true,
                            "stop_after_first": stop_after_first,
                        },
                    ]}),
                    (false, false) => json!({
                        "type": "triggered_tags",
                        "triggers": [trigger],
                        "tags": [section],
                        "at_least_one": false,
                        "stop_after_first": true,
                    }),
                    (false, true) => {
                        let mut all = vec![section];
                        all.extend(tags.iter().cloned());
                        json!({
                            "type": "triggered_tags",
                            "triggers": [trigger, calls.call_begin.to_string()],
                            "tags": all,
                            "at_least_one": false,
                            "stop_after_first": stop_after_first,
                        })
                    }
                }
            }
        }
    };
    let rest = match (shape.json, shape.tools.is_empty(), shape.required) {
        (Some(_), false, false) => {
            // Content as JSON, or calls.
            let schema = shape.json.cloned().unwrap_or(Value::Null);
            json!({"type": "or", "elements": [
                {"type": "json_schema", "json_schema": schema},
                rest,
            ]})
        }
        _ => rest,
    };
    let format = match (&format.reasoning, shape.start) {
        (Some(reasoning), ReasoningStart::Inside) => json!({"type": "sequence", "elements": [
            {"type": "tag", "begin": "", "content": free(), "end": reasoning.close},
            rest,
        ]}),
        (Some(reasoning), ReasoningStart::Optional) => json!({"type": "sequence", "elements": [
            {"type": "optional", "content":
                {"type": "tag", "begin": reasoning.open, "content": free(), "end": reasoning.close}},
            rest,
        ]}),
        _ => rest,
    };
    json!({"type": "structural_tag", "format": format})
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// One parameter as a `tag`: its name and value opener in `begin`, its value, its closer in `end`.
fn parameter(tags: &ParameterTags, name: &str, schema: &Value, except: &[char]) -> Value {
    let space = if tags.space_before_value {
        tags.padding.as_ref()
    } else {
        ""
    };
    let key = format!(
        "{}{}{name}{}{space}",
        tags.padding, tags.key_open, tags.key_close
    );
    let raw = |content: Value| {
        json!({
            "type": "tag",
            "begin": format!("{key}{}{}", tags.string_open, tags.framing),
            "content": content,
            "end": format!("{}{}", tags.framing, tags.value_close),
        })
    };
    match value_form(schema) {
        ValueForm::Json(schema) => json!({
            "type": "tag",
            "begin": format!("{key}{}{}", tags.json_open, tags.framing),
            "content": {"type": "json_schema", "json_schema": schema.as_ref()},
            "end": format!("{}{}", tags.framing, tags.value_close),
        }),
        ValueForm::OneOf(values) => raw(json!({"type": "or", "elements": values
            .iter()
            .map(|value| json!({"type": "const_string", "value": value}))
            .collect::<Vec<_>>()})),
        ValueForm::Counted { min, max } => {
            let class: String = except
                .iter()
                .map(|c| super::grammar::regex_escape(&c.to_string()))
                .collect();
            let pattern = format!("[^{class}]{}", super::grammar::repetition(min, max));
            raw(json!({"type": "regex", "pattern": pattern}))
        }
        ValueForm::Free => raw(json!({"type": "any_text"})),
    }
}
