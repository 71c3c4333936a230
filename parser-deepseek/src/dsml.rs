//! DeepSeek V3.2 / V4 / V4.1 DSML calls, and every format that spells the same markup otherwise.
//!
//! ```text
//! <｜DSML｜function_calls>                                   (V4: <｜DSML｜tool_calls>)
//! <｜DSML｜invoke name="get_weather">
//! <｜DSML｜parameter name="location" string="true">Tokyo</｜DSML｜parameter>
//! <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//! </｜DSML｜invoke>
//! </｜DSML｜function_calls>
//! ```
//!
//! The markup's spelling is a parameter ([`Dsml`]): V4.1 writes the same structure with a space after
//! the `｜DSML｜` token (`<｜DSML｜ calls>`, `<｜DSML｜ invoke name="…">`), GigaChat 3.5 with `｜GCML｜`
//! (`<｜GCML｜tool_calls>`); one state machine reads them all, each through its own [`Dsml`] static.
//!
//! The arguments are built as JSON text, append-only: `{"location": "Tokyo", "days": 3}`. A string value
//! streams as it arrives (escaped); any other value is written when its parameter closes. Types come from
//! the request's tool schema when it declares the parameter (DESIGN §4.8), else from `string="…"`
//! (`true`: a string; `false`: JSON, or the raw string when it does not parse). A call is committed at
//! its complete `invoke` tag. A JSON object written directly inside `invoke` is taken as the arguments; a
//! lone `arguments`/`input` parameter holding an object, when the schema does not declare it, is unwrapped.
//! A call whose `</｜DSML｜invoke>` came is complete without the block's end at the end of the output, also
//! when the output ends inside it; a call cut off before its `</｜DSML｜invoke>` stays, flagged invalid,
//! with the parameters read so far (a tag cut off at the end is dropped, never a fragment in the
//! arguments; issue 18).

use std::sync::Arc;

use parser_core::{
    ArgsEnd, ArgsSyntax, CallMachine, Calls, Carry, ContentStep, Deltas, Found, JsonArgs, LeadCall,
    Literal, MarkerSet, ObjectArgs, ParamStep, ParamValue, ParseOptions, Sink, ToolParser, Tools,
    ValueSyntax, ValueType, is_json_object, leading_ws, literal_at, section_lead,
};

use crate::markers::*;

/// One spelling of the DSML markup: its markers, and the scanner sets built from them. Build it in a
/// `static` (the sets are `const`); [`DSML_V32`] and [`DSML_V41`] show how.
#[derive(Debug)]
pub struct Dsml {
    /// The block openers (`<｜DSML｜function_calls>`); any of them opens a block.
    pub blocks: &'static [&'static str],
    /// The block closers, in the order of `blocks`.
    pub block_ends: &'static [&'static str],
    /// Opens a call: `<｜DSML｜invoke`, followed by ` name="…">`.
    pub invoke: &'static str,
    /// Closes a call.
    pub invoke_end: &'static str,
    /// Opens a parameter: `<｜DSML｜parameter`, followed by ` name="…" string="…">`.
    pub param: &'static str,
    /// Closes a parameter.
    pub param_end: &'static str,
    /// Every marker that opens a call block: `blocks` and `invoke` (held inside open reasoning).
    pub block_openers: &'static [&'static str],
    /// End-of-sequence tokens, dropped between calls.
    pub eos: &'static [&'static str],
    /// What may stand between two calls of a block, or start one: `invoke`, `block_ends`, `eos`.
    pub between_calls: &'static [&'static str],
    /// Tokens that start a new turn: the reply ends before one.
    pub turn_starts: &'static [&'static str],
    /// The content scan: group 0 `blocks`, group 1 `[invoke]`, group 2 the dropped tokens (and turn
    /// starts, which the content scan also reserves).
    pub content: MarkerSet,
    /// What ends a parameter value: `[param_end]`, `[invoke_end]`, `block_ends`.
    pub value_end: MarkerSet,
    /// What ends a body that is not parameters: `[invoke_end]`, `block_ends`, `[invoke]`.
    pub body_end: MarkerSet,
}

