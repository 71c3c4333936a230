//! The minijinja environment a chat template is compiled in: Hugging Face's Jinja settings
//! (`trim_blocks`, `lstrip_blocks`, no auto-escaping) and the Python behaviour real templates rely on.

use std::borrow::Cow;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Kwargs, Value};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State};
use parser_core::TemplateLimits;

use super::pyjson;
use super::strftime;
use super::values;

mod filters;
mod guarded;
mod markup;
pub(crate) mod pystr;

/// Hugging Face's syntax: ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True), Jinja's
/// default keep_trailing_newline=False.
pub(crate) fn syntax() -> SyntaxConfig {
    SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(false)
        .build()
        .unwrap_or_default()
}

/// A fresh environment with the chat-template globals, filters, tests and methods, the budget's guard
/// functions, and `limits`' fuel and recursion depth. Templates are not added to it: they are compiled
/// by [`super::budget::Compiled`], which rewrites them for the budget.
pub(crate) fn build(limits: &TemplateLimits) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_syntax(syntax());
    env.set_fuel(Some(limits.fuel));
    env.set_recursion_limit(limits.recursion);
    super::budget::register(&mut env);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_unknown_method_callback(unknown_method);
    env.set_formatter(filters::format_value);

    guarded::register(&mut env);
    env.add_filter("tojson", pyjson::tojson_filter);
    env.add_filter("string", filters::string);
    env.add_filter("join", filters::join);
    env.add_filter("trim", filters::trim);
    env.add_filter("int", filters::int);
    env.add_filter("float", filters::float);
    env.add_filter("items", filters::items);
    env.add_filter("attr", filters::attr);
    env.add_filter("wordcount", filters::wordcount);
    env.add_filter("escape", markup::escape_filter);
    env.add_filter("e", markup::escape_filter);
    env.add_filter("indent", indent);
    env.add_filter("length", length);
    env.add_filter("count", length);
    env.add_test("iterable", is_iterable);
    env.add_test("sequence", filters::is_sequence);
    env.add_function("namespace", values::namespace);
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", |format: Cow<'_, str>| {
        strftime::strftime_now(&format)
    });
    env.add_function(markup::CONCAT_FN, markup::concat);
    env
}

/// The template text minijinja compiles: Hugging Face's `{% generation %}` tags and `Markup` `+` chains
/// rewritten (see [`strip_generation_tags`] and [`markup`]).
pub(crate) fn prepare_source(source: &str) -> String {
    let source = strip_generation_tags(source);
    markup::rewrite(&source).unwrap_or(source)
}

/// Methods on primitives: minijinja-contrib's Python compatibility layer first, then a few more string
/// methods it lacks.
fn unknown_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    if let Some(s) = value.as_str() {
        guarded::check_string_method(s, method, args)?;
        if let Some(result) = filters::string_method(s, method, args) {
            return result;
        }
    }
    match minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args) {
        Err(err) if err.kind() == ErrorKind::UnknownMethod => {}
        other => return other,
    }
    if let Some(s) = value.as_str() {
        match method {
            "removeprefix" => {
                let (prefix,): (Cow<'_, str>,) = minijinja::value::from_args(args)?;
                return Ok(Value::from(s.strip_prefix(&*prefix).unwrap_or(s)));
            }
            "removesuffix" => {
                let (suffix,): (Cow<'_, str>,) = minijinja::value::from_args(args)?;
                return Ok(Value::from(s.strip_suffix(&*suffix).unwrap_or(s)));
            }
            _ => {}
        }
    }
    Err(Error::from(ErrorKind::UnknownMethod))
}

/// `raise_exception(message)`: fails the render with `message` (Hugging Face's helper).
fn raise_exception(message: Option<Value>) -> Result<Value, Error> {
    let message = message.map(|m| m.to_string()).unwrap_or_default();
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

/// `is iterable` as in Python: `none` is not iterable; undefined is (it iterates as empty, as Jinja's
/// `Undefined` does); strings, lists and maps are.
fn is_iterable(value: &Value) -> bool {
    if value.is_none() {
        return false;
    }
    value.is_undefined() || value.try_iter().is_ok()
}

/// `|length` (and `|count`) as in Python: the length of undefined is 0 (Jinja's `Undefined.__len__`).
fn length(value: &Value) -> Result<usize, Error> {
    if value.is_undefined() {
        return Ok(0);
    }
    value.len().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("object of type {} has no len()", value.kind()),
        )
    })
}

