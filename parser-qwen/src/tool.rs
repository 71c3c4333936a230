//! Qwen's tool calls: Hermes-style JSON objects and Qwen3-Coder XML, both inside `<tool_call>`.
//!
//! ```text
//! Hermes (Qwen2.5, Qwen3, QwQ, 2507):   <tool_call>\n{"name": "NAME", "arguments": {…}}\n</tool_call>
//! XML (Qwen3-Coder, Qwen3.5):           <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>
//! ```
//!
//! After `<tool_call>` (and whitespace), a `{` starts a JSON call and `<function=` an XML call, whichever
//! the parser is configured for, so a model served under the other format's name still works. The XML
//! parser also accepts `<function=NAME>` without the `<tool_call>` wrapper.
//!
//! - JSON calls are read by [`JsonCall`]: committed at the complete `"name"` string; arguments streamed as
//!   the raw object, or decoded as they stream when written as a JSON-encoded string.
//! - XML calls are committed at the complete `<function=NAME>` tag (DESIGN §4.6). Their arguments are
//!   built as JSON, append-only ([`ObjectArgs`]): a parameter the request's schema types as a string (or
//!   does not declare) streams as it arrives; any other type is written when its parameter closes, typed
//!   by [`ValueType::coerce`] (a failed coercion keeps the raw string). Values are read by
//!   [`TaggedValue`]: one framing newline is removed at each end, and a literal `</parameter>` is part of
//!   the value unless whitespace and `<parameter=`, `</function>`, `</tool_call>` or the end of the
//!   output follow it. A missing `</parameter>` ends the value at the next `<parameter=` or `</function>`
//!   (as vLLM reads it); any other markup inside a value is text.
//! - Several calls may share one block (`</function>` followed by `<function=…>`, or a second JSON object
//!   before `</tool_call>`). A missing `</tool_call>` (or `</function>`) before the next call is
//!   tolerated, and so is a missing `</tool_call>` at the end of the output, also when the output is cut
//!   off inside it (the call is complete; the fragment is dropped). A block cut off before its name is
//!   complete is content, raw; an XML call cut off after it, before its `</function>`, stays, flagged
//!   invalid, with the parameters read so far (a tag cut off at the end is dropped, never a fragment in
//!   the arguments). Text inside a call body that is not a parameter makes the call invalid and is kept
//!   in its raw arguments.

use std::sync::Arc;

use parser_core::{
    CallEnd, CallMachine, Calls, Carry, ContentStep, Deltas, Found, JsonCall, Literal, MarkerSet,
    ObjectArgs, ParamStep, ParamValue, ParseOptions, Sink, ToolParser, Tools, ValueSyntax,
    leading_ws, literal_at,
};

use crate::markers::*;

// Content: the block opener, the reserved tokens (dropped, or a turn start that ends the output), and
// for XML a bare `<function=`.
const OPEN: usize = 0;
const DROP: usize = 1;
static CONTENT_HERMES: MarkerSet = MarkerSet::new(&[&[TOOL_CALL], RESERVED]);
static CONTENT_XML: MarkerSet = MarkerSet::new(&[&[TOOL_CALL], RESERVED, &[FUNCTION]]);

/// Where a JSON call that broke after it was committed ends: its raw text runs up to one of these.
static JSON_END: MarkerSet = MarkerSet::new(&[&[TOOL_CALL_END, TOOL_CALL, IM_END, ENDOFTEXT]]);

/// A parameter value ends at its closer or, when the closer is missing, at the next parameter or the end
/// of the call (as vLLM reads it). Other markup inside a value (`<tool_call>`, `</tool_call>`, end tokens)
/// is text: a coding model writes such things in code.
static VALUE_END: MarkerSet = MarkerSet::new(&[&[PARAMETER_END], &[PARAMETER, FUNCTION_END]]);
/// What must follow `</parameter>` (after whitespace) for it to close the value.
static VALUE_FOLLOWERS: MarkerSet = MarkerSet::new(&[&[PARAMETER, FUNCTION_END, TOOL_CALL_END]]);
static VALUE: ValueSyntax = ValueSyntax {
    ends: &VALUE_END,
    closer_followers: Some(&VALUE_FOLLOWERS),
    trim_newline: true,
};

