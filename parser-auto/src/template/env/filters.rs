//! Filters, tests and string methods that behave as Jinja2 and Python do where minijinja's builtins
//! differ: Python's `str()` of values (floats, lists, dicts), its whitespace, `int`/`float` parsing,
//! `items`/`attr` on dicts, `is sequence`.

use minijinja::value::{Kwargs, Value, ValueKind, from_args};
use minijinja::{AutoEscape, Error, ErrorKind, Output, State};

use std::fmt::Write as _;

use super::pystr::{self, Ends};
use crate::template::budget;
use crate::template::values::{self, PyList};

/// `{{ value }}` as Python prints `str(value)` where minijinja's text differs: floats (`1e-05`, not
/// `0.00001`) and containers (Python's repr of their items).
pub(super) fn format_value(
    out: &mut Output,
    state: &mut State,
    value: &Value,
) -> Result<(), Error> {
    let python_text = matches!(state.auto_escape(), AutoEscape::None)
        && match value.kind() {
            ValueKind::Number => !value.is_integer(),
            ValueKind::Seq | ValueKind::Map => true,
            _ => false,
        };
    // Everything written is counted (text captured by macros and blocks included) and no value is
    // printed past the budget's string size.
    if python_text {
        let text = pystr::py_str(value);
        budget::check_string(text.len(), "printing a value")?;
        budget::emit(text.len())?;
        return out.write_str(&text).map_err(Error::from);
    }
    if let Some(text) = value.as_str() {
        budget::emit(text.len())?;
        return minijinja::escape_formatter(out, state, value);
    }
    let text = budget::format_capped("printing a value", |w| write!(w, "{value}"))?;
    budget::emit(text.len())?;
    if matches!(state.auto_escape(), AutoEscape::None) || value.is_safe() {
        out.write_str(&text).map_err(Error::from)
    } else {
        write!(out, "{}", minijinja::HtmlEscape(&text)).map_err(Error::from)
    }
}

/// `|string`: Python's `str()`; strings (safe ones included) unchanged.
pub(super) fn string(value: &Value) -> Result<Value, Error> {
    if value.as_str().is_some() {
        return Ok(value.clone());
    }
    let text = pystr::py_str(value);
    budget::check_string(text.len(), "`string`")?;
    Ok(Value::from(text))
}

/// `|join(d='', attribute=None)`: `d.join(str(item) for item in value)`, items optionally looked up by
/// `attribute` (a dotted path; integer parts index) as Jinja's `make_attrgetter` does.
pub(super) fn join(
    value: &Value,
    separator: Option<Value>,
    attribute: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let separator = match separator {
        Some(separator) => Some(separator),
        None => kwargs.get::<Option<Value>>("d")?,
    };
    let attribute = match attribute {
        Some(attribute) => Some(attribute),
        None => kwargs.get::<Option<Value>>("attribute")?,
    };
    kwargs.assert_all_used()?;
    let separator = separator.map_or_else(String::new, |s| pystr::py_str(&s));
    if value.is_undefined() || value.is_none() {
        // Jinja iterates Undefined as empty; `None` is not iterable in Python.
        if value.is_none() {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "'NoneType' object is not iterable",
            ));
        }
        return Ok(Value::from(""));
    }
    let mut out = String::new();
    for (i, item) in value.try_iter()?.enumerate() {
        if i > 0 {
            out.push_str(&separator);
        }
        let item = match &attribute {
            Some(path) => lookup_path(&item, path)?,
            None => item,
        };
        out.push_str(&pystr::py_str(&item));
        budget::check_string(out.len(), "`join`")?;
    }
    Ok(Value::from(out))
}

/// An item looked up by a Jinja attribute path (`"a.b"`, `"0"`, or an integer): subscript semantics.
fn lookup_path(item: &Value, path: &Value) -> Result<Value, Error> {
    if path.as_str().is_none() {
        return item.get_item(path);
    }
    let mut current = item.clone();
    for part in path.as_str().unwrap_or_default().split('.') {
        current = match part.parse::<i64>() {
            Ok(index) => current.get_item(&Value::from(index))?,
            Err(_) => current.get_item(&Value::from(part))?,
        };
    }
    Ok(current)
}

/// `|trim(chars=None)`: `str(value).strip(chars)` with Python's whitespace; the safe flag is kept.
pub(super) fn trim(value: &Value, chars: Option<Value>) -> Value {
    let text = pystr::py_str(value);
    let trimmed = match chars.as_ref().and_then(Value::as_str) {
        Some(chars) => text.trim_matches(|c| chars.contains(c)),
        None => pystr::strip(&text, Ends::Both),
    };
    if value.is_safe() {
        Value::from_safe_string(trimmed.to_string())
    } else {
        Value::from(trimmed)
    }
}

