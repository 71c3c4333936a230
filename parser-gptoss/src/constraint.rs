//! Constrained decoding for GPT-OSS: harmony messages as a grammar, built from [`crate::markers`] with
//! [`parser_core::constraint`]'s pieces ([`Grammar`], [`Node`]: `%json` arguments in Lark, our
//! JSON-schema converter in GBNF, free text that avoids every special token).
//!
//! Harmony is messages, not tag-delimited reasoning, so it does not fit a `FormatDescription`. The
//! grammar of one request, from where the prompt leaves the output (normally at the first header,
//! after the prompt's `<|start|>assistant`):
//!
//! ```text
//! analysis messages*   <|channel|>analysis<|message|>TEXT<|end|>               (free reasoning)
//! then the reply:
//!   calls              <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>
//!                      (NAME a declared tool, arguments by its schema; `required` and a named
//!                      function: at least one; parallel calls off: exactly one)
//!   or a final answer  <|channel|>final<|message|>TEXT<|return|>                (`auto` with a
//!                      `response_format`; `none`: only this, never a call header)
//! ```
//!
//! Every message after the first starts with `<|start|>assistant`; whitespace between messages is
//! allowed (the parser drops it), the `<|call|>` or `<|return|>` ending the output may be left out
//! (a server strips stop tokens). `auto` with tools and no `response_format` is lazy: the grammar
//! applies from the first call header (`<|channel|>commentary to=functions.`), the analysis and
//! preamble messages before it are free. A prompt that already opened a body starts the output inside
//! it (free text up to `<|end|>`, or the answer itself when no call may follow); one that opened a call
//! starts inside its arguments. A prompt that ends inside a header is refused (an `Error`).
//!
//! ```
//! use parser_core::constraint::{ConstraintRequest, ToolChoice};
//! use parser_core::{ParseOptions, Tools};
//! use std::sync::Arc;
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
//! }}]))
//! .unwrap();
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<|start|>user<|message|>Weather?<|end|><|start|>assistant")
//!     .with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_gptoss::constraint::gpt_oss(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.lark().contains(
//!     r#""commentary to=functions.get_weather" (" ")? "<|constrain|>json<|message|>") json_1"#
//! ));
//! assert!(constraint.gbnf().starts_with("root ::= "));
//!
//! let auto = parser_gptoss::constraint::gpt_oss(&options, &ConstraintRequest::default()).unwrap();
//! assert!(auto.lazy);
//! assert_eq!(auto.triggers.words, ["<|channel|>commentary to=functions."]);
//! ```

use parser_core::constraint::{
    Constraint, ConstraintEntry, ConstraintRequest, Grammar, Node, ResponseFormat, Triggers,
    ecma_escape,
};
use parser_core::{Error, ErrorKind, ParseOptions};
use serde_json::{Value, json};
use std::sync::Arc;

use crate::header::Field;
use crate::markers::*;
use crate::policy::HarmonyPolicy;
use crate::prompt::{self, Start};

/// What starts every message after the output's first: the role the prompt wrote for the first.
const NEXT: &str = "<|start|>assistant";

/// The header of a call of `name`, after `<|channel|>`, as the structural tag writes it.
fn call_header(name: &str) -> String {
    format!("{COMMENTARY} {RECIPIENT}{FUNCTIONS}{name} {CONSTRAIN}json{MESSAGE}")
}

/// The same header in the grammars: the space before `<|constrain|>` may be left out (both
/// spellings are common; the parser reads both).
fn call_header_node(name: &str) -> Node {
    Node::Seq(vec![
        Node::Lit(format!("{COMMENTARY} {RECIPIENT}{FUNCTIONS}{name}").into()),
        Node::Opt(Box::new(Node::Lit(" ".into()))),
        Node::Lit(format!("{CONSTRAIN}json{MESSAGE}").into()),
    ])
}

/// The special tokens the grammar writes, which the detokenizer must keep.
const PRESERVED: &[&str] = &[START, CHANNEL, CONSTRAIN, MESSAGE, END, CALL, RETURN];

