//! The subset of JMESPath that `x-parser-args.transform` uses in practice, evaluated as the Python
//! `jmespath` package does.
//!
//! Supported: identifiers (bare and `"quoted"`), `@`, sub-expressions `a.b`, indexes `[0]` / `[-1]`,
//! list projections `[*]`, object projections `*` / `.*`, flattening `[]`, multi-select lists `[a, b]`
//! and hashes `{k: a}`, raw strings `'text'`, JSON literals `` `{"a": 1}` ``, pipes `a | b` and
//! parentheses. Schemas shipped with transformers' tests use exactly these, e.g.
//! `[*].{type: 'function', function: {name: tool_name, arguments: parameters}}`.
//!
//! Rejected when the schema is compiled (clear error, no silent difference): filters `[?...]`, slices,
//! functions, comparisons, `||`, `&&`, `!` and `&expr`.
//!
//! One difference remains: `*` over an object lists its values in key order, where Python lists them
//! in insertion order (this workspace's `serde_json` keeps object keys sorted).

use serde_json::{Map, Value};

/// A compiled transform.
#[derive(Clone, Debug)]
pub(super) struct Expr(Node);

#[derive(Clone, Debug)]
enum Node {
    Identity,
    Field(String),
    Literal(Value),
    Sub(Box<Node>, Box<Node>),
    Index(Box<Node>, i64),
    /// `left[*].right`: `right` on each element of the list `left`, `null`s dropped.
    Projection(Box<Node>, Box<Node>),
    /// `left.*.right`: `right` on each value of the object `left`, `null`s dropped.
    ValueProjection(Box<Node>, Box<Node>),
    Flatten(Box<Node>),
    Pipe(Box<Node>, Box<Node>),
    MultiList(Vec<Node>),
    MultiHash(Vec<(String, Node)>),
}

impl Expr {
    /// Parses a JMESPath expression, or says which construct is outside the supported subset.
    pub(super) fn new(source: &str) -> Result<Expr, String> {
        let tokens = lex(source)?;
        let mut parser = Parser { tokens, pos: 0 };
        let node = parser.expression(0)?;
        match parser.current() {
            Tok::Eof => Ok(Expr(node)),
            other => Err(format!("unexpected token {}", other.describe())),
        }
    }

    /// `jmespath.search(expression, value)`.
    pub(super) fn search(&self, value: &Value) -> Value {
        eval(&self.0, value)
    }
}

fn eval(node: &Node, value: &Value) -> Value {
    match node {
        Node::Identity => value.clone(),
        Node::Field(name) => value
            .as_object()
            .and_then(|o| o.get(name))
            .cloned()
            .unwrap_or(Value::Null),
        Node::Literal(v) => v.clone(),
        Node::Sub(left, right) | Node::Pipe(left, right) => eval(right, &eval(left, value)),
        Node::Index(left, index) => {
            let base = eval(left, value);
            let Value::Array(items) = base else {
                return Value::Null;
            };
            let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
            let at = if *index < 0 { len + index } else { *index };
            usize::try_from(at)
                .ok()
                .and_then(|i| items.get(i))
                .cloned()
                .unwrap_or(Value::Null)
        }
        Node::Projection(left, right) => match eval(left, value) {
            Value::Array(items) => project(items.iter(), right),
            _ => Value::Null,
        },
        Node::ValueProjection(left, right) => match eval(left, value) {
            Value::Object(map) => project(map.values(), right),
            _ => Value::Null,
        },
        Node::Flatten(inner) => match eval(inner, value) {
            Value::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Value::Array(inner) => out.extend(inner),
                        other => out.push(other),
                    }
                }
                Value::Array(out)
            }
            _ => Value::Null,
        },
        Node::MultiList(nodes) => {
            if value.is_null() {
                return Value::Null;
            }
            Value::Array(nodes.iter().map(|n| eval(n, value)).collect())
        }
        Node::MultiHash(pairs) => {
            if value.is_null() {
                return Value::Null;
            }
            let mut map = Map::new();
            for (key, n) in pairs {
                map.insert(key.clone(), eval(n, value));
            }
            Value::Object(map)
        }
    }
}

