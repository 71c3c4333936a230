//! Arguments written as tagged parameters (DeepSeek DSML, Qwen3-Coder XML, GLM, MiniMax): the model
//! writes each value as text between tags, and the arguments are built as JSON text, append-only.
//!
//! - [`ObjectArgs`] writes `{"key": value, …}` through [`Calls`], one member at a time, so that the
//!   fragments concatenate to exactly the final arguments.
//! - [`TaggedValue`] reads one value up to its closing tag, streaming it as it arrives, with the two rules
//!   formats need: a closer that only counts when what follows it looks like the next tag, and one framing
//!   newline trimmed at each end.

use crate::deltas::Sink;
use crate::json::{escape_json_into, leading_ws, needs_escape};
use crate::scanner::{Found, MarkerSet};
use crate::schema::{Tools, ValueType};
use crate::tool::Calls;

/// Builds a call's arguments as a JSON object, append-only.
///
/// ```
/// use parser_core::{Accumulator, Calls, ObjectArgs, ParseOptions, ValueType};
/// let mut out = Accumulator::new();
/// let mut calls = Calls::new(&ParseOptions::new());
/// calls.start(&mut out, "f", None);
/// let mut args = ObjectArgs::new();
/// args.key(&mut calls, &mut out, "city");
/// args.string_start(&mut calls, &mut out);
/// args.string_chunk(&mut calls, &mut out, "Par");
/// args.string_chunk(&mut calls, &mut out, "is \"FR\"");
/// args.string_end(&mut calls, &mut out);
/// args.key(&mut calls, &mut out, "days");
/// args.value(&mut calls, &mut out, &ValueType::Integer.coerce("3"));
/// args.finish(&mut calls, &mut out);
/// calls.end(&mut out, true);
/// assert_eq!(out.into_message().tool_calls[0].arguments, r#"{"city": "Paris \"FR\"", "days": 3}"#);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ObjectArgs {
    members: usize,
    scratch: String,
}

impl ObjectArgs {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts over for the next call, keeping allocations.
    pub fn reset(&mut self) {
        self.members = 0;
    }

    /// The number of members written.
    pub fn members(&self) -> usize {
        self.members
    }

    /// Writes `{"key": ` (first member) or `, "key": `.
    pub fn key(&mut self, calls: &mut Calls, out: &mut dyn Sink, key: &str) {
        self.scratch.clear();
        self.scratch
            .push_str(if self.members == 0 { "{\"" } else { ", \"" });
        escape_json_into(key, &mut self.scratch);
        self.scratch.push_str("\": ");
        calls.args(out, &self.scratch);
        self.members += 1;
    }

    /// Opens a string value.
    pub fn string_start(&mut self, calls: &mut Calls, out: &mut dyn Sink) {
        calls.args(out, "\"");
    }

    /// Writes a piece of a string value, escaped: as is when nothing needs escaping (the common case),
    /// else escaped into a reused buffer and written in one piece.
    #[inline]
    pub fn string_chunk<S: Sink + ?Sized>(&mut self, calls: &mut Calls, out: &mut S, text: &str) {
        if has_escape(text) {
            self.string_chunk_escaped(calls, out, false, text);
        } else {
            calls.args(out, text);
        }
    }

    /// [`string_chunk`](Self::string_chunk) of text that needs escaping, after a newline when
    /// `newline` (a newline held back as possible framing that turned out to be text): escaped by
    /// the sink, into its own buffer when it has one, else into the reused buffer, and written in
    /// one piece. Out of line: the common delta needs none of it.
    #[inline(never)]
    fn string_chunk_escaped<S: Sink + ?Sized>(
        &mut self,
        calls: &mut Calls,
        out: &mut S,
        newline: bool,
        text: &str,
    ) {
        calls.string_args(out, newline, text, &mut self.scratch);
    }

    /// Closes a string value.
    pub fn string_end(&mut self, calls: &mut Calls, out: &mut dyn Sink) {
        calls.args(out, "\"");
    }

