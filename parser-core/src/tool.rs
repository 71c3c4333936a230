//! Finding tool calls: the [`ToolParser`] trait and the pieces every format shares.
//!
//! - [`Calls`] numbers calls, generates ids, enforces the one-start-one-end contract and the strict
//!   position policy, and writes to the [`Sink`].
//! - [`JsonArgs`] streams one call's JSON arguments as the raw text the model wrote, finds where they end
//!   (JSON-aware: braces, quotes and markers inside strings never end them), and falls back to raw text
//!   flagged invalid when the JSON breaks.

use crate::deltas::{Accumulator, Deltas, Sink};
use crate::json::{JsonScanner, JsonStatus, is_ws, leading_ws};
use crate::message::ParsedMessage;
use crate::options::ParseOptions;
use crate::scanner::{Carry, Found, MarkerSet};

/// Finds tool calls in the text outside reasoning, one delta at a time.
///
/// Contract: every committed call (opener and complete name seen) is announced once and ended once; its
/// argument fragments concatenate to its final arguments; text that is not part of a committed call block
/// is written as content, unchanged (nothing is silently dropped); holding text back is never wrong, but no
/// fragment of a marker is ever released as content.
pub trait ToolParser: Send {
    /// Feeds the next piece of text (outside reasoning).
    fn push(&mut self, text: &str, out: &mut dyn Sink);
    /// Ends the output: an open call ends (flagged invalid when incomplete), held text is flushed.
    fn finish(&mut self, out: &mut dyn Sink);

    /// Markers that open a native call block, for [`crate::BlockInReasoning`]. Default: none.
    fn block_openers(&self) -> &'static [&'static str] {
        &[]
    }

    /// True while the parser is inside a call block (a marker was seen and its block has not ended).
    fn in_block(&self) -> bool;

    /// [`push`](Self::push) into a [`Deltas`] buffer (what [`crate::Parser`] pushes into). A parser on
    /// [`Carry::feed_calls`] overrides it with [`Carry::feed_calls_deltas`], which writes the common
    /// delta with static calls. It must write exactly what `push` would. Default: `push`.
    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        self.push(text, out);
    }

    /// One-shot: content and calls of `text`.
    fn parse(&mut self, text: &str) -> ParsedMessage
    where
        Self: Sized,
    {
        let mut out = Accumulator::new();
        self.push(text, &mut out);
        self.finish(&mut out);
        out.into_message()
    }
}

/// Generates `call_…` ids: 24 base-62 characters, deterministic for a seed and an index.
#[derive(Clone, Copy, Debug)]
pub struct CallIds {
    seed: u64,
}

impl CallIds {
    /// Ids from `seed`.
    pub fn with_seed(seed: u64) -> Self {
        CallIds { seed }
    }

    /// Ids from a fresh seed (time, a process-wide counter and the stack address).
    pub fn fresh() -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let local = 0u8;
        let address = &local as *const u8 as u64;
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        CallIds {
            seed: mix(nanos ^ mix(count) ^ address.rotate_left(17)),
        }
    }

    /// Ids as `options` ask.
    pub fn from_options(options: &ParseOptions) -> Self {
        options
            .call_id_seed
            .map_or_else(Self::fresh, Self::with_seed)
    }

    /// Writes the id of call `index` into `buffer` and returns it.
    pub fn id<'b>(&self, index: usize, buffer: &'b mut [u8; 29]) -> &'b str {
        const ALPHABET: &[u8; 62] =
            b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        buffer[..5].copy_from_slice(b"call_");
        let mut state = mix(self.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for (n, slot) in buffer[5..].iter_mut().enumerate() {
            if n % 10 == 0 {
                state = mix(state.wrapping_add(n as u64));
            }
            *slot = ALPHABET[(state % 62) as usize];
            state /= 62;
        }
        // Every byte is ASCII by construction.
        std::str::from_utf8(&buffer[..]).unwrap_or("call_")
    }
}

