//! PYTHONIC tool calls: `[get_time(city="Paris"), other(a=1)]`, a Python list of calls with keyword
//! arguments written as Python literals.
//!
//! [`kwargs_to_json`] converts one call's argument text (what stands between its parentheses) into a
//! JSON object; the crate's `ArgsScanner` finds where that text ends, Python-aware (quotes of either
//! kind with backslash escapes, nested brackets), one byte at a time so that every chunking decides
//! alike.

use std::fmt::Write as _;

/// Converts one Python literal (`[{'name': 'f', 'arguments': {'a': True}}]`) into its JSON text
/// (`[{"name": "f", "arguments": {"a": true}}]`), with the literals [`kwargs_to_json`] reads; whitespace
/// around it is allowed. Returns `None` when the text is not exactly one such literal.
///
/// ```
/// use parser_generic::pythonic::literal_to_json;
///
/// assert_eq!(
///     literal_to_json("[{'name': 'ping', 'arguments': {'ok': True, 'n': None}}]").as_deref(),
///     Some(r#"[{"name": "ping", "arguments": {"ok": true, "n": null}}]"#)
/// );
/// assert_eq!(literal_to_json("[1, 2] extra"), None);
/// ```
pub fn literal_to_json(text: &str) -> Option<String> {
    let mut p = Reader { text, pos: 0 };
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 16);
    p.ws();
    p.value(&mut out, 0)?;
    p.ws();
    p.done().then_some(out)
}

/// The deepest nesting of lists, tuples and dicts [`kwargs_to_json`] converts (deeper is not valid).
const MAX_DEPTH: usize = 64;

/// Converts Python keyword arguments (`city="Paris", days=3, flags=[True, None]`) into the text of a
/// JSON object (`{"city": "Paris", "days": 3, "flags": [true, null]}`), keys in the order written.
///
/// Values are Python literals: strings in single or double quotes with Python's escapes (`\n`, `\'`,
/// `\xHH`, `\uHHHH`, …; an unknown escape keeps its backslash), integers and floats (underscores, a
/// leading `+`, `.5` and `5.` are normalised; the digits are kept as written, never re-serialised),
/// `True` / `False` / `None` (and JSON's `true` / `false` / `null`), lists and tuples (JSON arrays) and
/// dicts (JSON objects; a non-string key becomes the string of its JSON text), nested up to 64 levels.
/// A trailing comma is allowed. Returns `None` for anything else (positional arguments, expressions,
/// unterminated literals): the caller keeps the raw text and flags the call invalid.
///
/// ```
/// use parser_generic::pythonic::kwargs_to_json;
///
/// assert_eq!(
///     kwargs_to_json(r#"city='Paris', days=3, ok=True"#).as_deref(),
///     Some(r#"{"city": "Paris", "days": 3, "ok": true}"#)
/// );
/// assert_eq!(kwargs_to_json("1, 2"), None);
/// ```
pub fn kwargs_to_json(text: &str) -> Option<String> {
    let mut p = Reader { text, pos: 0 };
    // About as long as the text (a little longer for the `"` around keys): grown once, if at all.
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 16);
    out.push('{');
    let mut first = true;
    loop {
        p.ws();
        if p.done() {
            break;
        }
        let key = p.ident()?;
        p.ws();
        p.eat(b'=')?;
        p.ws();
        if !first {
            out.push_str(", ");
        }
        first = false;
        push_json_string(&mut out, key);
        out.push_str(": ");
        p.value(&mut out, 0)?;
        p.ws();
        if p.done() {
            break;
        }
        p.eat(b',')?;
    }
    out.push('}');
    Some(out)
}

/// A Python literal reader over one call's argument text.
struct Reader<'t> {
    text: &'t str,
    pos: usize,
}