/// Jinja's `indent(width=4, first=False, blank=False)`, exactly: a trailing newline is kept, the width
/// may be a string, and lines are split as Python's `str.splitlines` does.
fn indent(
    value: Cow<'_, str>,
    width: Option<Value>,
    first: Option<bool>,
    blank: Option<bool>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let width = match width {
        Some(width) => Some(width),
        None => kwargs.get::<Option<Value>>("width")?,
    };
    let first = match first {
        Some(first) => first,
        None => kwargs.get::<Option<bool>>("first")?.unwrap_or(false),
    };
    let blank = match blank {
        Some(blank) => blank,
        None => kwargs.get::<Option<bool>>("blank")?.unwrap_or(false),
    };
    kwargs.assert_all_used()?;
    let indention = match width {
        None => "    ".to_string(),
        Some(w) => match w.as_str() {
            Some(s) => s.to_string(),
            None => {
                let n = w.as_i64().ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidOperation,
                        "indent: width must be an integer or a string",
                    )
                })?;
                let width = usize::try_from(n).unwrap_or(0);
                super::budget::check_string(width, "`indent`")?;
                " ".repeat(width)
            }
        },
    };
    // Jinja: `s += "\n"` (so that a trailing newline survives splitlines), then rejoin with "\n".
    let text = format!("{value}\n");
    let lines = pystr::splitlines(&text, false);
    super::budget::check_string(
        text.len()
            .saturating_add(lines.len().saturating_mul(indention.len())),
        "`indent`",
    )?;
    let mut out = String::with_capacity(text.len() + lines.len() * indention.len());
    if blank {
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
                out.push_str(&indention);
            }
            out.push_str(line);
        }
    } else {
        let mut iter = lines.iter();
        if let Some(head) = iter.next() {
            out.push_str(head);
        }
        let rest: Vec<&&str> = iter.collect();
        if !rest.is_empty() {
            out.push('\n');
            for (i, line) in rest.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                if !line.is_empty() {
                    out.push_str(&indention);
                    out.push_str(line);
                }
            }
        }
    }
    if first {
        out.insert_str(0, &indention);
    }
    Ok(Value::from(out))
}

