//! JSON helpers: an incremental, validating boundary scanner and string escaping.
//!
//! Arguments are streamed as the raw text the model wrote; this scanner only says where the JSON value
//! ends and whether it is valid, so the text is never re-serialised (serde_json would reorder keys and turn
//! big integers into floats).

/// Where a JSON value stands after the bytes fed so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonStatus {
    /// Valid so far; more bytes are needed.
    Partial,
    /// One complete, valid value.
    Complete,
    /// Not JSON (or, for an object scanner, not an object).
    Invalid,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    Hex(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Number {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl Number {
    fn can_end(self) -> bool {
        matches!(
            self,
            Number::Zero | Number::Int | Number::Frac | Number::Exp
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    Value,
    ArrayFirst,
    ObjectFirst,
    Key,
    Colon,
    After,
    Str { key: bool, escape: Escape },
    Literal { word: &'static [u8], at: u8 },
    Num(Number),
    Done,
    Failed,
}

/// Bytes that end a plain run inside a JSON string: quote, backslash, control characters.
static STRING_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// [`JsonScanner::take_string_run`]'s states: 0 plain, 1 after a backslash, 2 to 5 inside `\uXXXX`
/// with 4 to 1 digits to come, [`RUN_OUT`] the string ended or broke (it absorbs; row 7 is unused).
const RUN_OUT: u8 = 6;

/// The next state of a string run, shifted to index the table again: `STRING_RUN[state << 8 |
/// byte] >> 8` (a step is then one `|` and one load).
static STRING_RUN: [u16; 8 << 8] = {
    let mut next = [RUN_OUT; 8 << 8];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        next[b] = if c == b'\\' {
            1
        } else if STRING_SPECIAL[b] {
            RUN_OUT
        } else {
            0
        };
        next[1 << 8 | b] = match c {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 0,
            b'u' => 2,
            _ => RUN_OUT,
        };
        let mut state = 2;
        while state <= 5 {
            if c.is_ascii_hexdigit() {
                next[state << 8 | b] = if state == 5 { 0 } else { state as u8 + 1 };
            }
            state += 1;
        }
        b += 1;
    }
    let mut table = [0u16; 8 << 8];
    let mut at = 0;
    while at < 8 << 8 {
        table[at] = (next[at] as u16) << 8;
        at += 1;
    }
    table
};

#[inline(always)]
fn run_state(escape: Escape) -> u8 {
    match escape {
        Escape::None => 0,
        Escape::Backslash => 1,
        Escape::Hex(left) => 6 - left.clamp(1, 4),
    }
}

#[inline(always)]
fn run_escape(run: u8) -> Option<Escape> {
    match run {
        0 => Some(Escape::None),
        1 => Some(Escape::Backslash),
        2..=5 => Some(Escape::Hex(6 - run)),
        _ => None,
    }
}

/// The deepest nesting a [`JsonScanner`] accepts; one level deeper is [`JsonStatus::Invalid`].
pub const MAX_JSON_DEPTH: usize = 512;

/// An incremental JSON scanner: feed it bytes as they arrive; it validates the grammar (RFC 8259), tracks
/// strings, escapes and nesting (up to [`MAX_JSON_DEPTH`] levels), and reports the byte where the value ends.
///
/// ```
/// use parser_core::{JsonScanner, JsonStatus};
/// let mut json = JsonScanner::object();
/// assert_eq!(json.feed(r#"{"code": "if (a) { b(\"}\"); }""#), (31, JsonStatus::Partial));
/// // The closing brace inside the string did not end the value; this one does.
/// assert_eq!(json.feed("}<｜tool▁call▁end｜>"), (1, JsonStatus::Complete));
/// ```
#[derive(Clone, Debug)]
pub struct JsonScanner {
    stack: Vec<u8>,
    state: State,
    object_only: bool,
}

impl Default for JsonScanner {
    fn default() -> Self {
        Self::any()
    }
}

impl JsonScanner {
    /// A scanner for any JSON value.
    pub fn any() -> Self {
        JsonScanner {
            stack: Vec::new(),
            state: State::Start,
            object_only: false,
        }
    }

    /// A scanner that accepts only an object at the top level (tool-call arguments).
    pub fn object() -> Self {
        JsonScanner {
            object_only: true,
            ..Self::any()
        }
    }

    /// Starts over, keeping the allocated nesting stack.
    pub fn reset(&mut self) {
        self.stack.clear();
        self.state = State::Start;
    }

    /// The status after the bytes fed so far.
    pub fn status(&self) -> JsonStatus {
        match self.state {
            State::Done => JsonStatus::Complete,
            State::Failed => JsonStatus::Invalid,
            _ => JsonStatus::Partial,
        }
    }

    /// Inside a string, feeds `text` when all of it stays inside the string (plain bytes and complete or
    /// pending escapes) and returns `true`, as [`feed`](Self::feed) would have consumed it; otherwise
    /// (not in a string, or `text` closes it or breaks it) changes nothing and returns `false`. The
    /// common delta of a long string argument, without the state machine.
    #[inline(always)]
    pub fn take_string_run(&mut self, text: &str) -> bool {
        let State::Str { key, escape } = self.state else {
            return false;
        };
        // One table step per byte (no branch per byte): `RUN_OUT` absorbs whatever ends or breaks
        // the string, so it is checked once at the end.
        let mut run = usize::from(run_state(escape)) << 8;
        for &c in text.as_bytes() {
            // `run` is a state shifted by 8 (below 8 << 8): the mask only proves the index in bounds.
            run = usize::from(STRING_RUN[(run | usize::from(c)) & ((8 << 8) - 1)]);
        }
        let Some(escape) = run_escape((run >> 8) as u8) else {
            return false;
        };
        self.state = State::Str { key, escape };
        true
    }

    /// True inside a string just after the backslash of an escape (the next byte is escaped).
    #[inline]
    pub fn after_backslash(&self) -> bool {
        matches!(
            self.state,
            State::Str {
                escape: Escape::Backslash,
                ..
            }
        )
    }

    /// True while nothing but whitespace has been fed.
    pub fn is_untouched(&self) -> bool {
        self.state == State::Start
    }

    /// Feeds `text` and returns how many bytes belong to the value, and the status.
    ///
    /// On `Complete` the count ends just after the value's last byte; on `Invalid` it is the offending
    /// byte; on `Partial` it is `text.len()`. Feeding after `Complete` or `Invalid` consumes nothing.
    pub fn feed(&mut self, text: &str) -> (usize, JsonStatus) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            match self.state {
                State::Done | State::Failed => break,
                State::Start => {
                    if !is_ws(c) {
                        if self.object_only && c != b'{' {
                            self.state = State::Failed;
                            break;
                        }
                        self.value_start(c);
                        if self.state == State::Failed {
                            break;
                        }
                    }
                    i += 1;
                }
                State::Value => {
                    if !is_ws(c) {
                        self.value_start(c);
                        if self.state == State::Failed {
                            break;
                        }
                    }
                    i += 1;
                }
                State::ArrayFirst => {
                    if c == b']' {
                        self.stack.pop();
                        self.value_done();
                    } else if !is_ws(c) {
                        self.value_start(c);
                        if self.state == State::Failed {
                            break;
                        }
                    }
                    i += 1;
                }
                State::ObjectFirst | State::Key => {
                    if c == b'"' {
                        self.state = State::Str {
                            key: true,
                            escape: Escape::None,
                        };
                    } else if c == b'}' && self.state == State::ObjectFirst {
                        self.stack.pop();
                        self.value_done();
                    } else if !is_ws(c) {
                        self.state = State::Failed;
                        break;
                    }
                    i += 1;
                }
                State::Colon => {
                    if c == b':' {
                        self.state = State::Value;
                    } else if !is_ws(c) {
                        self.state = State::Failed;
                        break;
                    }
                    i += 1;
                }
                State::After => {
                    match (c, self.stack.last()) {
                        (b',', Some(b'{')) => self.state = State::Key,
                        (b',', Some(b'[')) => self.state = State::Value,
                        (b'}', Some(b'{')) | (b']', Some(b'[')) => {
                            self.stack.pop();
                            self.value_done();
                        }
                        _ if is_ws(c) => {}
                        _ => {
                            self.state = State::Failed;
                            break;
                        }
                    }
                    i += 1;
                }
                State::Str {
                    key,
                    escape: Escape::None,
                } => {
                    // Fast path: plain string bytes.
                    let run = bytes[i..]
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                        .unwrap_or(bytes.len() - i);
                    i += run;
                    if i == bytes.len() {
                        break;
                    }
                    match bytes[i] {
                        b'"' => {
                            if key {
                                self.state = State::Colon;
                            } else {
                                self.value_done();
                            }
                        }
                        b'\\' => {
                            self.state = State::Str {
                                key,
                                escape: Escape::Backslash,
                            }
                        }
                        _ => {
                            self.state = State::Failed;
                            break;
                        }
                    }
                    i += 1;
                }
                State::Str {
                    key,
                    escape: Escape::Backslash,
                } => {
                    self.state = match c {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => State::Str {
                            key,
                            escape: Escape::None,
                        },
                        b'u' => State::Str {
                            key,
                            escape: Escape::Hex(4),
                        },
                        _ => State::Failed,
                    };
                    if self.state == State::Failed {
                        break;
                    }
                    i += 1;
                }
                State::Str {
                    key,
                    escape: Escape::Hex(left),
                } => {
                    if !c.is_ascii_hexdigit() {
                        self.state = State::Failed;
                        break;
                    }
                    let escape = if left == 1 {
                        Escape::None
                    } else {
                        Escape::Hex(left - 1)
                    };
                    self.state = State::Str { key, escape };
                    i += 1;
                }
                State::Literal { word, at } => {
                    if c != word[at as usize] {
                        self.state = State::Failed;
                        break;
                    }
                    if at as usize + 1 == word.len() {
                        self.value_done();
                    } else {
                        self.state = State::Literal { word, at: at + 1 };
                    }
                    i += 1;
                }
                State::Num(n) => {
                    let next = match (n, c) {
                        (Number::Minus, b'0') => Some(Number::Zero),
                        (Number::Minus, b'1'..=b'9') => Some(Number::Int),
                        (Number::Int, b'0'..=b'9') => Some(Number::Int),
                        (Number::Zero | Number::Int, b'.') => Some(Number::Dot),
                        (Number::Dot | Number::Frac, b'0'..=b'9') => Some(Number::Frac),
                        (Number::Zero | Number::Int | Number::Frac, b'e' | b'E') => Some(Number::E),
                        (Number::E, b'+' | b'-') => Some(Number::ESign),
                        (Number::E | Number::ESign | Number::Exp, b'0'..=b'9') => Some(Number::Exp),
                        _ => None,
                    };
                    match next {
                        Some(n) => {
                            self.state = State::Num(n);
                            i += 1;
                        }
                        None if n.can_end() => {
                            // The number ended before this byte; look at the byte again.
                            self.value_done();
                            if self.state == State::Done {
                                break;
                            }
                        }
                        None => {
                            self.state = State::Failed;
                            break;
                        }
                    }
                }
            }
        }
        (i, self.status())
    }

    /// Ends the input: a top-level number that was still open completes; anything else open stays
    /// `Partial` (truncated).
    pub fn finish(&mut self) -> JsonStatus {
        if let State::Num(n) = self.state
            && n.can_end()
            && self.stack.is_empty()
        {
            self.state = State::Done;
        }
        self.status()
    }

    fn value_start(&mut self, c: u8) {
        if matches!(c, b'{' | b'[') && self.stack.len() >= MAX_JSON_DEPTH {
            // Deeper than any parser downstream accepts (serde_json stops at 128): not valid JSON for
            // our purposes, and the nesting stack stays bounded on hostile input.
            self.state = State::Failed;
            return;
        }
        self.state = match c {
            b'{' => {
                self.stack.push(b'{');
                State::ObjectFirst
            }
            b'[' => {
                self.stack.push(b'[');
                State::ArrayFirst
            }
            b'"' => State::Str {
                key: false,
                escape: Escape::None,
            },
            b't' => State::Literal {
                word: b"true",
                at: 1,
            },
            b'f' => State::Literal {
                word: b"false",
                at: 1,
            },
            b'n' => State::Literal {
                word: b"null",
                at: 1,
            },
            b'-' => State::Num(Number::Minus),
            b'0' => State::Num(Number::Zero),
            b'1'..=b'9' => State::Num(Number::Int),
            _ => State::Failed,
        };
    }

    fn value_done(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::After
        };
    }
}

/// JSON whitespace.
pub fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The length of the run of JSON whitespace at the start of `text`.
pub fn leading_ws(text: &str) -> usize {
    text.bytes().take_while(|&b| is_ws(b)).count()
}

/// How many bytes of `text` fit beside `held` bytes already buffered without passing `limit`, cut at a
/// character boundary.
///
/// For readers that must buffer text before they can decide ([`crate::Limits`]): they read only this
/// much, and when it is zero they stop waiting. The answer depends only on the bytes buffered, not on how
/// they arrived, so every chunking reaches the limit at the same byte.
///
/// ```
/// use parser_core::fit_within;
/// assert_eq!(fit_within("abcdef", 2, 5), 3);
/// assert_eq!(fit_within("é", 4, 5), 0); // two bytes do not fit in one
/// assert_eq!(fit_within("abc", 9, 5), 0);
/// ```
pub fn fit_within(text: &str, held: usize, limit: usize) -> usize {
    let mut room = limit.saturating_sub(held).min(text.len());
    while !text.is_char_boundary(room) {
        room -= 1;
    }
    room
}

/// Where `needle` starts in `text`, if it starts within the first `limit` bytes.
///
/// For reading a bounded head (a call id, a name, a tag): decided on the text seen so far only, so that
/// every chunking of the same output decides alike.
pub fn find_within(text: &str, needle: &str, limit: usize) -> Option<usize> {
    let mut end = text.len().min(limit.saturating_add(needle.len()));
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].find(needle)
}

