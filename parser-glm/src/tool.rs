//! GLM's tool calls: a name, then tagged arguments, inside `<tool_call>` … `</tool_call>`.
//!
//! ```text
//! GLM-4.5 / 4.6:  <tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>
//! GLM-4.7 / 5:    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>
//! ```
//!
//! One reader for both: whitespace between the tags is framing wherever it is.
//!
//! - The call is committed at its complete name (DESIGN §4.6): the text after `<tool_call>` up to
//!   whitespace or `<`, followed by `<arg_key>` or `</tool_call>` (or, at the end of the output, by
//!   whitespace). A name that never completes within [`HEAD_LIMIT`], or is followed by anything else, is
//!   not a call: the `<tool_call>` is content, raw.
//! - The arguments are built as JSON, append-only ([`ObjectArgs`]), as the template writes them: a value
//!   is a string unless the request's tool schema types its parameter otherwise, in which case it is
//!   written when it closes, typed by [`ValueType::coerce`](parser_core::ValueType::coerce) (a value that
//!   does not fit stays a string). A string value streams as it arrives, exactly as written (no framing
//!   newline removed: the template writes none). A literal `</arg_value>` is part of the value unless
//!   whitespace and `<arg_key>`, `</tool_call>`, `<tool_call>`, an end-of-sequence token or the end of the
//!   output follow it; a missing `</arg_value>` ends the value at the next `<arg_key>` or `</tool_call>`.
//!   At the end of the output, `</arg_value>` followed by a cut-off prefix of one of those markers
//!   closes the value too: the output was cut inside the tag after it (issue 18).
//! - An argument's key is the text between `<arg_key>` and `</arg_key>`, trimmed: `<`, `>` and `&` are
//!   part of it (`param<1>`, `x>y`); only the format's own tags are not (a key holding `<arg_value>`
//!   lost its `</arg_key>`, and the call is invalid).
//! - A missing `</tool_call>` before the next `<tool_call>` is tolerated. So is a call that is missing
//!   only its `</tool_call>` at the end of the output, after at least one complete argument or a
//!   cut-off prefix of `</tool_call>` (or of an end-of-sequence token): its arguments are complete, and
//!   the call is valid, as Qwen3-Coder's and the JSON formats' are. A call cut off after its name alone,
//!   inside a value, or inside the head of its next argument stays, flagged invalid, with the arguments
//!   read so far (never a fragment of a tag); so does a call whose body holds anything but arguments
//!   (kept raw in its arguments, up to `</tool_call>`).

use std::sync::Arc;

use parser_core::{
    CallMachine, Calls, Carry, ContentStep, Deltas, Found, Literal, MarkerSet, ObjectArgs,
    ParamStep, ParamValue, ParseOptions, Sink, ToolParser, Tools, ValueSyntax, find_within,
    leading_ws, literal_at,
};

use crate::markers::*;

/// Content: the call opener (group 0) and the end-of-sequence tokens, dropped (group 1).
const DROP: usize = 1;
static CONTENT: MarkerSet = MarkerSet::new(&[&[TOOL_CALL], RESERVED]);

/// A value ends at its closer or, when the closer is missing, at the next argument or the call's end.
static VALUE_END: MarkerSet = MarkerSet::new(&[&[ARG_VALUE_END], &[ARG_KEY, TOOL_CALL_END]]);
static VALUE: ValueSyntax = ValueSyntax {
    ends: &VALUE_END,
    closer_followers: Some(&BODY),
    trim_newline: false,
};

/// What a call's body holds between arguments (an argument, the call's end, the next call when the end
/// is missing, an end-of-turn token), and so what must follow `</arg_value>` (after whitespace) for it
/// to close a value.
static BODY: MarkerSet = MarkerSet::new(&[&[ARG_KEY, TOOL_CALL_END, TOOL_CALL], EOS]);

/// Where a call body that is not arguments ends: `</tool_call>` (consumed), or the next call or an
/// end-of-sequence token (left to the content state).
static RAW_BODY_END: MarkerSet = MarkerSet::new(&[&[TOOL_CALL_END], &[TOOL_CALL], EOS]);

