//! Python's text semantics where minijinja's differ: `str()` and `repr()` of values, what counts as
//! whitespace and as a line break, and the string methods that depend on them.

use std::fmt::Write as _;
use std::sync::OnceLock;

use minijinja::value::{Value, ValueKind};
use regex::Regex;

use super::super::pyjson;
use super::super::values;

/// `str.isspace()` for one character: Rust's `White_Space` plus the information separators
/// U+001C..U+001F, which Python also strips and splits on.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A line boundary of `str.splitlines()`.
pub(super) fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{b}'
            | '\u{c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Which ends `strip` works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ends {
    Both,
    Start,
    End,
}

/// `str.strip()` / `lstrip()` / `rstrip()` without arguments.
pub(super) fn strip(s: &str, ends: Ends) -> &str {
    match ends {
        Ends::Both => s.trim_matches(is_space),
        Ends::Start => s.trim_start_matches(is_space),
        Ends::End => s.trim_end_matches(is_space),
    }
}

/// `str.split()` / `str.split(None, maxsplit)`: runs of whitespace separate, the ends are ignored;
/// after `maxsplit` splits the rest is one item (its trailing whitespace kept).
pub(super) fn split_whitespace(s: &str, maxsplit: Option<usize>) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = strip(s, Ends::Start);
    while !rest.is_empty() {
        if maxsplit.is_some_and(|max| parts.len() >= max) {
            parts.push(rest);
            break;
        }
        let end = rest.find(is_space).unwrap_or(rest.len());
        parts.push(&rest[..end]);
        rest = strip(&rest[end..], Ends::Start);
    }
    parts
}

/// `str.rsplit(None, maxsplit)`: [`split_whitespace`] from the right.
pub(super) fn rsplit_whitespace(s: &str, maxsplit: Option<usize>) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = strip(s, Ends::End);
    while !rest.is_empty() {
        if maxsplit.is_some_and(|max| parts.len() >= max) {
            parts.push(rest);
            break;
        }
        let start = rest
            .char_indices()
            .rev()
            .find(|(_, c)| is_space(*c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        parts.push(&rest[start..]);
        rest = strip(&rest[..start], Ends::End);
    }
    parts.reverse();
    parts
}

/// `str.rsplit(sep, maxsplit)` with a separator.
pub(super) fn rsplit_sep<'a>(s: &'a str, sep: &str, maxsplit: Option<usize>) -> Vec<&'a str> {
    let mut parts: Vec<&str> = match maxsplit {
        Some(max) => s.rsplitn(max + 1, sep).collect(),
        None => s.rsplit(sep).collect(),
    };
    parts.reverse();
    parts
}

/// `str.splitlines(keepends)`.
pub(super) fn splitlines(text: &str, keepends: bool) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_line_break(c) {
            let mut end = i + c.len_utf8();
            if c == '\r' && matches!(chars.peek(), Some((_, '\n'))) {
                chars.next();
                end += 1;
            }
            lines.push(if keepends {
                &text[start..end]
            } else {
                &text[start..i]
            });
            start = end;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// `str.title()`: a cased letter is upper-cased after an uncased character and lower-cased after a
/// cased one (`they're` → `They'Re`; Jinja's `|title` filter is a different function).
pub(super) fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_cased = false;
    for c in s.chars() {
        let cased = c.is_uppercase() || c.is_lowercase();
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        previous_cased = cased;
    }
    out
}

/// Python's `str(value)`.
pub(crate) fn py_str(value: &Value) -> String {
    match value.kind() {
        ValueKind::String => value.as_str().unwrap_or_default().to_string(),
        ValueKind::Undefined => String::new(),
        ValueKind::Seq | ValueKind::Map => {
            let mut out = String::new();
            py_repr(value, &mut out);
            out
        }
        ValueKind::Number if !value.is_integer() => float_text(value),
        _ => value.to_string(),
    }
}

fn float_text(value: &Value) -> String {
    match f64::try_from(value.clone()) {
        Ok(f) => pyjson::python_float_str(f),
        Err(_) => value.to_string(),
    }
}

/// Appends Python's `repr(value)`: strings quoted and escaped as Python does, floats as Python prints
/// them, lists, dicts and tuples recursively, `True`/`False`/`None`.
pub(crate) fn py_repr(value: &Value, out: &mut String) {
    repr_nested(value, out, 0, super::super::budget::value_bytes());
}