/// DeepSeek V3.2 and V4: `<｜DSML｜function_calls>` or `<｜DSML｜tool_calls>` blocks.
pub static DSML_V32: Dsml = Dsml {
    blocks: DSML_BLOCKS,
    block_ends: DSML_BLOCK_ENDS,
    invoke: DSML_INVOKE,
    invoke_end: DSML_INVOKE_END,
    param: DSML_PARAM,
    param_end: DSML_PARAM_END,
    block_openers: DSML_BLOCK_OPENERS,
    eos: &[EOS],
    between_calls: &[DSML_INVOKE, DSML_BLOCK_ENDS[0], DSML_BLOCK_ENDS[1], EOS],
    turn_starts: TURN_STARTS,
    content: MarkerSet::new(&[DSML_BLOCKS, &[DSML_INVOKE], RESERVED]),
    value_end: MarkerSet::new(&[&[DSML_PARAM_END], &[DSML_INVOKE_END], DSML_BLOCK_ENDS]),
    body_end: MarkerSet::new(&[&[DSML_INVOKE_END], DSML_BLOCK_ENDS, &[DSML_INVOKE]]),
};

/// DeepSeek V4.1: the same markup with a space after `｜DSML｜` (`<｜DSML｜ calls>`).
pub static DSML_V41: Dsml = Dsml {
    blocks: &[DSML41_BLOCK],
    block_ends: &[DSML41_BLOCK_END],
    invoke: DSML41_INVOKE,
    invoke_end: DSML41_INVOKE_END,
    param: DSML41_PARAM,
    param_end: DSML41_PARAM_END,
    block_openers: DSML41_BLOCK_OPENERS,
    eos: &[EOS],
    between_calls: &[DSML41_INVOKE, DSML41_BLOCK_END, EOS],
    turn_starts: TURN_STARTS,
    content: MarkerSet::new(&[&[DSML41_BLOCK], &[DSML41_INVOKE], RESERVED]),
    value_end: MarkerSet::new(&[
        &[DSML41_PARAM_END],
        &[DSML41_INVOKE_END],
        &[DSML41_BLOCK_END],
    ]),
    body_end: MarkerSet::new(&[&[DSML41_INVOKE_END], &[DSML41_BLOCK_END], &[DSML41_INVOKE]]),
};

impl Dsml {
    /// How a parameter value ends: at `param_end` (or a call or block end when it is missing); no
    /// framing newline is trimmed.
    #[inline]
    fn value_syntax(&'static self) -> ValueSyntax {
        ValueSyntax {
            ends: &self.value_end,
            closer_followers: None,
            trim_newline: false,
        }
    }
}

const BLOCK: usize = 0;
const DROP: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Content,
    /// The text starts with a block opener; nothing is committed until an invoke tag is complete.
    BlockLead,
    /// The text starts with `<｜DSML｜invoke`.
    InvokeHead,
    /// Inside a committed block, between calls.
    InBlock,
    /// Inside a call, between parameters.
    Body,
    /// The text starts with `<｜DSML｜parameter`.
    ParamHead,
    /// Inside a parameter value (streamed when a string, collected otherwise).
    Value,
    /// A JSON object directly inside `invoke`.
    JsonBody,
    /// Something else inside `invoke`: raw text, flagged invalid.
    RawBody,
}

/// The DSML tool-call parser, for one spelling ([`Dsml`]); see the module docs.
#[derive(Clone, Debug)]
pub struct DsmlToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    dsml: &'static Dsml,
    state: State,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    /// The open call's name (for schema lookups).
    function: String,
    /// The open call's arguments, built append-only.
    args: ObjectArgs,
    /// The open parameter's value; a non-string value keeps its key, written with the value.
    value: ParamValue,
    /// A lone `arguments`/`input` wrapper, held until we know whether another parameter follows.
    wrapper: Option<(String, String)>,
    /// The arguments were a JSON object written directly inside `invoke`.
    direct_json: bool,
    /// Whether the open call is still well-formed.
    valid: bool,
    json_body: JsonArgs,
}

