//! Calls written as Python ([`CallName::Python`](super::CallName::Python)): `NAME(KEY=VALUE, …)`, each
//! value a Python literal that a JSON schema constrains, as grammar nodes both renderers share.
//!
//! What a value is, by its schema (what a PYTHONIC parser converts to the JSON the schema describes):
//!
//! - `string`: quoted with `"` or `'`; without length bounds any character but the quote, a backslash
//!   and a line break, or one of the escapes `\\`, `\'`, `\"`, `\n`, `\t`, `\r`; with `minLength` /
//!   `maxLength`, that many characters and no escape (so that the length is the value's);
//! - `integer` (`0`, `-12`, no leading zero), `number` (with a fraction and an exponent), `boolean`
//!   (`True`, `False`), `null` (`None`);
//! - `enum` / `const`: each value as Python writes it (`"a"` or `'a'`, `None`, `[1, "x"]`, `{"k": True}`);
//! - `array`: a list `[…]` of `items` with `minItems` / `maxItems` (up to [`UNROLL_LIMIT`] optional items
//!   bounded; more are unbounded);
//! - `object`: a dict `{"key": value, …}` of the declared `properties` (string keys), every `required`
//!   one present, in any order up to [`ANY_ORDER_LIMIT`] of them (in declared order beyond), no others;
//!   an object that declares none is any dict (none at all with `additionalProperties: false`);
//! - `anyOf` / `oneOf`, a list of types: the alternatives;
//! - anything else (no type, `true`): any literal of the above kinds, nested at most [`ANY_DEPTH`]
//!   levels (and never past the parser's 64).
//!
//! Not constrained: numeric bounds, `pattern`, `format`, `uniqueItems`, `additionalProperties` other than
//! `false` (no undeclared member is written anyway), `$ref`. Keyword arguments are the tool's declared
//! properties whose names are Python identifiers (others cannot be written as `KEY=`), each at most once,
//! every required one present, in any order up to [`ANY_ORDER_LIMIT`] of them. Python's other spellings
//! the parser also reads (tuples, a trailing comma, JSON's `true`/`null`, `+1`, `1_000`, `.5`) are never
//! written.

use std::sync::Arc;

use serde_json::Value;

use super::CallTool;
use super::grammar::{Grammar, Node, RuleName};
use super::{ANY_ORDER_LIMIT, properties};

/// The most levels an unconstrained value nests (a list in a dict in a list …).
pub const ANY_DEPTH: usize = 8;
/// The deepest nesting the parser converts (`pythonic::MAX_DEPTH`).
const MAX_DEPTH: usize = 64;
/// The most optional list items written out one by one for a `maxItems`; beyond, the items are
/// unbounded.
pub const UNROLL_LIMIT: u64 = 64;

/// The rules Python values need on the side, named `py_N` (and `py_any_K`, `py_str`), collected for
/// one grammar whose tools live for `'t`.
#[derive(Default)]
pub(crate) struct PyRules<'t> {
    pub(crate) rules: Vec<(String, Node)>,
    next: usize,
    string: bool,
    /// `py_any_K` made so far, by K (levels of nesting left).
    any: Vec<bool>,
    /// The parameters of each tool whose arguments [`PyRules::arguments`] wrote, with their
    /// [`schema_hash`](super::gbnf::schema_hash) and the tool's index.
    tools: Vec<(Arc<Value>, u64, usize)>,
    /// The `KEY=VALUE` items [`PyRules::arguments`] wrote, by name and schema.
    items: super::ParameterMemo<'t>,
}

/// The rule of the `index`-th keyword item of tool `at`: `pyarg_AT_INDEX`.
fn pyarg_rule(at: usize, index: usize) -> String {
    let mut rule = super::numbered("pyarg_", at);
    rule.push('_');
    super::grammar::push_number(&mut rule, index as u64);
    rule
}

