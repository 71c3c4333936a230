//! What a `response_template` region's text becomes: its content parser (`text`, `int`, `float`,
//! `bool`, `json`, `xml-inline`, `kv-lines`) and its `transform`, as transformers defines them.

use regex::Regex;

use super::ParseFailure;
use super::value::Value;
use crate::template::invalid;
pub(crate) use crate::template::python_isspace as is_python_space;
use parser_core::Error;

/// A content parser with its arguments, checked and compiled once.
#[derive(Clone, Debug)]
pub(crate) enum Content {
    /// The text, stripped unless `strip: false`.
    Text { strip: bool },
    /// A Python `int(...)` of the stripped text.
    Int { strip: bool },
    /// A Python `float(...)` of the stripped text.
    Float { strip: bool },
    /// `true` for `true`/`1` (any case), else `false`.
    Bool { strip: bool },
    /// JSON, with the dialect knobs models need.
    Json(JsonDialect),
    /// Tags matched by a regex with `key` and `value` groups, into an object.
    XmlInline {
        tag: Regex,
        value: Option<Box<Content>>,
        merge_duplicates: bool,
    },
    /// `key<sep>value` lines, into an object.
    KvLines {
        line_sep: String,
        kv_sep: String,
        value: Option<Box<Content>>,
        strip: bool,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct JsonDialect {
    strip: bool,
    unquoted_keys: bool,
    string_delims: Vec<(String, String, Regex)>,
    allow_non_json: bool,
}

/// Matches a bare key after `{` or `,`; the delimiter is captured because the regex crate has no
/// look-behind (transformers writes `(?<=[{,])(\w+):`).
fn unquoted_key() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"([{,])(\w+):").expect("a valid pattern"))
}

const LAX_OPEN: char = '\u{1}';
const LAX_CLOSE: char = '\u{2}';

