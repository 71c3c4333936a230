//! The grammar tree both grammar renderers read, and the Lark renderer.
//!
//! A format description becomes one [`Grammar`]: named rules over a few kinds of [`Node`]. The Lark and
//! GBNF renderers differ only in how they spell each kind: arguments are `%json {schema}` in Lark and
//! rules from our schema converter in GBNF; free text that must avoid markers is a negated-regex
//! terminal in Lark and an automaton of rules in GBNF.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::gbnf::FastMap;

/// One piece of a grammar, for a family whose format does not fit [`FormatDescription`] to build its
/// own [`Grammar`] from (GPT-OSS's harmony messages).
///
/// [`FormatDescription`]: super::FormatDescription
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// This exact text (a marker or a constant is borrowed, not copied: a grammar has thousands).
    Lit(Cow<'static, str>),
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
    /// A JSON value valid against this schema (shared: a tool's schema is not copied per grammar).
    Json(Arc<Value>),
    /// A JSON value valid against the schema of one property of an object schema (a tool's
    /// `parameters`), which stays shared: [`Node::Json`] of `parameters["properties"][property]`
    /// without copying it (any value when the schema does not declare the property).
    JsonProperty {
        /// The object schema (a tool's `parameters`).
        parameters: Arc<Value>,
        /// The property whose schema the value is held to.
        property: String,
    },
    /// Free text containing none of `exclude`, then `until` when given (which it does not contain
    /// either); without `until` the text runs to the end of the output.
    Text {
        /// Markers the text never contains (shared: every free-text value of a grammar avoids the
        /// same ones, and a copy per value was an allocation per marker).
        exclude: Arc<[String]>,
        /// The marker that ends the text (part of the node), if any.
        until: Option<String>,
    },
    /// A named rule of the grammar.
    Ref(RuleName),
    /// `min..=max` characters (no upper bound without `max`), none of them in `except`.
    Chars {
        /// Characters never written.
        except: Vec<char>,
        /// The fewest characters.
        min: u64,
        /// The most characters, if bounded.
        max: Option<u64>,
    },
    /// Each item at most once, in any order, every item marked `true` (required) present.
    ///
    /// The renderers write one rule per set of items already written: `2^n` rules for `n` items. No
    /// context-free grammar for all the orders of `n` distinct items is much smaller (its size has an
    /// exponential lower bound), so callers keep `n` small (see [`ANY_ORDER_LIMIT`]).
    ///
    /// [`ANY_ORDER_LIMIT`]: super::ANY_ORDER_LIMIT
    AnyOrder(Vec<(Node, bool)>),
    /// As [`Node::AnyOrder`], with `separator` between two items (Python's `a=1, b=2`): the set rules
    /// write it before every item but the first.
    Separated {
        /// The items, each with whether it is required.
        items: Vec<(Node, bool)>,
        /// Written between two items.
        separator: Box<Node>,
    },
}

/// The name of the rule a [`Node::Ref`] refers to: a word (`calls`), or a prefix and one or two
/// numbers (`call_3`, `param_2_1`), spelled only when a grammar is written.
///
/// A grammar of 20 tools refers to a hundred numbered rules (each tool's call, tail, arguments and
/// parameters): a string of each was an allocation, and GBNF looked each up to convert it. Two names
/// are equal when they are spelled the same, whichever way they are held.
///
/// ```
/// use parser_core::constraint::RuleName;
///
/// assert_eq!(RuleName::numbered("param_", 2, Some(1)).to_string(), "param_2_1");
/// assert_eq!(RuleName::numbered("call_", 3, None), RuleName::from("call_3"));
/// ```
#[derive(Clone, Debug)]
pub enum RuleName {
    /// The name as it is spelled.
    Word(Cow<'static, str>),
    /// `PREFIX` then a number, then `_` and the second number if there is one.
    Numbered(&'static str, u32, Option<u32>),
}

impl RuleName {
    /// `PREFIX` then `first`, then `_` and `second` when given (`param_2_1`).
    pub fn numbered(prefix: &'static str, first: usize, second: Option<usize>) -> Self {
        // A grammar has far fewer than 2^32 rules; a larger index is spelled out instead.
        match (u32::try_from(first), second.map(u32::try_from).transpose()) {
            (Ok(first), Ok(second)) => RuleName::Numbered(prefix, first, second),
            _ => {
                let mut name = String::from(prefix);
                push_number(&mut name, first as u64);
                if let Some(second) = second {
                    name.push('_');
                    push_number(&mut name, second as u64);
                }
                RuleName::Word(name.into())
            }
        }
    }

    /// Writes the name, each of its parts through `word` (which spells a name's words for a
    /// grammar dialect; numbers and the `_` between them are written as `separator` and digits).
    pub(crate) fn write(
        &self,
        out: &mut String,
        word: impl Fn(&mut String, &str),
        separator: char,
    ) {
        match self {
            RuleName::Word(name) => word(out, name),
            RuleName::Numbered(prefix, first, second) => {
                word(out, prefix);
                push_number(out, u64::from(*first));
                if let Some(second) = second {
                    out.push(separator);
                    push_number(out, u64::from(*second));
                }
            }
        }
    }
}

impl std::fmt::Display for RuleName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuleName::Word(name) => f.write_str(name),
            RuleName::Numbered(prefix, first, None) => write!(f, "{prefix}{first}"),
            RuleName::Numbered(prefix, first, Some(second)) => {
                write!(f, "{prefix}{first}_{second}")
            }
        }
    }
}

