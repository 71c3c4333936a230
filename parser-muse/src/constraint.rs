//! Constrained decoding for Muse Spark and Glimmer: the messages as a grammar, built from the crate's
//! marker constants with [`parser_core::constraint`]'s pieces; each call's `<atem:invoke>` is a
//! [`FormatDescription`] with tagged parameters ([`FormatDescription::call_rules`]), the same rules
//! Qwen3-Coder's and GLM's calls are written with.
//!
//! Reasoning, content and calls are messages whose recipient decides what their body is, in any
//! order (as harmony's channels), so the format does not fit a `FormatDescription` as a whole. The
//! grammar of one request, from where the prompt leaves the output (after `<|start|>assistant`):
//!
//! ```text
//! a message, then any number of `<|start|>assistant` and a message:
//!   reasoning   to=self<|message|>TEXT<|eom|>
//!   answer      to=user<|message|>TEXT<|eot|>        (ends the output; `<|eom|>` when more follow;
//!                                                    JSON for a `response_format`)
//!   calls       to=NAME<|message|><atem:function_calls>
//!               <atem:invoke name="NAME">
//!               <atem:parameter name="KEY">VALUE</atem:parameter>…
//!               </atem:invoke>…
//!               </atem:function_calls><|eom|>
//! ```
//!
//! - A tool message's recipient is the tool it calls (a request's tool), its invokes that tool's; the
//!   parameters are the tool's properties (each at most once, required ones present), values as the
//!   parser types them: `muse` by the tool's schema (a string raw, anything else JSON), `muse-glimmer`
//!   JSON when the text parses as JSON ([`TaggedValues::JsonWhenParses`]: JSON valid against the
//!   schema, or a plain string as raw text that cannot parse as JSON).
//! - `none`: reasoning and answers. `auto`: any messages. `required` and a named function: reasoning
//!   and tool messages, at least one call, no answer. Parallel calls off: one tool message holding
//!   one invoke.
//! - `auto` with tools and no `response_format` is lazy: the grammar applies from the first
//!   `to=NAME<|message|>` of a tool (the trigger words; `<|message|>` never stands in text), then
//!   allows the messages that may follow a call.
//! - Thinking off (`enable_thinking: false`): no reasoning message.
//! - Not written, though the parser reads them: other recipients (`commentary`, `developer`, none),
//!   invokes without the wrapper or in several wrappers, a doubled name (`get_weather.get_weather`),
//!   `<|eot|>` after a tool message, a message cut off by the next header.
//!
//! The structural tag holds the tool messages and a reasoning message before them: each tool message
//! is a `tag` whose content is the GBNF of its parameters. Under `auto` every message is a `tag`
//! (reasoning, answer, tool messages) separated by `<|start|>assistant `, in any order; it does not
//! hold parallel calls off there (the grammars do).
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
//! let options = ParseOptions::new().with_prompt_tail("<|start|>assistant").with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_muse::constraint::muse(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.lark().contains(r#""<atem:parameter name=\"city\">""#));
//! let auto = parser_muse::constraint::muse(&options, &ConstraintRequest::default()).unwrap();
//! assert_eq!(auto.triggers.words, ["to=get_weather<|message|>"]);
//! ```

use std::borrow::Cow;

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    Grammar, Node, ParameterTags, Resolved, TaggedValues, Triggers, ecma_escape, structural_calls,
};
use parser_core::{Error, ParseOptions};
use serde_json::{Value, json};

use crate::{
    ANSWER_RECIPIENT, EOM, EOT, FUNCTION_CALLS, FUNCTION_CALLS_END, INVOKE, INVOKE_END, MESSAGE,
    NAME_END, PARAMETER, PARAMETER_END, REASONING_RECIPIENT, ROLE, SPECIAL_TOKENS, START, TO,
};

/// The invokes inside a tool message, as a format with tagged parameters.
pub fn invoke_format() -> FormatDescription {
    FormatDescription {
        reasoning: None,
        calls: CallFormat {
            section: Some((
                Cow::Borrowed(FUNCTION_CALLS),
                Cow::Borrowed(FUNCTION_CALLS_END),
            )),
            section_optional: false,
            call_begin: Cow::Borrowed(INVOKE),
            name: CallName::Parameters {
                prefix: Cow::Borrowed(""),
                suffix: Cow::Borrowed(NAME_END),
                parameters: ParameterTags {
                    key_open: Cow::Borrowed(PARAMETER),
                    key_close: Cow::Borrowed(NAME_END),
                    space_before_value: false,
                    string_open: Cow::Borrowed(""),
                    json_open: Cow::Borrowed(""),
                    value_close: Cow::Borrowed(PARAMETER_END),
                    // The parser keeps a value as written (`ValueSyntax::trim_newline` off).
                    framing: Cow::Borrowed(""),
                    // Where the parser ends a value whose closer is missing (`VALUE_END`).
                    value_stops: [PARAMETER, INVOKE_END, EOM, EOT, START]
                        .map(Cow::Borrowed)
                        .to_vec(),
                    padding: Cow::Borrowed("\n"),
                },
                end: Cow::Borrowed(""),
            },
            call_end: Cow::Borrowed(INVOKE_END),
            padding: Cow::Borrowed("\n"),
            separator: Cow::Borrowed("\n"),
            array: false,
        },
        reserved: SPECIAL_TOKENS.iter().map(|&t| Cow::Borrowed(t)).collect(),
    }
}

