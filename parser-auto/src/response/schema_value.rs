//! Python's conversions and truthiness, as `recursive_parse` applies them to parsed values.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Number, Value};

/// Python truthiness of a JSON value (`if not node_content`, `if allow_non_json`).
pub(super) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's type name of a JSON value, for messages.
pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "None",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// The value of a Unicode decimal digit (category Nd), which `int()`/`float()` accept.
fn decimal_value(c: char) -> Option<u32> {
    if let Some(d) = c.to_digit(10) {
        return Some(d);
    }
    static ND: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\A\p{Nd}\z").ok());
    let nd = ND.as_ref()?;
    let is_nd = |c: char| nd.is_match(c.encode_utf8(&mut [0; 4]));
    if c.is_ascii() || !is_nd(c) {
        return None;
    }
    // Unicode assigns decimal digits in contiguous runs of ten, 0 to 9, so the offset from the start of
    // the run of Nd characters (several sets may be adjacent) gives the value.
    let mut offset = 0u32;
    let mut code = u32::from(c);
    while let Some(prev) = code.checked_sub(1).and_then(char::from_u32) {
        if !is_nd(prev) {
            break;
        }
        offset += 1;
        code -= 1;
    }
    Some(offset % 10)
}

/// What `int()`/`float()` see: Unicode spaces and digits made ASCII, then stripped.
fn to_ascii_number(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if crate::response::content::is_python_space(c) {
            out.push(' ');
        } else if c.is_ascii() {
            out.push(c);
        } else {
            out.push(char::from_digit(decimal_value(c)?, 10)?);
        }
    }
    Some(out.trim_matches(' ').to_owned())
}

/// Drops the underscores Python allows between digits (PEP 515); `None` if one is misplaced.
fn strip_underscores(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let before = i.checked_sub(1).and_then(|j| bytes.get(j));
            let after = bytes.get(i + 1);
            if !before.is_some_and(u8::is_ascii_digit) || !after.is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
    }
    Some(s.replace('_', ""))
}

/// Python's `int(s)` (base 10), as a JSON number.
pub(super) fn py_int(s: &str) -> Result<Value, String> {
    let bad = || format!("the parsed string content is not a valid integer: {s:?}");
    let t = to_ascii_number(s)
        .and_then(|t| strip_underscores(&t))
        .ok_or_else(bad)?;
    let digits = t.strip_prefix(['+', '-']).unwrap_or(&t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let too_large = || format!("the integer {s:?} is too large for a JSON number here");
    let value: i128 = t.parse().map_err(|_| too_large())?;
    if let Ok(v) = i64::try_from(value) {
        Ok(Value::from(v))
    } else if let Ok(v) = u64::try_from(value) {
        Ok(Value::from(v))
    } else {
        Err(too_large())
    }
}

/// Python's `float(s)`, as a JSON number (NaN and infinities have no JSON form: an error).
pub(super) fn py_float(s: &str) -> Result<Value, String> {
    let bad = || format!("the parsed string content is not a valid number: {s:?}");
    let t = to_ascii_number(s)
        .and_then(|t| strip_underscores(&t))
        .ok_or_else(bad)?;
    let f: f64 = t.parse().map_err(|_| bad())?;
    finite(f).ok_or_else(|| format!("{s:?} converts to {f}, which JSON cannot represent"))
}

/// A finite float as a JSON number.
pub(super) fn finite(f: f64) -> Option<Value> {
    Number::from_f64(f).map(Value::Number)
}

/// Why [`py_json_loads`] failed.
pub(super) enum JsonError {
    /// Not JSON: Python's `json.loads` raises too (`allow_non_json` keeps the string).
    Syntax(String),
    /// Valid JSON Python reads, whose value has no JSON form here.
    Unrepresentable(String),
}

/// `json.loads`, keeping integers exact as Python does: `-0` is the integer `0` (serde_json would
/// read `-0.0`), and an integer outside `i64`/`u64` is an error rather than a rounded float.
pub(super) fn py_json_loads(text: &str) -> Result<Value, JsonError> {
    let value: Value = serde_json::from_str(text).map_err(|e| JsonError::Syntax(e.to_string()))?;
    let mut negative_zero = false;
    for token in integer_tokens(text) {
        if token == "-0" {
            negative_zero = true;
        } else if token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
            return Err(JsonError::Unrepresentable(format!(
                "the integer {token} is too large for a JSON number here"
            )));
        }
    }
    if !negative_zero {
        return Ok(value);
    }
    let mut fixed = String::with_capacity(text.len());
    let mut last = 0;
    for (start, token) in integer_token_spans(text) {
        if token == "-0" {
            fixed.push_str(text.get(last..start).unwrap_or(""));
            fixed.push('0');
            last = start + token.len();
        }
    }
    fixed.push_str(text.get(last..).unwrap_or(""));
    serde_json::from_str(&fixed).map_err(|e| JsonError::Syntax(e.to_string()))
}