impl<'t> PyRules<'t> {
    /// A new rule with this body; returns a reference to it.
    fn rule(&mut self, body: Node) -> Node {
        self.next += 1;
        let name = super::numbered("py_", self.next);
        self.rules.push((name.clone(), body));
        Node::Ref(name.into())
    }

    /// The keyword arguments of `tool` (the `at`-th of the request): rule `args_AT_0`, a
    /// [`Node::Separated`] of `KEY=VALUE` items (or, past [`ANY_ORDER_LIMIT`] properties, the declared
    /// order), each followed by optional whitespace. An item rule is `pyarg_AT_I`, or the rule of an
    /// earlier tool's item of the same name and schema.
    pub(crate) fn arguments(&mut self, at: usize, tool: &'t CallTool) -> Vec<(String, Node)> {
        // A tool whose parameters equal an earlier tool's takes that tool's arguments: the same
        // rules again would be the same language (and the any-order sets of up to
        // `2^ANY_ORDER_LIMIT` rules were most of a Python grammar's size).
        let parameters = tool.shared_parameters();
        let hash = super::gbnf::schema_hash(parameters);
        let earlier = self.tools.iter().find(|(seen, seen_hash, _)| {
            *seen_hash == hash && super::gbnf::same_schema(seen, parameters)
        });
        if let Some(&(_, _, earlier)) = earlier {
            return vec![(super::args_rule(at), super::args_ref(earlier))];
        }
        self.tools.push((parameters.clone(), hash, at));
        // An item whose name and schema equal one an earlier tool wrote takes that item's rule: the
        // same language, the value's rules not built and rendered again, and items that render the
        // same, so that the renderers can give equal any-order sets one rule. Not for a tool with
        // root definitions: a value does not follow `$ref` now (it is any literal), but if it ever
        // does, the same property schema could mean another value in another tool.
        let shared = !super::has_root_definitions(parameters);
        let mut rules = Vec::new();
        let mut items = Vec::new();
        for (name, schema, required) in properties(tool.parameters()) {
            if !is_identifier(name) {
                continue;
            }
            if shared && let Some((tool, index)) = self.items.find(name, schema) {
                items.push((
                    Node::Ref(RuleName::numbered("pyarg_", tool, Some(index))),
                    required,
                ));
                continue;
            }
            let value = self.value(schema, 0);
            let item = Node::Seq(vec![
                Node::Lit(name.to_owned().into()),
                Node::Ws,
                Node::Lit("=".into()),
                Node::Ws,
                value,
                Node::Ws,
            ]);
            // Numbered by the item's place among the tool's items (unique, as before sharing).
            rules.push((pyarg_rule(at, items.len()), item));
            if shared {
                self.items.insert(name, schema, at, items.len());
            }
            let rule = RuleName::numbered("pyarg_", at, Some(items.len()));
            items.push((Node::Ref(rule), required));
        }
        let args = self.keyed(items);
        rules.push((super::args_rule(at), args));
        rules
    }

    /// Items each at most once, required ones present, `,` and whitespace between two: in any order
    /// up to [`ANY_ORDER_LIMIT`] items, else in the given order (linear rules: the rest after item `i`,
    /// with or without a comma first).
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
        // From the last item back: `after` is the rest with a comma before each item, `first` the rest
        // when nothing is written yet.
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