fn project<'v>(items: impl Iterator<Item = &'v Value>, right: &Node) -> Value {
    Value::Array(
        items
            .map(|item| eval(right, item))
            .filter(|v| !v.is_null())
            .collect(),
    )
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    QuotedIdent(String),
    Literal(Value),
    Number(i64),
    Dot,
    Star,
    Flatten,
    Filter,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Colon,
    At,
    Pipe,
    Unsupported(&'static str),
    Eof,
}

impl Tok {
    /// The binding powers of the reference parser (`jmespath/parser.py`).
    fn binding_power(&self) -> u8 {
        match self {
            Tok::Pipe => 1,
            Tok::Flatten => 9,
            Tok::Star => 20,
            Tok::Filter => 21,
            Tok::Dot => 40,
            Tok::LBrace => 50,
            Tok::LBracket => 55,
            Tok::LParen => 60,
            // `||` 2, `&&` 3, comparators 5, `!` 45: give them their power so that the parser stops
            // on them and reports them.
            Tok::Unsupported("||") => 2,
            Tok::Unsupported("&&") => 3,
            Tok::Unsupported("!") => 45,
            Tok::Unsupported("&") => 0,
            Tok::Unsupported(_) => 5,
            _ => 0,
        }
    }

    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("identifier `{s}`"),
            Tok::QuotedIdent(s) => format!("identifier \"{s}\""),
            Tok::Literal(v) => format!("literal `{v}`"),
            Tok::Number(n) => format!("number {n}"),
            Tok::Unsupported(s) => format!("`{s}`"),
            Tok::Eof => "end of expression".to_owned(),
            other => format!("`{}`", other.symbol()),
        }
    }

    fn symbol(&self) -> &'static str {
        match self {
            Tok::Dot => ".",
            Tok::Star => "*",
            Tok::Flatten => "[]",
            Tok::Filter => "[?",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::At => "@",
            Tok::Pipe => "|",
            _ => "?",
        }
    }
}

/// Reads up to an unescaped `end`, returning the raw text between (escapes kept as written).
fn delimited(chars: &[char], i: &mut usize, end: char) -> Result<String, String> {
    let mut s = String::new();
    loop {
        let Some(&c) = chars.get(*i) else {
            return Err(format!("unterminated `{end}`"));
        };
        *i += 1;
        if c == end {
            return Ok(s);
        }
        s.push(c);
        if c == '\\'
            && let Some(&next) = chars.get(*i)
        {
            s.push(next);
            *i += 1;
        }
    }
}

fn lex(source: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        i += 1;
        let tok = match c {
            ' ' | '\t' | '\n' | '\r' => continue,
            'a'..='z' | 'A'..='Z' | '_' => {
                let mut s = String::from(c);
                while let Some(&c) = chars
                    .get(i)
                    .filter(|c| c.is_ascii_alphanumeric() || **c == '_')
                {
                    s.push(c);
                    i += 1;
                }
                Tok::Ident(s)
            }
            '0'..='9' | '-' => {
                let mut s = String::from(c);
                while let Some(&c) = chars.get(i).filter(|c| c.is_ascii_digit()) {
                    s.push(c);
                    i += 1;
                }
                Tok::Number(s.parse().map_err(|_| format!("bad number `{s}`"))?)
            }
            '.' => Tok::Dot,
            '*' => Tok::Star,
            ']' => Tok::RBracket,
            '{' => Tok::LBrace,
            '}' => Tok::RBrace,
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            ':' => Tok::Colon,
            '@' => Tok::At,
            '[' => match next {
                Some(']') => {
                    i += 1;
                    Tok::Flatten
                }
                Some('?') => {
                    i += 1;
                    Tok::Filter
                }
                _ => Tok::LBracket,
            },
            '|' if next == Some('|') => {
                i += 1;
                Tok::Unsupported("||")
            }
            '|' => Tok::Pipe,
            '&' if next == Some('&') => {
                i += 1;
                Tok::Unsupported("&&")
            }
            '&' => Tok::Unsupported("&"),
            '!' if next == Some('=') => {
                i += 1;
                Tok::Unsupported("!=")
            }
            '!' => Tok::Unsupported("!"),
            '=' if next == Some('=') => {
                i += 1;
                Tok::Unsupported("==")
            }
            '<' | '>' => {
                if next == Some('=') {
                    i += 1;
                }
                Tok::Unsupported(if c == '<' { "<" } else { ">" })
            }
            '\'' => {
                // A raw string: only `\'` is an escape.
                let raw = delimited(&chars, &mut i, '\'')?;
                Tok::Literal(Value::String(raw.replace("\\'", "'")))
            }
            '"' => {
                let raw = delimited(&chars, &mut i, '"')?;
                let name: String = serde_json::from_str(&format!("\"{raw}\""))
                    .map_err(|e| format!("bad quoted identifier \"{raw}\": {e}"))?;
                Tok::QuotedIdent(name)
            }
            '`' => {
                let raw = delimited(&chars, &mut i, '`')?.replace("\\`", "`");
                // Like the reference lexer, fall back to the deprecated "unquoted string" form.
                let value = serde_json::from_str(&raw)
                    .or_else(|_| serde_json::from_str(&format!("\"{raw}\"")))
                    .map_err(|e| format!("bad JSON literal `{raw}`: {e}"))?;
                Tok::Literal(value)
            }
            c => return Err(format!("unexpected character `{c}`")),
        };
        tokens.push(tok);
    }
    tokens.push(Tok::Eof);
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Tok>,
    pos: usize,
}