impl DsmlToolParser {
    /// A parser for one request, DeepSeek V3.2 / V4's spelling ([`DSML_V32`]).
    pub fn new(options: &ParseOptions) -> Self {
        Self::with_spelling(&DSML_V32, options)
    }

    /// A parser for one request, reading the markup as `dsml` spells it.
    pub fn with_spelling(dsml: &'static Dsml, options: &ParseOptions) -> Self {
        DsmlToolParser {
            carry: Carry::new(),
            machine: Machine {
                dsml,
                state: State::Content,
                calls: Calls::new(options).with_turn_starts(dsml.turn_starts),
                tools: options.tools.clone(),
                function: String::new(),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
                wrapper: None,
                direct_json: false,
                valid: true,
                json_body: JsonArgs::new(),
            },
        }
    }
}

impl ToolParser for DsmlToolParser {
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
            // Cut off inside a call: write what was collected, flagged invalid.
            match m.state {
                State::Value if m.value.is_string() => m.value.end(&mut m.args, &mut m.calls, out),
                State::Value => {
                    // The collected text as written: the call is invalid, nothing is typed.
                    m.flush_wrapper(out);
                    let key = m.value.deferred_key().unwrap_or_default();
                    m.args.key(&mut m.calls, out, key);
                    m.args.value(&mut m.calls, out, m.value.collected());
                }
                _ => {}
            }
            m.flush_wrapper(out);
            m.calls.end(out, false);
        }
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        self.machine.dsml.block_openers
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content
    }
}