impl Content {
    /// The parser named `name` with `args` (a JSON object or absent).
    pub(crate) fn new(
        scope: &str,
        name: &str,
        args: Option<&serde_json::Value>,
    ) -> Result<Content, Error> {
        let empty = serde_json::Map::new();
        let args = match args {
            None => &empty,
            Some(serde_json::Value::Object(map)) => map,
            Some(_) => {
                return Err(invalid(format!(
                    "{scope}: 'content_args' must be an object"
                )));
            }
        };
        let flag = |key: &str, default: bool| -> Result<bool, Error> {
            match args.get(key) {
                None => Ok(default),
                Some(serde_json::Value::Bool(b)) => Ok(*b),
                Some(other) => Err(invalid(format!(
                    "{scope}: content_args.{key} must be a bool, got {other}"
                ))),
            }
        };
        let text = |key: &str, default: &str| -> Result<String, Error> {
            match args.get(key) {
                None => Ok(default.to_string()),
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(invalid(format!(
                    "{scope}: content_args.{key} must be a string, got {other}"
                ))),
            }
        };
        let value_parser = |args: &serde_json::Map<String, serde_json::Value>| -> Result<Option<Box<Content>>, Error> {
            match args.get("value_parser") {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::Object(vp)) => {
                    let name = vp.get("name").and_then(|n| n.as_str()).unwrap_or("text");
                    Ok(Some(Box::new(Content::new(
                        &format!("{scope} value_parser"),
                        name,
                        vp.get("args"),
                    )?)))
                }
                Some(_) => Err(invalid(format!("{scope}: value_parser must be an object"))),
            }
        };
        let strip = flag("strip", true)?;
        Ok(match name {
            "text" => Content::Text { strip },
            "int" => Content::Int { strip },
            "float" => Content::Float { strip },
            "bool" => Content::Bool { strip },
            "json" => {
                let mut string_delims = Vec::new();
                if let Some(delims) = args.get("string_delims") {
                    let pairs = delims.as_array().ok_or_else(|| {
                        invalid(format!(
                            "{scope}: string_delims must be a list of [open, close] pairs"
                        ))
                    })?;
                    for pair in pairs {
                        let (Some(open), Some(close)) = (
                            pair.get(0).and_then(|v| v.as_str()),
                            pair.get(1).and_then(|v| v.as_str()),
                        ) else {
                            return Err(invalid(format!(
                                "{scope}: string_delims must be a list of [open, close] pairs"
                            )));
                        };
                        let pattern =
                            format!("(?s){}(.*?){}", regex::escape(open), regex::escape(close));
                        let re = build_regex(&pattern)
                            .map_err(|e| regex_error(scope, &pattern, &e.to_string()))?;
                        string_delims.push((open.to_string(), close.to_string(), re));
                    }
                }
                Content::Json(JsonDialect {
                    strip,
                    unquoted_keys: flag("unquoted_keys", false)?,
                    string_delims,
                    allow_non_json: flag("allow_non_json", false)?,
                })
            }
            "xml-inline" => {
                let pattern = match args.get("tag_pattern") {
                    Some(serde_json::Value::String(p)) => p,
                    _ => {
                        return Err(invalid(format!(
                            "{scope}: xml-inline needs a 'tag_pattern' string in content_args"
                        )));
                    }
                };
                let tag = compile_python_regex(&format!("{scope} tag_pattern"), pattern)?;
                if !tag.capture_names().any(|n| n == Some("key")) {
                    return Err(invalid(format!(
                        "{scope}: xml-inline tag_pattern must have a named group 'key': {pattern}"
                    )));
                }
                Content::XmlInline {
                    tag,
                    value: value_parser(args)?,
                    merge_duplicates: flag("merge_duplicates", false)?,
                }
            }
            "kv-lines" => Content::KvLines {
                line_sep: text("line_sep", "\n")?,
                kv_sep: text("kv_sep", ":")?,
                value: value_parser(args)?,
                strip,
            },
            other => {
                return Err(invalid(format!(
                    "{scope}: unknown content parser '{other}' (available: bool, float, int, json, \
                     kv-lines, text, xml-inline)"
                )));
            }
        })
    }

    /// Whether the region's text is its value (up to stripping), so chunks can be streamed as they come.
    pub(crate) fn is_streamable_text(&self) -> bool {
        matches!(self, Content::Text { .. })
    }

    /// Whether the text is stripped.
    pub(crate) fn strips(&self) -> bool {
        match self {
            Content::Text { strip }
            | Content::Int { strip }
            | Content::Float { strip }
            | Content::Bool { strip }
            | Content::KvLines { strip, .. } => *strip,
            Content::Json(dialect) => dialect.strip,
            Content::XmlInline { .. } => false,
        }
    }

    /// Parses a region's whole text.
    pub(crate) fn parse(&self, text: &str) -> Result<Value, ParseFailure> {
        match self {
            Content::Text { strip } => Ok(Value::String(maybe_strip(text, *strip).to_string())),
            Content::Int { strip } => python_int(maybe_strip(text, *strip))
                .map(|n| Value::Number(n.into()))
                .ok_or_else(|| ParseFailure::new(format!("int: invalid literal {text:?}"))),
            Content::Float { strip } => python_float(maybe_strip(text, *strip))
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| ParseFailure::new(format!("float: cannot represent {text:?}"))),
            Content::Bool { strip } => {
                let t = maybe_strip(text, *strip).to_lowercase();
                Ok(Value::Bool(t == "true" || t == "1"))
            }
            Content::Json(dialect) => dialect.parse(text),
            Content::XmlInline {
                tag,
                value,
                merge_duplicates,
            } => {
                let mut out = Value::Object(Vec::new());
                for caps in tag.captures_iter(text) {
                    let Some(key) = caps.name("key") else {
                        continue;
                    };
                    let raw = caps.name("value").map(|m| m.as_str());
                    let parsed = match (raw, value) {
                        (None, _) if tag.capture_names().any(|n| n == Some("value")) => Value::Null,
                        (raw, None) => Value::String(raw.unwrap_or_default().to_string()),
                        (raw, Some(parser)) => parser.parse(raw.unwrap_or_default())?,
                    };
                    insert_merging(&mut out, key.as_str(), parsed, *merge_duplicates);
                }
                Ok(out)
            }
            Content::KvLines {
                line_sep,
                kv_sep,
                value,
                strip,
            } => {
                let mut out = Value::Object(Vec::new());
                let lines: Box<dyn Iterator<Item = &str>> = if line_sep.is_empty() {
                    Box::new(std::iter::once(text))
                } else {
                    Box::new(text.split(line_sep.as_str()))
                };
                for line in lines {
                    let line = maybe_strip(line, *strip);
                    if line.is_empty() || kv_sep.is_empty() {
                        continue;
                    }
                    let Some((k, v)) = line.split_once(kv_sep.as_str()) else {
                        continue;
                    };
                    let (k, v) = (maybe_strip(k, *strip), maybe_strip(v, *strip));
                    let parsed = match value {
                        Some(parser) => parser.parse(v)?,
                        None => Value::String(v.to_string()),
                    };
                    out.insert(k, parsed);
                }
                Ok(out)
            }
        }
    }
}

