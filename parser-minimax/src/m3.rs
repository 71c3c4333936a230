//! MiniMax-M3: `<mm:think>` reasoning and namespaced XML calls whose parameters are elements.
//!
//! ```text
//! <mm:think>The user wants an order.</mm:think>I will create it.
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="create_order">]<]minimax[>[<user_id>42]<]minimax[>[</user_id>]<]minimax[>[<shipping>]<]minimax[>[<city>Singapore]<]minimax[>[</city>]<]minimax[>[</shipping>]<]minimax[>[<items>]<]minimax[>[<item>]<]minimax[>[<sku>pen]<]minimax[>[</sku>]<]minimax[>[</item>]<]minimax[>[</items>]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Every tag of a call is preceded by the namespace token [`NS`] (`]<]minimax[>[`). A parameter is an
//! element named after it; its value is either text (a string as written, anything else typed by the
//! request's tool schema, as the template writes a non-string as JSON) or nested elements: an object,
//! one member per child element (a repeated child collapses into a list), or an array when the
//! schema says array and the first child is `<item>` (one `<item>` per element). Leaves of nested
//! values are typed by the schema at their place (`properties`, `additionalProperties`, `items`).
//!
//! # Why a state machine
//! The generic engine's tagged format closes every value with one fixed marker; here the closer
//! repeats the parameter's own name (`]<]minimax[>[</city>`) and values nest, so the reader keeps a
//! stack of open elements. The machine runs on parser-core's scanner and call machinery like the
//! other hand-written families.
//!
//! # Grammar
//! The constrained-decoding grammar ([`crate::m3_grammar`]) is built from these markers, as
//! parser-core's element calls (`CallName::Elements`): each closer names its parameter, declared
//! objects and arrays nest as elements.
//!
//! # Reading rules
//! - A call is committed at its complete name: `]<]minimax[>[<tool_call>`, whitespace, then
//!   `]<]minimax[>[<invoke name="NAME">` within [`HEAD_LIMIT`]. Anything else after the block opener
//!   is not a call: the opener is content, raw. One block may hold several invokes (whitespace between
//!   them is framing); a later block is read the same way.
//! - Text values stream as they arrive when they are strings; a value ends at its closer
//!   `]<]minimax[>[</NAME>` or, when that is missing, at the invoke's or block's closer. A namespace
//!   token inside a text value that opens nothing of the above is part of the value.
//! - A value that starts with `]<]minimax[>[<` is nested (even when the schema says string: the model
//!   chose the structure), collected up to its closer, and written whole. Whitespace-only text between
//!   child elements is framing; other text beside child elements is kept under the key `$text`.
//! - An invoke missing its closer ends at the next invoke or the block's closer, valid. Anything else
//!   in an invoke body is kept raw in the arguments, the call flagged invalid. A call cut off by the end
//!   of the output stays, flagged invalid, with what was read (DESIGN §4.6).
//! - `</mm:think>` at the very start of the answer (the model closing a think block the prompt already
//!   closed) is dropped, as vLLM's `minimax_m3` reasoning parser does; `[e~[` is dropped anywhere.

use std::sync::Arc;

use parser_core::{
    BlockInReasoning, Boundary, CallEnds, CallMachine, Calls, Carry, Closer, Composed, ContentStep,
    Deltas, Head, Literal, MarkerSet, ObjectArgs, ParseOptions, Parser, ReasoningFormat,
    ReasoningSyntax, Sink, Stage, StageDetector, ThinkTagReasoningParser, ToolParser, Tools,
    ValueType, call_boundary, escape_json_into, find_within, leading_ws, literal_at,
    partial_suffix,
};
use serde_json::Value;

/// The namespace token in front of every tag of a call.
pub const NS: &str = "]<]minimax[>[";
/// Opens reasoning (written by the model, or by the prompt when `thinking_mode` is `enabled`).
pub const THINK_OPEN: &str = "<mm:think>";
/// Closes reasoning.
pub const THINK_CLOSE: &str = "</mm:think>";
/// Opens the call block.
pub const TOOL_CALL: &str = "]<]minimax[>[<tool_call>";
/// Closes the call block.
pub const TOOL_CALL_END: &str = "]<]minimax[>[</tool_call>";
/// Opens one call, up to its name.
pub const INVOKE: &str = "]<]minimax[>[<invoke name=\"";
/// Ends the call's name.
pub const INVOKE_NAME_END: &str = "\">";
/// Closes one call.
pub const INVOKE_END: &str = "]<]minimax[>[</invoke>";
/// The end of the turn (MiniMax's end-of-block token), dropped.
pub const END_OF_TURN: &str = "[e~[";
/// Starts the assistant's turn in the prompt (stage detection looks after the last one).
pub const ASSISTANT: &str = "]~b]ai";

/// Opens an element (`]<]minimax[>[<NAME>`) or, followed by `/`, closes one.
pub const TAG_OPEN: &str = "]<]minimax[>[<";
/// Ends an element's tag.
pub const TAG_END: &str = ">";
/// The element of each entry of an array value.
pub const ITEM: &str = "item";

/// The longest function name or element name read before the text is taken not to be one; every
/// head is decided on the text seen so far within this bound, so that every chunking decides alike.
pub const HEAD_LIMIT: usize = 256;

/// The format's markers, whole (the chunking tests push each one whole). The namespace token and the
/// think tags are single tokens of the vocabulary.
pub const SPECIAL_TOKENS: &[&str] = &[NS, THINK_OPEN, THINK_CLOSE, END_OF_TURN];

/// Stage detection: `<mm:think>` / `</mm:think>` after the last `]~b]ai` of the prompt.
pub static STAGE: StageDetector = StageDetector::new(&[THINK_OPEN], &[THINK_CLOSE], &[ASSISTANT]);

/// `<mm:think>` reasoning; `[e~[` dropped; a call block inside open reasoning is held.
pub static THINK: ReasoningSyntax = ReasoningSyntax::new(STAGE, &[END_OF_TURN], &[TOOL_CALL]);

/// Content: the block opener (group 0) and the end of turn, dropped (group 1).
const DROP: usize = 1;
static CONTENT: MarkerSet = MarkerSet::new(&[&[TOOL_CALL], &[END_OF_TURN]]);

/// An invoke ends at its closer or, when that is missing, at the block's closer or the next invoke.
static CALL_ENDS: CallEnds = CallEnds {
    close: INVOKE_END,
    block_close: Some(TOOL_CALL_END),
    next: &[INVOKE],
};

/// Where an invoke body that is not parameters ends: its closer (group 0), the block's closer
/// (group 1, both consumed), or the next block (group 2, left to content).
static RAW_BODY_END: MarkerSet = MarkerSet::new(&[&[INVOKE_END], &[TOOL_CALL_END], &[TOOL_CALL]]);

/// The `minimax-m3` parser for one request: reasoning from the prompt's stage (content when it says
/// nothing: the model opens `<mm:think>` itself), then calls.
pub fn minimax_m3(options: &ParseOptions) -> Parser {
    let decided = STAGE.from_request_without_switch(options);
    let stage = decided.unwrap_or(Stage::Content);
    let inline = options.reasoning_format == ReasoningFormat::Inline;
    let reasoning = ThinkTagReasoningParser::new(&THINK, stage)
        .stage_from_default(decided.is_none())
        .inline(inline)
        .blocks_in_reasoning(BlockInReasoning::Hold);
    let tools = MiniMaxM3ToolParser::new(options);
    Parser::new("minimax-m3", Composed::new(reasoning, tools, stage, inline))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Outside calls (a block head being read is held, in this state).
    Content,
    /// Inside a block, between invokes.
    Block,
    /// Inside a committed call, between parameters.
    Body,
    /// Inside a parameter's value.
    Value,
    /// Something other than parameters inside an invoke: raw text, the call flagged invalid.
    RawBody,
}

/// How a parameter's value is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Nothing of it seen yet: text or nested elements?
    Undecided,
    /// Text, streamed as a string or collected for typing.
    Text { streaming: bool },
    /// Nested elements, collected up to the closer.
    Nested,
}

