//! The generic tool-call parser: one state machine for the four formats of the analysis, on the core
//! scanner ([`Carry`], [`MarkerSet`], [`Calls::scan_content`]), [`JsonCall`] for JSON calls, a
//! [`JsonScanner`] for JSON arguments, [`ObjectArgs`] + [`ParamValue`] for tagged arguments, and
//! [`ArgsScanner`] + [`kwargs_to_json`] for Python calls.

use std::sync::Arc;

use parser_core::{
    CallEnd, CallMachine, Calls, Carry, ContentStep, Deltas, Found, JsonCall, JsonScanner,
    JsonStatus, Literal, MarkerSet, ObjectArgs, ParamStep, ParamValue, ParseOptions, Sink,
    ToolParser, Tools, find_within, leading_ws, literal_at,
};

use super::head::{HEAD_LIMIT, Head, Stop, head, param_head, py_call_name};
use super::pythonic::{ArgsScanner, ArgsStep, kwargs_to_json};
use super::syntax::{DROP, Syntax};
use crate::spec::{CallIdPosition, ToolFormat};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// JSON_NATIVE without markers: nothing but whitespace seen yet, so a `{` may still open a call.
    Start,
    /// Content: scanning for call openers.
    Content,
    /// The text starts with a call opener; nothing is committed until the name is complete.
    Head,
    /// A JSON call object, read by [`JsonCall`] (committed at its complete name).
    Json,
    /// In a JSON array of calls: the rest of an element that is no call, content up to its end.
    SkipElement,
    /// TAG_WITH_JSON, after the name: whitespace and argument markers before the object.
    ArgsLead,
    /// TAG_WITH_JSON: inside the arguments object, streamed raw.
    ArgsObject,
    /// Arguments or a call body that are not what the format says: raw text, the call flagged invalid.
    Raw,
    /// TAG_WITH_TAGGED: inside a call, between arguments.
    Body,
    /// TAG_WITH_TAGGED: the text starts with an argument name prefix.
    ParamHead,
    /// An argument value: a string streamed as it arrives, another type collected and typed by the
    /// schema when it closes.
    Value,
    /// After a call: framing, separators, the next call, or the end of the block.
    AfterCall,
    /// PYTHONIC: inside a call's parentheses; the argument text is collected and converted when the
    /// call closes.
    PyArgs,
    /// PYTHONIC: after a `,` in a list of calls; the next call's name.
    PyNext,
}

/// The tool-call parser built from an analysis; see the module docs of [`super`].
#[derive(Clone, Debug)]
pub(super) struct GenericToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    syntax: Arc<Syntax>,
    state: State,
    calls: Calls,
    json: JsonCall,
    /// Text consumed from the opener to the JSON object, while no call of the block is committed
    /// (content, if the object is no call).
    block_raw: String,
    /// Inside a JSON array of calls.
    in_array: bool,
    /// A call of the current block was committed. Until one is, the block's framing (an array's
    /// `,` and `]`, its end marker) is no framing: the array is text, and every byte of it content.
    block_calls: bool,
    /// Inside a JSON array of calls: where the element being read ends.
    element: ElementEnd,
    /// The element is inside a string whose escape state is the call reader's
    /// ([`JsonCall::after_backslash`]); `element.escaped` is stale until [`Machine::run`] reads it
    /// back. Runs of the string then pass by the element without a check or an update per delta
    /// (see `plain_arguments`).
    element_follows: bool,
    scanner: JsonScanner,
    tools: Option<Arc<Tools>>,
    /// The open call's name (schema lookups).
    function: String,
    args: ObjectArgs,
    /// TAG_WITH_TAGGED: the open argument's value.
    value: ParamValue,
    /// PYTHONIC: the open call's argument text.
    py_args: String,
    /// PYTHONIC: the arguments passed the buffer limit and stream raw.
    py_spilled: bool,
    /// PYTHONIC: where the open call's arguments end.
    py: ArgsScanner,
    /// PYTHONIC: the calls stand inside an opened section (`<function_calls>` … `</function_calls>`),
    /// where calls may follow each other without a list (one per line, Olmo 3).
    py_section: bool,
}