fn insert_merging(out: &mut Value, key: &str, value: Value, merge: bool) {
    if merge && let Some(existing) = out.get(key) {
        let merged = match existing.clone() {
            Value::Array(mut items) => {
                items.push(value);
                Value::Array(items)
            }
            single => Value::Array(vec![single, value]),
        };
        out.insert(key, merged);
    } else {
        out.insert(key, value);
    }
}

impl JsonDialect {
    fn parse(&self, text: &str) -> Result<Value, ParseFailure> {
        if !self.string_delims.is_empty() && text.contains([LAX_OPEN, LAX_CLOSE]) {
            return Err(ParseFailure::new(
                "json: input contains reserved sentinel characters (\\x01/\\x02)",
            ));
        }
        let mut working = text.to_string();
        let mut captured: Vec<String> = Vec::new();
        for (_, _, re) in &self.string_delims {
            let mut replaced = String::with_capacity(working.len());
            let mut last = 0;
            for caps in re.captures_iter(&working) {
                let (Some(all), Some(inner)) = (caps.get(0), caps.get(1)) else {
                    continue;
                };
                replaced.push_str(&working[last..all.start()]);
                replaced.push(LAX_OPEN);
                replaced.push_str(&captured.len().to_string());
                replaced.push(LAX_CLOSE);
                captured.push(inner.as_str().to_string());
                last = all.end();
            }
            replaced.push_str(&working[last..]);
            working = replaced;
        }
        if self.unquoted_keys {
            working = unquoted_key()
                .replace_all(&working, "$1\"$2\":")
                .into_owned();
        }
        for (i, s) in captured.iter().enumerate() {
            let placeholder = format!("{LAX_OPEN}{i}{LAX_CLOSE}");
            let quoted = serde_json::to_string(s).unwrap_or_default();
            working = working.replace(&placeholder, &quoted);
        }
        match Value::from_json(&working) {
            Ok(value) => Ok(value),
            Err(_) if self.allow_non_json => {
                Ok(Value::String(maybe_strip(text, self.strip).to_string()))
            }
            Err(e) => Err(ParseFailure::new(format!(
                "json: could not parse the region as JSON ({e}): {text:?}"
            ))),
        }
    }
}

/// Python's `str.strip()`: Unicode whitespace plus the ASCII separators `\x1c`–`\x1f`.
pub(crate) fn python_strip(text: &str) -> &str {
    text.trim_matches(is_python_space)
}

fn maybe_strip(text: &str, strip: bool) -> &str {
    if strip { python_strip(text) } else { text }
}