/// The constraint of a request for [`crate::muse`]; see the module docs.
///
/// Errors: those of [`ConstraintRequest::allowed_tools`].
pub fn muse(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    constraint(options, request, TaggedValues::Schema)
}

/// The constraint of a request for [`crate::muse_glimmer`]; see the module docs.
///
/// Errors: those of [`ConstraintRequest::allowed_tools`].
pub fn muse_glimmer(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    constraint(options, request, TaggedValues::JsonWhenParses)
}

/// What one request allows, resolved.
struct Shape<'a> {
    request: Resolved<'a>,
    thinking: bool,
    values: TaggedValues,
}

fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
    values: TaggedValues,
) -> Result<Constraint, Error> {
    let request = request.resolve(options.tools.as_deref())?;
    let shape = Shape {
        thinking: options.enable_thinking != Some(false),
        values,
        request,
    };
    let Resolved {
        required,
        parallel,
        json,
        lazy,
        ..
    } = shape.request;
    let format = invoke_format();
    let grammar = grammar(&shape, &format);
    let headers: Vec<String> = shape
        .request
        .tools
        .iter()
        .map(|tool| header(&tool.name))
        .collect();
    let triggers = if lazy {
        let alternatives: Vec<String> = headers.iter().map(|h| ecma_escape(h)).collect();
        Triggers {
            patterns: vec![format!("^[\\s\\S]*?({})", alternatives.join("|"))],
            words: headers,
        }
    } else {
        Triggers::default()
    };
    let tags: Vec<Value> = shape
        .request
        .tools
        .iter()
        .map(|tool| {
            let parameters = format
                .parameters_grammar(tool, values)
                .map(|grammar| grammar.gbnf())
                .unwrap_or_default();
            json!({
                "type": "tag",
                "begin": format!(
                    "{}{FUNCTION_CALLS}\n{INVOKE}{}{NAME_END}",
                    header(&tool.name),
                    tool.name
                ),
                "content": {"type": "grammar", "grammar": parameters},
                "end": format!("\n{INVOKE_END}\n{FUNCTION_CALLS_END}{EOM}"),
            })
        })
        .collect();
    let (tag_json, thinking) = (json.cloned(), shape.thinking);
    let mut constraint = Constraint::new(grammar, move || {
        structural_tag(&tags, required, parallel, tag_json.as_ref(), thinking)
    });
    constraint.triggers = triggers;
    constraint.lazy = lazy;
    constraint.preserved_tokens = SPECIAL_TOKENS.iter().map(|&t| t.to_owned()).collect();
    Ok(constraint)
}

/// `to=RECIPIENT<|message|>`: a header after its role.
fn header(recipient: &str) -> String {
    format!("{TO}{recipient}{MESSAGE}")
}

fn lit(text: &'static str) -> Node {
    Node::Lit(text.into())
}

/// Free text holding no special token, then `end`.
fn text_until(end: &str) -> Node {
    Node::Text {
        exclude: SPECIAL_TOKENS.iter().map(|&t| t.to_owned()).collect(),
        until: Some(end.to_owned()),
    }
}