/// splitmix64's finaliser.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A tool parser's state machine, as [`Carry::feed_calls`] runs it: every family's parser has one.
pub trait CallMachine {
    /// Consumes from `text` (held text, then the delta) and returns how much; only a bounded tail
    /// (a possible marker prefix, a call head being read) may stay unconsumed. At `eof` everything.
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize;

    /// In the content state: the call bookkeeping and the markers the content scan looks for (those
    /// passed to [`Calls::scan_content`]). `None` in every other state.
    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)>;

    /// Inside a call's arguments: when the machine would write all of `text` as argument text and
    /// change nothing else but a string's escape state, writes it so and returns `true` (see
    /// [`JsonArgs::take_plain`], [`JsonCall::take_plain`](crate::JsonCall::take_plain),
    /// [`ParamValue::take_plain`](crate::ParamValue::take_plain)). `false`: nothing changed, run the
    /// machine. Default: `false`.
    /// Generic over the sink so that [`Carry::feed_calls_deltas`] writes the fragment into
    /// [`Deltas`] with static calls.
    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, _text: &str, _out: &mut S) -> bool {
        false
    }
}

impl Carry {
    /// Feeds a delta to a tool parser's machine. The common delta in content — nothing held and no
    /// byte that can start a marker — is written as content directly, which is what the machine's
    /// content scan would do, so every family gets the fast path at once; so is the common delta
    /// inside a string argument ([`CallMachine::plain_arguments`]).
    #[inline]
    pub fn feed_calls<M: CallMachine>(&mut self, delta: &str, machine: &mut M, out: &mut dyn Sink) {
        self.feed_calls_into(delta, machine, out);
    }

    /// [`feed_calls`](Self::feed_calls) into a [`Deltas`] buffer: the common content delta is written
    /// with a static call (for [`ToolParser::push_deltas`]).
    #[inline]
    pub fn feed_calls_deltas<M: CallMachine>(
        &mut self,
        delta: &str,
        machine: &mut M,
        out: &mut Deltas,
    ) {
        self.feed_calls_into(delta, machine, out);
    }

    #[inline(always)]
    fn feed_calls_into<M: CallMachine, S: DynSink + ?Sized>(
        &mut self,
        delta: &str,
        machine: &mut M,
        out: &mut S,
    ) {
        if self.held().is_empty() {
            match machine.content_state() {
                Some((calls, markers)) => {
                    if calls.take_plain_content(markers, delta) {
                        return out.content(delta);
                    }
                }
                None => {
                    // The common delta of a long argument: a run of a string value.
                    if machine.plain_arguments(delta, out) {
                        return;
                    }
                }
            }
        }
        self.feed_machine(delta, machine, out.as_dyn());
    }

    /// The rest of [`feed_calls`](Self::feed_calls), out of the common path.
    #[inline(never)]
    fn feed_machine<M: CallMachine>(&mut self, delta: &str, machine: &mut M, out: &mut dyn Sink) {
        self.feed(delta, machine, |m, text| m.step(text, false, out));
    }
}

/// A sink that is, or can be used as, `dyn Sink` (the machine's side of [`Carry::feed_calls`]).
trait DynSink: Sink {
    fn as_dyn(&mut self) -> &mut dyn Sink;
}

impl DynSink for dyn Sink + '_ {
    #[inline(always)]
    fn as_dyn(&mut self) -> &mut dyn Sink {
        self
    }
}

impl DynSink for Deltas {
    #[inline(always)]
    fn as_dyn(&mut self) -> &mut dyn Sink {
        self
    }
}

/// The calls of one output: numbering, ids, open/closed bookkeeping, the content policy.
///
/// Families write everything through it, so the [`Sink`] contract holds whatever the format does.
#[derive(Clone, Debug)]
pub struct Calls {
    ids: CallIds,
    next: usize,
    open: Option<usize>,
    strict: bool,
    blocked: bool,
    buffer_limit: usize,
    turn_starts: &'static [&'static str],
    /// A new turn started in content: the rest of the output is not the reply.
    ended: bool,
}