/// What a tag turned out to be.
enum Tag<'t> {
    NeedMore,
    /// A complete tag: its `name` and `string` attributes, and its length.
    Complete {
        name: &'t str,
        string: Option<&'t str>,
        len: usize,
    },
    Not,
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        (self.state == State::Content).then_some((&mut self.calls, &self.dsml.content))
    }

    /// A delta inside a string value that holds no byte that can start an end tag: escaped and
    /// appended, as `run` would, without the state machine (the common delta of a long argument).
    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        self.state == State::Value
            && self.value.take_plain(
                text,
                &self.dsml.value_syntax(),
                &mut self.args,
                &mut self.calls,
                out,
            )
    }
}
impl Machine {
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let d = self.dsml;
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    match self
                        .calls
                        .scan_content(out, rest, eof, &d.content, Some(DROP))
                    {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, group } => {
                            pos += at;
                            self.state = if group == BLOCK {
                                State::BlockLead
                            } else {
                                State::InvokeHead
                            };
                        }
                    }
                }
                State::BlockLead => {
                    let lead = section_lead(rest, d.blocks, d.invoke, HEAD_LIMIT, eof);
                    let is_call = match lead.call {
                        LeadCall::More => return pos,
                        LeadCall::Not => false,
                        LeadCall::At(at) => match tag(&rest[at..], d.invoke, eof) {
                            Tag::NeedMore => return pos,
                            Tag::Complete { name, len, .. } => {
                                self.open_call(out, name);
                                pos += at + len;
                                true
                            }
                            Tag::Not => false,
                        },
                    };
                    if !is_call {
                        self.calls.content(out, &rest[..lead.opener]);
                        pos += lead.opener;
                        self.state = State::Content;
                    }
                }
                State::InvokeHead => match tag(rest, d.invoke, eof) {
                    Tag::NeedMore => return pos,
                    Tag::Complete { name, len, .. } => {
                        self.open_call(out, name);
                        pos += len;
                    }
                    Tag::Not => {
                        self.calls.content(out, d.invoke);
                        pos += d.invoke.len();
                        self.state = State::Content;
                    }
                },
                State::InBlock => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let rest = &rest[ws..];
                    if rest.is_empty() {
                        return pos;
                    }
                    if rest.starts_with(d.invoke) {
                        self.state = State::InvokeHead;
                    } else if let Some(end) = d.block_ends.iter().find(|e| rest.starts_with(**e)) {
                        pos += end.len();
                        self.state = State::Content;
                    } else if let Some(eos) = d.eos.iter().find(|e| rest.starts_with(**e)) {
                        pos += eos.len();
                    } else if literal_at(rest, d.between_calls, false) == Literal::Partial {
                        // Cut off inside a marker at the end of the output: dropped, never content.
                        return pos + if eof { rest.len() } else { 0 };
                    } else {
                        self.state = State::Content;
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
                    if after.starts_with(d.param) {
                        self.state = State::ParamHead;
                    } else if after.starts_with(d.invoke_end) {
                        pos += d.invoke_end.len();
                        self.close_call(out);
                        self.state = State::InBlock;
                    } else if after.starts_with('{')
                        && self.args.members() == 0
                        && self.wrapper.is_none()
                    {
                        self.json_body.reset();
                        self.state = State::JsonBody;
                    } else if literal_at(after, &[d.param, d.invoke_end], false) == Literal::Partial
                    {
                        // Cut off inside a tag at the end of the output: dropped (`finish` flags the
                        // call, whose `</｜DSML｜invoke>` is missing).
                        return pos + if eof { after.len() } else { 0 };
                    } else {
                        self.start_raw_body(out);
                    }
                }
                State::ParamHead => match tag(rest, d.param, eof) {
                    Tag::NeedMore => return pos,
                    Tag::Complete { name, string, len } => {
                        self.open_param(out, name, string);
                        pos += len;
                    }
                    // Cut off inside the tag: no fragment of it reaches the arguments.
                    Tag::Not if eof && matches!(tag(rest, d.param, false), Tag::NeedMore) => {
                        return text.len();
                    }
                    Tag::Not => self.start_raw_body(out),
                },
                State::Value => {
                    let syntax = d.value_syntax();
                    let step =
                        self.value
                            .run(rest, eof, &syntax, &mut self.args, &mut self.calls, out);
                    match step {
                        ParamStep::Pending(used) => return pos + used,
                        ParamStep::Ended(used) => {
                            pos += used;
                            if self.value.is_string() {
                                self.value.end(&mut self.args, &mut self.calls, out);
                            } else {
                                self.close_raw_value(out);
                            }
                            self.state = State::Body;
                        }
                    }
                }
                State::JsonBody => {
                    let syntax = ArgsSyntax {
                        fenced: false,
                        end: &d.body_end,
                    };
                    let (used, end) = self.json_body.run(rest, eof, &syntax, &mut self.calls, out);
                    pos += used;
                    match end {
                        ArgsEnd::Open => return pos,
                        ArgsEnd::Closed { valid } => {
                            self.valid &= valid;
                            self.direct_json = true;
                            self.state = State::RawBody;
                        }
                    }
                }
                State::RawBody => match d.body_end.find(rest, eof) {
                    None => {
                        self.raw_args(out, rest);
                        return text.len();
                    }
                    Some(Found::Partial { start }) => {
                        self.raw_args(out, &rest[..start]);
                        return pos + start;
                    }
                    Some(Found::Marker { start, end, .. }) => {
                        self.raw_args(out, &rest[..start]);
                        pos += start;
                        if rest[start..].starts_with(d.invoke_end) {
                            pos += end - start;
                        }
                        let valid = self.valid;
                        self.calls.end(out, valid);
                        self.state = State::InBlock;
                    }
                },
            }
        }
    }

    fn open_call(&mut self, out: &mut dyn Sink, name: &str) {
        self.calls.start(out, name, None);
        self.function.clear();
        self.function.push_str(name);
        self.args.reset();
        self.wrapper = None;
        self.direct_json = false;
        self.valid = true;
        self.state = State::Body;
    }

    fn close_call(&mut self, out: &mut dyn Sink) {
        match self.wrapper.take() {
            // A lone wrapper holding an object: its object is the arguments.
            Some((_, value)) if self.args.members() == 0 && is_json_object(&value) => {
                self.args.value(&mut self.calls, out, &value);
            }
            Some((key, value)) => {
                self.args.key(&mut self.calls, out, &key);
                self.args.value(&mut self.calls, out, &value);
                self.args.finish(&mut self.calls, out);
            }
            None => self.args.finish(&mut self.calls, out),
        }
        let valid = self.valid;
        self.calls.end(out, valid);
    }

    /// The body is not parameters from here on: close what was written and keep the rest raw.
    fn start_raw_body(&mut self, out: &mut dyn Sink) {
        self.flush_wrapper(out);
        if self.args.members() > 0 {
            self.args.finish(&mut self.calls, out);
        }
        self.valid = false;
        self.state = State::RawBody;
    }

    /// A held wrapper turns out not to be alone: write it as an ordinary parameter.
    fn flush_wrapper(&mut self, out: &mut dyn Sink) {
        if let Some((key, value)) = self.wrapper.take() {
            self.args.key(&mut self.calls, out, &key);
            self.args.value(&mut self.calls, out, &value);
        }
    }

    fn open_param(&mut self, out: &mut dyn Sink, name: &str, string: Option<&str>) {
        self.flush_wrapper(out);
        let declared = (self.tools.as_deref())
            .and_then(|tools| tools.param_type(&self.function, name))
            .cloned();
        let value_type = declared.unwrap_or(match string {
            Some("false") => ValueType::Any,
            _ => ValueType::String,
        });
        // A non-string value's key is written with the value, so that a wrapper can still be unwrapped.
        self.value
            .start_deferred(value_type, name, &mut self.args, &mut self.calls, out);
        self.state = State::Value;
    }

    fn close_raw_value(&mut self, out: &mut dyn Sink) {
        let typed = self.value.typed();
        let param = self.value.deferred_key().unwrap_or_default();
        let schema_silent = self
            .tools
            .as_ref()
            .and_then(|tools| tools.get(&self.function))
            .is_some_and(|tool| tool.has_params() && tool.param(param).is_none());
        if self.args.members() == 0 && schema_silent && matches!(param, "arguments" | "input") {
            self.wrapper = Some((param.to_owned(), typed));
        } else {
            self.args.key(&mut self.calls, out, param);
            self.args.value(&mut self.calls, out, &typed);
        }
    }

    fn raw_args(&mut self, out: &mut dyn Sink, text: &str) {
        if self.direct_json {
            // After a direct JSON body: anything but whitespace makes the call invalid.
            if text.bytes().all(parser_core::is_ws) {
                return;
            }
            self.valid = false;
        }
        self.calls.args(out, text);
    }
}

