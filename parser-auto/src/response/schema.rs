//! The legacy `response_schema` (`x-regex`, `x-regex-iterator`, `x-parser`, `x-regex-key-value`).
//!
//! A `tokenizer_config.json` may carry a `response_schema`: a JSON schema whose nodes say, with Python
//! regexes and a JSON parser, how to cut a whole model output into a message dict. transformers 5.0 to
//! 5.14 parse it with `recursive_parse` (`transformers/utils/chat_parsing_utils.py`); 5.15 replaced it
//! with `response_template`. [`ResponseSchema`] is a port of the last version of that function
//! (5.4 to 5.14), returning the same JSON value Python returns, so a model's own schema can be honoured
//! without Python.
//!
//! # The semantics, node by node (as in Python)
//!
//! 1. `const`: the node's value, whatever the input (even none).
//! 2. No input (`None`): no value.
//! 3. A node with any regex key needs a string input, else it is an error.
//! 4. `x-regex-substitutions`: `[pattern, replacement]` pairs applied with `re.sub`.
//! 5. `x-regex`: `re.search`; no match gives no value. Named groups give a dict of the groups that
//!    took part; otherwise the one group's text (or no value if it did not take part).
//! 6. `x-regex-iterator` (arrays only): `re.finditer`, each match read as in 5; no match gives no value.
//! 7. `x-regex-key-value` (objects only): `re.finditer`, each match's `key`/`value` groups make a dict
//!    (later duplicates win); no match gives no value.
//! 8. `x-parser`: `json` (`json.loads`; a failure is an error unless `x-parser-args.allow_non_json`
//!    keeps the string; then `x-parser-args.transform`, a JMESPath expression) or `gemma4-tool-call`
//!    (Gemma 4's bare-key syntax rewritten to JSON, then as `json`).
//! 9. By `type`: `object` with a string input gives each of `properties` the whole string and keeps
//!    the values found; with a dict input, each property takes its key (`const` first, else the
//!    key's value, even `null`, else `default`), and other keys go through `additionalProperties`
//!    (absent or `true`: kept as they are; `false`: dropped); then `required` keys must be there.
//!    `array`: a falsy input gives `[]`; `items` maps a list, `prefixItems` zips one (a lone
//!    `prefixItems` wraps a non-list). `string`, `integer`, `number`, `boolean` convert as Python's
//!    `int()`, `float()`, `.lower() in ("true", "1")` do. No type, or `any`: the value as it is.
//!
//! Every regex runs with `re.DOTALL`. Patterns are translated to the `regex` crate's syntax (see
//! `schema_regex.rs`), including Python's `$`, which also matches before a final newline.
//!
//! # Differences from Python
//!
//! Rejected by [`ResponseSchema::new`], with the node's JSON path, though Python accepts them: regex
//! look-around, backreferences, atomic groups, possessive quantifiers and conditionals (the `regex`
//! crate cannot run them), `\N{...}`, the `x` and `a` flags, a pattern mixing multi-line and
//! single-line `^`/`$`; JMESPath beyond the supported subset (see `schema_jmespath.rs`).
//!
//! Rejected up front though Python only fails once the node is reached: an unknown `x-parser` or
//! `type`, `x-regex-iterator` outside an array or `x-regex-key-value` outside an object, a regex with
//! no group or several unnamed ones, a key-value regex without `key`/`value` groups, an array without
//! `items`/`prefixItems`, a node that is not an object, malformed `x-parser-args`, `required` or
//! `x-regex-substitutions`. Nodes under `const` are not compiled at all, as Python never reads them.
//!
//! Results:
//! - Object keys come out sorted (this workspace's `serde_json` lacks `preserve_order`); values compare
//!   equal to Python's. The one place order leaks into values is JMESPath `*` over an object.
//! - `\w`, `\W`, `\s`, `\S`, `\d` follow Python, but `\b`/`\B` use the `regex` crate's word
//!   characters, which also count combining marks and connector punctuation (`‿`) and not numbers
//!   such as `²`: boundaries next to those can differ. `(?i)` uses Unicode simple case folding; Python
//!   also folds a few letters it does not (`ı`, `İ` with `i`).
//! - JSON numbers Python keeps but JSON here cannot hold are errors: integers outside `i64`/`u64`
//!   (from `json.loads` or `int()`), `NaN`/`Infinity` and overflowing floats (under `allow_non_json`,
//!   text Python would read as `NaN` stays a string). JSON nested deeper than 128 levels is an error.