impl Calls {
    /// Bookkeeping for a request.
    pub fn new(options: &ParseOptions) -> Self {
        Calls {
            ids: CallIds::from_options(options),
            next: 0,
            open: None,
            strict: options.policy.strict_tool_position,
            blocked: false,
            buffer_limit: options.limits.call_buffer,
            turn_starts: &[],
            ended: false,
        }
    }

    /// Tokens that start a new turn (`<|im_start|>`, `<｜User｜>`): found in content, one ends the output
    /// and what follows is dropped (a model that writes one has run on into the next turn). They must
    /// also be in the content scan's `drop` group (see [`scan_content`](Self::scan_content)); inside a
    /// call they are the call's text, as end-of-sequence tokens are.
    pub fn with_turn_starts(mut self, turn_starts: &'static [&'static str]) -> Self {
        self.turn_starts = turn_starts;
        self
    }

    /// The common content delta, written without the state machine: when `held` is empty, no turn
    /// start has ended the output and no byte of `text` can start one of `markers`, `text` is content
    /// as [`scan_content`](Self::scan_content) would find it; returns whether it was written.
    #[inline]
    pub fn plain_content(
        &mut self,
        held: &str,
        markers: &MarkerSet,
        text: &str,
        out: &mut dyn Sink,
    ) -> bool {
        if !held.is_empty() || self.ended || markers.may_contain_marker(text) {
            return false;
        }
        self.content(out, text);
        true
    }

    /// [`plain_content`](Self::plain_content) with nothing held, without the write: on `true` the
    /// content bookkeeping is done and the caller writes `text` as content. The test is
    /// [`MarkerSet::may_match`]: a byte that can start a marker does not stop it when the byte after it
    /// rules every marker out, as it does not stop the content scan.
    #[inline]
    pub fn take_plain_content(&mut self, markers: &MarkerSet, text: &str) -> bool {
        if self.ended || markers.may_match(text) {
            return false;
        }
        self.note_content(text);
        true
    }

    /// Whether a turn start has ended the output.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The request's [`Limits::call_buffer`](crate::Limits::call_buffer): the most a call reader may hold
    /// before it decides.
    pub fn buffer_limit(&self) -> usize {
        self.buffer_limit
    }

    /// Writes content. Under the strict position policy, visible content blocks later calls.
    pub fn content(&mut self, out: &mut dyn Sink, text: &str) {
        if text.is_empty() {
            return;
        }
        self.note_content(text);
        out.content(text);
    }

    /// The content policy's bookkeeping for content `text`.
    #[inline]
    fn note_content(&mut self, text: &str) {
        if self.strict && !self.blocked && !text.bytes().all(is_ws) {
            self.blocked = true;
        }
    }

    /// Whether call markup may still start a call (false once the strict policy has seen content).
    pub fn allowed(&self) -> bool {
        !self.blocked
    }

    /// The content state every format shares: writes `text` as content up to the first call opener of
    /// `markers` and reports it, holding back a tail that may still grow into one.
    ///
    /// Markers of group `drop` (end-of-sequence tokens, the template's own tokens) are removed wherever
    /// they appear, except the turn starts among them ([`with_turn_starts`](Self::with_turn_starts)),
    /// which end the output: from there on everything is consumed and dropped. When the strict position
    /// policy has blocked calls, openers are written as content too.
    pub fn scan_content(
        &mut self,
        out: &mut dyn Sink,
        text: &str,
        eof: bool,
        markers: &MarkerSet,
        drop: Option<usize>,
    ) -> ContentStep {
        if self.ended {
            return ContentStep::Consumed(text.len());
        }
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match markers.find(rest, eof) {
                None => {
                    self.content(out, rest);
                    return ContentStep::Consumed(text.len());
                }
                Some(Found::Partial { start }) => {
                    self.content(out, &rest[..start]);
                    return ContentStep::Consumed(pos + start);
                }
                Some(Found::Marker {
                    start, end, group, ..
                }) => {
                    self.content(out, &rest[..start]);
                    if Some(group) == drop {
                        let marker = &rest[start..end];
                        if self.turn_starts.contains(&marker) {
                            tracing::debug!(
                                marker,
                                dropped = rest.len() - end,
                                "the model started a new turn: the output ends here"
                            );
                            self.ended = true;
                            return ContentStep::Consumed(text.len());
                        }
                        pos += end;
                    } else if !self.allowed() {
                        self.content(out, &rest[start..end]);
                        pos += end;
                    } else {
                        return ContentStep::Opener {
                            at: pos + start,
                            group,
                        };
                    }
                }
            }
        }
    }

    /// Commits a call with its complete name; `id` is the model's own id when it wrote one.
    /// A call still open is ended first, flagged invalid.
    pub fn start(&mut self, out: &mut dyn Sink, name: &str, id: Option<&str>) -> usize {
        if self.open.is_some() {
            self.end(out, false);
        }
        let index = self.next;
        self.next += 1;
        self.open = Some(index);
        match id {
            Some(id) => out.tool_call_start(index, id, name),
            None => {
                let mut buffer = [0u8; 29];
                let id = self.ids.id(index, &mut buffer);
                out.tool_call_start(index, id, name);
            }
        }
        tracing::trace!(index, name, "tool call committed");
        index
    }

    /// Writes an argument fragment of the open call (ignored when no call is open).
    #[inline]
    pub fn args<S: Sink + ?Sized>(&mut self, out: &mut S, fragment: &str) {
        if let Some(index) = self.open
            && !fragment.is_empty()
        {
            out.tool_call_arguments(index, fragment);
        }
    }

    /// Writes a piece of a string value of the open call's arguments, escaped by the sink (after a
    /// newline when `newline`; see [`Sink::tool_call_string_arguments`]; ignored when no call is open).
    #[inline]
    pub fn string_args<S: Sink + ?Sized>(
        &mut self,
        out: &mut S,
        newline: bool,
        text: &str,
        scratch: &mut String,
    ) {
        if let Some(index) = self.open {
            out.tool_call_string_arguments(index, newline, text, scratch);
        }
    }

    /// Ends the open call (ignored when none is open).
    pub fn end(&mut self, out: &mut dyn Sink, valid: bool) {
        if let Some(index) = self.open.take() {
            out.tool_call_end(index, valid);
        }
    }

    /// True while a call is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The number of calls committed so far.
    pub fn count(&self) -> usize {
        self.next
    }
}