impl GenericToolParser {
    pub(super) fn new(syntax: Arc<Syntax>, options: &ParseOptions) -> Self {
        let state = if syntax.bare {
            State::Start
        } else {
            State::Content
        };
        let json = JsonCall::with_fields(syntax.json);
        GenericToolParser {
            carry: Carry::new(),
            machine: Machine {
                syntax,
                state,
                calls: Calls::new(options),
                json,
                block_raw: String::new(),
                in_array: false,
                block_calls: false,
                element: ElementEnd::default(),
                element_follows: false,
                scanner: JsonScanner::object(),
                tools: options.tools.clone(),
                function: String::new(),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
                py_args: String::new(),
                py_spilled: false,
                py: ArgsScanner::default(),
                py_section: false,
            },
        }
    }
}

impl ToolParser for GenericToolParser {
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
            // Cut off inside a call: write what was read, flagged invalid — unless nothing in the
            // format could have closed it.
            let mut valid = false;
            match m.state {
                State::Value => m.value.end(&mut m.args, &mut m.calls, out),
                State::Body if !m.syntax.has_closer => {
                    m.args.finish(&mut m.calls, out);
                    valid = true;
                }
                // Cut off inside a Python call: the argument text as written so far, raw.
                State::PyArgs => m.calls.args(out, &m.py_args),
                _ => {}
            }
            m.calls.end(out, valid);
        }
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        self.machine.syntax.openers
    }

    fn in_block(&self) -> bool {
        !matches!(self.machine.state, State::Content | State::Start)
    }
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        (self.state == State::Content).then_some((&mut self.calls, self.syntax.content))
    }

    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        let took = match self.state {
            // In an array the element's end is tracked too. Inside a string, where its reader and
            // the call's see the same escape, a run the call's reader takes stays inside the string
            // for the element's as well (a valid JSON string run is one for the element's looser
            // rules), which then ends after a backslash exactly when the call's reader does: the
            // element follows without reading the bytes again.
            // The element follows the call's reader there (`element_follows`, set by `run`).
            // The reader writes the run itself (decoded, or held before a late id).
            State::Json => {
                if self.in_array && !self.element_follows {
                    return false;
                }
                return self.json.take_plain_into(text, &mut self.calls, out);
            }
            State::ArgsObject => self.scanner.take_string_run(text),
            // Python arguments are kept for the conversion at `)`: a delta that stays inside a
            // string (escapes included) is kept as it is, as `py_args` would keep it (nothing is
            // written until the call ends; markup inside a string is text). Once spilled over the
            // buffer limit they stream as raw argument text (written below); a delta that would
            // spill them is left to `py_keep`.
            State::PyArgs
                if (self.py_spilled
                    || self.py_args.len() + text.len() <= self.calls.buffer_limit())
                    && self.py.take_string_run(text) =>
            {
                if !self.py_spilled {
                    self.py_args.push_str(text);
                    return true;
                }
                true
            }
            // A tagged string value writes the delta itself (escaped).
            State::Value => return self.plain_value(text, out),
            _ => false,
        };
        if took {
            self.calls.args(out, text);
        }
        took
    }
}