/// MiniMax-M3's tool-call parser; see the module docs.
#[derive(Clone, Debug)]
pub struct MiniMaxM3ToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    /// Nothing but whitespace has reached the content yet (a stray `</mm:think>` there is dropped).
    at_start: bool,
    /// `reasoning_format: none`: the think tags stay in the content, so none is dropped.
    inline: bool,
    /// The open call's name (for schema lookups).
    function: String,
    args: ObjectArgs,
    /// The open parameter's name, its closer, and how its value is read.
    key: String,
    closer: String,
    mode: Mode,
    value_type: ValueType,
    /// A collected value's text (typed text, or the nested elements as written).
    collected: String,
    /// The elements open inside a nested value.
    open_tags: Vec<String>,
}

impl MiniMaxM3ToolParser {
    /// A parser for one request.
    pub fn new(options: &ParseOptions) -> Self {
        MiniMaxM3ToolParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Content,
                calls: Calls::new(options),
                tools: options.tools.clone(),
                at_start: true,
                inline: options.reasoning_format == ReasoningFormat::Inline,
                function: String::new(),
                args: ObjectArgs::new(),
                key: String::new(),
                closer: String::new(),
                mode: Mode::Undecided,
                value_type: ValueType::String,
                collected: String::new(),
                open_tags: Vec::new(),
            },
        }
    }
}