    /// Writes a whole value, already JSON text (see [`crate::ValueType::coerce`]).
    pub fn value(&mut self, calls: &mut Calls, out: &mut dyn Sink, json: &str) {
        calls.args(out, json);
    }

    /// Closes the object: `}`, or `{}` when no member was written.
    pub fn finish(&mut self, calls: &mut Calls, out: &mut dyn Sink) {
        calls.args(out, if self.members == 0 { "{}" } else { "}" });
    }
}

/// How JSON writes each byte inside a string: 0, as it is; `u`, as `\u00XX`; else a backslash and this
/// byte (`\"`, `\\`, `\n`…), as [`escape_json_each`](crate::escape_json_each) writes it.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table
};

/// Appends `text`, after a newline when `newline`, to `into` as the inside of a JSON string (what
/// [`Sink::tool_call_string_arguments`] writes): a short ASCII delta a byte at a time (a copy call
/// per piece costs more than its few bytes), anything else as [`escape_json_into`] writes it.
pub(crate) fn escape_value_into(newline: bool, text: &str, into: &mut String) {
    if newline {
        into.push_str("\\n");
    }
    if text.len() > SHORT_TEXT || !text.is_ascii() {
        return escape_json_into(text, into);
    }
    for &b in text.as_bytes() {
        match ESCAPE[b as usize] {
            0 => into.push(char::from(b)),
            b'u' => escape_json_into(char::from(b).encode_utf8(&mut [0; 4]), into),
            code => {
                into.push('\\');
                into.push(char::from(code));
            }
        }
    }
}

/// The longest text treated as a delta of a few tokens (scanned without a branch per byte, escaped a
/// byte at a time).
const SHORT_TEXT: usize = 16;

/// Whether some byte of `text` can start one of `ends`, and whether some byte needs a JSON escape: one
/// pass for the two questions every delta of a long string value asks. On a short delta (nearly always
/// plain) the lookups are OR'd together without a branch per byte.
#[inline(always)]
fn scan_value_text(text: &str, ends: &MarkerSet) -> (bool, bool) {
    let bytes = text.as_bytes();
    if bytes.len() > SHORT_TEXT {
        return (
            ends.may_contain_marker(text),
            bytes.iter().any(|&b| needs_escape(b)),
        );
    }
    let (mut marker, mut escape) = (false, 0);
    for &b in bytes {
        marker |= ends.can_start(b);
        escape |= ESCAPE[b as usize];
    }
    (marker, escape != 0)
}

/// Whether some byte of `text` needs a JSON escape.
#[inline(always)]
fn has_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() > SHORT_TEXT {
        return bytes.iter().any(|&b| needs_escape(b));
    }
    bytes.iter().fold(0, |any, &b| any | ESCAPE[b as usize]) != 0
}

/// How a tagged value ends.
#[derive(Debug)]
pub struct ValueSyntax {
    /// Group 0: the value's closing tag (consumed). Other groups: markers that end the value when its
    /// closer is missing (not consumed: the caller handles them).
    pub ends: &'static MarkerSet,
    /// When set, the closer only ends the value when it is followed by optional whitespace and one of
    /// these markers, or by the end of the output (also when the output ends inside one of these
    /// markers: it was cut off in the tag after the value); otherwise it is part of the value
    /// (Qwen3-Coder: a literal `</parameter>` inside code).
    pub closer_followers: Option<&'static MarkerSet>,
    /// Remove one newline right after the opening tag and one right before the closer.
    pub trim_newline: bool,
}

/// The longest run of whitespace between a closer and what follows it that is still looked at; beyond
/// it the closer is taken as text (a bound on what is held back, decided alike in every chunking).
const FOLLOWER_LOOKAHEAD: usize = 256;

/// How [`TaggedValue::run`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueEnd {
    /// More text is needed.
    Open,
    /// The closer was found and consumed.
    Closed,
    /// Another end marker (group ≥ 1) starts where the consumed text ends; it was not consumed.
    Interrupted,
    /// The output ended inside the value (a cut-off prefix of an end marker at its end is dropped: no
    /// fragment of a tag is value text).
    Truncated,
}