/// What [`Calls::scan_content`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentStep {
    /// Everything up to this offset was content; the rest (if any) is a held-back partial opener.
    Consumed(usize),
    /// A call opener of marker group `group` starts at `at`; the text before it was content.
    Opener {
        /// Byte offset of the opener.
        at: usize,
        /// Its marker group.
        group: usize,
    },
}

/// How a format writes JSON arguments: an optional Markdown fence around them, and the markers that may
/// follow them (the end of the call, or anything that ends it implicitly).
#[derive(Debug)]
pub struct ArgsSyntax {
    /// Accept `` ```json `` before and `` ``` `` after the object (DeepSeek R1/V3).
    pub fenced: bool,
    /// Markers that end the arguments. [`JsonArgs`] stops in front of them; the family consumes them.
    pub end: &'static MarkerSet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the object: whitespace and an optional opening fence.
    Lead { fence_seen: bool },
    /// Inside the object.
    Json,
    /// After the object: whitespace and an optional closing fence, then an end marker.
    Tail { fence_seen: bool },
    /// The arguments are not valid JSON: raw text up to an end marker.
    Raw,
}

/// Streams one call's JSON arguments.
///
/// Call [`run`](Self::run) with the text after the call's name; it writes argument fragments through
/// [`Calls`] and returns how much it consumed and, once the arguments are over, whether they are valid.
/// Whitespace and fences around the object are not part of the arguments; if anything else follows the
/// object before an end marker, it is appended and the call is flagged invalid. At the end of the output,
/// a complete object followed by framing and a cut-off prefix of an end marker is valid: the output was
/// cut inside the call's closer, and the fragment is consumed, never written.
#[derive(Clone, Debug)]
pub struct JsonArgs {
    phase: Phase,
    json: JsonScanner,
    /// Whitespace and fence after the object, kept until we know whether it is framing or junk.
    tail: String,
}