    /// A Python literal valid against `schema`, `depth` levels inside the arguments.
    pub(crate) fn value(&mut self, schema: &Value, depth: usize) -> Node {
        let Some(map) = schema.as_object() else {
            return self.any(depth);
        };
        if let Some(value) = map.get("const") {
            return literal(value);
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            return Node::Alt(values.iter().map(literal).collect());
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
                let quoted = |quote: char| {
                    Node::Seq(vec![
                        quote_lit(quote),
                        Node::Chars {
                            except: vec![quote, '\\', '\n', '\r'],
                            min: min.unwrap_or(0),
                            max,
                        },
                        quote_lit(quote),
                    ])
                };
                Node::Alt(vec![quoted('"'), quoted('\'')])
            }
            "integer" => integer(),
            "number" => number(),
            "boolean" => Node::Alt(vec![Node::Lit("True".into()), Node::Lit("False".into())]),
            "null" => Node::Lit("None".into()),
            "object" => self.object(map, depth),
            "array" => self.array(map, depth),
            _ => self.any(depth),
        }
    }

    /// `py_str`: a quoted string, any length, with the simple escapes.
    fn string(&mut self) -> Node {
        if !self.string {
            self.string = true;
            let quoted = |quote: char| {
                let escape = Node::Seq(vec![
                    Node::Lit("\\".into()),
                    Node::Alt(
                        ["\\", "'", "\"", "n", "t", "r"]
                            .into_iter()
                            .map(|e| Node::Lit(e.into()))
                            .collect(),
                    ),
                ]);
                Node::Seq(vec![
                    quote_lit(quote),
                    Node::Star(Box::new(Node::Alt(vec![
                        Node::Chars {
                            except: vec![quote, '\\', '\n', '\r'],
                            min: 1,
                            max: None,
                        },
                        escape,
                    ]))),
                    quote_lit(quote),
                ])
            };
            self.rules
                .push(("py_str".into(), Node::Alt(vec![quoted('"'), quoted('\'')])));
        }
        Node::Ref("py_str".into())
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
            return self.dict(self.any_budget(depth + 1));
        };
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut members = Vec::new();
        for (key, schema) in properties {
            let value = self.value(schema, depth + 1);
            let member = Node::Seq(vec![
                literal(&Value::String(key.clone())),
                Node::Ws,
                Node::Lit(":".into()),
                Node::Ws,
                value,
                Node::Ws,
            ]);
            members.push((self.rule(member), required.contains(&key.as_str())));
        }
        let members = self.keyed(members);
        Node::Seq(vec![
            Node::Lit("{".into()),
            Node::Ws,
            members,
            Node::Lit("}".into()),
        ])
    }

    /// Levels an unconstrained value at `depth` may still nest.
    fn any_budget(&self, depth: usize) -> usize {
        ANY_DEPTH.min(MAX_DEPTH.saturating_sub(depth))
    }

    /// Any literal at `depth`: `py_any_K`.
    fn any(&mut self, depth: usize) -> Node {
        let budget = self.any_budget(depth);
        self.any_of(budget)
    }

    /// `py_any_K`: a scalar, or (with `K > 0`) a list or dict of `py_any_{K-1}`.
    fn any_of(&mut self, budget: usize) -> Node {
        let name = super::numbered("py_any_", budget);
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
            Node::Lit("True".into()),
            Node::Lit("False".into()),
            Node::Lit("None".into()),
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

    /// A dict of string keys and `py_any_K` values.
    fn dict(&mut self, budget: usize) -> Node {
        let key = self.string();
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
}

/// `min..=max` of `item` (which ends with its whitespace), `,` and whitespace between two.
pub(crate) fn list(item: Node, min: u64, max: Option<u64>) -> Node {
    let next = || Node::Seq(vec![Node::Lit(",".into()), Node::Ws, item.clone()]);
    if max == Some(0) {
        return Node::Seq(Vec::new());
    }
    let mut items = vec![item.clone()];
    for _ in 1..min.clamp(1, UNROLL_LIMIT) {
        items.push(next());
    }
    let written = min.clamp(1, UNROLL_LIMIT);
    match max {
        Some(max) if max - written.min(max) <= UNROLL_LIMIT => {
            // Each optional item inside the one before.
            let mut tail = Node::Seq(Vec::new());
            for _ in written..max {
                tail = Node::Opt(Box::new(Node::Seq(vec![next(), tail])));
            }
            items.push(tail);
        }
        _ => items.push(Node::Star(Box::new(next()))),
    }
    let list = Node::Seq(items);
    if min == 0 {
        Node::Opt(Box::new(list))
    } else {
        list
    }
}

/// `0`, or a nonzero digit then digits, with an optional minus.
pub(crate) fn integer() -> Node {
    Node::Seq(vec![
        Node::Opt(Box::new(Node::Lit("-".into()))),
        Node::Alt(vec![
            Node::Lit("0".into()),
            Node::Seq(vec![
                Node::Alt(
                    ["1", "2", "3", "4", "5", "6", "7", "8", "9"]
                        .map(|d| Node::Lit(d.into()))
                        .into(),
                ),
                Node::Opt(Box::new(Node::Digits)),
            ]),
        ]),
    ])
}

/// An integer, then an optional fraction and exponent.
pub(crate) fn number() -> Node {
    Node::Seq(vec![
        integer(),
        Node::Opt(Box::new(Node::Seq(vec![
            Node::Lit(".".into()),
            Node::Digits,
        ]))),
        Node::Opt(Box::new(Node::Seq(vec![
            Node::Alt(vec![Node::Lit("e".into()), Node::Lit("E".into())]),
            Node::Opt(Box::new(Node::Alt(vec![
                Node::Lit("-".into()),
                Node::Lit("+".into()),
            ]))),
            Node::Digits,
        ]))),
    ])
}

/// A JSON value as a Python literal node: a string in either quote, anything else as [`repr`] writes it.
pub(crate) fn literal(value: &Value) -> Node {
    match value {
        Value::String(text) => Node::Alt(vec![
            Node::Lit(quote(text, '"').into()),
            Node::Lit(quote(text, '\'').into()),
        ]),
        other => Node::Lit(repr(other).into()),
    }
}

/// A JSON value as Python writes it (strings in `"`).
pub(crate) fn repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(text) => quote(text, '"'),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k, '"'), repr(v)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