impl ToolParser for MiniMaxM3ToolParser {
    #[inline]
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        self.carry.feed_calls(text, &mut self.machine, out);
    }

    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        self.carry.feed_calls_deltas(text, &mut self.machine, out);
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        let m = &mut self.machine;
        self.carry.finish(m, |m, text| m.run(text, true, out));
        // Cut off inside a call: write what was read, flagged invalid.
        if m.state == State::Value {
            m.end_value(out);
        }
        m.calls.end(out, false);
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        &[TOOL_CALL]
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content || self.carry.held().starts_with(TOOL_CALL)
    }
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        (self.state == State::Content && !self.at_start).then_some((&mut self.calls, &CONTENT))
    }

    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        // A run of a streamed string value: no byte of it can start the namespace token.
        let plain = self.state == State::Value
            && self.mode == (Mode::Text { streaming: true })
            && !text.is_empty()
            && !text.contains(']');
        if plain {
            self.args.string_chunk(&mut self.calls, out, text);
        }
        plain
    }
}

/// Where a value stands after [`Machine::run_value`].
enum ValueStep {
    /// This much was consumed; the value is still open.
    Pending(usize),
    /// The value ended after this much.
    Ended(usize),
}

impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed (the rest is held).
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    if self.at_start {
                        let ws = leading_ws(rest);
                        if ws == rest.len() {
                            // Whitespace only so far: written, and the start is still ahead.
                            self.calls.content(out, rest);
                            return text.len();
                        }
                        self.calls.content(out, &rest[..ws]);
                        pos += ws;
                        let after = &rest[ws..];
                        if !self.inline {
                            match literal_at(after, &[THINK_CLOSE], eof) {
                                Literal::Partial => return pos,
                                Literal::Whole(len) => pos += len,
                                Literal::No => {}
                            }
                        }
                        self.at_start = false;
                        continue;
                    }
                    let step = self
                        .calls
                        .scan_content(out, rest, eof, &CONTENT, Some(DROP));
                    let at = match step {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, .. } => at,
                    };
                    // Nothing is committed until the first call's name is complete.
                    let block = &rest[at + TOOL_CALL.len()..];
                    let ws = leading_ws(block);
                    if ws > HEAD_LIMIT {
                        self.calls.content(out, TOOL_CALL);
                        pos += at + TOOL_CALL.len();
                        continue;
                    }
                    match invoke_head(&block[ws..], eof) {
                        Head::NeedMore => return pos + at,
                        Head::Complete(name, len) => {
                            self.start_call(out, name);
                            pos += at + TOOL_CALL.len() + ws + len;
                        }
                        Head::Not => {
                            self.calls.content(out, TOOL_CALL);
                            pos += at + TOOL_CALL.len();
                        }
                    }
                }
                State::Block => {
                    // Whitespace between invokes is framing, up to a bound (decided alike in every
                    // chunking); it is held until what follows shows whether the block goes on.
                    let ws = leading_ws(rest);
                    let after = &rest[ws..];
                    if ws > HEAD_LIMIT || (after.is_empty() && eof) {
                        self.state = State::Content;
                        continue;
                    }
                    if after.is_empty() {
                        return pos;
                    }
                    match literal_at(after, &[TOOL_CALL_END], eof) {
                        Literal::Whole(len) => {
                            pos += ws + len;
                            self.state = State::Content;
                            continue;
                        }
                        Literal::Partial => return pos,
                        Literal::No => {}
                    }
                    match invoke_head(after, eof) {
                        Head::NeedMore => return pos,
                        Head::Complete(name, len) => {
                            self.start_call(out, name);
                            pos += ws + len;
                        }
                        Head::Not
                            if eof
                                && literal_at(after, &[TOOL_CALL_END], false)
                                    == Literal::Partial =>
                        {
                            // Cut off inside the block's closer: the block is complete.
                            return text.len();
                        }
                        // Not a call: the block ends, and the text (from the whitespace on) is content.
                        Head::Not => self.state = State::Content,
                    }
                }
                State::Body => match call_boundary(rest, eof, &CALL_ENDS, param_head) {
                    Boundary::Wait(used) => return pos + used,
                    Boundary::Closed { used, by } => {
                        pos += used;
                        self.close_call(out, by);
                    }
                    Boundary::Argument(key, used) => {
                        self.open_value(out, key);
                        pos += used;
                    }
                    Boundary::Raw(used) => {
                        pos += used;
                        self.state = State::RawBody;
                    }
                },
                State::Value => match self.run_value(rest, eof, out) {
                    ValueStep::Pending(used) => return pos + used,
                    ValueStep::Ended(used) => {
                        pos += used;
                        self.end_value(out);
                        self.state = State::Body;
                    }
                },
                State::RawBody => {
                    let found = RAW_BODY_END.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.calls.args(out, &rest[..stop]);
                    let Some(parser_core::Found::Marker { end, group, .. }) = found else {
                        return pos + stop;
                    };
                    self.calls.end(out, false);
                    let (next, used) = match group {
                        0 => (State::Block, end),
                        1 => (State::Content, end),
                        _ => (State::Content, stop),
                    };
                    pos += used;
                    self.state = next;
                }
            }
        }
    }

    fn start_call(&mut self, out: &mut dyn Sink, name: &str) {
        self.calls.start(out, name, None);
        self.function.replace_range(.., name);
        self.args.reset();
        self.state = State::Body;
    }

    /// Closes the call; the block goes on unless its own closer ended the call.
    fn close_call(&mut self, out: &mut dyn Sink, by: Closer) {
        self.args.finish(&mut self.calls, out);
        self.calls.end(out, true);
        self.state = match by {
            Closer::Block => State::Content,
            Closer::Call | Closer::Next => State::Block,
        };
    }

    fn open_value(&mut self, out: &mut dyn Sink, key: &str) {
        self.key.replace_range(.., key);
        self.closer.clear();
        self.closer.push_str(TAG_OPEN);
        self.closer.push('/');
        self.closer.push_str(key);
        self.closer.push('>');
        self.value_type = self
            .tools
            .as_deref()
            .and_then(|tools| tools.param_type(&self.function, key))
            .cloned()
            .unwrap_or_default();
        self.mode = Mode::Undecided;
        self.collected.clear();
        self.open_tags.clear();
        self.args.key(&mut self.calls, out, key);
        self.state = State::Value;
    }

    /// Reads value text from `text`.
    fn run_value(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> ValueStep {
        if self.mode == Mode::Undecided {
            if text.is_empty() {
                return ValueStep::Pending(0);
            }
            match literal_at(text, &[TAG_OPEN], eof) {
                Literal::Partial => return ValueStep::Pending(0),
                Literal::Whole(_) => {
                    match literal_at(text, &[self.closer.as_str()], eof) {
                        // An empty value.
                        Literal::Whole(len) => return ValueStep::Ended(len),
                        Literal::Partial => return ValueStep::Pending(0),
                        Literal::No => self.mode = Mode::Nested,
                    }
                }
                Literal::No => {
                    let streaming = self.value_type.is_string();
                    if streaming {
                        self.args.string_start(&mut self.calls, out);
                    }
                    self.mode = Mode::Text { streaming };
                }
            }
        }
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            let Some(at) = rest.find(NS) else {
                let keep = if eof { 0 } else { partial_suffix(rest, NS) };
                self.value_text(out, &rest[..rest.len() - keep]);
                return ValueStep::Pending(text.len() - keep);
            };
            self.value_text(out, &rest[..at]);
            pos += at;
            let tag = &text[pos..];
            if self.mode == Mode::Nested {
                match self.nested_tag(tag, eof) {
                    NestedTag::NeedMore => return ValueStep::Pending(pos),
                    NestedTag::Closer(len) => return ValueStep::Ended(pos + len),
                    NestedTag::Stop => return ValueStep::Ended(pos),
                    NestedTag::Inner(len) => {
                        self.collected.push_str(&tag[..len]);
                        pos += len;
                    }
                }
                continue;
            }
            match literal_at(tag, &[self.closer.as_str(), INVOKE_END, TOOL_CALL_END], eof) {
                Literal::Whole(len) if tag.starts_with(self.closer.as_str()) => {
                    return ValueStep::Ended(pos + len);
                }
                // The value's closer is missing: the invoke's or the block's ends it (not consumed).
                Literal::Whole(_) => return ValueStep::Ended(pos),
                Literal::Partial => return ValueStep::Pending(pos),
                Literal::No => {
                    self.value_text(out, NS);
                    pos += NS.len();
                }
            }
        }
    }

    /// Writes text of the open value: streamed when a string, collected otherwise.
    fn value_text(&mut self, out: &mut dyn Sink, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.mode {
            Mode::Text { streaming: true } => self.args.string_chunk(&mut self.calls, out, text),
            _ => self.collected.push_str(text),
        }
    }

    /// Reads a tag at the start of `text` (which starts with the namespace token) inside a nested value.
    fn nested_tag(&mut self, text: &str, eof: bool) -> NestedTag {
        let after = &text[NS.len()..];
        let Some(inner) = after.strip_prefix('<') else {
            return if after.is_empty() && !eof {
                NestedTag::NeedMore
            } else {
                NestedTag::Inner(NS.len())
            };
        };
        let Some(gt) = find_within(inner, ">", HEAD_LIMIT) else {
            return if eof || inner.len() > HEAD_LIMIT {
                NestedTag::Inner(NS.len())
            } else {
                NestedTag::NeedMore
            };
        };
        let len = NS.len() + 1 + gt + 1;
        let tag = &inner[..gt];
        if let Some(name) = tag.strip_prefix('/') {
            if self.open_tags.is_empty() {
                if name == self.key {
                    return NestedTag::Closer(len);
                }
                if name == "invoke" || name == "tool_call" {
                    return NestedTag::Stop;
                }
            } else if let Some(at) = self.open_tags.iter().rposition(|open| open == name) {
                self.open_tags.truncate(at);
            }
        } else {
            self.open_tags.push(tag.to_owned());
        }
        NestedTag::Inner(len)
    }

    /// Ends the open value: writes what is left of it.
    fn end_value(&mut self, out: &mut dyn Sink) {
        match self.mode {
            Mode::Text { streaming: true } => self.args.string_end(&mut self.calls, out),
            Mode::Text { streaming: false } | Mode::Undecided => {
                let json = self.value_type.coerce(&self.collected);
                self.args.value(&mut self.calls, out, &json);
            }
            Mode::Nested => {
                let schema = self
                    .tools
                    .as_deref()
                    .and_then(|tools| tools.get(&self.function))
                    .and_then(|tool| member_schema(tool.parameters(), &self.key));
                let root = parse_elements(&self.collected);
                let mut json = String::new();
                write_value(&root, schema, &mut json);
                self.args.value(&mut self.calls, out, &json);
            }
        }
        self.mode = Mode::Undecided;
    }
}

