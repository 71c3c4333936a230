//! Constrained decoding for Inkling: its typed blocks as a grammar, built from the crate's marker
//! constants with [`parser_core::constraint`]'s pieces ([`Grammar`], [`Node`]: `%json` arguments in
//! Lark, our JSON-schema converter in GBNF, free text that avoids every marker).
//!
//! Reasoning here is a block kind, not a prefix: thinking blocks may follow text and call blocks, so
//! the format does not fit a `FormatDescription` (whose reasoning comes first) and the grammar is
//! written here, as gpt-oss's harmony grammar is. The grammar of one request, from where the prompt
//! leaves the output (normally right after `<|message_model|>`):
//!
//! ```text
//! a block, then any number of `<|message_model|>` and a block:
//!   thinking   <|content_thinking|>TEXT<|end_message|>                       (free reasoning)
//!   text       <|content_text|>TEXT<|end_message|>                           (free content, or JSON
//!                                                                            for a `response_format`)
//!   call       [NAME]<|content_invoke_tool_json|>{"name": "NAME", "args": {…}}<|end_message|>
//!              (NAME a request's tool, the header's name optional, arguments by its schema)
//! ```
//!
//! - `none`: thinking and text blocks. `auto`: any blocks, in any order. `required` and a named
//!   function: thinking blocks and calls, at least one call, no text block. Parallel calls off: one
//!   call at most.
//! - `auto` with tools and no `response_format` is lazy: the grammar applies from the first
//!   `<|content_invoke_tool_json|>` (which opens a call wherever it stands, inside thinking too), then
//!   allows the same blocks after the call as the whole grammar does.
//! - Thinking off (`enable_thinking: false`): no thinking block. A prompt that ends in
//!   `<|content_thinking|>` or `<|content_text|>` starts the output inside that block's body; a
//!   redundant `<|message_model|>` may open the output (the parser skips an empty header).
//! - Not written, though the parser reads them: other header metadata, `<|content_model_end_sampling|>`
//!   for a block's end, `"arguments"` for `"args"`, text between blocks, raw and error blocks.
//!
//! The structural tag holds the calls and the thinking blocks before them: `required` is an optional
//! thinking block, then the call blocks separated by `<|message_model|>`; `auto` is `triggered_tags`
//! on `<|content_invoke_tool_json|>`, whose text around the calls is free (text and thinking blocks
//! are not framed there).
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
//! let options = ParseOptions::new().with_prompt_tail("<|message_model|>").with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_inkling::constraint::constraint(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.lark().contains(r#""<|content_invoke_tool_json|>""#));
//! let auto = parser_inkling::constraint::constraint(&options, &ConstraintRequest::default()).unwrap();
//! assert!(auto.lazy);
//! assert_eq!(auto.triggers.words, ["<|content_invoke_tool_json|>"]);
//! ```

use std::sync::Arc;

use parser_core::constraint::{
    Constraint, ConstraintEntry, ConstraintRequest, Grammar, Node, Resolved, Triggers, ecma_escape,
    structural_calls,
};
use parser_core::{Error, ParseOptions};
use serde_json::{Value, json};

use crate::{
    CONTENT_INVOKE_TOOL_JSON, CONTENT_TEXT, CONTENT_THINKING, END_MESSAGE, MESSAGE_MODEL,
    SPECIAL_TOKENS,
};

/// The markers the grammar writes, which the detokenizer must keep.
const PRESERVED: &[&str] = &[
    MESSAGE_MODEL,
    CONTENT_THINKING,
    CONTENT_TEXT,
    CONTENT_INVOKE_TOOL_JSON,
    END_MESSAGE,
];

/// The call object's keys, as the parser's `FIELDS` read them (the first spelling of each).
const NAME_KEY: &str = "\"name\"";
const ARGS_KEY: &str = "\"args\"";

/// Where the prompt leaves the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// After `<|message_model|>`: a block's kind comes next.
    Header,
    /// Inside a thinking block's body.
    Thinking,
    /// Inside a text block's body.
    Text,
}

fn start(options: &ParseOptions) -> Start {
    let tail = options.prompt_tail.as_deref().unwrap_or("").trim_end();
    if tail.ends_with(CONTENT_THINKING) {
        Start::Thinking
    } else if tail.ends_with(CONTENT_TEXT) {
        Start::Text
    } else {
        Start::Header
    }
}

/// What one request allows, resolved.
struct Shape<'a> {
    request: Resolved<'a>,
    thinking: bool,
    start: Start,
}