/// `text` as a Python string literal in `q`s.
pub(crate) fn quote(text: &str, q: char) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(q);
    // Most values (an enum's words, a key) need no escape: copied whole.
    if !text
        .bytes()
        .any(|b| b == b'\\' || b < 0x20 || b == 0x7f || u32::from(b) == q as u32)
    {
        out.push_str(text);
        out.push(q);
        return out;
    }
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// A Python identifier as the parser reads a keyword (ASCII letters, digits and `_`, no digit first).
pub(crate) fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The calls of every one of `tools` as one standalone grammar, for the structural tag's `grammar`
/// content (which xgrammar reads as GBNF): the root is `NAME(` then that tool's keyword arguments
/// (its `args_AT_0`), for any of the tools; the `)` is the tag's `end`. One grammar for all the calls,
/// rather than one per tool, writes what the tools share once: an arguments rule, an item, a value's
/// side rules, and the any-order sets the renderer shares.
pub(crate) fn calls_grammar(tools: &[CallTool]) -> Grammar {
    let mut py = PyRules::default();
    let mut rules = Vec::with_capacity(1 + tools.len() * 8);
    rules.push(("root".to_owned(), Node::Seq(Vec::new())));
    let mut calls = Vec::with_capacity(tools.len());
    for (at, tool) in tools.iter().enumerate() {
        let mut open = String::with_capacity(tool.name.len() + 1);
        open.push_str(&tool.name);
        open.push('(');
        calls.push(Node::Seq(vec![Node::Lit(open.into()), super::args_ref(at)]));
        rules.extend(py.arguments(at, tool));
    }
    rules[0].1 = Node::Alt(calls);
    rules.append(&mut py.rules);
    Grammar { rules }
}

/// A quote character as a literal (`"` and `'` borrowed, not allocated).
fn quote_lit(quote: char) -> Node {
    Node::Lit(match quote {
        '"' => "\"".into(),
        '\'' => "'".into(),
        other => other.to_string().into(),
    })
}