/// What ends a call body that is not parameters.
const BODY_FUNCTION_END: usize = 0;
const BODY_BLOCK_END: usize = 1;
static RAW_BODY_END: MarkerSet = MarkerSet::new(&[
    &[FUNCTION_END],
    &[TOOL_CALL_END],
    &[TOOL_CALL, IM_END, ENDOFTEXT],
]);
/// What may follow a call before its block ends.
const AFTER_CALL_LITERALS: &[&str] = &[TOOL_CALL_END, FUNCTION];
/// What the body of a call may hold between parameters.
const BODY_LITERALS: &[&str] = &[
    PARAMETER,
    FUNCTION_END,
    TOOL_CALL_END,
    TOOL_CALL,
    FUNCTION,
    IM_END,
    ENDOFTEXT,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Content,
    /// The text starts with `<tool_call>`; nothing is committed until a name is complete.
    BlockHead,
    /// After `<tool_call>`: a JSON call object, read by [`JsonCall`].
    Json,
    /// The text starts with `<function=` (bare, or after whitespace following a call in the same block).
    FunctionHead,
    /// Inside a committed XML call, between parameters.
    Body,
    /// The text starts with `<parameter=`.
    ParamHead,
    /// Inside a parameter value (streamed when a string, collected otherwise).
    Value,
    /// Something other than parameters inside a call: raw text, the call flagged invalid.
    RawBody,
    /// After a call: whitespace and an optional `</tool_call>`.
    AfterCall,
}

/// Qwen's tool-call parser, Hermes-style JSON and Qwen3-Coder XML; see the module docs.
#[derive(Clone, Debug)]
pub struct QwenToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    /// Accept `<function=NAME>` without a `<tool_call>` wrapper (Qwen3-Coder, Qwen3.5).
    bare_functions: bool,
    state: State,
    calls: Calls,
    json: JsonCall,
    /// The JSON object being read follows a `<tool_call>` of its own (content, if it is not a call).
    json_wrapped: bool,
    tools: Option<Arc<Tools>>,
    /// The open XML call's name (for schema lookups).
    function: String,
    /// The open XML call's arguments, built append-only.
    args: ObjectArgs,
    /// The open parameter's value.
    value: ParamValue,
}

impl QwenToolParser {
    /// Hermes-style parser (Qwen2.5, Qwen3, QwQ, Qwen3-2507): calls inside `<tool_call>`, JSON or XML.
    pub fn hermes(options: &ParseOptions) -> Self {
        Self::new(options, false)
    }

    /// Qwen3-Coder / Qwen3.5 parser: as [`hermes`](Self::hermes), and `<function=NAME>` also opens a call
    /// without the `<tool_call>` wrapper.
    pub fn xml(options: &ParseOptions) -> Self {
        Self::new(options, true)
    }

    fn new(options: &ParseOptions, bare_functions: bool) -> Self {
        QwenToolParser {
            carry: Carry::new(),
            machine: Machine {
                bare_functions,
                state: State::Content,
                calls: Calls::new(options).with_turn_starts(TURN_STARTS),
                json: JsonCall::new(),
                json_wrapped: true,
                tools: options.tools.clone(),
                function: String::new(),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
            },
        }
    }
}

impl ToolParser for QwenToolParser {
    #[inline]
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        self.carry.feed_calls(text, &mut self.machine, out);
    }

    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        self.carry.feed_calls_deltas(text, &mut self.machine, out);
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        self.carry
            .finish(&mut self.machine, |m, text| m.run(text, true, out));
        let m = &mut self.machine;
        if m.calls.is_open() {
            // Cut off inside an XML call: write what was read, flagged invalid.
            if m.state == State::Value {
                m.value.end(&mut m.args, &mut m.calls, out);
            }
            m.calls.end(out, false);
        }
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        if self.machine.bare_functions {
            XML_BLOCK_OPENERS
        } else {
            HERMES_BLOCK_OPENERS
        }
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content
    }
}

/// What the text after `<tool_call>` turned out to be.
enum Head<'t> {
    /// Not decided yet: hold the text.
    NeedMore,
    /// A JSON object starts after the opener's whitespace.
    Json,
    /// A complete `<function=NAME>` tag; `len` covers the opener, the whitespace and the tag.
    Xml { name: &'t str, len: usize },
    /// Not a call: the opener is content.
    NotACall,
}