impl<'t> Reader<'t> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn done(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.pos += 1)
    }

    /// A Python identifier (ASCII letters, digits, `_`; not starting with a digit).
    fn ident(&mut self) -> Option<&'t str> {
        let rest = &self.text[self.pos..];
        let len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if len == 0 || rest.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        self.pos += len;
        Some(&rest[..len])
    }

    /// One literal, written to `out` as JSON.
    fn value(&mut self, out: &mut String, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            quote @ (b'"' | b'\'') => self.string(quote, out)?,
            b'[' => self.sequence(out, b']', depth)?,
            b'(' => self.sequence(out, b')', depth)?,
            b'{' => self.dict(out, depth)?,
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(out)?,
            _ => {
                let word = self.ident()?;
                out.push_str(match word {
                    "True" | "true" => "true",
                    "False" | "false" => "false",
                    "None" | "null" => "null",
                    _ => return None,
                });
            }
        }
        Some(())
    }

    /// `[a, b]` or `(a, b)`: a JSON array.
    fn sequence(&mut self, out: &mut String, close: u8, depth: usize) -> Option<()> {
        self.pos += 1;
        out.push('[');
        let mut first = true;
        loop {
            self.ws();
            if self.eat(close).is_some() {
                break;
            }
            if !first {
                out.push_str(", ");
            }
            first = false;
            self.value(out, depth + 1)?;
            self.ws();
            if self.eat(b',').is_none() {
                self.ws();
                self.eat(close)?;
                break;
            }
        }
        out.push(']');
        Some(())
    }

    /// `{k: v}`: a JSON object; a key that is not a string becomes the string of its JSON text.
    fn dict(&mut self, out: &mut String, depth: usize) -> Option<()> {
        self.pos += 1;
        out.push('{');
        let mut first = true;
        loop {
            self.ws();
            if self.eat(b'}').is_some() {
                break;
            }
            if !first {
                out.push_str(", ");
            }
            first = false;
            match self.peek()? {
                quote @ (b'"' | b'\'') => self.string(quote, out)?,
                _ => {
                    let mut key = String::new();
                    self.value(&mut key, depth + 1)?;
                    push_json_string(out, &key);
                }
            }
            self.ws();
            self.eat(b':')?;
            self.ws();
            out.push_str(": ");
            self.value(out, depth + 1)?;
            self.ws();
            if self.eat(b',').is_none() {
                self.ws();
                self.eat(b'}')?;
                break;
            }
        }
        out.push('}');
        Some(())
    }

    /// An integer or a float, normalised to JSON's number syntax with the digits as written.
    fn number(&mut self, out: &mut String) -> Option<()> {
        let rest = &self.text[self.pos..];
        let len = rest
            .bytes()
            .take_while(|b| {
                b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E' | b'_')
            })
            .count();
        let raw = &rest[..len];
        self.pos += len;
        let mut text: String = raw.chars().filter(|&c| c != '_').collect();
        if let Some(unsigned) = text.strip_prefix('+') {
            text = unsigned.to_owned();
        }
        let (sign, body) = match text.strip_prefix('-') {
            Some(body) => ("-", body.to_owned()),
            None => ("", text.clone()),
        };
        let (mantissa, exponent) = match body.find(['e', 'E']) {
            Some(at) => (&body[..at], &body[at..]),
            None => (body.as_str(), ""),
        };
        let mut mantissa = mantissa.to_owned();
        if mantissa.starts_with('.') {
            mantissa.insert(0, '0');
        }
        if mantissa.ends_with('.') {
            mantissa.push('0');
        }
        // Python's integers have no leading zeros (`0` aside); JSON's neither.
        let normalised = format!("{sign}{mantissa}{exponent}");
        match serde_json::from_str::<serde_json::Value>(&normalised) {
            Ok(serde_json::Value::Number(_)) => {
                out.push_str(&normalised);
                Some(())
            }
            _ => None,
        }
    }

    /// A string literal in `quote`s, written to `out` as a JSON string: the text of decoding Python's
    /// escapes and then [`push_json_string`], in one pass. Text up to the next byte that needs a look
    /// (a quote, a backslash, a control character) is copied as one run, and so are the escapes that
    /// Python and JSON write alike (`\"`, `\\`, `\n`, `\r`, `\t`): a long string argument is mostly
    /// such text, so it is copied a run at a time, not a character at a time. No end: not a string
    /// (`out` then holds a part of it; the caller drops the whole conversion).
    fn string(&mut self, quote: u8, out: &mut String) -> Option<()> {
        let rest = &self.text[self.pos + 1..];
        let bytes = rest.as_bytes();
        out.push('"');
        // `rest[copied..at]` is written as it is, once a byte that is not ends the run.
        let mut copied = 0;
        let mut at = 0;
        loop {
            at += plain_run(&bytes[at..]);
            let byte = *bytes.get(at)?;
            if byte == b'\\' {
                // A backslash and what it escapes.
                match bytes.get(at + 1)? {
                    b'"' | b'\\' | b'n' | b'r' | b't' => {
                        at += 2;
                        continue;
                    }
                    _ => {}
                }
                out.push_str(&rest[copied..at]);
                at += 1 + self.escape(&rest[at + 1..], out)?;
                copied = at;
                continue;
            }
            if byte == b'\'' && quote == b'"' {
                at += 1;
                continue;
            }
            out.push_str(&rest[copied..at]);
            at += 1;
            copied = at;
            if byte == quote {
                out.push('"');
                self.pos += 1 + at;
                return Some(());
            }
            // The other string's quote (`"` inside `'…'`) or a control character.
            push_json_byte(out, byte);
        }
    }

    /// Writes what a backslash escapes (`text` starts after the backslash) as JSON, for the escapes
    /// [`string`](Self::string) does not copy as written; returns how many bytes it takes.
    fn escape(&self, text: &str, out: &mut String) -> Option<usize> {
        let mut chars = text.chars();
        let e = chars.next()?;
        let mut used = e.len_utf8();
        let decoded = match e {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '\'' => '\'',
            // A backslash at the end of a line continues the string.
            '\n' => return Some(used),
            'x' | 'u' | 'U' => {
                let digits = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = chars.by_ref().take(digits).collect();
                let code = (hex.len() == digits)
                    .then(|| u32::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .and_then(char::from_u32)?;
                // `digits` ASCII hex digits: as many bytes.
                used += digits;
                code
            }
            // An unknown escape keeps its backslash.
            other => {
                out.push_str("\\\\");
                other
            }
        };
        push_json_char(out, decoded);
        Some(used)
    }
}

