//! Sarashina's tool calls: a Python-literal list of dicts, optionally after `<|tool_calls|>`.
//!
//! ```text
//! <|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Tokyo', 'metric': True}}]
//! [{'name': 'get_weather', 'arguments': {'city': 'Tokyo'}}]          (the marker stripped by the server)
//! ```
//!
//! Why a state machine and not data for the generic engine: the calls are Python literals (single
//! quotes, `True` / `False` / `None`), which none of the engine's JSON formats reads, and they are not
//! Python calls (`PYTHONIC`) but dicts. The list is read here, each byte once: [`ArgsScanner`] finds
//! its closing `]` (Python-aware: strings in either quote with escapes, nested brackets), and when it
//! closes, [`literal_to_json`] converts it to JSON in one pass; each element's `arguments` then come
//! out as JSON text. No call is committed before the list closes (a name is complete only once its
//! dict parses), so the calls appear at the `]`, whole.
//!
//! - After `<|tool_calls|>`, a list (or one dict) of calls. Without the marker, only a list that opens
//!   the output (after whitespace) and starts with `[{` is read as calls: a bracket in prose is text.
//! - A list that is not exactly calls (an element without a string `name`, a literal that does not
//!   convert) is content, unchanged, with its marker; so is a list cut off at the end of the output.
//! - `</s>` is dropped; `<|user|>` ends the reply.

use parser_core::{
    CallMachine, Calls, Carry, ContentStep, Deltas, MarkerSet, ParseOptions, Sink, ToolParser,
    leading_ws,
};
use parser_generic::pythonic::{ArgsScanner, ArgsStep, literal_to_json};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::markers::*;

const DROP: usize = 1;
static CONTENT: MarkerSet = MarkerSet::new(&[&[TOOL_CALLS], RESERVED]);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace seen: a bare list of calls may open the output.
    Start,
    Content,
    /// After `<|tool_calls|>`: whitespace, then a list or a dict.
    AfterMarker,
    /// Inside the literal (from its `[` or `{`), read into `held`.
    Literal,
    /// Inside a literal that outgrew the request's call buffer: content up to its closing bracket, so
    /// that every chunking gives up at the same place.
    Skip,
}

/// Sarashina's tool-call parser; see the module docs.
#[derive(Clone, Debug)]
pub struct SarashinaToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    /// The text read since the call block began (marker, whitespace, literal): content if it is not calls.
    held: String,
    /// Where the literal starts in `held`.
    literal_at: usize,
    scanner: ArgsScanner,
}

impl SarashinaToolParser {
    /// A parser for one request.
    pub fn new(options: &ParseOptions) -> Self {
        SarashinaToolParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Start,
                calls: Calls::new(options).with_turn_starts(TURN_STARTS),
                held: String::new(),
                literal_at: 0,
                scanner: ArgsScanner::default(),
            },
        }
    }
}

impl ToolParser for SarashinaToolParser {
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
        // Cut off inside the literal: never calls, so the text stays.
        if matches!(self.machine.state, State::Literal | State::AfterMarker) {
            self.machine.give_up(out);
        }
        self.machine.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        BLOCK_OPENERS
    }

    fn in_block(&self) -> bool {
        matches!(
            self.machine.state,
            State::AfterMarker | State::Literal | State::Skip
        )
    }
}

/// One element of the list.
#[derive(Deserialize)]
struct Call<'a> {
    name: String,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        (self.state == State::Content).then_some((&mut self.calls, &CONTENT))
    }

    /// Inside the literal, a delta that stays inside a string (escapes included) is kept as it is, as
    /// `run` would keep it (nothing is written before the list closes).
    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, _out: &mut S) -> bool {
        let fits = self.held.len() + text.len() <= self.calls.buffer_limit();
        if self.state == State::Literal && fits && self.scanner.take_string_run(text) {
            self.held.push_str(text);
            return true;
        }
        false
    }
}