use parser_core::{Error, ErrorKind};
use serde_json::{Map, Value};

#[path = "schema_jmespath.rs"]
mod jmespath;
#[path = "schema_regex.rs"]
mod pyre;
#[path = "schema_value.rs"]
mod pyvalue;

use pyre::{PyRegex, Template};

fn invalid(why: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOption(why.into()))
}

/// A compiled `response_schema`: a model output in, the message dict transformers would produce out.
///
/// Every regex is translated and compiled once, by [`ResponseSchema::new`].
///
/// ```
/// use parser_auto::response::ResponseSchema;
/// use serde_json::json;
///
/// // SmolLM3's schema, from the transformers documentation.
/// let schema = ResponseSchema::new(&json!({
///     "x-regex": r"(?:<think>\n?(?P<thinking>.+?)\n?</think>)?\s*(?P<content>.+?)?\s*(?:<\|im_end\|>|$)",
///     "type": "object",
///     "properties": {
///         "role": {"const": "assistant"},
///         "content": {"type": "string"},
///         "thinking": {"type": "string"}
///     }
/// }))?;
/// let message = schema.parse("<think>\nShort question.\n</think>\nThe Wall fell.<|im_end|>")?;
/// assert_eq!(message, json!({
///     "role": "assistant",
///     "thinking": "Short question.",
///     "content": "The Wall fell."
/// }));
/// # Ok::<(), parser_auto::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ResponseSchema {
    root: Node,
}

impl ResponseSchema {
    /// Compiles a `response_schema` JSON value (the object under `response_schema` in a
    /// `tokenizer_config.json`).
    ///
    /// Fails, naming the node's JSON path, on what Python could not run either (a bad regex, an
    /// unknown `x-parser` or `type`, a malformed node) and on what this port does not support:
    /// look-around, backreferences and atomic or possessive matching, which the `regex` crate cannot
    /// express, and JMESPath transforms beyond identifiers, `@`, `a.b`, `[n]`, `[*]`, `*`, `[]`,
    /// `[a, b]`, `{k: a}`, literals and pipes.
    pub fn new(schema: &Value) -> Result<Self, Error> {
        Ok(ResponseSchema {
            root: Node::compile(schema, "$")?,
        })
    }

    /// Parses a whole model output as transformers' `parse_response` (`recursive_parse`) would,
    /// returning the same value: usually a message dict, `null` if the root regex does not match.
    ///
    /// Fails where Python raises: content that is not JSON under `x-parser: json`, a missing
    /// `required` key, a value `int()`/`float()` cannot convert, a value of the wrong shape for its
    /// node. The message names the node's JSON path.
    pub fn parse(&self, text: &str) -> Result<Value, Error> {
        self.root.eval(Value::String(text.to_owned()))
    }
}

#[derive(Clone, Debug)]
struct Node {
    /// JSON path of the node in the schema, for messages.
    path: String,
    constant: Option<Value>,
    /// `default`, used by a parent object that receives a dict without this key.
    default: Option<Value>,
    kind: Kind,
    /// Whether any regex key is present (even `null`): then the input must be a string.
    has_regex: bool,
    substitutions: Vec<(PyRegex, Template)>,
    regex: Option<PyRegex>,
    iterator: Option<PyRegex>,
    key_value: Option<PyRegex>,
    parser: Option<JsonParser>,
}

#[derive(Clone, Debug)]
enum Kind {
    /// No `type`, or `any`: values pass through.
    Any,
    Object(Box<ObjectSchema>),
    Array(ArraySchema),
    String,
    Integer,
    Number,
    Boolean,
}

#[derive(Clone, Debug)]
struct ObjectSchema {
    /// `None` when the key is absent (a string input is then an error).
    properties: Option<Vec<(String, Node)>>,
    /// `None` for `additionalProperties: false`.
    additional: Option<Node>,
    required: Vec<String>,
}

#[derive(Clone, Debug)]
enum ArraySchema {
    Items(Box<Node>),
    Prefix(Vec<Node>),
}

#[derive(Clone, Debug)]
struct JsonParser {
    gemma4: bool,
    allow_non_json: bool,
    transform: Option<jmespath::Expr>,
}

/// The `x-` keys `recursive_parse` reads.
const KNOWN_EXTENSIONS: [&str; 6] = [
    "x-regex",
    "x-regex-iterator",
    "x-regex-key-value",
    "x-regex-substitutions",
    "x-parser",
    "x-parser-args",
];