/// The constraint of a request for [`crate::inkling`]; see the module docs.
///
/// Errors: those of [`ConstraintRequest::allowed_tools`].
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    let request = request.resolve(options.tools.as_deref())?;
    let shape = Shape {
        thinking: options.enable_thinking != Some(false),
        start: start(options),
        request,
    };
    let Resolved {
        required,
        parallel,
        json,
        lazy,
        ..
    } = shape.request;
    let grammar = grammar(&shape);
    let triggers = if lazy {
        Triggers {
            words: vec![CONTENT_INVOKE_TOOL_JSON.to_owned()],
            patterns: vec![format!(
                "^[\\s\\S]*?({})",
                ecma_escape(CONTENT_INVOKE_TOOL_JSON)
            )],
        }
    } else {
        Triggers::default()
    };
    let tag_tools: Vec<(String, Arc<Value>)> = shape
        .request
        .tools
        .iter()
        .map(|tool| (tool.name.clone(), tool.shared_parameters().clone()))
        .collect();
    let (tag_json, start, thinking) = (json.cloned(), shape.start, shape.thinking);
    let mut constraint = Constraint::new(grammar, move || {
        structural_tag(
            &tag_tools,
            required,
            parallel,
            tag_json.as_ref(),
            start,
            thinking,
        )
    });
    constraint.triggers = triggers;
    constraint.lazy = lazy;
    constraint.preserved_tokens = PRESERVED.iter().map(|&t| t.to_owned()).collect();
    Ok(constraint)
}

fn lit(text: &'static str) -> Node {
    Node::Lit(text.into())
}

fn rule(name: &'static str) -> Node {
    Node::Ref(name.into())
}

/// Free text up to `<|end_message|>` (which it ends with), holding no marker.
fn body() -> Node {
    Node::Text {
        exclude: SPECIAL_TOKENS.iter().map(|&t| t.to_owned()).collect(),
        until: Some(END_MESSAGE.to_owned()),
    }
}

/// The grammar tree of one request.
///
/// Rules: `call_i` (a call block of tool `i` from its header's name), `ctail_i` (the same after
/// `<|content_invoke_tool_json|>`), `before` (the blocks while no call was made: a block, then
/// `<|message_model|>` and more) and `after` (the blocks after a call).
fn grammar(shape: &Shape<'_>) -> Grammar {
    let mut rules: Vec<(String, Node)> = vec![("start".into(), Node::Seq(Vec::new()))];
    let has_calls = !shape.request.tools.is_empty();
    for (at, tool) in shape.request.tools.iter().enumerate() {
        let name = serde_json::to_string(&tool.name).unwrap_or_default();
        rules.push((
            format!("ctail_{at}"),
            Node::Seq(vec![
                lit("{"),
                Node::Ws,
                lit(NAME_KEY),
                Node::Ws,
                lit(":"),
                Node::Ws,
                Node::Lit(name.into()),
                Node::Ws,
                lit(","),
                Node::Ws,
                lit(ARGS_KEY),
                Node::Ws,
                lit(":"),
                Node::Ws,
                Node::Json(tool.shared_parameters().clone()),
                Node::Ws,
                lit("}"),
                lit(END_MESSAGE),
            ]),
        ));
        // The header's metadata repeats the name; the parser drops it.
        rules.push((
            format!("call_{at}"),
            Node::Seq(vec![
                Node::Opt(Box::new(Node::Lit(tool.name.clone().into()))),
                lit(CONTENT_INVOKE_TOOL_JSON),
                Node::Ref(format!("ctail_{at}").into()),
            ]),
        ));
    }
    let any_of = |prefix: &str| {
        Node::Alt(
            (0..shape.request.tools.len())
                .map(|at| Node::Ref(format!("{prefix}_{at}").into()))
                .collect(),
        )
    };
    if has_calls {
        rules.push(("call".into(), any_of("call")));
        rules.push(("ctail".into(), any_of("ctail")));
    }
    let thinking = Node::Seq(vec![lit(CONTENT_THINKING), body()]);
    let text = match shape.request.json {
        Some(schema) => Node::Seq(vec![
            lit(CONTENT_TEXT),
            Node::Ws,
            Node::Json(Arc::new(schema.clone())),
            Node::Ws,
            lit(END_MESSAGE),
        ]),
        None => Node::Seq(vec![lit(CONTENT_TEXT), body()]),
    };
    // Whether any block may follow a call: not with a call required, one call at most and thinking
    // off (the call ends the output).
    let after_exists =
        has_calls && (shape.thinking || !shape.request.required || shape.request.parallel);
    // `then(rule)`: `<|message_model|>` and the blocks of `rule`, optional unless `must`; nothing for
    // `after` when no block may follow a call.
    let then = |name: &'static str, must: bool| {
        if name == "after" && !after_exists {
            return Node::Seq(Vec::new());
        }
        let next = Node::Seq(vec![lit(MESSAGE_MODEL), rule(name)]);
        if must {
            next
        } else {
            Node::Opt(Box::new(next))
        }
    };
    // Before any call: thinking (and text, unless a call is required) go on in `before`; a call
    // goes on in `after`. Without tools, the same blocks with no call.
    let mut before = Vec::new();
    if shape.thinking {
        before.push(Node::Seq(vec![
            thinking.clone(),
            then("before", shape.request.required),
        ]));
    }
    if !shape.request.required {
        before.push(Node::Seq(vec![text.clone(), then("before", false)]));
    }
    if has_calls {
        before.push(Node::Seq(vec![rule("call"), then("after", false)]));
    }
    rules.push(("before".into(), Node::Alt(before)));
    // After a call: thinking, text unless calls are required, more calls when parallel.
    let mut after = Vec::new();
    if shape.thinking {
        after.push(Node::Seq(vec![thinking, then("after", false)]));
    }
    if !shape.request.required {
        after.push(Node::Seq(vec![text, then("after", false)]));
    }
    if shape.request.parallel {
        after.push(Node::Seq(vec![rule("call"), then("after", false)]));
    }
    if after_exists {
        rules.push(("after".into(), Node::Alt(after)));
    }
    // What may follow a block that ends where the prompt left the output.
    let continuation = then("before", shape.request.required);
    rules[0].1 = if shape.request.lazy {
        // From the trigger on (the trigger included): the call's object, then the blocks after a
        // call.
        let mut items = vec![lit(CONTENT_INVOKE_TOOL_JSON), rule("ctail")];
        if after_exists {
            items.push(then("after", false));
        }
        Node::Seq(items)
    } else {
        match shape.start {
            Start::Header => Node::Seq(vec![
                Node::Opt(Box::new(lit(MESSAGE_MODEL))),
                rule("before"),
            ]),
            Start::Thinking => Node::Seq(vec![body(), continuation]),
            Start::Text => match shape.request.json {
                Some(schema) => Node::Seq(vec![
                    Node::Ws,
                    Node::Json(Arc::new(schema.clone())),
                    Node::Ws,
                    lit(END_MESSAGE),
                    continuation,
                ]),
                None => Node::Seq(vec![body(), continuation]),
            },
        }
    };
    Grammar { rules }
}