impl Machine {
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Start => {
                    let ws = leading_ws(rest);
                    if ws > HEAD_LIMIT {
                        self.state = State::Content;
                        continue;
                    }
                    let after = &rest[ws..];
                    match after.bytes().next() {
                        None if eof => {
                            self.calls.content(out, rest);
                            return text.len();
                        }
                        // Only whitespace so far: wait (it is framing if a list follows).
                        None => return pos,
                        Some(b'[') => match after[1..].trim_start().bytes().next() {
                            Some(b'{') => {
                                // The leading whitespace is framing; the list is the call block.
                                self.held.clear();
                                self.open_literal(b'[');
                                pos += ws + 1;
                            }
                            None if !eof && after.len() <= HEAD_LIMIT => return pos,
                            _ => self.state = State::Content,
                        },
                        Some(_) => self.state = State::Content,
                    }
                }
                State::Content => {
                    match self
                        .calls
                        .scan_content(out, rest, eof, &CONTENT, Some(DROP))
                    {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, .. } => {
                            pos += at + TOOL_CALLS.len();
                            self.held.clear();
                            self.held.push_str(TOOL_CALLS);
                            self.state = State::AfterMarker;
                        }
                    }
                }
                State::AfterMarker => {
                    let ws = leading_ws(rest);
                    let after = &rest[ws..];
                    match after.bytes().next() {
                        None if !eof && self.held.len() + ws <= HEAD_LIMIT => {
                            self.held.push_str(&rest[..ws]);
                            return text.len();
                        }
                        Some(open @ (b'[' | b'{')) => {
                            self.held.push_str(&rest[..ws]);
                            self.open_literal(open);
                            pos += ws + 1;
                        }
                        // Not a call block: the marker and what followed are content.
                        _ => {
                            self.held.push_str(&rest[..ws]);
                            pos += ws;
                            self.give_up(out);
                        }
                    }
                }
                State::Literal => {
                    let mut closed = None;
                    for (i, byte) in rest.bytes().enumerate() {
                        match self.scanner.step(byte) {
                            ArgsStep::Inside => {}
                            // The closing bracket, or a `)` with nothing open (not a literal).
                            step => {
                                closed = Some((i + 1, step == ArgsStep::Stray));
                                break;
                            }
                        }
                    }
                    match closed {
                        Some((used, bracket)) => {
                            self.held.push_str(&rest[..used]);
                            pos += used;
                            if bracket && self.held.len() <= self.calls.buffer_limit() {
                                self.close_literal(out);
                            } else {
                                self.give_up(out);
                            }
                        }
                        None => {
                            self.held.push_str(rest);
                            if self.held.len() > self.calls.buffer_limit() {
                                // Too long to hold: content from here on, up to the literal's end.
                                self.give_up(out);
                                self.state = State::Skip;
                            }
                            return text.len();
                        }
                    }
                }
                State::Skip => {
                    let end = rest
                        .bytes()
                        .position(|byte| !matches!(self.scanner.step(byte), ArgsStep::Inside));
                    match end {
                        Some(i) => {
                            self.calls.content(out, &rest[..=i]);
                            pos += i + 1;
                            self.state = State::Content;
                        }
                        None => {
                            self.calls.content(out, rest);
                            return text.len();
                        }
                    }
                }
            }
        }
    }

    fn open_literal(&mut self, open: u8) {
        self.literal_at = self.held.len();
        self.held.push(open as char);
        self.scanner.reset();
        // The scanner reads what follows the opening bracket, as a call's arguments.
        self.state = State::Literal;
    }

    /// The literal closed: calls if it converts to a list (or dict) of `{name, arguments}` objects.
    fn close_literal(&mut self, out: &mut dyn Sink) {
        let Some(json) = literal_to_json(&self.held[self.literal_at..]) else {
            return self.give_up(out);
        };
        // A list of calls, or one call (a raw value cannot sit in an untagged enum: two tries).
        let calls = if json.starts_with('[') {
            serde_json::from_str::<Vec<Call<'_>>>(&json).ok()
        } else {
            serde_json::from_str::<Call<'_>>(&json)
                .ok()
                .map(|call| vec![call])
        };
        // Every element a call with a name.
        let Some(calls) =
            calls.filter(|calls| !calls.is_empty() && calls.iter().all(|c| !c.name.is_empty()))
        else {
            return self.give_up(out);
        };
        for call in calls {
            self.calls.start(out, &call.name, None);
            let (arguments, valid) = match call.arguments {
                Some(raw) => (raw.get(), raw.get().starts_with('{')),
                None => ("{}", true),
            };
            self.calls.args(out, arguments);
            self.calls.end(out, valid);
        }
        self.held.clear();
        self.state = State::Content;
    }

    /// Not calls after all: everything held is content, as written.
    fn give_up(&mut self, out: &mut dyn Sink) {
        let held = std::mem::take(&mut self.held);
        self.calls.content(out, &held);
        self.state = State::Content;
    }
}
