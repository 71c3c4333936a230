//! Kimi K3: XTML channels built from three special tokens, `<|open|>`, `<|close|>` and `<|sep|>`.
//!
//! ```text
//! <|open|>think<|sep|>The user wants the weather.<|close|>think<|sep|>
//! <|open|>response<|sep|>Let me check.<|close|>response<|sep|>
//! <|open|>tools<|sep|>
//! <|open|>call tool="get_weather" index="1"<|sep|>
//! <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//! <|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|>
//! <|close|>call<|sep|>
//! <|close|>tools<|sep|><|close|>message<|sep|>
//! ```
//!
//! - Reasoning is the `think` channel. The prompt may open it (thinking mode's generation prefix), so
//!   the output starts in reasoning unless the request turns thinking off (`enable_thinking: false`,
//!   the template's `thinking` switch) or the prompt ends in the `response` channel's opener. The
//!   `response` channel's opener also ends reasoning left open (the model went on to answer), and so
//!   does the `tools` channel (a call section ends open reasoning, as in K2).
//! - Content is the `response` channel: its wrapper and the end-of-message `<|close|>message<|sep|>`
//!   are dropped wherever they stand, and text outside every channel is content too.
//! - Calls are the `tools` channel, one `call` element each. A call is committed at its complete head
//!   `<|open|>call ATTRS<|sep|>` whose `tool` attribute names it (attribute values are entity-escaped:
//!   `&quot;` and `&amp;` are read back; `index` is the model's one-based position and not needed).
//!   Each `argument` element carries its `key` and `type`: a `string` value is the raw text, streamed
//!   as it arrives; any other is JSON (kept as a string when it does not parse). A value ends at
//!   `<|close|>argument<|sep|>` or, when that is missing, at the call's or the channel's closer.
//! - A call missing its closer ends at the next call or the channel's closer; anything but arguments
//!   in a call is kept raw in its arguments, the call flagged invalid; a call cut off by the end of
//!   the output stays, flagged invalid, with what was read (DESIGN §4.6). A `tools` channel whose
//!   first element is not a call is content, raw.
//!
//! # Why a state machine
//! Names and keys are attributes with entity escapes, and each value's type is written by the model
//! beside its key: neither fits the generic engine's tagged format (fixed tags around a bare name and
//! key, values typed by the schema). The machine runs on parser-core's scanner, call bookkeeping and
//! tagged-value reader, like `k2`'s.
//!
//! The constrained-decoding grammar ([`crate::constraint::k3_format`]) is built from these markers,
//! as parser-core's element calls (`CallName::Elements`): the running `index` as digits, each value's
//! type name from its schema.

use parser_core::{
    BlockInReasoning, Boundary, CallEnds, CallMachine, Calls, Carry, Closer, Composed, ContentStep,
    Deltas, Found, Head, Literal, MarkerSet, ObjectArgs, ParamStep, ParamValue, ParseOptions,
    Parser, ReasoningFormat, ReasoningSyntax, Sink, Stage, StageDetector, ThinkTagReasoningParser,
    ToolParser, ValueSyntax, ValueType, call_boundary, find_within, leading_ws, literal_at,
    partial_suffix,
};

/// Opens an element.
pub const OPEN: &str = "<|open|>";
/// Closes an element.
pub const CLOSE: &str = "<|close|>";
/// Ends an element's head (after its name and attributes) and its closer.
pub const SEP: &str = "<|sep|>";
/// Opens the reasoning channel.
pub const THINK_OPEN: &str = "<|open|>think<|sep|>";
/// Closes the reasoning channel.
pub const THINK_CLOSE: &str = "<|close|>think<|sep|>";
/// Opens the answer channel.
pub const RESPONSE_OPEN: &str = "<|open|>response<|sep|>";
/// Closes the answer channel.
pub const RESPONSE_CLOSE: &str = "<|close|>response<|sep|>";
/// Ends the assistant's message.
pub const MESSAGE_CLOSE: &str = "<|close|>message<|sep|>";
/// Opens the calls channel.
pub const TOOLS_OPEN: &str = "<|open|>tools<|sep|>";
/// Closes the calls channel.
pub const TOOLS_CLOSE: &str = "<|close|>tools<|sep|>";
/// Opens a call's head (attributes follow, then [`SEP`]).
pub const CALL_OPEN: &str = "<|open|>call ";
/// Closes a call.
pub const CALL_CLOSE: &str = "<|close|>call<|sep|>";
/// Opens an argument's head (attributes follow, then [`SEP`]).
pub const ARGUMENT_OPEN: &str = "<|open|>argument ";
/// Closes an argument.
pub const ARGUMENT_CLOSE: &str = "<|close|>argument<|sep|>";