impl Default for JsonArgs {
    fn default() -> Self {
        Self::new()
    }
}

/// How a [`JsonArgs::run`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsEnd {
    /// More text is needed.
    Open,
    /// The arguments are over; the next text (if any) is an end marker. `valid` tells whether they are a
    /// complete JSON object.
    Closed {
        /// Whether the arguments are a complete JSON object with nothing but framing after it.
        valid: bool,
    },
}

const OPEN_FENCES: [&str; 3] = ["```json", "```JSON", "```"];
const CLOSE_FENCE: &str = "```";

impl JsonArgs {
    /// Ready for a new call.
    pub fn new() -> Self {
        JsonArgs {
            phase: Phase::Lead { fence_seen: false },
            json: JsonScanner::object(),
            tail: String::new(),
        }
    }

    /// Ready for the next call, keeping allocations.
    pub fn reset(&mut self) {
        self.phase = Phase::Lead { fence_seen: false };
        self.json.reset();
        self.tail.clear();
    }

    /// Takes `text` when [`run`](Self::run) would write all of it as an argument fragment and change
    /// nothing but the string's escape state: inside a string of the JSON object, which `text` does not
    /// close (see [`JsonScanner::take_string_run`]). On `true` the caller writes `text` as the fragment;
    /// on `false` nothing changed.
    #[inline]
    pub fn take_plain(&mut self, text: &str) -> bool {
        self.phase == Phase::Json && self.json.take_string_run(text)
    }

    /// Consumes arguments from `text`; see the type docs. At `eof` it always closes.
    pub fn run(
        &mut self,
        text: &str,
        eof: bool,
        syntax: &ArgsSyntax,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) -> (usize, ArgsEnd) {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.phase {
                Phase::Lead { fence_seen } => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let rest = &rest[ws..];
                    if rest.is_empty() {
                        return self.close_if(eof, pos, false);
                    }
                    if rest.starts_with('{') {
                        self.phase = Phase::Json;
                        continue;
                    }
                    if syntax.fenced && !fence_seen {
                        match literal_at(rest, &OPEN_FENCES, eof) {
                            Literal::Whole(len) => {
                                pos += len;
                                self.phase = Phase::Lead { fence_seen: true };
                                continue;
                            }
                            Literal::Partial => return (pos, ArgsEnd::Open),
                            Literal::No => {}
                        }
                    }
                    self.phase = Phase::Raw;
                }
                Phase::Json => {
                    let (used, status) = self.json.feed(rest);
                    calls.args(out, &rest[..used]);
                    pos += used;
                    match status {
                        JsonStatus::Complete => self.phase = Phase::Tail { fence_seen: false },
                        JsonStatus::Invalid => self.phase = Phase::Raw,
                        JsonStatus::Partial => return self.close_if(eof, pos, false),
                    }
                }
                Phase::Tail { fence_seen } => {
                    let ws = leading_ws(rest);
                    self.tail.push_str(&rest[..ws]);
                    pos += ws;
                    let rest = &rest[ws..];
                    if rest.is_empty() {
                        return self.close_if(eof, pos, true);
                    }
                    match syntax.end.find(rest, eof) {
                        Some(Found::Marker { start: 0, .. }) => {
                            self.tail.clear();
                            return (pos, ArgsEnd::Closed { valid: true });
                        }
                        Some(Found::Partial { start: 0 }) => return (pos, ArgsEnd::Open),
                        _ => {}
                    }
                    if eof && cut_inside_end(rest, syntax, fence_seen) {
                        // The output ends inside the end marker (or the closing fence): the arguments
                        // are complete and the fragment is no part of them.
                        self.tail.clear();
                        return (text.len(), ArgsEnd::Closed { valid: true });
                    }
                    if syntax.fenced && !fence_seen {
                        match literal_at(rest, &[CLOSE_FENCE], eof) {
                            Literal::Whole(len) => {
                                self.tail.push_str(&rest[..len]);
                                pos += len;
                                self.phase = Phase::Tail { fence_seen: true };
                                continue;
                            }
                            Literal::Partial => return (pos, ArgsEnd::Open),
                            Literal::No => {}
                        }
                    }
                    // Something other than framing follows the object: it is part of the arguments.
                    calls.args(out, &self.tail);
                    self.tail.clear();
                    self.phase = Phase::Raw;
                }
                Phase::Raw => match syntax.end.find(rest, eof) {
                    Some(Found::Marker { start, .. }) => {
                        calls.args(out, &rest[..start]);
                        return (pos + start, ArgsEnd::Closed { valid: false });
                    }
                    Some(Found::Partial { start }) => {
                        calls.args(out, &rest[..start]);
                        return (pos + start, ArgsEnd::Open);
                    }
                    None => {
                        calls.args(out, rest);
                        return self.close_if(eof, text.len(), false);
                    }
                },
            }
        }
    }

    fn close_if(&mut self, eof: bool, pos: usize, valid: bool) -> (usize, ArgsEnd) {
        if eof {
            self.tail.clear();
            (pos, ArgsEnd::Closed { valid })
        } else {
            (pos, ArgsEnd::Open)
        }
    }
}