/// The constraint of a request for [`crate::gpt_oss`]; see the module docs.
///
/// Errors: those of [`ConstraintRequest::allowed_tools`]; a prompt that ends inside a header; a prompt
/// that opened a call of a function the request does not allow.
pub fn gpt_oss(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    let (tools, required) = request.allowed_tools(options.tools.as_deref())?;
    let start = prompt::start(options, &HarmonyPolicy::from(options.policy));
    let json = match &request.response_format {
        ResponseFormat::Text => None,
        ResponseFormat::JsonSchema(schema) => Some(schema),
    };
    let lazy = !tools.is_empty() && !required && json.is_none() && !matches!(start, Start::Call(_));
    // The call header up to the name: where a call starts, on the first message or after `<|start|>`.
    let trigger = format!("{CHANNEL}{COMMENTARY} {RECIPIENT}{FUNCTIONS}");
    let triggers = if lazy {
        Triggers {
            patterns: vec![format!("^[\\s\\S]*?({})", ecma_escape(&trigger))],
            words: vec![trigger],
        }
    } else {
        Triggers::default()
    };
    // The grammar tree and the structural tag are built on first access, from what they own (a
    // server that takes the structural tag never builds the tree); what can fail is checked now.
    let tag_tools: Arc<[(String, Arc<Value>)]> = tools
        .iter()
        .map(|tool| (tool.name.clone(), tool.shared_parameters().clone()))
        .collect();
    if let Some(error) = start_error(&tag_tools, &start, lazy) {
        return Err(error);
    }
    let parallel = request.parallel_tool_calls;
    let (grammar_tools, grammar_start, grammar_json) =
        (Arc::clone(&tag_tools), start.clone(), json.cloned());
    let tag_json = json.cloned();
    let mut constraint = Constraint::from_text_builders(
        move || {
            harmony_grammar(
                &grammar_tools,
                required,
                parallel,
                grammar_json.as_ref(),
                &grammar_start,
                lazy,
            )
        },
        move || structural_tag_text(&tag_tools, required, parallel, tag_json.as_ref(), &start),
    );
    constraint.triggers = triggers;
    constraint.lazy = lazy;
    constraint.preserved_tokens = PRESERVED.iter().map(|&t| t.to_owned()).collect();
    Ok(constraint)
}

/// Why the grammar cannot start where the prompt leaves the output, if it cannot: a call of a
/// function the request does not allow, or inside a header (a lazy grammar starts at its trigger).
fn start_error(tools: &[(String, Arc<Value>)], start: &Start, lazy: bool) -> Option<Error> {
    if lazy {
        return None;
    }
    match start {
        Start::Call(name) if !tools.iter().any(|(tool, _)| tool == name) => {
            Some(Error::new(ErrorKind::InvalidOption(format!(
                "the prompt opened a call of `{name}`, which the request does not allow"
            ))))
        }
        Start::Header(_) => Some(Error::new(ErrorKind::InvalidOption(
            "the prompt ends inside a harmony header, which is not constrained".into(),
        ))),
        _ => None,
    }
}