/// What a `<function=…>` / `<parameter=…>` tag turned out to be.
enum Tag<'t> {
    NeedMore,
    Complete { name: &'t str, len: usize },
    Not,
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        let markers = if self.bare_functions {
            &CONTENT_XML
        } else {
            &CONTENT_HERMES
        };
        (self.state == State::Content).then_some((&mut self.calls, markers))
    }

    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        match self.state {
            // The reader writes the run itself (decoded when the arguments are a JSON string).
            State::Json => self.json.take_plain_into(text, &mut self.calls, out),
            State::Value => {
                self.value
                    .take_plain(text, &VALUE, &mut self.args, &mut self.calls, out)
            }
            _ => false,
        }
    }
}
impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed.
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    let markers = if self.bare_functions {
                        &CONTENT_XML
                    } else {
                        &CONTENT_HERMES
                    };
                    match self.calls.scan_content(out, rest, eof, markers, Some(DROP)) {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, group } => {
                            pos += at;
                            self.state = if group == OPEN {
                                State::BlockHead
                            } else {
                                State::FunctionHead
                            };
                        }
                    }
                }
                State::BlockHead => match block_head(rest, eof) {
                    Head::NeedMore => return pos,
                    Head::Json => {
                        pos += TOOL_CALL.len();
                        self.json.reset();
                        self.json_wrapped = true;
                        self.state = State::Json;
                    }
                    Head::Xml { name, len } => {
                        self.open_call(out, name);
                        pos += len;
                    }
                    Head::NotACall => self.not_a_call(out, &mut pos, TOOL_CALL),
                },
                State::Json => {
                    let (used, end) = self.json.run(rest, eof, &JSON_END, &mut self.calls, out);
                    pos += used;
                    match end {
                        CallEnd::Open => return pos,
                        CallEnd::Closed { valid } => {
                            self.calls.end(out, valid);
                            self.state = State::AfterCall;
                        }
                        CallEnd::NotACall => {
                            // Never a call: the opener and what the object reader consumed are content.
                            if self.json_wrapped {
                                self.calls.content(out, TOOL_CALL);
                            }
                            self.calls.content(out, self.json.raw());
                            self.state = State::Content;
                        }
                    }
                }
                State::FunctionHead => {
                    // Whitespace (bounded: a call in the same block) before `<function=`.
                    let ws = leading_ws(rest);
                    match tag(&rest[ws..], FUNCTION, eof) {
                        Tag::NeedMore => return pos,
                        Tag::Complete { name, len } => {
                            self.open_call(out, name);
                            pos += ws + len;
                        }
                        Tag::Not => {
                            let end = ws + FUNCTION.len();
                            self.calls.content(out, &rest[..end]);
                            pos += end;
                            self.state = State::Content;
                        }
                    }
                }
                State::Body => {
                    // Whitespace between parameters is framing.
                    let ws = leading_ws(rest);
                    pos += ws;
                    let after = &rest[ws..];
                    if after.is_empty() {
                        return pos;
                    }
                    if after.starts_with(PARAMETER) {
                        self.state = State::ParamHead;
                    } else if after.starts_with(FUNCTION_END) {
                        pos += FUNCTION_END.len();
                        self.close_call(out);
                        self.state = State::AfterCall;
                    } else if after.starts_with(TOOL_CALL_END) {
                        // `</function>` is missing: the block end closes the call.
                        pos += TOOL_CALL_END.len();
                        self.close_call(out);
                        self.state = State::Content;
                    } else if after.starts_with(TOOL_CALL) {
                        // The next block starts without this one being closed.
                        self.close_call(out);
                        self.state = State::Content;
                    } else if after.starts_with(FUNCTION) {
                        self.close_call(out);
                        self.state = State::FunctionHead;
                    } else if let Some(eos) = EOS.iter().find(|e| after.starts_with(**e)) {
                        pos += eos.len();
                    } else if literal_at(after, BODY_LITERALS, false) == Literal::Partial {
                        // Cut off inside a tag at the end of the output: dropped (`finish` flags the
                        // call, whose `</function>` is missing).
                        return pos + if eof { after.len() } else { 0 };
                    } else {
                        self.state = State::RawBody;
                    }
                }
                State::ParamHead => match tag(rest, PARAMETER, eof) {
                    Tag::NeedMore => return pos,
                    Tag::Complete { name, len } => {
                        self.open_param(out, name);
                        pos += len;
                    }
                    // Cut off inside the tag: no fragment of it reaches the arguments.
                    Tag::Not if eof && matches!(tag(rest, PARAMETER, false), Tag::NeedMore) => {
                        return text.len();
                    }
                    Tag::Not => self.state = State::RawBody,
                },
                State::Value => {
                    let step =
                        self.value
                            .run(rest, eof, &VALUE, &mut self.args, &mut self.calls, out);
                    match step {
                        ParamStep::Pending(used) => return pos + used,
                        ParamStep::Ended(used) => {
                            pos += used;
                            self.value.end(&mut self.args, &mut self.calls, out);
                            self.state = State::Body;
                        }
                    }
                }
                State::RawBody => match RAW_BODY_END.find(rest, eof) {
                    None => {
                        self.calls.args(out, rest);
                        return text.len();
                    }
                    Some(Found::Partial { start }) => {
                        self.calls.args(out, &rest[..start]);
                        return pos + start;
                    }
                    Some(Found::Marker {
                        start, end, group, ..
                    }) => {
                        self.calls.args(out, &rest[..start]);
                        pos += start;
                        self.calls.end(out, false);
                        self.state = match group {
                            BODY_FUNCTION_END => {
                                pos += end - start;
                                State::AfterCall
                            }
                            BODY_BLOCK_END => {
                                pos += end - start;
                                State::Content
                            }
                            // The next block, or an end token: content handles it.
                            _ => State::Content,
                        };
                    }
                },
                State::AfterCall => {
                    let ws = leading_ws(rest);
                    let after = &rest[ws..];
                    if ws > HEAD_LIMIT {
                        self.state = State::Content;
                    } else if after.starts_with(TOOL_CALL_END) {
                        pos += ws + TOOL_CALL_END.len();
                        self.state = State::Content;
                    } else if after.starts_with(FUNCTION) {
                        // Another XML call in the same block.
                        self.state = State::FunctionHead;
                    } else if after.starts_with('{') {
                        // Another JSON call in the same block; if it is not one, it is content as is.
                        self.json.reset();
                        self.json_wrapped = false;
                        self.state = State::Json;
                    } else if after.is_empty()
                        || literal_at(after, AFTER_CALL_LITERALS, false) == Literal::Partial
                    {
                        if !eof {
                            return pos;
                        }
                        // The output ends in the block's framing or inside its `</tool_call>` (or a
                        // next `<function=`): the call is complete, and the cut-off tag is dropped.
                        pos += ws + after.len();
                        self.state = State::Content;
                    } else {
                        // No block end: the whitespace and what follows are content.
                        self.state = State::Content;
                    }
                }
            }
        }
    }

    fn not_a_call(&mut self, out: &mut dyn Sink, pos: &mut usize, opener: &str) {
        self.calls.content(out, opener);
        *pos += opener.len();
        self.state = State::Content;
    }

    fn open_call(&mut self, out: &mut dyn Sink, name: &str) {
        self.calls.start(out, name, None);
        self.function.clear();
        self.function.push_str(name);
        self.args.reset();
        self.state = State::Body;
    }

    fn close_call(&mut self, out: &mut dyn Sink) {
        self.args.finish(&mut self.calls, out);
        self.calls.end(out, true);
    }

    fn open_param(&mut self, out: &mut dyn Sink, key: &str) {
        let tools = self.tools.as_deref();
        let (args, calls) = (&mut self.args, &mut self.calls);
        self.value
            .open(tools, &self.function, key, args, calls, out);
        self.state = State::Value;
    }
}

