//! Calls whose parameters are elements ([`CallName::Elements`](super::CallName::Elements)): a head that
//! names the parameter (and, in Kimi K3, the value's JSON type), the value, and a closer that may
//! repeat the parameter's name (MiniMax-M3); values of declared objects and arrays may nest as child
//! elements (MiniMax-M3). Grammar nodes both renderers share, and the GBNF of one call's arguments for
//! the structural tag. [`ElementTags`] says what the grammars hold.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::grammar::{Grammar, Node};
use super::python::list;
use super::{
    ANY_ORDER_LIMIT, CallFormat, CallTool, ValueForm, args_rule, has_root_definitions, param_rule,
    properties, value_form, with_root_definitions,
};

/// How a call writes each parameter as an element ([`CallName::Elements`](super::CallName::Elements)):
/// `KEY_OPEN key [TYPE_OPEN type] KEY_CLOSE value VALUE_CLOSE [key CLOSE_END]`, with optional
/// whitespace before each parameter.
///
/// What the grammars hold a call to, beside what [`ParameterTags`](super::ParameterTags) lists for
/// tagged parameters (names among the declared properties, each at most once, the required ones
/// present, in any order up to [`ANY_ORDER_LIMIT`]; a string raw, anything else JSON):
///
/// - **Type names** ([`ElementTags::type_open`]): `string` before a raw string; before a JSON value,
///   the JSON type names its schema allows (`number` for a number, `number` or `integer` for an
///   integer, every name for a schema without a type). Not held: that a value of a union schema has
///   the type its head names (the parser reads any non-`string` value as JSON, whatever the name).
/// - **Escaped names** ([`ElementTags::escape`]): the call's and each parameter's name written with
///   `&amp;` and `&quot;`, as the parser reads them back. A name holding `<|` cannot be written, and is
///   left out.
/// - **Closers that name the parameter** ([`ElementTags::close_end`]): a raw string ends at its own
///   closer; at the top level it never starts with the first character of the element opener (the
///   parser would read child elements).
/// - **Nested values** ([`ElementTags::item`]): an object that declares `properties` is its members
///   as child elements in declared order (the required ones present, at least one of them written: an
///   element without children is text), an array with `items` is one `item` element per entry (at
///   least one; an empty array is written `[]`, an object without members `{}`, as JSON text the
///   parser types by the schema); each leaf is text typed by the schema at its place: a string is text
///   without `]`, anything else JSON. Child names that are not plain element names are left out.
///   Nested in declared order only: the parser reads any order, the grammar stays linear. An object
///   that declares no properties (`additionalProperties` only) is JSON text: as elements, each
///   member's closer would repeat a name the schema does not give, and no context-free grammar
///   copies an arbitrary name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementTags {
    /// Before the parameter's name (`<|open|>argument key="`, `]<]minimax[>[<`).
    pub key_open: Cow<'static, str>,
    /// Between the name and the value's JSON type name, when the head carries one (`" type="`).
    pub type_open: Option<Cow<'static, str>>,
    /// Ends the head (`"<|sep|>`, `>`).
    pub key_close: Cow<'static, str>,
    /// Closes the value (`<|close|>argument<|sep|>`), or opens its closer when the closer repeats the
    /// name (`]<]minimax[>[</`).
    pub value_close: Cow<'static, str>,
    /// After the repeated name, when the closer repeats it (`>`).
    pub close_end: Option<Cow<'static, str>>,
    /// Names are entity-escaped attribute values (`&amp;`, `&quot;`).
    pub escape: bool,
    /// Objects and arrays nest as child elements, an array's entries in elements of this name (`item`).
    pub item: Option<Cow<'static, str>>,
    /// Markers that end a value in the parser when its closer is missing: a raw value never holds them.
    pub value_stops: Vec<Cow<'static, str>>,
    /// The whitespace a model writes before each parameter, for the structural tag.
    pub padding: Cow<'static, str>,
}

impl ElementTags {
    /// A name as the format writes it (escaped when the format escapes), `None` when it cannot be
    /// written.
    pub(crate) fn name(&self, name: &str) -> Option<String> {
        if name.is_empty() || name.contains("<|") {
            return None;
        }
        if !self.escape {
            return Some(name.to_owned());
        }
        Some(name.replace('&', "&amp;").replace('"', "&quot;"))
    }

