//! Calls written in Gemma's value syntax ([`CallName::Gemma`](super::CallName::Gemma)):
//! `call:NAME{KEY:VALUE,…}` (FunctionGemma, Gemma 4), each value as the models' chat templates write
//! it, which a JSON schema constrains, as grammar nodes both renderers share.
//!
//! What a value is, by its schema (what the Gemma parsers convert to the JSON the schema describes):
//!
//! - `string`: the text between two delimiter tokens (`<escape>`, `<|"|>`), which holds neither the
//!   delimiter nor the call's closer; with `minLength` / `maxLength`, that many characters, none of
//!   them `<` (so that no token starts inside and the length is the value's);
//! - `integer` (`0`, `-12`, no leading zero), `number` (with a fraction and an exponent), `boolean`
//!   (`true`, `false`), `null` — bare, as JSON writes them;
//! - `enum` / `const`: each value as the template writes it;
//! - `array`: `[…]` of `items` with `minItems` / `maxItems` (as Python lists are bounded);
//! - `object`: `{key:value,…}` of the declared `properties` (bare keys; a key the parser would not
//!   read bare is written between delimiters), every `required` one present, in any order up to
//!   [`ANY_ORDER_LIMIT`] of them (in declared order beyond), no others; an object that declares none
//!   is any object (none at all with `additionalProperties: false`);
//! - `anyOf` / `oneOf`, a list of types: the alternatives;
//! - anything else: any value of the above kinds, nested at most [`ANY_DEPTH`] levels.
//!
//! Not constrained: numeric bounds, `pattern`, `format`, `uniqueItems`, `$ref`. The parsers' other
//! readings (a bare word as a string, a missing comma, whitespace anywhere) are never written but for
//! optional whitespace between the tokens. A property whose name holds the delimiter cannot be
//! written, and is left out.

use std::sync::Arc;

use serde_json::Value;

use super::grammar::{Grammar, Node};
use super::python::{ANY_DEPTH, integer, list, number};
use super::{ANY_ORDER_LIMIT, CallTool, properties};

/// What a bare key never holds (the parser ends or refuses it there; it trims whitespace).
const BARE_KEY_EXCEPT: &[char] = &[
    ':', '{', '}', '[', ']', ',', '<', '"', ' ', '\t', '\n', '\r',
];

/// The rules Gemma values need on the side, named `gm_N` (and `gm_any_K`, `gm_str`), collected for
/// one grammar.
pub(crate) struct GemmaRules {
    pub(crate) rules: Vec<(String, Node)>,
    next: usize,
    /// Opens and closes a string.
    delimiter: String,
    /// What a string never holds besides the delimiter (the call's closer).
    stops: Arc<[String]>,
    string: bool,
    /// `gm_any_K` made so far, by K (levels of nesting left).
    any: Vec<bool>,
}

impl GemmaRules {
    /// Rules for strings between `delimiter`s that never hold `stops`.
    pub(crate) fn new(delimiter: &str, stops: Vec<String>) -> Self {
        GemmaRules {
            rules: Vec::new(),
            next: 0,
            delimiter: delimiter.to_owned(),
            stops: stops.into(),
            string: false,
            any: Vec::new(),
        }
    }

    /// A new rule with this body; returns a reference to it.
    fn rule(&mut self, body: Node) -> Node {
        self.next += 1;
        let name = format!("gm_{}", self.next);
        self.rules.push((name.clone(), body));
        Node::Ref(name.into())
    }

    /// The arguments of `tool` (the `at`-th of the request): rule `args_AT_0`, the object `{…}` of its
    /// parameters.
    pub(crate) fn arguments(&mut self, at: usize, tool: &CallTool) -> Vec<(String, Node)> {
        let parameters = tool.parameters();
        let declared = properties(parameters);
        let args = if declared.is_empty() {
            match parameters.get("properties") {
                // Properties declared as none: no arguments.
                Some(_) => Node::Lit("{}".into()),
                None => self.value(parameters, 0),
            }
        } else {
            let members = declared
                .into_iter()
                .filter_map(|(name, schema, required)| {
                    let member = self.member(name, schema, 0)?;
                    Some((member, required))
                })
                .collect();
            self.braced(members)
        };
        vec![(format!("args_{at}_0"), args)]
    }

    /// `KEY:VALUE` and optional whitespace, as a rule; `None` when the key cannot be written.
    fn member(&mut self, key: &str, schema: &Value, depth: usize) -> Option<Node> {
        let key = self.key(key)?;
        let value = self.value(schema, depth + 1);
        Some(self.rule(Node::Seq(vec![
            key,
            Node::Ws,
            Node::Lit(":".into()),
            Node::Ws,
            value,
            Node::Ws,
        ])))
    }