/// How many bytes of `bytes` come before the first one [`Reader::string`] looks at: a quote, a
/// backslash or a control character (JSON escapes those). Every other byte, non-ASCII included, is
/// copied as it is. Eight bytes at a time: a long string argument is converted in one pass over
/// mostly such bytes.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each zero byte of `word` is set, and maybe of bytes above a zero byte (a
    // borrow), never below the first one: so the lowest bit set marks the first zero byte.
    let zero_bytes = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // A control byte has its top three bits clear; the others equal theirs.
        let looked = zero_bytes(word & (0xE0 * ONES))
            | zero_bytes(word ^ (u64::from(b'"') * ONES))
            | zero_bytes(word ^ (u64::from(b'\'') * ONES))
            | zero_bytes(word ^ (u64::from(b'\\') * ONES));
        if looked != 0 {
            return at + (looked.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let rest = chunks.remainder();
    at + rest
        .iter()
        .position(|&b| matches!(b, b'"' | b'\'' | b'\\' | 0..0x20))
        .unwrap_or(rest.len())
}

/// Writes `c` as it stands inside a JSON string.
fn push_json_char(out: &mut String, c: char) {
    match u8::try_from(c) {
        Ok(byte) if needs_json_escape(byte) => push_json_byte(out, byte),
        _ => out.push(c),
    }
}

/// True for the bytes a JSON string escapes: `"`, `\` and control characters.
fn needs_json_escape(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// Writes the JSON escape of a byte that [`needs_json_escape`].
fn push_json_byte(out: &mut String, byte: u8) {
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        control => {
            let _ = write!(out, "\\u{:04x}", control);
        }
    }
}

/// Writes `text` as a JSON string.
fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    let mut rest = text;
    // Runs of text that need no escape are copied whole.
    while let Some(at) = rest.bytes().position(needs_json_escape) {
        out.push_str(&rest[..at]);
        push_json_byte(out, rest.as_bytes()[at]);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('"');
}

/// How a byte of a call's argument text ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsStep {
    /// Still inside the arguments.
    Inside,
    /// The call's closing parenthesis.
    Close,
    /// A `]` or `}` with nothing open: the arguments are broken (the byte is not theirs).
    Stray,
}

/// Finds the end of one call's argument text (after its `(`), Python-aware.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgsScanner {
    depth: usize,
    /// The open string's quote, 0 outside strings.
    quote: u8,
    escape: bool,
}

impl ArgsScanner {
    /// Back to the start of a call's arguments.
    pub fn reset(&mut self) {
        *self = ArgsScanner::default();
    }

    /// Inside a string literal (where markup is text).
    pub fn in_string(&self) -> bool {
        self.quote != 0
    }