/// A number's text as Python's `int()` / `float()` read it: surrounding whitespace and `_` between
/// digits are allowed.
fn numeric_text(s: &str) -> Option<String> {
    let s = pystr::strip(s, Ends::Both);
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == '_' {
            let between_digits = i > 0
                && bytes[i - 1].is_ascii_alphanumeric()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
            if !between_digits {
                return None;
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Python's `int(text, base)` (base 0: from the prefix).
fn parse_int(text: &str, base: u32) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = digits.to_ascii_lowercase();
    let (base, digits) = match (base, lower.get(..2)) {
        (0 | 16, Some("0x")) => (16, &digits[2..]),
        (0 | 8, Some("0o")) => (8, &digits[2..]),
        (0 | 2, Some("0b")) => (2, &digits[2..]),
        (0, _) => (10, digits),
        (base, _) => (base, digits),
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) || !(2..=36).contains(&base) {
        return None;
    }
    let value = i128::from_str_radix(digits, base).ok()?;
    Some(if negative { -value } else { value })
}

/// `|int(default=0, base=10)` as Jinja: `int(value, base)`, else `int(float(value))`, else `default`.
pub(super) fn int(
    value: &Value,
    default: Option<Value>,
    base: Option<u32>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let default = match default {
        Some(default) => default,
        None => kwargs
            .get::<Option<Value>>("default")?
            .unwrap_or(Value::from(0)),
    };
    let base = match base {
        Some(base) => base,
        None => kwargs.get::<Option<u32>>("base")?.unwrap_or(10),
    };
    kwargs.assert_all_used()?;
    let truncate = |f: f64| {
        if f.is_finite() {
            Ok(Value::from(f.trunc() as i128))
        } else {
            Err(Error::new(
                ErrorKind::InvalidOperation,
                "cannot convert float infinity or NaN to integer",
            ))
        }
    };
    match value.kind() {
        ValueKind::Bool => Ok(Value::from(i64::from(value.is_true()))),
        ValueKind::Number if value.is_integer() => Ok(value.clone()),
        ValueKind::Number => truncate(f64::try_from(value.clone())?),
        ValueKind::String => {
            let Some(text) = value.as_str().and_then(numeric_text) else {
                return Ok(default);
            };
            if let Some(i) = parse_int(&text, base) {
                return Ok(Value::from(i));
            }
            match text.parse::<f64>() {
                Ok(f) => truncate(f),
                Err(_) => Ok(default),
            }
        }
        _ => Ok(default),
    }
}

/// `|float(default=0.0)` as Jinja: `float(value)`, else `default`.
pub(super) fn float(value: &Value, default: Option<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    let default = match default {
        Some(default) => default,
        None => kwargs
            .get::<Option<Value>>("default")?
            .unwrap_or(Value::from(0.0)),
    };
    kwargs.assert_all_used()?;
    Ok(match value.kind() {
        ValueKind::Bool => Value::from(if value.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(value.clone()).map_or(default, Value::from),
        ValueKind::String => value
            .as_str()
            .and_then(numeric_text)
            .and_then(|text| text.parse::<f64>().ok())
            .map_or(default, Value::from),
        _ => default,
    })
}

/// `|items`: a dict's pairs; nothing for undefined (Jinja), an error for anything else.
pub(super) fn items(value: &Value) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(PyList::new_value(Vec::new()));
    }
    if value.kind() != ValueKind::Map {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "Can only get item pairs from a mapping.",
        ));
    }
    minijinja::filters::items(value)
}

/// `|attr(name)`: Python's `getattr`, so a dict's keys are not attributes (only its methods are).
pub(super) fn attr(value: &Value, name: &str) -> Result<Value, Error> {
    if value.kind() == ValueKind::Map {
        return Ok(if values::DICT_METHODS.contains(&name) {
            value.get_attr(name)?
        } else {
            Value::UNDEFINED
        });
    }
    value.get_attr(name)
}

/// `|wordcount`: the number of `\w+` runs.
pub(super) fn wordcount(value: &Value) -> usize {
    let text = pystr::py_str(value);
    let mut count = 0;
    let mut in_word = false;
    for c in text.chars() {
        let word_char = c.is_alphanumeric() || c == '_';
        if word_char && !in_word {
            count += 1;
        }
        in_word = word_char;
    }
    count
}

/// `is sequence` as Jinja's: anything with a length and indexing — strings, lists, tuples, dicts (and
/// undefined); not numbers, none or lazy iterables.
pub(super) fn is_sequence(value: &Value) -> bool {
    matches!(
        value.kind(),
        ValueKind::String
            | ValueKind::Bytes
            | ValueKind::Seq
            | ValueKind::Map
            | ValueKind::Undefined
    )
}