const REGEX_KEYS: [&str; 4] = [
    "x-regex",
    "x-regex-iterator",
    "x-regex-key-value",
    "x-regex-substitutions",
];

/// `path.key`, or `path["key"]` when the key is not a plain word.
fn child_path(path: &str, key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

/// How deeply `response_schema` nodes may nest. Real schemas nest a handful of levels; compiling
/// recurses once a level, so a deeper one could overflow the stack.
pub const MAX_SCHEMA_DEPTH: usize = 64;

thread_local! {
    /// Nesting of the schema node being compiled on this thread.
    static SCHEMA_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one level of schema nesting for as long as it lives.
struct DepthGuard;

impl DepthGuard {
    fn enter(path: &str) -> Result<DepthGuard, Error> {
        let depth = SCHEMA_DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        let guard = DepthGuard;
        if depth > MAX_SCHEMA_DEPTH {
            return Err(Error::new(parser_core::ErrorKind::LimitExceeded {
                limit: "schema_depth",
                message: format!(
                    "response_schema at {path}: nodes nest more than {MAX_SCHEMA_DEPTH} levels deep"
                ),
            }));
        }
        Ok(guard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        SCHEMA_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

impl Node {
    fn compile(schema: &Value, path: &str) -> Result<Node, Error> {
        let _depth = DepthGuard::enter(path)?;
        let fail = |why: String| {
            if why.contains("size limit") {
                Error::new(parser_core::ErrorKind::LimitExceeded {
                    limit: "regex_size",
                    message: format!("response_schema at {path}: {why}"),
                })
            } else {
                invalid(format!("response_schema at {path}: {why}"))
            }
        };
        let Value::Object(obj) = schema else {
            return Err(fail(format!(
                "a schema node must be a JSON object, not `{schema}`"
            )));
        };
        let mut node = Node {
            path: path.to_owned(),
            constant: obj.get("const").cloned(),
            default: obj.get("default").cloned(),
            kind: Kind::Any,
            has_regex: REGEX_KEYS.iter().any(|k| obj.contains_key(*k)),
            substitutions: Vec::new(),
            regex: None,
            iterator: None,
            key_value: None,
            parser: None,
        };
        // Python returns `const` before looking at anything else, so nothing else can matter.
        if node.constant.is_some() {
            return Ok(node);
        }
        for key in obj.keys() {
            if key.starts_with("x-") && !KNOWN_EXTENSIONS.contains(&key.as_str()) {
                // transformers 5.4+ ignores it too (5.0-5.3 had `x-mapping` and `x-mapping-regex`).
                tracing::warn!("response_schema at {path}: `{key}` is not a known key; ignored");
            }
        }
        let ty = match obj.get("type") {
            None | Some(Value::Null) => "any",
            Some(Value::String(t)) => t.as_str(),
            Some(other) => return Err(fail(format!("unsupported `type` {other}"))),
        };
        let regex = |key: &str| -> Result<Option<PyRegex>, Error> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(p)) => PyRegex::new(p)
                    .map(Some)
                    .map_err(|e| fail(format!("{key} `{p}` {e}"))),
                Some(other) => Err(fail(format!("{key} must be a string, not `{other}`"))),
            }
        };
        // A match is read as a dict (named groups) or as its one group: anything else makes Python
        // raise on every match.
        let one_value = |key: &str, re: &PyRegex| -> Result<(), Error> {
            if re.has_named_groups() || re.groups() == 1 {
                Ok(())
            } else {
                Err(fail(format!(
                    "{key} `{}` needs named groups or exactly one capture group (it has {})",
                    re.source(),
                    re.groups()
                )))
            }
        };

        if let Some(subs) = obj.get("x-regex-substitutions") {
            let Value::Array(subs) = subs else {
                return Err(fail(
                    "x-regex-substitutions must be a list of [pattern, replacement]".into(),
                ));
            };
            for sub in subs {
                let (Some(Value::String(p)), Some(Value::String(r))) = (sub.get(0), sub.get(1))
                else {
                    return Err(fail(format!(
                        "x-regex-substitutions entry `{sub}` is not [pattern, replacement]"
                    )));
                };
                let re = PyRegex::new(p)
                    .map_err(|e| fail(format!("x-regex-substitutions pattern `{p}` {e}")))?;
                let template = Template::new(r, &re).map_err(fail)?;
                node.substitutions.push((re, template));
            }
        }
        node.regex = regex("x-regex")?;
        if let Some(re) = &node.regex {
            one_value("x-regex", re)?;
        }
        node.iterator = regex("x-regex-iterator")?;
        if let Some(re) = &node.iterator {
            if ty != "array" {
                return Err(fail(format!(
                    "x-regex-iterator needs `type: array`, not {ty}"
                )));
            }
            one_value("x-regex-iterator", re)?;
        }
        node.key_value = regex("x-regex-key-value")?;
        if let Some(re) = &node.key_value {
            if ty != "object" {
                return Err(fail(format!(
                    "x-regex-key-value needs `type: object`, not {ty}"
                )));
            }
            if !re.has_group("key") || !re.has_group("value") {
                return Err(fail(format!(
                    "x-regex-key-value `{}` must have named groups `key` and `value`",
                    re.source()
                )));
            }
        }
        if let Some(parser) = obj.get("x-parser") {
            node.parser = Some(JsonParser::compile(
                parser,
                obj.get("x-parser-args"),
                &fail,
            )?);
        }

        node.kind = match ty {
            "any" => Kind::Any,
            "string" => Kind::String,
            "integer" => Kind::Integer,
            "number" => Kind::Number,
            "boolean" => Kind::Boolean,
            "object" => Kind::Object(Box::new(ObjectSchema::compile(obj, path, &fail)?)),
            "array" => Kind::Array(ArraySchema::compile(obj, path, &fail)?),
            other => return Err(fail(format!("unsupported `type` \"{other}\""))),
        };
        Ok(node)
    }

    fn error(&self, why: impl std::fmt::Display) -> Error {
        invalid(format!("response_schema at {}: {why}", self.path))
    }

    /// Describes a value in an error message, shortened: it may be a whole model output.
    fn show(value: &Value) -> String {
        let s = value.to_string();
        match s.char_indices().nth(200) {
            Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or("")),
            None => s,
        }
    }

    /// Needs a string input for `what`, as Python's `re` functions and `json.loads` do.
    fn string<'v>(&self, content: &'v Value, what: &str) -> Result<&'v str, Error> {
        content.as_str().ok_or_else(|| {
            self.error(format!(
                "{what} needs a string, got {} {}",
                pyvalue::type_name(content),
                Self::show(content)
            ))
        })
    }

    /// `recursive_parse(content, node)`; `Value::Null` is Python's `None`.
    fn eval(&self, content: Value) -> Result<Value, Error> {
        if let Some(constant) = &self.constant {
            return Ok(constant.clone());
        }
        if content.is_null() {
            return Ok(Value::Null);
        }
        let mut content = content;
        if self.has_regex {
            self.string(&content, "a node with a regex")?;
        }
        for (re, template) in &self.substitutions {
            let text = self.string(&content, "x-regex-substitutions")?;
            content = Value::String(re.sub(text, template));
        }
        if let Some(re) = &self.regex {
            let text = self.string(&content, "x-regex")?;
            match re.search(text) {
                Some(m) => content = re.match_value(text, &m),
                None => return Ok(Value::Null),
            }
        }
        if let Some(re) = &self.iterator {
            let text = self.string(&content, "x-regex-iterator")?;
            let items: Vec<Value> = re
                .find_all(text)
                .iter()
                .map(|m| re.match_value(text, m))
                .collect();
            if items.is_empty() {
                return Ok(Value::Null);
            }
            content = Value::Array(items);
        }
        if let Some(re) = &self.key_value {
            let text = self.string(&content, "x-regex-key-value")?;
            let mut dict = Map::new();
            for m in re.find_all(text) {
                let groups = re.match_value(text, &m);
                match (groups.get("key"), groups.get("value")) {
                    (Some(Value::String(k)), Some(v)) => {
                        dict.insert(k.clone(), v.clone());
                    }
                    _ => {
                        return Err(self.error(format!(
                            "x-regex-key-value `{}` matched without both `key` and `value`: {}",
                            re.source(),
                            Self::show(&groups)
                        )));
                    }
                }
            }
            if dict.is_empty() {
                return Ok(Value::Null);
            }
            content = Value::Object(dict);
        }
        if let Some(parser) = &self.parser {
            content = parser.apply(self, content)?;
        }
        match &self.kind {
            Kind::Any => Ok(content),
            Kind::Object(object) => object.eval(self, content),
            Kind::Array(array) => array.eval(self, content),
            Kind::String => match content {
                Value::String(_) => Ok(content),
                other => Err(self.type_error("string", &other)),
            },
            Kind::Integer => match content {
                // `isinstance(x, int)` is true of booleans too.
                Value::Bool(_) => Ok(content),
                Value::Number(ref n) if !n.is_f64() => Ok(content),
                Value::String(s) => pyvalue::py_int(&s).map_err(|e| self.error(e)),
                other => Err(self.type_error("integer", &other)),
            },
            Kind::Number => match content {
                Value::Bool(b) => Ok(Value::from(if b { 1.0 } else { 0.0 })),
                Value::Number(n) => n
                    .as_f64()
                    .and_then(pyvalue::finite)
                    .ok_or_else(|| self.error(format!("{n} has no float form"))),
                Value::String(s) => pyvalue::py_float(&s).map_err(|e| self.error(e)),
                other => Err(self.type_error("number", &other)),
            },
            Kind::Boolean => match content {
                Value::Bool(_) => Ok(content),
                Value::String(s) => match s.to_lowercase().as_str() {
                    "true" | "1" => Ok(Value::Bool(true)),
                    "false" | "0" => Ok(Value::Bool(false)),
                    _ => Err(self.error(format!("invalid boolean value {s:?}"))),
                },
                other => Err(self.type_error("boolean", &other)),
            },
        }
    }

    fn type_error(&self, ty: &str, content: &Value) -> Error {
        self.error(format!(
            "a node of type {ty} got {} {}",
            pyvalue::type_name(content),
            Self::show(content)
        ))
    }
}