    /// An element name the nested reader takes whole (no whitespace, `<`, `/`, `"`, `>`).
    fn plain(name: &str) -> bool {
        !name.is_empty()
            && !name.contains(|c: char| c.is_whitespace() || matches!(c, '<' | '/' | '"' | '>'))
    }

    /// The closer of the value of the parameter written `key`.
    fn closer(&self, key: &str) -> String {
        match &self.close_end {
            Some(end) => [&self.value_close, key, end].concat(),
            None => self.value_close.to_string(),
        }
    }
}

/// The JSON type names a value of `schema` may carry (`type="…"`), for a value written as JSON.
fn type_names(schema: &Value) -> Vec<&'static str> {
    const ALL: [&str; 6] = ["object", "array", "number", "boolean", "null", "string"];
    let named = |kind: &str| -> &'static [&'static str] {
        match kind {
            "object" => &["object"],
            "array" => &["array"],
            "integer" => &["number", "integer"],
            "number" => &["number"],
            "boolean" => &["boolean"],
            "null" => &["null"],
            "string" => &["string"],
            _ => &ALL,
        }
    };
    let mut out: Vec<&'static str> = Vec::new();
    let kinds: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if kinds.is_empty() {
        return ALL.to_vec();
    }
    for kind in kinds {
        for name in named(kind) {
            if !out.contains(name) {
                out.push(name);
            }
        }
    }
    out
}

/// One call of `tool` (the `at`-th) after its `call_begin`: `PREFIX NAME [COUNTER digits] SUFFIX`,
/// the parameters, the call's closer.
pub(crate) fn call_tail(
    calls: &CallFormat,
    at: usize,
    tool: &CallTool,
    prefix: &str,
    counter: Option<&str>,
    suffix: &str,
    tags: &ElementTags,
) -> Node {
    let name = tags.name(&tool.name).unwrap_or_default();
    let mut items = vec![Node::Lit([prefix, name.as_str()].concat().into())];
    if let Some(counter) = counter {
        items.extend([Node::Lit(counter.to_owned().into()), Node::Digits]);
    }
    items.extend([
        Node::Lit(suffix.to_owned().into()),
        super::args_ref(at),
        Node::Ws,
        Node::Lit(calls.call_end.clone()),
    ]);
    Node::Seq(items)
}

/// The rules of the parameters of the `at`-th tool (`param_AT_I`, `args_AT_0`), and the rules nested
/// values need (`el_AT_N`).
pub(crate) fn parameter_rules(
    at: usize,
    tool: &CallTool,
    tags: &ElementTags,
    markers: &[String],
) -> Vec<(String, Node)> {
    let mut stops: Vec<String> = tags.value_stops.iter().map(|s| s.to_string()).collect();
    stops.extend(markers.iter().cloned());
    stops.retain(|s| !s.is_empty());
    let mut rules = Vec::new();
    let mut nested = Nested {
        at,
        tags,
        rules: Vec::new(),
    };
    let mut items = Vec::new();
    for (index, (key, schema, required)) in properties(tool.parameters()).into_iter().enumerate() {
        let Some(written) = tags.name(key) else {
            continue;
        };
        if tags.item.is_some() && !ElementTags::plain(&written) {
            continue;
        }
        let closer = tags.closer(&written);
        let mut head = vec![
            Node::Ws,
            Node::Lit([&tags.key_open, written.as_str()].concat().into()),
        ];
        let form = value_form(schema);
        if let Some(type_open) = &tags.type_open {
            head.push(Node::Lit(type_open.clone()));
            let names = match form {
                ValueForm::Json(_) => type_names(schema),
                _ => vec!["string"],
            };
            head.push(Node::Alt(
                names.into_iter().map(|n| Node::Lit(n.into())).collect(),
            ));
        }
        head.push(Node::Lit(tags.key_close.clone()));
        let value = match form {
            ValueForm::Json(_) if tags.item.is_some() => Node::Seq(vec![
                nested.value(schema, tool.parameters(), 0),
                Node::Lit(closer.into()),
            ]),
            ValueForm::Json(schema) => Node::Seq(vec![
                Node::Ws,
                json(tool, key, schema),
                Node::Ws,
                Node::Lit(closer.into()),
            ]),
            form => raw(tags, form, &stops, closer, tags.item.is_some()),
        };
        head.push(value);
        rules.push((param_rule(at, index), Node::Seq(head)));
        items.push((Node::Ref(super::param_name(at, index)), required));
    }
    let args = if items.len() > ANY_ORDER_LIMIT {
        Node::Seq(
            items
                .into_iter()
                .map(|(item, required)| {
                    if required {
                        item
                    } else {
                        Node::Opt(Box::new(item))
                    }
                })
                .collect(),
        )
    } else {
        Node::AnyOrder(items)
    };
    rules.push((args_rule(at), args));
    rules.append(&mut nested.rules);
    rules
}