impl PartialEq for RuleName {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RuleName::Word(a), RuleName::Word(b)) => a == b,
            (RuleName::Numbered(pa, fa, sa), RuleName::Numbered(pb, fb, sb))
                if (pa, fa, sa) == (pb, fb, sb) =>
            {
                true
            }
            _ => self.to_string() == other.to_string(),
        }
    }
}

impl Eq for RuleName {}

impl From<&'static str> for RuleName {
    fn from(name: &'static str) -> Self {
        RuleName::Word(Cow::Borrowed(name))
    }
}

impl From<String> for RuleName {
    fn from(name: String) -> Self {
        RuleName::Word(Cow::Owned(name))
    }
}

impl From<Cow<'static, str>> for RuleName {
    fn from(name: Cow<'static, str>) -> Self {
        RuleName::Word(name)
    }
}

/// The schema of property `property` of the object schema `parameters` (`true`, any value, when it
/// declares none): what a [`Node::JsonProperty`] holds a value to.
pub(crate) fn property_schema<'a>(parameters: &'a Value, property: &str) -> &'a Value {
    static ANY: Value = Value::Bool(true);
    parameters
        .get("properties")
        .and_then(|properties| properties.get(property))
        .unwrap_or(&ANY)
}

/// Writes `{min,max}` (`{min,}` without `max`), a repetition in both Lark and GBNF, to `out` (no
/// string, no formatting machinery: once per counted value).
pub(crate) fn push_repetition(out: &mut String, min: u64, max: Option<u64>) {
    out.push('{');
    push_number(out, min);
    out.push(',');
    if let Some(max) = max {
        push_number(out, max.max(min));
    }
    out.push('}');
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
    // About a line per rule: the text grows once or twice, not from a page up (each growth copies it).
    let mut out = String::with_capacity(4096 + grammar.rules.len() * 64);
    for (at, (name, node)) in grammar.rules.iter().enumerate() {
        if at == 0 {
            out.push_str("start");
        } else {
            push_lark_name(&mut out, name);
        }
        out.push_str(": ");
        lark.node(node, &mut out);
        out.push('\n');
    }
    out.push_str(&lark.extra);
    out
}

/// Lark rule names: lowercase letters, digits and `_`.
fn push_lark_name(out: &mut String, name: &str) {
    // Names this crate makes are already valid: copied whole, not a character at a time.
    if name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        out.push_str(name);
        return;
    }
    out.extend(name.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        }
    }));
}

