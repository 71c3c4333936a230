//! FunctionGemma's and Gemma 4's tool calls: `call:NAME{…}` between a call opener and closer, the
//! arguments in Gemma's own value syntax, converted to JSON as they arrive.
//!
//! ```text
//! FunctionGemma:  <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>
//! Gemma 4:        <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
//! ```
//!
//! The value syntax is the chat templates' `format_argument`: an object is `{key:value,…}` with bare
//! keys, an array `[value,…]`, a string is written between two delimiter tokens (`<escape>`, `<|"|>`)
//! with nothing escaped inside, and anything else (numbers, `true`, `false`, `null`) bare.
//!
//! - The call is committed at its complete name: `call:`, the name, then `{` (whitespace around them is
//!   framing). A head that is not that within [`HEAD_LIMIT`] bytes is not a call: the opener is content,
//!   raw, and the text after it is read as content again.
//! - The arguments stream as JSON text written append-only in the style of the other families
//!   (`{"city": "Paris", "days": 3}`): keys and delimited strings JSON-escaped, a string as it
//!   arrives; a bare value, once its end (`,`, `}`, `]`) is seen, typed by the request's tool schema
//!   when it is a top-level argument the schema types ([`ValueType::coerce`]), else kept when it is a
//!   JSON literal and written as a string when it is not (`unit:celsius` → `"celsius"`), as vLLM's and
//!   Ollama's parsers read it. A key may also be written between delimiters (as the templates write
//!   keys in tool declarations).
//! - A member whose comma is missing is read as the next member when it reads as one.
//! - The call ends at its closer after the top-level `}`; a missing closer is tolerated before the
//!   next call, an end-of-turn token, or the end of the output: the arguments are complete. Text other
//!   than the closer after the `}` ends the call too and is content.
//! - A call cut off before its top-level `}` stays, flagged invalid, with the arguments written so far.
//!   So does a call whose arguments break the syntax (a key without `:`, a stray token, a closer before
//!   the `}`): the rest of its body, up to the closer, goes raw into its arguments.

use std::sync::Arc;

use parser_core::{
    CallMachine, Calls, Carry, ContentStep, Deltas, Found, Literal, MAX_JSON_DEPTH, MarkerSet,
    ParseOptions, Sink, ToolParser, Tools, ValueType, escape_json_each, escape_json_into,
    leading_ws, literal_at, needs_escape,
};

/// The longest head (`call:NAME{`), argument name or bare value read before the text is taken not to
/// be one. Every decision is made on the text seen so far within this bound, so that every chunking
/// decides alike.
pub const HEAD_LIMIT: usize = 256;

/// The tokens of one of the two formats.
#[derive(Debug)]
pub struct CallSyntax {
    /// Opens a call.
    pub opener: &'static str,
    /// Closes a call.
    pub closer: &'static str,
    /// Opens and closes a string value.
    pub delimiter: &'static str,
    /// Tokens that start a new turn: the reply ends there.
    pub turn_starts: &'static [&'static str],
    /// Content: the opener (group 0) and the tokens dropped from content (group 1: end-of-turn tokens
    /// and the turn starts).
    pub content: &'static MarkerSet,
    /// Inside a string: the delimiter (group 0), the closer (group 1).
    pub string_end: &'static MarkerSet,
    /// Where a body that broke the syntax ends: the closer (group 0, consumed), the next call or an
    /// end-of-turn token (group 1, left to content).
    pub raw_end: &'static MarkerSet,
}

const DROP: usize = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Outside calls (a call head being read is held, in this state).
    Content,
    /// In an object: a key, or the object's `}`.
    Key,
    /// After a key's `:`, or in an array: a value (or, in an empty array, its `]`).
    Value,
    /// After a value: `,` or the closing bracket of the innermost container.
    Next,
    /// Inside a delimited string (streamed).
    Str,
    /// The top-level `}` was read: the closer should follow.
    AfterCall,
    /// The body broke the syntax: raw text into the arguments up to the closer; the call is invalid.
    Raw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// The tool-call parser of FunctionGemma and Gemma 4; see the module docs.
#[derive(Clone, Debug)]
pub struct GemmaToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    syntax: &'static CallSyntax,
    state: State,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    /// The open call's name (for schema lookups).
    function: String,
    /// The last top-level key (for schema lookups).
    key: String,
    /// Open containers, innermost last, with how many members each has so far.
    stack: Vec<(Container, usize)>,
    /// A streamed string delta, escaped: written as one fragment rather than a piece per escape.
    escaped: String,
}