/// Reads one tagged value, streaming its text to a callback; see [`ValueSyntax`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TaggedValue {
    started: bool,
    /// A newline consumed but not yet written: framing if the closer comes next, text otherwise. Kept
    /// here rather than left unconsumed, so that a value with many lines is never re-read.
    newline: bool,
}

impl TaggedValue {
    /// Ready for a new value.
    pub fn new() -> Self {
        Self::default()
    }

    /// Consumes value text from `text` and hands it to `emit` (possibly in several pieces). Returns how
    /// much was consumed and how the value stands.
    pub fn run(
        &mut self,
        text: &str,
        eof: bool,
        syntax: &ValueSyntax,
        mut emit: impl FnMut(&str),
    ) -> (usize, ValueEnd) {
        let mut pos = 0;
        if !self.started {
            if text.is_empty() {
                return (
                    0,
                    if eof {
                        ValueEnd::Truncated
                    } else {
                        ValueEnd::Open
                    },
                );
            }
            self.started = true;
            if syntax.trim_newline && text.starts_with('\n') {
                pos = 1;
            }
        }
        loop {
            let rest = &text[pos..];
            match syntax.ends.find(rest, eof) {
                None => {
                    // At the end of the output, a tail that is a cut-off end marker is not text.
                    let rest = if eof {
                        &rest[..syntax.ends.holdback_start(rest)]
                    } else {
                        rest
                    };
                    self.body(rest, !eof && syntax.trim_newline, &mut emit);
                    if eof && std::mem::take(&mut self.newline) {
                        // Cut off: a held newline was text after all.
                        emit("\n");
                    }
                    return (
                        text.len(),
                        if eof {
                            ValueEnd::Truncated
                        } else {
                            ValueEnd::Open
                        },
                    );
                }
                Some(Found::Partial { start }) => {
                    self.body(&rest[..start], syntax.trim_newline, &mut emit);
                    return (pos + start, ValueEnd::Open);
                }
                Some(Found::Marker {
                    start, end, group, ..
                }) => {
                    let counts = if group == 0 {
                        closer_counts(&rest[end..], eof, syntax)
                    } else {
                        Some(true)
                    };
                    match counts {
                        Some(true) => {
                            // The value ends here: a newline right before the end is framing.
                            self.last(&rest[..start], syntax.trim_newline, &mut emit);
                            return if group == 0 {
                                (pos + end, ValueEnd::Closed)
                            } else {
                                (pos + start, ValueEnd::Interrupted)
                            };
                        }
                        Some(false) => {
                            // A literal closer inside the value: it is text.
                            self.body(&rest[..end], false, &mut emit);
                            pos += end;
                        }
                        None => {
                            // Undecided: keep the closer for later.
                            self.body(&rest[..start], syntax.trim_newline, &mut emit);
                            return (pos + start, ValueEnd::Open);
                        }
                    }
                }
            }
        }
    }

    /// Writes value text; with `hold_newline`, a trailing newline is kept back as possible framing.
    fn body(&mut self, text: &str, hold_newline: bool, emit: &mut impl FnMut(&str)) {
        if text.is_empty() {
            return;
        }
        if std::mem::take(&mut self.newline) {
            emit("\n");
        }
        match text.strip_suffix('\n') {
            Some(kept) if hold_newline => {
                emit(kept);
                self.newline = true;
            }
            _ => emit(text),
        }
    }

    /// Writes the last text of the value, dropping one framing newline before its end.
    fn last(&mut self, text: &str, trim: bool, emit: &mut impl FnMut(&str)) {
        if text.is_empty() {
            // A held newline right before the end was the framing one.
            self.newline = false;
            return;
        }
        if std::mem::take(&mut self.newline) {
            emit("\n");
        }
        let text = if trim {
            text.strip_suffix('\n').unwrap_or(text)
        } else {
            text
        };
        if !text.is_empty() {
            emit(text);
        }
    }
}