/// A tag inside a nested value.
enum NestedTag {
    NeedMore,
    /// The value's own closer, this long (consumed).
    Closer(usize),
    /// The invoke's or the block's closer: the value's closer is missing (not consumed).
    Stop,
    /// Part of the value, this long.
    Inner(usize),
}

/// Reads `]<]minimax[>[<invoke name="NAME">` at the start of `text`: the name is non-empty and holds
/// no line break or namespace token. Decided within [`HEAD_LIMIT`].
fn invoke_head(text: &str, eof: bool) -> Head<&str> {
    let len = match literal_at(text, &[INVOKE], eof) {
        Literal::Whole(len) => len,
        Literal::Partial => return Head::NeedMore,
        Literal::No => return Head::Not,
    };
    let after = &text[len..];
    let Some(at) = find_within(after, INVOKE_NAME_END, HEAD_LIMIT) else {
        return Head::unfinished(eof || after.len() > HEAD_LIMIT + INVOKE_NAME_END.len());
    };
    let name = &after[..at];
    if name.is_empty() || name.contains(['\n', '"']) || name.contains(NS) {
        return Head::Not;
    }
    Head::Complete(name, len + at + INVOKE_NAME_END.len())
}

/// Reads `]<]minimax[>[<NAME>` at the start of `text` (not a closer): the name is non-empty and holds
/// no whitespace, `<`, `/` or `"`. Decided within [`HEAD_LIMIT`].
fn param_head(text: &str, eof: bool) -> Head<&str> {
    let len = match literal_at(text, &[TAG_OPEN], eof) {
        Literal::Whole(len) => len,
        Literal::Partial => return Head::NeedMore,
        Literal::No => return Head::Not,
    };
    let after = &text[len..];
    let Some(at) = find_within(after, ">", HEAD_LIMIT) else {
        return Head::unfinished(eof || after.len() > HEAD_LIMIT);
    };
    let name = &after[..at];
    let bad = |c: char| c.is_whitespace() || matches!(c, '<' | '/' | '"');
    if name.is_empty() || name.contains(bad) {
        return Head::Not;
    }
    Head::Complete(name, len + at + 1)
}