impl GemmaToolParser {
    /// A parser for one request.
    pub fn new(syntax: &'static CallSyntax, options: &ParseOptions) -> Self {
        GemmaToolParser {
            carry: Carry::new(),
            machine: Machine {
                syntax,
                state: State::Content,
                calls: Calls::new(options).with_turn_starts(syntax.turn_starts),
                tools: options.tools.clone(),
                function: String::new(),
                key: String::new(),
                stack: Vec::new(),
                escaped: String::new(),
            },
        }
    }
}

impl ToolParser for GemmaToolParser {
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
        match m.state {
            // Only the closer is missing: the arguments are complete.
            State::AfterCall => m.calls.end(out, true),
            _ => m.calls.end(out, false),
        }
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        let syntax: &'static CallSyntax = self.machine.syntax;
        std::slice::from_ref(&syntax.opener)
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content
            || self.carry.held().starts_with(self.machine.syntax.opener)
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
        if self.state != State::Str || self.syntax.string_end.may_contain_marker(text) {
            return false;
        }
        // The same argument text as `escape_json_each` piece by piece, in one write (a delta of a
        // long string argument with a newline or a quote would otherwise be three or more).
        if text.bytes().any(needs_escape) {
            self.escaped.clear();
            escape_json_into(text, &mut self.escaped);
            self.calls.args(out, &self.escaped);
        } else {
            self.calls.args(out, text);
        }
        true
    }
}

/// What a bounded head turned out to be.
enum Head<'t> {
    /// Not decided yet: hold the text.
    NeedMore,
    /// Complete: the name (or key, or value) and the length of the head.
    Complete(&'t str, usize),
    /// Not one.
    Not,
}

impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed (the rest is held).
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let syntax = self.syntax;
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    let step = self
                        .calls
                        .scan_content(out, rest, eof, syntax.content, Some(DROP));
                    let at = match step {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, .. } => at,
                    };
                    match call_head(&rest[at + syntax.opener.len()..], eof) {
                        Head::NeedMore => return pos + at,
                        Head::Complete(name, len) => {
                            self.calls.start(out, name, None);
                            self.function.replace_range(.., name);
                            self.stack.clear();
                            self.open(out, Container::Object);
                            pos += at + syntax.opener.len() + len;
                        }
                        Head::Not => {
                            self.calls.content(out, &rest[at..at + syntax.opener.len()]);
                            pos += at + syntax.opener.len();
                        }
                    }
                }
                State::Key => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let after = &rest[ws..];
                    if after.is_empty() {
                        return self.pending(out, pos, after, eof);
                    }
                    if after.starts_with('}') {
                        // `{}`, or a trailing comma before the `}`.
                        pos += 1;
                        self.close(out);
                        continue;
                    }
                    let head = match literal_at(after, &[syntax.delimiter], eof) {
                        Literal::Whole(len) => quoted_key(after, len, syntax.delimiter, eof),
                        Literal::Partial => Head::NeedMore,
                        Literal::No => bare_key(after, eof),
                    };
                    match head {
                        Head::NeedMore if !eof => return pos,
                        Head::Complete(key, len) => {
                            self.member(out);
                            self.calls.args(out, "\"");
                            escape_json_each(key, |piece| self.calls.args(out, piece));
                            self.calls.args(out, "\": ");
                            if self.stack.len() == 1 {
                                self.key.replace_range(.., key);
                            }
                            pos += len;
                            self.state = State::Value;
                        }
                        _ => self.state = State::Raw,
                    }
                }
                State::Value => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let after = &rest[ws..];
                    if after.is_empty() {
                        return self.pending(out, pos, after, eof);
                    }
                    let in_array = self.top() == Some(Container::Array);
                    match after.as_bytes()[0] {
                        b']' if in_array && self.members() == 0 => {
                            pos += 1;
                            self.close(out);
                            continue;
                        }
                        b'{' | b'[' if self.stack.len() >= MAX_JSON_DEPTH => {
                            self.state = State::Raw;
                            continue;
                        }
                        b'{' => {
                            self.array_member(out);
                            pos += 1;
                            self.open(out, Container::Object);
                            continue;
                        }
                        b'[' => {
                            self.array_member(out);
                            pos += 1;
                            self.open(out, Container::Array);
                            continue;
                        }
                        _ => {}
                    }
                    match literal_at(after, &[syntax.delimiter], eof) {
                        Literal::Whole(len) => {
                            self.array_member(out);
                            self.calls.args(out, "\"");
                            pos += len;
                            self.state = State::Str;
                        }
                        Literal::Partial => return pos,
                        Literal::No => match bare_value(after, eof) {
                            Head::NeedMore => return pos,
                            Head::Complete(value, len) => {
                                self.array_member(out);
                                self.bare(out, value);
                                pos += len;
                                self.state = State::Next;
                            }
                            Head::Not => self.state = State::Raw,
                        },
                    }
                }
                State::Next => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let after = &rest[ws..];
                    if after.is_empty() {
                        return self.pending(out, pos, after, eof);
                    }
                    match (after.as_bytes()[0], self.top()) {
                        (b',', Some(Container::Object)) => {
                            pos += 1;
                            self.state = State::Key;
                        }
                        (b',', Some(Container::Array)) => {
                            pos += 1;
                            self.state = State::Value;
                        }
                        (b'}', Some(Container::Object)) | (b']', Some(Container::Array)) => {
                            pos += 1;
                            self.close(out);
                        }
                        // A member without its comma (`a:<escape>x<escape>b:1`, as vLLM's
                        // FunctionGemma tests stream it): the next key, if it is one.
                        (_, Some(Container::Object)) => self.state = State::Key,
                        _ => self.state = State::Raw,
                    }
                }
                State::Str => match syntax.string_end.find(rest, eof) {
                    None => {
                        escape_json_each(rest, |piece| self.calls.args(out, piece));
                        if eof {
                            // Cut off inside a string.
                            self.calls.end(out, false);
                            self.state = State::Content;
                        }
                        return text.len();
                    }
                    Some(Found::Partial { start }) => {
                        escape_json_each(&rest[..start], |piece| self.calls.args(out, piece));
                        return pos + start;
                    }
                    Some(Found::Marker {
                        start, end, group, ..
                    }) => {
                        escape_json_each(&rest[..start], |piece| self.calls.args(out, piece));
                        if group == 0 {
                            self.calls.args(out, "\"");
                            pos += end;
                            self.state = State::Next;
                        } else {
                            // The closer inside a string: the string lost its delimiter.
                            pos += end;
                            self.calls.end(out, false);
                            self.state = State::Content;
                        }
                    }
                },
                State::AfterCall => {
                    // Whitespace before the closer is held (within the bound): it is content's when
                    // no closer follows.
                    let ws = leading_ws(rest);
                    let after = &rest[ws..];
                    match literal_at(after, &[syntax.closer], eof) {
                        Literal::Whole(len) => {
                            pos += ws + len;
                            self.calls.end(out, true);
                            self.state = State::Content;
                        }
                        // Undecided (nothing yet, or a prefix of the closer): wait.
                        Literal::Partial if ws <= HEAD_LIMIT => return pos,
                        _ => {
                            // Only the closer is missing; what follows is content's.
                            self.calls.end(out, true);
                            self.state = State::Content;
                        }
                    }
                }
                State::Raw => {
                    let found = syntax.raw_end.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.calls.args(out, &rest[..stop]);
                    let Some(Found::Marker { end, group, .. }) = found else {
                        if eof {
                            self.calls.end(out, false);
                            self.state = State::Content;
                        }
                        return pos + stop;
                    };
                    self.calls.end(out, false);
                    pos += if group == 0 { end } else { stop };
                    self.state = State::Content;
                }
            }
        }
    }

    /// Nothing left to read inside a call's body: wait, or at the end of the output end the call,
    /// flagged invalid (`held` is any undecided text, written raw).
    fn pending(&mut self, out: &mut dyn Sink, pos: usize, held: &str, eof: bool) -> usize {
        if eof {
            self.calls.args(out, held);
            self.calls.end(out, false);
            self.state = State::Content;
            return pos + held.len();
        }
        pos
    }

    fn top(&self) -> Option<Container> {
        self.stack.last().map(|(container, _)| *container)
    }

    fn members(&self) -> usize {
        self.stack.last().map_or(0, |(_, members)| *members)
    }

    /// Counts a new member of the innermost container, writing the separator before it.
    fn member(&mut self, out: &mut dyn Sink) {
        if let Some((_, members)) = self.stack.last_mut() {
            *members += 1;
            if *members > 1 {
                self.calls.args(out, ", ");
            }
        }
    }

    /// A value starts: in an array it is a new member (in an object its key was).
    fn array_member(&mut self, out: &mut dyn Sink) {
        if self.top() == Some(Container::Array) {
            self.member(out);
        }
    }

    fn open(&mut self, out: &mut dyn Sink, container: Container) {
        self.calls.args(
            out,
            if container == Container::Object {
                "{"
            } else {
                "["
            },
        );
        self.stack.push((container, 0));
        self.state = if container == Container::Object {
            State::Key
        } else {
            State::Value
        };
    }

    fn close(&mut self, out: &mut dyn Sink) {
        if let Some((container, _)) = self.stack.pop() {
            self.calls.args(
                out,
                if container == Container::Object {
                    "}"
                } else {
                    "]"
                },
            );
        }
        self.state = if self.stack.is_empty() {
            State::AfterCall
        } else {
            State::Next
        };
    }

    /// Writes a bare value: typed by the schema when it is a top-level argument the schema types,
    /// else kept when it is JSON and a string when it is not.
    fn bare(&mut self, out: &mut dyn Sink, value: &str) {
        let typed = match (&self.tools, self.stack.len()) {
            (Some(tools), 1) => tools.param_type(&self.function, &self.key),
            _ => None,
        };
        let json = typed.unwrap_or(&ValueType::Any).coerce(value);
        self.calls.args(out, &json);
    }
}

