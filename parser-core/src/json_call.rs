//! A call written as a JSON object: `{"name": "get_weather", "arguments": {"city": "Paris"}}` (Hermes /
//! Qwen, Llama-3 JSON, and the JSON-native formats the template analyzer finds).
//!
//! The call is committed when its `"name"` string is complete (DESIGN §4.6); from then on the arguments
//! stream as the raw text the model wrote. `"parameters"` is read as `"arguments"`. Arguments given as a
//! JSON-encoded string (`"arguments": "{\"city\": \"Paris\"}"`) are decoded as they arrive, so the
//! fragments still concatenate to the final arguments. Arguments that come before the name are held until
//! the name is known. Other keys (`"id"`, `"type"`) are skipped.
//!
//! Other JSON shapes are configured with [`JsonCallFields`] ([`JsonCall::with_fields`]):
//! - other field names: `{"tool_name": "f", "parameters": {…}}` (Command-R);
//! - a wrapper object holding the name and arguments: `{"type": "function", "function": {"name": "f",
//!   "arguments": {…}}}` (the call is still the outer object; fields are read at both levels);
//! - the name as the key: `{"get_weather": {"city": "Paris"}}` (Apertus); the call is committed when the
//!   value's `{` follows the key, and that object is the arguments;
//! - id fields whose value comes back byte-exact as the call id: `{"name": "f", "arguments": {…}, "id":
//!   "a1b2c3d4e"}` (Mistral-Nemo) or `{"tool_call_id": "0", …}` (Command-R7B; a number is taken as written).
//!
//! **Ids written after the name delay the commit.** A call's id is sent with its first delta
//! (`ToolCallStart`), so when ids are configured the call is committed when both the name and the id are
//! complete, or at the end of the object (or where it breaks, or where the output ends) once the name is
//! complete — then without an id (a `call_…` id is generated). Arguments read meanwhile are held and
//! written at the commit in one piece. The cost: for models that write the id last (Mistral-Nemo), the
//! arguments of a call do not stream; they arrive when the object closes. Memory stays bounded by the
//! call being parsed. Without id fields nothing changes: the call commits at its complete name.

use crate::deltas::Sink;
use crate::json::{JsonScanner, JsonStatus, fit_within, is_plain_string_text, is_ws};
use crate::scanner::{Found, MarkerSet};
use crate::tool::Calls;

/// Longest key or name read before the object is taken not to be a call.
const NAME_LIMIT: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the opening brace.
    Lead,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After `,`: a key.
    Key,
    /// Inside a key string.
    KeyText {
        escaped: bool,
    },
    Colon,
    /// Before a value; what it is depends on the key.
    Value,
    NameText {
        escaped: bool,
    },
    IdText {
        escaped: bool,
    },
    ArgsObject,
    ArgsString,
    /// Any other value, skipped.
    Skip,
    /// After a value: `,` or `}`.
    After,
    /// The object broke after the call was committed: raw text up to an end marker.
    Broken,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Name,
    Arguments,
    Id,
    Function,
    Other,
}

/// The field names of a JSON call object; see the module docs.
///
/// Lists are `&'static` so that the type is `Copy` and built for free: families write them as constants;
/// a parser configured at run time interns them ([`crate::intern::intern_list`]).
///
/// ```
/// use parser_core::{Accumulator, CallEnd, Calls, JsonCall, JsonCallFields, MarkerSet, ParseOptions};
/// static END: MarkerSet = MarkerSet::new(&[&["<|END_ACTION|>"]]);
/// const COHERE: JsonCallFields = JsonCallFields {
///     name: &["tool_name"],
///     arguments: &["parameters"],
///     id: &["tool_call_id"],
///     ..JsonCallFields::STANDARD
/// };
/// let mut calls = Calls::new(&ParseOptions::new());
/// let mut out = Accumulator::new();
/// let mut call = JsonCall::with_fields(COHERE);
/// let text = r#"{"tool_call_id": "0", "tool_name": "search", "parameters": {"q": "rust"}}"#;
/// let (used, end) = call.run(text, true, &END, &mut calls, &mut out);
/// assert_eq!((used, end), (text.len(), CallEnd::Closed { valid: true }));
/// calls.end(&mut out, true);
/// let message = out.into_message();
/// assert_eq!(message.tool_calls[0].id, "0");
/// assert_eq!(message.tool_calls[0].name, "search");
/// assert_eq!(message.tool_calls[0].arguments, r#"{"q": "rust"}"#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JsonCallFields {
    /// Keys whose string value is the function name (`name`, `tool_name`).
    pub name: &'static [&'static str],
    /// Keys whose value is the arguments, an object or a JSON-encoded string (`arguments`, `parameters`).
    pub arguments: &'static [&'static str],
    /// Keys of a wrapper object that holds the name and arguments (`function`); empty when calls are flat.
    /// Only one level of wrapping is read.
    pub function: &'static [&'static str],
    /// Keys whose value is the call id, returned byte-exact (`id`, `tool_call_id`). Configuring ids delays
    /// the commit (see the module docs).
    pub id: &'static [&'static str],
    /// The function name is the key of the (first unknown) member whose value is an object, and that object
    /// is the arguments: `{"get_weather": {"city": "Paris"}}`. Flat fields are still read.
    pub name_is_key: bool,
}

impl JsonCallFields {
    /// `{"name": …, "arguments"|"parameters": …}`, other keys skipped: what [`JsonCall::new`] reads.
    pub const STANDARD: JsonCallFields = JsonCallFields {
        name: &["name"],
        arguments: &["arguments", "parameters"],
        function: &[],
        id: &[],
        name_is_key: false,
    };