/// Writes `n` in decimal (what `write!` does, without the formatting machinery, which shows in the
/// profile of grammars with thousands of numbered rules).
pub(crate) fn push_number(out: &mut String, n: u64) {
    // Pushed a digit at a time: a call to copy a slice of one to three bytes costs more. The
    // numbers of rule names are mostly below a hundred: written without the loop.
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    if n < 100 {
        out.push(char::from(b'0' + (n / 10) as u8));
        out.push(char::from(b'0' + (n % 10) as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        out.push(char::from(digit));
    }
}

/// The rules and terminals a Lark grammar's nodes need on the side (JSON values, text terminals, the
/// whitespace terminal, the sets of an [`Node::AnyOrder`]), written after the grammar's own rules.
#[derive(Default)]
struct Lark {
    extra: String,
    json: usize,
    text: usize,
    any_order: usize,
    ws: bool,
    /// Where a schema is serialized before it is copied into `extra`.
    scratch: Vec<u8>,
    /// The rule of each distinct text node written so far, by its markers: one terminal serves them
    /// all.
    texts: Vec<(Arc<[String]>, Option<String>, String)>,
    /// [`Lark::any_order`]'s buffers (the prefix, the items' text and where each ends), kept across
    /// blocks.
    any_order_scratch: (String, String, Vec<usize>),
    /// The set rules every any-order node shares.
    sets: SharedSets,
}

/// The prefix of the shared set rules' names in Lark (a node that cannot share numbers its own
/// prefix from 1: `any_1_`).
const SHARED_SETS: &str = "any_0_";

impl Lark {
    fn node(&mut self, node: &Node, out: &mut String) {
        match node {
            Node::Lit(text) => push_lark_literal(out, text),
            Node::Seq(items) => {
                if items.is_empty() {
                    out.push_str("\"\"");
                } else {
                    out.push('(');
                    for (at, item) in items.iter().enumerate() {
                        if at > 0 {
                            out.push(' ');
                        }
                        self.node(item, out);
                    }
                    out.push(')');
                }
            }
            Node::Alt(items) => {
                out.push('(');
                for (at, item) in items.iter().enumerate() {
                    if at > 0 {
                        out.push_str(" | ");
                    }
                    self.node(item, out);
                }
                out.push(')');
            }
            Node::Opt(inner) => {
                out.push('(');
                self.node(inner, out);
                out.push_str(")?");
            }
            Node::Star(inner) => {
                out.push('(');
                self.node(inner, out);
                out.push_str(")*");
            }
            Node::Ws => {
                if !self.ws {
                    self.ws = true;
                    self.extra.push_str("WS: /[ \\t\\r\\n]+/\n");
                }
                out.push_str("WS?");
            }
            Node::Digits => out.push_str("/[0-9]+/"),
            Node::Json(schema) => self.json(schema, out),
            Node::JsonProperty {
                parameters,
                property,
            } => self.json(property_schema(parameters, property), out),
            Node::Text { exclude, until } => {
                if let Some((_, _, name)) = self
                    .texts
                    .iter()
                    .find(|(e, u, _)| (Arc::ptr_eq(e, exclude) || e == exclude) && u == until)
                {
                    out.push_str(name);
                    return;
                }
                let name = self.text(exclude, until.as_deref());
                out.push_str(&name);
                self.texts.push((exclude.clone(), until.clone(), name));
            }
            Node::Ref(name) => name.write(out, push_lark_name, '_'),
            Node::Chars { except, min, max } => {
                out.push('/');
                if except.is_empty() {
                    out.push_str("(?s:.)");
                } else {
                    out.push_str("[^");
                    for c in except {
                        push_regex_escaped(out, c.encode_utf8(&mut [0; 4]));
                    }
                    out.push(']');
                }
                push_repetition(out, *min, *max);
                out.push('/');
            }
            Node::AnyOrder(items) => self.any_order(items, None, out),
            Node::Separated { items, separator } => self.any_order(items, Some(separator), out),
        }
    }

    /// A `%json` rule of `schema`; writes its name.
    fn json(&mut self, schema: &Value, out: &mut String) {
        self.json += 1;
        let start = out.len();
        out.push_str("json_");
        push_number(out, self.json as u64);
        self.extra.push_str(&out[start..]);
        self.extra.push_str(": %json ");
        // Serialized into a buffer kept across schemas (no allocation per schema).
        self.scratch.clear();
        match serde_json::to_writer(&mut self.scratch, schema) {
            Ok(()) => self
                .extra
                .push_str(std::str::from_utf8(&self.scratch).unwrap_or("{}")),
            Err(_) => self.extra.push_str("{}"),
        }
        self.extra.push('\n');
    }

    /// The terminal (and, with `until`, the lazy rule) of a text node; returns what refers to it.
    fn text(&mut self, exclude: &[String], until: Option<&str>) -> String {
        self.text += 1;
        let terminal = format!("TEXT_{}", self.text);
        let mut avoid: Vec<&str> = exclude.iter().map(String::as_str).collect();
        avoid.extend(until);
        avoid.retain(|m| !m.is_empty());
        self.extra.push_str(&terminal);
        self.extra.push_str(": ");
        if avoid.is_empty() {
            self.extra.push_str("/(?s:.*)/");
        } else {
            self.extra.push_str("/(?s:.*)/ & ~/(?s:.*)(?:");
            for (at, marker) in avoid.iter().enumerate() {
                if at > 0 {
                    self.extra.push('|');
                }
                push_regex_escaped(&mut self.extra, marker);
            }
            self.extra.push_str(")(?s:.*)/");
        }
        self.extra.push('\n');
        match until {
            None => terminal,
            Some(until) => {
                let name = format!("text_{}", self.text);
                self.extra.push_str(&name);
                self.extra.push_str("[lazy]: ");
                self.extra.push_str(&terminal);
                self.extra.push(' ');
                push_lark_literal(&mut self.extra, until);
                self.extra.push('\n');
                name
            }
        }
    }

    /// `any_K_SET` for each set `SET` (a bit mask) of items already written: the items still to write.
    fn any_order(&mut self, items: &[(Node, bool)], separator: Option<&Node>, out: &mut String) {
        self.any_order += 1;
        // The buffers of the last block, reused (taken while the items are rendered: an item may
        // hold a block of its own).
        let (mut prefix, mut rendered, mut ends) = std::mem::take(&mut self.any_order_scratch);
        prefix.clear();
        rendered.clear();
        ends.clear();
        prefix.push_str("any_");
        push_number(&mut prefix, self.any_order as u64);
        prefix.push('_');
        // Each item rendered once, all into one buffer; the set rules repeat its text.
        ends.push(0);
        for (item, _) in items {
            self.node(item, &mut rendered);
            ends.push(rendered.len());
        }
        let separator = separator.map(|node| {
            let mut text = String::new();
            self.node(node, &mut text);
            text
        });
        let (mask, variant) = self
            .sets
            .node(items, &rendered, &ends, separator.as_deref());
        if let SetMask::Bits(mask) = mask {
            self.sets
                .rule(mask, variant, SHARED_SETS, ": ", &mut self.extra, out);
        } else {
            out.push_str(&prefix);
            out.push('0');
            write_any_order_sets(
                &mut self.extra,
                items,
                separator.as_deref(),
                &prefix,
                |out, item| out.push_str(&rendered[ends[item]..ends[item + 1]]),
                ": ",
            );
            if let SetMask::New(mask) = mask {
                self.sets.register(mask, variant, &prefix);
            }
        }
        self.any_order_scratch = (prefix, rendered, ends);
    }
}

/// The set rules of one grammar's [`Node::AnyOrder`] and [`Node::Separated`] nodes, shared between
/// the nodes. A set rule stands for the items still to write, and its language — the orders of
/// those items, each at most once, the required ones present (a separator before each but the
/// first, or before each once one was written) — does not depend on which node reached it: so
/// two tools that declare the same parameters alike (`query`, `unit`, `limit` in every tool of a
/// request) share the rules of every set of them, and a tool whose parameters are a subset of
/// another's starts at one of that tool's sets. Items are told apart by their rendered text (a
/// rule's name: the tree gives an equal parameter one rule, see `ParameterMemo`) and whether they
/// are required. Exact: the same language as the sets of one node, in fewer rules.
///
/// A node whose items are all new (the first tool, and every tool when no two share a parameter)
/// can reuse nothing: its sets are written by [`write_any_order_sets`] under a prefix of its own,
/// as without sharing, and [`register`](Self::register)ed for the nodes after it. Only a node that
/// mixes items seen before with new ones writes set rules here ([`rule`](Self::rule)).
#[derive(Default)]
pub(crate) struct SharedSets {
    /// The first bit whose item has this hash (of its text and whether it is required); the bits
    /// with the same hash are chained in `next`. No text is copied into a key: an item's text is a
    /// range of `arena`.
    by_hash: FastMap<u64, u8>,
    /// Each bit's text (a range of `arena`) and the next bit with its hash.
    texts: Vec<(u32, u32, Option<u8>)>,
    arena: String,
    /// The bits of required items.
    required: u128,
    /// The separators of [`Node::Separated`] nodes, by their text (a variant per separator).
    separators: Vec<String>,
    /// The rule of each set written, by (items still to write, variant: 0 without a separator,
    /// else `1 + 2 * separator + started`).
    rules: FastMap<(u128, u32), SetName>,
    /// The nodes whose sets were written alone ([`SetMask::New`]): their items' bits, their
    /// variant (nothing written yet) and their prefix. Looked up when a set is not in `rules`
    /// (a few nodes a grammar), not listed set by set: a request whose tools share nothing pays
    /// nothing for sharing.
    alone: Vec<(u128, u32, String)>,
    /// The set rules [`rule`](Self::rule) wrote.
    shared: u32,
}

/// Where a set's rule is: among the sets a node wrote alone (its prefix, and the set of its items
/// already written, as [`write_any_order_sets`] names it), or among the shared ones.
#[derive(Clone, Copy)]
enum SetName {
    Alone { node: u32, written: u32 },
    Shared(u32),
}

/// What [`SharedSets::node`] answers for a node.
pub(crate) enum SetMask {
    /// The node's items as bits, some seen before: [`SharedSets::rule`] names its first set.
    Bits(u128),
    /// Every item of the node is new (its bits are consecutive, from the lowest, in the items'
    /// order): nothing written before can serve, so the node writes its sets alone and
    /// [`register`](SharedSets::register)s them.
    New(u128),
    /// The node cannot share (two of its items have the same text, or the grammar has more
    /// distinct items than the bits hold): its sets are written for it alone.
    Alone,
}

impl SharedSets {
    /// The bits of a node's items (each item's text, then whether it is required).
    fn mask<'a>(&mut self, items: impl Iterator<Item = (&'a str, bool)>) -> SetMask {
        if self.texts.is_empty() {
            // Room for a request's worth of parameters: growing the map from nothing rehashed it
            // six times.
            self.by_hash.reserve(64);
            self.texts.reserve(64);
        }
        let mut mask = 0u128;
        let mut new = true;
        for (text, required) in items {
            let bit = match self.find(text, required) {
                Ok(bit) => {
                    new = false;
                    bit
                }
                Err(hash) => {
                    let Ok(bit) = u8::try_from(self.texts.len()) else {
                        return SetMask::Alone;
                    };
                    if bit >= 128 {
                        return SetMask::Alone;
                    }
                    let start = self.arena.len() as u32;
                    self.arena.push_str(text);
                    let chained = self.by_hash.insert(hash, bit);
                    self.texts.push((start, self.arena.len() as u32, chained));
                    if required {
                        self.required |= 1u128 << bit;
                    }
                    bit
                }
            };
            if mask & (1u128 << bit) != 0 {
                return SetMask::Alone;
            }
            mask |= 1u128 << bit;
        }
        if new {
            SetMask::New(mask)
        } else {
            SetMask::Bits(mask)
        }
    }

    /// [`mask`](Self::mask) and [`variant`](Self::variant) of a node whose items were rendered into
    /// `rendered`, item `i` ending at `ends[i + 1]`.
    pub(crate) fn node(
        &mut self,
        items: &[(Node, bool)],
        rendered: &str,
        ends: &[usize],
        separator: Option<&str>,
    ) -> (SetMask, u32) {
        let texts = (0..items.len()).map(|at| &rendered[ends[at]..ends[at + 1]]);
        let mask = self.mask(texts.zip(items.iter().map(|(_, required)| *required)));
        (mask, self.variant(separator))
    }

    /// The variant of a node: without a separator, or with this one (nothing written yet).
    fn variant(&mut self, separator: Option<&str>) -> u32 {
        let Some(separator) = separator else {
            return 0;
        };
        let at = match self.separators.iter().position(|seen| seen == separator) {
            Some(at) => at,
            None => {
                self.separators.push(separator.to_owned());
                self.separators.len() - 1
            }
        };
        1 + 2 * at as u32
    }

    /// The bit of the item `text` (`required` or not), or the hash to file a new one under.
    fn find(&self, text: &str, required: bool) -> Result<u8, u64> {
        use std::hash::BuildHasher;
        let hash = super::gbnf::FastHash::default().hash_one((text, required));
        let mut next = self.by_hash.get(&hash).copied();
        while let Some(bit) = next {
            let (_, _, after) = self.texts[bit as usize];
            if self.text(bit) == text && (self.required >> bit) & 1 == u128::from(required) {
                return Ok(bit);
            }
            next = after;
        }
        Err(hash)
    }

    fn text(&self, bit: u8) -> &str {
        let (start, end, _) = self.texts[bit as usize];
        &self.arena[start as usize..end as usize]
    }

    /// Records the sets a [`SetMask::New`] node of `mask` wrote alone with [`write_any_order_sets`]
    /// under `prefix` (`PREFIX{set of items written}`), so that later nodes refer to them.
    pub(crate) fn register(&mut self, mask: u128, variant: u32, prefix: &str) {
        // No items: no set to refer to; more than a `u32` of them: never written out anyway.
        if mask != 0 && mask.count_ones() < 32 {
            self.alone.push((mask, variant, prefix.to_owned()));
        }
    }

    /// The set `remaining` in `variant` among those a node wrote alone: a node whose items include
    /// them, in the same variant (a separated node has started unless nothing of it is written).
    fn written_alone(&self, remaining: u128, variant: u32) -> Option<SetName> {
        self.alone
            .iter()
            .enumerate()
            .find_map(|(node, &(mask, base, _))| {
                if remaining & !mask != 0 {
                    return None;
                }
                // The node's bits are consecutive from its lowest, in its items' order.
                let written = ((mask & !remaining) >> mask.trailing_zeros()) as u32;
                let wanted = if base != 0 && written != 0 {
                    base + 1
                } else {
                    base
                };
                (wanted == variant).then_some(SetName::Alone {
                    node: node as u32,
                    written,
                })
            })
    }

    /// Writes the name of the rule of the items `remaining` in `variant` into `name`, writing the
    /// rule (and the rules of the sets it leads to) into `out` if no node wrote it before: `PREFIX`
    /// and its number, `DEFINES`, then `""` when no required item remains, and `ITEM RULE(rest)` per
    /// remaining item, lowest bit first.
    pub(crate) fn rule(
        &mut self,
        remaining: u128,
        variant: u32,
        prefix: &str,
        defines: &str,
        out: &mut String,
        name: &mut String,
    ) {
        let set = self.set(remaining, variant, prefix, defines, out);
        self.push_name(set, prefix, name);
    }

    fn set(
        &mut self,
        remaining: u128,
        variant: u32,
        prefix: &str,
        defines: &str,
        out: &mut String,
    ) -> SetName {
        if let Some(&set) = self.rules.get(&(remaining, variant)) {
            return set;
        }
        if let Some(set) = self.written_alone(remaining, variant) {
            return set;
        }
        // After an item, a separated node has started: its separator comes before the next.
        let next = if variant.is_multiple_of(2) {
            variant
        } else {
            variant + 1
        };
        let mut rests = Vec::with_capacity(remaining.count_ones() as usize);
        let mut left = remaining;
        while left != 0 {
            let bit = left.trailing_zeros();
            left &= left - 1;
            rests.push(self.set(remaining & !(1u128 << bit), next, prefix, defines, out));
        }
        let set = SetName::Shared(self.shared);
        self.shared += 1;
        self.rules.insert((remaining, variant), set);
        self.push_name(set, prefix, out);
        out.push_str(defines);
        let mut first = true;
        if remaining & self.required == 0 {
            out.push_str("\"\"");
            first = false;
        }
        // Started (an even variant): the separator comes before every item.
        let separator =
            (variant != 0 && variant.is_multiple_of(2)).then(|| (variant as usize - 2) / 2);
        let mut left = remaining;
        for rest in rests {
            let bit = left.trailing_zeros();
            left &= left - 1;
            if !first {
                out.push_str(" | ");
            }
            first = false;
            if let Some(separator) = separator {
                out.push_str(&self.separators[separator]);
                out.push(' ');
            }
            out.push_str(self.text(bit as u8));
            out.push(' ');
            self.push_name(rest, prefix, out);
        }
        out.push('\n');
        set
    }

    fn push_name(&self, set: SetName, prefix: &str, out: &mut String) {
        match set {
            SetName::Alone { node, written } => {
                out.push_str(&self.alone[node as usize].2);
                push_number(out, u64::from(written));
            }
            SetName::Shared(number) => {
                out.push_str(prefix);
                push_number(out, u64::from(number));
            }
        }
    }
}