/// The grammar tree of one request.
///
/// Rules: `tN_call` (an invoke of tool `N`, from [`FormatDescription::call_rules`]), `msg_N` (a
/// message to tool `N`), `before` (the messages while no call was made: a message, then
/// `<|start|>assistant ` and more) and `after` (the messages after a call).
fn grammar(shape: &Shape<'_>, format: &FormatDescription) -> Grammar {
    let mut rules: Vec<(String, Node)> = vec![("start".into(), Node::Seq(Vec::new()))];
    let has_calls = !shape.request.tools.is_empty();
    for (at, tool) in shape.request.tools.iter().enumerate() {
        let prefix = format!("t{at}_");
        rules.extend(
            format
                .call_rules(tool, &prefix, shape.values)
                .unwrap_or_default(),
        );
        let invoke = Node::Ref(format!("{prefix}call").into());
        let mut body = vec![
            Node::Lit(header(&tool.name).into()),
            Node::Ws,
            lit(FUNCTION_CALLS),
            Node::Ws,
            invoke.clone(),
        ];
        if shape.request.parallel {
            body.push(Node::Star(Box::new(Node::Seq(vec![Node::Ws, invoke]))));
        }
        body.extend([Node::Ws, lit(FUNCTION_CALLS_END), Node::Ws, lit(EOM)]);
        rules.push((format!("msg_{at}"), Node::Seq(body)));
    }
    if has_calls {
        rules.push((
            "tool_msg".into(),
            Node::Alt(
                (0..shape.request.tools.len())
                    .map(|at| Node::Ref(format!("msg_{at}").into()))
                    .collect(),
            ),
        ));
    }
    let reasoning = Node::Seq(vec![
        Node::Lit(header(REASONING_RECIPIENT).into()),
        text_until(EOM),
    ]);
    let answer = Node::Lit(header(ANSWER_RECIPIENT).into());
    // The answer that ends the output, and one that more messages follow.
    let last = match shape.request.json {
        Some(schema) => Node::Seq(vec![
            answer.clone(),
            Node::Ws,
            Node::Json(schema.clone().into()),
            Node::Ws,
            lit(EOT),
        ]),
        None => Node::Seq(vec![answer.clone(), text_until(EOT)]),
    };
    let middle = Node::Seq(vec![answer, text_until(EOM)]);
    // Whether any message may follow a call: not with a call required, one call at most and thinking
    // off (the call ends the output).
    let after_exists =
        has_calls && (shape.thinking || !shape.request.required || shape.request.parallel);
    let next = |name: &'static str, must: bool| {
        if name == "after" && !after_exists {
            return Node::Seq(Vec::new());
        }
        let next = Node::Seq(vec![
            Node::Lit(format!("{START}{ROLE} ").into()),
            Node::Ref(name.into()),
        ]);
        if must {
            next
        } else {
            Node::Opt(Box::new(next))
        }
    };
    // Messages in phase `name`: reasoning, answers unless a call is required (one in the middle only
    // without a response_format, which holds the one answer), calls when `calls`.
    let phase = |name: &'static str, calls: bool, must: bool| {
        let mut ways = Vec::new();
        if shape.thinking {
            ways.push(Node::Seq(vec![reasoning.clone(), next(name, must)]));
        }
        if !shape.request.required {
            if shape.request.json.is_none() {
                ways.push(Node::Seq(vec![middle.clone(), next(name, false)]));
            }
            ways.push(last.clone());
        }
        if calls {
            ways.push(Node::Seq(vec![
                Node::Ref("tool_msg".into()),
                next("after", false),
            ]));
        }
        ways
    };
    let before = phase("before", has_calls, shape.request.required);
    rules.push(("before".into(), Node::Alt(before)));
    let after = phase("after", shape.request.parallel, false);
    if after_exists {
        rules.push(("after".into(), Node::Alt(after)));
    }
    rules[0].1 = if shape.request.lazy {
        // From the trigger on (the header of a tool message): that message, then what may follow.
        Node::Seq(vec![Node::Ref("tool_msg".into()), next("after", false)])
    } else {
        // The prompt ends in `<|start|>assistant`; the role may be written again.
        Node::Seq(vec![
            Node::Opt(Box::new(Node::Lit(format!("{START}{ROLE}").into()))),
            lit(" "),
            Node::Ref("before".into()),
        ])
    };
    Grammar { rules }
}

/// The xgrammar structural tag (see the module docs); `tags` are the tool messages'.
fn structural_tag(
    tags: &[Value],
    required: bool,
    parallel: bool,
    json: Option<&Value>,
    thinking: bool,
) -> Value {
    let next = format!("{START}{ROLE} ");
    let last = || match json {
        Some(schema) => json!({"type": "tag", "begin": header(ANSWER_RECIPIENT),
            "content": {"type": "json_schema", "json_schema": schema}, "end": EOT}),
        None => json!({"type": "tag", "begin": header(ANSWER_RECIPIENT),
            "content": {"type": "any_text"}, "end": EOT}),
    };
    if !tags.is_empty() && !required && json.is_none() {
        // Every message a tag, not `triggered_tags`: the only trigger there would be a tool message's
        // header, and the free text around it would let a message to an unknown recipient through.
        let mut all = Vec::with_capacity(tags.len() + 2);
        if thinking {
            all.push(json!({"type": "tag", "begin": header(REASONING_RECIPIENT),
                "content": {"type": "any_text"}, "end": EOM}));
        }
        all.push(json!({"type": "tag", "begin": header(ANSWER_RECIPIENT),
            "content": {"type": "any_text"}, "end": [EOM, EOT]}));
        all.extend(tags.iter().cloned());
        return json!({"type": "structural_tag", "format": {"type": "sequence", "elements": [
            {"type": "const_string", "value": " "},
            {
                "type": "tags_with_separator",
                "tags": all,
                "separator": next,
                "at_least_one": false,
                "stop_after_first": false,
            },
        ]}});
    }
    let rest = structural_calls(
        last(),
        tags.to_vec(),
        &next,
        Vec::new(),
        required,
        parallel,
        json.is_some(),
    );
    let mut elements = vec![json!({"type": "const_string", "value": " "})];
    if thinking {
        elements.push(json!({"type": "optional", "content": {
            "type": "tag",
            "begin": header(REASONING_RECIPIENT),
            "content": {"type": "any_text"},
            "end": format!("{EOM}{next}"),
        }}));
    }
    elements.push(rest);
    json!({"type": "structural_tag", "format": {"type": "sequence", "elements": elements}})
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "muse", build: muse }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "muse-glimmer", build: muse_glimmer }
}
