//! The grammar tree both grammar renderers read, and the Lark renderer.
//!
//! A format description becomes one [`Grammar`]: named rules over a few kinds of [`Node`]. The Lark and
//! GBNF renderers differ only in how they spell each kind: arguments are `%json {schema}` in Lark and
//! rules from our schema converter in GBNF; free text that must avoid markers is a negated-regex
//! terminal in Lark and an automaton of rules in GBNF.

use std::collections::BTreeSet;

use serde_json::Value;

/// One piece of a grammar, for a family whose format does not fit [`FormatDescription`] to build its
/// own [`Grammar`] from (GPT-OSS's harmony messages).
///
/// [`FormatDescription`]: super::FormatDescription
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// This exact text.
    Lit(String),
    /// Each in turn.
    Seq(Vec<Node>),
    /// One of them.
    Alt(Vec<Node>),
    /// Zero or one.
    Opt(Box<Node>),
    /// Zero or more.
    Star(Box<Node>),
    /// Optional whitespace (spaces, tabs, newlines).
    Ws,
    /// One or more ASCII digits.
    Digits,
    /// A JSON value valid against this schema.
    Json(Value),
    /// Free text containing none of `exclude`, then `until` when given (which it does not contain
    /// either); without `until` the text runs to the end of the output.
    Text {
        /// Markers the text never contains.
        exclude: Vec<String>,
        /// The marker that ends the text (part of the node), if any.
        until: Option<String>,
    },
    /// A named rule of the grammar.
    Ref(String),
    /// `min..=max` characters (no upper bound without `max`), none of them in `except`.
    Chars {
        /// Characters never written.
        except: Vec<char>,
        /// The fewest characters.
        min: u64,
        /// The most characters, if bounded.
        max: Option<u64>,
    },
}

/// `{min,max}` (`{min,}` without `max`): a repetition in both Lark and GBNF.
pub(crate) fn repetition(min: u64, max: Option<u64>) -> String {
    match max {
        Some(max) => format!("{{{min},{}}}", max.max(min)),
        None => format!("{{{min},}}"),
    }
}

/// Named rules; the first is the start. Names are lowercase letters, digits and `_`; [`Node::Ref`]
/// refers to them. [`Grammar::lark`] and [`Grammar::gbnf`] render it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grammar {
    /// `(name, body)`, the start rule first.
    pub rules: Vec<(String, Node)>,
}

/// Where the text automaton goes on a character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Move {
    /// To this state (the longest marker prefix the text now ends with).
    To(usize),
    /// The text now ends with the terminator: it is complete.
    Done,
    /// The text would contain an excluded marker.
    Refused,
}

/// One state: the moves on the characters of the markers (any other character goes to state 0).
#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    pub(crate) moves: Vec<(char, Move)>,
}

/// The automaton of "text without these markers": state `i` means the text ends with the `i`-th
/// distinct proper prefix of a marker (state 0: with none).
#[derive(Clone, Debug)]
pub(crate) struct Automaton {
    pub(crate) states: Vec<State>,
}

/// Builds the automaton of text that contains none of `exclude` and, when `until` is given, ends at
/// its first `until`.
pub(crate) fn text_automaton(exclude: &[String], until: Option<&str>) -> Automaton {
    let mut markers: Vec<Vec<char>> = exclude
        .iter()
        .filter(|m| !m.is_empty() && Some(m.as_str()) != until)
        .map(|m| m.chars().collect())
        .collect();
    let until: Option<Vec<char>> = until.filter(|u| !u.is_empty()).map(|u| u.chars().collect());
    if let Some(until) = &until {
        markers.push(until.clone());
    }
    let alphabet: Vec<char> = markers
        .iter()
        .flatten()
        .copied()
        .collect::<BTreeSet<char>>()
        .into_iter()
        .collect();
    // Every distinct proper prefix, the empty one first.
    let mut prefixes: Vec<Vec<char>> = vec![Vec::new()];
    for marker in &markers {
        for end in 1..marker.len() {
            let prefix = marker[..end].to_vec();
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
        }
    }
    let ends_with = |text: &[char], marker: &[char]| text.ends_with(marker);
    let states = prefixes
        .iter()
        .map(|prefix| {
            let moves = alphabet
                .iter()
                .map(|&c| {
                    let mut text = prefix.clone();
                    text.push(c);
                    let excluded = markers[..markers.len() - usize::from(until.is_some())]
                        .iter()
                        .any(|m| ends_with(&text, m));
                    let next = if excluded {
                        Move::Refused
                    } else if until.as_deref().is_some_and(|u| ends_with(&text, u)) {
                        Move::Done
                    } else {
                        let state = (0..=text.len())
                            .filter_map(|start| {
                                prefixes.iter().position(|p| p[..] == text[start..])
                            })
                            .next()
                            .unwrap_or(0);
                        Move::To(state)
                    };
                    (c, next)
                })
                .collect();
            State { moves }
        })
        .collect();
    Automaton { states }
}

