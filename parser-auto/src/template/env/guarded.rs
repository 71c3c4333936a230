//! minijinja's builtin filters and Python's string methods that allocate what an argument says
//! (`batch(N, fill)`, `'%Ns'|format`, `s.ljust(N)`, `s|replace('', t)`, `s|list`), with the budget's
//! size check before they allocate. Everything else they do is minijinja's or minijinja-contrib's.

use minijinja::value::{Rest, StringInput, Value, ValueOrKwargs};
use minijinja::{Environment, Error, State};

use crate::template::budget;

/// Replaces the builtins that need a check before they allocate.
pub(super) fn register(env: &mut Environment<'static>) {
    use minijinja::filters;
    env.add_filter(
        "batch",
        |state: &State, value: Value, count: usize, fill: Option<Value>| {
            budget::check_items(count, "`batch`")?;
            filters::batch(state, value, count, fill)
        },
    );
    env.add_filter(
        "slice",
        |state: &State, value: Value, count: usize, fill: Option<Value>| {
            budget::check_items(count, "`slice`")?;
            filters::slice(state, value, count, fill)
        },
    );
    env.add_filter(
        "replace",
        |state: &mut State, value: Value, from: Value, to: Value| {
            if let (Some(s), Some(old), Some(new)) = (value.as_str(), from.as_str(), to.as_str()) {
                budget::check_string(replaced_len(s, old, new, None), "`replace`")?;
            }
            let (value, from, to) = (
                StringInput::new(state, &value)?,
                StringInput::new(state, &from)?,
                StringInput::new(state, &to)?,
            );
            filters::replace(state, value, from, to)
        },
    );
    env.add_filter(
        "format",
        |state: &mut State, format: &Value, args: Rest<ValueOrKwargs>| {
            if let Some(format) = format.as_str() {
                check_widths(format, "`format`")?;
            }
            filters::format(state, format, args)
        },
    );
    env.add_filter("pprint", |value: &Value| -> Result<String, Error> {
        use std::fmt::Write as _;
        budget::format_capped("`pprint`", |w| write!(w, "{value:#?}"))
    });
    env.add_filter("list", |state: &State, value: Value| {
        if let Some(s) = value.as_str() {
            budget::check_items(s.chars().count(), "`list`")?;
        }
        filters::list(state, value)
    });
    env.add_filter(
        "split",
        |value: &Value, split: Option<std::sync::Arc<str>>, maxsplits: Option<i64>| {
            if let Some(s) = value.as_str() {
                budget::check_items(pieces(s, split.as_deref()), "`split`")?;
            }
            filters::split(value, split, maxsplits)
        },
    );
    env.add_filter("lines", |value: &Value| {
        if let Some(s) = value.as_str() {
            budget::check_items(pieces(s, Some("\n")), "`lines`")?;
        }
        filters::lines(value)
    });
}

/// Checks a string method's arguments before minijinja-contrib (or our own string methods) run it.
pub(super) fn check_string_method(s: &str, method: &str, args: &[Value]) -> Result<(), Error> {
    let what = || format!("`str.{method}`");
    let width = |i: usize| args.get(i).and_then(Value::as_i64).unwrap_or(0).max(0) as usize;
    match method {
        "ljust" | "rjust" | "center" | "zfill" => budget::check_string(width(0), &what()),
        "expandtabs" => {
            let size = args.first().and_then(Value::as_i64).unwrap_or(8).max(0) as usize;
            let tabs = s.matches('\t').count();
            budget::check_string(s.len().saturating_add(tabs.saturating_mul(size)), &what())
        }
        "replace" => match (
            args.first().and_then(Value::as_str),
            args.get(1).and_then(Value::as_str),
        ) {
            (Some(old), Some(new)) => {
                let count = args
                    .get(2)
                    .and_then(Value::as_i64)
                    .and_then(|n| usize::try_from(n).ok());
                budget::check_string(replaced_len(s, old, new, count), &what())
            }
            _ => Ok(()),
        },
        "format" | "format_map" => check_widths(s, &what()),
        "join" => {
            // `sep.join(items)`: the separator repeats once an item.
            let items = args.first().and_then(Value::len).unwrap_or(0);
            budget::check_string(s.len().saturating_mul(items), &what())
        }
        "split" | "rsplit" => {
            let sep = args.first().and_then(Value::as_str);
            budget::check_items(pieces(s, sep), &what())
        }
        "splitlines" => budget::check_items(pieces(s, Some("\n")), &what()),
        _ => Ok(()),
    }
}

/// The length of `s` with `old` replaced by `new` (`count` times at most), computed without building it.
fn replaced_len(s: &str, old: &str, new: &str, count: Option<usize>) -> usize {
    let found = if old.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(old).count()
    };
    let found = count.map_or(found, |n| n.min(found));
    s.len()
        .saturating_sub(found.saturating_mul(old.len()))
        .saturating_add(found.saturating_mul(new.len()))
}

/// An upper bound of the pieces `s` splits into: one more than the separators (any whitespace
/// character when there is none), and one a character for an empty separator.
fn pieces(s: &str, sep: Option<&str>) -> usize {
    match sep {
        Some("") => s.chars().count(),
        Some(sep) => s.matches(sep).count() + 1,
        None => s.chars().filter(|c| c.is_whitespace()).count() + 1,
    }
}

/// Refuses a format string whose field widths or precisions (`%1000000000s`, `{:>1000000000}`) ask for
/// more than the budget's string size.
fn check_widths(format: &str, what: &str) -> Result<(), Error> {
    let mut number: usize = 0;
    let mut in_number = false;
    for c in format.chars() {
        if let Some(d) = c.to_digit(10) {
            number = number.saturating_mul(10).saturating_add(d as usize);
            in_number = true;
        } else {
            if in_number {
                budget::check_string(number, what)?;
            }
            number = 0;
            in_number = false;
        }
    }
    if in_number {
        budget::check_string(number, what)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaced_lengths_match_python() {
        for (s, old, new, count) in [
            ("abcabc", "b", "xyz", None),
            ("abcabc", "b", "", None),
            ("abc", "", "-", None),
            ("aaaa", "a", "bb", Some(2)),
            ("", "", "x", None),
        ] {
            let mut out = s.to_string();
            if old.is_empty() {
                let mut built = String::from(new);
                for c in s.chars() {
                    built.push(c);
                    built.push_str(new);
                }
                out = built;
            } else {
                out = match count {
                    Some(n) => out.replacen(old, new, n),
                    None => out.replace(old, new),
                };
            }
            assert_eq!(
                replaced_len(s, old, new, count),
                out.len(),
                "{s:?} {old:?} {new:?}"
            );
        }
    }

    #[test]
    fn widths_are_found_in_both_format_styles() {
        assert!(check_widths("%5s and {:>10}", "t").is_ok());
        assert!(check_widths("%1000000000000s", "t").is_err());
        assert!(check_widths("{:>99999999999}", "t").is_err());
    }
}
