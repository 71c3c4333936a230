//! Output formatting: messages and deltas as JSON, with their fields in a fixed, readable order.
//!
//! `serde_json::Value` objects sort their keys, which would print `content` before `reasoning` and a batch
//! case's `id` last. [`Json`] is a thin ordered layer on top: objects keep the order they are built in, and
//! every leaf (strings, numbers, tool-call arguments) is a `serde_json::Value` printed by serde_json.

use parser_auto::{Delta, ParsedMessage, ToolCall};
use serde_json::Value;

/// A JSON document whose objects keep their field order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// Any JSON value, printed by serde_json.
    Value(Value),
    /// An object, fields in this order.
    Object(Vec<(&'static str, Json)>),
    /// An array.
    Array(Vec<Json>),
    /// JSON text printed as it was written (keys in their order, numbers and escapes unchanged): the
    /// arguments of a tool call. Compact output drops only the whitespace between tokens.
    Raw(String),
}

impl Json {
    /// A JSON string.
    pub fn string(text: &str) -> Json {
        Json::Value(Value::String(text.to_owned()))
    }

    /// A string, or `null` when absent.
    pub fn optional(text: Option<&str>) -> Json {
        text.map_or(Json::Value(Value::Null), Json::string)
    }

    /// `null`.
    pub fn null() -> Json {
        Json::Value(Value::Null)
    }

    /// One line, no spaces (the wire form).
    pub fn compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    /// Indented by two spaces, as `serde_json::to_string_pretty` does.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write_pretty(&mut out, 0);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            // `Display` of a `Value` is its compact JSON text (and cannot fail).
            Json::Value(value) => out.push_str(&value.to_string()),
            Json::Raw(text) => push_without_whitespace(out, text),
            Json::Object(fields) => {
                out.push('{');
                for (at, (key, value)) in fields.iter().enumerate() {
                    if at > 0 {
                        out.push(',');
                    }
                    push_key(out, key);
                    out.push(':');
                    value.write_compact(out);
                }
                out.push('}');
            }
            Json::Array(items) => {
                out.push('[');
                for (at, item) in items.iter().enumerate() {
                    if at > 0 {
                        out.push(',');
                    }
                    item.write_compact(out);
                }
                out.push(']');
            }
        }
    }

    fn write_pretty(&self, out: &mut String, depth: usize) {
        let inner = "  ".repeat(depth + 1);
        match self {
            Json::Value(value) => {
                // `{:#}` is serde_json's pretty form; shift its inner lines to our depth. JSON strings
                // never hold a raw newline, so only structural line breaks are shifted.
                let text = format!("{value:#}");
                out.push_str(&text.replace('\n', &format!("\n{}", "  ".repeat(depth))));
            }
            // The text as written; its line breaks (never inside a JSON string) follow our indentation.
            Json::Raw(text) => out.push_str(
                &text
                    .trim()
                    .replace('\n', &format!("\n{}", "  ".repeat(depth))),
            ),
            Json::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Object(fields) => {
                out.push('{');
                for (at, (key, value)) in fields.iter().enumerate() {
                    out.push_str(if at > 0 { ",\n" } else { "\n" });
                    out.push_str(&inner);
                    push_key(out, key);
                    out.push_str(": ");
                    value.write_pretty(out, depth + 1);
                }
                out.push('\n');
                out.push_str(&"  ".repeat(depth));
                out.push('}');
            }
            Json::Array(items) => {
                out.push('[');
                for (at, item) in items.iter().enumerate() {
                    out.push_str(if at > 0 { ",\n" } else { "\n" });
                    out.push_str(&inner);
                    item.write_pretty(out, depth + 1);
                }
                out.push('\n');
                out.push_str(&"  ".repeat(depth));
                out.push(']');
            }
        }
    }
}

/// `text` (valid JSON) without the whitespace between its tokens; strings are copied byte for byte.
fn push_without_whitespace(out: &mut String, text: &str) {
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
}

fn push_key(out: &mut String, key: &str) {
    out.push_str(&Value::String(key.to_owned()).to_string());
}

/// The fields of a message, in order: `reasoning`, `content`, `tool_calls`.
pub fn message_fields(message: &ParsedMessage) -> Vec<(&'static str, Json)> {
    vec![
        ("reasoning", Json::optional(message.reasoning.as_deref())),
        ("content", Json::optional(message.content.as_deref())),
        (
            "tool_calls",
            Json::Array(message.tool_calls.iter().map(call_json).collect()),
        ),
    ]
}

/// A message as a JSON object.
pub fn message_json(message: &ParsedMessage) -> Json {
    Json::Object(message_fields(message))
}