/// One element of a nested value: its children in order and its text.
#[derive(Debug, Default)]
struct Element {
    tag: String,
    children: Vec<Element>,
    text: String,
}

/// Reads nested elements as written (`]<]minimax[>[<a>…]<]minimax[>[</a>`): a closer closes the
/// innermost open element of its name and everything inside it; one that matches nothing is ignored;
/// elements left open end with the value.
fn parse_elements(body: &str) -> Element {
    let mut stack = vec![Element::default()];
    let mut pieces = body.split(NS);
    if let Some(first) = pieces.next() {
        stack[0].text.push_str(first);
    }
    for piece in pieces {
        if let Some(closing) = piece.strip_prefix("</") {
            let (tag, text) = closing.split_once('>').unwrap_or((closing, ""));
            if let Some(at) = stack
                .iter()
                .rposition(|e| e.tag == tag)
                .filter(|&at| at > 0)
            {
                while stack.len() > at {
                    close_top(&mut stack);
                }
            }
            if let Some(top) = stack.last_mut() {
                top.text.push_str(text);
            }
        } else if let Some(opening) = piece.strip_prefix('<') {
            let (tag, text) = opening.split_once('>').unwrap_or((opening, ""));
            stack.push(Element {
                tag: tag.to_owned(),
                children: Vec::new(),
                text: text.to_owned(),
            });
        } else if let Some(top) = stack.last_mut() {
            // A namespace token that opens nothing is text.
            top.text.push_str(NS);
            top.text.push_str(piece);
        }
    }
    while stack.len() > 1 {
        close_top(&mut stack);
    }
    stack.pop().unwrap_or_default()
}