/// Whether a closer followed by `after` ends the value: `Some(true)`, `Some(false)`, or `None` while
/// undecided.
fn closer_counts(after: &str, eof: bool, syntax: &ValueSyntax) -> Option<bool> {
    let Some(followers) = syntax.closer_followers else {
        return Some(true);
    };
    let ws = leading_ws(after);
    if ws > FOLLOWER_LOOKAHEAD {
        return Some(false);
    }
    let next = &after[ws..];
    if next.is_empty() {
        return if eof { Some(true) } else { None };
    }
    // Only a follower *at* `next` counts: test the markers there rather than searching the rest of the
    // text (a search would make every literal closer inside a long value cost the whole value: quadratic).
    let mut partial = false;
    for marker in followers.groups().iter().flat_map(|group| group.iter()) {
        if next.starts_with(marker) {
            return Some(true);
        }
        partial |= marker.starts_with(next);
    }
    match (partial, eof) {
        // Cut off inside the follower: the closer closed the value.
        (true, true) => Some(true),
        (true, false) => None,
        (false, _) => Some(false),
    }
}

/// One parameter value of a tagged call, as every tagged format reads it: typed by the request's schema,
/// a string value streams into the arguments as it arrives, any other value is collected and coerced when
/// it ends (a number or an object cannot be written before it is complete).
///
/// The caller writes the key (before [`start`](Self::start), or lets [`open`](Self::open) write it, or
/// defers it with [`start_deferred`](Self::start_deferred)), feeds text to [`run`](Self::run) until it
/// says the value ended, then [`end`](Self::end)s it — also when the output is cut off inside the value.
///
/// ```
/// use parser_core::{Accumulator, Calls, ObjectArgs, ParamStep, ParamValue, ParseOptions, ValueType};
/// # use parser_core::{MarkerSet, ValueSyntax};
/// # static ENDS: MarkerSet = MarkerSet::new(&[&["</parameter>"]]);
/// # static SYNTAX: ValueSyntax = ValueSyntax { ends: &ENDS, closer_followers: None, trim_newline: true };
/// let mut out = Accumulator::new();
/// let mut calls = Calls::new(&ParseOptions::new());
/// calls.start(&mut out, "f", None);
/// let (mut args, mut value) = (ObjectArgs::new(), ParamValue::new());
/// args.key(&mut calls, &mut out, "days");
/// value.start(ValueType::Integer, &mut args, &mut calls, &mut out);
/// assert_eq!(value.run("\n3", false, &SYNTAX, &mut args, &mut calls, &mut out), ParamStep::Pending(2));
/// assert_eq!(value.run("\n</parameter>", false, &SYNTAX, &mut args, &mut calls, &mut out), ParamStep::Ended(13));
/// value.end(&mut args, &mut calls, &mut out);
/// args.finish(&mut calls, &mut out);
/// calls.end(&mut out, true);
/// assert_eq!(out.into_message().tool_calls[0].arguments, r#"{"days": 3}"#);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ParamValue {
    reader: TaggedValue,
    value_type: ValueType,
    /// The text of a collected (non-string) value.
    collected: String,
    /// The key of a collected value whose key the caller writes later ([`start_deferred`]); written
    /// here instead if the value turns into a string.
    ///
    /// [`start_deferred`]: ParamValue::start_deferred
    deferred_key: Option<String>,
}

/// How [`ParamValue::run`] left the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamStep {
    /// This much was consumed; the value is still open (more text is needed, or the output ended in it).
    Pending(usize),
    /// The value ended after this much; [`ParamValue::end`] writes what is left of it.
    Ended(usize),
}

impl ParamValue {
    /// Ready for a value.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a value of `value_type`; a string value opens in the arguments at once.
    pub fn start(
        &mut self,
        value_type: ValueType,
        args: &mut ObjectArgs,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) {
        self.reader = TaggedValue::new();
        self.collected.clear();
        self.deferred_key = None;
        self.value_type = value_type;
        if self.is_string() {
            args.string_start(calls, out);
        }
    }