/// One call: `id`, `name`, `arguments` (a JSON value when valid, else the raw text as a string), `valid`.
pub fn call_json(call: &ToolCall) -> Json {
    // Valid arguments print as the model wrote them (never re-serialised: big integers, key order and
    // escapes survive); anything else as a string holding the raw text.
    let is_json = serde_json::from_str::<Value>(&call.arguments).is_ok();
    let arguments = if call.valid && is_json {
        Json::Raw(call.arguments.clone())
    } else {
        Json::string(&call.arguments)
    };
    Json::Object(vec![
        ("id", Json::string(&call.id)),
        ("name", Json::string(&call.name)),
        ("arguments", arguments),
        ("valid", Json::Value(Value::Bool(call.valid))),
    ])
}

/// One streaming delta as a one-key object, or `None` for an empty text delta.
pub fn delta_json(delta: Delta<'_>) -> Option<Json> {
    let index = |index: usize| Json::Value(Value::from(index));
    let json = match delta {
        Delta::Reasoning("") | Delta::Content("") => return None,
        Delta::ToolCallArguments { fragment: "", .. } => return None,
        Delta::Reasoning(text) => Json::Object(vec![("reasoning", Json::string(text))]),
        Delta::Content(text) => Json::Object(vec![("content", Json::string(text))]),
        Delta::ToolCallStart {
            index: at,
            id,
            name,
        } => Json::Object(vec![(
            "tool_call_start",
            Json::Object(vec![
                ("index", index(at)),
                ("id", Json::string(id)),
                ("name", Json::string(name)),
            ]),
        )]),
        Delta::ToolCallArguments {
            index: at,
            fragment,
        } => Json::Object(vec![(
            "tool_call_arguments",
            Json::Object(vec![
                ("index", index(at)),
                ("fragment", Json::string(fragment)),
            ]),
        )]),
        Delta::ToolCallEnd { index: at, valid } => Json::Object(vec![(
            "tool_call_end",
            Json::Object(vec![
                ("index", index(at)),
                ("valid", Json::Value(Value::Bool(valid))),
            ]),
        )]),
    };
    Some(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> ParsedMessage {
        ParsedMessage {
            reasoning: Some("Hmm, «Paris»".to_owned()),
            content: None,
            tool_calls: vec![
                ToolCall {
                    id: "call_1".to_owned(),
                    name: "get_weather".to_owned(),
                    arguments: r#"{"city": "Paris", "days": [1, 2]}"#.to_owned(),
                    valid: true,
                },
                ToolCall {
                    id: "call_2".to_owned(),
                    name: "broken".to_owned(),
                    arguments: r#"{"city": "Par"#.to_owned(),
                    valid: false,
                },
            ],
        }
    }

    #[test]
    fn arguments_print_as_the_model_wrote_them() {
        let arguments =
            r#"{"zeta": 1, "alpha": 12345678901234567890123, "u": "caf\u00e9", "s": "a b\n"}"#;
        let message = ParsedMessage {
            tool_calls: vec![ToolCall {
                id: "call_1".to_owned(),
                name: "f".to_owned(),
                arguments: arguments.to_owned(),
                valid: true,
            }],
            ..ParsedMessage::default()
        };
        let json = message_json(&message);
        let compact = json.compact();
        assert!(
            compact.contains(r#""arguments":{"zeta":1,"alpha":12345678901234567890123,"u":"caf\u00e9","s":"a b\n"}"#),
            "{compact}"
        );
        let pretty = json.pretty();
        assert!(pretty.contains(arguments), "{pretty}");
        // What is printed is JSON whose value is the arguments' value.
        let reparsed: Value = serde_json::from_str(&compact).unwrap();
        assert_eq!(
            reparsed["tool_calls"][0]["arguments"],
            serde_json::from_str::<Value>(arguments).unwrap()
        );
    }

    #[test]
    fn compact_keeps_field_order_and_unicode() {
        let text = message_json(&sample()).compact();
        assert!(
            text.starts_with(r#"{"reasoning":"Hmm, «Paris»","content":null,"tool_calls":[{"id""#)
        );
        assert!(text.contains(r#""arguments":"{\"city\": \"Par","valid":false"#));
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["tool_calls"][0]["arguments"],
            json!({"city": "Paris", "days": [1, 2]})
        );
    }

    #[test]
    fn pretty_is_the_same_document() {
        let json = message_json(&sample());
        let pretty: Value = serde_json::from_str(&json.pretty()).unwrap();
        let compact: Value = serde_json::from_str(&json.compact()).unwrap();
        assert_eq!(pretty, compact);
        // Arguments are printed as the model wrote them, in pretty output too.
        assert!(
            json.pretty()
                .contains("\n      \"arguments\": {\"city\": \"Paris\", \"days\": [1, 2]},"),
            "{}",
            json.pretty()
        );
        assert_eq!(Json::Array(vec![]).pretty(), "[]");
    }

    #[test]
    fn deltas_are_one_key_objects() {
        let start = Delta::ToolCallStart {
            index: 0,
            id: "call_1",
            name: "f",
        };
        assert_eq!(
            delta_json(start).map(|json| json.compact()).as_deref(),
            Some(r#"{"tool_call_start":{"index":0,"id":"call_1","name":"f"}}"#)
        );
        assert_eq!(delta_json(Delta::Content("")), None);
    }
}
