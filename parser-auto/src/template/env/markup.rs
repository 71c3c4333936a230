//! Python's `Markup` arithmetic, for templates that concatenate `|safe` strings with `+`.
//!
//! In Jinja2, `'x'|safe` is a `markupsafe.Markup`, and `Markup + str` (or `str + Markup`) HTML-escapes
//! the plain operand: Functionary v3.1 writes
//! `"Use the function '"|safe + name + "' to '"|safe + … + t | tojson()`, so Hugging Face prints the
//! tool's JSON as `{&#34;name&#34;: …}`. minijinja's `+` drops the safe flag and escapes nothing, and it
//! has no operator hook, so such `+` chains are rewritten in the template source into a call of
//! [`CONCAT_FN`], which folds its operands as Python does.
//!
//! Only chains with an operand that visibly ends in a markup filter (`|safe`, `|e`, `|escape`,
//! `|forceescape`) are rewritten; a chain whose operands are `Markup` only through a variable
//! (`{% set a = x|safe %}…{{ b + a }}`) keeps minijinja's `+`. Every other byte of the template is left
//! as it is, so line numbers in errors do not move.

use minijinja::value::{Rest, Value};
use minijinja::{Error, ErrorKind};

/// The global function the rewritten chains call.
pub(super) const CONCAT_FN: &str = "__hf_markup_concat";

/// Filters whose result is a `Markup` in Jinja2.
const MARKUP_FILTERS: [&str; 4] = ["safe", "e", "escape", "forceescape"];

/// Names that end an operand of `+` (lower precedence, or statement syntax).
const TERMINATOR_NAMES: [&str; 17] = [
    "and",
    "or",
    "not",
    "in",
    "if",
    "else",
    "elif",
    "for",
    "set",
    "recursive",
    "with",
    "without",
    "import",
    "from",
    "as",
    "macro",
    "call",
];

/// Operators that end an operand of `+` (lower precedence than `+`, or separators).
const TERMINATOR_OPS: [&str; 11] = [",", ":", "=", "==", "!=", "<", ">", "<=", ">=", "~", ";"];

/// `markupsafe.escape` of `text`: `& < > ' "` as `&amp; &lt; &gt; &#39; &#34;` (and nothing else, unlike
/// minijinja's HTML escaping, which also escapes `/`).
pub(super) fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            c => out.push(c),
        }
    }
}

/// `escape` / `e` as Jinja2's: a `Markup` stays as it is; anything else is converted to text and escaped
/// with markupsafe's rules.
pub(super) fn escape_filter(value: &Value) -> Value {
    if value.is_safe() {
        return value.clone();
    }
    let text = if value.is_undefined() {
        String::new()
    } else {
        value.to_string()
    };
    let mut out = String::with_capacity(text.len());
    escape_into(&text, &mut out);
    Value::from_safe_string(out)
}

/// `a + b + …` with Python's semantics for strings and `Markup`s: once a `Markup` takes part, every
/// plain operand is escaped and the result is a `Markup`; anything but strings fails, as in Python.
pub(super) fn concat(operands: Rest<Value>) -> Result<Value, Error> {
    let mut out = String::new();
    let mut markup = false;
    for operand in operands.iter() {
        let Some(text) = operand.as_str() else {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "unsupported operand type(s) for +: 'str' and '{}'",
                    operand.kind()
                ),
            ));
        };
        match (markup, operand.is_safe()) {
            (false, false) | (true, true) => out.push_str(text),
            (true, false) => escape_into(text, &mut out),
            (false, true) => {
                // The plain text before the first `Markup` is escaped as a whole (`str + Markup`).
                let mut escaped = String::with_capacity(out.len() + text.len());
                escape_into(&out, &mut escaped);
                escaped.push_str(text);
                out = escaped;
                markup = true;
            }
        }
    }
    Ok(if markup {
        Value::from_safe_string(out)
    } else {
        Value::from(out)
    })
}