impl JsonParser {
    fn compile(
        parser: &Value,
        args: Option<&Value>,
        fail: &dyn Fn(String) -> Error,
    ) -> Result<JsonParser, Error> {
        let gemma4 = match parser.as_str() {
            Some("json") => false,
            Some("gemma4-tool-call") => true,
            _ => {
                return Err(fail(format!(
                    "unknown x-parser {parser} (known: \"json\", \"gemma4-tool-call\")"
                )));
            }
        };
        let empty = Map::new();
        let args = match args {
            None => &empty,
            Some(Value::Object(args)) => args,
            Some(other) => {
                return Err(fail(format!(
                    "x-parser-args must be an object, not `{other}`"
                )));
            }
        };
        let transform = match args.get("transform") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(
                jmespath::Expr::new(t)
                    .map_err(|e| fail(format!("x-parser-args.transform `{t}`: {e}")))?,
            ),
            Some(other) => {
                return Err(fail(format!(
                    "x-parser-args.transform must be a JMESPath string, not `{other}`"
                )));
            }
        };
        Ok(JsonParser {
            gemma4,
            allow_non_json: args.get("allow_non_json").is_some_and(pyvalue::truthy),
            transform,
        })
    }

    fn apply(&self, node: &Node, content: Value) -> Result<Value, Error> {
        let mut text = node.string(&content, "x-parser")?.to_owned();
        if self.gemma4 {
            text = pyvalue::gemma4_json_to_json(&text);
        }
        let parsed = match pyvalue::py_json_loads(&text) {
            Ok(value) => value,
            Err(pyvalue::JsonError::Syntax(_)) if self.allow_non_json => Value::String(text),
            Err(pyvalue::JsonError::Syntax(e)) => {
                return Err(node.error(format!(
                    "x-parser json could not parse its content as JSON ({e}): {}",
                    Node::show(&Value::String(text))
                )));
            }
            Err(pyvalue::JsonError::Unrepresentable(e)) => return Err(node.error(e)),
        };
        Ok(match &self.transform {
            Some(expr) => expr.search(&parsed),
            None => parsed,
        })
    }
}