impl Machine {
    /// [`CallMachine::plain_arguments`] in a tagged value, out of line: the JSON arms stay small
    /// enough for the common delta to need no spills.
    #[inline(never)]
    fn plain_value<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        let value = self.syntax.value;
        self.value
            .take_plain(text, value, &mut self.args, &mut self.calls, out)
    }
}
impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed.
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        if std::mem::take(&mut self.element_follows) {
            // Runs went by the element: its escape state is the call reader's.
            self.element.escaped = self.json.after_backslash();
        }
        let syntax = Arc::clone(&self.syntax);
        let s = &*syntax;
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Start => {
                    let ws = leading_ws(rest);
                    self.calls.content(out, &rest[..ws]);
                    pos += ws;
                    match text.as_bytes().get(pos) {
                        None => return pos,
                        Some(b'{') => self.enter_json(""),
                        Some(b'[') if s.array || s.format == ToolFormat::Pythonic => {
                            self.state = State::Head
                        }
                        Some(_) => self.state = State::Content,
                    }
                }
                State::Content => {
                    match self
                        .calls
                        .scan_content(out, rest, eof, s.content, Some(DROP))
                    {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, .. } => {
                            pos += at;
                            self.state = State::Head;
                        }
                    }
                }
                State::Head => match head(s, rest, eof) {
                    Err(Stop::More) if !eof => return pos,
                    Err(_) => {
                        // Not a call: the opener is content, and the text after it is scanned again.
                        let len = s.opener_len(rest);
                        self.calls.content(out, &rest[..len]);
                        pos += len;
                        self.in_array = false;
                        self.state = State::Content;
                    }
                    Ok(Head::Json { at, array }) => {
                        self.in_array = array;
                        self.block_calls = false;
                        self.enter_json(&rest[..at]);
                        pos += at;
                    }
                    Ok(Head::Tag { name, id, len }) => {
                        self.open_call(out, name, id);
                        pos += len;
                    }
                    Ok(Head::Content { len }) => {
                        // The header of content written like a call: framing.
                        pos += len;
                        self.in_array = false;
                        self.state = State::Content;
                    }
                    Ok(Head::Python { name, list, len }) => {
                        self.in_array = list;
                        self.py_section =
                            s.section_starts.iter().any(|start| rest.starts_with(start));
                        self.open_call(out, name, None);
                        pos += len;
                    }
                },
                State::PyArgs => {
                    let (used, done) = self.py_args(s, rest, eof, out);
                    pos += used;
                    if !done {
                        return pos;
                    }
                }
                State::PyNext => match py_call_name(rest.trim_start(), eof) {
                    Err(Stop::More)
                        if !eof && rest.len() - rest.trim_start().len() <= HEAD_LIMIT =>
                    {
                        return pos;
                    }
                    Err(_) => {
                        // Not a call after the comma (or the line): the list is over; the rest is
                        // content.
                        self.in_array = false;
                        self.py_section = false;
                        self.state = State::Content;
                    }
                    Ok((name, len)) => {
                        let ws = rest.len() - rest.trim_start().len();
                        self.open_call(out, name, None);
                        pos += ws + len;
                    }
                },
                State::Json => {
                    // In an array, each element is read on its own: up to the brace that closes it
                    // (found bracket- and string-aware however malformed it is), which ends it there.
                    // Its end is looked for in a window of the text ahead, never in all of it (see
                    // `ElementEnd::window`).
                    let (ahead, whole) = if self.in_array {
                        self.element.window(rest)
                    } else {
                        (rest, true)
                    };
                    let (slice, at_end) =
                        match self.in_array.then(|| self.element.find(ahead)).flatten() {
                            Some(end) => (&ahead[..end], true),
                            None => (ahead, eof && whole),
                        };
                    let (used, end) = self.json.run(slice, at_end, s.stops, &mut self.calls, out);
                    if self.in_array {
                        self.element.advance(&slice[..used]);
                        if end == CallEnd::Open && !whole {
                            // The window was read as a chunk of a stream is: go on after it.
                            self.element.grow();
                            pos += used;
                            continue;
                        }
                    }
                    pos += used;
                    match end {
                        CallEnd::Open => {
                            // Waiting inside a string with the escape the call's reader sees: the
                            // element follows it until `run` comes back.
                            self.element_follows = self.in_array
                                && self.element.in_string
                                && self.element.escaped == self.json.after_backslash();
                            return pos;
                        }
                        CallEnd::Closed { valid } => {
                            self.calls.end(out, valid);
                            self.block_calls = true;
                            self.block_raw.clear();
                            self.state = State::AfterCall;
                        }
                        CallEnd::NotACall
                            if self.in_array && (!s.bare || self.block_raw.is_empty()) =>
                        {
                            // An element that is no call: content, raw, to its end; the array goes on
                            // (unless it is the first element of a bare array, which may be any JSON).
                            self.calls.content(out, &self.block_raw);
                            self.block_raw.clear();
                            self.calls.content(out, self.json.raw());
                            self.state = State::SkipElement;
                        }
                        CallEnd::NotACall => {
                            // Never a call: the opener, what followed it and what the object reader
                            // consumed are content.
                            self.calls.content(out, &self.block_raw);
                            self.block_raw.clear();
                            self.calls.content(out, self.json.raw());
                            self.in_array = false;
                            self.state = State::Content;
                        }
                    }
                }
                State::SkipElement => {
                    // Content up to the element's end, or up to a marker that ends the block first;
                    // a window at a time, as in `State::Json`.
                    let (ahead, whole) = self.element.window(rest);
                    let end = self.element.find(ahead);
                    let upto = end.unwrap_or(ahead.len());
                    match s
                        .stops
                        .find(&ahead[..upto], (eof && whole) || end.is_some())
                    {
                        Some(Found::Marker { start, .. }) => {
                            self.calls.content(out, &rest[..start]);
                            pos += start;
                            self.state = State::AfterCall;
                        }
                        Some(Found::Partial { start }) => {
                            self.calls.content(out, &rest[..start]);
                            self.element.advance(&rest[..start]);
                            if whole {
                                return pos + start;
                            }
                            self.element.grow();
                            pos += start;
                        }
                        None => {
                            self.calls.content(out, &ahead[..upto]);
                            pos += upto;
                            if end.is_none() {
                                self.element.advance(ahead);
                                if whole {
                                    return pos;
                                }
                                self.element.grow();
                                continue;
                            }
                            self.state = State::AfterCall;
                        }
                    }
                }
                State::ArgsLead => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let rest = &rest[ws..];
                    if rest.is_empty() {
                        return pos;
                    }
                    match literal_at(rest, s.args_openers, eof) {
                        Literal::Whole(len) => pos += len,
                        Literal::Partial => return pos,
                        Literal::No if rest.starts_with('{') => {
                            self.scanner.reset();
                            self.state = State::ArgsObject;
                        }
                        Literal::No => self.state = State::Raw,
                    }
                }
                State::ArgsObject => {
                    let (used, status) = self.scanner.feed(rest);
                    self.calls.args(out, &rest[..used]);
                    pos += used;
                    match status {
                        JsonStatus::Partial => return pos,
                        JsonStatus::Complete => {
                            self.calls.end(out, true);
                            self.state = State::AfterCall;
                        }
                        JsonStatus::Invalid => self.state = State::Raw,
                    }
                }
                State::Raw => match s.stops.find(rest, eof) {
                    None => {
                        self.calls.args(out, rest);
                        return text.len();
                    }
                    Some(Found::Partial { start }) => {
                        self.calls.args(out, &rest[..start]);
                        return pos + start;
                    }
                    Some(Found::Marker { start, .. }) => {
                        // The end of the call (or the next call) is framing for the state after it.
                        self.calls.args(out, &rest[..start]);
                        pos += start;
                        self.calls.end(out, false);
                        self.state = State::AfterCall;
                    }
                },
                State::Body => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let after = &rest[ws..];
                    if after.is_empty() {
                        return pos;
                    }
                    // One longest-match decision over everything a body may go on with, so that a
                    // short marker is never taken while a longer one may still match.
                    match literal_at(after, s.body_literals, eof) {
                        Literal::Partial => return pos,
                        Literal::No => self.state = State::Raw,
                        Literal::Whole(len) => {
                            let marker = &after[..len];
                            if s.arg_name_prefixes.contains(&marker) {
                                self.state = State::ParamHead;
                            } else if s.block_ends.contains(&marker) || s.openers.contains(&marker)
                            {
                                // The call ends (a missing function close is tolerated before the end
                                // of the block or the next call); the marker is framing for the state
                                // after it.
                                self.close_call(out);
                                self.state = State::AfterCall;
                            } else {
                                // Framing between arguments.
                                pos += len;
                            }
                        }
                    }
                }
                State::ParamHead => match param_head(s, rest, eof) {
                    Err(Stop::More) if !eof => return pos,
                    Err(_) => self.state = State::Raw,
                    Ok((key, len)) => {
                        self.open_param(out, key);
                        pos += len;
                    }
                },
                State::Value => {
                    let step =
                        self.value
                            .run(rest, eof, s.value, &mut self.args, &mut self.calls, out);
                    match step {
                        ParamStep::Pending(used) => return pos + used,
                        ParamStep::Ended(used) => {
                            pos += used;
                            self.value.end(&mut self.args, &mut self.calls, out);
                            self.state = State::Body;
                        }
                    }
                }
                State::AfterCall => match self.after_call(s, rest, eof) {
                    After::Hold => return pos,
                    After::Skip(len) => pos += len,
                    After::Text(len) => {
                        self.calls.content(out, &rest[..len]);
                        pos += len;
                    }
                    After::Go(len, state) => {
                        pos += len;
                        if state == State::Json {
                            // Before the block's first call, the whitespace before an element is
                            // content if the element is no call either.
                            let raw = if self.block_calls { "" } else { &rest[..len] };
                            self.enter_json(raw);
                        } else {
                            self.state = state;
                        }
                    }
                    After::Content => {
                        // The block is over; whitespace and what follows are content.
                        self.in_array = false;
                        self.py_section = false;
                        self.state = State::Content;
                    }
                },
            }
        }
    }

    /// Decides what follows a call. Whitespace is only consumed with what comes after it, so that it
    /// stays content when the block is over.
    fn after_call(&mut self, s: &Syntax, rest: &str, eof: bool) -> After {
        let ws = leading_ws(rest);
        if ws > HEAD_LIMIT {
            return After::Content;
        }
        let after = &rest[ws..];
        let Some(&first) = after.as_bytes().first() else {
            return if eof { After::Content } else { After::Hold };
        };
        if self.in_array && s.format == ToolFormat::Pythonic {
            match first {
                b',' => return After::Go(ws + 1, State::PyNext),
                b']' => {
                    self.in_array = false;
                    return After::Skip(ws + 1);
                }
                // A list left unclosed (a broken call ended at the block's end marker): framing or
                // content, as after a list.
                _ => self.in_array = false,
            }
        }
        if self.in_array && !self.block_calls {
            // Only elements that are no call so far: the array is text. Its separators are content,
            // and after its `]` (or whatever breaks it off) so is the rest, end marker included — as
            // after a single object that is no call.
            return match first {
                b',' => After::Text(ws + 1),
                b'{' => After::Go(ws, State::Json),
                b']' => {
                    self.in_array = false;
                    self.state = State::Content;
                    After::Text(ws + 1)
                }
                _ => {
                    self.in_array = false;
                    After::Content
                }
            };
        }
        if self.in_array {
            match first {
                b',' => return After::Skip(ws + 1),
                b']' => {
                    self.in_array = false;
                    return After::Skip(ws + 1);
                }
                b'{' => return After::Go(ws, State::Json),
                // An array left unclosed (an element broke at the block's end marker): framing or
                // content, as after the array.
                _ => self.in_array = false,
            }
        }
        // One longest-match decision over framing, the next call and a late call id.
        match literal_at(after, s.after_literals, eof) {
            Literal::Partial => return After::Hold,
            Literal::No => {}
            Literal::Whole(len) => {
                let marker = &after[..len];
                if s.openers.contains(&marker) {
                    return After::Go(ws, State::Head);
                }
                if s.call_id == CallIdPosition::PostArgs && marker == s.call_id_prefix {
                    // An id after the arguments comes too late to be the call's id: it is skipped as
                    // framing.
                    let id = &after[len..];
                    return match find_within(id, s.call_id_suffix, HEAD_LIMIT) {
                        _ if s.call_id_suffix.is_empty() => After::Skip(ws + len),
                        Some(at) => After::Skip(ws + len + at + s.call_id_suffix.len()),
                        None if eof || id.len() > HEAD_LIMIT => After::Skip(ws + len),
                        None => After::Hold,
                    };
                }
                if marker == s.section_end {
                    self.py_section = false;
                }
                return After::Skip(ws + len);
            }
        }
        if self.py_section && (first.is_ascii_alphabetic() || first == b'_') {
            // Inside an open section, Python calls may follow each other without a list (one per
            // line): the next call's name, or (if it is none) the end of the block.
            // The whitespace stays unread: content if no call follows.
            return After::Go(0, State::PyNext);
        }
        if s.format == ToolFormat::JsonNative && first == b'{' {
            // Another call object right after this one (no separator, or an unwrapped sequence).
            return After::Go(ws, State::Json);
        }
        After::Content
    }

    fn enter_json(&mut self, raw: &str) {
        self.block_raw.clear();
        self.block_raw.push_str(raw);
        self.json.reset();
        self.element = ElementEnd::default();
        self.state = State::Json;
    }

    fn open_call(&mut self, out: &mut dyn Sink, name: &str, id: Option<&str>) {
        if let Some(tools) = &self.tools
            && tools.get(name).is_none()
        {
            // Still a call (DESIGN §4.6): the caller decides what to do with it.
            tracing::debug!(name, "call to a tool the request does not declare");
        }
        self.calls.start(out, name, id);
        self.block_calls = true;
        self.function.clear();
        self.function.push_str(name);
        self.args.reset();
        self.py.reset();
        self.py_args.clear();
        self.py_spilled = false;
        self.state = match self.syntax.format {
            ToolFormat::TagWithTagged => State::Body,
            ToolFormat::Pythonic => State::PyArgs,
            _ => State::ArgsLead,
        };
    }

    /// Reads a Python call's argument text; returns how much was consumed and whether the call ended
    /// (converted to JSON at its `)`; raw and invalid when broken: a stray closer, or a call/section end
    /// or opener outside a string).
    fn py_args(&mut self, s: &Syntax, rest: &str, eof: bool, out: &mut dyn Sink) -> (usize, bool) {
        let bytes = rest.as_bytes();
        for (at, &byte) in bytes.iter().enumerate() {
            if !self.py.in_string() && s.py_stops.iter().any(|m| m.as_bytes()[0] == byte) {
                match literal_at(&rest[at..], s.py_stops, eof) {
                    Literal::Partial => {
                        self.py_keep(&rest[..at], out);
                        return (at, false);
                    }
                    Literal::Whole(_) => {
                        // The marker is framing for the state after the call.
                        self.py_keep(&rest[..at], out);
                        self.end_py_call(out, false);
                        return (at, true);
                    }
                    Literal::No => {}
                }
            }
            match self.py.step(byte) {
                ArgsStep::Inside => {}
                ArgsStep::Close => {
                    self.py_keep(&rest[..at], out);
                    self.end_py_call(out, true);
                    return (at + 1, true);
                }
                ArgsStep::Stray => {
                    self.py_keep(&rest[..at], out);
                    self.end_py_call(out, false);
                    return (at, true);
                }
            }
        }
        self.py_keep(rest, out);
        (rest.len(), false)
    }

    /// Keeps Python argument text for the conversion at `)`. Arguments longer than the buffer limit are
    /// not converted: what was kept and everything after stream as raw arguments, and the call ends
    /// flagged not valid. Only the total length decides, so every chunking agrees.
    fn py_keep(&mut self, text: &str, out: &mut dyn Sink) {
        if !self.py_spilled && self.py_args.len() + text.len() > self.calls.buffer_limit() {
            tracing::debug!("Python-style arguments over the buffer limit: raw, not valid");
            self.py_spilled = true;
            self.calls.args(out, &self.py_args);
            self.py_args.clear();
        }
        if self.py_spilled {
            self.calls.args(out, text);
        } else {
            self.py_args.push_str(text);
        }
    }

    /// Ends a Python call: its arguments as a JSON object when they convert (and the call closed), else
    /// the raw text, flagged invalid.
    fn end_py_call(&mut self, out: &mut dyn Sink, closed: bool) {
        if std::mem::take(&mut self.py_spilled) {
            self.calls.end(out, false);
            self.state = State::AfterCall;
            return;
        }
        match kwargs_to_json(&self.py_args).filter(|_| closed) {
            Some(json) => {
                self.calls.args(out, &json);
                self.calls.end(out, true);
            }
            None => {
                self.calls.args(out, &self.py_args);
                self.calls.end(out, false);
            }
        }
        self.py_args.clear();
        self.state = State::AfterCall;
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

/// What follows a call.
enum After {
    /// Not decided: hold the text.
    Hold,
    /// Framing of this many bytes: consumed, still between calls.
    Skip(usize),
    /// Text of this many bytes that frames no call: content (the state is left as `after_call` set
    /// it).
    Text(usize),
    /// Whitespace of this many bytes, then the state to go on in.
    Go(usize, State),
    /// The block is over.
    Content,
}

/// Where an element of a JSON array of calls ends: after the `}` that brings its braces back to level
/// zero, strings and escapes skipped (brackets are not counted: an unclosed `[` in broken arguments
/// must not swallow the next element) — read from the element's first byte, whether or not the
/// element is valid JSON (`{"time": 15:30}` still ends at its brace). A malformed element thereby ends
/// where it ends, and its siblings are read on their own. Bytes only decide, so every chunking agrees.
///
/// The end is looked for a window at a time ([`window`](Self::window)): an element that never
/// balances its braces would otherwise be searched to the end of the output, and once per element
/// after it too (quadratic on `[{…` repeated). Reading a window as if the stream stopped there is what
/// a push ending there does, so the result is the same (streaming equals one-shot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ElementEnd {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The element's opening bracket was seen.
    opened: bool,
    /// How many bytes ahead the end is looked for.
    window: usize,
}