/// Whether `rest`, the text after a complete JSON object and its framing at the end of the output, is a
/// cut-off end marker (or closing fence, where one may still come).
fn cut_inside_end(rest: &str, syntax: &ArgsSyntax, fence_seen: bool) -> bool {
    syntax.end.find(rest, false) == Some(Found::Partial { start: 0 })
        || (syntax.fenced
            && !fence_seen
            && literal_at(rest, &[CLOSE_FENCE], false) == Literal::Partial)
}

/// Whether `text` starts with one of `literals`, could still grow into one, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    /// `text` starts with a literal of this length (the longest that matches).
    Whole(usize),
    /// `text` is a proper prefix of a literal: wait for more.
    Partial,
    /// No literal can start here.
    No,
}

/// Checks `text` against short literals (fences, tag names) at its start; see [`Literal`].
pub fn literal_at(text: &str, literals: &[&str], eof: bool) -> Literal {
    let mut best = 0;
    let mut partial = false;
    for literal in literals {
        if text.starts_with(literal) {
            best = best.max(literal.len());
        } else if !eof && text.len() < literal.len() && literal.starts_with(text) {
            partial = true;
        }
    }
    if partial {
        Literal::Partial
    } else if best > 0 {
        Literal::Whole(best)
    } else {
        Literal::No
    }
}

/// What follows a call-section opener (DeepSeek's `<｜tool▁calls▁begin｜>`, Kimi's section tokens, DSML's
/// block): see [`section_lead`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionLead {
    /// The length of the section opener at the start of the text (0 when none of the spellings is there).
    pub opener: usize,
    /// Whether the section's first call follows.
    pub call: LeadCall,
}

/// Whether a section's first call follows its opener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeadCall {
    /// Not decided yet: more text is needed.
    More,
    /// Something else follows (or too much whitespace): the opener was not a section after all.
    Not,
    /// The first call's opener starts here (after the section opener and whitespace).
    At(usize),
}

/// Reads a section opener (one of `openers`) at the start of `text`, whitespace (at most `ws_limit`
/// bytes, so that every chunking decides alike), and whether `call_opener` comes next.
///
/// ```
/// use parser_core::{LeadCall, section_lead};
/// let lead = section_lead("<s>\n<c>f", &["<s>"], "<c>", 256, false);
/// assert_eq!((lead.opener, lead.call), (3, LeadCall::At(4)));
/// assert_eq!(section_lead("<s> <", &["<s>"], "<c>", 256, false).call, LeadCall::More);
/// assert_eq!(section_lead("<s> x", &["<s>"], "<c>", 256, false).call, LeadCall::Not);
/// ```
pub fn section_lead(
    text: &str,
    openers: &[&str],
    call_opener: &str,
    ws_limit: usize,
    eof: bool,
) -> SectionLead {
    let opener = openers
        .iter()
        .find(|o| text.starts_with(**o))
        .map_or(0, |o| o.len());
    let ws = leading_ws(&text[opener..]);
    let call = if ws > ws_limit {
        LeadCall::Not
    } else {
        match literal_at(&text[opener + ws..], &[call_opener], eof) {
            Literal::Whole(_) => LeadCall::At(opener + ws),
            Literal::Partial => LeadCall::More,
            Literal::No => LeadCall::Not,
        }
    };
    SectionLead { opener, call }
}