/// The grammar tree; the start was checked by [`start_error`].
fn harmony_grammar(
    tools: &[(String, Arc<Value>)],
    required: bool,
    parallel: bool,
    json: Option<&Value>,
    start: &Start,
    lazy: bool,
) -> Grammar {
    let specials: Arc<[String]> = SPECIAL_TOKENS.iter().map(|&t| t.to_owned()).collect();
    let text_until = |end: &str| Node::Text {
        exclude: specials.clone(),
        until: Some(end.to_owned()),
    };
    let lit = |text: &'static str| Node::Lit(text.into());
    // Between messages: whitespace, then the next message's role and channel.
    let next = Node::Seq(vec![Node::Ws, lit(NEXT), lit(CHANNEL)]);
    let mut rules: Vec<(String, Node)> = vec![("start".into(), Node::Seq(Vec::new()))];
    for (at, (name, parameters)) in tools.iter().enumerate() {
        rules.push((
            format!("call_{at}"),
            Node::Seq(vec![call_header_node(name), Node::Json(parameters.clone())]),
        ));
    }
    let call = Node::Alt(
        (0..tools.len())
            .map(|at| Node::Ref(format!("call_{at}").into()))
            .collect(),
    );
    rules.push(("call".into(), call));
    // After a call's arguments: more calls (each after `<|call|>`), then `<|call|>` or the end.
    let mut after_call = Vec::new();
    if parallel {
        after_call.push(Node::Star(Box::new(Node::Seq(vec![
            lit(CALL),
            next.clone(),
            Node::Ref("call".into()),
        ]))));
    }
    after_call.push(Node::Opt(Box::new(lit(CALL))));
    rules.push(("after_call".into(), Node::Seq(after_call)));
    rules.push((
        "calls".into(),
        Node::Seq(vec![
            Node::Ref("call".into()),
            Node::Ref("after_call".into()),
        ]),
    ));
    // The answer, then `<|return|>` or the end of the output.
    let answer = match json {
        Some(schema) => Node::Seq(vec![
            Node::Ws,
            Node::Json(Arc::new(schema.clone())),
            Node::Ws,
            Node::Opt(Box::new(lit(RETURN))),
        ]),
        None => Node::Alt(vec![
            text_until(RETURN),
            Node::Text {
                exclude: specials.clone(),
                until: None,
            },
        ]),
    };
    rules.push((
        "final".into(),
        Node::Seq(vec![
            Node::Lit(format!("{FINAL}{MESSAGE}").into()),
            answer.clone(),
        ]),
    ));
    let reply = if tools.is_empty() {
        Node::Ref("final".into())
    } else if required {
        Node::Ref("calls".into())
    } else {
        Node::Alt(vec![Node::Ref("final".into()), Node::Ref("calls".into())])
    };
    let analysis = Node::Seq(vec![
        Node::Lit(format!("{ANALYSIS}{MESSAGE}").into()),
        text_until(END),
    ]);
    // The messages after a header's `<|channel|>`: analyses, then the reply.
    let messages = Node::Seq(vec![
        Node::Star(Box::new(Node::Seq(vec![analysis, next.clone()]))),
        reply,
    ]);
    let body = if lazy {
        // From the trigger on: the calls, then the end of the output.
        Node::Seq(vec![lit(CHANNEL), Node::Ref("calls".into())])
    } else {
        match start {
            Start::Lead => Node::Seq(vec![lit(CHANNEL), messages]),
            Start::Body(Field::Content) if tools.is_empty() => answer,
            Start::Body(_) => Node::Seq(vec![text_until(END), next, messages]),
            Start::Call(name) => {
                // The function is among the tools ([`start_error`]).
                let parameters = tools
                    .iter()
                    .find(|(tool, _)| tool == name)
                    .map_or_else(|| Arc::new(json!({})), |(_, parameters)| parameters.clone());
                Node::Seq(vec![Node::Json(parameters), Node::Ref("after_call".into())])
            }
            // Refused by [`start_error`]: nothing is written.
            Start::Header(_) => Node::Seq(Vec::new()),
        }
    };
    rules[0].1 = body;
    // Keep the reachable rules only: no calls without tools, no final answer when a call is required
    // or the grammar starts at the trigger, nor in the answer the prompt began.
    let answer_only = matches!(start, Start::Body(Field::Content)) && tools.is_empty() && !lazy;
    let finals = !required && !lazy && !matches!(start, Start::Call(_)) && !answer_only;
    rules.retain(|(name, _)| match name.as_str() {
        "start" => true,
        "final" => finals,
        _ => !tools.is_empty(),
    });
    Grammar { rules }
}

/// A JSON object of these members, in this order, each value moved in. `json!` serializes every
/// `Value` it interpolates into a new one, which copies each tool's schema once per level of nesting
/// it is interpolated at; this does not.
macro_rules! object {
    ($($key:literal: $value:expr),* $(,)?) => {{
        let mut map = serde_json::Map::new();
        $(map.insert($key.to_owned(), Value::from($value));)*
        Value::Object(map)
    }};
}