    /// Starts a value of `value_type` for `key`, leaving a collected value's key to the caller, who
    /// writes it with the value when it ends (DeepSeek's DSML does, to unwrap a lone `arguments`
    /// wrapper). A string value's key is written at once. Should a collected value turn into a string
    /// ([`Limits::call_buffer`](crate::Limits)), [`run`](Self::run) writes the key first and
    /// [`deferred_key`](Self::deferred_key) becomes `None`.
    pub fn start_deferred(
        &mut self,
        value_type: ValueType,
        key: &str,
        args: &mut ObjectArgs,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) {
        if value_type.is_string() {
            args.key(calls, out, key);
            self.start(value_type, args, calls, out);
        } else {
            // Reuse the last key's allocation: `start` forgets it.
            let mut deferred = self.deferred_key.take().unwrap_or_default();
            self.start(value_type, args, calls, out);
            deferred.clear();
            deferred.push_str(key);
            self.deferred_key = Some(deferred);
        }
    }

    /// The key a collected value started with [`start_deferred`](Self::start_deferred) still waits
    /// for the caller to write.
    pub fn deferred_key(&self) -> Option<&str> {
        self.deferred_key.as_deref()
    }

    /// Writes `key` and starts its value, typed as the request's tools declare `function`'s parameter
    /// `key`; a parameter they do not declare stays a string (DESIGN §4.8).
    pub fn open(
        &mut self,
        tools: Option<&Tools>,
        function: &str,
        key: &str,
        args: &mut ObjectArgs,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) {
        let value_type = tools
            .and_then(|tools| tools.param_type(function, key))
            .cloned()
            .unwrap_or_default();
        args.key(calls, out, key);
        self.start(value_type, args, calls, out);
    }