    /// A key as the parser reads it: bare (as the templates write argument keys) when it is a plain
    /// name, or between delimiters (as they write keys elsewhere).
    fn key(&self, key: &str) -> Option<Node> {
        if key.contains(self.delimiter.as_str()) || key.is_empty() {
            return None;
        }
        let quoted = Node::Lit(format!("{0}{key}{0}", self.delimiter).into());
        let bare = key.trim() == key && !key.contains(|c: char| BARE_KEY_EXCEPT.contains(&c));
        Some(if bare {
            Node::Alt(vec![Node::Lit(key.to_owned().into()), quoted])
        } else {
            quoted
        })
    }

    /// `{`, the members, `}`.
    fn braced(&mut self, members: Vec<(Node, bool)>) -> Node {
        let members = self.keyed(members);
        Node::Seq(vec![
            Node::Lit("{".into()),
            Node::Ws,
            members,
            Node::Lit("}".into()),
        ])
    }

    /// Items each at most once, required ones present, `,` and whitespace between two: in any order
    /// up to [`ANY_ORDER_LIMIT`] items, else in the given order.
    fn keyed(&mut self, items: Vec<(Node, bool)>) -> Node {
        let separator = || Node::Seq(vec![Node::Lit(",".into()), Node::Ws]);
        if items.len() <= ANY_ORDER_LIMIT {
            if items.is_empty() {
                return Node::Seq(Vec::new());
            }
            return Node::Separated {
                items,
                separator: Box::new(separator()),
            };
        }
        let mut after = Node::Seq(Vec::new());
        let mut first = Node::Seq(Vec::new());
        for (item, required) in items.into_iter().rev() {
            let after_rule = self.rule(after);
            let first_rule = self.rule(first);
            let with_comma = Node::Seq(vec![separator(), item.clone(), after_rule.clone()]);
            let without = Node::Seq(vec![item, after_rule.clone()]);
            if required {
                after = with_comma;
                first = without;
            } else {
                after = Node::Alt(vec![with_comma, after_rule]);
                first = Node::Alt(vec![without, first_rule]);
            }
        }
        first
    }

    /// A value valid against `schema`, `depth` levels inside the arguments.
    fn value(&mut self, schema: &Value, depth: usize) -> Node {
        let Some(map) = schema.as_object() else {
            return self.any(depth);
        };
        if let Some(value) = map.get("const") {
            return self.literal(value);
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            return Node::Alt(values.iter().map(|v| self.literal(v)).collect());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(options) = map.get(key).and_then(Value::as_array) {
                let options = options.iter().map(|o| self.value(o, depth)).collect();
                return Node::Alt(options);
            }
        }
        match map.get("type") {
            Some(Value::String(kind)) => self.typed(kind, map, depth),
            Some(Value::Array(kinds)) => {
                let kinds: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
                Node::Alt(kinds.iter().map(|k| self.typed(k, map, depth)).collect())
            }
            _ if map.contains_key("properties") => self.typed("object", map, depth),
            _ if map.contains_key("items") => self.typed("array", map, depth),
            _ => self.any(depth),
        }
    }

    fn typed(&mut self, kind: &str, map: &serde_json::Map<String, Value>, depth: usize) -> Node {
        match kind {
            "string" => {
                let min = map.get("minLength").and_then(Value::as_u64);
                let max = map.get("maxLength").and_then(Value::as_u64);
                if min.is_none() && max.is_none() {
                    return self.string();
                }
                Node::Seq(vec![
                    Node::Lit(self.delimiter.clone().into()),
                    Node::Chars {
                        except: vec!['<'],
                        min: min.unwrap_or(0),
                        max,
                    },
                    Node::Lit(self.delimiter.clone().into()),
                ])
            }
            "integer" => integer(),
            "number" => number(),
            "boolean" => Node::Alt(vec![Node::Lit("true".into()), Node::Lit("false".into())]),
            "null" => Node::Lit("null".into()),
            "object" => self.object(map, depth),
            "array" => self.array(map, depth),
            _ => self.any(depth),
        }
    }

    /// `gm_str`: a delimited string of any length.
    fn string(&mut self) -> Node {
        if !self.string {
            self.string = true;
            let body = Node::Seq(vec![
                Node::Lit(self.delimiter.clone().into()),
                Node::Text {
                    exclude: self.stops.clone(),
                    until: Some(self.delimiter.clone()),
                },
            ]);
            self.rules.push(("gm_str".into(), body));
        }
        Node::Ref("gm_str".into())
    }

