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
//! Python calls ([`CallName::Python`]) are one `tag` from the call's opener to `)`, whose content is a
//! `grammar`: the GBNF of `NAME(` and the keyword arguments of any tool (xgrammar reads GBNF as its
//! EBNF; see `python_calls`). Calls one per line in a section (Olmo 3) are separated by the line
//! break, the padding inside the section's markers.
//!
//! A Python dict call ([`CallName::PythonDict`]) is a `tag` from its `{` to its arguments key, whose
//! content is a `grammar`: the GBNF of its arguments dict.
//!
//! A Gemma call ([`CallName::Gemma`]) is a `tag` from its opener and `call:NAME` to its closer, whose
//! content is a `grammar`: the GBNF of its arguments object.
//!
//! A call of elements ([`CallName::Elements`]) is a `tag` from its opener to the counter's digits (or,
//! without a counter, its whole head) to its closer, whose content is a `grammar`: the GBNF of the
//! digits and the rest of the head, then the parameters.
//!
//! A JSON call whose id comes first ([`CallName::JsonFieldsIdFirst`]) begins with the id's key; its
//! content is the id's digits, then the name and arguments keys around the name, then the arguments.
//!
//! Calls with tagged parameters ([`CallName::Parameters`]) are one `tag` from the calls' opener,
//! whose content is a `grammar`: the GBNF of the rest of a call of any tool, as the Lark and GBNF forms
//! write it (parameters in any order up to [`ANY_ORDER_LIMIT`](super::ANY_ORDER_LIMIT), values framed
//! or not, whitespace where they allow it), through the call's closer and the whitespace after it.
//! Its `end` is empty, the calls' separator is the format's without its whitespace, and whitespace
//! may stand before the calls of a required call and around a section's: a corpus output the
//! grammars accept, the structural tag accepts too.

use std::borrow::Cow;
use std::rc::Rc;

use serde_json::Value;

use super::grammar::{Grammar, Node};
use super::{
    CallName, CallTool, FormatDescription, ParameterMemo, ParameterTags, ReasoningStart, Shape,
    counted_except, parameter_rules, value_stops,
};

/// A JSON object of these members, each value converted into a [`Json`]: its members sorted by name,
/// as `serde_json`'s map keeps them, so that the text is what serializing the tag as a `Value` writes.
macro_rules! object {
    ($($key:literal: $value:expr),* $(,)?) => {{
        let mut members: Vec<(&'static str, Json<'_>)> = vec![$(($key, Json::from($value))),*];
        members.sort_unstable_by_key(|(key, _)| *key);
        Json::Object(members)
    }};
}

/// The structural tag as it is built, before it is written: JSON whose schemas stay borrowed from
/// the request's tools (copying each into a `serde_json::Value`, and dropping the copy, was most of a
/// structural tag's cost), and whose member names are the tag's own.
#[derive(Clone, Debug)]
enum Json<'s> {
    Object(Vec<(&'static str, Json<'s>)>),
    Array(Vec<Json<'s>>),
    Str(Cow<'s, str>),
    Bool(bool),
    /// A JSON schema, written as `serde_json` writes it.
    Schema(Cow<'s, Value>),
    /// A part the tag holds more than once (a tool's call tag, in and out of a section), shared
    /// rather than copied, and written once: its text is copied where it stands again (Kimi's tags
    /// cloned, written twice and dropped twice were 40% of its structural tag).
    Shared(Rc<Json<'s>>),
}

impl<'s> From<&'s str> for Json<'s> {
    fn from(text: &'s str) -> Self {
        Json::Str(Cow::Borrowed(text))
    }
}

impl From<String> for Json<'_> {
    fn from(text: String) -> Self {
        Json::Str(Cow::Owned(text))
    }
}

impl From<bool> for Json<'_> {
    fn from(value: bool) -> Self {
        Json::Bool(value)
    }
}

impl<'s> From<Vec<Json<'s>>> for Json<'s> {
    fn from(items: Vec<Json<'s>>) -> Self {
        Json::Array(items)
    }
}

impl<'s> From<Vec<&'s str>> for Json<'s> {
    fn from(items: Vec<&'s str>) -> Self {
        Json::Array(items.into_iter().map(Json::from).collect())
    }
}

/// The structural tag of a request as compact JSON text: what `serde_json::to_string` writes of the
/// tag as a `Value` (members in name order), each tool's schema serialized in place.
pub(crate) fn render_text(shape: &Shape) -> String {
    let tag = skeleton(shape);
    // Sized for the tools' tags (no copy of a long text as it grows).
    let mut out = String::with_capacity(2048 + shape.tools.len() * 2048);
    write_json(&mut out, &tag, &mut Vec::new());
    out
}