fn unsupported(what: &str) -> String {
    format!("{what} is outside the supported JMESPath subset")
}

impl Parser {
    fn current(&self) -> &Tok {
        self.tokens.get(self.pos).unwrap_or(&Tok::Eof)
    }

    fn peek(&self, offset: usize) -> &Tok {
        self.tokens.get(self.pos + offset).unwrap_or(&Tok::Eof)
    }

    fn advance(&mut self) -> Tok {
        let tok = self.current().clone();
        self.pos += 1;
        tok
    }

    fn expect(&mut self, tok: Tok) -> Result<(), String> {
        if *self.current() == tok {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!(
                "expected `{}`, found {}",
                tok.symbol(),
                self.current().describe()
            ))
        }
    }

    fn expression(&mut self, bp: u8) -> Result<Node, String> {
        let tok = self.advance();
        let mut left = self.nud(tok)?;
        while bp < self.current().binding_power() {
            let tok = self.advance();
            left = self.led(tok, left)?;
        }
        Ok(left)
    }

    fn nud(&mut self, tok: Tok) -> Result<Node, String> {
        match tok {
            Tok::Literal(v) => Ok(Node::Literal(v)),
            Tok::Ident(name) => {
                if *self.current() == Tok::LParen {
                    return Err(unsupported(&format!("the function `{name}()`")));
                }
                Ok(Node::Field(name))
            }
            Tok::QuotedIdent(name) => Ok(Node::Field(name)),
            Tok::At => Ok(Node::Identity),
            Tok::Star => {
                let right = self.projection_rhs(Tok::Star.binding_power())?;
                Ok(Node::ValueProjection(
                    Box::new(Node::Identity),
                    Box::new(right),
                ))
            }
            Tok::Flatten => {
                let right = self.projection_rhs(Tok::Flatten.binding_power())?;
                Ok(Node::Projection(
                    Box::new(Node::Flatten(Box::new(Node::Identity))),
                    Box::new(right),
                ))
            }
            Tok::LBrace => self.multi_hash(),
            Tok::LParen => {
                let inner = self.expression(0)?;
                self.expect(Tok::RParen)?;
                Ok(inner)
            }
            Tok::LBracket => match (self.current().clone(), self.peek(1).clone()) {
                (Tok::Number(n), _) => {
                    let index = self.index(n)?;
                    Ok(Node::Index(Box::new(Node::Identity), index))
                }
                (Tok::Colon, _) => Err(unsupported("a slice")),
                (Tok::Star, Tok::RBracket) => {
                    self.pos += 2;
                    let right = self.projection_rhs(Tok::Star.binding_power())?;
                    Ok(Node::Projection(Box::new(Node::Identity), Box::new(right)))
                }
                _ => self.multi_list(),
            },
            Tok::Filter => Err(unsupported("a filter `[?...]`")),
            Tok::Unsupported(s) => Err(unsupported(&format!("`{s}`"))),
            other => Err(format!("unexpected token {}", other.describe())),
        }
    }

    fn led(&mut self, tok: Tok, left: Node) -> Result<Node, String> {
        match tok {
            Tok::Dot => {
                if *self.current() == Tok::Star {
                    self.pos += 1;
                    // The reference parser uses the dot's power here (not the star's, as for a
                    // leading `*`): `a.*.b.c` is `(a.*.b).c`.
                    let right = self.projection_rhs(Tok::Dot.binding_power())?;
                    Ok(Node::ValueProjection(Box::new(left), Box::new(right)))
                } else {
                    let right = self.dot_rhs(Tok::Dot.binding_power())?;
                    Ok(Node::Sub(Box::new(left), Box::new(right)))
                }
            }
            Tok::Pipe => {
                let right = self.expression(Tok::Pipe.binding_power())?;
                Ok(Node::Pipe(Box::new(left), Box::new(right)))
            }
            Tok::Flatten => {
                let right = self.projection_rhs(Tok::Flatten.binding_power())?;
                Ok(Node::Projection(
                    Box::new(Node::Flatten(Box::new(left))),
                    Box::new(right),
                ))
            }
            Tok::LBracket => match self.current().clone() {
                Tok::Number(n) => {
                    let index = self.index(n)?;
                    Ok(Node::Index(Box::new(left), index))
                }
                Tok::Colon => Err(unsupported("a slice")),
                _ => {
                    self.expect(Tok::Star)?;
                    self.expect(Tok::RBracket)?;
                    let right = self.projection_rhs(Tok::Star.binding_power())?;
                    Ok(Node::Projection(Box::new(left), Box::new(right)))
                }
            },
            Tok::Filter => Err(unsupported("a filter `[?...]`")),
            Tok::LParen => Err(unsupported("a function call")),
            Tok::Unsupported(s) => Err(unsupported(&format!("`{s}`"))),
            other => Err(format!("unexpected token {}", other.describe())),
        }
    }

    /// `[n]` after the `[`, with `n` the current token.
    fn index(&mut self, n: i64) -> Result<i64, String> {
        self.pos += 1;
        if *self.current() == Tok::Colon {
            return Err(unsupported("a slice"));
        }
        self.expect(Tok::RBracket)?;
        Ok(n)
    }

    fn projection_rhs(&mut self, bp: u8) -> Result<Node, String> {
        if self.current().binding_power() < 10 {
            return Ok(Node::Identity);
        }
        match self.current() {
            Tok::LBracket | Tok::Filter => self.expression(bp),
            Tok::Dot => {
                self.pos += 1;
                self.dot_rhs(bp)
            }
            other => Err(format!(
                "syntax error: unexpected {} after a projection",
                other.describe()
            )),
        }
    }

    fn dot_rhs(&mut self, bp: u8) -> Result<Node, String> {
        match self.current() {
            Tok::Ident(_) | Tok::QuotedIdent(_) | Tok::Star => self.expression(bp),
            Tok::LBracket => {
                self.pos += 1;
                self.multi_list()
            }
            Tok::LBrace => {
                self.pos += 1;
                self.multi_hash()
            }
            other => Err(format!(
                "syntax error: unexpected {} after `.`",
                other.describe()
            )),
        }
    }

    /// `[a, b]` after the `[`.
    fn multi_list(&mut self) -> Result<Node, String> {
        let mut nodes = Vec::new();
        loop {
            nodes.push(self.expression(0)?);
            if *self.current() == Tok::RBracket {
                self.pos += 1;
                return Ok(Node::MultiList(nodes));
            }
            self.expect(Tok::Comma)?;
        }
    }

    /// `{k: a, ...}` after the `{`.
    fn multi_hash(&mut self) -> Result<Node, String> {
        let mut pairs = Vec::new();
        loop {
            let key = match self.advance() {
                Tok::Ident(k) | Tok::QuotedIdent(k) => k,
                other => {
                    return Err(format!(
                        "expected a key in `{{...}}`, found {}",
                        other.describe()
                    ));
                }
            };
            self.expect(Tok::Colon)?;
            pairs.push((key, self.expression(0)?));
            match self.advance() {
                Tok::Comma => {}
                Tok::RBrace => return Ok(Node::MultiHash(pairs)),
                other => return Err(format!("expected `,` or `}}`, found {}", other.describe())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search(expr: &str, value: Value) -> Value {
        Expr::new(expr).unwrap().search(&value)
    }

    #[test]
    fn transformers_test_transforms() {
        let cohere = json!([{"tool_call_id": "0", "tool_name": "t", "parameters": {"a": 1}}]);
        assert_eq!(
            search(
                "[*].{type: 'function', function: {name: tool_name, arguments: parameters}}",
                cohere
            ),
            json!([{"type": "function", "function": {"name": "t", "arguments": {"a": 1}}}])
        );
        let call = json!({"name": "f", "arguments": {}});
        assert_eq!(
            search("[{type: 'function', function: @}]", call.clone()),
            json!([{"type": "function", "function": call}])
        );
    }

    #[test]
    fn projections() {
        let v = json!({"a": [{"b": 1}, {"c": 2}, {"b": [3, 4]}], "o": {"x": {"b": 5}, "y": {}}});
        assert_eq!(search("a[*].b", v.clone()), json!([1, [3, 4]]));
        assert_eq!(search("a[*].b[]", v.clone()), json!([1, 3, 4]));
        assert_eq!(search("o.*.b", v.clone()), json!([5]));
        assert_eq!(search("a[-1].b[0]", v.clone()), json!(3));
        assert_eq!(search("a[*].b | [0]", v.clone()), json!(1));
        assert_eq!(search("missing.{x: @}", v), Value::Null);
    }

    #[test]
    fn rejects() {
        for e in ["a[?b == `1`]", "length(a)", "a || b", "a[0:2]", "!a", "&a"] {
            let err = Expr::new(e).err().unwrap_or_default();
            assert!(err.contains("outside the supported"), "{e}: {err}");
        }
    }
}