impl ObjectSchema {
    fn compile(
        obj: &Map<String, Value>,
        path: &str,
        fail: &dyn Fn(String) -> Error,
    ) -> Result<ObjectSchema, Error> {
        let properties = match obj.get("properties") {
            None => None,
            Some(Value::Object(props)) => {
                let base = child_path(path, "properties");
                let mut out = Vec::with_capacity(props.len());
                for (key, child) in props {
                    out.push((key.clone(), Node::compile(child, &child_path(&base, key))?));
                }
                Some(out)
            }
            Some(other) => {
                return Err(fail(format!("properties must be an object, not `{other}`")));
            }
        };
        let additional = match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => Some(Node::compile(
                schema,
                &child_path(path, "additionalProperties"),
            )?),
            // Absent, `true` or anything else: Python treats the extra keys with an empty schema.
            _ => Some(Node::compile(&Value::Object(Map::new()), path)?),
        };
        let required = match obj.get("required") {
            None => Vec::new(),
            Some(Value::Array(keys)) => keys
                .iter()
                .map(|k| {
                    k.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| fail(format!("required must list strings, not `{k}`")))
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(fail(format!("required must be a list, not `{other}`"))),
        };
        Ok(ObjectSchema {
            properties,
            additional,
            required,
        })
    }