/// The template with its markup `+` chains rewritten, or `None` when there is none.
pub(super) fn rewrite(source: &str) -> Option<String> {
    let may_have_markup = ["safe", "escape", "|e", "| e"]
        .iter()
        .any(|word| source.contains(word));
    if !may_have_markup || !source.contains('+') {
        return None;
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut changed = false;
    let mut pos = 0;
    while let Some(offset) = source[pos..].find('{') {
        let open = pos + offset;
        let rest = &source[open..];
        if rest.starts_with("{#") {
            let end = rest.find("#}").map_or(source.len(), |e| open + e + 2);
            out.push_str(&source[pos..end]);
            pos = end;
            continue;
        }
        let is_block = rest.starts_with("{%");
        if !is_block && !rest.starts_with("{{") {
            out.push_str(&source[pos..open + 1]);
            pos = open + 1;
            continue;
        }
        let mut body_start = open + 2;
        if matches!(source.as_bytes().get(body_start), Some(b'-' | b'+')) {
            body_start += 1;
        }
        if is_block && starts_raw_block(&source[body_start..]) {
            let end = raw_block_end(source, body_start);
            out.push_str(&source[pos..end]);
            pos = end;
            continue;
        }
        let Some((tokens, body_end)) = tokenize_tag(source, body_start, is_block) else {
            // An unterminated tag: leave the rest to the compiler, which reports it.
            break;
        };
        out.push_str(&source[pos..body_start]);
        if tokens.is_empty() {
            out.push_str(&source[body_start..body_end]);
        } else {
            let first = tokens[0].start;
            let last = tokens[tokens.len() - 1].end;
            let rewritten = Region {
                src: source,
                toks: &tokens,
            }
            .emit(0, tokens.len());
            changed |= rewritten != source[first..last];
            out.push_str(&source[body_start..first]);
            out.push_str(&rewritten);
            out.push_str(&source[last..body_end]);
        }
        pos = body_end;
    }
    out.push_str(&source[pos..]);
    changed.then_some(out)
}

fn starts_raw_block(body: &str) -> bool {
    let word = body.trim_start();
    word.starts_with("raw")
        && !word[3..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
}

/// The byte after the `{% endraw %}` that closes a raw block (the end of the text if none does).
fn raw_block_end(source: &str, from: usize) -> usize {
    let Some(at) = source[from..].find("endraw") else {
        return source.len();
    };
    let after = from + at;
    source[after..]
        .find("%}")
        .map_or(source.len(), |e| after + e + 2)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Str,
    Num,
    Name,
    Op,
    Open,
    Close,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
}

/// The tokens of the tag whose body starts at `from`, and where its closing delimiter (with its
/// whitespace-control sign) starts; `None` if the tag never closes.
fn tokenize_tag(src: &str, from: usize, is_block: bool) -> Option<(Vec<Tok>, usize)> {
    let bytes = src.as_bytes();
    let close = if is_block { b'%' } else { b'}' };
    let mut tokens = Vec::new();
    let mut depth = 0usize;
    let mut i = from;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if depth == 0 {
            // Jinja only recognizes the end of a tag when brackets are balanced.
            if c == close && bytes.get(i + 1) == Some(&b'}') {
                return Some((tokens, i));
            }
            if matches!(c, b'-' | b'+')
                && bytes.get(i + 1) == Some(&close)
                && bytes.get(i + 2) == Some(&b'}')
            {
                return Some((tokens, i));
            }
        }
        let start = i;
        let kind = match c {
            b'\'' | b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != c {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                Kind::Str
            }
            b'0'..=b'9' => {
                i = number_end(bytes, i);
                Kind::Num
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
                Kind::Open
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
                Kind::Close
            }
            c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                while i < bytes.len()
                    && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric() || bytes[i] >= 0x80)
                {
                    i += 1;
                }
                Kind::Name
            }
            _ => {
                let two = src.get(i..i + 2).unwrap_or("");
                i += if matches!(two, "**" | "//" | "==" | "!=" | "<=" | ">=") {
                    2
                } else {
                    1
                };
                Kind::Op
            }
        };
        tokens.push(Tok {
            kind,
            start,
            end: i,
        });
    }
    None
}

/// The end of the number literal starting at `i` (`1_000`, `2.5`, `1e-05`).
fn number_end(bytes: &[u8], mut i: usize) -> usize {
    let digits = |bytes: &[u8], mut i: usize| {
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
            i += 1;
        }
        i
    };
    i = digits(bytes, i);
    if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i = digits(bytes, i + 1);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            i = digits(bytes, j);
        }
    }
    i
}

/// The tokens of one tag, and the source they point into.
struct Region<'a> {
    src: &'a str,
    toks: &'a [Tok],
}

/// A token, or a bracket group from its opening to its closing token: `(lo, hi)`, end exclusive.
type Atom = (usize, usize);