fn integer_tokens(text: &str) -> impl Iterator<Item = &str> {
    integer_token_spans(text).into_iter().map(|(_, t)| t)
}

/// The integer literals (no fraction, no exponent) of a valid JSON text, with their offsets.
fn integer_token_spans(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                // Skip the string, escapes included.
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    i += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                let mut integer = true;
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'0'..=b'9' => {}
                        b'.' | b'e' | b'E' | b'+' | b'-' => integer = false,
                        _ => break,
                    }
                    i += 1;
                }
                if integer && let Some(token) = text.get(start..i) {
                    out.push((start, token));
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `json.dumps(s)` with its default `ensure_ascii=True`.
fn py_json_string(s: &str) -> String {
    let mut out = String::new();
    crate::template::pyjson::write_string(s, true, &mut out);
    out
}

/// transformers' `_gemma4_json_to_json`: Gemma 4 writes tool arguments with bare keys and `<|"|>` as the
/// string delimiter; this rewrites them to JSON, step for step as Python does.
pub(super) fn gemma4_json_to_json(text: &str) -> String {
    const QUOTE: &str = "<|\"|>";
    // 1. `re.sub(r'<\|"\|>(.*?)<\|"\|>', ...)`: park each quoted string as `\x00{i}\x00`.
    let mut strings: Vec<&str> = Vec::new();
    let mut parked = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(QUOTE) {
        let after = rest.get(open + QUOTE.len()..).unwrap_or("");
        let Some(close) = after.find(QUOTE) else {
            break;
        };
        parked.push_str(rest.get(..open).unwrap_or(""));
        strings.push(after.get(..close).unwrap_or(""));
        parked.push_str(&format!("\x00{}\x00", strings.len() - 1));
        rest = after.get(close + QUOTE.len()..).unwrap_or("");
    }
    parked.push_str(rest);
    // 2. `re.sub(r"(?<=[{,])(\w+):", r'"\1":', text)`. Consuming the `{`/`,` instead of looking behind
    //    finds the same matches: a match ends with `:`, so the char before the next one is never
    //    inside the previous one.
    static BARE_KEY: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"([{,])([\p{L}\p{N}_]+):").ok());
    let mut quoted = match BARE_KEY.as_ref() {
        Some(re) => re.replace_all(&parked, "${1}\"${2}\":").into_owned(),
        None => parked,
    };
    // 3. Put the strings back, JSON-encoded.
    for (i, s) in strings.iter().enumerate() {
        quoted = quoted.replace(&format!("\x00{i}\x00"), &py_json_string(s));
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int() {
        assert_eq!(py_int(" 1_000 "), Ok(Value::from(1000)));
        assert_eq!(py_int("-0"), Ok(Value::from(0)));
        assert_eq!(py_int("١٢"), Ok(Value::from(12)));
        assert_eq!(py_int("１２"), Ok(Value::from(12)));
        assert!(py_int("1__0").is_err());
        assert!(py_int("1.0").is_err());
        assert!(py_int("").is_err());
        assert!(py_int("99999999999999999999999").is_err());
    }

    #[test]
    fn python_float() {
        assert_eq!(py_float(" 2.5\n"), Ok(Value::from(2.5)));
        assert_eq!(py_float("1_0e1_0"), Ok(Value::from(1e11)));
        assert!(py_float("nan").is_err());
        assert!(py_float("1e400").is_err());
        assert!(py_float("abc").is_err());
    }

    #[test]
    fn python_json() {
        let loads = |s: &str| {
            py_json_loads(s).map_err(|e| match e {
                JsonError::Syntax(e) | JsonError::Unrepresentable(e) => e,
            })
        };
        assert_eq!(
            loads("[-0, -0.0, \"-0\", 1e2]"),
            Ok(serde_json::json!([0, -0.0, "-0", 100.0]))
        );
        assert!(loads("{\"id\": 123456789012345678901234567890}").is_err());
        assert_eq!(loads("18446744073709551615"), Ok(Value::from(u64::MAX)));
        assert_eq!(loads("-9223372036854775808"), Ok(Value::from(i64::MIN)));
        assert!(matches!(py_json_loads("{a: 1}"), Err(JsonError::Syntax(_))));
    }

    #[test]
    fn gemma4() {
        assert_eq!(
            gemma4_json_to_json("{city:<|\"|>Paris, \"FR\"<|\"|>,n:3,nested:{k:<|\"|>é<|\"|>}}"),
            "{\"city\":\"Paris, \\\"FR\\\"\",\"n\":3,\"nested\":{\"k\":\"\\u00e9\"}}"
        );
    }
}