/// `py_repr` at nesting `depth`. Stops early once `out` is over `cap` (the caller's size check then
/// fails) and prints a value nested deeper than the budget allows as `...`, as Python prints a list that
/// contains itself, so a cyclic list cannot recurse without end.
fn repr_nested(value: &Value, out: &mut String, depth: usize, cap: usize) {
    if out.len() > cap {
        return;
    }
    if depth > parser_core::TemplateLimits::MAX_NESTING {
        out.push_str("...");
        return;
    }
    match value.kind() {
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            if value.is_safe() {
                out.push_str("Markup(");
                repr_str(s, out);
                out.push(')');
            } else {
                repr_str(s, out);
            }
        }
        ValueKind::Undefined => out.push_str("Undefined"),
        ValueKind::Number if !value.is_integer() => out.push_str(&float_text(value)),
        ValueKind::Seq => {
            let items: Vec<Value> = value.try_iter().map(Iterator::collect).unwrap_or_default();
            let (open, close) = if value.is_tuple() {
                ('(', ')')
            } else {
                ('[', ']')
            };
            out.push(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                repr_nested(item, out, depth + 1, cap);
            }
            if value.is_tuple() && items.len() == 1 {
                out.push(',');
            }
            out.push(close);
        }
        ValueKind::Map => match values::map_entries(value) {
            Some(entries) => {
                out.push('{');
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    repr_nested(key, out, depth + 1, cap);
                    out.push_str(": ");
                    repr_nested(item, out, depth + 1, cap);
                }
                out.push('}');
            }
            None => {
                write_capped(value, out, cap);
            }
        },
        _ => {
            write_capped(value, out, cap);
        }
    }
}

/// `value`'s `Display` appended to `out`, stopping once `out` is over `cap`.
fn write_capped(value: &Value, out: &mut String, cap: usize) {
    let mut writer = super::super::budget::CappedWriter {
        out,
        cap,
        overflowed: false,
    };
    let _ = write!(writer, "{value}");
}

/// Python's `repr(str)`: single quotes unless the text has `'` and no `"`; `\\`, `\n`, `\r`, `\t` and
/// the quote escaped; non-printable characters as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
pub(crate) fn repr_str(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let code = u32::from(c);
                let _ = if code <= 0xff {
                    write!(out, "\\x{code:02x}")
                } else if code <= 0xffff {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// `str.isprintable()` for one character: not in the Other (C*) or Separator (Z*) categories, except
/// the space.
fn is_printable(c: char) -> bool {
    if c == ' ' || c.is_ascii_graphic() {
        return true;
    }
    if c.is_ascii() {
        return false;
    }
    static NON_PRINTABLE: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = NON_PRINTABLE.get_or_init(|| Regex::new(r"^[\p{C}\p{Z}]$").ok());
    let mut buf = [0u8; 4];
    !pattern
        .as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut buf)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_lines_as_python() {
        assert_eq!(strip(" \u{1f}a b\u{3000}\n", Ends::Both), "a b");
        assert_eq!(split_whitespace(" a\u{1f} b  c ", None), ["a", "b", "c"]);
        assert_eq!(split_whitespace(" a b  c ", Some(1)), ["a", "b  c "]);
        assert_eq!(rsplit_whitespace(" a b  c ", Some(1)), [" a b", "c"]);
        assert_eq!(rsplit_sep("a-b-c", "-", Some(1)), ["a-b", "c"]);
        assert_eq!(
            splitlines("a\r\nb\rc\u{1c}d\n", false),
            ["a", "b", "c", "d"]
        );
        assert_eq!(splitlines("a\nb", true), ["a\n", "b"]);
        assert_eq!(title("they're bob's-x"), "They'Re Bob'S-X");
    }

    #[test]
    fn repr_as_python() {
        let mut out = String::new();
        repr_str("it's \u{a0}\u{200b}\u{7f}😀\u{2028}\t", &mut out);
        assert_eq!(out, r#""it's \xa0\u200b\x7f😀\u2028\t""#);
        let value =
            values::from_json_text(r#"[1, 2.5e-7, "a", null, true, {"k": [1e16]}]"#).unwrap();
        assert_eq!(
            py_str(&value),
            "[1, 2.5e-07, 'a', None, True, {'k': [1e+16]}]"
        );
    }
}