    fn array(&mut self, map: &serde_json::Map<String, Value>, depth: usize) -> Node {
        let item = match map.get("items") {
            Some(items) if items.is_object() => self.value(items, depth + 1),
            _ => self.any(depth + 1),
        };
        let item = self.rule(Node::Seq(vec![item, Node::Ws]));
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxItems").and_then(Value::as_u64);
        Node::Seq(vec![
            Node::Lit("[".into()),
            Node::Ws,
            list(item, min, max),
            Node::Lit("]".into()),
        ])
    }

    fn object(&mut self, map: &serde_json::Map<String, Value>, depth: usize) -> Node {
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty());
        let Some(properties) = properties else {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                return Node::Seq(vec![Node::Lit("{".into()), Node::Ws, Node::Lit("}".into())]);
            }
            return self.dict(ANY_DEPTH.saturating_sub(depth + 1));
        };
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut members = Vec::new();
        for (key, schema) in properties {
            if let Some(member) = self.member(key, schema, depth) {
                members.push((member, required.contains(&key.as_str())));
            }
        }
        self.braced(members)
    }

    /// Any value at `depth`: `gm_any_K`.
    fn any(&mut self, depth: usize) -> Node {
        self.any_of(ANY_DEPTH.saturating_sub(depth))
    }

    /// `gm_any_K`: a scalar, or (with `K > 0`) an array or object of `gm_any_{K-1}`.
    fn any_of(&mut self, budget: usize) -> Node {
        let name = format!("gm_any_{budget}");
        if self.any.get(budget).copied().unwrap_or(false) {
            return Node::Ref(name.into());
        }
        if self.any.len() <= budget {
            self.any.resize(budget + 1, false);
        }
        self.any[budget] = true;
        let mut options = vec![
            self.string(),
            number(),
            Node::Lit("true".into()),
            Node::Lit("false".into()),
            Node::Lit("null".into()),
        ];
        if budget > 0 {
            let inner = self.any_of(budget - 1);
            let item = self.rule(Node::Seq(vec![inner, Node::Ws]));
            options.push(Node::Seq(vec![
                Node::Lit("[".into()),
                Node::Ws,
                list(item, 0, None),
                Node::Lit("]".into()),
            ]));
            options.push(self.dict(budget - 1));
        }
        self.rules.push((name.clone(), Node::Alt(options)));
        Node::Ref(name.into())
    }

    /// An object of keys (bare or delimited) and `gm_any_K` values.
    fn dict(&mut self, budget: usize) -> Node {
        let key = Node::Alt(vec![
            Node::Chars {
                except: BARE_KEY_EXCEPT.to_vec(),
                min: 1,
                max: None,
            },
            self.string(),
        ]);
        let value = self.any_of(budget);
        let member = self.rule(Node::Seq(vec![
            key,
            Node::Ws,
            Node::Lit(":".into()),
            Node::Ws,
            value,
            Node::Ws,
        ]));
        Node::Seq(vec![
            Node::Lit("{".into()),
            Node::Ws,
            list(member, 0, None),
            Node::Lit("}".into()),
        ])
    }

    /// A JSON value as the template writes it.
    fn literal(&self, value: &Value) -> Node {
        Node::Lit(self.repr(value).into())
    }

    /// A JSON value in Gemma's syntax (`format_argument`): strings between delimiters, object keys
    /// bare.
    pub(crate) fn repr(&self, value: &Value) -> String {
        match value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            Value::String(text) => format!("{0}{text}{0}", self.delimiter),
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(|v| self.repr(v)).collect();
                format!("[{}]", items.join(","))
            }
            Value::Object(members) => {
                let members: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{k}:{}", self.repr(v)))
                    .collect();
                format!("{{{}}}", members.join(","))
            }
        }
    }
}

/// The arguments of `tool` as a standalone grammar (root: the arguments object), for the structural
/// tag's `grammar` content, which xgrammar reads as GBNF.
pub(crate) fn arguments_grammar(tool: &CallTool, delimiter: &str, stops: Vec<String>) -> Grammar {
    let mut gm = GemmaRules::new(delimiter, stops);
    let args = gm.arguments(0, tool);
    let mut rules = vec![("root".to_owned(), Node::Ref("args_0_0".into()))];
    rules.extend(args);
    rules.append(&mut gm.rules);
    Grammar { rules }
}