    /// The common delta inside a string value, without [`run`](Self::run): when the value streams as a
    /// string, its reader has started, and `syntax.ends` can find nothing in `text` (no marker, no
    /// cut-off one at its end: [`MarkerSet::may_match`]), `text` is value text as `run` would find it;
    /// it is written (escaped, after a newline the reader held, its own trailing newline held as `run`
    /// holds it) and `true` returned. `false`: nothing changed.
    #[inline]
    pub fn take_plain<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        syntax: &ValueSyntax,
        args: &mut ObjectArgs,
        calls: &mut Calls,
        out: &mut S,
    ) -> bool {
        if !self.is_string() || !self.reader.started || text.is_empty() {
            return false;
        }
        let (marker, escape) = scan_value_text(text, syntax.ends);
        if marker && syntax.ends.may_match(text) {
            return false;
        }
        // `run` finds no end marker (nor a cut-off one) in `text`: all of it is value text. The
        // common delta has nothing to escape (a trailing newline is one) and no newline held.
        if escape || self.reader.newline {
            self.take_escaped(text, syntax.trim_newline, args, calls, out);
        } else {
            calls.args(out, text);
        }
        true
    }

    /// The rest of [`take_plain`](Self::take_plain), out of the common path: `text` written as the
    /// reader's `body` writes it. A newline held from the last delta is text after all; a trailing
    /// one is held in turn (it may be the framing newline before the closer).
    #[inline(never)]
    fn take_escaped<S: Sink + ?Sized>(
        &mut self,
        text: &str,
        trim_newline: bool,
        args: &mut ObjectArgs,
        calls: &mut Calls,
        out: &mut S,
    ) {
        let held = std::mem::take(&mut self.reader.newline);
        let text = match text.strip_suffix('\n') {
            Some(kept) if trim_newline => {
                self.reader.newline = true;
                kept
            }
            _ => text,
        };
        // What is left may need no escape (the newline now held was the only one): the sink then
        // writes it as it is (a copy, rare).
        calls.string_args(out, held, text, &mut args.scratch);
    }

    /// Whether the value streams as a JSON string (rather than being collected).
    pub fn is_string(&self) -> bool {
        self.value_type.is_string()
    }

    /// Reads value text from `text`; see [`TaggedValue::run`] for how it ends.
    pub fn run(
        &mut self,
        text: &str,
        eof: bool,
        syntax: &ValueSyntax,
        args: &mut ObjectArgs,
        calls: &mut Calls,
        out: &mut dyn Sink,
    ) -> ParamStep {
        let mut string = self.is_string();
        let limit = calls.buffer_limit();
        let collected = &mut self.collected;
        let deferred_key = &mut self.deferred_key;
        let (used, end) = self.reader.run(text, eof, syntax, |piece| {
            if string {
                args.string_chunk(calls, out, piece);
            } else if collected.len() + piece.len() > limit {
                // Too long to collect (`Limits::call_buffer`): the value streams on as a string. A
                // value is typed only if its whole text is within the limit, so every chunking decides
                // alike.
                if let Some(key) = deferred_key.take() {
                    args.key(calls, out, &key);
                }
                args.string_start(calls, out);
                args.string_chunk(calls, out, collected);
                args.string_chunk(calls, out, piece);
                collected.clear();
                string = true;
            } else {
                collected.push_str(piece);
            }
        });
        if string && !self.is_string() {
            tracing::debug!("typed parameter value over the buffer limit: kept as a string");
            self.value_type = ValueType::String;
        }
        match end {
            ValueEnd::Open | ValueEnd::Truncated => ParamStep::Pending(used),
            ValueEnd::Closed | ValueEnd::Interrupted => ParamStep::Ended(used),
        }
    }

    /// A collected value as JSON text, coerced to its type (a string when it does not parse as one).
    pub fn typed(&self) -> String {
        self.value_type.coerce(&self.collected)
    }

    /// A collected value's text as written.
    pub fn collected(&self) -> &str {
        &self.collected
    }

    /// Closes the value in the arguments: a string's closing quote, or a collected value, typed.
    pub fn end(&self, args: &mut ObjectArgs, calls: &mut Calls, out: &mut dyn Sink) {
        if self.is_string() {
            args.string_end(calls, out);
        } else {
            args.value(calls, out, &self.typed());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static ENDS: MarkerSet = MarkerSet::new(&[&["</parameter>"], &["</function>"]]);
    static FOLLOW: MarkerSet = MarkerSet::new(&[&["<parameter=", "</function>"]]);
    static QWEN: ValueSyntax = ValueSyntax {
        ends: &ENDS,
        closer_followers: Some(&FOLLOW),
        trim_newline: true,
    };

    /// Runs the value over `text` in two pushes cut at `cut`; returns the value, what is left, the end.
    fn read(text: &str, cut: usize, eof: bool) -> (String, String, ValueEnd) {
        let mut value = TaggedValue::new();
        let mut got = String::new();
        let mut held = String::new();
        let mut end = ValueEnd::Open;
        for (piece, last) in [(&text[..cut], false), (&text[cut..], eof)] {
            held.push_str(piece);
            if end != ValueEnd::Open {
                continue;
            }
            let (used, e) = value.run(&held, last, &QWEN, |s| got.push_str(s));
            held.drain(..used);
            end = e;
        }
        (got, held, end)
    }

    // One framing newline at each end is removed; a literal closer followed by text is part of the
    // value; every split position gives the same result.
    #[test]
    fn reads_qwen_values_at_every_split() {
        let cases = [
            (
                "\nvalue\n</parameter>\n<parameter=b>",
                "value",
                "\n<parameter=b>",
                ValueEnd::Closed,
            ),
            (
                "\n\nkeep one\n\n</parameter>\n</function>",
                "\nkeep one\n",
                "\n</function>",
                ValueEnd::Closed,
            ),
            (
                "a</parameter>b\n</parameter>\n</function>",
                "a</parameter>b",
                "\n</function>",
                ValueEnd::Closed,
            ),
            ("x\n</parameter>", "x", "", ValueEnd::Closed),
            (
                "code</function>",
                "code",
                "</function>",
                ValueEnd::Interrupted,
            ),
            ("trunc\n", "trunc\n", "", ValueEnd::Truncated),
            // Cut off inside the tag after the closer: the closer counts.
            ("x\n</parameter>\n</func", "x", "\n</func", ValueEnd::Closed),
            ("x</parameter><", "x", "<", ValueEnd::Closed),
            // Cut off inside the closer: the fragment is not value text.
            ("cut\n</param", "cut\n", "", ValueEnd::Truncated),
        ];
        for (text, value, left, end) in cases {
            for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
                assert_eq!(
                    read(text, cut, true),
                    (value.to_owned(), left.to_owned(), end),
                    "{text:?} cut {cut}"
                );
            }
        }
    }
}

