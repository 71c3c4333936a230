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
    let mut out = String::new();
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
    let mut out = String::from("{");
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
            quote @ (b'"' | b'\'') => {
                let s = self.string(quote)?;
                push_json_string(out, &s);
            }
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
                quote @ (b'"' | b'\'') => {
                    let key = self.string(quote)?;
                    push_json_string(out, &key);
                }
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

    /// A string literal in `quote`s, with Python's escapes decoded.
    fn string(&mut self, quote: u8) -> Option<String> {
        let rest = &self.text[self.pos + 1..];
        let mut value = String::new();
        let mut at = 0;
        loop {
            // Text up to the next quote or backslash is the value as it is: copied as one run, not a
            // character at a time (a long string argument is mostly such text). No end: not a string.
            let run = rest[at..].bytes().position(|b| b == quote || b == b'\\')?;
            value.push_str(&rest[at..at + run]);
            at += run;
            if rest.as_bytes()[at] == quote {
                self.pos += 1 + at + 1;
                return Some(value);
            }
            // A backslash and what it escapes.
            let mut chars = rest[at + 1..].chars();
            let e = chars.next()?;
            let mut used = e.len_utf8();
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
                // A backslash at the end of a line continues the string.
                '\n' => {}
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
                    value.push(code);
                }
                other => {
                    value.push('\\');
                    value.push(other);
                }
            }
            at += 1 + used;
        }
    }
}

/// Writes `text` as a JSON string.
fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    let mut rest = text;
    // Runs of text that need no escape are copied whole.
    while let Some(at) = rest
        .bytes()
        .position(|b| b == b'"' || b == b'\\' || b < 0x20)
    {
        out.push_str(&rest[..at]);
        match rest.as_bytes()[at] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            control => {
                let _ = write!(out, "\\u{:04x}", control);
            }
        }
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
#[derive(Clone, Debug, Default)]
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

    /// Whether reading all of `text` would change nothing: inside a string, no escape pending, and no
    /// byte of `text` is the string's quote or a backslash. The common delta of a long string
    /// argument, which a reader can then keep as it is without stepping through it.
    ///
    /// ```
    /// use parser_generic::pythonic::ArgsScanner;
    /// let mut scanner = ArgsScanner::default();
    /// for byte in "a='x".bytes() {
    ///     scanner.step(byte);
    /// }
    /// assert!(scanner.stays_in_string("yz \"q\" "));
    /// assert!(!scanner.stays_in_string("y'"));
    /// assert!(!scanner.stays_in_string("y\\"));
    /// ```
    #[inline]
    pub fn stays_in_string(&self, text: &str) -> bool {
        self.quote != 0
            && !self.escape
            && !text.bytes().any(|byte| byte == self.quote || byte == b'\\')
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
    use super::{ArgsScanner, ArgsStep, literal_to_json};

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

    /// `stays_in_string` is true exactly when stepping through the piece keeps the scanner inside the
    /// same string with nothing changed: every piece of literals with both quotes and escapes.
    #[test]
    fn stays_in_string_agrees_with_stepping() {
        let literals = [
            "['a \"b\" c', \"it's\", 'x\\'y\\\\', {'k': [1, 'é北']}]",
            "(a='\\\\\\'', b=\"\\\"\")",
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
                    let mut after = before.clone();
                    let unchanged = piece
                        .bytes()
                        .all(|byte| after.step(byte) == ArgsStep::Inside && after.in_string())
                        && (after.quote, after.escape) == (before.quote, before.escape);
                    if before.stays_in_string(piece) {
                        assert!(unchanged, "{literal:?} {start}..{end}");
                    }
                    if unchanged && before.in_string() && !before.escape {
                        let plain = !piece.bytes().any(|b| b == before.quote || b == b'\\');
                        assert_eq!(
                            before.stays_in_string(piece),
                            plain,
                            "{literal:?} {start}..{end}"
                        );
                    }
                }
            }
        }
    }
}