/// A schema of at least this many bytes of text is remembered where it was written, and copied
/// from there when the tag holds it again (Kimi's calls stand both in and out of their section:
/// every tool's schema twice).
const REPEATED_SCHEMA: usize = 256;

/// Writes `json`; `written` holds where each long schema and each shared part written so far stands
/// in `out`, by its address (a tag borrows each tool's schema, so a repeated one has the same
/// address; a [`Json::Shared`] part is one allocation wherever it stands).
fn write_json(out: &mut String, json: &Json<'_>, written: &mut Vec<(*const (), usize, usize)>) {
    match json {
        Json::Object(members) => {
            out.push('{');
            for (at, (key, member)) in members.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                // The tag's own member names need no escape.
                out.push('"');
                out.push_str(key);
                out.push_str("\":");
                write_json(out, member, written);
            }
            out.push('}');
        }
        Json::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                write_json(out, item, written);
            }
            out.push(']');
        }
        Json::Str(text) => write_string(out, text),
        Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        Json::Schema(schema) => {
            let address = std::ptr::from_ref::<Value>(schema).cast::<()>();
            if let Some(&(_, start, end)) = written.iter().find(|(at, _, _)| *at == address) {
                out.extend_from_within(start..end);
                return;
            }
            let start = out.len();
            write_value(out, schema);
            if out.len() - start >= REPEATED_SCHEMA {
                written.push((address, start, out.len()));
            }
        }
        Json::Shared(part) => {
            let address = Rc::as_ptr(part).cast::<()>();
            if let Some(&(_, start, end)) = written.iter().find(|(at, _, _)| *at == address) {
                out.extend_from_within(start..end);
                return;
            }
            let start = out.len();
            write_json(out, part, written);
            written.push((address, start, out.len()));
        }
    }
}

/// Writes `value` compactly, as `serde_json::to_writer` does.
pub(crate) fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            out.push('{');
            for (at, (key, member)) in map.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, member);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::String(text) => write_string(out, text),
        Value::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        Value::Null => out.push_str("null"),
        // An integer in plain decimal, as `serde_json` writes one (through `itoa`), without its
        // string per number: about 250 instructions with the allocation and its free, against 65
        // (17 K a build of Kimi K2's tag, which has 90 numbers). A negative one only when below
        // zero, so that anything else (a float, or with `arbitrary_precision` any other text) is
        // written by `Number`'s `Display`, which writes what serializing it does.
        Value::Number(number) => {
            if let Some(n) = number.as_u64() {
                super::grammar::push_number(out, n);
            } else if let Some(n) = number.as_i64()
                && n < 0
            {
                out.push('-');
                super::grammar::push_number(out, n.unsigned_abs());
            } else {
                // Writing to a `String` cannot fail.
                let _ = std::fmt::Write::write_fmt(out, format_args!("{number}"));
            }
        }
    }
}

/// A JSON string as `serde_json` writes it.
fn write_string(out: &mut String, text: &str) {
    out.push('"');
    super::grammar::push_json_escaped(out, text);
    out.push('"');
}

