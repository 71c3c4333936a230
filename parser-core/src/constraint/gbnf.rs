//! llama.cpp GBNF: JSON schemas as rules, free text that avoids markers, and the grammar tree as rules.
//!
//! # What a schema constrains
//!
//! [`schema_rule`] writes a JSON schema as GBNF, for what llama.cpp's grammars can say:
//!
//! - `type` (one or a list): `string`, `number`, `integer`, `boolean`, `null`, `object`, `array`;
//! - `enum` and `const` (each value written compactly, as `serde_json` prints it);
//! - `properties` in their declared order, the `required` ones always, the others optionally;
//!   `additionalProperties: false` allows no other key, anything else (absent, `true`, a schema) allows
//!   further keys with any value after the declared ones;
//! - `items` (one schema for every item) with `minItems` / `maxItems`;
//! - `anyOf` / `oneOf` (as alternatives; `oneOf`'s "exactly one" is not checked);
//! - `minLength` / `maxLength` of strings (in characters).
//!
//! Not constrained (any value of the right type passes): `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf`, `pattern`, `format`, `patternProperties`, `propertyNames`,
//! `minProperties`, `maxProperties`, `uniqueItems`, `contains`, `prefixItems`, `dependentRequired`,
//! `if`/`then`/`else`, `not`, `allOf`, `$ref` (each of these: any value). Declared properties come in
//! declared order only, and an additional key may repeat a declared one. Whitespace is allowed between
//! JSON tokens. Stricter than JSON itself in two places, so that every accepted value parses with
//! `serde_json` as its type: no `\u` escape of a UTF-16 surrogate, and no `-0` integer.
//!
//! Llguidance's `%json` (the Lark grammar) implements far more of JSON Schema; the GBNF grammar is the
//! looser of the two, never the stricter, for every schema above.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::grammar::{Grammar, Move, Node, repetition, text_automaton};

/// Writes `grammar` as GBNF; its first rule becomes `root`.
pub(crate) fn render(grammar: &Grammar) -> String {
    let mut out = Rules::default();
    out.names.insert("root".to_owned(), 1);
    for (name, _) in &grammar.rules {
        out.names.insert(rule_name(name), 1);
    }
    let mut bodies = Vec::with_capacity(grammar.rules.len());
    for (name, node) in &grammar.rules {
        let body = out.node(node);
        bodies.push((rule_name(name), body));
    }
    let mut text = String::new();
    for (at, (name, body)) in bodies.into_iter().enumerate() {
        let name = if at == 0 { "root".to_owned() } else { name };
        let _ = writeln!(text, "{name} ::= {body}");
    }
    for (name, body) in &out.rules {
        let _ = writeln!(text, "{name} ::= {body}");
    }
    text
}

/// GBNF rule names are `[a-zA-Z0-9-]+`.
fn rule_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The rules written on the side (JSON values, free text), deduplicated by body.
#[derive(Default)]
struct Rules {
    rules: Vec<(String, String)>,
    by_body: HashMap<String, String>,
    names: HashMap<String, usize>,
}

impl Rules {
    /// A rule named after `hint` with this body; an identical body reuses its rule.
    fn add(&mut self, hint: &str, body: String) -> String {
        if let Some(name) = self.by_body.get(&body) {
            return name.clone();
        }
        let name = self.fresh(hint);
        self.by_body.insert(body.clone(), name.clone());
        self.rules.push((name.clone(), body));
        name
    }

    /// A rule name from `hint` that no rule has yet.
    fn fresh(&mut self, hint: &str) -> String {
        let hint = rule_name(hint);
        let mut count = self.names.get(&hint).copied().unwrap_or(0);
        loop {
            count += 1;
            let name = if count == 1 {
                hint.clone()
            } else {
                format!("{hint}-{count}")
            };
            if !self.names.contains_key(&name) {
                self.names.insert(hint.clone(), count);
                self.names.entry(name.clone()).or_insert(1);
                return name;
            }
        }
    }

    /// Reserves a name for a rule whose body refers to itself, then sets it.
    fn reserve(&mut self, hint: &str) -> usize {
        let name = self.fresh(hint);
        self.rules.push((name, String::new()));
        self.rules.len() - 1
    }

    fn node(&mut self, node: &Node) -> String {
        match node {
            Node::Lit(text) => literal(text),
            Node::Seq(items) => {
                let parts: Vec<String> = items.iter().map(|item| self.node(item)).collect();
                match parts.len() {
                    0 => "\"\"".to_owned(),
                    _ => format!("( {} )", parts.join(" ")),
                }
            }
            Node::Alt(items) => {
                let parts: Vec<String> = items.iter().map(|item| self.node(item)).collect();
                format!("( {} )", parts.join(" | "))
            }
            Node::Opt(inner) => format!("( {} )?", self.node(inner)),
            Node::Star(inner) => format!("( {} )*", self.node(inner)),
            Node::Ws => self.ws(),
            Node::Digits => "[0-9]+".to_owned(),
            Node::Json(schema) => self.schema(schema, "args"),
            Node::Text { exclude, until } => self.text(exclude, until.as_deref()),
            Node::Ref(name) => rule_name(name),
            Node::Chars { except, min, max } => {
                let class = negated_class(except).unwrap_or_default();
                format!("{class}{}", repetition(*min, *max))
            }
        }
    }