/// The xgrammar structural tag (see the module docs).
fn structural_tag(
    tools: &[(String, Arc<Value>)],
    required: bool,
    parallel: bool,
    json: Option<&Value>,
    start: Start,
    thinking: bool,
) -> Value {
    let tags: Vec<Value> = tools
        .iter()
        .map(|(name, parameters)| {
            let quoted = serde_json::to_string(name).unwrap_or_default();
            json!({
                "type": "tag",
                "begin": format!("{CONTENT_INVOKE_TOOL_JSON}{{{NAME_KEY}: {quoted}, {ARGS_KEY}: "),
                "content": {"type": "json_schema", "json_schema": parameters.as_ref()},
                "end": format!("}}{END_MESSAGE}"),
            })
        })
        .collect();
    let free = || json!({"type": "any_text"});
    let text = || match json {
        Some(schema) => json!({"type": "tag", "begin": CONTENT_TEXT, "content":
            {"type": "json_schema", "json_schema": schema}, "end": END_MESSAGE}),
        None => free(),
    };
    let rest = structural_calls(
        text(),
        tags,
        MESSAGE_MODEL,
        vec![CONTENT_INVOKE_TOOL_JSON.to_owned()],
        required,
        parallel,
        json.is_some(),
    );
    if rest["type"] == "triggered_tags" {
        return json!({"type": "structural_tag", "format": rest});
    }
    let opened = |begin: &str| {
        json!({"type": "tag", "begin": begin, "content": free(),
               "end": format!("{END_MESSAGE}{MESSAGE_MODEL}")})
    };
    let format = match start {
        Start::Header if thinking => json!({"type": "sequence", "elements": [
            {"type": "optional", "content": opened(CONTENT_THINKING)},
            rest,
        ]}),
        Start::Header => rest,
        Start::Thinking | Start::Text => {
            json!({"type": "sequence", "elements": [opened(""), rest]})
        }
    };
    json!({"type": "structural_tag", "format": format})
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "inkling", build: constraint }
}