/// Writes the set rules of an [`Node::AnyOrder`]: for each set of items already written (a bit
/// mask), `PREFIX{set} DEFINES ("" if every required item is written) | ITEM(i) PREFIX{set + i} | …`
/// over the items not written yet; with a `separator` ([`Node::Separated`]), `SEPARATOR ITEM(i)` once
/// the set is not empty.
pub(crate) fn write_any_order_sets(
    out: &mut String,
    items: &[(Node, bool)],
    separator: Option<&str>,
    prefix: &str,
    item: impl Fn(&mut String, usize),
    defines: &str,
) {
    let required: usize = items
        .iter()
        .enumerate()
        .filter(|(_, (_, required))| *required)
        .map(|(index, _)| 1 << index)
        .sum();
    let sets = 1usize << items.len();
    // A rule's name is `prefix` then its set's number, pushed a digit at a time (a call to copy a
    // slice of one to three bytes costs more).
    let push_set = |out: &mut String, set: usize| {
        if set >= 1000 {
            push_number(out, set as u64);
            return;
        }
        if set >= 100 {
            out.push(char::from(b'0' + (set / 100 % 10) as u8));
        }
        if set >= 10 {
            out.push(char::from(b'0' + (set / 10 % 10) as u8));
        }
        out.push(char::from(b'0' + (set % 10) as u8));
    };
    // Each item as an alternative: ` | `, the separator once the set is not empty, the item, then the
    // prefix of the next set's name; an alternative that comes first in its rule starts after the
    // ` | `. One piece per item (two with a separator), copied whole per alternative: the pieces of
    // all four variants cost more to build than the rules spent choosing among them.
    const BAR: &str = " | ";
    let variants = if separator.is_some() { 2 } else { 1 };
    let mut pieces = String::with_capacity(items.len() * variants * (48 + prefix.len()));
    let mut piece_ends = Vec::with_capacity(items.len() * variants + 1);
    piece_ends.push(0);
    for index in 0..items.len() {
        let start = pieces.len();
        pieces.push_str(BAR);
        item(&mut pieces, index);
        pieces.push(' ');
        pieces.push_str(prefix);
        piece_ends.push(pieces.len());
        if let Some(separator) = separator {
            // The same item after the separator: copied from the piece just written.
            let body = pieces.len() - start - BAR.len();
            pieces.push_str(BAR);
            pieces.push_str(separator);
            pieces.push(' ');
            let from = pieces.len();
            pieces.extend_from_within(start + BAR.len()..start + BAR.len() + body);
            debug_assert_eq!(pieces.len() - from, body);
            piece_ends.push(pieces.len());
        }
    }
    // The block's size, so that `out` grows once: each rule's name and about `items / 2`
    // alternatives per rule.
    let alternatives = items.len() * sets / 2;
    out.reserve(
        sets * (prefix.len() + defines.len() + 8)
            + alternatives * (pieces.len() / items.len().max(1) / variants + 4),
    );
    let full = sets - 1;
    for written in 0usize..sets {
        out.push_str(prefix);
        push_set(out, written);
        out.push_str(defines);
        let mut first = true;
        if written & required == required {
            out.push_str("\"\"");
            first = false;
        }
        let separated = usize::from(separator.is_some() && written != 0);
        // The items not written yet, lowest first: a bit at a time, not a test of every item.
        let mut missing = full & !written;
        while missing != 0 {
            let index = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            let at = index * variants + separated;
            let skip = if first { BAR.len() } else { 0 };
            out.push_str(&pieces[piece_ends[at] + skip..piece_ends[at + 1]]);
            first = false;
            push_set(out, written | (1 << index));
        }
        out.push('\n');
    }
}