    fn ws(&mut self) -> String {
        self.add("ws", "[ \\t\\n\\r]*".to_owned())
    }

    /// Free text containing none of `exclude` (nor `until`), then `until` if given: one rule per state
    /// of the automaton that tracks the longest marker prefix just written.
    fn text(&mut self, exclude: &[String], until: Option<&str>) -> String {
        let automaton = text_automaton(exclude, until);
        let base = self.names.len();
        let first = self.rules.len();
        let names: Vec<String> = (0..automaton.states.len())
            .map(|state| self.fresh(&format!("text{base}-s{state}")))
            .collect();
        for state in &automaton.states {
            // Characters that keep no marker prefix go back to state 0 together, as one class; only
            // the others are spelled out.
            let special: Vec<char> = state
                .moves
                .iter()
                .filter(|(_, next)| *next != Move::To(0))
                .map(|(c, _)| *c)
                .collect();
            let mut alternatives = Vec::new();
            if let Some(class) = negated_class(&special) {
                alternatives.push(format!("{class} {}", names[0]));
            }
            for (c, next) in &state.moves {
                match next {
                    Move::To(0) => {}
                    Move::To(to) => {
                        alternatives.push(format!("{} {}", literal(&c.to_string()), names[*to]))
                    }
                    Move::Done => alternatives.push(literal(&c.to_string())),
                    Move::Refused => {}
                }
            }
            if until.is_none() {
                alternatives.push("\"\"".to_owned());
            }
            self.rules.push((String::new(), alternatives.join(" | ")));
        }
        for (offset, name) in names.iter().enumerate() {
            self.rules[first + offset].0 = name.clone();
        }
        names[0].clone()
    }

    /// The rule for a value valid against `schema`.
    fn schema(&mut self, schema: &Value, hint: &str) -> String {
        let body = self.schema_body(schema, hint);
        self.add(hint, body)
    }