impl Region<'_> {
    fn text(&self, t: usize) -> &str {
        &self.src[self.toks[t].start..self.toks[t].end]
    }

    /// The atoms of tokens `lo..hi`.
    fn atoms(&self, lo: usize, hi: usize) -> Vec<Atom> {
        let mut atoms = Vec::new();
        let mut i = lo;
        while i < hi {
            if self.toks[i].kind == Kind::Open {
                let mut depth = 0usize;
                let mut j = i;
                while j < hi {
                    match self.toks[j].kind {
                        Kind::Open => depth += 1,
                        Kind::Close => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let end = (j + 1).min(hi);
                atoms.push((i, end));
                i = end;
            } else {
                atoms.push((i, i + 1));
                i += 1;
            }
        }
        atoms
    }

    /// Tokens `lo..hi` as source text (from the first token's start to the last one's end), with the
    /// markup chains in them rewritten.
    fn emit(&self, lo: usize, hi: usize) -> String {
        let atoms = self.atoms(lo, hi);
        let mut out = String::new();
        let mut i = 0;
        while i < atoms.len() {
            if i > 0 {
                out.push_str(self.gap(atoms[i - 1], atoms[i]));
            }
            if self.is_terminator(atoms[i]) {
                out.push_str(&self.emit_atom(atoms[i]));
                i += 1;
                continue;
            }
            let mut j = i;
            while j < atoms.len() && !self.is_terminator(atoms[j]) {
                j += 1;
            }
            out.push_str(&self.emit_segment(&atoms[i..j]));
            i = j;
        }
        out
    }

    /// The source between two atoms (whitespace).
    fn gap(&self, before: Atom, after: Atom) -> &str {
        &self.src[self.toks[before.1 - 1].end..self.toks[after.0].start]
    }

    fn emit_atom(&self, (lo, hi): Atom) -> String {
        if self.toks[lo].kind != Kind::Open || hi - lo < 2 || self.toks[hi - 1].kind != Kind::Close
        {
            return self.src[self.toks[lo].start..self.toks[hi - 1].end].to_string();
        }
        let mut out = self.text(lo).to_string();
        if hi - lo > 2 {
            out.push_str(&self.src[self.toks[lo].end..self.toks[lo + 1].start]);
            out.push_str(&self.emit(lo + 1, hi - 1));
            out.push_str(&self.src[self.toks[hi - 2].end..self.toks[hi - 1].start]);
        } else {
            out.push_str(&self.src[self.toks[lo].end..self.toks[hi - 1].start]);
        }
        out.push_str(self.text(hi - 1));
        out
    }

    fn emit_atoms(&self, atoms: &[Atom]) -> String {
        let mut out = String::new();
        for (i, atom) in atoms.iter().enumerate() {
            if i > 0 {
                out.push_str(self.gap(atoms[i - 1], *atom));
            }
            out.push_str(&self.emit_atom(*atom));
        }
        out
    }

    fn is_terminator(&self, (lo, hi): Atom) -> bool {
        if hi - lo != 1 {
            return false;
        }
        let text = self.text(lo);
        match self.toks[lo].kind {
            Kind::Name => TERMINATOR_NAMES.contains(&text),
            Kind::Op => TERMINATOR_OPS.contains(&text),
            _ => false,
        }
    }

    /// Whether an atom can end an operand, so that a `+` or `-` after it is binary.
    fn ends_operand(&self, (lo, hi): Atom) -> bool {
        hi - lo > 1 || matches!(self.toks[lo].kind, Kind::Str | Kind::Num | Kind::Name)
    }

    /// A segment between terminators: a `+` chain with a markup operand becomes a [`CONCAT_FN`] call.
    fn emit_segment(&self, atoms: &[Atom]) -> String {
        let mut operands: Vec<&[Atom]> = Vec::new();
        let mut ops = Vec::new();
        let mut start = 0;
        for (i, atom) in atoms.iter().enumerate() {
            let is_sign = atom.1 - atom.0 == 1
                && self.toks[atom.0].kind == Kind::Op
                && matches!(self.text(atom.0), "+" | "-");
            if is_sign && i > start && self.ends_operand(atoms[i - 1]) {
                operands.push(&atoms[start..i]);
                ops.push(self.text(atom.0));
                start = i + 1;
            }
        }
        operands.push(&atoms[start..]);
        let rewrite = operands.len() > 1
            && operands.iter().all(|o| !o.is_empty())
            && ops.iter().all(|op| *op == "+")
            && operands.iter().any(|o| self.is_markup(o));
        if !rewrite {
            return self.emit_atoms(atoms);
        }
        let parts: Vec<String> = operands
            .iter()
            .map(|o| format!("({})", self.emit_atoms(o)))
            .collect();
        let mut call = format!("{CONCAT_FN}({})", parts.join(", "));
        // Newlines between the operands are dropped with the `+`s: put them back (whitespace inside a
        // tag), so that later lines keep their numbers in error messages.
        let dropped = self.emit_atoms(atoms).matches('\n').count() - call.matches('\n').count();
        call.extend(std::iter::repeat_n('\n', dropped));
        call
    }

    /// Whether an operand visibly evaluates to a `Markup`: it ends with a markup filter (with or without
    /// arguments), or is a parenthesized expression that does.
    fn is_markup(&self, operand: &[Atom]) -> bool {
        let n = operand.len();
        let filter_at = |i: usize| {
            i >= 1
                && self.toks[operand[i].0].kind == Kind::Name
                && operand[i].1 - operand[i].0 == 1
                && MARKUP_FILTERS.contains(&self.text(operand[i].0))
                && self.text(operand[i - 1].0) == "|"
        };
        if n >= 2 && filter_at(n - 1) {
            return true;
        }
        if n >= 3 && self.toks[operand[n - 1].0].kind == Kind::Open && filter_at(n - 2) {
            return self.text(operand[n - 1].0) == "(";
        }
        if let [(lo, hi)] = operand
            && self.text(*lo) == "("
            && hi - lo > 2
        {
            let inner = self.atoms(lo + 1, hi - 1);
            return !inner.iter().any(|a| self.is_terminator(*a)) && self.is_markup(&inner);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(src: &str) -> String {
        rewrite(src).unwrap_or_else(|| src.to_string())
    }

    #[test]
    fn functionary_chain_becomes_a_concat_call() {
        let src = r#"{{ "Use '"|safe + t["name"] + "' to '"|safe + t["d"] + "'\n"|safe + t | tojson() }}"#;
        assert_eq!(
            rewritten(src),
            r#"{{ __hf_markup_concat(("Use '"|safe), (t["name"]), ("' to '"|safe), (t["d"]), ("'\n"|safe), (t | tojson())) }}"#
        );
    }

    #[test]
    fn other_expressions_are_untouched() {
        for src in [
            "{{ a + b }}{% set x = y|safe %}{{ '-' + c }}",
            "{{- (x | tojson | safe) ~ '</' ~ k ~ '>' -}}",
            "{# a|safe + b #}{% raw %}{{ a|safe + b }}{% endraw %}",
            "{% if a|safe == b + c %}{% endif %}",
            "{{ a|safe - b }}{{ {'k': {'v': 1}} }}",
        ] {
            assert_eq!(rewrite(src), None, "{src}");
        }
    }

    #[test]
    fn chains_are_found_in_nested_expressions_and_statements() {
        assert_eq!(
            rewritten("{%- set s = f(1, 'a'|e + b) if c else d -%}"),
            "{%- set s = f(1, __hf_markup_concat(('a'|e), (b))) if c else d -%}"
        );
        assert_eq!(
            rewritten("{{ x + ('y'|safe) + -1e-5 }}"),
            "{{ __hf_markup_concat((x), (('y'|safe)), (-1e-5)) }}"
        );
        assert_eq!(
            rewritten("{{ '}}' + x|safe(1) }}"),
            "{{ __hf_markup_concat(('}}'), (x|safe(1))) }}"
        );
        assert_eq!(
            rewritten("{{ a|safe +\n b }}\n{{ c }}"),
            "{{ __hf_markup_concat((a|safe), (b))\n }}\n{{ c }}"
        );
    }

    #[test]
    fn concat_escapes_like_markupsafe() {
        let safe = Value::from_safe_string("<b>".into());
        let plain = Value::from("a&'\"<>/");
        let out = concat(Rest(vec![plain.clone(), safe.clone(), plain.clone()])).unwrap();
        assert!(out.is_safe());
        assert_eq!(
            out.as_str(),
            Some("a&amp;&#39;&#34;&lt;&gt;/<b>a&amp;&#39;&#34;&lt;&gt;/")
        );
        let out = concat(Rest(vec![plain.clone(), plain.clone()])).unwrap();
        assert!(!out.is_safe());
        assert!(concat(Rest(vec![safe, Value::from(1)])).is_err());
        assert_eq!(
            escape_filter(&plain).as_str(),
            Some("a&amp;&#39;&#34;&lt;&gt;/")
        );
    }
}