/// The bytes of `word` (eight bytes of text, little-endian) that JSON (and a Lark literal) must
/// escape: `"`, `\\` or a control character below U+0020, each flagged by its top bit. Exact, no
/// byte flagged by a borrow from the one below it (as the classic "has a zero byte" test does):
/// every byte's top bit is set before the subtractions, so none borrows across bytes, and
/// [`escape_word`] takes every flagged byte for one to escape.
#[inline]
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let high = word | HIGHS;
    // A byte keeps its top bit here when its low seven bits are 0x20 or more and differ from `"`'s
    // and `\\`'s; `| word` keeps it for a byte of 0x80 or more (UTF-8 beyond ASCII, never escaped).
    let kept = high.wrapping_sub(0x20 * ONES)
        & (high ^ (u64::from(b'"') * ONES)).wrapping_sub(ONES)
        & (high ^ (u64::from(b'\\') * ONES)).wrapping_sub(ONES);
    !(kept | word) & HIGHS
}

/// The eight bytes of `bytes` from `at` on, as a little-endian word.
#[inline]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// The bytes of a text shorter than eight bytes as one word for [`escape_mask`]: at most two
/// overlapping loads, padded with spaces (which need no escape). Not a copy into a padded word: a
/// copy of unknown length is a call to `memcpy`, and most texts of a structural tag (a schema's
/// keys and types) are this short.
#[inline]
fn short_word(bytes: &[u8]) -> u64 {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return u64::from(u32::from_le_bytes(*first))
            | (u64::from(u32::from_le_bytes(*last)) << 32);
    }
    if let (Some(first), Some(last)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>()) {
        return u64::from(u16::from_le_bytes(*first))
            | (u64::from(u16::from_le_bytes(*last)) << 16)
            | (SPACES << 32);
    }
    bytes
        .first()
        .map_or(SPACES, |&byte| u64::from(byte) | (SPACES << 8))
}