    fn schema_body(&mut self, schema: &Value, hint: &str) -> String {
        let Some(map) = schema.as_object() else {
            // `true`, or anything that is not a schema object: any value. `false` admits nothing, which
            // GBNF cannot say; it is read as any value too.
            return self.any_value();
        };
        if let Some(value) = map.get("const") {
            return literal(&compact(value));
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            let parts: Vec<String> = values.iter().map(|v| literal(&compact(v))).collect();
            return format!("( {} )", parts.join(" | "));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(options) = map.get(key).and_then(Value::as_array) {
                let parts: Vec<String> = options
                    .iter()
                    .enumerate()
                    .map(|(at, option)| self.schema(option, &format!("{hint}-{at}")))
                    .collect();
                return format!("( {} )", parts.join(" | "));
            }
        }
        match map.get("type") {
            Some(Value::String(kind)) => self.typed(kind, map, hint),
            Some(Value::Array(kinds)) => {
                let parts: Vec<String> = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| {
                        let body = self.typed(kind, map, hint);
                        self.add(&format!("{hint}-{kind}"), body)
                    })
                    .collect();
                format!("( {} )", parts.join(" | "))
            }
            _ if map.contains_key("properties") => self.typed("object", map, hint),
            _ if map.contains_key("items") => self.typed("array", map, hint),
            _ => self.any_value(),
        }
    }

    fn typed(&mut self, kind: &str, map: &serde_json::Map<String, Value>, hint: &str) -> String {
        match kind {
            "string" => self.string(map),
            "integer" => INTEGER.to_owned(),
            "number" => NUMBER.to_owned(),
            "boolean" => "( \"true\" | \"false\" )".to_owned(),
            "null" => "\"null\"".to_owned(),
            "object" => self.object(map, hint),
            "array" => self.array(map, hint),
            _ => self.any_value(),
        }
    }

    fn string(&mut self, map: &serde_json::Map<String, Value>) -> String {
        let char_rule = self.add("char", CHAR.to_owned());
        let min = map.get("minLength").and_then(Value::as_u64);
        let max = map.get("maxLength").and_then(Value::as_u64);
        let repeat = match (min, max) {
            (None, None) => "*".to_owned(),
            (Some(min), None) => format!("{{{min},}}"),
            (min, Some(max)) => format!("{{{},{max}}}", min.unwrap_or(0)),
        };
        format!("\"\\\"\" {char_rule}{repeat} \"\\\"\"")
    }

    fn object(&mut self, map: &serde_json::Map<String, Value>, hint: &str) -> String {
        let ws = self.ws();
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            if closed {
                return format!("\"{{\" {ws} \"}}\"");
            }
            return self.any_object();
        };
        // Each declared member as `"key" : value`, in declared order.
        let mut members = Vec::with_capacity(properties.len());
        for (at, (key, schema)) in properties.iter().enumerate() {
            let value = self.schema(schema, &format!("{hint}-{at}"));
            let member = format!(
                "{} {ws} \":\" {ws} {value}",
                literal(&serde_json::to_string(key).unwrap_or_default())
            );
            members.push((member, required.contains(&key.as_str())));
        }
        // rest(i, first): members i.. with a comma before each unless it is the first written.
        let extra = if closed {
            None
        } else {
            let value = self.any_value();
            let string = self.string(&serde_json::Map::new());
            let string = self.add("string", string);
            Some(format!("{string} {ws} \":\" {ws} {value}"))
        };
        let mut after = match &extra {
            None => "\"\"".to_owned(),
            Some(member) => format!("( \",\" {ws} {member} {ws} )*"),
        };
        let mut first = match &extra {
            None => "\"\"".to_owned(),
            Some(member) => format!("( {member} {ws} ( \",\" {ws} {member} {ws} )* )?"),
        };
        for (member, required) in members.iter().rev() {
            let after_rule = self.add(&format!("{hint}-rest"), after.clone());
            let first_rule = self.add(&format!("{hint}-first"), first.clone());
            let with_comma = format!("\",\" {ws} {member} {ws} {after_rule}");
            let without = format!("{member} {ws} {after_rule}");
            if *required {
                after = with_comma;
                first = without;
            } else {
                after = format!("( {with_comma} ) | {after_rule}");
                first = format!("( {without} ) | {first_rule}");
            }
        }
        let body = self.add(&format!("{hint}-members"), first);
        format!("\"{{\" {ws} {body} \"}}\"")
    }

    fn array(&mut self, map: &serde_json::Map<String, Value>, hint: &str) -> String {
        let ws = self.ws();
        let item = match map.get("items") {
            Some(items) if items.is_object() => self.schema(items, &format!("{hint}-item")),
            _ => self.any_value(),
        };
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxItems").and_then(Value::as_u64);
        let next = format!("\",\" {ws} {item} {ws}");
        let list = match (min, max) {
            (_, Some(0)) => "\"\"".to_owned(),
            (0, None) => format!("( {item} {ws} ( {next} )* )?"),
            (min, None) => format!("{item} {ws} ( {next} ){{{},}}", min - 1),
            (min, Some(max)) => {
                let tail = format!(
                    "{item} {ws} ( {next} ){{{},{}}}",
                    min.saturating_sub(1),
                    max - 1
                );
                if min == 0 {
                    format!("( {tail} )?")
                } else {
                    tail
                }
            }
        };
        format!("\"[\" {ws} {list} \"]\"")
    }

    /// Any JSON value (recursive rules, written once).
    fn any_value(&mut self) -> String {
        if let Some(name) = self.by_body.get(ANY_VALUE_KEY) {
            return name.clone();
        }
        let value = self.reserve("value");
        let value_name = self.rules[value].0.clone();
        self.by_body
            .insert(ANY_VALUE_KEY.to_owned(), value_name.clone());
        let ws = self.ws();
        let string = self.string(&serde_json::Map::new());
        let string = self.add("string", string);
        let object = format!(
            "\"{{\" {ws} ( {string} {ws} \":\" {ws} {value_name} {ws} ( \",\" {ws} {string} {ws} \":\" {ws} {value_name} {ws} )* )? \"}}\""
        );
        let object = self.add("object", object);
        self.by_body
            .insert(ANY_OBJECT_KEY.to_owned(), object.clone());
        let array =
            format!("\"[\" {ws} ( {value_name} {ws} ( \",\" {ws} {value_name} {ws} )* )? \"]\"");
        let array = self.add("array", array);
        self.rules[value].1 =
            format!("{object} | {array} | {string} | {NUMBER} | \"true\" | \"false\" | \"null\"");
        value_name
    }

    fn any_object(&mut self) -> String {
        self.any_value();
        self.by_body
            .get(ANY_OBJECT_KEY)
            .cloned()
            .unwrap_or_default()
    }
}

const ANY_VALUE_KEY: &str = "\u{0}any-value";
const ANY_OBJECT_KEY: &str = "\u{0}any-object";
/// A string character: unescaped, or an escape; `\\u` escapes of UTF-16 surrogates are left out (a lone
/// one is not a character, and `serde_json` refuses it), so characters beyond the BMP are written raw.
const CHAR: &str = "[^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" ( [0-9a-cA-CeEfF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} ) )";
const INTEGER: &str = "( \"0\" | \"-\"? [1-9] [0-9]* )";
const NUMBER: &str = "( \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )? )";

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A GBNF string literal.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `[^…]`: every character outside `alphabet` (any character but NUL when the alphabet is empty).
fn negated_class(alphabet: &[char]) -> Option<String> {
    if alphabet.is_empty() {
        return Some("[^\\x00]".to_owned());
    }
    let mut out = String::from("[^");
    for &c in alphabet {
        match c {
            ']' | '[' | '\\' | '^' | '-' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push(']');
    Some(out)
}

/// A schema as standalone GBNF (its rule is `root`), for tests and for servers that want a JSON-only
/// grammar.
pub(crate) fn schema_grammar(schema: &Value) -> String {
    let grammar = Grammar {
        rules: vec![("root".to_owned(), Node::Json(schema.clone()))],
    };
    render(&grammar)
}