/// The structural tag of a request.
fn skeleton<'s>(shape: &'s Shape) -> Json<'s> {
    let format = &shape.format;
    let calls = &format.calls;
    let const_string = |value: &str| object! {"type": "const_string", "value": value.to_owned()};
    let tags: Vec<Json<'s>> = match &calls.name {
        // One tag for the calls of every tool (see `parameters_calls`, `python_calls`).
        CallName::Parameters { parameters, .. } if !shape.tools.is_empty() => {
            vec![parameters_calls(format, &shape.tools, parameters)]
        }
        CallName::Python if !shape.tools.is_empty() => vec![python_calls(format, &shape.tools)],
        _ => shape.tools.iter().map(|tool| {
            let (tool_name, schema) = (&tool.name, tool.parameters());
            let arguments =
                || object! {"type": "json_schema", "json_schema": Json::Schema(Cow::Borrowed(schema))};
            match &calls.name {
                CallName::JsonFields {
                    name,
                    arguments: key,
                } => object! {
                    "type": "tag",
                    "begin": format!(
                        "{}{}{{{}: {}, {}: ",
                        calls.call_begin,
                        calls.padding,
                        quoted(name),
                        quoted(tool_name),
                        quoted(key)
                    ),
                    "content": arguments(),
                    "end": format!("}}{}{}", calls.padding, calls.call_end),
                },
                CallName::JsonFieldsIdFirst {
                    id,
                    name,
                    arguments: key,
                } => object! {
                    "type": "tag",
                    "begin": format!(
                        "{}{}{{{}: \"",
                        calls.call_begin,
                        calls.padding,
                        quoted(id),
                    ),
                    "content": object! {"type": "sequence", "elements": vec![
                        object! {"type": "regex", "pattern": "[0-9]+"},
                        const_string(&format!(
                            "\", {}: {}, {}: ",
                            quoted(name),
                            quoted(&tool.name),
                            quoted(key)
                        )),
                        arguments(),
                    ]},
                    "end": format!("}}{}{}", calls.padding, calls.call_end),
                },
                CallName::NameAsKey => object! {
                    "type": "tag",
                    "begin": format!(
                        "{}{}{{{}: ",
                        calls.call_begin,
                        calls.padding,
                        quoted(tool_name)
                    ),
                    "content": arguments(),
                    "end": format!("}}{}{}", calls.padding, calls.call_end),
                },
                CallName::Tagged {
                    prefix,
                    index_separator,
                    suffix,
                    id_first: Some(id_end),
                    ..
                } => {
                    // The id first: the name is in the content, after the id's digits.
                    let mut elements = vec![
                        object! {"type": "regex", "pattern": "[0-9]+"},
                        const_string(&format!("{id_end}{prefix}{}", tool.name)),
                    ];
                    if let Some(separator) = index_separator {
                        elements.push(const_string(separator));
                        elements.push(object! {"type": "regex", "pattern": "[0-9]+"});
                    }
                    elements.push(const_string(suffix));
                    elements.push(arguments());
                    object! {
                        "type": "tag",
                        "begin": format!("{}{}", calls.call_begin, calls.padding),
                        "content": object! {"type": "sequence", "elements": elements},
                        "end": format!("{}{}", calls.padding, calls.call_end),
                    }
                }
                CallName::Tagged {
                    prefix,
                    index_separator,
                    suffix,
                    tight,
                    ..
                } => {
                    let padding = if *tight { "" } else { calls.padding.as_ref() };
                    let begin = format!("{}{padding}{prefix}{}", calls.call_begin, tool.name);
                    let elements = match index_separator {
                        Some(separator) => vec![
                            const_string(separator),
                            object! {"type": "regex", "pattern": "[0-9]+"},
                            const_string(suffix),
                            arguments(),
                        ],
                        None => vec![const_string(suffix), arguments()],
                    };
                    object! {
                        "type": "tag",
                        "begin": begin,
                        "content": object! {"type": "sequence", "elements": elements},
                        "end": format!("{}{}", calls.padding, calls.call_end),
                    }
                }
                CallName::Parameters { parameters, .. } => {
                    parameters_calls(format, std::slice::from_ref(tool), parameters)
                }
                CallName::Python => python_calls(format, std::slice::from_ref(tool)),
                CallName::PythonDict { name, arguments } => object! {
                    "type": "tag",
                    "begin": format!(
                        "{}{}{}",
                        calls.call_begin,
                        calls.padding,
                        super::dict::tag_begin(name, arguments, tool)
                    ),
                    "content": object! {
                        "type": "grammar",
                        "grammar": super::dict::arguments_grammar(tool).gbnf(),
                    },
                    "end": format!("}}{}{}", calls.padding, calls.call_end),
                },
                CallName::Gemma { delimiter } => object! {
                    "type": "tag",
                    "begin": format!("{}{}call:{}", calls.call_begin, calls.padding, tool.name),
                    "content": object! {
                        "type": "grammar",
                        "grammar": super::gemma::arguments_grammar(
                            tool,
                            delimiter,
                            vec![calls.call_end.to_string()],
                        )
                        .gbnf(),
                    },
                    "end": format!("{}{}", calls.padding, calls.call_end),
                },
                CallName::Elements {
                    prefix,
                    counter,
                    suffix,
                    parameters,
                } => {
                    // The head in `begin` up to the counter's digits, or whole without a counter;
                    // the digits, the rest of the head and the parameters in a grammar.
                    let name = parameters.name(tool_name).unwrap_or_default();
                    let grammar = super::elements::arguments_grammar(
                        tool,
                        counter.is_some(),
                        suffix,
                        parameters,
                        &format.markers(),
                    );
                    let after_name = counter.as_deref().unwrap_or(suffix);
                    object! {
                        "type": "tag",
                        "begin": format!("{}{prefix}{name}{after_name}", calls.call_begin),
                        "content": object! {"type": "grammar", "grammar": grammar.gbnf()},
                        "end": calls.call_end.as_ref(),
                    }
                }
                CallName::Enclosed {
                    prefix,
                    open,
                    close,
                } => object! {
                    "type": "tag",
                    "begin": format!(
                        "{}{}{prefix}{}{open}",
                        calls.call_begin, calls.padding, tool_name
                    ),
                    "content": arguments(),
                    "end": format!("{close}{}{}", calls.padding, calls.call_end),
                },
            }
        })
        .collect(),
    };
    // Calls in and out of a section hold every tag twice: each tag shared (only there, where the
    // sharing pays for its allocation).
    let tags: Vec<Json<'s>> = if calls.section_optional && calls.section.is_some() {
        tags.into_iter()
            .map(|tag| Json::Shared(Rc::new(tag)))
            .collect()
    } else {
        tags
    };
    let free = || object! {"type": "any_text"};
    // A bare format's text cannot open a call: the parser would read one.
    let opening = format
        .call_opening()
        .map(|c| super::grammar::regex_escape(&c.to_string()));
    let bare_text = object! {"type": "regex", "pattern": format!(
        r"\s*([^\s{}][\s\S]*)?",
        opening.unwrap_or_default()
    )};
    let answer = match &shape.json {
        Some(schema) => {
            object! {"type": "json_schema", "json_schema": Json::Schema(Cow::Borrowed(schema))}
        }
        None if format.is_bare() => bare_text.clone(),
        None => free(),
    };
    let rest = if tags.is_empty() {
        answer
    } else {
        let stop_after_first = !shape.parallel;
        // Calls of tagged parameters end with the whitespace after them (see `parameters_calls`).
        let widened = matches!(calls.name, CallName::Parameters { .. });
        let separator = if widened {
            calls.separator.trim()
        } else {
            calls.separator.as_ref()
        };
        let with_separator = |tags: Vec<Json<'s>>| {
            let calls_of = object! {
                "type": "tags_with_separator",
                "tags": tags,
                "separator": separator,
                "at_least_one": true,
                "stop_after_first": stop_after_first,
            };
            if calls.array && calls.section.is_none() {
                // A bare list: its brackets around the calls.
                object! {"type": "tag", "begin": "[", "content": calls_of, "end": "]"}
            } else {
                calls_of
            }
        };
        let block = match &calls.section {
            None if shape.required => with_separator(tags),
            // Bare calls (no marker to trigger on): the calls, or text that cannot open one.
            None if format.is_bare() => object! {"type": "or", "elements": vec![
                with_separator(tags),
                bare_text,
            ]},
            None => object! {
                "type": "triggered_tags",
                "triggers": vec![calls.call_begin.as_ref()],
                "tags": tags,
                "at_least_one": false,
                "stop_after_first": stop_after_first,
            },
            Some((opener, closer)) => {
                // The section's opener triggers it; an array's brackets stand right inside its markers.
                let (begin, end) = if calls.array {
                    (format!("{opener}["), format!("]{closer}"))
                } else if format.python_lines() {
                    let padding = &calls.padding;
                    (format!("{opener}{padding}"), format!("{padding}{closer}"))
                } else {
                    (opener.to_string(), closer.to_string())
                };
                let section = |tags: Vec<Json<'s>>| {
                    let content = if widened {
                        // Whitespace before the first call, as the grammars allow.
                        object! {"type": "sequence", "elements": vec![
                            whitespace(),
                            with_separator(tags),
                        ]}
                    } else {
                        with_separator(tags)
                    };
                    object! {
                        "type": "tag",
                        "begin": begin.clone(),
                        "content": content,
                        "end": end.clone(),
                    }
                };
                match (shape.required, calls.section_optional) {
                    (true, false) => section(tags),
                    (true, true) => object! {"type": "or", "elements": vec![
                        section(tags.clone()),
                        with_separator(tags),
                    ]},
                    (false, false) => object! {
                        "type": "triggered_tags",
                        "triggers": vec![opener.as_ref()],
                        "tags": vec![section(tags)],
                        "at_least_one": false,
                        "stop_after_first": true,
                    },
                    (false, true) => {
                        let mut all = vec![section(tags.clone())];
                        all.extend(tags);
                        object! {
                            "type": "triggered_tags",
                            "triggers": vec![opener.as_ref(), calls.call_begin.as_ref()],
                            "tags": all,
                            "at_least_one": false,
                            "stop_after_first": stop_after_first,
                        }
                    }
                }
            }
        };
        if widened && shape.required {
            // Whitespace before the calls and after a section, as the grammars allow (a call of
            // tagged parameters holds the whitespace after it).
            let mut elements = vec![whitespace(), block];
            if calls.section.is_some() {
                elements.push(whitespace());
            }
            object! {"type": "sequence", "elements": elements}
        } else {
            block
        }
    };
    let rest = match (&shape.json, shape.tools.is_empty(), shape.required) {
        (Some(schema), false, false) => {
            // Content as JSON, or calls.
            object! {"type": "or", "elements": vec![
                object! {"type": "json_schema", "json_schema": Json::Schema(Cow::Borrowed(schema))},
                rest,
            ]}
        }
        _ => rest,
    };
    let format = match (&format.reasoning, shape.start) {
        (Some(reasoning), ReasoningStart::Inside) => object! {"type": "sequence", "elements": vec![
            object! {"type": "tag", "begin": "", "content": free(), "end": reasoning.close.as_ref()},
            rest,
        ]},
        (Some(reasoning), ReasoningStart::Optional) => {
            object! {"type": "sequence", "elements": vec![
                object! {"type": "optional", "content": object! {
                    "type": "tag",
                    "begin": reasoning.open.as_ref(),
                    "content": free(),
                    "end": reasoning.close.as_ref(),
                }},
                rest,
            ]}
        }
        _ => rest,
    };
    object! {"type": "structural_tag", "format": format}
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The calls with tagged parameters ([`CallName::Parameters`]) as one `tag` from the calls' opener,
/// whose content is a `grammar` (xgrammar reads GBNF as its EBNF) of the rest of a call of any of
/// `tools` as the Lark and GBNF forms write it — the name, the parameters in any order (up to
/// [`ANY_ORDER_LIMIT`]), values with or without their framing, whitespace wherever those forms allow
/// it — through the call's closer and the whitespace after it, so that its `end` is empty and any
/// whitespace may stand between two calls (the tags' separator is the format's without its
/// whitespace).
///
/// The opener alone begins the tag: the grammars allow whitespace between it and the name's prefix,
/// which no exact `begin` can say; and one grammar for every tool renders what the tools share (a
/// value's schema, the text of a raw value) once.
///
/// [`ANY_ORDER_LIMIT`]: super::ANY_ORDER_LIMIT
fn parameters_calls<'s>(
    format: &'s FormatDescription,
    tools: &[CallTool],
    tags: &ParameterTags,
) -> Json<'s> {
    let stops = value_stops(tags, &format.markers());
    let excluded = counted_except(tags, &stops);
    let values = (stops.into(), excluded);
    let mut rules = Vec::with_capacity(1 + tools.len() * 10);
    rules.push(("root".to_owned(), Node::Seq(Vec::new())));
    let mut calls = Vec::with_capacity(tools.len());
    let mut memo = ParameterMemo::for_tools(tools);
    for (at, tool) in tools.iter().enumerate() {
        calls.push(format.call_tail(at, tool));
        rules.extend(parameter_rules(at, tool, tags, &values, &mut memo));
    }
    rules[0].1 = Node::Seq(vec![Node::Alt(calls), Node::Ws]);
    object! {
        "type": "tag",
        "begin": format.calls.call_begin.as_ref(),
        "content": object! {"type": "grammar", "grammar": Grammar { rules }.gbnf()},
        "end": "",
    }
}

/// The Python calls ([`CallName::Python`]) of `tools` as one `tag` whose content is a `grammar` of
/// `NAME(` and the keyword arguments for any of the tools ([`super::python::calls_grammar`]), and
/// whose `end` is the `)`: the texts of one tag per tool (`NAME(` as its `begin`), in one grammar that
/// writes what the tools share once. Calls one per line (Olmo 3) begin at the name, the padding
/// inside the section's markers; others at the call's opener and padding.
fn python_calls<'s>(format: &'s FormatDescription, tools: &[CallTool]) -> Json<'s> {
    let calls = &format.calls;
    let (begin, end) = if format.python_lines() {
        (String::new(), ")".to_owned())
    } else {
        (
            format!("{}{}", calls.call_begin, calls.padding),
            format!("){}{}", calls.padding, calls.call_end),
        )
    };
    object! {
        "type": "tag",
        "begin": begin,
        "content": object! {
            "type": "grammar",
            "grammar": super::python::calls_grammar(tools).gbnf(),
        },
        "end": end,
    }
}

/// Optional whitespace, as the grammars' `Node::Ws` writes it.
fn whitespace<'s>() -> Json<'s> {
    object! {"type": "regex", "pattern": r"[ \t\n\r]*"}
}