/// Where the first byte at or after `from` that JSON must escape is, eight bytes at a time.
pub(crate) fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at + 8 <= bytes.len() {
        let mask = escape_mask(word_at(bytes, at));
        if mask != 0 {
            return Some(at + (mask.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    // The last bytes padded with spaces (which need no escape): one more word, not a loop.
    let rest = &bytes[at.min(bytes.len())..];
    if rest.is_empty() {
        return None;
    }
    let mut word = [b' '; 8];
    word[..rest.len()].copy_from_slice(rest);
    let mask = escape_mask(u64::from_le_bytes(word));
    (mask != 0).then(|| at + (mask.trailing_zeros() / 8) as usize)
}

/// True when `text` has a byte JSON (and a Lark literal) must escape: `"`, `\\` or a control
/// character below U+0020. Eight bytes at a time (a byte at a time was a tenth of a structural
/// tag's cost), the last eight read overlapping the word before them (or, shorter than a word, by
/// [`short_word`]): no copy of the last bytes into a padded word, which was a call to `memcpy` per
/// text. Inline: most of a structural tag's texts are a few bytes and need no escape.
#[inline]
pub(crate) fn needs_json_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(last) = bytes.len().checked_sub(8) else {
        return escape_mask(short_word(bytes)) != 0;
    };
    let mut at = 0;
    while at < last {
        if escape_mask(word_at(bytes, at)) != 0 {
            return true;
        }
        at += 8;
    }
    escape_mask(word_at(bytes, last)) != 0
}

/// Writes `text` as the inside of a JSON string, escaped exactly as `serde_json` escapes it.
///
/// Inline, only the test: most texts (a name, a key, a description) need no escape and are copied
/// whole, without a call of their own; [`push_escaped`] escapes the others.
#[inline]
pub(crate) fn push_json_escaped(out: &mut String, text: &str) {
    if needs_json_escape(text) {
        push_escaped(out, text);
    } else {
        out.push_str(text);
    }
}

/// [`push_json_escaped`] of a text with an escape. A short one (a literal, a description) copies the
/// runs between two escapes whole; a long one (a grammar embedded in a structural tag, with a `"`
/// every few bytes) goes through a block on the stack ([`push_long_escaped`]).
#[inline(never)]
fn push_escaped(out: &mut String, text: &str) {
    const LONG: usize = 256;
    if text.len() >= LONG {
        push_long_escaped(out, text);
        return;
    }
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(at) = next_escape(bytes, start) {
        out.push_str(&text[start..at]);
        push_escape(out, bytes[at]);
        start = at + 1;
    }
    out.push_str(&text[start..]);
}

/// [`push_json_escaped`] of a long text, through a block on the stack copied in a block at a time (a
/// copy call per run between two escapes cost more than the bytes it copied: `serde_json::to_string`,
/// and then a run at a time, were a quarter of a structural tag's cost). A word at a time, a word
/// with an escape too ([`escape_word`]): in a grammar nearly every word has one, and escaping those
/// a byte at a time made the escaping of a structural tag 108-164 K instructions a build (callgrind,
/// the six parsers of the benchmark's structural-tag rows), 62-120 K now with the short texts' test.
/// Any text, not only ASCII (DeepSeek V3.2's grammar has `｜` and `▁` in it, and took the run at a
/// time path): a block ends on a character's boundary. Blocks of 512 bytes rather than 256: a
/// block's check that it is UTF-8 costs a few hundred instructions besides its bytes.
fn push_long_escaped(out: &mut String, text: &str) {
    // A byte escapes to at most six: a block holds the escapes of `STEP` bytes (a multiple of a
    // word), and the eight bytes past them the last store of a word writes.
    const STEP: usize = 512;
    let block = &mut [0u8; STEP * 6 + 8];
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + bytes.len() / 4);
    let mut start = 0;
    while start < bytes.len() {
        // A block ends on a character's boundary: whole UTF-8 in (escapes touch only ASCII bytes),
        // whole UTF-8 out.
        let mut end = bytes.len().min(start + STEP);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut words = bytes[start..end].chunks_exact(8);
        let mut n = 0;
        for chunk in &mut words {
            block[n..n + 8].copy_from_slice(chunk);
            let word = word_at(chunk, 0);
            let mask = escape_mask(word);
            n = if mask == 0 {
                n + 8
            } else {
                escape_word(block, n, word, mask)
            };
        }
        // The last bytes padded with spaces (which need no escape) to a word, the spaces then
        // dropped.
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut padded = [b' '; 8];
            padded[..rest.len()].copy_from_slice(rest);
            block[n..n + 8].copy_from_slice(&padded);
            let word = u64::from_le_bytes(padded);
            n = escape_word(block, n, word, escape_mask(word)) - (8 - rest.len());
        }
        // Whole characters in, whole characters out: the check cannot fail.
        out.push_str(std::str::from_utf8(&block[..n]).unwrap_or_default());
        start = end;
    }
}