/// Reads a tag `<｜DSML｜invoke name="…">` / `<｜DSML｜parameter name="…" string="…">` at the start of
/// `text` (which starts with `opener`).
fn tag<'t>(text: &'t str, opener: &str, eof: bool) -> Tag<'t> {
    let after = &text[opener.len()..];
    if !after.is_empty() && !after.starts_with(|c: char| c.is_whitespace() || c == '>') {
        return Tag::Not;
    }
    // Decided on the text seen so far only, so that every chunking decides alike: a `<` before the
    // closing `>`, or a tag longer than the limit, is not a tag.
    let close = after.find('>');
    let attrs = &after[..close.unwrap_or(after.len())];
    if attrs.contains('<') || attrs.len() > HEAD_LIMIT {
        return Tag::Not;
    }
    let Some(close) = close else {
        return if eof { Tag::Not } else { Tag::NeedMore };
    };
    let mut name = None;
    let mut string = None;
    let mut rest = attrs.trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else {
            return Tag::Not;
        };
        let key = rest[..eq].trim();
        let value_text = rest[eq + 1..].trim_start();
        let (value, next) = match value_text.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let inner = &value_text[1..];
                let Some(end) = inner.find(q) else {
                    return Tag::Not;
                };
                (&inner[..end], &inner[end + 1..])
            }
            Some(_) => {
                let end = value_text
                    .find(char::is_whitespace)
                    .unwrap_or(value_text.len());
                (&value_text[..end], &value_text[end..])
            }
            None => return Tag::Not,
        };
        match key {
            "name" => name = Some(value),
            "string" => string = Some(value),
            _ => {}
        }
        rest = next.trim_start();
    }
    match name {
        Some(name) if !name.is_empty() => Tag::Complete {
            name,
            string,
            len: opener.len() + close + 1,
        },
        _ => Tag::Not,
    }
}