/// The collected value's fast path (kept in its own file).
mod collect;

/// The common-delta path ([`ParamValue::take_plain`]) against [`ParamValue::run`] alone: streamed the
/// way a machine on [`crate::Carry::feed_calls`] streams a value (the fast path first when nothing is
/// held, else the held text and the delta through `run`), every value writes the arguments a one-shot
/// `run` writes.
#[cfg(test)]
mod plain_tests {
    use super::*;
    use crate::deltas::{Accumulator, Deltas};
    use crate::options::ParseOptions;
    use proptest::prelude::*;

    static ENDS: MarkerSet = MarkerSet::new(&[&["</parameter>"], &["<parameter=", "</function>"]]);
    static FOLLOW: MarkerSet = MarkerSet::new(&[&["<parameter=", "</function>", "</tool_call>"]]);
    /// Qwen3-Coder's rules: a closer counts before a follower, one framing newline trimmed.
    static QWEN: ValueSyntax = ValueSyntax {
        ends: &ENDS,
        closer_followers: Some(&FOLLOW),
        trim_newline: true,
    };
    static GLM_ENDS: MarkerSet =
        MarkerSet::new(&[&["</arg_value>"], &["<arg_key>", "</tool_call>"]]);
    /// GLM's rules: the closer always counts, nothing trimmed.
    static GLM: ValueSyntax = ValueSyntax {
        ends: &GLM_ENDS,
        closer_followers: None,
        trim_newline: false,
    };

    /// The arguments of one string value read from `pieces`, and what was left after it; with `fast`
    /// the common delta takes `take_plain`.
    fn stream(pieces: &[&str], syntax: &ValueSyntax, fast: bool) -> (String, String) {
        stream_counted(pieces, syntax, fast, false).0
    }

    /// [`stream`], and how many pieces `take_plain` took; with `deltas` written into a [`Deltas`]
    /// buffer (which escapes into its own text) rather than an [`Accumulator`] (which escapes
    /// through the caller's scratch).
    fn stream_counted(
        pieces: &[&str],
        syntax: &ValueSyntax,
        fast: bool,
        deltas: bool,
    ) -> ((String, String), usize) {
        let mut taken = 0;
        let options = ParseOptions::new().with_call_id_seed(1);
        let mut calls = Calls::new(&options);
        let (mut accumulator, mut buffer) = (Accumulator::new(), Deltas::new());
        let out: &mut dyn Sink = if deltas {
            &mut buffer
        } else {
            &mut accumulator
        };
        calls.start(out, "f", None);
        let (mut args, mut value) = (ObjectArgs::new(), ParamValue::new());
        args.key(&mut calls, out, "content");
        value.start(ValueType::String, &mut args, &mut calls, out);
        let mut held = String::new();
        let mut ended = false;
        let count = pieces.len();
        for (n, piece) in pieces.iter().enumerate() {
            if ended {
                held.push_str(piece);
                continue;
            }
            if fast
                && held.is_empty()
                && value.take_plain(piece, syntax, &mut args, &mut calls, out)
            {
                taken += 1;
                continue;
            }
            held.push_str(piece);
            let eof = n + 1 == count;
            let step = value.run(&held, eof, syntax, &mut args, &mut calls, out);
            let (ParamStep::Pending(used) | ParamStep::Ended(used)) = step;
            held.drain(..used);
            ended = matches!(step, ParamStep::Ended(_));
        }
        if !ended {
            let step = value.run(&held, true, syntax, &mut args, &mut calls, out);
            let (ParamStep::Pending(used) | ParamStep::Ended(used)) = step;
            held.drain(..used);
        }
        value.end(&mut args, &mut calls, out);
        args.finish(&mut calls, out);
        calls.end(out, true);
        if deltas {
            accumulator.extend(&buffer);
        }
        let arguments = accumulator.into_message().tool_calls[0].arguments.clone();
        ((arguments, held), taken)
    }