/// Escapes the word copied to `block[n..n + 8]` (`word`, whose bytes to escape `mask` flags) in
/// place, lowest flagged byte first: its escape, then the rest of the word written once more after
/// it (one store of eight bytes; those past the word's end are written over next). Returns where
/// the word's escapes end.
fn escape_word(block: &mut [u8], n: usize, word: u64, mut mask: u64) -> usize {
    // Where the word's first byte would stand, for the bytes still to escape: each escape moves the
    // rest of the word on by its length less one.
    let mut base = n;
    while mask != 0 {
        let top = mask.trailing_zeros();
        mask &= mask - 1;
        let at = base + (top / 8) as usize;
        // The flagged byte and those above it.
        let rest = word >> (top & !7);
        let byte = rest as u8;
        if byte >= 0x20 {
            // `"` or `\\`: a backslash before it, the byte itself copied with the rest.
            block[at] = b'\\';
            block[at + 1..at + 9].copy_from_slice(&rest.to_le_bytes());
            base += 1;
        } else {
            let escape = control_escape(byte).as_bytes();
            match *escape {
                // `\n` and its kind, by far the most common (a grammar's line breaks): no copy call.
                [backslash, letter] => {
                    block[at] = backslash;
                    block[at + 1] = letter;
                }
                _ => block[at..at + escape.len()].copy_from_slice(escape),
            }
            let after = at + escape.len();
            block[after..after + 8].copy_from_slice(&(rest >> 8).to_le_bytes());
            base += escape.len() - 1;
        }
    }
    base + 8
}

/// The JSON escape of a control character (below U+0020), as `serde_json` writes it.
fn control_escape(byte: u8) -> &'static str {
    const HEX: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    HEX.get(usize::from(byte)).copied().unwrap_or_default()
}

/// The JSON escape of one byte [`escape_mask`] flags.
fn push_escape(out: &mut String, byte: u8) {
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        byte => out.push_str(control_escape(byte)),
    }
}

/// Writes a Lark string literal: a JSON string, escaped as `serde_json` escapes one.
fn push_lark_literal(out: &mut String, text: &str) {
    out.push('"');
    // Most literals need no escape: copied whole, without the call.
    if needs_json_escape(text) {
        push_json_escaped(out, text);
    } else {
        out.push_str(text);
    }
    out.push('"');
}

/// `text` as a regex matching itself, safe inside Lark's `/…/`.
pub(crate) fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    push_regex_escaped(&mut out, text);
    out
}

/// Writes [`regex_escape`] of `text` to `out` (no string of its own: a grammar escapes a marker or
/// a character per text and per counted value).
pub(crate) fn push_regex_escaped(out: &mut String, text: &str) {
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
}