impl Default for ElementEnd {
    fn default() -> Self {
        ElementEnd {
            depth: 0,
            in_string: false,
            escaped: false,
            opened: false,
            window: ELEMENT_WINDOW,
        }
    }
}

/// The first window an element's end is looked for in; it doubles while the element goes on, so a
/// long element costs a few windows and a short one no more than one. Small, because the part of the
/// last window beyond where the element reader stopped is looked at for nothing: an element cut off by
/// a marker (`<TOOLCALL>[{"name": "f", "arguments": {}<TOOLCALL>[{…`, an element in 45 bytes) paid
/// for 2048 bytes each, 950 instructions per byte of such output.
const ELEMENT_WINDOW: usize = 64;

impl ElementEnd {
    /// The text ahead to look in now (cut at a character boundary, never empty when `text` is not),
    /// and whether it is all of `text`.
    fn window<'t>(&self, text: &'t str) -> (&'t str, bool) {
        if text.len() <= self.window {
            return (text, true);
        }
        let mut cut = self.window;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        (&text[..cut], cut == text.len())
    }

    /// After a window that did not hold the element's end: the next one is twice as large, so that a
    /// long element is read in a few windows.
    fn grow(&mut self) {
        self.window = self.window.saturating_mul(2);
    }

    /// Consumes one byte; true when it closes the element.
    fn step(&mut self, byte: u8) -> bool {
        if self.in_string {
            match byte {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                _ => {}
            }
            return false;
        }
        match byte {
            b'"' if self.opened => self.in_string = true,
            b'{' => {
                self.opened = true;
                self.depth = self.depth.saturating_add(1);
            }
            b'}' if self.opened => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }

    /// How much of `text` the element takes, its closing bracket included, if it ends in `text`
    /// (nothing is consumed: [`advance`](Self::advance) does).
    fn find(&self, text: &str) -> Option<usize> {
        if self.opened && self.depth == 0 {
            return Some(0);
        }
        let mut probe = *self;
        text.bytes()
            .position(|byte| probe.step(byte))
            .map(|at| at + 1)
    }

    /// Consumes `text`, which the element reader has read.
    fn advance(&mut self, text: &str) {
        for byte in text.bytes() {
            if self.opened && self.depth == 0 {
                return;
            }
            self.step(byte);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ElementEnd;
    use parser_core::{Accumulator, Calls, JsonCall, JsonCallFields, MarkerSet, ParseOptions};

    static END: MarkerSet = MarkerSet::new(&[&["</tool_call>"]]);

    /// The shortcut of `plain_arguments` in an array: where the element's reader is inside a string
    /// with the escape the call's reader has, a piece the call's reader takes leaves the element
    /// exactly where reading the piece would (inside the string, after a backslash as the call's
    /// reader says) — every piece of every split of calls with escapes, `\u` escapes, braces and
    /// quotes in strings, multi-byte characters, JSON-encoded arguments and a late id.
    #[test]
    fn a_run_the_call_takes_moves_the_element_as_reading_it() {
        let calls_text = [
            r#"{"name": "f", "arguments": {"s": "a \"q\" {b} \\ \\\" \u00e9 \ud83d\ude00 é北 end", "n": [1, {"x": "}"}]}}"#,
            r#"{"name": "f", "arguments": "{\"s\": \"q \\\"in\\\" \\\\ {]} \\u00e9 é\"}"}"#,
            r#"{"name": "f", "arguments": {"s": "x\\\\\\"}, "id": "Ab3dE6gh9"}"#,
        ];
        const ID: JsonCallFields = JsonCallFields {
            id: &["id"],
            ..JsonCallFields::STANDARD
        };
        let mut taken = 0;
        for text in calls_text {
            for fields in [JsonCallFields::STANDARD, ID] {
                for start in 0..text.len() {
                    for end in start..=text.len() {
                        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                            continue;
                        }
                        let mut calls = Calls::new(&ParseOptions::new());
                        let mut out = Accumulator::new();
                        let mut call = JsonCall::with_fields(fields);
                        let (used, _) = call.run(&text[..start], false, &END, &mut calls, &mut out);
                        if used != start {
                            continue;
                        }
                        let mut element = ElementEnd::default();
                        element.advance(&text[..start]);
                        if !element.in_string || element.escaped != call.after_backslash() {
                            continue;
                        }
                        let piece = &text[start..end];
                        if !call.take_plain_into(piece, &mut calls, &mut out) {
                            continue;
                        }
                        taken += 1;
                        let mut read = element;
                        read.advance(piece);
                        element.escaped = call.after_backslash();
                        assert_eq!(element, read, "{text:?} {start}..{end}");
                    }
                }
            }
        }
        assert!(taken > 1000, "only {taken} pieces taken");
    }
}