/// The xgrammar structural tag: each call a `tag` from its header to `<|call|>` with the arguments'
/// `json_schema` inside; analysis before the reply is one optional `tag` (`auto`: free text before
/// `triggered_tags`).
///
/// `schema(i)` is what stands for the `i`-th tool's schema: the schema itself, or a placeholder
/// ([`structural_tag_text`]).
fn structural_tag(
    tools: &[(String, Arc<Value>)],
    required: bool,
    parallel: bool,
    json: Option<&Value>,
    start: &Start,
    schema: &dyn Fn(usize) -> Value,
) -> Value {
    let tags: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(at, (name, _))| {
            object! {
                "type": "tag",
                "begin": format!("{CHANNEL}{}", call_header(name)),
                "content": object! {"type": "json_schema", "json_schema": schema(at)},
                "end": CALL,
            }
        })
        .collect();
    let answer = || match json {
        Some(schema) => object! {"type": "json_schema", "json_schema": schema.clone()},
        None => json!({"type": "any_text"}),
    };
    let final_tag = || {
        object! {
            "type": "tag",
            "begin": format!("{CHANNEL}{FINAL}{MESSAGE}"),
            "content": answer(),
            "end": RETURN,
        }
    };
    let calls = |tags: Vec<Value>| {
        object! {
            "type": "tags_with_separator",
            "tags": tags,
            "separator": NEXT,
            "at_least_one": true,
            "stop_after_first": !parallel,
        }
    };
    let reply = if tools.is_empty() {
        final_tag()
    } else if required {
        calls(tags)
    } else if json.is_some() {
        object! {"type": "or", "elements": vec![final_tag(), calls(tags)]}
    } else {
        let trigger = format!("{CHANNEL}{COMMENTARY} {RECIPIENT}{FUNCTIONS}");
        return object! {"type": "structural_tag", "format": object! {
            "type": "triggered_tags",
            "triggers": vec![trigger],
            "tags": tags,
            "at_least_one": false,
            "stop_after_first": !parallel,
        }};
    };
    let analysis = object! {
        "type": "tag",
        "begin": format!("{CHANNEL}{ANALYSIS}{MESSAGE}"),
        "content": json!({"type": "any_text"}),
        "end": format!("{END}{NEXT}"),
    };
    let format = match start {
        Start::Lead => object! {"type": "sequence", "elements": vec![
            object! {"type": "optional", "content": analysis},
            reply,
        ]},
        Start::Body(Field::Content) if tools.is_empty() => answer(),
        Start::Call(name) => {
            let schema = tools
                .iter()
                .position(|(tool, _)| tool == name)
                .map_or(json!({"type": "object"}), schema);
            object! {"type": "sequence", "elements": vec![
                object! {"type": "json_schema", "json_schema": schema},
                object! {"type": "const_string", "value": CALL},
            ]}
        }
        Start::Body(_) | Start::Header(_) => object! {"type": "sequence", "elements": vec![
            object! {
                "type": "tag",
                "begin": "",
                "content": json!({"type": "any_text"}),
                "end": format!("{END}{NEXT}"),
            },
            reply,
        ]},
    };
    object! {"type": "structural_tag", "format": format}
}

/// What a tool's schema stands as in [`structural_tag_text`]'s skeleton, before its index; a JSON
/// string of it starts with `"\u0000`, which no string of a real request does (one that matches
/// anyway, not a placeholder, makes the tag be written from copies).
const SCHEMA_MARK: &str = "\u{0}gpt-oss-schema-";

/// [`structural_tag`] as compact JSON text (what `serde_json::to_string` writes of it): the tag is
/// built with a short placeholder string for each tool's schema and written, then each placeholder
/// is replaced by its schema serialized in place. Copying every schema into the tag's `Value` (and
/// dropping the copy) was most of the tag's cost.
fn structural_tag_text(
    tools: &[(String, Arc<Value>)],
    required: bool,
    parallel: bool,
    json: Option<&Value>,
    start: &Start,
) -> String {
    let placeholder = |at: usize| Value::String(format!("{SCHEMA_MARK}{at}\u{0}"));
    let skeleton = structural_tag(tools, required, parallel, json, start, &placeholder);
    // Written by the core's writer, which escapes the tag's long grammar strings a word at a time
    // (`serde_json` goes a byte at a time: a quarter of this tag's cost), byte for byte the same.
    let mut written = String::with_capacity(4096);
    parser_core::constraint::push_json(&mut written, &skeleton);
    let skeleton = written;
    let quoted_mark = "\"\\u0000gpt-oss-schema-";
    let mut out = String::with_capacity(skeleton.len() + tools.len() * 1024);
    let mut rest = skeleton.as_str();
    while let Some(found) = rest.find(quoted_mark) {
        let after = &rest[found + quoted_mark.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let parameters = after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|at| tools.get(at))
            .filter(|_| after[digits..].starts_with("\\u0000\""));
        let Some((_, parameters)) = parameters else {
            // Not a placeholder after all (a string of the request's own): the whole tag, copied.
            let value = |at: usize| {
                tools
                    .get(at)
                    .map_or(Value::Null, |(_, p)| p.as_ref().clone())
            };
            let tag = structural_tag(tools, required, parallel, json, start, &value);
            let mut whole = String::new();
            parser_core::constraint::push_json(&mut whole, &tag);
            return whole;
        };
        out.push_str(&rest[..found]);
        parser_core::constraint::push_json(&mut out, parameters);
        rest = &after[digits + "\\u0000\"".len()..];
    }
    out.push_str(rest);
    out
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: crate::NAME, build: gpt_oss }
}