/// The attribute of a call's head that names it.
pub const TOOL_ATTRIBUTE: &str = "tool";
/// The attribute of a call's head that holds the running index (not read; the grammar writes it).
pub const INDEX_ATTRIBUTE: &str = "index";
/// The attribute of an argument's head that names the parameter.
pub const KEY_ATTRIBUTE: &str = "key";
/// The attribute of an argument's head that names the value's type.
pub const TYPE_ATTRIBUTE: &str = "type";
/// The type name of a raw string value.
pub const STRING_TYPE: &str = "string";

/// The longest attribute list read before a head is taken not to be one; decided on the text seen so
/// far, so every chunking decides alike.
pub const HEAD_LIMIT: usize = 512;

/// The three XTML tokens, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[OPEN, CLOSE, SEP];

/// Stage: a prompt ending in the `think` opener starts in reasoning, one ending in the `response`
/// opener (or a closed think channel) in the answer.
pub static STAGE: StageDetector =
    StageDetector::new(&[THINK_OPEN], &[THINK_CLOSE, RESPONSE_OPEN], &[]);

/// The `think` channel; the `response` opener closes it too; the `tools` channel ends it.
pub static THINK: ReasoningSyntax = ReasoningSyntax::new(STAGE, &[MESSAGE_CLOSE], &[TOOLS_OPEN]);

/// Content: the calls channel (group 0) and the answer channel's wrappers, dropped (group 1).
const DROP: usize = 1;
static CONTENT: MarkerSet = MarkerSet::new(&[
    &[TOOLS_OPEN],
    &[RESPONSE_OPEN, RESPONSE_CLOSE, MESSAGE_CLOSE, THINK_CLOSE],
]);

/// A value ends at its closer or, when that is missing, at the call's or the channel's closer.
static VALUE_END: MarkerSet = MarkerSet::new(&[&[ARGUMENT_CLOSE], &[CALL_CLOSE, TOOLS_CLOSE]]);
static VALUE: ValueSyntax = ValueSyntax {
    ends: &VALUE_END,
    closer_followers: None,
    trim_newline: false,
};

/// A call ends at its closer or, when that is missing, at the channel's closer or the next call.
static CALL_ENDS: CallEnds = CallEnds {
    close: CALL_CLOSE,
    block_close: Some(TOOLS_CLOSE),
    next: &[CALL_OPEN],
};

/// Where a call body that is not arguments ends: the call's closer (consumed), the channel's closer
/// (consumed), or the next call (left to the channel).
static RAW_BODY_END: MarkerSet = MarkerSet::new(&[&[CALL_CLOSE], &[TOOLS_CLOSE], &[CALL_OPEN]]);

/// The `kimi-k3` parser for one request.
pub fn kimi_k3(options: &ParseOptions) -> Parser {
    let decided = STAGE.from_request(options);
    let stage = decided.unwrap_or(Stage::Reasoning);
    let inline = options.reasoning_format == ReasoningFormat::Inline;
    let reasoning = ThinkTagReasoningParser::new(&THINK, stage)
        .stage_from_default(decided.is_none())
        .inline(inline)
        .blocks_in_reasoning(BlockInReasoning::EndsReasoning);
    let tools = KimiK3ToolParser::new(options);
    Parser::new("kimi-k3", Composed::new(reasoning, tools, stage, inline))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Outside the calls channel (a channel head being read is held, in this state).
    Content,
    /// Inside the calls channel, between calls.
    Channel,
    /// Inside a committed call, between arguments.
    Body,
    /// Inside an argument's value.
    Value,
    /// Something other than arguments inside a call: raw text, the call flagged invalid.
    RawBody,
}

/// Kimi K3's tool-call parser; see the module docs.
#[derive(Clone, Debug)]
pub struct KimiK3ToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    args: ObjectArgs,
    value: ParamValue,
    /// Scratch for unescaped attribute values: the call's name, the argument's key and type.
    name: String,
    key: String,
    value_type: ValueType,
}