    /// `text` in pieces of `size` characters.
    fn pieces(text: &str, size: usize) -> Vec<&str> {
        let mut cuts: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .step_by(size)
            .collect();
        cuts.push(text.len());
        cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
    }

    fn check(text: &str, syntax: &ValueSyntax) {
        let one_shot = stream(&[text], syntax, false);
        for size in 1..=9 {
            let pieces = pieces(text, size);
            assert_eq!(
                stream(&pieces, syntax, true),
                one_shot,
                "{text:?} in {size}s"
            );
            assert_eq!(
                stream_counted(&pieces, syntax, true, true).0,
                one_shot,
                "{text:?} in {size}s into Deltas"
            );
        }
        for (cut, _) in text.char_indices() {
            let pieces = [&text[..cut], &text[cut..]];
            assert_eq!(
                stream(&pieces, syntax, true),
                one_shot,
                "{text:?} cut {cut}"
            );
        }
    }

    const VALUES: &[&str] = &[
        "\nfn main() {\n    let s = \"hi\\t\";\n}\n\n</parameter>\n</function>",
        "\nif a < b { c <d> </e> }\n</parameter>\n<parameter=x>",
        "\nliteral </parameter> closer\n</parameter>\n</function>",
        "\nnot a closer </param and </parameter>x\n</parameter>\n</function>",
        "\ncafé 北京 🦀 é\n</parameter>\n</function>",
        "\u{1}\u{1f}\u{8}\u{c}\r\"\\\n\n\n</parameter>\n</function>",
        "\n\n\n</parameter>\n</function>",
        "a\n\nb\n</parameter></function>",
        "cut off \"inside\" 北",
        "cut off at\n</param",
        "cut off after\n</parameter>\n</fun",
        "code</function>",
        "say \"x\" <arg_key> and </arg_value>tail",
        "glm\nvalue \"q\" a < b\u{7} 京</arg_value><arg_key>b</arg_key>",
    ];

    #[test]
    fn the_fast_path_streams_like_one_shot() {
        for text in VALUES {
            check(text, &QWEN);
            check(text, &GLM);
        }
        // The fast path is taken: by pieces with escapes, newlines (held or written) and `<` that
        // starts no marker, not only by plain ones.
        let (_, taken) =
            stream_counted(&["\nx", "\"a\"\n", "\n", "b < c", "\t"], &QWEN, true, false);
        assert_eq!(taken, 4);
    }

    proptest! {
        #[test]
        fn random_values_stream_like_one_shot(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("\n"), Just("<"), Just("</"), Just("</parameter>"), Just("<parameter="),
                    Just("</function>"), Just("</arg_value>"), Just("<arg_key>"), Just("\""),
                    Just("\\"), Just("\t"), Just("\u{1}"), Just("é"), Just("北京"), Just("🦀"),
                    Just("a"), Just(" b "), Just("x < y"),
                ],
                0..24,
            ),
            size in 1usize..6,
        ) {
            let text = parts.concat();
            for syntax in [&QWEN, &GLM] {
                let one_shot = stream(&[&text], syntax, false);
                prop_assert_eq!(stream(&pieces(&text, size), syntax, true), one_shot.clone());
                prop_assert_eq!(
                    stream_counted(&pieces(&text, size), syntax, true, true).0,
                    one_shot
                );
            }
        }
    }
}