/// Reads `<tool_call>` (at the start of `text`), whitespace, and either `{` or a `<function=NAME>` tag.
///
/// Decided on the text seen so far only (whitespace bounded by [`HEAD_LIMIT`]), so that every chunking
/// decides alike.
fn block_head(text: &str, eof: bool) -> Head<'_> {
    let after = &text[TOOL_CALL.len()..];
    let ws = leading_ws(after);
    if ws > HEAD_LIMIT {
        return Head::NotACall;
    }
    let body = &after[ws..];
    if body.is_empty() {
        return if eof { Head::NotACall } else { Head::NeedMore };
    }
    if body.starts_with('{') {
        return Head::Json;
    }
    if body.starts_with(FUNCTION) {
        return match tag(body, FUNCTION, eof) {
            Tag::NeedMore => Head::NeedMore,
            Tag::Complete { name, len } => Head::Xml {
                name,
                len: TOOL_CALL.len() + ws + len,
            },
            Tag::Not => Head::NotACall,
        };
    }
    match literal_at(body, &[FUNCTION], eof) {
        Literal::Partial => Head::NeedMore,
        _ => Head::NotACall,
    }
}

/// Reads a `PREFIX NAME>` tag at the start of `text` (which starts with `prefix`): the name is non-empty,
/// at most [`HEAD_LIMIT`] bytes, and holds no whitespace and no `<`. Decided on the text seen so far.
fn tag<'t>(text: &'t str, prefix: &str, eof: bool) -> Tag<'t> {
    let after = &text[prefix.len()..];
    let mut window = after.len().min(HEAD_LIMIT + 1);
    while !after.is_char_boundary(window) {
        window -= 1;
    }
    let stop = after[..window].find(|c: char| c == '>' || c == '<' || c.is_whitespace());
    match stop {
        Some(at) if after[at..].starts_with('>') => {
            if at == 0 || at > HEAD_LIMIT {
                Tag::Not
            } else {
                Tag::Complete {
                    name: &after[..at],
                    len: prefix.len() + at + 1,
                }
            }
        }
        Some(_) => Tag::Not,
        None if eof || after.len() > HEAD_LIMIT => Tag::Not,
        None => Tag::NeedMore,
    }
}