/// Reads `call:NAME{` (after the opener): whitespace, `call:`, the name (trimmed), `{`. Decided within
/// [`HEAD_LIMIT`].
fn call_head(text: &str, eof: bool) -> Head<'_> {
    const CALL: &str = "call:";
    let lead = leading_ws(text);
    let after = &text[lead..];
    match literal_at(after, &[CALL], eof) {
        _ if lead > HEAD_LIMIT => return Head::Not,
        Literal::Whole(_) => {}
        Literal::Partial => return Head::NeedMore,
        Literal::No => return Head::Not,
    }
    let body = &after[CALL.len()..];
    let window = &body[..floor_boundary(body, HEAD_LIMIT.min(body.len()))];
    let Some(at) = window.find(|c: char| !is_name_char(c)) else {
        return if eof || body.len() >= HEAD_LIMIT {
            Head::Not
        } else {
            Head::NeedMore
        };
    };
    let name = &body[..at];
    let ws = leading_ws(&body[at..]);
    let next = &body[at + ws..];
    if name.is_empty() || lead + at + ws > HEAD_LIMIT {
        return Head::Not;
    }
    match next.as_bytes().first() {
        Some(b'{') => Head::Complete(name, lead + CALL.len() + at + ws + 1),
        None if !eof => Head::NeedMore,
        _ => Head::Not,
    }
}

/// A function name's characters: anything but whitespace and the syntax's punctuation.
fn is_name_char(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            '{' | '}' | '[' | ']' | '(' | ')' | ',' | ':' | '<' | '>' | '"'
        )
}

/// A bare key up to its `:`, trimmed; it holds none of the syntax's punctuation.
fn bare_key(text: &str, eof: bool) -> Head<'_> {
    let window = &text[..floor_boundary(text, HEAD_LIMIT.min(text.len()))];
    let Some(at) = window.find([':', '{', '}', '[', ']', ',', '<', '"']) else {
        return if eof || text.len() >= HEAD_LIMIT {
            Head::Not
        } else {
            Head::NeedMore
        };
    };
    let key = text[..at].trim();
    if text.as_bytes()[at] != b':' || key.is_empty() {
        return Head::Not;
    }
    Head::Complete(key, at + 1)
}

/// A key between delimiters, then whitespace and `:`.
fn quoted_key<'t>(text: &'t str, open: usize, delimiter: &str, eof: bool) -> Head<'t> {
    let inner = &text[open..];
    let window = &inner[..floor_boundary(inner, (HEAD_LIMIT + delimiter.len()).min(inner.len()))];
    let Some(at) = window.find(delimiter) else {
        return if eof || inner.len() >= HEAD_LIMIT + delimiter.len() {
            Head::Not
        } else {
            Head::NeedMore
        };
    };
    let after = &inner[at + delimiter.len()..];
    let ws = leading_ws(after);
    if ws > HEAD_LIMIT {
        return Head::Not;
    }
    match after.as_bytes().get(ws) {
        Some(b':') if at > 0 => Head::Complete(&inner[..at], open + at + delimiter.len() + ws + 1),
        None if !eof => Head::NeedMore,
        _ => Head::Not,
    }
}

/// A bare value up to (not including) `,`, `}`, `]` or `<`, trimmed.
fn bare_value(text: &str, eof: bool) -> Head<'_> {
    let window = &text[..floor_boundary(text, HEAD_LIMIT.min(text.len()))];
    let Some(at) = window.find([',', '}', ']', '<']) else {
        return if eof || text.len() >= HEAD_LIMIT {
            Head::Not
        } else {
            Head::NeedMore
        };
    };
    let value = text[..at].trim();
    if value.is_empty() {
        return Head::Not;
    }
    Head::Complete(value, at)
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