    /// Inside a string: reads all of `text` and returns `true` when it stays inside that string
    /// (escapes included), as [`step`](Self::step) byte by byte would, and faster; otherwise (not in a
    /// string, or `text` closes it) returns `false` and reads nothing. The common delta of a long
    /// string argument, which a reader can then keep as it is without stepping through it.
    ///
    /// ```
    /// use parser_generic::pythonic::ArgsScanner;
    /// let mut scanner = ArgsScanner::default();
    /// for byte in "a='x".bytes() {
    ///     scanner.step(byte);
    /// }
    /// assert!(scanner.take_string_run("yz \"q\" \\' \\"));
    /// assert!(scanner.take_string_run("'"), "escaped by the backslash before");
    /// assert!(!scanner.take_string_run("y'"));
    /// assert!(scanner.in_string());
    /// ```
    #[inline]
    pub fn take_string_run(&mut self, text: &str) -> bool {
        let quote = self.quote;
        if quote == 0 {
            return false;
        }
        let bytes = text.as_bytes();
        if !self.escape && !bytes.iter().any(|&byte| byte == quote || byte == b'\\') {
            return true;
        }
        let mut escape = self.escape;
        for &byte in bytes {
            if escape {
                escape = false;
            } else if byte == b'\\' {
                escape = true;
            } else if byte == quote {
                return false;
            }
        }
        self.escape = escape;
        true
    }

    /// Reads one byte. Multi-byte characters never match the ASCII bytes looked at here.
    pub fn step(&mut self, byte: u8) -> ArgsStep {
        if self.quote != 0 {
            if self.escape {
                self.escape = false;
            } else if byte == b'\\' {
                self.escape = true;
            } else if byte == self.quote {
                self.quote = 0;
            }
            return ArgsStep::Inside;
        }
        match byte {
            b'"' | b'\'' => self.quote = byte,
            b'(' | b'[' | b'{' => self.depth += 1,
            b')' | b']' | b'}' if self.depth == 0 => {
                return if byte == b')' {
                    ArgsStep::Close
                } else {
                    ArgsStep::Stray
                };
            }
            b')' | b']' | b'}' => self.depth -= 1,
            _ => {}
        }
        ArgsStep::Inside
    }
}

#[cfg(test)]
mod tests {
    use super::{ArgsScanner, ArgsStep, Reader, literal_to_json, plain_run, push_json_string};

    /// Strings convert with every escape Python writes, runs of plain text (ASCII and multi-byte)
    /// between them, control characters and quotes of the other kind.
    #[test]
    fn strings_convert_with_their_escapes() {
        let literal = "{'s': 'a\\n\\t\\r\\0\\a\\b\\f\\v\\x41\\u00e9\\U0001F600 caf\u{e9} \"q\" \\\\ \\' \\q \u{1}', \
                       \"d\": \"it's \\\"x\\\"\", 'e': '', 'c': 'line\\\ncontinued'}";
        let json = literal_to_json(literal).expect("converts");
        let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(
            value["s"],
            "a\n\t\r\0\u{7}\u{8}\u{c}\u{b}A\u{e9}\u{1F600} caf\u{e9} \"q\" \\ ' \\q \u{1}"
        );
        assert_eq!(value["d"], "it's \"x\"");
        assert_eq!(value["e"], "");
        assert_eq!(value["c"], "linecontinued");
        for broken in [
            "{'s': 'open",
            "{'s': 'a\\",
            "{'s': '\\x4'}",
            "{'s': '\\u00zz'}",
        ] {
            assert_eq!(literal_to_json(broken), None, "{broken:?}");
        }
    }

    /// `take_string_run` takes a piece exactly when stepping through it byte by byte stays inside the
    /// string it starts in, and then leaves the scanner where stepping does (else untouched): every
    /// piece of literals with both quotes, escapes of quotes and backslashes, and multi-byte text.
    #[test]
    fn take_string_run_agrees_with_stepping() {
        let literals = [
            "['a \"b\" c', \"it's\", 'x\\'y\\\\', {'k': [1, 'é北']}]",
            "(a='\\\\\\'', b=\"\\\"\", c='\\n\\u00e9\\\n', d=\"\\\\\")",
        ];
        for literal in literals {
            for start in 0..literal.len() {
                for end in start..=literal.len() {
                    if !literal.is_char_boundary(start) || !literal.is_char_boundary(end) {
                        continue;
                    }
                    let mut before = ArgsScanner::default();
                    for byte in literal[..start].bytes() {
                        before.step(byte);
                    }
                    let piece = &literal[start..end];
                    let mut stepped = before.clone();
                    let stays = before.in_string()
                        && piece.bytes().all(|byte| {
                            stepped.step(byte) == ArgsStep::Inside && stepped.in_string()
                        });
                    let mut taken = before.clone();
                    assert_eq!(
                        taken.take_string_run(piece),
                        stays,
                        "{literal:?} {start}..{end}"
                    );
                    let expected = if stays { &stepped } else { &before };
                    assert_eq!(&taken, expected, "{literal:?} {start}..{end}");
                }
            }
        }
    }