#[cfg(test)]
mod tests {
    use super::*;

    static END: MarkerSet = MarkerSet::new(&[&["<end>"]]);
    static FENCED: ArgsSyntax = ArgsSyntax {
        fenced: true,
        end: &END,
    };

    fn run_all(text: &str, cut: usize) -> (Accumulator, usize, ArgsEnd) {
        let options = ParseOptions::new().with_call_id_seed(1);
        let mut calls = Calls::new(&options);
        let mut out = Accumulator::new();
        calls.start(&mut out, "f", None);
        let mut args = JsonArgs::new();
        let mut held = String::new();
        let mut consumed_total = 0;
        let mut last = ArgsEnd::Open;
        for (piece, eof) in [(&text[..cut], false), (&text[cut..], true)] {
            held.push_str(piece);
            let (used, end) = args.run(&held, eof, &FENCED, &mut calls, &mut out);
            consumed_total += used;
            held.drain(..used);
            last = end;
            if let ArgsEnd::Closed { valid } = end {
                calls.end(&mut out, valid);
                break;
            }
        }
        (out, consumed_total, last)
    }

    #[test]
    fn fenced_arguments_stream_raw_and_stop_before_the_end_marker() {
        let text = "\n```json\n{\"a\": \"}<end>\"}\n```\n<end>rest";
        for cut in 0..=text.len() {
            let (out, used, end) = run_all(text, cut);
            let message = out.into_message();
            assert_eq!(
                message.tool_calls[0].arguments, "{\"a\": \"}<end>\"}",
                "cut {cut}"
            );
            assert!(message.tool_calls[0].valid, "cut {cut}");
            assert_eq!(end, ArgsEnd::Closed { valid: true });
            assert_eq!(&text[used..], "<end>rest", "cut {cut}");
        }
    }

    #[test]
    fn invalid_json_becomes_raw_text_up_to_the_end_marker() {
        let text = "{invalid json}<end>";
        for cut in 0..=text.len() {
            let (out, used, end) = run_all(text, cut);
            let call = &out.into_message().tool_calls[0];
            assert_eq!(call.arguments, "{invalid json}");
            assert!(!call.valid);
            assert_eq!(end, ArgsEnd::Closed { valid: false });
            assert_eq!(&text[used..], "<end>");
        }
    }

    #[test]
    fn junk_after_the_object_is_kept_and_flags_the_call() {
        let (out, _, _) = run_all("{\"a\":1}  extra<end>", 3);
        let call = &out.into_message().tool_calls[0];
        assert_eq!(call.arguments, "{\"a\":1}  extra");
        assert!(!call.valid);
    }

    #[test]
    fn truncated_arguments_close_invalid_at_eof() {
        let (out, _, end) = run_all("{\"city\": \"Par", 5);
        assert_eq!(end, ArgsEnd::Closed { valid: false });
        assert_eq!(
            out.into_message().tool_calls[0].arguments,
            "{\"city\": \"Par"
        );
    }

    #[test]
    fn ids_are_deterministic_for_a_seed_and_distinct_per_index() {
        let ids = CallIds::with_seed(42);
        let mut a = [0u8; 29];
        let mut b = [0u8; 29];
        let first = ids.id(0, &mut a).to_owned();
        assert_eq!(first, ids.id(0, &mut b));
        assert_ne!(first, ids.id(1, &mut b));
        assert!(first.starts_with("call_") && first.len() == 29);
    }
}