impl KimiK3ToolParser {
    /// A parser for one request.
    pub fn new(options: &ParseOptions) -> Self {
        KimiK3ToolParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Content,
                calls: Calls::new(options),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
                name: String::new(),
                key: String::new(),
                value_type: ValueType::String,
            },
        }
    }
}

impl ToolParser for KimiK3ToolParser {
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
        if m.state == State::Value {
            m.value.end(&mut m.args, &mut m.calls, out);
        }
        m.calls.end(out, false);
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        &[TOOLS_OPEN]
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content || self.carry.held().starts_with(TOOLS_OPEN)
    }
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        (self.state == State::Content).then_some((&mut self.calls, &CONTENT))
    }

    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        self.state == State::Value
            && self
                .value
                .take_plain(text, &VALUE, &mut self.args, &mut self.calls, out)
    }
}

impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed (the rest is held).
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    let step = self
                        .calls
                        .scan_content(out, rest, eof, &CONTENT, Some(DROP));
                    let at = match step {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, .. } => at,
                    };
                    // Nothing is committed until the first call's head is complete.
                    let channel = &rest[at + TOOLS_OPEN.len()..];
                    let ws = leading_ws(channel);
                    match self.call_head(&channel[ws..], eof) {
                        Head::NeedMore if ws <= HEAD_LIMIT => return pos + at,
                        Head::Complete((), len) => {
                            self.start_call(out);
                            pos += at + TOOLS_OPEN.len() + ws + len;
                        }
                        _ => {
                            self.calls.content(out, TOOLS_OPEN);
                            pos += at + TOOLS_OPEN.len();
                        }
                    }
                }
                State::Channel => {
                    // Whitespace between calls is framing, up to a bound (decided alike in every
                    // chunking); it is held until what follows shows whether the channel goes on.
                    let ws = leading_ws(rest);
                    let after = &rest[ws..];
                    if ws > HEAD_LIMIT || (after.is_empty() && eof) {
                        self.state = State::Content;
                        continue;
                    }
                    if after.is_empty() {
                        return pos;
                    }
                    match literal_at(after, &[TOOLS_CLOSE], eof) {
                        Literal::Whole(len) => {
                            pos += ws + len;
                            self.state = State::Content;
                            continue;
                        }
                        Literal::Partial => return pos,
                        Literal::No => {}
                    }
                    match self.call_head(after, eof) {
                        Head::NeedMore => return pos,
                        Head::Complete((), len) => {
                            self.start_call(out);
                            pos += ws + len;
                        }
                        Head::Not
                            if eof
                                && literal_at(after, &[TOOLS_CLOSE], false) == Literal::Partial =>
                        {
                            // Cut off inside the channel's closer: the channel is complete.
                            return text.len();
                        }
                        // Not a call: the channel ends, and the text is content.
                        Head::Not => self.state = State::Content,
                    }
                }
                State::Body => match call_boundary(rest, eof, &CALL_ENDS, |after, eof| {
                    self.argument_head(after, eof)
                }) {
                    Boundary::Wait(used) => return pos + used,
                    Boundary::Closed { used, by } => {
                        pos += used;
                        self.close_call(out, by);
                    }
                    Boundary::Argument((), used) => {
                        pos += used;
                        self.open_value(out);
                    }
                    Boundary::Raw(used) => {
                        pos += used;
                        self.state = State::RawBody;
                    }
                },
                State::Value => {
                    let (args, calls) = (&mut self.args, &mut self.calls);
                    match self.value.run(rest, eof, &VALUE, args, calls, out) {
                        ParamStep::Pending(used) => return pos + used,
                        ParamStep::Ended(used) => {
                            pos += used;
                            self.value.end(args, calls, out);
                            self.state = State::Body;
                        }
                    }
                }
                State::RawBody => {
                    let found = RAW_BODY_END.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.calls.args(out, &rest[..stop]);
                    let Some(Found::Marker { end, group, .. }) = found else {
                        return pos + stop;
                    };
                    self.calls.end(out, false);
                    let (next, used) = match group {
                        0 => (State::Channel, end),
                        1 => (State::Content, end),
                        _ => (State::Channel, stop),
                    };
                    pos += used;
                    self.state = next;
                }
            }
        }
    }

    fn start_call(&mut self, out: &mut dyn Sink) {
        self.calls.start(out, &self.name, None);
        self.args.reset();
        self.state = State::Body;
    }

    /// Closes the call; the channel goes on unless its own closer ended the call.
    fn close_call(&mut self, out: &mut dyn Sink, by: Closer) {
        self.args.finish(&mut self.calls, out);
        self.calls.end(out, true);
        self.state = match by {
            Closer::Block => State::Content,
            Closer::Call | Closer::Next => State::Channel,
        };
    }

    /// Reads `<|open|>call ATTRS<|sep|>` at the start of `text`; a non-empty `tool` attribute names
    /// the call (left in `self.name`).
    fn call_head(&mut self, text: &str, eof: bool) -> Head<()> {
        let (attrs, len) = match element_head(text, CALL_OPEN, eof) {
            Ok(head) => head,
            Err(head) => return head,
        };
        match attribute(attrs, TOOL_ATTRIBUTE) {
            Some(name) if !name.is_empty() => {
                unescape_into(name, &mut self.name);
                Head::Complete((), len)
            }
            _ => Head::Not,
        }
    }

    /// Reads `<|open|>argument ATTRS<|sep|>` at the start of `text` and opens its value: keyed by the
    /// `key` attribute, typed by `type` (a string unless it says otherwise).
    fn argument_head(&mut self, text: &str, eof: bool) -> Head<()> {
        let (attrs, len) = match element_head(text, ARGUMENT_OPEN, eof) {
            Ok(head) => head,
            Err(head) => return head,
        };
        let Some(key) = attribute(attrs, KEY_ATTRIBUTE) else {
            return Head::Not;
        };
        let value_type = match attribute(attrs, TYPE_ATTRIBUTE) {
            None | Some(STRING_TYPE) => ValueType::String,
            // Anything else is written as JSON: parsed when it is, kept as a string when not.
            Some(_) => ValueType::Any,
        };
        unescape_into(key, &mut self.key);
        self.value_type = value_type;
        Head::Complete((), len)
    }

    /// Writes the key read by [`argument_head`](Self::argument_head) and starts its value.
    fn open_value(&mut self, out: &mut dyn Sink) {
        self.args.key(&mut self.calls, out, &self.key);
        let value_type = std::mem::take(&mut self.value_type);
        self.value
            .start(value_type, &mut self.args, &mut self.calls, out);
        self.state = State::Value;
    }
}