/// A JSON value of the property `key` of `tool` (its schema shared when it is the property's own).
fn json(tool: &CallTool, key: &str, schema: Cow<'_, Value>) -> Node {
    match schema {
        Cow::Borrowed(_) if !has_root_definitions(tool.parameters()) => Node::JsonProperty {
            parameters: tool.shared_parameters().clone(),
            property: key.to_owned(),
        },
        schema => Node::Json(Arc::new(with_root_definitions(
            schema.into_owned(),
            tool.parameters(),
        ))),
    }
}

/// A raw string value and its closer: one of its values, a counted run of characters, or text up to
/// the closer. `guarded`: the text does not start with the first character of the element opener.
fn raw(
    tags: &ElementTags,
    form: ValueForm<'_>,
    stops: &[String],
    closer: String,
    guarded: bool,
) -> Node {
    let first = closer.chars().next().unwrap_or('<');
    let value = match form {
        ValueForm::OneOf(values) => Node::Alt(
            values
                .into_iter()
                .filter(|v| !(guarded && v.starts_with(first)))
                .filter(|v| !stops.iter().any(|s| v.contains(s.as_str())) && !v.contains(&closer))
                .map(|v| Node::Lit(v.into()))
                .collect(),
        ),
        ValueForm::Counted { min, max } => {
            let mut except: Vec<char> = stops.iter().filter_map(|s| s.chars().next()).collect();
            except.extend(tags.value_close.chars().next());
            except.sort_unstable();
            except.dedup();
            Node::Chars { except, min, max }
        }
        _ => {
            let text = Node::Text {
                exclude: stops.into(),
                until: Some(closer.clone()),
            };
            let rest = if guarded {
                // Empty, or a first character that opens no element, then text up to the closer.
                Node::Alt(vec![
                    Node::Lit(closer.into()),
                    Node::Seq(vec![
                        Node::Chars {
                            except: vec![first],
                            min: 1,
                            max: Some(1),
                        },
                        text,
                    ]),
                ])
            } else {
                text
            };
            return rest;
        }
    };
    Node::Seq(vec![value, Node::Lit(closer.into())])
}

/// The rules of nested values of one tool.
struct Nested<'t> {
    at: usize,
    tags: &'t ElementTags,
    rules: Vec<(String, Node)>,
}

/// How deep nested values are written as elements; deeper, they are JSON text.
const NEST_DEPTH: usize = 4;

