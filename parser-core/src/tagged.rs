//! Arguments written as tagged parameters (DeepSeek DSML, Qwen3-Coder XML, GLM, MiniMax): the model
//! writes each value as text between tags, and the arguments are built as JSON text, append-only.
//!
//! - [`ObjectArgs`] writes `{"key": value, …}` through [`Calls`], one member at a time, so that the
//!   fragments concatenate to exactly the final arguments.
//! - [`TaggedValue`] reads one value up to its closing tag, streaming it as it arrives, with the two rules
//!   formats need: a closer that only counts when what follows it looks like the next tag, and one framing
//!   newline trimmed at each end.

use crate::deltas::Sink;
use crate::json::{escape_json_each, escape_json_into, is_ws};
use crate::scanner::{Found, MarkerSet};
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

    /// Writes a piece of a string value, escaped (straight to the sink, without copying).
    pub fn string_chunk(&mut self, calls: &mut Calls, out: &mut dyn Sink, text: &str) {
        escape_json_each(text, |piece| calls.args(out, piece));
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

/// How a tagged value ends.
#[derive(Debug)]
pub struct ValueSyntax {
    /// Group 0: the value's closing tag (consumed). Other groups: markers that end the value when its
    /// closer is missing (not consumed: the caller handles them).
    pub ends: &'static MarkerSet,
    /// When set, the closer only ends the value when it is followed by optional whitespace and one of
    /// these markers, or by the end of the output; otherwise it is part of the value (Qwen3-Coder: a
    /// literal `</parameter>` inside code).
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
    /// The output ended inside the value.
    Truncated,
}

/// Reads one tagged value, streaming its text to a callback; see [`ValueSyntax`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TaggedValue {
    started: bool,
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
        emit: &mut dyn FnMut(&str),
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
                    let keep = self.emit_body(rest, eof, syntax, emit);
                    return (
                        pos + keep,
                        if eof {
                            ValueEnd::Truncated
                        } else {
                            ValueEnd::Open
                        },
                    );
                }
                Some(Found::Partial { start }) => {
                    let keep = self.emit_body(&rest[..start], false, syntax, emit);
                    return (pos + keep, ValueEnd::Open);
                }
                Some(Found::Marker {
                    start, end, group, ..
                }) => {
                    if group != 0 {
                        let body = trim_framing(&rest[..start], syntax);
                        emit(body);
                        return (pos + start, ValueEnd::Interrupted);
                    }
                    match closer_counts(&rest[end..], eof, syntax) {
                        Some(true) => {
                            emit(trim_framing(&rest[..start], syntax));
                            return (pos + end, ValueEnd::Closed);
                        }
                        Some(false) => {
                            // A literal closer inside the value: it is text.
                            emit(&rest[..end]);
                            pos += end;
                        }
                        None => {
                            // Undecided: keep the closer (and the newline before it) for later.
                            let keep = self.emit_body(&rest[..start], false, syntax, emit);
                            return (pos + keep, ValueEnd::Open);
                        }
                    }
                }
            }
        }
    }

    /// Emits `body`, except a trailing newline that may still be framing; returns how much was emitted.
    fn emit_body(
        &mut self,
        body: &str,
        eof: bool,
        syntax: &ValueSyntax,
        emit: &mut dyn FnMut(&str),
    ) -> usize {
        let keep = if syntax.trim_newline && !eof && body.ends_with('\n') {
            body.len() - 1
        } else {
            body.len()
        };
        emit(&body[..keep]);
        keep
    }
}

fn trim_framing<'t>(body: &'t str, syntax: &ValueSyntax) -> &'t str {
    if syntax.trim_newline {
        body.strip_suffix('\n').unwrap_or(body)
    } else {
        body
    }
}

/// Whether a closer followed by `after` ends the value: `Some(true)`, `Some(false)`, or `None` while
/// undecided.
fn closer_counts(after: &str, eof: bool, syntax: &ValueSyntax) -> Option<bool> {
    let Some(followers) = syntax.closer_followers else {
        return Some(true);
    };
    let ws = after.bytes().take_while(|&b| is_ws(b)).count();
    if ws > FOLLOWER_LOOKAHEAD {
        return Some(false);
    }
    let next = &after[ws..];
    if next.is_empty() {
        return if eof { Some(true) } else { None };
    }
    match followers.find(next, eof) {
        Some(Found::Marker { start: 0, .. }) => Some(true),
        Some(Found::Partial { start: 0 }) => None,
        _ => Some(false),
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
            let (used, e) = value.run(&held, last, &QWEN, &mut |s| got.push_str(s));
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
