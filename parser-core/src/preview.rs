//! A best-effort preview of arguments that are still being written.
//!
//! For UIs that show a call while it streams, and for calls left incomplete at `max_tokens`. It is never
//! used to produce argument fragments: those are always the raw text.
//!
//! `partial-json-fixer` closes brackets and strings, but on its own it shows keys and literals the model
//! has only half written (`{"locat` becomes `{"locat": null}`, `tru` becomes `null`). So the text is first
//! cut back to the last point where everything before it is certain: after a complete value, after an
//! opening bracket, or inside a string value (but not inside an escape).

use serde_json::Value;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// In an array, or at the top: a value may start.
    ArrayValue,
    /// In an object, waiting for a key (or the closing brace).
    Key,
    /// After a key, waiting for the colon.
    Colon,
    /// After the colon, waiting for the value.
    ObjectValue,
    /// After a value, waiting for a comma or the closing bracket.
    After,
}

/// Returns the certain part of a partial JSON text as a value, or `None` when nothing is certain yet.
///
/// ```
/// use parser_core::preview_arguments;
/// use serde_json::json;
/// assert_eq!(preview_arguments(r#"{"location": "San Fra"#), Some(json!({"location": "San Fra"})));
/// // A half-written key or literal is not shown.
/// assert_eq!(preview_arguments(r#"{"unit": "c", "locat"#), Some(json!({"unit": "c"})));
/// assert_eq!(preview_arguments(r#"{"flag": tru"#), Some(json!({})));
/// assert_eq!(preview_arguments(r#"{"a": [1, 2"#), Some(json!({"a": [1, 2]})));
/// ```
pub fn preview_arguments(partial: &str) -> Option<Value> {
    let cut = certain_prefix_len(partial);
    if cut == 0 {
        return None;
    }
    let fixed = partial_json_fixer::fix_json(&partial[..cut]);
    serde_json::from_str(&fixed).ok()
}

/// Length of the longest prefix of `text` whose every token is complete (see the module docs).
fn certain_prefix_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut stack: Vec<Slot> = Vec::new();
    let mut top = Slot::ArrayValue;
    let mut cut = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if crate::json::is_ws(c) {
            i += 1;
            continue;
        }
        match top {
            Slot::Key => match c {
                b'"' => {
                    let Some(end) = string_end(bytes, i + 1) else {
                        return cut;
                    };
                    i = end;
                    top = Slot::Colon;
                    continue;
                }
                b'}' => {}
                _ => return cut,
            },
            Slot::Colon => {
                if c != b':' {
                    return cut;
                }
                top = Slot::ObjectValue;
                i += 1;
                continue;
            }
            Slot::After => match c {
                b',' => {
                    top = if stack.last() == Some(&Slot::Key) {
                        Slot::Key
                    } else {
                        Slot::ArrayValue
                    };
                    i += 1;
                    continue;
                }
                b'}' | b']' => {}
                _ => return cut,
            },
            Slot::ArrayValue | Slot::ObjectValue => {}
        }
        // A value starts here, or a container closes.
        match c {
            b'{' | b'[' => {
                stack.push(if c == b'{' {
                    Slot::Key
                } else {
                    Slot::ArrayValue
                });
                top = if c == b'{' {
                    Slot::Key
                } else {
                    Slot::ArrayValue
                };
                i += 1;
                cut = i;
            }
            b'}' | b']' => {
                stack.pop();
                top = Slot::After;
                i += 1;
                cut = i;
            }
            b'"' => match string_end(bytes, i + 1) {
                Some(end) => {
                    top = Slot::After;
                    i = end;
                    cut = i;
                }
                None => return partial_string_cut(bytes, i + 1),
            },
            b't' | b'f' | b'n' => {
                let word: &[u8] = match c {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !bytes[i..].starts_with(word) {
                    return cut;
                }
                i += word.len();
                top = Slot::After;
                cut = i;
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| i + n);
                // A number whose last byte is not a digit is still being written (`12.`, `1e-`).
                if !bytes[end - 1].is_ascii_digit() {
                    return cut;
                }
                i = end;
                top = Slot::After;
                cut = i;
            }
            _ => return cut,
        }
    }
    cut
}

/// The index just after the closing quote of a string whose content starts at `from`.
fn string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Inside an unterminated string value: everything up to a dangling escape is certain.
fn partial_string_cut(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    let mut cut = from;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let len = if bytes.get(i + 1) == Some(&b'u') {
                6
            } else {
                2
            };
            if i + len > bytes.len() {
                return cut;
            }
            i += len;
        } else {
            i += 1;
        }
        cut = i;
    }
    // Never cut inside a code point.
    while cut > 0 && cut < bytes.len() && (bytes[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    #[case(r#"{"locat"#, Some(json!({})))]
    #[case(r#"{"location": "San Fra"#, Some(json!({"location": "San Fra"})))]
    #[case(r#"{"count": 12"#, Some(json!({"count": 12})))]
    #[case(r#"{"temp": -12."#, Some(json!({})))]
    #[case(r#"{"x": 1e-"#, Some(json!({})))]
    #[case(r#"{"city": "Caf\u00"#, Some(json!({"city": "Caf"})))]
    #[case(r#"{"path": "C:\"#, Some(json!({"path": "C:"})))]
    #[case(r#"{"location":"#, Some(json!({})))]
    #[case(r#"{"location": "Paris", "#, Some(json!({"location": "Paris"})))]
    #[case(r#"{"a": [[1, 2], [3, "#, Some(json!({"a": [[1, 2], [3]]})))]
    #[case(r#"{"flag": tru"#, Some(json!({})))]
    #[case(r#"{"flag": true"#, Some(json!({"flag": true})))]
    #[case(r#"{"msg": "say \"hi"#, Some(json!({"msg": "say \"hi"})))]
    #[case(r#"{"a": {"b": ["x", {"c": "d"#, Some(json!({"a": {"b": ["x", {"c": "d"}]}})))]
    #[case("", None)]
    #[case("{", Some(json!({})))]
    fn previews_only_what_is_certain(#[case] partial: &str, #[case] expected: Option<Value>) {
        assert_eq!(preview_arguments(partial), expected, "{partial}");
    }

    #[test]
    fn never_panics_on_any_prefix() {
        let text = r#"{"a": [1, -2.5e3, "x\"y\u00e9😀", {"b": null, "c": false}], "d": "北京"}"#;
        for (at, _) in text.char_indices() {
            let _ = preview_arguments(&text[..at]);
        }
        assert_eq!(preview_arguments(text), serde_json::from_str(text).ok());
    }
}