fn close_top(stack: &mut Vec<Element>) {
    if let Some(done) = stack.pop()
        && let Some(parent) = stack.last_mut()
    {
        parent.children.push(done);
    }
}

/// Whether `schema` allows an array.
fn allows(schema: Option<&Value>, wanted: &ValueType) -> bool {
    match schema.map(ValueType::from_schema) {
        Some(ValueType::Union(types)) => types.contains(wanted),
        Some(found) => &found == wanted,
        None => false,
    }
}

/// The schema of member `key` of an object `schema`: its property, else `additionalProperties`.
fn member_schema<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    schema
        .get("properties")
        .and_then(|properties| properties.get(key))
        .or_else(|| schema.get("additionalProperties").filter(|v| v.is_object()))
}

/// The schema of item `index` of an array `schema`.
fn item_schema(schema: Option<&Value>, index: usize) -> Option<&Value> {
    let schema = schema?;
    schema
        .get("prefixItems")
        .and_then(|items| items.get(index))
        .or_else(|| schema.get("items").filter(|v| v.is_object()))
}

/// Writes `element`'s value as JSON, typed by `schema` where it says something.
fn write_value(element: &Element, schema: Option<&Value>, out: &mut String) {
    if element.children.is_empty() {
        let value_type = schema.map_or(ValueType::String, ValueType::from_schema);
        out.push_str(&value_type.coerce(&element.text));
        return;
    }
    if allows(schema, &ValueType::Array) && element.children[0].tag == ITEM {
        out.push('[');
        for (index, child) in element.children.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            write_value(child, item_schema(schema, index), out);
        }
        out.push(']');
        return;
    }
    // An object: one member per tag, in the order of first appearance; a repeated tag collapses into
    // a list.
    let mut tags: Vec<&str> = Vec::new();
    for child in &element.children {
        if !tags.contains(&child.tag.as_str()) {
            tags.push(&child.tag);
        }
    }
    out.push('{');
    for (index, tag) in tags.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write_key(tag, out);
        let member = schema.and_then(|schema| member_schema(schema, tag));
        let same: Vec<&Element> = element.children.iter().filter(|c| c.tag == *tag).collect();
        if let [only] = same[..] {
            write_value(only, member, out);
        } else {
            let each = if allows(member, &ValueType::Array) {
                item_schema(member, 0)
            } else {
                member
            };
            out.push('[');
            for (index, child) in same.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_value(child, each, out);
            }
            out.push(']');
        }
    }
    if !element.text.trim().is_empty() {
        let mut key = String::from("$text");
        while tags.contains(&key.as_str()) {
            key.insert(0, '$');
        }
        out.push_str(", ");
        write_key(&key, out);
        out.push_str(&ValueType::String.coerce(&element.text));
    }
    out.push('}');
}

fn write_key(key: &str, out: &mut String) {
    out.push('"');
    escape_json_into(key, out);
    out.push_str("\": ");
}