    fn key(&self, key: &str, nested: bool) -> Key {
        if self.name.contains(&key) {
            Key::Name
        } else if self.arguments.contains(&key) {
            Key::Arguments
        } else if self.id.contains(&key) {
            Key::Id
        } else if !nested && self.function.contains(&key) {
            Key::Function
        } else {
            Key::Other
        }
    }
}

impl Default for JsonCallFields {
    fn default() -> Self {
        Self::STANDARD
    }
}

/// How [`JsonCall::run`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEnd {
    /// More text is needed.
    Open,
    /// The object ended (or broke) and the call is over; `valid` tells whether its arguments are a
    /// complete JSON object.
    Closed {
        /// Whether the arguments are a complete JSON object.
        valid: bool,
    },
    /// The text is not a call (no name before the object ended or broke): the consumed text, available
    /// from [`JsonCall::raw`], is content.
    NotACall,
}

/// Streams one JSON call object; see the module docs.
#[derive(Clone, Debug)]
pub struct JsonCall {
    fields: JsonCallFields,
    phase: Phase,
    key: Key,
    key_text: String,
    name: String,
    /// The name is complete (the call commits now, or once its id is known).
    name_done: bool,
    /// Inside the wrapper object (`"function": {…}`).
    nested: bool,
    /// The call id as written, and whether it is complete.
    id: String,
    id_done: bool,
    /// A number being skipped is the id: record it.
    id_number: bool,
    committed: bool,
    /// Everything consumed before the call was committed (content, if it never is).
    raw: String,
    /// Arguments read before the name.
    pending: String,
    args_seen: bool,
    args_valid: bool,
    /// Validates the arguments (raw object, or the decoded string).
    args_json: JsonScanner,
    /// Decoded string arguments had text after their object.
    trailing_junk: bool,
    skip: JsonScanner,
    unescape: Unescape,
    decoded: String,
}

impl Default for JsonCall {
    fn default() -> Self {
        Self::new()
    }
}

impl JsonCall {
    /// Ready for a call object with the standard fields ([`JsonCallFields::STANDARD`]).
    pub fn new() -> Self {
        Self::with_fields(JsonCallFields::STANDARD)
    }

    /// Ready for a call object with these field names.
    pub fn with_fields(fields: JsonCallFields) -> Self {
        JsonCall {
            fields,
            phase: Phase::Lead,
            key: Key::Other,
            key_text: String::new(),
            name: String::new(),
            name_done: false,
            nested: false,
            id: String::new(),
            id_done: false,
            id_number: false,
            committed: false,
            raw: String::new(),
            pending: String::new(),
            args_seen: false,
            args_valid: false,
            args_json: JsonScanner::object(),
            trailing_junk: false,
            skip: JsonScanner::any(),
            unescape: Unescape::default(),
            decoded: String::new(),
        }
    }

    /// Ready for the next call, keeping allocations.
    pub fn reset(&mut self) {
        self.phase = Phase::Lead;
        self.key_text.clear();
        self.name.clear();
        self.name_done = false;
        self.nested = false;
        self.id.clear();
        self.id_done = false;
        self.id_number = false;
        self.committed = false;
        self.raw.clear();
        self.pending.clear();
        self.args_seen = false;
        self.args_valid = false;
        self.args_json.reset();
        self.trailing_junk = false;
        self.unescape = Unescape::default();
    }

    /// Takes `text` when [`run`](Self::run) would write all of it as an argument fragment of the
    /// committed call and change nothing but the string's escape state: inside a string of the arguments
    /// object, which `text` does not close (see [`JsonScanner::take_string_run`]). On `true` the caller
    /// writes `text` as the fragment; on `false` nothing changed.
    #[inline]
    pub fn take_plain(&mut self, text: &str) -> bool {
        self.phase == Phase::ArgsObject && self.committed && self.args_json.take_string_run(text)
    }