/// Tags a key never holds: finding one between `<arg_key>` and `</arg_key>` means a closer went missing.
const KEY_NEVER_HOLDS: &[&str] = &[ARG_KEY, ARG_VALUE, ARG_VALUE_END, TOOL_CALL, TOOL_CALL_END];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Outside calls (a call head being read is held, in this state).
    Content,
    /// Inside a committed call, between arguments.
    Body,
    /// Inside an argument value (streamed when a string, collected otherwise).
    Value,
    /// Something other than arguments inside a call: raw text, the call flagged invalid.
    RawBody,
}

/// GLM's tool-call parser; see the module docs.
#[derive(Clone, Debug)]
pub struct GlmToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    /// The open call's name (for schema lookups).
    function: String,
    /// The open call's arguments, built append-only.
    args: ObjectArgs,
    /// The open argument's value.
    value: ParamValue,
}

impl GlmToolParser {
    /// A parser for one request.
    pub fn new(options: &ParseOptions) -> Self {
        GlmToolParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Content,
                calls: Calls::new(options).with_turn_starts(TURN_STARTS),
                tools: options.tools.clone(),
                function: String::new(),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
            },
        }
    }
}

impl ToolParser for GlmToolParser {
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
        // Cut off inside a call: write what was read, flagged invalid (a call missing only its closer
        // was closed by `run`).
        if m.state == State::Value {
            m.value.end(&mut m.args, &mut m.calls, out);
        }
        m.calls.end(out, false);
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        BLOCK_OPENERS
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content || self.carry.held().starts_with(TOOL_CALL)
    }
}

/// What a bounded head (`<tool_call>NAME…`, `<arg_key>KEY</arg_key><arg_value>`) turned out to be.
enum Head<'t> {
    /// Not decided yet: hold the text.
    NeedMore,
    /// Complete: the name or key, and the length of the head.
    Complete(&'t str, usize),
    /// Not a call (after `<tool_call>`) or not an argument (after `<arg_key>`).
    Not,
}

impl Head<'_> {
    /// A head whose end is not there yet: not one when `give_up` (the output ended, or the head is
    /// already too long), else undecided.
    fn unfinished(give_up: bool) -> Self {
        if give_up { Head::Not } else { Head::NeedMore }
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
                    // Nothing is committed until the name is complete: the head is held till then.
                    match call_head(&rest[at..], eof) {
                        Head::NeedMore => return pos + at,
                        Head::Complete(name, len) => {
                            self.calls.start(out, name, None);
                            self.function.replace_range(.., name);
                            self.args.reset();
                            pos += at + len;
                            self.state = State::Body;
                        }
                        Head::Not => {
                            self.calls.content(out, TOOL_CALL);
                            pos += at + TOOL_CALL.len();
                        }
                    }
                }
                State::Body => {
                    // Whitespace between arguments is framing.
                    let ws = leading_ws(rest);
                    pos += ws;
                    let after = &rest[ws..];
                    if after.is_empty() {
                        if eof && self.args.members() > 0 {
                            // Only `</tool_call>` is missing: the arguments are complete.
                            self.close_call(out);
                        }
                        return pos;
                    }
                    if after.starts_with(ARG_KEY) {
                        match arg_head(after, eof) {
                            Head::NeedMore => return pos,
                            Head::Complete(key, len) => {
                                self.open_value(out, key);
                                pos += len;
                            }
                            Head::Not
                                if eof && matches!(arg_head(after, false), Head::NeedMore) =>
                            {
                                // Cut off inside the next argument's head: not an argument, and
                                // no fragment of it reaches the arguments (`finish` flags the call).
                                return pos + after.len();
                            }
                            Head::Not => self.state = State::RawBody,
                        }
                    } else if after.starts_with(TOOL_CALL_END) {
                        pos += TOOL_CALL_END.len();
                        self.close_call(out);
                    } else if after.starts_with(TOOL_CALL) {
                        // The next call starts without this one being closed.
                        self.close_call(out);
                    } else if let Some(eos) = EOS.iter().find(|eos| after.starts_with(**eos)) {
                        pos += eos.len();
                    } else if BODY.find(after, false) == Some(Found::Partial { start: 0 }) {
                        if !eof {
                            return pos;
                        }
                        // Cut off inside a tag. Inside `</tool_call>` (or an end token): the call is
                        // complete and the fragment dropped. Inside the next `<tool_call>`: the call
                        // is complete (its closer may be left out before the next call), and the
                        // cut-off opener is content's, raw, as anywhere. Inside the next argument's
                        // `<arg_key>`: dropped, and `finish` flags the call.
                        let cut_inside = |markers: &[&str]| {
                            literal_at(after, markers, false) == Literal::Partial
                        };
                        if cut_inside(&[TOOL_CALL_END]) || cut_inside(EOS) {
                            self.close_call(out);
                        } else if cut_inside(&[TOOL_CALL]) {
                            self.close_call(out);
                            continue;
                        }
                        return pos + after.len();
                    } else {
                        self.state = State::RawBody;
                    }
                }
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
                    // `</tool_call>` ends the call; the next call or an end token is content's.
                    pos += if group == 0 { end } else { stop };
                    self.state = State::Content;
                }
            }
        }
    }

    fn close_call(&mut self, out: &mut dyn Sink) {
        self.args.finish(&mut self.calls, out);
        self.calls.end(out, true);
        self.state = State::Content;
    }

    fn open_value(&mut self, out: &mut dyn Sink, key: &str) {
        let tools = self.tools.as_deref();
        let (args, calls) = (&mut self.args, &mut self.calls);
        self.value
            .open(tools, &self.function, key, args, calls, out);
        self.state = State::Value;
    }
}