/// The attributes of an element head `OPENER ATTRS<|sep|>` at the start of `text`, and the head's
/// length; else whether it may still become one (`NeedMore`) or not (`Not`: another opener, no
/// `<|sep|>` within [`HEAD_LIMIT`], or another token inside the attributes).
fn element_head<'t>(text: &'t str, opener: &str, eof: bool) -> Result<(&'t str, usize), Head<()>> {
    match literal_at(text, &[opener], eof) {
        Literal::Whole(_) => {}
        Literal::Partial => return Err(Head::NeedMore),
        Literal::No => return Err(Head::Not),
    }
    let after = &text[opener.len()..];
    let Some(at) = find_within(after, SEP, HEAD_LIMIT) else {
        // Another token inside the attributes ends the head; a cut-off `<|sep|>` at the end does not.
        let whole = after.len() - partial_suffix(after, SEP);
        let undecided =
            !eof && after.len() < HEAD_LIMIT + SEP.len() && !after[..whole].contains("<|");
        return Err(if undecided { Head::NeedMore } else { Head::Not });
    };
    let attrs = &after[..at];
    if attrs.contains("<|") {
        return Err(Head::Not);
    }
    Ok((attrs, opener.len() + at + SEP.len()))
}

/// The raw (still escaped) value of attribute `name` in `attrs` (`name="value"`, space-separated).
fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = attrs;
    loop {
        let at = rest.find(name)?;
        let before_ok = at == 0 || rest.as_bytes()[at - 1].is_ascii_whitespace();
        let after = &rest[at + name.len()..];
        if before_ok && let Some(quoted) = after.strip_prefix("=\"") {
            let end = quoted.find('"')?;
            return Some(&quoted[..end]);
        }
        rest = &rest[at + name.len()..];
    }
}

/// Reads an entity-escaped attribute value back into `out`: `&quot;` and `&amp;` (what the template
/// escapes), in that order, so `&amp;quot;` stays `&quot;`.
fn unescape_into(value: &str, out: &mut String) {
    out.clear();
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("&quot;") {
            out.push('"');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("&amp;") {
            out.push('&');
            rest = after;
        } else {
            out.push('&');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
}