    /// [`take_plain`](Self::take_plain) for every run the reader can take without its machine, the
    /// fragment written here: `true` when `text` was taken exactly as [`run`](Self::run) would take it
    /// (its writes included), `false` when nothing changed. Besides a run of a string of the committed
    /// call's arguments object, it takes
    /// - such a run before the commit (an id field still to come): held with the raw text, as `run`
    ///   holds it, while it fits in the buffer limit;
    /// - a run of JSON-encoded string arguments (`"arguments": "{\"a\": \"…"`) that stays inside a
    ///   string of the decoded object: decoded and written (the piece itself when it holds no escape).
    #[inline(always)]
    pub fn take_plain_into<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        calls: &mut Calls,
        out: &mut S,
    ) -> bool {
        if self.phase == Phase::ArgsObject && self.committed {
            return self.take_run_as_written(text, calls, out);
        }
        self.take_held_or_decoded(text, calls, out)
    }

    /// A run of the (decoded) arguments that is the fragment as written: taken when it stays inside
    /// a string of the arguments object, then written.
    #[inline(always)]
    fn take_run_as_written<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        calls: &mut Calls,
        out: &mut S,
    ) -> bool {
        let took = self.args_json.take_string_run(text);
        if took {
            calls.args(out, text);
        }
        took
    }

    /// [`take_plain_into`](Self::take_plain_into) but for the committed arguments object, out of
    /// the common path.
    #[inline(never)]
    fn take_held_or_decoded<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        calls: &mut Calls,
        out: &mut S,
    ) -> bool {
        match self.phase {
            Phase::ArgsObject => self.hold_plain(text, calls.buffer_limit()),
            Phase::ArgsString if self.committed => self.take_decoded_run(text, calls, out),
            _ => false,
        }
    }

    /// A string run of the arguments before the commit: raw text and pending arguments, as
    /// [`run`](Self::run) keeps them, when all of it fits beside the raw text held (then `run` would
    /// have read all of it too).
    fn hold_plain(&mut self, text: &str, limit: usize) -> bool {
        if self.raw.len().saturating_add(text.len()) > limit
            || !self.args_json.take_string_run(text)
        {
            return false;
        }
        self.raw.push_str(text);
        self.pending.push_str(text);
        true
    }

    /// A run of JSON-encoded string arguments of the committed call: decoded as [`run`](Self::run)
    /// decodes it, taken when the encoded string goes on after it and the decoded text stays inside
    /// a string of the decoded object (what `run`'s validation would then consume whole).
    #[inline]
    fn take_decoded_run<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        calls: &mut Calls,
        out: &mut S,
    ) -> bool {
        if self.unescape.is_clean() && is_plain_string_text(text) {
            // Nothing to decode: the piece is its own decoding.
            return self.take_run_as_written(text, calls, out);
        }
        self.take_escaped_run(text, calls, out)
    }

    /// [`take_decoded_run`](Self::take_decoded_run) of a piece with escapes (or after one that ended
    /// inside an escape).
    #[inline(never)]
    fn take_escaped_run<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        calls: &mut Calls,
        out: &mut S,
    ) -> bool {
        let mut unescape = self.unescape;
        self.decoded.clear();
        let (_, closed, ok) = unescape.feed(text, &mut self.decoded);
        let took = ok && !closed && self.args_json.take_string_run(&self.decoded);
        if took {
            self.unescape = unescape;
            calls.args(out, &self.decoded);
        }
        self.decoded.clear();
        took
    }

    /// Whether the text read so far ends just after the backslash of an escape inside a string of
    /// the arguments (the raw text, for JSON-encoded arguments): the byte that comes next is
    /// escaped. A reader that tracks strings alongside (a JSON array's element end) can check that
    /// it agrees, and then follow a run [`take_plain_into`](Self::take_plain_into) took without
    /// reading it: it stays inside the string and ends after a backslash exactly when this says so.
    #[inline]
    pub fn after_backslash(&self) -> bool {
        match self.phase {
            Phase::ArgsObject => self.args_json.after_backslash(),
            Phase::ArgsString => self.unescape.backslash,
            _ => false,
        }
    }

    /// The text consumed while the object was not yet a call (after [`CallEnd::NotACall`]: content).
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// True once the name is complete and the call was announced.
    pub fn is_committed(&self) -> bool {
        self.committed
    }

    /// The field names this reader is configured with.
    pub fn fields(&self) -> JsonCallFields {
        self.fields
    }

    /// Consumes the object from `text`. `end` holds the markers that end the call block (for example
    /// `</tool_call>`): if the object breaks after the call was committed, the text up to them is kept as
    /// raw arguments and the call is flagged invalid. At `eof` it always ends.
    pub fn run(
        &mut self,
        text: &str,
        eof: bool,
        end: &MarkerSet,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) -> (usize, CallEnd) {
        let bytes = text.as_bytes();
        let mut pos = 0;
        while pos < bytes.len() {
            // Past the buffer limit an uncommitted object stops waiting (see `Limits`): a call now if
            // its name is complete (its id, if any, was not written in time), else not a call.
            let mut room = self.room(&text[pos..], calls);
            if room == 0 {
                if !self.name_done {
                    return (pos, CallEnd::NotACall);
                }
                self.commit(calls, out);
                room = text.len() - pos;
            }
            let c = bytes[pos];
            match self.phase {
                Phase::Lead | Phase::FirstKey | Phase::Key | Phase::Colon | Phase::After
                    if is_ws(c) =>
                {
                    pos = self.take(text, pos, pos + 1);
                }
                Phase::Lead => {
                    if c != b'{' {
                        return (pos, CallEnd::NotACall);
                    }
                    pos = self.take(text, pos, pos + 1);
                    self.phase = Phase::FirstKey;
                }
                Phase::FirstKey | Phase::Key => match c {
                    b'"' => {
                        pos = self.take(text, pos, pos + 1);
                        self.key_text.clear();
                        self.phase = Phase::KeyText { escaped: false };
                    }
                    b'}' if self.phase == Phase::FirstKey => {
                        pos = self.take(text, pos, pos + 1);
                        if self.nested {
                            self.nested = false;
                            self.phase = Phase::After;
                            continue;
                        }
                        return (pos, self.object_end(calls, out));
                    }
                    _ => return self.broken(text, pos, eof, end, calls, out),
                },
                Phase::KeyText { escaped } => {
                    if self.key_text.len() > NAME_LIMIT {
                        return self.broken(text, pos, eof, end, calls, out);
                    }
                    let ch = text[pos..].chars().next().unwrap_or('\u{fffd}');
                    let next = pos + ch.len_utf8();
                    if !escaped && ch == '"' {
                        self.key = self.fields.key(&self.key_text, self.nested);
                        self.phase = Phase::Colon;
                    } else {
                        self.key_text.push(ch);
                        self.phase = Phase::KeyText {
                            escaped: !escaped && ch == '\\',
                        };
                    }
                    pos = self.take(text, pos, next);
                }
                Phase::Colon => {
                    if c != b':' {
                        return self.broken(text, pos, eof, end, calls, out);
                    }
                    pos = self.take(text, pos, pos + 1);
                    self.phase = Phase::Value;
                }
                Phase::Value => {
                    if is_ws(c) {
                        pos = self.take(text, pos, pos + 1);
                        continue;
                    }
                    match (self.key, c) {
                        (Key::Name, b'"') if !self.name_done => {
                            pos = self.take(text, pos, pos + 1);
                            self.name.clear();
                            self.phase = Phase::NameText { escaped: false };
                        }
                        (Key::Name | Key::Other, b'{') if self.name_key() => {
                            // `{"get_weather": {…}}`: the key is the name, the object the arguments.
                            self.name.clear();
                            self.name.push_str(&self.key_text);
                            self.name_done = true;
                            self.args_seen = true;
                            self.args_json.reset();
                            self.phase = Phase::ArgsObject;
                            self.maybe_commit(calls, out);
                        }
                        (Key::Function, b'{') => {
                            pos = self.take(text, pos, pos + 1);
                            self.nested = true;
                            self.phase = Phase::FirstKey;
                        }
                        (Key::Id, b'"') if !self.id_done => {
                            pos = self.take(text, pos, pos + 1);
                            self.id.clear();
                            self.phase = Phase::IdText { escaped: false };
                        }
                        (Key::Id, b'-' | b'0'..=b'9') if !self.id_done => {
                            self.id.clear();
                            self.id_number = true;
                            self.skip.reset();
                            self.phase = Phase::Skip;
                        }
                        (Key::Arguments, b'{') if !self.args_seen => {
                            self.args_seen = true;
                            self.args_json.reset();
                            self.phase = Phase::ArgsObject;
                        }
                        (Key::Arguments, b'"') if !self.args_seen => {
                            self.args_seen = true;
                            self.args_json.reset();
                            self.trailing_junk = false;
                            self.unescape = Unescape::default();
                            pos = self.take(text, pos, pos + 1);
                            self.phase = Phase::ArgsString;
                        }
                        _ => {
                            self.skip.reset();
                            self.phase = Phase::Skip;
                        }
                    }
                }
                Phase::NameText { escaped } => {
                    if self.name.len() > NAME_LIMIT {
                        return self.broken(text, pos, eof, end, calls, out);
                    }
                    let ch = text[pos..].chars().next().unwrap_or('\u{fffd}');
                    let next = pos + ch.len_utf8();
                    pos = self.take(text, pos, next);
                    if escaped {
                        self.name.push(match ch {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                        self.phase = Phase::NameText { escaped: false };
                    } else if ch == '\\' {
                        self.phase = Phase::NameText { escaped: true };
                    } else if ch == '"' {
                        if self.name.trim().is_empty() {
                            // An empty name names no function: not a call (as DeepSeek, Kimi and harmony).
                            return self.broken(text, pos, eof, end, calls, out);
                        }
                        self.name_done = true;
                        self.maybe_commit(calls, out);
                        self.phase = Phase::After;
                    } else {
                        self.name.push(ch);
                    }
                }
                Phase::IdText { escaped } => {
                    if self.id.len() > NAME_LIMIT {
                        return self.broken(text, pos, eof, end, calls, out);
                    }
                    let ch = text[pos..].chars().next().unwrap_or('\u{fffd}');
                    let next = pos + ch.len_utf8();
                    pos = self.take(text, pos, next);
                    if escaped {
                        self.id.push(match ch {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                        self.phase = Phase::IdText { escaped: false };
                    } else if ch == '\\' {
                        self.phase = Phase::IdText { escaped: true };
                    } else if ch == '"' {
                        self.id_done = true;
                        self.maybe_commit(calls, out);
                        self.phase = Phase::After;
                    } else {
                        self.id.push(ch);
                    }
                }
                Phase::ArgsObject => {
                    let (used, status) = self.args_json.feed(&text[pos..pos + room]);
                    if !self.committed {
                        self.raw.push_str(&text[pos..pos + used]);
                    }
                    self.write_args(calls, out, &text[pos..pos + used]);
                    pos += used;
                    match status {
                        JsonStatus::Partial => {}
                        JsonStatus::Complete => {
                            self.args_valid = true;
                            self.phase = Phase::After;
                        }
                        JsonStatus::Invalid => return self.broken(text, pos, eof, end, calls, out),
                    }
                }
                Phase::ArgsString => {
                    let (used, closed, ok) = self
                        .unescape
                        .feed(&text[pos..pos + room], &mut self.decoded);
                    if !self.committed {
                        self.raw.push_str(&text[pos..pos + used]);
                    }
                    pos += used;
                    let decoded = std::mem::take(&mut self.decoded);
                    self.check_decoded(&decoded);
                    self.write_args(calls, out, &decoded);
                    self.decoded = decoded;
                    self.decoded.clear();
                    if !ok {
                        return self.broken(text, pos, eof, end, calls, out);
                    }
                    if closed {
                        self.args_valid =
                            self.args_json.status() == JsonStatus::Complete && !self.trailing_junk;
                        self.phase = Phase::After;
                    }
                }
                Phase::Skip => {
                    let (used, status) = self.skip.feed(&text[pos..pos + room]);
                    if self.id_number {
                        self.id.push_str(&text[pos..pos + used]);
                    }
                    pos = self.take(text, pos, pos + used);
                    match status {
                        JsonStatus::Partial => {
                            if self.id.len() > NAME_LIMIT {
                                return self.broken(text, pos, eof, end, calls, out);
                            }
                        }
                        JsonStatus::Complete => {
                            if std::mem::take(&mut self.id_number) {
                                self.id_done = true;
                                self.maybe_commit(calls, out);
                            }
                            self.phase = Phase::After;
                        }
                        JsonStatus::Invalid => return self.broken(text, pos, eof, end, calls, out),
                    }
                }
                Phase::After => match c {
                    b',' => {
                        pos = self.take(text, pos, pos + 1);
                        self.phase = Phase::Key;
                    }
                    b'}' => {
                        pos = self.take(text, pos, pos + 1);
                        if self.nested {
                            self.nested = false;
                            continue;
                        }
                        return (pos, self.object_end(calls, out));
                    }
                    _ => return self.broken(text, pos, eof, end, calls, out),
                },
                Phase::Broken => return self.broken(text, pos, eof, end, calls, out),
            }
        }
        if eof {
            // Truncated inside the object: a call once its name is complete.
            if self.name_done {
                self.commit(calls, out);
            }
            if self.committed {
                return (pos, CallEnd::Closed { valid: false });
            }
            return (pos, CallEnd::NotACall);
        }
        (pos, CallEnd::Open)
    }

    /// How much of `rest` may be read before the buffer limit: all of it once the call is committed
    /// (nothing is held then), else what still fits beside the raw text held, cut at a character
    /// boundary. Zero means the limit is reached — at the same byte for every chunking, since the raw
    /// text is the same bytes however it arrived.
    fn room(&self, rest: &str, calls: &Calls) -> usize {
        if self.committed {
            return rest.len();
        }
        fit_within(rest, self.raw.len(), calls.buffer_limit())
    }

    /// Consumes `text[from..to]`: remembered as raw text while the call is not committed.
    fn take(&mut self, text: &str, from: usize, to: usize) -> usize {
        if !self.committed {
            self.raw.push_str(&text[from..to]);
        }
        to
    }

    /// Writes argument text (raw object text, or decoded string text): to the call once it is committed,
    /// else held until the name comes. The raw text itself is recorded by the caller.
    fn write_args(&mut self, calls: &mut Calls, out: &mut dyn Sink, fragment: &str) {
        if self.committed {
            calls.args(out, fragment);
        } else {
            self.pending.push_str(fragment);
        }
    }

    /// Decoded string arguments must form one JSON object (whitespace around it allowed).
    fn check_decoded(&mut self, decoded: &str) {
        let used = match self.args_json.status() {
            JsonStatus::Partial => self.args_json.feed(decoded).0,
            _ => 0,
        };
        if self.args_json.status() == JsonStatus::Complete && !decoded[used..].bytes().all(is_ws) {
            self.trailing_junk = true;
        }
    }

    /// Whether the member being read may be the name-as-key member.
    fn name_key(&self) -> bool {
        self.fields.name_is_key
            && !self.nested
            && !self.name_done
            && !self.committed
            && !self.key_text.is_empty()
    }

    /// Commits once the name is complete and, when ids are configured, the id too.
    fn maybe_commit(&mut self, calls: &mut Calls, out: &mut dyn Sink) {
        if self.name_done && (self.fields.id.is_empty() || self.id_done) {
            self.commit(calls, out);
        }
    }

    fn commit(&mut self, calls: &mut Calls, out: &mut dyn Sink) {
        if self.committed {
            return;
        }
        let id = (self.id_done && !self.id.is_empty()).then_some(self.id.as_str());
        calls.start(out, &self.name, id);
        self.committed = true;
        self.raw.clear();
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            calls.args(out, &pending);
        }
    }

    fn object_end(&mut self, calls: &mut Calls, out: &mut dyn Sink) -> CallEnd {
        if self.name_done {
            self.commit(calls, out);
        }
        if !self.committed {
            return CallEnd::NotACall;
        }
        if !self.args_seen {
            // `{"name": "now"}`: a call without arguments takes the empty object, the one fragment
            // written for the model (clients need `arguments` to be JSON).
            calls.args(out, "{}");
            return CallEnd::Closed { valid: true };
        }
        CallEnd::Closed {
            valid: self.args_valid,
        }
    }

    /// The object broke at `pos`. Before the name it is not a call; after, the text up to an end marker
    /// is kept as raw arguments and the call is invalid — unless its arguments were already complete and
    /// only the wrapper broke, in which case the wrapper's tail is dropped with the block.
    fn broken(
        &mut self,
        text: &str,
        pos: usize,
        eof: bool,
        end: &MarkerSet,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) -> (usize, CallEnd) {
        if self.name_done {
            self.commit(calls, out);
        }
        if !self.committed {
            return (pos, CallEnd::NotACall);
        }
        self.phase = Phase::Broken;
        let rest = &text[pos..];
        match end.find(rest, eof) {
            Some(Found::Marker { start, .. }) => {
                self.junk(calls, out, &rest[..start]);
                (
                    pos + start,
                    CallEnd::Closed {
                        valid: self.args_valid,
                    },
                )
            }
            Some(Found::Partial { start }) => {
                self.junk(calls, out, &rest[..start]);
                (pos + start, CallEnd::Open)
            }
            None => {
                self.junk(calls, out, rest);
                let end = if eof {
                    CallEnd::Closed {
                        valid: self.args_valid,
                    }
                } else {
                    CallEnd::Open
                };
                (text.len(), end)
            }
        }
    }

    fn junk(&mut self, calls: &mut Calls, out: &mut dyn Sink, text: &str) {
        if !self.args_valid {
            calls.args(out, text);
        }
    }
}

/// Incremental decoding of a JSON string's content.
#[derive(Clone, Copy, Debug, Default)]
struct Unescape {
    /// After a backslash.
    backslash: bool,
    /// Inside `\uXXXX`: digits read so far and their value.
    hex: Option<(u8, u32)>,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
}

impl Unescape {
    /// Between characters: no escape under way, no surrogate waiting.
    #[inline]
    fn is_clean(&self) -> bool {
        !self.backslash && self.hex.is_none() && self.high.is_none()
    }

    /// Decodes from `text` into `out`; returns (consumed, string closed, well-formed so far). Stops after
    /// the closing quote. An unfinished escape is consumed and remembered, never emitted half-way.
    fn feed(&mut self, text: &str, out: &mut String) -> (usize, bool, bool) {
        for (at, ch) in text.char_indices() {
            let next = at + ch.len_utf8();
            if let Some((digits, value)) = self.hex {
                let Some(d) = ch.to_digit(16) else {
                    return (next, false, false);
                };
                let value = value * 16 + d;
                if digits + 1 < 4 {
                    self.hex = Some((digits + 1, value));
                    continue;
                }
                self.hex = None;
                match (self.high.take(), value) {
                    (None, 0xD800..=0xDBFF) => self.high = Some(value),
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let code = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00);
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    (None, code) => match char::from_u32(code) {
                        Some(c) => out.push(c),
                        None => return (next, false, false),
                    },
                    (Some(_), _) => return (next, false, false),
                }
                continue;
            }
            if self.backslash {
                self.backslash = false;
                if self.high.is_some() && ch != 'u' {
                    return (next, false, false);
                }
                let decoded = match ch {
                    '"' => '"',
                    '\\' => '\\',
                    '/' => '/',
                    'b' => '\u{08}',
                    'f' => '\u{0c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'u' => {
                        self.hex = Some((0, 0));
                        continue;
                    }
                    _ => return (next, false, false),
                };
                out.push(decoded);
                continue;
            }
            if self.high.is_some() && ch != '\\' {
                return (at, false, false);
            }
            match ch {
                '\\' => self.backslash = true,
                '"' => return (next, true, true),
                c if (c as u32) < 0x20 => return (at, false, false),
                c => out.push(c),
            }
        }
        (text.len(), false, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deltas::Accumulator;
    use crate::message::ParsedMessage;
    use crate::options::ParseOptions;

    static END: MarkerSet = MarkerSet::new(&[&["</tool_call>"]]);

    /// Runs the object over `text` cut at every position; all runs must agree. Returns the message and
    /// the unconsumed rest.
    fn read_all(text: &str) -> (ParsedMessage, CallEnd, String) {
        read_all_with(JsonCallFields::STANDARD, text)
    }

    fn read_all_with(fields: JsonCallFields, text: &str) -> (ParsedMessage, CallEnd, String) {
        let mut first: Option<(ParsedMessage, CallEnd, String)> = None;
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let mut calls = Calls::new(&ParseOptions::new().with_call_id_seed(1));
            let mut out = Accumulator::new();
            let mut call = JsonCall::with_fields(fields);
            let mut held = String::new();
            let mut result = CallEnd::Open;
            for (piece, eof) in [(&text[..cut], false), (&text[cut..], true)] {
                held.push_str(piece);
                if result != CallEnd::Open {
                    continue;
                }
                let (used, end) = call.run(&held, eof, &END, &mut calls, &mut out);
                held.drain(..used);
                result = end;
            }
            if let CallEnd::Closed { valid } = result {
                calls.end(&mut out, valid);
            }
            let got = (out.into_message(), result, held);
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(&got, f, "cut {cut} of {text:?}"),
            }
        }
        first.unwrap()
    }

    fn call(text: &str) -> (String, String, bool, String) {
        let (message, end, rest) = read_all(text);
        assert!(
            matches!(end, CallEnd::Closed { .. }),
            "{end:?} for {text:?}"
        );
        let call = &message.tool_calls[0];
        (call.name.clone(), call.arguments.clone(), call.valid, rest)
    }

    #[test]
    fn name_then_object_arguments_stream_raw() {
        let (name, args, valid, rest) = call(
            r#"{"name": "get_weather", "arguments": {"city": "Paris", "n": [1, 2]}}</tool_call>"#,
        );
        assert_eq!(
            (name.as_str(), args.as_str(), valid),
            ("get_weather", r#"{"city": "Paris", "n": [1, 2]}"#, true)
        );
        assert_eq!(rest, "</tool_call>");
    }

    #[test]
    fn arguments_before_the_name_are_held_then_written() {
        let (name, args, valid, _) = call(r#"{"arguments": {"q": "x"}, "name": "search"}"#);
        assert_eq!(
            (name.as_str(), args.as_str(), valid),
            ("search", r#"{"q": "x"}"#, true)
        );
    }

    #[test]
    fn string_arguments_are_decoded() {
        let (_, args, valid, _) = call(
            r#"{"name": "f", "arguments": "{\"city\": \"北京\", \"e\": \"\ud83d\ude00\", \"q\": \"a\\\"b\"}"}"#,
        );
        assert_eq!(args, r#"{"city": "北京", "e": "😀", "q": "a\"b"}"#);
        assert!(valid);
        let (_, args, valid, _) = call(r#"{"name": "f", "arguments": "not an object"}"#);
        assert_eq!((args.as_str(), valid), ("not an object", false));
    }

    #[test]
    fn parameters_is_arguments_and_other_keys_are_skipped() {
        let (name, args, valid, _) = call(
            r#"{"id": 7, "type": "function", "name": "f", "extra": {"a": [true]}, "parameters": {}}"#,
        );
        assert_eq!((name.as_str(), args.as_str(), valid), ("f", "{}", true));
    }

    #[test]
    fn a_name_without_arguments_gets_the_empty_object() {
        let (_, args, valid, _) = call(r#"{"name": "now"}"#);
        assert_eq!((args.as_str(), valid), ("{}", true));
    }

    #[test]
    fn objects_without_a_name_are_not_calls() {
        let (message, end, rest) = read_all(r#"{"foo": 1, "arguments": {"a": 1}} tail"#);
        assert_eq!(end, CallEnd::NotACall);
        assert!(message.tool_calls.is_empty());
        assert_eq!(rest, " tail");
        assert_eq!(read_all("I will call it").1, CallEnd::NotACall);
    }

    #[test]
    fn broken_after_commit_keeps_raw_text_up_to_the_end_marker() {
        let (name, args, valid, rest) =
            call(r#"{"name": "f", "arguments": {"a": tru}}</tool_call>"#);
        assert_eq!(
            (name.as_str(), args.as_str(), valid),
            ("f", r#"{"a": tru}}"#, false)
        );
        assert_eq!(rest, "</tool_call>");
    }

    // Regression: string arguments before the name, in an object that never becomes a call, used to put
    // the decoded text into `raw` beside the raw text.
    #[test]
    fn raw_text_is_exactly_what_was_consumed() {
        let text = r#"{"arguments": "{\"a\": 1}", "foo": 2}"#;
        for cut in 0..=text.len() {
            let mut calls = Calls::new(&ParseOptions::new());
            let mut out = Accumulator::new();
            let mut call = JsonCall::new();
            let mut held = String::new();
            let mut consumed = String::new();
            for (piece, eof) in [(&text[..cut], false), (&text[cut..], true)] {
                held.push_str(piece);
                let (used, end) = call.run(&held, eof, &END, &mut calls, &mut out);
                consumed.push_str(&held[..used]);
                held.drain(..used);
                if end != CallEnd::Open {
                    assert_eq!(end, CallEnd::NotACall);
                    break;
                }
            }
            assert_eq!(call.raw(), consumed, "cut {cut}");
        }
    }

    const MISTRAL: JsonCallFields = JsonCallFields {
        id: &["id"],
        ..JsonCallFields::STANDARD
    };

    /// (id, name, arguments, valid) of the only call.
    fn call_with(fields: JsonCallFields, text: &str) -> (String, String, String, bool) {
        let (message, end, _) = read_all_with(fields, text);
        assert!(
            matches!(end, CallEnd::Closed { .. }),
            "{end:?} for {text:?}"
        );
        let call = &message.tool_calls[0];
        (
            call.id.clone(),
            call.name.clone(),
            call.arguments.clone(),
            call.valid,
        )
    }

    #[test]
    fn ids_after_the_name_delay_the_commit_and_come_back_byte_exact() {
        let got = call_with(
            MISTRAL,
            r#"{"name": "f", "arguments": {"a": [1, "}"]}, "id": "Ab3dE6gh9"}"#,
        );
        assert_eq!(
            got,
            (
                "Ab3dE6gh9".into(),
                "f".into(),
                r#"{"a": [1, "}"]}"#.into(),
                true
            )
        );
        // Without an id the call commits at the object's end, with a generated id.
        let (id, name, args, valid) = call_with(MISTRAL, r#"{"name": "f", "arguments": {}}"#);
        assert!(id.starts_with("call_"));
        assert_eq!((name.as_str(), args.as_str(), valid), ("f", "{}", true));
        // Truncated after the name: still a call, flagged invalid, arguments kept.
        let (message, end, _) =
            read_all_with(MISTRAL, r#"{"name": "f", "arguments": {"city": "Par"#);
        assert_eq!(end, CallEnd::Closed { valid: false });
        assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Par"#);
        // Broken after the name: a call too.
        let (message, end, _) = read_all_with(MISTRAL, r#"{"name": "f", "arguments": {"a": tru}}"#);
        assert_eq!(end, CallEnd::Closed { valid: false });
        assert_eq!(message.tool_calls[0].name, "f");
        // No name: not a call.
        assert_eq!(
            read_all_with(MISTRAL, r#"{"id": "x", "arguments": {}}"#).1,
            CallEnd::NotACall
        );
    }

    #[test]
    fn numeric_and_renamed_fields() {
        const COHERE: JsonCallFields = JsonCallFields {
            name: &["tool_name"],
            arguments: &["parameters"],
            id: &["tool_call_id"],
            ..JsonCallFields::STANDARD
        };
        let got = call_with(
            COHERE,
            r#"{"tool_call_id": 12, "tool_name": "s", "parameters": {"q": 1}}"#,
        );
        assert_eq!(got, ("12".into(), "s".into(), r#"{"q": 1}"#.into(), true));
        // `name` is not a name field here.
        assert_eq!(
            read_all_with(COHERE, r#"{"name": "s", "parameters": {}}"#).1,
            CallEnd::NotACall
        );
    }

    #[test]
    fn nested_function_objects() {
        const NESTED: JsonCallFields = JsonCallFields {
            function: &["function"],
            id: &["id"],
            ..JsonCallFields::STANDARD
        };
        let got = call_with(
            NESTED,
            r#"{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}"#,
        );
        assert_eq!(got, ("c1".into(), "f".into(), r#"{"x": 1}"#.into(), true));
        // Flat calls are still read, and text after the object is left alone.
        let (message, _, rest) = read_all_with(NESTED, r#"{"name": "g", "arguments": {}} tail"#);
        assert_eq!(message.tool_calls[0].name, "g");
        assert_eq!(rest, " tail");
        // The wrapper closes, the outer object goes on.
        let got = call_with(
            NESTED,
            r#"{"function": {"name": "f"}, "arguments": {"y": 2}, "id": "z"}"#,
        );
        assert_eq!(got, ("z".into(), "f".into(), r#"{"y": 2}"#.into(), true));
    }

    #[test]
    fn name_as_key() {
        const KEYED: JsonCallFields = JsonCallFields {
            name_is_key: true,
            ..JsonCallFields::STANDARD
        };
        let (_, name, args, valid) = call_with(KEYED, r#"{"get_weather": {"city": "北京"}}"#);
        assert_eq!(
            (name.as_str(), args.as_str(), valid),
            ("get_weather", r#"{"city": "北京"}"#, true)
        );
        let (_, name, args, _) = call_with(KEYED, r#"{"name": "f", "arguments": {"a": 1}}"#);
        assert_eq!((name.as_str(), args.as_str()), ("f", r#"{"a": 1}"#));
        // A scalar member is no name.
        assert_eq!(
            read_all_with(KEYED, r#"{"note": "x"}"#).1,
            CallEnd::NotACall
        );
    }

    /// Streams `text` as `Carry::feed_calls` does: each piece through `take_plain_into` when nothing
    /// is held, else through `run`; returns the message, the number of pieces the fast path took and
    /// the unconsumed rest.
    fn stream_through_fast_path(
        fields: JsonCallFields,
        options: &ParseOptions,
        pieces: &[&str],
    ) -> (ParsedMessage, usize, String) {
        let mut calls = Calls::new(options);
        let mut out = Accumulator::new();
        let mut call = JsonCall::with_fields(fields);
        let mut held = String::new();
        let mut taken = 0;
        let mut result = CallEnd::Open;
        for piece in pieces {
            if result != CallEnd::Open {
                held.push_str(piece);
                continue;
            }
            if held.is_empty() && call.take_plain_into(piece, &mut calls, &mut out) {
                taken += 1;
                continue;
            }
            held.push_str(piece);
            let (used, end) = call.run(&held, false, &END, &mut calls, &mut out);
            held.drain(..used);
            result = end;
        }
        if result == CallEnd::Open {
            let (used, end) = call.run(&held, true, &END, &mut calls, &mut out);
            held.drain(..used);
            result = end;
        }
        if let CallEnd::Closed { valid } = result {
            calls.end(&mut out, valid);
        }
        (out.into_message(), taken, held)
    }

    /// `text` cut after `offset` characters (when not zero), then every `size` characters.
    fn pieces_of(text: &str, offset: usize, size: usize) -> Vec<&str> {
        let mut cuts: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .enumerate()
            .filter(|&(n, _)| {
                n > 0 && (n == offset || (n > offset && (n - offset).is_multiple_of(size)))
            })
            .map(|(_, at)| at)
            .collect();
        cuts.insert(0, 0);
        cuts.push(text.len());
        cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
    }

    /// The runs `take_plain_into` takes (a string of the arguments object, held before a late id,
    /// and JSON-encoded arguments decoded) stream exactly as one-shot: escapes, `\u` escapes and
    /// surrogate pairs, multi-byte characters, escaped quotes inside escaped strings, closing quotes
    /// and brackets, broken escapes — under every chunking into pieces of 1 to 7 characters, at
    /// every offset, and with a buffer limit the held arguments run into.
    #[test]
    fn plain_runs_stream_as_one_shot() {
        let string =
            r#""fn main() { \"x\" } \\ \/ \u00e9\u4EAC \ud83d\ude00 é北京😀 ]}, \n\t end""#;
        let objects = [
            format!(r#"{{"name": "f", "arguments": {{"s": {string}, "n": [1, "}}"]}}}}</tool_call>"#),
            format!(r#"{{"name": "f", "arguments": {{"a": {string}, "b": {string}}}}}"#),
            r#"{"name": "f", "arguments": {"s": "bad \q escape and more"}}</tool_call>"#.into(),
            r#"{"name": "f", "arguments": {"s": "bad \u12G4 hex and more"}}</tool_call>"#.into(),
            "{\"name\": \"f\", \"arguments\": {\"s\": \"raw\nnewline in it\"}}</tool_call>".into(),
            format!(r#"{{"name": "f", "arguments": {{"s": {string}"#),
            // Arguments written as a JSON string holding JSON.
            format!(
                r#"{{"name": "f", "arguments": {}}}</tool_call>"#,
                serde_json::to_string(&format!(r#"{{"s": {string}, "n": 1}}"#)).unwrap()
            ),
            format!(
                r#"{{"name": "f", "arguments": {}}}"#,
                serde_json::to_string(&format!(r#"{{"s": {string}}} junk"#)).unwrap()
            ),
            r#"{"name": "f", "arguments": "{\"s\": \"q \\\"in\\\" \\\\\\\" \\u00e9 \\ud83d\\ude00 \u00e9 \ud83d\ude00 end\"}"}"#.into(),
            r#"{"name": "f", "arguments": "{\"s\": \"lone \ud83d surrogate then more\"}"}"#.into(),
            r#"{"name": "f", "arguments": "{\"s\": \"decoded \n newline\"}"}"#.into(),
            r#"{"name": "f", "arguments": "{\"s\": \"broken \q escape\"}"}"#.into(),
            r#"{"name": "f", "arguments": "{\"s\": \"cut off"#.into(),
            // An id after the arguments: they are held until it comes.
            format!(r#"{{"name": "f", "arguments": {{"s": {string}}}, "id": "Ab3dE6gh9"}}"#),
            format!(r#"{{"arguments": {{"s": {string}}}, "id": "Ab3dE6gh9"}}"#),
            format!(r#"{{"name": "f", "arguments": {{"s": {string}, "n": 1"#),
        ];
        const MISTRAL: JsonCallFields = JsonCallFields {
            id: &["id"],
            ..JsonCallFields::STANDARD
        };
        let limited = ParseOptions::new()
            .with_call_id_seed(1)
            .with_limits(crate::Limits { call_buffer: 64 });
        let options = ParseOptions::new().with_call_id_seed(1);
        let mut taken_total = 0;
        for text in &objects {
            for (fields, options) in [
                (JsonCallFields::STANDARD, &options),
                (MISTRAL, &options),
                (MISTRAL, &limited),
            ] {
                let (one_shot, _, rest) = stream_through_fast_path(fields, options, &[text]);
                for size in 1..=7 {
                    for offset in 0..size {
                        let pieces = pieces_of(text, offset, size);
                        let (streamed, taken, streamed_rest) =
                            stream_through_fast_path(fields, options, &pieces);
                        assert_eq!(
                            (&streamed, &streamed_rest),
                            (&one_shot, &rest),
                            "{text:?} in pieces of {size} after {offset}"
                        );
                        taken_total += taken;
                    }
                }
            }
        }
        assert!(
            taken_total > 1000,
            "the fast path took only {taken_total} pieces"
        );
    }

    #[test]
    fn truncated_after_commit_is_an_invalid_call() {
        let (message, end, _) = read_all(r#"{"name": "f", "arguments": {"city": "Par"#);
        assert_eq!(end, CallEnd::Closed { valid: false });
        assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Par"#);
    }
}