/// Reads `<tool_call>` (at the start of `text`), whitespace, the name (up to whitespace or `<`),
/// whitespace, and checks that `<arg_key>` or `</tool_call>` comes next (not consumed). Decided on the
/// text seen so far, within [`HEAD_LIMIT`], so that every chunking decides alike.
fn call_head(text: &str, eof: bool) -> Head<'_> {
    let after = &text[TOOL_CALL.len()..];
    let lead = leading_ws(after);
    let body = &after[lead..];
    let Some(at) = body.find(|c: char| c == '<' || c.is_ascii_whitespace()) else {
        return Head::unfinished(eof || lead + body.len() > HEAD_LIMIT);
    };
    let next = &body[at..];
    let ws = leading_ws(next);
    if at == 0 || lead + at + ws > HEAD_LIMIT {
        return Head::Not;
    }
    // At the end of the output, a name that whitespace ended is a call (flagged invalid, cut off).
    match literal_at(&next[ws..], &[ARG_KEY, TOOL_CALL_END], eof) {
        Literal::Partial => Head::NeedMore,
        Literal::No if !next[ws..].is_empty() => Head::Not,
        _ => Head::Complete(&body[..at], TOOL_CALL.len() + lead + at + ws),
    }
}

/// Reads `<arg_key>KEY</arg_key>`, whitespace and `<arg_value>` at the start of `text`; the key (trimmed)
/// is non-empty and holds none of the format's tags (any other `<`, `>` or `&` is part of it: a key
/// ends only at `</arg_key>`). Decided within [`HEAD_LIMIT`].
fn arg_head(text: &str, eof: bool) -> Head<'_> {
    let after = &text[ARG_KEY.len()..];
    let Some(at) = find_within(after, ARG_KEY_END, HEAD_LIMIT) else {
        return Head::unfinished(eof || after.len() >= HEAD_LIMIT + ARG_KEY_END.len());
    };
    let key = after[..at].trim();
    let rest = &after[at + ARG_KEY_END.len()..];
    let ws = leading_ws(rest);
    if key.is_empty() || ws > HEAD_LIMIT || KEY_NEVER_HOLDS.iter().any(|tag| key.contains(tag)) {
        return Head::Not;
    }
    match literal_at(&rest[ws..], &[ARG_VALUE], eof) {
        Literal::Whole(len) => {
            Head::Complete(key, ARG_KEY.len() + at + ARG_KEY_END.len() + ws + len)
        }
        Literal::Partial => Head::NeedMore,
        Literal::No => Head::Not,
    }
}