impl Nested<'_> {
    fn rule(&mut self, body: Node) -> Node {
        let mut name = super::numbered("el_", self.at);
        name.push('_');
        super::grammar::push_number(&mut name, self.rules.len() as u64);
        self.rules.push((name.clone(), body));
        Node::Ref(name.into())
    }

    /// A value of `schema` (a property of `root`) as the nested reader takes it, without its closer.
    fn value(&mut self, schema: &Value, root: &Value, depth: usize) -> Node {
        let object = schema.get("type").and_then(Value::as_str) == Some("object")
            || (schema.get("type").is_none() && schema.get("properties").is_some());
        let array = schema.get("type").and_then(Value::as_str) == Some("array");
        let plain_shape = schema.get("anyOf").is_none() && schema.get("oneOf").is_none();
        if depth < NEST_DEPTH && plain_shape && object {
            let members = properties(schema);
            let mut children = Vec::new();
            for (key, member, required) in members {
                if !ElementTags::plain(key) {
                    if required {
                        // A required member that cannot be written: the object as JSON text.
                        return self.leaf(schema, root);
                    }
                    continue;
                }
                let value = match value_form(member) {
                    ValueForm::Json(_) => self.value(member, root, depth + 1),
                    _ => self.leaf(member, root),
                };
                let element = self.element(key, value);
                children.push((element, required));
            }
            if children.is_empty() {
                return self.leaf(schema, root);
            }
            let body = if children.iter().any(|(_, required)| *required) {
                Node::Seq(
                    children
                        .into_iter()
                        .map(|(c, required)| if required { c } else { Node::Opt(Box::new(c)) })
                        .collect(),
                )
            } else {
                // At least one member: the first written, then any of those after it.
                let mut ways = vec![Node::Lit("{}".into())];
                for first in 0..children.len() {
                    let mut way = vec![children[first].0.clone()];
                    way.extend(
                        children[first + 1..]
                            .iter()
                            .map(|(c, _)| Node::Opt(Box::new(c.clone()))),
                    );
                    ways.push(Node::Seq(way));
                }
                Node::Alt(ways)
            };
            return self.rule(body);
        }
        if depth < NEST_DEPTH
            && plain_shape
            && array
            && let Some(items) = schema.get("items").filter(|i| i.is_object())
        {
            let item_name = self.tags.item.clone().unwrap_or_default();
            let inner = match value_form(items) {
                ValueForm::Json(_) => self.value(items, root, depth + 1),
                _ => self.leaf(items, root),
            };
            let element = self.element(&item_name, inner);
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let max = schema.get("maxItems").and_then(Value::as_u64);
            if max == Some(0) {
                return Node::Lit("[]".into());
            }
            // `list` separates entries with `,`: the entries of an element list stand side by side.
            let entries = side_by_side(element, min.max(1), max);
            let body = if min == 0 {
                Node::Alt(vec![Node::Lit("[]".into()), entries])
            } else {
                entries
            };
            return self.rule(body);
        }
        self.leaf(schema, root)
    }

    /// `OPEN name CLOSE value OPEN/name CLOSE` (a child element).
    fn element(&mut self, name: &str, value: Node) -> Node {
        let end = self.tags.close_end.clone().unwrap_or_default();
        self.rule(Node::Seq(vec![
            Node::Lit(
                [&self.tags.key_open, name, &self.tags.key_close]
                    .concat()
                    .into(),
            ),
            value,
            Node::Lit([&self.tags.value_close, name, &end].concat().into()),
        ]))
    }

    /// Text the parser types by `schema`: a string without `]` (no marker starts in it), its values
    /// when it has them, anything else JSON.
    fn leaf(&mut self, schema: &Value, root: &Value) -> Node {
        match value_form(schema) {
            ValueForm::OneOf(values) => Node::Alt(
                values
                    .into_iter()
                    .filter(|v| !v.contains(']'))
                    .map(|v| Node::Lit(v.into()))
                    .collect(),
            ),
            ValueForm::Counted { min, max } => Node::Chars {
                except: vec![']'],
                min,
                max,
            },
            ValueForm::Free => Node::Chars {
                except: vec![']'],
                min: 0,
                max: None,
            },
            ValueForm::Json(schema) => {
                Node::Json(Arc::new(with_root_definitions(schema.into_owned(), root)))
            }
        }
    }
}

/// `min..=max` of `item`, nothing between two.
fn side_by_side(item: Node, min: u64, max: Option<u64>) -> Node {
    // `list` writes `, ` between two; its shape is reused with the separator dropped.
    strip_separators(list(item, min, max))
}

fn strip_separators(node: Node) -> Node {
    match node {
        Node::Seq(items) => {
            let items: Vec<Node> = items
                .into_iter()
                .filter(|n| !matches!(n, Node::Ws) && !matches!(n, Node::Lit(t) if t == ","))
                .map(strip_separators)
                .collect();
            Node::Seq(items)
        }
        Node::Opt(inner) => Node::Opt(Box::new(strip_separators(*inner))),
        Node::Star(inner) => Node::Star(Box::new(strip_separators(*inner))),
        other => other,
    }
}

/// The arguments of `tool` as a standalone grammar for the structural tag's `grammar` content, which
/// xgrammar reads as GBNF: what follows the tag's `begin` — with a counter, its digits and `SUFFIX`
/// (`begin` stops before the digits) — then the parameters.
pub(crate) fn arguments_grammar(
    tool: &CallTool,
    counter: bool,
    suffix: &str,
    tags: &ElementTags,
    markers: &[String],
) -> Grammar {
    let mut root = Vec::new();
    if counter {
        root.extend([Node::Digits, Node::Lit(suffix.to_owned().into())]);
    }
    root.extend([super::args_ref(0), Node::Ws]);
    let mut rules = vec![("root".to_owned(), Node::Seq(root))];
    rules.extend(parameter_rules(0, tool, tags, markers));
    Grammar { rules }
}