/// Writes `grammar` in llguidance's Lark dialect; its first rule becomes `start`.
pub(crate) fn render_lark(grammar: &Grammar) -> String {
    let mut lark = Lark::default();
    let mut lines = Vec::with_capacity(grammar.rules.len());
    for (at, (name, node)) in grammar.rules.iter().enumerate() {
        let body = lark.node(node);
        let name = if at == 0 { "start" } else { name.as_str() };
        lines.push(format!("{}: {body}", lark_name(name)));
    }
    let mut out = String::new();
    for line in lines.iter().chain(&lark.extra) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Lark rule names: lowercase letters, digits and `_`.
fn lark_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

#[derive(Default)]
struct Lark {
    extra: Vec<String>,
    json: usize,
    text: usize,
    ws: bool,
}

impl Lark {
    fn node(&mut self, node: &Node) -> String {
        match node {
            Node::Lit(text) => lark_literal(text),
            Node::Seq(items) => {
                let parts: Vec<String> = items.iter().map(|item| self.node(item)).collect();
                if parts.is_empty() {
                    "\"\"".to_owned()
                } else {
                    format!("({})", parts.join(" "))
                }
            }
            Node::Alt(items) => {
                let parts: Vec<String> = items.iter().map(|item| self.node(item)).collect();
                format!("({})", parts.join(" | "))
            }
            Node::Opt(inner) => format!("({})?", self.node(inner)),
            Node::Star(inner) => format!("({})*", self.node(inner)),
            Node::Ws => {
                if !self.ws {
                    self.ws = true;
                    self.extra.push("WS: /[ \\t\\r\\n]+/".to_owned());
                }
                "WS?".to_owned()
            }
            Node::Digits => "/[0-9]+/".to_owned(),
            Node::Json(schema) => {
                self.json += 1;
                let name = format!("json_{}", self.json);
                let schema = serde_json::to_string(schema).unwrap_or_else(|_| "{}".to_owned());
                self.extra.push(format!("{name}: %json {schema}"));
                name
            }
            Node::Text { exclude, until } => {
                self.text += 1;
                let terminal = format!("TEXT_{}", self.text);
                let mut avoid: Vec<&str> = exclude.iter().map(String::as_str).collect();
                avoid.extend(until.as_deref());
                avoid.retain(|m| !m.is_empty());
                let body = if avoid.is_empty() {
                    "/(?s:.*)/".to_owned()
                } else {
                    let alternatives: Vec<String> = avoid.iter().map(|m| regex_escape(m)).collect();
                    format!(
                        "/(?s:.*)/ & ~/(?s:.*)(?:{})(?s:.*)/",
                        alternatives.join("|")
                    )
                };
                self.extra.push(format!("{terminal}: {body}"));
                match until {
                    None => terminal,
                    Some(until) => {
                        let name = format!("text_{}", self.text);
                        self.extra
                            .push(format!("{name}[lazy]: {terminal} {}", lark_literal(until)));
                        name
                    }
                }
            }
            Node::Ref(name) => lark_name(name),
            Node::Chars { except, min, max } => {
                let class: String = except
                    .iter()
                    .map(|c| regex_escape(&c.to_string()))
                    .collect();
                let class = if class.is_empty() {
                    "(?s:.)".to_owned()
                } else {
                    format!("[^{class}]")
                };
                format!("/{class}{}/", repetition(*min, *max))
            }
        }
    }
}

/// A Lark string literal (JSON's escapes).
fn lark_literal(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `text` as a regex matching itself, safe inside Lark's `/…/`.
pub(crate) fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        match c {
            '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
            | '#' | '&' | '-' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '/' => out.push_str("\\x2F"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}
