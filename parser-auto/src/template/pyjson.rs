//! `tojson` as Hugging Face defines it: Python's `json.dumps(x, ensure_ascii=False, indent=None,
//! separators=None, sort_keys=False)`, byte for byte, with no HTML escaping.

use std::fmt::Write as _;

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, ErrorKind};

use super::values::{PyList, map_entries};

/// How to print JSON, as `json.dumps`'s keyword arguments.
#[derive(Clone, Debug)]
pub(crate) struct DumpOptions {
    /// Escape every non-ASCII character as `\uXXXX` (surrogate pairs above the BMP).
    pub ensure_ascii: bool,
    /// `None`: one line. `Some(s)`: newlines, each level indented by `s`.
    pub indent: Option<String>,
    /// Between items.
    pub item_separator: String,
    /// Between a key and its value.
    pub key_separator: String,
    /// Sort object keys.
    pub sort_keys: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            ensure_ascii: false,
            indent: None,
            item_separator: ", ".into(),
            key_separator: ": ".into(),
            sort_keys: false,
        }
    }
}

/// The `tojson` filter: `value|tojson`, `value|tojson(indent=4)`, `tojson(ensure_ascii=False)`,
/// `tojson(separators=(',', ':'))`, `tojson(sort_keys=True)`. A positional integer or string is the
/// indent (as in Jinja's own `tojson`); a positional boolean is `ensure_ascii` (Hugging Face's first
/// parameter).
pub(crate) fn tojson_filter(
    value: &Value,
    positional: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let mut options = DumpOptions::default();
    let mut indent: Option<Value> = None;
    if let Some(arg) = positional {
        if arg.kind() == ValueKind::Bool {
            options.ensure_ascii = arg.is_true();
        } else {
            indent = Some(arg);
        }
    }
    if let Some(value) = kwargs.get::<Option<Value>>("ensure_ascii")? {
        options.ensure_ascii = value.is_true();
    }
    if let Some(value) = kwargs.get::<Option<Value>>("indent")? {
        indent = Some(value);
    }
    if let Some(value) = kwargs.get::<Option<Value>>("sort_keys")? {
        options.sort_keys = value.is_true();
    }
    let separators = kwargs.get::<Option<Value>>("separators")?;
    // Jinja's `htmlsafe_json_dumps` passes extra arguments through to `json.dumps`; accept the
    // harmless ones.
    for ignored in ["allow_nan", "skipkeys", "check_circular", "default", "cls"] {
        let _ = kwargs.get::<Option<Value>>(ignored)?;
    }
    kwargs.assert_all_used()?;

    options.indent = match indent {
        None => None,
        Some(v) if v.is_none() || v.is_undefined() => None,
        Some(v) => match v.as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                // Python: `' ' * indent` (a bool is an int; negative gives "").
                let n = if v.kind() == ValueKind::Bool {
                    i64::from(v.is_true())
                } else {
                    v.as_i64().ok_or_else(|| {
                        Error::new(
                            ErrorKind::InvalidOperation,
                            "tojson: indent must be an integer or a string",
                        )
                    })?
                };
                let width = usize::try_from(n).unwrap_or(0);
                super::budget::check_string(width, "tojson's indent")?;
                Some(" ".repeat(width))
            }
        },
    };
    if options.indent.is_some() {
        options.item_separator = ",".into();
    }
    if let Some(separators) = separators.filter(|s| !s.is_none() && !s.is_undefined()) {
        let parts: Vec<Value> = separators.try_iter()?.collect();
        match parts.as_slice() {
            [item, key] if item.as_str().is_some() && key.as_str().is_some() => {
                options.item_separator = item.as_str().unwrap_or_default().to_string();
                options.key_separator = key.as_str().unwrap_or_default().to_string();
            }
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    "tojson: separators must be a pair of strings (item_separator, key_separator)",
                ));
            }
        }
    }
    let mut out = String::new();
    dump(value, &options, 0, &mut out)?;
    // A plain string, as Hugging Face's `tojson` returns a `str` (not a `Markup`): `'x'|safe + y|tojson`
    // escapes the JSON in Python, and the markup concatenation must see the same.
    Ok(Value::from(out))
}

/// `json.dumps(value)` with Python's defaults except `ensure_ascii=False` (as Hugging Face's `tojson`).
pub(crate) fn dumps(value: &Value) -> Result<String, Error> {
    let mut out = String::new();
    dump(value, &DumpOptions::default(), 0, &mut out)?;
    Ok(out)
}