    /// The one-pass conversion of a string literal writes what decoding it (the reference below, a
    /// character at a time) and escaping the value as JSON write: every escape, both quotes, runs
    /// of multi-byte text, control characters raw and escaped, broken escapes.
    #[test]
    fn string_conversion_equals_decoding_then_escaping() {
        let bodies = [
            "",
            "plain",
            "a\\nb\\tc\\rd\\\\e\\\"f\\'g",
            "\\0\\a\\b\\f\\v\\x41\\x0a\\x22\\x5c\\u00e9\\u2028\\U0001F600\\U0000001f",
            "caf\u{e9} \u{5317}\u{4eac} \"q\" 'q' \u{1}\u{7f}\t\n raw",
            "\\q \\/ \\\u{e9} \\\u{1} \\\r \\\nnext line",
            "\\x4",
            "\\u00zz",
            "\\x+1",
            "\\ud800",
            "\\U0011ffff",
            "\\",
            "\\\\\\",
            "\\x\u{e9}1",
        ];
        for body in bodies {
            for quote in ['\'', '"'] {
                // The body with its own kind of quote escaped, and with it raw (which ends the
                // string early: the rest is not read).
                for text in [body.replace(quote, &format!("\\{quote}")), body.to_owned()] {
                    let literal = format!("{quote}{text}{quote} tail");
                    let mut reader = Reader {
                        text: &literal,
                        pos: 0,
                    };
                    let mut out = String::new();
                    let converted = reader.string(quote as u8, &mut out).map(|()| out);
                    let mut reference = Reader {
                        text: &literal,
                        pos: 0,
                    };
                    let expected = decode(&mut reference, quote as u8).map(|value| {
                        let mut json = String::new();
                        push_json_string(&mut json, &value);
                        json
                    });
                    assert_eq!(converted, expected, "{literal:?}");
                    if expected.is_some() {
                        assert_eq!(reader.pos, reference.pos, "{literal:?}");
                    }
                }
            }
        }
    }

    /// `plain_run` finds the first quote, backslash or control byte, eight bytes at a time: every
    /// length and position over bytes next to the looked-at ones (`!`, `#`, `&`, `(`, `[`, `]`, space,
    /// DEL, high bytes), where a borrow in the word test could mislead it.
    #[test]
    fn plain_run_finds_the_first_looked_at_byte() {
        let alphabet = [
            0x00, 0x01, 0x1f, b' ', b'!', b'"', b'#', b'&', b'\'', b'(', b'[', b'\\', b']', 0x7f,
            0x80, 0xa2, 0xdc, 0xe0, 0xff, b'a',
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..40 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly plain bytes, so that the first looked-at one falls anywhere.
                        match seed % 4 {
                            0 => alphabet[(seed >> 8) as usize % alphabet.len()],
                            _ => b'a' + (seed >> 8) as u8 % 26,
                        }
                    })
                    .collect();
                let expected = bytes
                    .iter()
                    .position(|&b| b == b'"' || b == b'\'' || b == b'\\' || b < 0x20)
                    .unwrap_or(bytes.len());
                assert_eq!(plain_run(&bytes), expected, "{bytes:?}");
            }
        }
    }

    /// The reference: a string literal's value, Python's escapes decoded a character at a time.
    fn decode(reader: &mut Reader<'_>, quote: u8) -> Option<String> {
        let rest = &reader.text[reader.pos + 1..];
        let mut value = String::new();
        let mut chars = rest.char_indices();
        while let Some((at, c)) = chars.next() {
            if c == char::from(quote) {
                reader.pos += 1 + at + 1;
                return Some(value);
            }
            if c != '\\' {
                value.push(c);
                continue;
            }
            let (_, e) = chars.next()?;
            match e {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'r' => value.push('\r'),
                '0' => value.push('\0'),
                'a' => value.push('\u{7}'),
                'b' => value.push('\u{8}'),
                'f' => value.push('\u{c}'),
                'v' => value.push('\u{b}'),
                '\\' | '\'' | '"' => value.push(e),
                '\n' => {}
                'x' | 'u' | 'U' => {
                    let digits = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = chars.by_ref().take(digits).map(|(_, c)| c).collect();
                    let code = (hex.len() == digits)
                        .then(|| u32::from_str_radix(&hex, 16).ok())
                        .flatten()
                        .and_then(char::from_u32)?;
                    value.push(code);
                }
                other => {
                    value.push('\\');
                    value.push(other);
                }
            }
        }
        None
    }
}