/// Hugging Face's `{% generation %}…{% endgeneration %}` (its `AssistantTracker` extension) marks the
/// assistant's text for masks and renders its body unchanged; minijinja has no such tag, so it is
/// rewritten as an always-true `if`, whitespace control included.
fn strip_generation_tags(source: &str) -> String {
    if !source.contains("generation") {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(pos) = rest.find("{%") {
        out.push_str(&rest[..pos]);
        let tag = &rest[pos..];
        // The closer is searched after the opener: in `{%}` the `%}` overlaps it.
        let Some(end) = tag[2..].find("%}").map(|i| i + 2) else {
            out.push_str(tag);
            rest = "";
            break;
        };
        let inner = &tag[2..end];
        let (open_ws, body) = match inner.chars().next() {
            Some(c @ ('-' | '+')) => (c.to_string(), &inner[1..]),
            _ => (String::new(), inner),
        };
        let (body, close_ws) = match body.chars().last() {
            Some(c @ ('-' | '+')) => (&body[..body.len() - 1], c.to_string()),
            _ => (body, String::new()),
        };
        let replacement = match body.trim() {
            "generation" => Some("if true"),
            "endgeneration" => Some("endif"),
            _ => None,
        };
        match replacement {
            Some(word) => {
                out.push_str("{%");
                out.push_str(&open_ws);
                out.push(' ');
                out.push_str(word);
                out.push(' ');
                out.push_str(&close_ws);
                out.push_str("%}");
            }
            None => out.push_str(&tag[..end + 2]),
        }
        rest = &tag[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(source: &str, ctx: Value) -> Result<String, Error> {
        let limits = TemplateLimits::default();
        let env = build(&limits);
        let compiled = super::super::budget::Compiled::compile(
            "t",
            prepare_source(source),
            syntax(),
            &limits,
        )?;
        super::super::budget::render(&env, &compiled, ctx, limits, u64::MAX).0
    }

    #[test]
    fn indent_matches_jinja() {
        let ctx = Value::from_pairs([("s", Value::from("a\nb\n\nc\n"))]);
        assert_eq!(
            render("{{ s|indent(2) }}", ctx.clone()).unwrap(),
            "a\n  b\n\n  c\n"
        );
        assert_eq!(
            render("{{ s|indent(2, first=true) }}", ctx.clone()).unwrap(),
            "  a\n  b\n\n  c\n"
        );
        assert_eq!(
            render("{{ s|indent(2, blank=true) }}", ctx.clone()).unwrap(),
            "a\n  b\n  \n  c\n  "
        );
        assert_eq!(render("{{ 'x'|indent }}", ctx.clone()).unwrap(), "x");
        assert_eq!(render("{{ 'x\ny'|indent('> ') }}", ctx).unwrap(), "x\n> y");
    }

    #[test]
    fn python_truthiness_and_iterability() {
        let ctx = Value::from_pairs([("n", Value::from(()))]);
        assert_eq!(
            render(
                "{{ n is iterable }} {{ u is iterable }} {{ u|length }} {{ 'ab' is iterable }} {{ true }} {{ n }}",
                ctx
            )
            .unwrap(),
            "False True 0 True True None"
        );
    }

    #[test]
    fn a_closer_overlapping_the_opener_is_not_a_tag_end() {
        // Found by the templates fuzzer: `{%}` sliced `tag[2..1]`.
        assert_eq!(
            strip_generation_tags("{%}} generation x"),
            "{%}} generation x"
        );
        // As Jinja's lexer reads it: `{%` opens a tag that the next `%}` closes.
        assert_eq!(
            strip_generation_tags("{%} {% generation %}a{% endgeneration %}"),
            "{%} {% generation %}a{% endif %}"
        );
    }

    #[test]
    fn generation_tags_render_their_body() {
        let src =
            "{%- for m in ['a', 'b'] %}{% generation %}{{ m }}{%- endgeneration -%} {% endfor %}";
        assert_eq!(render(src, Value::UNDEFINED).unwrap(), "ab");
    }

    #[test]
    fn splitlines_like_python() {
        assert_eq!(pystr::splitlines("a\r\nb\rc\n", false), vec!["a", "b", "c"]);
        assert_eq!(pystr::splitlines("a\n\nb", false), vec!["a", "", "b"]);
        assert_eq!(pystr::splitlines("", false), Vec::<&str>::new());
    }

    #[test]
    fn string_methods_beyond_pycompat() {
        assert_eq!(
            render(
                "{{ 'xab'.removeprefix('x') }}{{ 'abx'.removesuffix('x') }}",
                Value::UNDEFINED
            )
            .unwrap(),
            "abab"
        );
    }

    #[test]
    fn namespace_lists_are_mutable() {
        let src =
            "{% set ns = namespace(a=[1], b=2) %}{% set _ = ns.a.append(3) %}{{ ns.a }} {{ ns.b }}";
        assert_eq!(render(src, Value::UNDEFINED).unwrap(), "[1, 3] 2");
        let src = "{% set ns = namespace({'a': []}) %}{% set _ = ns.a.append(1) %}{% set ns.b = 2 %}{{ ns.a }}{{ ns.b }}";
        assert_eq!(render(src, Value::UNDEFINED).unwrap(), "[1]2");
        let src = "{% set ns = namespace() %}{% set ns.x = 1 %}{{ ns.x }}";
        assert_eq!(render(src, Value::UNDEFINED).unwrap(), "1");
    }
}