    fn eval(&self, node: &Node, content: Value) -> Result<Value, Error> {
        let mut out = Map::new();
        match content {
            Value::String(text) => {
                // No regex at this level: every property parses the whole string itself.
                let Some(properties) = &self.properties else {
                    return Err(node.error(
                        "an object node got a string but has no properties, regex or parser to read it",
                    ));
                };
                for (key, child) in properties {
                    let value = child.eval(Value::String(text.clone()))?;
                    if !value.is_null() {
                        out.insert(key.clone(), value);
                    }
                }
            }
            Value::Object(mut dict) => {
                let properties = self.properties.as_deref().unwrap_or(&[]);
                for (key, child) in properties {
                    if let Some(constant) = &child.constant {
                        out.insert(key.clone(), constant.clone());
                    } else if let Some(value) = dict.remove(key) {
                        // Kept even when it is `null`, as Python does.
                        out.insert(key.clone(), child.eval(value)?);
                    } else if let Some(default) = &child.default {
                        out.insert(key.clone(), default.clone());
                    }
                }
                if let Some(additional) = &self.additional {
                    for (key, value) in dict {
                        if !properties.iter().any(|(k, _)| *k == key) {
                            out.insert(key, additional.eval(value)?);
                        }
                    }
                }
            }
            other => {
                return Err(node.error(format!(
                    "an object node needs a dict or a string, got {} {}",
                    pyvalue::type_name(&other),
                    Node::show(&other)
                )));
            }
        }
        let missing: Vec<&str> = self
            .required
            .iter()
            .filter(|k| !out.contains_key(k.as_str()))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(node.error(format!(
                "required fields {missing:?} are missing from the parsed output {}",
                Node::show(&Value::Object(out))
            )));
        }
        Ok(Value::Object(out))
    }
}

impl ArraySchema {
    fn compile(
        obj: &Map<String, Value>,
        path: &str,
        fail: &dyn Fn(String) -> Error,
    ) -> Result<ArraySchema, Error> {
        if let Some(items) = obj.get("items") {
            return Ok(ArraySchema::Items(Box::new(Node::compile(
                items,
                &child_path(path, "items"),
            )?)));
        }
        match obj.get("prefixItems") {
            Some(Value::Array(prefix)) => {
                let base = child_path(path, "prefixItems");
                let nodes = prefix
                    .iter()
                    .enumerate()
                    .map(|(i, item)| Node::compile(item, &format!("{base}[{i}]")))
                    .collect::<Result<_, _>>()?;
                Ok(ArraySchema::Prefix(nodes))
            }
            Some(other) => Err(fail(format!("prefixItems must be a list, not `{other}`"))),
            // Python raises on any non-empty input: the node is unusable.
            None => Err(fail("an array node needs `items` or `prefixItems`".into())),
        }
    }

    fn eval(&self, node: &Node, content: Value) -> Result<Value, Error> {
        if !pyvalue::truthy(&content) {
            return Ok(Value::Array(Vec::new()));
        }
        match self {
            ArraySchema::Items(items) => match content {
                Value::Array(list) => Ok(Value::Array(
                    list.into_iter()
                        .map(|item| items.eval(item))
                        .collect::<Result<_, _>>()?,
                )),
                other => Err(node.error(format!(
                    "an array node with items needs a list, got {} {}",
                    pyvalue::type_name(&other),
                    Node::show(&other)
                ))),
            },
            ArraySchema::Prefix(prefix) => {
                let list = match content {
                    Value::Array(list) => list,
                    // A single prefix item: the value is a one-item array.
                    other if prefix.len() == 1 => vec![other],
                    other => {
                        return Err(node.error(format!(
                            "an array node with prefixItems needs a list, got {} {}",
                            pyvalue::type_name(&other),
                            Node::show(&other)
                        )));
                    }
                };
                if list.len() != prefix.len() {
                    return Err(node.error(format!(
                        "the array has {} items, but the schema has {} prefixItems",
                        list.len(),
                        prefix.len()
                    )));
                }
                Ok(Value::Array(
                    list.into_iter()
                        .zip(prefix)
                        .map(|(item, schema)| schema.eval(item))
                        .collect::<Result<_, _>>()?,
                ))
            }
        }
    }
}