/// Python's `int(text)` for what fits in 64 bits: surrounding whitespace, a sign, `_` between digits.
fn python_int(text: &str) -> Option<i64> {
    let t = python_strip(text);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// Python's `float(text)` for finite values (`inf`/`nan` have no JSON form).
fn python_float(text: &str) -> Option<f64> {
    let t = python_strip(text);
    let value: f64 = t.replace('_', "").parse().ok()?;
    value.is_finite().then_some(value)
}

/// Most bytes one response-format regex may compile to (the regex crate's `size_limit`, and the NFA
/// size limit of the automata built from the same pattern). The patterns of real tokenizer configs
/// compile to a few kilobytes; this refuses `(a{1000}){1000}`-style patterns before they take memory.
pub(crate) const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Most bytes of the lazy DFA cache of one response-format regex (the regex crate's `dfa_size_limit`).
pub(crate) const REGEX_DFA_SIZE_LIMIT: usize = 2 << 20;

/// Compiles `pattern` with the size limits above.
pub(crate) fn build_regex(pattern: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .build()
}

/// Compiles a pattern written for Python's `regex` module with `DOTALL`, as transformers compiles
/// response-template patterns, or explains why the regex crate cannot run it.
pub(crate) fn compile_python_regex(scope: &str, pattern: &str) -> Result<Regex, Error> {
    let translated = translate_python_regex(pattern);
    build_regex(&format!("(?s){translated}"))
        .map_err(|e| regex_error(scope, pattern, &e.to_string()))
}

/// `\Z` (end of text in Python) is `\z` in the regex crate; everything else the two share.
pub(crate) fn translate_python_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('Z') => out.push_str("\\z"),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub(crate) fn regex_error(scope: &str, pattern: &str, why: &str) -> Error {
    if why.contains("size limit") {
        return Error::new(parser_core::ErrorKind::LimitExceeded {
            limit: "regex_size",
            message: format!(
                "{scope}: pattern {:?} compiles to more than {REGEX_SIZE_LIMIT} bytes: {why}",
                truncated(pattern)
            ),
        });
    }
    let unsupported = [
        "(?=", "(?!", "(?<=", "(?<!", "(?P=", "(?>", "*+", "++", "?+",
    ];
    if unsupported.iter().any(|u| pattern.contains(u))
        || (1..=9).any(|d| pattern.contains(&format!("\\{d}")))
    {
        invalid(format!(
            "{scope}: pattern {pattern:?} uses look-around, backreferences or possessive/atomic \
             groups, which the regex crate does not support (it guarantees linear-time matching); \
             rewrite it without them"
        ))
    } else {
        invalid(format!("{scope}: invalid pattern {pattern:?}: {why}"))
    }
}

/// A pattern shortened for an error message (a hostile one can be megabytes long).
fn truncated(pattern: &str) -> String {
    const SHOWN: usize = 120;
    match pattern.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &pattern[..cut]),
        None => pattern.to_string(),
    }
}

static PLACEHOLDER: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();

fn placeholder() -> &'static Regex {
    PLACEHOLDER.get_or_init(|| Regex::new(r"^\{(\w+(?:\.\w+)*)\}$").expect("a valid pattern"))
}

/// Checks that every string of a `transform` is either a whole `{placeholder}` or plain text.
pub(crate) fn validate_transform(scope: &str, transform: &serde_json::Value) -> Result<(), Error> {
    static ANY: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let any = ANY.get_or_init(|| Regex::new(r"\{\w+(?:\.\w+)*\}").expect("a valid pattern"));
    match transform {
        serde_json::Value::Object(map) => {
            map.values().try_for_each(|v| validate_transform(scope, v))
        }
        serde_json::Value::Array(items) => {
            items.iter().try_for_each(|v| validate_transform(scope, v))
        }
        serde_json::Value::String(s) if any.is_match(s) && !placeholder().is_match(s) => {
            Err(invalid(format!(
                "{scope}: transform string {s:?} mixes a {{placeholder}} with literal text; use a \
                 whole-string placeholder (\"{{content}}\") or plain text"
            )))
        }
        _ => Ok(()),
    }
}