/// Appends `value` as JSON to `out`.
pub(crate) fn dump(
    value: &Value,
    options: &DumpOptions,
    level: usize,
    out: &mut String,
) -> Result<(), Error> {
    if level > 256 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "tojson: value nested too deeply",
        ));
    }
    // A value printed into a string over the budget stops here (each item is checked on its way).
    super::budget::check_string(out.len(), "tojson")?;
    match value.kind() {
        ValueKind::None => out.push_str("null"),
        ValueKind::Undefined => {
            // Hugging Face's `tojson` is `json.dumps`, which rejects jinja2's `Undefined`.
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "Object of type Undefined is not JSON serializable",
            ));
        }
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => write_number(value, out),
        ValueKind::String => write_string(
            value.as_str().unwrap_or_default(),
            options.ensure_ascii,
            out,
        ),
        ValueKind::Bytes => {
            let text = String::from_utf8_lossy(value.as_bytes().unwrap_or_default()).into_owned();
            write_string(&text, options.ensure_ascii, out);
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let items: Vec<Value> = match value.downcast_object_ref::<PyList>() {
                Some(list) => list.snapshot(),
                None => value.try_iter()?.collect(),
            };
            write_container(out, options, level, '[', ']', &items, |item, out| {
                dump(item, options, level + 1, out)
            })?;
        }
        ValueKind::Map => {
            let mut entries = map_entries(value).unwrap_or_default();
            let mut keyed = Vec::with_capacity(entries.len());
            for (key, item) in entries.drain(..) {
                keyed.push((key_string(&key)?, item));
            }
            if options.sort_keys {
                keyed.sort_by(|a, b| a.0.cmp(&b.0));
            }
            write_container(out, options, level, '{', '}', &keyed, |(key, item), out| {
                write_string(key, options.ensure_ascii, out);
                out.push_str(&options.key_separator);
                dump(item, options, level + 1, out)
            })?;
        }
        ValueKind::Invalid => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: {value}"),
            ));
        }
        // Plain objects (functions, macros, …) are not JSON; Python would fail, print their text.
        _ => write_string(&value.to_string(), options.ensure_ascii, out),
    }
    Ok(())
}

fn write_container<T>(
    out: &mut String,
    options: &DumpOptions,
    level: usize,
    open: char,
    close: char,
    items: &[T],
    mut write_item: impl FnMut(&T, &mut String) -> Result<(), Error>,
) -> Result<(), Error> {
    out.push(open);
    if items.is_empty() {
        out.push(close);
        return Ok(());
    }
    let newline_indent = |out: &mut String, depth: usize| {
        if let Some(indent) = &options.indent {
            out.push('\n');
            for _ in 0..depth {
                out.push_str(indent);
            }
        }
    };
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(&options.item_separator);
        }
        newline_indent(out, level + 1);
        write_item(item, out)?;
    }
    newline_indent(out, level);
    out.push(close);
    Ok(())
}

/// A dict key as `json.dumps` converts it: strings as they are, numbers, booleans and None as JSON text.
fn key_string(key: &Value) -> Result<String, Error> {
    Ok(match key.kind() {
        ValueKind::String => key.as_str().unwrap_or_default().to_string(),
        ValueKind::Number => {
            let mut s = String::new();
            write_number(key, &mut s);
            s
        }
        ValueKind::Bool => (if key.is_true() { "true" } else { "false" }).to_string(),
        ValueKind::None | ValueKind::Undefined => "null".to_string(),
        other => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: keys must be str, int, float, bool or None, not {other}"),
            ));
        }
    })
}

fn write_number(value: &Value, out: &mut String) {
    if value.is_integer() {
        let _ = write!(out, "{value}");
    } else {
        match f64::try_from(value.clone()) {
            Ok(f) => out.push_str(&float_repr(f)),
            Err(_) => {
                let _ = write!(out, "{value}");
            }
        }
    }
}

/// Python's `str(f)` (the same as `repr(f)`): [`float_repr`] but with `nan`, `inf` and `-inf`.
pub(crate) fn python_float_str(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        float_repr(f)
    }
}

/// Python's `float.__repr__` (and `json.dumps` of a float): the shortest round-trip digits, positional
/// notation for exponents in `-4..16`, otherwise `1e+16` / `1.5e-07`; `NaN`, `Infinity`, `-Infinity`.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::from(sign);
    if (-4..16).contains(&exponent) {
        if exponent < 0 {
            out.push_str("0.");
            for _ in 0..(-exponent - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = usize::try_from(exponent).unwrap_or(0) + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.abs()
        );
    }
    out
}

/// A JSON string literal as Python's `json` module writes it.
pub(crate) fn write_string(s: &str, ensure_ascii: bool, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ensure_ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (f, expected) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (100.0, "100.0"),
            (123456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.0, "-0.0"),
            (1.2345e100, "1.2345e+100"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(float_repr(f), expected, "{f}");
        }
    }

    #[test]
    fn strings_escape_as_python() {
        let mut out = String::new();
        write_string("a\"\\\n\u{1}<é>😀\u{7f}", false, &mut out);
        assert_eq!(out, "\"a\\\"\\\\\\n\\u0001<é>😀\u{7f}\"");
        out.clear();
        write_string("<é>😀\u{7f}", true, &mut out);
        assert_eq!(out, "\"<\\u00e9>\\ud83d\\ude00\\u007f\"");
    }
}