/// String methods whose Python behaviour depends on Python's whitespace and line breaks (`strip()`,
/// `split()`, `splitlines()`, `isspace()`), plus `rsplit` and `title`, which minijinja-contrib lacks or
/// implements as Jinja's filter. `None` leaves the call to minijinja-contrib.
pub(super) fn string_method(s: &str, method: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    let strings =
        |parts: Vec<&str>| Value::from(parts.into_iter().map(Value::from).collect::<Vec<_>>());
    let no_argument = args.is_empty() || (args.len() == 1 && args[0].is_none());
    match method {
        "strip" | "lstrip" | "rstrip" if no_argument => {
            let ends = match method {
                "lstrip" => Ends::Start,
                "rstrip" => Ends::End,
                _ => Ends::Both,
            };
            Some(Ok(Value::from(pystr::strip(s, ends))))
        }
        "split" | "rsplit" => {
            let parsed = from_args::<(Option<Value>, Option<Value>, Kwargs)>(args).and_then(
                |(sep, maxsplit, kwargs)| {
                    let sep = match sep {
                        Some(sep) => Some(sep),
                        None => kwargs.get::<Option<Value>>("sep")?,
                    };
                    let maxsplit = match maxsplit {
                        Some(maxsplit) => Some(maxsplit),
                        None => kwargs.get::<Option<Value>>("maxsplit")?,
                    };
                    kwargs.assert_all_used()?;
                    Ok((sep.filter(|s| !s.is_none()), maxsplit))
                },
            );
            let (sep, maxsplit) = match parsed {
                Ok(parsed) => parsed,
                Err(err) => return Some(Err(err)),
            };
            let maxsplit = maxsplit
                .and_then(|m| m.as_i64())
                .and_then(|m| usize::try_from(m).ok());
            match (method, sep.as_ref().and_then(Value::as_str)) {
                ("split", None) if sep.is_none() => {
                    Some(Ok(strings(pystr::split_whitespace(s, maxsplit))))
                }
                ("rsplit", None) if sep.is_none() => {
                    Some(Ok(strings(pystr::rsplit_whitespace(s, maxsplit))))
                }
                ("rsplit", Some("")) | ("split", Some("")) => Some(Err(Error::new(
                    ErrorKind::InvalidOperation,
                    "empty separator",
                ))),
                ("rsplit", Some(sep)) => Some(Ok(strings(pystr::rsplit_sep(s, sep, maxsplit)))),
                _ => None,
            }
        }
        "splitlines" => {
            let keepends = match from_args::<(Option<bool>,)>(args) {
                Ok((keepends,)) => keepends.unwrap_or(false),
                Err(err) => return Some(Err(err)),
            };
            Some(Ok(strings(pystr::splitlines(s, keepends))))
        }
        "isspace" if args.is_empty() => Some(Ok(Value::from(
            !s.is_empty() && s.chars().all(pystr::is_space),
        ))),
        "title" if args.is_empty() => Some(Ok(Value::from(pystr::title(s)))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_as_python_int_and_float() {
        assert_eq!(numeric_text(" 1_000\n").as_deref(), Some("1000"));
        assert_eq!(numeric_text("_1"), None);
        assert_eq!(numeric_text("1__0"), None);
        assert_eq!(parse_int("-42", 10), Some(-42));
        assert_eq!(parse_int("0x1A", 16), Some(26));
        assert_eq!(parse_int("0x1A", 10), None);
        assert_eq!(parse_int("0b11", 0), Some(3));
        assert_eq!(parse_int("+-1", 10), None);
    }

    #[test]
    fn sequences_are_what_jinja_calls_sequences() {
        assert!(is_sequence(&Value::from("ab")));
        assert!(is_sequence(&values::from_json_text(r#"{"a": 1}"#).unwrap()));
        assert!(is_sequence(&Value::UNDEFINED));
        assert!(!is_sequence(&Value::from(())));
        assert!(!is_sequence(&Value::from(1)));
    }

    #[test]
    fn whitespace_methods_use_python_whitespace() {
        let call = |s: &str, method: &str, args: &[Value]| {
            string_method(s, method, args)
                .map(|r| r.unwrap().to_string())
                .unwrap_or_else(|| "<pycompat>".into())
        };
        assert_eq!(call(" a\u{1f}", "strip", &[]), "a");
        assert_eq!(call(" a\u{1f}", "strip", &[Value::from(" ")]), "<pycompat>");
        assert_eq!(call("a\u{1f}b c", "split", &[]), "['a', 'b', 'c']");
        assert_eq!(call("a-b-c", "split", &[Value::from("-")]), "<pycompat>");
        assert_eq!(
            call("a-b-c", "rsplit", &[Value::from("-"), Value::from(1)]),
            "['a-b', 'c']"
        );
        assert_eq!(call("\u{1c}", "isspace", &[]), "True");
    }
}