/// Fills a `transform` template from `scope` (named captures, and `content` or a list item's keys).
pub(crate) fn apply_transform(
    transform: &Value,
    scope: &[(String, Value)],
) -> Result<Value, ParseFailure> {
    match transform {
        Value::Object(entries) => Ok(Value::Object(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), apply_transform(v, scope)?)))
                .collect::<Result<_, ParseFailure>>()?,
        )),
        Value::Array(items) => Ok(Value::Array(
            items
                .iter()
                .map(|v| apply_transform(v, scope))
                .collect::<Result<_, ParseFailure>>()?,
        )),
        Value::String(s) => {
            let Some(caps) = placeholder().captures(s) else {
                return Ok(transform.clone());
            };
            let path = caps.get(1).map_or("", |m| m.as_str());
            let mut keys = path.split('.');
            let root = keys.next().unwrap_or_default();
            let mut value = scope
                .iter()
                .rev()
                .find(|(k, _)| k == root)
                .map(|(_, v)| v)
                .ok_or_else(|| {
                    ParseFailure::new(format!("transform placeholder '{{{path}}}' is not defined"))
                })?;
            for key in keys {
                value = value.get(key).ok_or_else(|| {
                    ParseFailure::new(format!(
                        "transform placeholder '{{{path}}}' cannot find '{key}' in a {}",
                        value.type_name()
                    ))
                })?;
            }
            Ok(value.clone())
        }
        other => Ok(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(name: &str, args: serde_json::Value, text: &str) -> Result<Value, ParseFailure> {
        Content::new("test", name, Some(&args)).unwrap().parse(text)
    }

    #[test]
    fn scalars_as_python_reads_them() {
        assert_eq!(
            parse("text", json!({}), " hi \n").unwrap(),
            Value::from("hi")
        );
        assert_eq!(
            parse("text", json!({"strip": false}), " hi ").unwrap(),
            Value::from(" hi ")
        );
        assert_eq!(
            parse("int", json!({}), " 1_000 ").unwrap().to_json(),
            "1000"
        );
        assert!(parse("int", json!({}), "1.5").is_err());
        assert_eq!(
            parse("float", json!({}), "2.5e1").unwrap().to_json(),
            "25.0"
        );
        assert!(parse("float", json!({}), "nan").is_err());
        assert_eq!(
            parse("bool", json!({}), " TRUE ").unwrap(),
            Value::Bool(true)
        );
        assert_eq!(parse("bool", json!({}), "yes").unwrap(), Value::Bool(false));
    }

    #[test]
    fn json_dialects() {
        let gemma = json!({"unquoted_keys": true, "string_delims": [["<|\"|>", "<|\"|>"]]});
        let value = parse("json", gemma, r#"{city:<|"|>Paris, "FR"<|"|>,n:2}"#).unwrap();
        assert_eq!(value.to_json(), r#"{"city":"Paris, \"FR\"","n":2}"#);
        assert!(parse("json", json!({}), "{oops").is_err());
        let lax = parse("json", json!({"allow_non_json": true}), " plain ").unwrap();
        assert_eq!(lax, Value::from("plain"));
        let err = parse("json", json!({"string_delims": [["<", ">"]]}), "\u{1}").unwrap_err();
        assert!(err.to_string().contains("sentinel"));
    }

    #[test]
    fn xml_inline_and_kv_lines() {
        let args = json!({
            "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>",
            "merge_duplicates": true,
        });
        let value = parse(
            "xml-inline",
            args,
            "<parameter=b>\n2\n</parameter><parameter=a>x</parameter><parameter=b>3</parameter>",
        )
        .unwrap();
        assert_eq!(value.to_json(), r#"{"b":["2","3"],"a":"x"}"#);
        let kv = parse(
            "kv-lines",
            json!({"value_parser": {"name": "int"}}),
            "a: 1\nnonsense\n b : 2 \n",
        )
        .unwrap();
        assert_eq!(kv.to_json(), r#"{"a":1,"b":2}"#);
    }

    #[test]
    fn transforms_fill_whole_string_placeholders() {
        let transform = Value::from_json(
            r#"{"type": "function", "function": {"name": "{name}", "arguments": "{content.args}"}}"#,
        )
        .unwrap();
        let scope = vec![
            ("name".to_string(), Value::from("f")),
            (
                "content".to_string(),
                Value::from_json(r#"{"args":{"x":1}}"#).unwrap(),
            ),
        ];
        let out = apply_transform(&transform, &scope).unwrap();
        assert_eq!(
            out.to_json(),
            r#"{"type":"function","function":{"name":"f","arguments":{"x":1}}}"#
        );
        let missing = Value::from("{nope}");
        assert!(apply_transform(&missing, &scope).is_err());
        assert!(validate_transform("t", &json!({"a": "x{content}"})).is_err());
        assert!(validate_transform("t", &json!({"a": ["{content}", "plain"]})).is_ok());
    }

    #[test]
    fn unsupported_patterns_are_explained() {
        let err = compile_python_regex("f", r"(?<=a)b")
            .unwrap_err()
            .to_string();
        assert!(err.contains("look-around"), "{err}");
        assert!(compile_python_regex("f", r"a\Z").unwrap().is_match("xa"));
    }
}