/// The length of the longest proper prefix of `marker` that `text` ends with: how much of `text` must
/// be held back because the next delta may complete `marker` there.
///
/// ```
/// use parser_core::partial_suffix;
///
/// assert_eq!(partial_suffix("value<|se", "<|sep|>"), 4);
/// assert_eq!(partial_suffix("value", "<|sep|>"), 0);
/// // A whole marker is not a partial one.
/// assert_eq!(partial_suffix("<|sep|>", "<|sep|>"), 0);
/// ```
pub fn partial_suffix(text: &str, marker: &str) -> usize {
    (1..marker.len().min(text.len() + 1))
        .rev()
        .find(|&len| text.is_char_boundary(text.len() - len) && text.ends_with(&marker[..len]))
        .unwrap_or(0)
}

/// Appends `text` to `out` as the inside of a JSON string (quotes not included).
///
/// Only `"`, `\` and control characters are escaped; everything else, non-ASCII included, is kept as is.
pub fn escape_json_into(text: &str, out: &mut String) {
    // As `escape_json_each`, with each escape written as characters rather than as a piece: a
    // streamed delta is a few bytes, where a copy call per piece costs more than the bytes.
    let bytes = text.as_bytes();
    let mut plain_from = 0;
    for (at, &b) in bytes.iter().enumerate() {
        if !needs_escape(b) {
            continue;
        }
        // Only ASCII bytes are ever escaped, so every cut below is a character boundary.
        if plain_from < at {
            out.push_str(&text[plain_from..at]);
        }
        out.push('\\');
        match short_escape(b) {
            Some(letter) => out.push(char::from(letter)),
            None => {
                out.push_str("u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 15)]));
            }
        }
        plain_from = at + 1;
    }
    if plain_from < text.len() {
        out.push_str(&text[plain_from..]);
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The letter of the two-character JSON escape of `b` (`"` → `\"`, newline → `\n`), `None` for a
/// control character written `\u00XX`. Only for bytes that [`needs_escape`].
fn short_escape(b: u8) -> Option<u8> {
    match b {
        b'"' | b'\\' => Some(b),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        _ => None,
    }
}

/// Escapes `text` as the inside of a JSON string, handing the result to `emit` in pieces: runs of text
/// that need no escape, borrowed from `text`, and escape sequences. Nothing is allocated.
///
/// ```
/// let mut pieces = Vec::new();
/// parser_core::escape_json_each("say \"hi\"\n北京", |p| pieces.push(p.to_owned()));
/// assert_eq!(pieces.concat(), r#"say \"hi\"\n北京"#);
/// ```
pub fn escape_json_each(text: &str, mut emit: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut plain_from = 0;
    let mut short = [b'\\', b'"'];
    let mut unicode = [b'\\', b'u', b'0', b'0', b'0', b'0'];
    for (at, &b) in bytes.iter().enumerate() {
        if !needs_escape(b) {
            continue;
        }
        // Only ASCII bytes are ever escaped, so every cut below is a character boundary.
        let escaped: &str = match short_escape(b) {
            Some(letter) => {
                short[1] = letter;
                std::str::from_utf8(&short).unwrap_or("")
            }
            None => {
                unicode[4] = HEX[(b >> 4) as usize];
                unicode[5] = HEX[(b & 15) as usize];
                std::str::from_utf8(&unicode).unwrap_or("")
            }
        };
        if plain_from < at {
            emit(&text[plain_from..at]);
        }
        emit(escaped);
        plain_from = at + 1;
    }
    if plain_from < text.len() {
        emit(&text[plain_from..]);
    }
}

/// True for the bytes a JSON string must escape: `"`, `\` and control characters.
pub fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// True when no byte of `text` [needs an escape](needs_escape): inside a JSON string, `text` is plain
/// string content, which neither ends the string nor starts an escape.
///
/// ```
/// use parser_core::is_plain_string_text;
/// assert!(is_plain_string_text("fn main() { 北京 }"));
/// assert!(!is_plain_string_text("say \"hi\""));
/// assert!(!is_plain_string_text("a\\n"));
/// assert!(!is_plain_string_text("tab\there"));
/// ```
#[inline]
pub fn is_plain_string_text(text: &str) -> bool {
    !text.bytes().any(|b| STRING_SPECIAL[usize::from(b)])
}

/// True when `text` is exactly one valid JSON object (surrounding whitespace allowed).
pub fn is_json_object(text: &str) -> bool {
    let mut json = JsonScanner::object();
    let (used, status) = json.feed(text);
    status == JsonStatus::Complete && text[used..].bytes().all(is_ws)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    /// `take_string_run` takes a piece exactly when `feed` would consume all of it and stay inside the
    /// string, and then leaves the scanner as `feed` would: every piece of every split of objects with
    /// escapes, closing quotes and broken escapes.
    #[test]
    fn take_string_run_agrees_with_feed() {
        let objects = [
            r#"{"content": "fn main() {\n    let a = \"x\";\t\\ \u00e9\u4EAC end", "k": 1}"#,
            r#"{"a": "bad \q escape"}"#,
            r#"{"a": "bad \u12G4 hex"}"#,
            "{\"a\": \"caf\u{e9} \u{5317}\u{4eac}\"}",
        ];
        for object in objects {
            for start in 0..object.len() {
                for end in start..=object.len() {
                    if !object.is_char_boundary(start) || !object.is_char_boundary(end) {
                        continue;
                    }
                    let mut before = JsonScanner::object();
                    before.feed(&object[..start]);
                    let piece = &object[start..end];
                    let mut fed = before.clone();
                    let (used, status) = fed.feed(piece);
                    let stays = used == piece.len()
                        && status == JsonStatus::Partial
                        && matches!(before.state, State::Str { .. })
                        && matches!(fed.state, State::Str { .. });
                    let mut taken = before.clone();
                    let took = taken.take_string_run(piece);
                    // A piece that closes a string and opens another stays "in a string" for `feed`;
                    // `take_string_run` declines it, which is always allowed.
                    if took {
                        assert!(stays, "{object:?} {start}..{end}");
                        assert_eq!(taken.state, fed.state, "{object:?} {start}..{end}");
                    } else {
                        assert_eq!(taken.state, before.state);
                        assert!(
                            !stays || piece.contains('"'),
                            "declined a run {piece:?} of {object:?}"
                        );
                    }
                }
            }
        }
    }

    // Nesting is bounded: MAX_JSON_DEPTH levels are JSON, one more is not, and the stack never grows
    // past the bound however many brackets follow.
    #[test]
    fn nesting_deeper_than_the_bound_is_invalid() {
        let deepest = format!(
            "{}{}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        assert_eq!(JsonScanner::any().feed(&deepest).1, JsonStatus::Complete);
        let mut json = JsonScanner::any();
        let (_, status) = json.feed(&"[{\"a\":".repeat(100_000));
        assert_eq!(status, JsonStatus::Invalid);
        assert!(json.stack.capacity() <= 2 * MAX_JSON_DEPTH);
    }

    fn whole(text: &str) -> JsonStatus {
        let mut json = JsonScanner::any();
        let (used, status) = json.feed(text);
        if status == JsonStatus::Complete && !text[used..].bytes().all(is_ws) {
            return JsonStatus::Invalid;
        }
        if status == JsonStatus::Partial {
            json.finish()
        } else {
            status
        }
    }

    // The scanner agrees with serde_json on valid and invalid documents.
    #[rstest]
    #[case(r#"{}"#)]
    #[case(r#"{"a": 1, "b": [true, false, null], "c": {"d": "e\"f\\g\u00e9"}}"#)]
    #[case(r#"[1, -0.5e+10, 2E3, 0, -0]"#)]
    #[case(r#""plain""#)]
    #[case(r#"123456789012345678901234567890"#)]
    #[case(r#"{"emoji": "😀", "cjk": "北京"}"#)]
    #[case(r#"{invalid json}"#)]
    #[case(r#"{"a": tru}"#)]
    #[case(r#"{"a": 01}"#)]
    #[case(r#"{"a": 1,}"#)]
    #[case(r#"{"a" 1}"#)]
    #[case(r#"{"a": "x\q"}"#)]
    #[case("{\"a\": \"line\nbreak\"}")]
    #[case(r#"[1 2]"#)]
    #[case(r#"{"a": -}"#)]
    #[case(r#"{"a": 1.}"#)]
    #[case(r#"{"a": "\u12G4"}"#)]
    fn agrees_with_serde_json(#[case] text: &str) {
        let expected = serde_json::from_str::<serde_json::Value>(text).is_ok();
        assert_eq!(whole(text) == JsonStatus::Complete, expected, "{text}");
    }

    // Feeding one byte at a time gives the same boundary as feeding everything at once.
    #[test]
    fn byte_by_byte_equals_whole() {
        let text = r#"{"path": "C:\\dir\\f.txt", "n": [1, 2.5, {"x": "}"}]} tail"#;
        let mut json = JsonScanner::object();
        let (end, status) = json.feed(text);
        assert_eq!(status, JsonStatus::Complete);
        assert_eq!(&text[end..], " tail");
        let mut json = JsonScanner::object();
        let mut total = 0;
        for (at, c) in text.char_indices() {
            let piece = &text[at..at + c.len_utf8()];
            let (used, status) = json.feed(piece);
            total += used;
            if status == JsonStatus::Complete {
                break;
            }
        }
        assert_eq!(total, end);
    }

    #[test]
    fn object_scanner_rejects_other_values() {
        assert_eq!(JsonScanner::object().feed("[1]").1, JsonStatus::Invalid);
        assert_eq!(JsonScanner::object().feed("  \n{").1, JsonStatus::Partial);
    }

    /// `escape_json_into` writes what `escape_json_each`'s pieces write: every ASCII byte and
    /// multi-byte characters, in texts of a few lengths.
    #[test]
    fn escape_into_writes_what_each_writes() {
        let chars: Vec<char> = (0u8..0x80)
            .map(char::from)
            .chain(['\u{e9}', '\u{5317}', '\u{1F600}', '\u{2028}'])
            .collect();
        for len in [1, 2, 5, 16, 33] {
            for window in chars.windows(len.min(chars.len())) {
                let text: String = window.iter().cycle().take(len).collect();
                let mut into = String::new();
                escape_json_into(&text, &mut into);
                let mut each = String::new();
                escape_json_each(&text, |piece| each.push_str(piece));
                assert_eq!(into, each, "{text:?}");
                let round: String = serde_json::from_str(&format!("\"{into}\"")).unwrap();
                assert_eq!(round, text);
            }
        }
    }

    #[test]
    fn escaping_keeps_unicode_and_escapes_controls() {
        let mut out = String::new();
        escape_json_into("a\"b\\c\nd\u{1}é😀", &mut out);
        assert_eq!(out, "a\\\"b\\\\c\\nd\\u0001é😀");
        let round: String = serde_json::from_str(&format!("\"{out}\"")).unwrap();
        assert_eq!(round, "a\"b\\c\nd\u{1}é😀");
    }
}
