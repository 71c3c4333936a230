//! llama.cpp GBNF: JSON schemas as rules, free text that avoids markers, and the grammar tree as rules.
//!
//! # What a schema constrains
//!
//! [`schema_rule`] writes a JSON schema as GBNF, for what llama.cpp's grammars can say:
//!
//! - `type` (one or a list): `string`, `number`, `integer`, `boolean`, `null`, `object`, `array`;
//! - `enum` and `const` (each value written compactly, as `serde_json` prints it);
//! - `properties` in their declared order, the `required` ones always, the others optionally;
//!   `additionalProperties: false` allows no other key, anything else (absent, `true`, a schema) allows
//!   further keys with any value after the declared ones;
//! - `items` (one schema for every item) with `minItems` / `maxItems`;
//! - `anyOf` / `oneOf` (as alternatives; `oneOf`'s "exactly one" is not checked);
//! - `minLength` / `maxLength` of strings (in characters).
//!
//! Not constrained (any value of the right type passes): `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf`, `pattern`, `format`, `patternProperties`, `propertyNames`,
//! `minProperties`, `maxProperties`, `uniqueItems`, `contains`, `prefixItems`, `dependentRequired`,
//! `if`/`then`/`else`, `not`, `allOf`, `$ref` (each of these: any value). Declared properties come in
//! declared order only, and an additional key may repeat a declared one. Whitespace is allowed between
//! JSON tokens. Stricter than JSON itself in two places, so that every accepted value parses with
//! `serde_json` as its type: no `\u` escape of a UTF-16 surrogate, and no `-0` integer.
//!
//! Llguidance's `%json` (the Lark grammar) implements far more of JSON Schema; the GBNF grammar is the
//! looser of the two, never the stricter, for every schema above.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::rc::Rc;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::Value;

use super::grammar::{
    Grammar, Move, Node, RuleName, SetMask, SharedSets, property_schema, push_number,
    push_repetition, text_automaton, write_any_order_sets,
};

/// Writes `grammar` as GBNF; its first rule becomes `root`.
pub(crate) fn render(grammar: &Grammar) -> String {
    // Sized for the rules a grammar of this many rules makes (no rehash of long bodies as it grows).
    let mut out = Rules::with_capacity(grammar.rules.len() * 8);
    out.names.insert(Rc::from("root"), 1);
    // The names side rules must not take: the grammar's own, as GBNF spells them. Names of
    // letters, digits and `_` (all this crate makes) are spelled with `-` for `_`, which
    // [`Rules::is_head`] undoes on a candidate to look it up among the grammar's names as they
    // are (a converted copy of each, in the map of names taken, was a tenth of a GBNF build).
    out.heads_as_is = grammar
        .rules
        .iter()
        .all(|(name, _)| name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    let mut buffer = String::with_capacity(32);
    for (name, _) in &grammar.rules {
        if out.heads_as_is {
            out.grammar_heads.insert(name.as_bytes(), ());
        }
        if !out.heads_as_is || PREFIX_BASES.iter().any(|base| name.starts_with(base)) {
            buffer.clear();
            push_rule_name(&mut buffer, name);
            out.note_heads(&buffer);
            if !out.heads_as_is {
                out.names.insert(Rc::from(buffer.as_str()), 1);
            }
        }
    }
    let mut text = String::with_capacity(8192);
    for (at, (name, node)) in grammar.rules.iter().enumerate() {
        // References spell their rule's name themselves (a numbered one from its parts, a word
        // converted: see `Rules::node`).
        if at == 0 {
            text.push_str("root");
        } else {
            push_rule_name(&mut text, name);
        }
        text.push_str(" ::= ");
        out.node(node, &mut text);
        text.push('\n');
    }
    // The side rules and blocks in one growth of `text`.
    text.reserve(
        out.rules
            .iter()
            .map(|(name, _)| name.len() + 6)
            .sum::<usize>()
            + out.bodies.len()
            + out.blocks.len()
            + out
                .shared
                .iter()
                .map(|(_, rules)| rules.len())
                .sum::<usize>(),
    );
    for (name, body) in &out.rules {
        text.push_str(name);
        text.push_str(" ::= ");
        text.push_str(&out.bodies[body.clone()]);
        text.push('\n');
    }
    // The blocks, with each text automaton's rules where it was written.
    let mut from = 0;
    for (at, rules) in &out.shared {
        text.push_str(&out.blocks[from..*at]);
        text.push_str(rules);
        from = *at;
    }
    text.push_str(&out.blocks[from..]);
    text
}

/// GBNF rule names are `[a-zA-Z0-9-]+`.
fn rule_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    push_rule_name(&mut out, name);
    out
}

fn push_rule_name(out: &mut String, name: &str) {
    // Names this crate makes are letters, digits and `_` (`call_3`): each `_` becomes `-`, a byte
    // at a time (a name is short: a copy call per part between two `_` cost more, and so did a
    // block on the stack copied whole, whose check as UTF-8 cost a third of the conversion).
    let mark = out.len();
    out.reserve(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(char::from(b));
        } else if b == b'_' {
            out.push('-');
        } else {
            out.truncate(mark);
            out.extend(
                name.chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }),
            );
            return;
        }
    }
}

/// The maps of one grammar's rendering: keyed by rule bodies, names and schemas, hashed with
/// [`FastHasher`] (SipHash over the long rule bodies was a tenth of a GBNF grammar's cost).
pub(crate) type FastMap<K, V> = HashMap<K, V, FastHash>;

/// Builds [`FastHasher`]s, seeded once per process from the standard library's random keys (so that
/// which rule bodies collide is not known in advance).
#[derive(Clone, Copy)]
pub(crate) struct FastHash(u64);

impl Default for FastHash {
    fn default() -> Self {
        static SEED: LazyLock<u64> = LazyLock::new(|| {
            use std::hash::{BuildHasher, Hasher};
            std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish()
        });
        FastHash(*SEED)
    }
}

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;

    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

/// A multiply-rotate hash over eight bytes at a time (the scheme of rustc's `FxHasher`): a map of a
/// few hundred rules built once per request needs speed more than a cryptographic hash.
pub(crate) struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
        self.add(bytes.len() as u64);
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A rule's name, shared by the rule, the map of names taken and every caller that writes it (a
/// clone is a count, not a copy).
type Name = Rc<str>;

/// The rules written on the side (JSON values, free text, the sets of an any-order node).
#[derive(Default)]
struct Rules<'g> {
    /// The rule of each schema converted so far: tools repeat sub-schemas (the same `query` or
    /// `unit` property in every tool), and converting one again would only rebuild the same rules.
    /// By [`schema_hash`] (computed once per lookup), the first of the schemas with that hash in
    /// `schemas`, each of which links to the next.
    converted: FastMap<u64, usize>,
    /// Each converted schema, its rule, and the next schema with its hash.
    schemas: Vec<(&'g Value, Name, Option<usize>)>,
    /// Rules by name, deduplicated by body (JSON values).
    rules: Vec<(Name, Range<usize>)>,
    /// Every rule's body, each in its range of this one buffer (a string per rule was a malloc
    /// and a free per rule: 8 K of qwen3's 464 K instructions per GBNF build).
    bodies: String,
    /// The rule of each body [`Rules::add`] wrote, by the body's hash (an index into `rules`: the
    /// body is not copied into a key); a body whose hash an earlier, different body has is in
    /// `collided`.
    by_hash: FastMap<u64, usize>,
    collided: FastMap<String, usize>,
    /// The names of the any-value and any-object rules, once made.
    any_value: Option<(Name, Name)>,
    names: FastMap<Name, usize>,
    /// Whole rules written as text, after the others (text automata, any-order sets).
    blocks: String,
    /// Text automata's rules as [`TextRules::write`] keeps them, each with the offset in `blocks`
    /// where it stands (not copied into `blocks`: a long one is tens of kilobytes).
    shared: Vec<(usize, Arc<str>)>,
    /// The first rule of each text automaton written, by its [`text_key`]: one automaton serves
    /// every text node with the same markers.
    texts: FastMap<String, String>,
    /// Of the names taken that start with one of [`PREFIX_BASES`], each part before a `-`: the
    /// prefixes [`Rules::fresh_prefix`] cannot take (a set; scanning every name for each prefix was a
    /// twentieth of a tagged format's GBNF).
    heads: FastMap<String, ()>,
    /// Text automata and any-order nodes written so far, which number their rules' prefixes.
    prefixes: usize,
    /// [`Rules::open_tails`], once made.
    open_tails: Option<(Name, Name)>,
    /// The names of the whitespace and string-character rules, once made.
    ws_rule: Option<Name>,
    char_rule: Option<Name>,
    /// Where [`Rules::fresh`] spells a candidate name (no allocation for a name already taken).
    scratch: String,
    /// Emptied buffers, for the next object's members and bodies ([`Rules::buffer`]).
    buffers: Vec<String>,
    /// Where [`Rules::any_order`] keeps the end of each item's text, from one node to the next.
    ends: Vec<usize>,
    /// The grammar's rule names, when each is letters, digits and `_` ([`Rules::is_head`]);
    /// otherwise their GBNF spellings are in `names`.
    grammar_heads: FastMap<&'g [u8], ()>,
    heads_as_is: bool,
    /// Where [`Rules::is_head`] spells a candidate back.
    unconverted: Vec<u8>,
    /// The GBNF spelling of each numbered name's prefix met so far ([`Rules::prefix`]).
    prefixes_converted: Vec<(&'static str, String)>,
    /// The set rules every any-order node shares, and their names' prefix (`any1-`), once taken.
    sets: SharedSets,
    sets_prefix: Option<String>,
}

/// The bases of [`Rules::fresh_prefix`]'s prefixes.
const PREFIX_BASES: [&str; 2] = ["any", "text"];

/// The rules of one text automaton without their names: the automaton depends on the markers only,
/// so it is built and rendered once per marker set and named per grammar ([`TEXT_RULES`]).
struct TextRules {
    /// Per state: its body, with the byte offsets where a state's name goes (and which state's).
    states: Vec<(String, Vec<(usize, usize)>)>,
    /// The rules last written, with their prefix: a format's grammars name an automaton the same
    /// way request after request (`text1`), and writing the names in again was most of the cost of
    /// a grammar with long markers (DeepSeek's reasoning up to `</think>`, 45 KB of rules).
    written: Mutex<Option<(String, Arc<str>)>>,
}

/// Rendered text automata by [`text_key`]. A format's marker sets are few and the same for every
/// request, while building an automaton is quadratic in the markers' length (DeepSeek's and DSML's
/// long markers make it the most expensive part of a constraint); so they are kept for the process'
/// life, up to [`TEXT_RULES_LIMIT`] marker sets (then the cache starts over).
static TEXT_RULES: LazyLock<Mutex<HashMap<String, Arc<TextRules>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The most marker sets [`TEXT_RULES`] keeps: far more than the formats of one server use.
const TEXT_RULES_LIMIT: usize = 1024;

/// A text node's markers as one string (each with its length, so that no two sets spell the same).
fn text_key(exclude: &[String], until: Option<&str>) -> String {
    let mut key = String::new();
    for marker in exclude {
        push_number(&mut key, marker.len() as u64);
        key.push(':');
        key.push_str(marker);
    }
    if let Some(until) = until {
        key.push('|');
        key.push_str(until);
    }
    key
}

impl TextRules {
    fn new(exclude: &[String], until: Option<&str>) -> TextRules {
        let automaton = text_automaton(exclude, until);
        let states = automaton
            .states
            .iter()
            .map(|state| {
                let mut body = String::new();
                let mut refs = Vec::new();
                let alternative = |body: &mut String| {
                    if !body.is_empty() {
                        body.push_str(" | ");
                    }
                };
                // Characters that keep no marker prefix go back to state 0 together, as one class;
                // only the others are spelled out.
                let special: Vec<char> = state
                    .moves
                    .iter()
                    .filter(|(_, next)| *next != Move::To(0))
                    .map(|(c, _)| *c)
                    .collect();
                push_negated_class(&mut body, &special);
                body.push(' ');
                refs.push((body.len(), 0));
                for (c, next) in &state.moves {
                    match next {
                        Move::To(0) | Move::Refused => {}
                        Move::To(to) => {
                            alternative(&mut body);
                            body.push_str(&literal(c.encode_utf8(&mut [0; 4])));
                            body.push(' ');
                            refs.push((body.len(), *to));
                        }
                        Move::Done => {
                            alternative(&mut body);
                            body.push_str(&literal(c.encode_utf8(&mut [0; 4])));
                        }
                    }
                }
                if until.is_none() {
                    alternative(&mut body);
                    body.push_str("\"\"");
                }
                (body, refs)
            })
            .collect();
        TextRules {
            states,
            written: Mutex::new(None),
        }
    }

    /// The cached rules of these markers, built on first use.
    fn cached(exclude: &[String], until: Option<&str>, key: String) -> Arc<TextRules> {
        let mut cache = TEXT_RULES
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(rules) = cache.get(&key) {
            return rules.clone();
        }
        if cache.len() >= TEXT_RULES_LIMIT {
            cache.clear();
        }
        let rules = Arc::new(TextRules::new(exclude, until));
        cache.insert(key, rules.clone());
        rules
    }

    /// The rules, state `i` named `PREFIX-si`.
    fn write(&self, prefix: &str) -> Arc<str> {
        let mut written = self
            .written
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((written_prefix, text)) = &*written
            && written_prefix == prefix
        {
            return text.clone();
        }
        let mut text = String::new();
        self.write_named(prefix, &mut text);
        let text: Arc<str> = text.into();
        *written = Some((prefix.to_owned(), text.clone()));
        text
    }

    /// [`TextRules::write`] without the copy kept.
    fn write_named(&self, prefix: &str, out: &mut String) {
        let name = |out: &mut String, state: usize| {
            out.push_str(prefix);
            out.push_str("-s");
            push_number(out, state as u64);
        };
        for (state, (body, refs)) in self.states.iter().enumerate() {
            name(out, state);
            out.push_str(" ::= ");
            let mut from = 0;
            for &(at, to) in refs {
                out.push_str(&body[from..at]);
                name(out, to);
                from = at;
            }
            out.push_str(&body[from..]);
            out.push('\n');
        }
    }
}

impl<'g> Rules<'g> {
    fn with_capacity(rules: usize) -> Self {
        Rules {
            converted: FastMap::with_capacity_and_hasher(rules, FastHash::default()),
            rules: Vec::with_capacity(rules),
            bodies: String::with_capacity(rules * 32),
            by_hash: FastMap::with_capacity_and_hasher(rules, FastHash::default()),
            names: FastMap::with_capacity_and_hasher(rules, FastHash::default()),
            grammar_heads: FastMap::with_capacity_and_hasher(rules / 8, FastHash::default()),
            ..Rules::default()
        }
    }

    /// The GBNF spelling of a numbered name's prefix (`param-` of `param_`), converted once per
    /// grammar: a grammar's prefixes are a handful of constants, told apart by address (converting
    /// one at every reference was a fourteenth of a tagged format's GBNF).
    fn prefix(&mut self, prefix: &'static str) -> &str {
        let at = match self
            .prefixes_converted
            .iter()
            .position(|(known, _)| std::ptr::eq(*known, prefix))
        {
            Some(at) => at,
            None => {
                self.prefixes_converted.push((prefix, rule_name(prefix)));
                self.prefixes_converted.len() - 1
            }
        };
        &self.prefixes_converted[at].1
    }

    /// A rule named after `hint` with this body; an identical body reuses its rule.
    fn add(&mut self, hint: &str, body: String) -> Name {
        match self.existing(&body) {
            Ok(name) => name,
            Err(hash) => self.insert(hint, hash, &body),
        }
    }

    /// As [`Rules::add`], with the body borrowed: copied only when it makes a new rule (a body
    /// built in a reused buffer).
    fn add_str(&mut self, hint: &str, body: &str) -> Name {
        match self.existing(body) {
            Ok(name) => name,
            Err(hash) => self.insert(hint, hash, body),
        }
    }

    /// The rule with this body, or the body's hash to insert it under.
    fn existing(&self, body: &str) -> Result<Name, u64> {
        use std::hash::BuildHasher;
        let hash = self.by_hash.hasher().hash_one(body);
        match self.by_hash.get(&hash) {
            None => Err(hash),
            Some(&index) if self.bodies[self.rules[index].1.clone()] == *body => {
                Ok(self.rules[index].0.clone())
            }
            Some(_) => match self.collided.get(body) {
                Some(&index) => Ok(self.rules[index].0.clone()),
                None => Err(hash),
            },
        }
    }

    /// A new rule of a body no rule has, whose hash is `hash`.
    fn insert(&mut self, hint: &str, hash: u64, body: &str) -> Name {
        use std::collections::hash_map::Entry;
        let name = self.fresh(hint);
        let index = self.rules.len();
        match self.by_hash.entry(hash) {
            Entry::Occupied(_) => {
                self.collided.insert(body.to_owned(), index);
            }
            Entry::Vacant(slot) => {
                slot.insert(index);
            }
        }
        let start = self.bodies.len();
        self.bodies.push_str(body);
        self.rules.push((name.clone(), start..self.bodies.len()));
        name
    }

    /// A rule name from `hint` that no rule has yet.
    fn fresh(&mut self, hint: &str) -> Name {
        // The hints this module makes are valid names already: used as they are, not copied.
        let converted;
        let hint = if hint.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            hint
        } else {
            converted = rule_name(hint);
            converted.as_str()
        };
        let taken = match self.names.get(hint) {
            Some(&taken) => Some(taken),
            None => self.is_head(hint).then_some(1),
        };
        let Some(taken) = taken else {
            // A hint no rule has is the name (not looked up again: most hints are new).
            let name: Name = Rc::from(hint);
            self.note_heads(&name);
            self.names.insert(name.clone(), 1);
            return name;
        };
        let mut count = taken;
        let mut candidate = std::mem::take(&mut self.scratch);
        // A numbered name is taken as it is tried (one lookup for both; most first tries are free).
        let name = loop {
            use std::collections::hash_map::Entry;
            count += 1;
            candidate.clear();
            candidate.push_str(hint);
            if count > 1 {
                candidate.push('-');
                push_number(&mut candidate, count as u64);
            }
            if self.is_head(&candidate) {
                continue;
            }
            if let Entry::Vacant(slot) = self.names.entry(Rc::from(candidate.as_str())) {
                let name = slot.key().clone();
                slot.insert(1);
                break name;
            }
        };
        self.scratch = candidate;
        // The hint keeps its last count.
        self.note_heads(&name);
        if count > 1 {
            match self.names.get_mut(hint) {
                Some(last) => *last = count,
                None => {
                    self.note_heads(hint);
                    self.names.insert(Rc::from(hint), count);
                }
            }
        }
        name
    }

    /// True when `name` (a GBNF name) is the spelling of one of the grammar's rules, which
    /// [`render`] did not put in `names`.
    fn is_head(&mut self, name: &str) -> bool {
        if !self.heads_as_is {
            return false;
        }
        // Bytes, not characters: a name's `-` is one byte, and a `char` at a time cost a tenth of
        // a GBNF build whose tools share nothing.
        self.unconverted.clear();
        self.unconverted.extend_from_slice(name.as_bytes());
        for byte in &mut self.unconverted {
            if *byte == b'-' {
                *byte = b'_';
            }
        }
        self.grammar_heads.contains_key(self.unconverted.as_slice())
    }

    /// Keeps what [`Rules::fresh_prefix`] must avoid of a name now taken: each part of it before a `-`
    /// (`any3` of `any3-rest`), for the names its bases could collide with.
    fn note_heads(&mut self, name: &str) {
        if !PREFIX_BASES.iter().any(|base| name.starts_with(base)) {
            return;
        }
        for (at, _) in name.match_indices('-') {
            self.heads.insert(name[..at].to_owned(), ());
        }
    }

    /// A prefix `BASE{n}` for a family of numbered rules (`BASE{n}-…`) that no rule name starts with.
    fn fresh_prefix(&mut self, base: &str) -> String {
        loop {
            self.prefixes += 1;
            let mut prefix = String::from(base);
            push_number(&mut prefix, self.prefixes as u64);
            if !self.heads.contains_key(&prefix) {
                return prefix;
            }
        }
    }

    /// Reserves a name for a rule whose body refers to itself, then sets it.
    fn reserve(&mut self, hint: &str) -> usize {
        let name = self.fresh(hint);
        self.rules.push((name, 0..0));
        self.rules.len() - 1
    }

    fn node(&mut self, node: &'g Node, out: &mut String) {
        match node {
            Node::Lit(text) => push_literal(out, text),
            Node::Seq(items) => {
                if items.is_empty() {
                    out.push_str("\"\"");
                } else {
                    out.push_str("( ");
                    for (at, item) in items.iter().enumerate() {
                        if at > 0 {
                            out.push(' ');
                        }
                        self.node(item, out);
                    }
                    out.push_str(" )");
                }
            }
            Node::Alt(items) => {
                out.push_str("( ");
                for (at, item) in items.iter().enumerate() {
                    if at > 0 {
                        out.push_str(" | ");
                    }
                    self.node(item, out);
                }
                out.push_str(" )");
            }
            Node::Opt(inner) => {
                out.push_str("( ");
                self.node(inner, out);
                out.push_str(" )?");
            }
            Node::Star(inner) => {
                out.push_str("( ");
                self.node(inner, out);
                out.push_str(" )*");
            }
            Node::Ws => match &self.ws_rule {
                // Made once; written at every `Node::Ws` without a copy of its name.
                Some(name) => out.push_str(name),
                None => {
                    let ws = self.ws();
                    out.push_str(&ws);
                }
            },
            Node::Digits => out.push_str("[0-9]+"),
            Node::Json(schema) => {
                let name = self.schema(schema, "args");
                out.push_str(&name);
            }
            Node::JsonProperty {
                parameters,
                property,
            } => {
                let name = self.schema(property_schema(parameters, property), "args");
                out.push_str(&name);
            }
            Node::Text { exclude, until } => self.text(exclude, until.as_deref(), out),
            Node::Ref(RuleName::Word(name)) => push_rule_name(out, name),
            // Spelled here as its rule's head was converted (`call_3` is `call-3`), not looked up.
            Node::Ref(RuleName::Numbered(prefix, first, second)) => {
                out.push_str(self.prefix(prefix));
                push_number(out, u64::from(*first));
                if let Some(second) = second {
                    out.push('-');
                    push_number(out, u64::from(*second));
                }
            }
            Node::Chars { except, min, max } => {
                // Written in place: a string for the class and one for the bounds were two
                // allocations per counted value.
                push_negated_class(out, except);
                push_repetition(out, *min, *max);
            }
            Node::AnyOrder(items) => self.any_order(items, None, out),
            Node::Separated { items, separator } => self.any_order(items, Some(separator), out),
        }
    }

    /// The whitespace rule's name (made on first use; asked for at every `Node::Ws`).
    fn ws(&mut self) -> Name {
        if let Some(name) = &self.ws_rule {
            return name.clone();
        }
        let name = self.add_str("ws", "[ \\t\\n\\r]*");
        self.ws_rule = Some(name.clone());
        name
    }

    /// Free text containing none of `exclude` (nor `until`), then `until` if given: one rule per state
    /// of the automaton that tracks the longest marker prefix just written. Writes the name of its
    /// first state.
    fn text(&mut self, exclude: &[String], until: Option<&str>, out: &mut String) {
        let key = text_key(exclude, until);
        if let Some(first) = self.texts.get(&key) {
            out.push_str(first);
            return;
        }
        let rules = TextRules::cached(exclude, until, key.clone());
        let prefix = self.fresh_prefix("text");
        let written = rules.write(&prefix);
        self.shared.push((self.blocks.len(), written));
        let first = [prefix.as_str(), "-s0"].concat();
        out.push_str(&first);
        self.texts.insert(key, first);
    }

    /// `PREFIX-SET` for each set `SET` (a bit mask) of items already written: the items still to
    /// write. Writes the name of the first (nothing written yet).
    fn any_order(
        &mut self,
        items: &'g [(Node, bool)],
        separator: Option<&'g Node>,
        out: &mut String,
    ) {
        // Each item rendered once, all into one buffer; the set rules repeat its text. The buffers
        // are the renderer's, kept from one node to the next (two allocations per tool otherwise).
        let mut rendered = self.buffer();
        let mut ends = std::mem::take(&mut self.ends);
        ends.clear();
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
            if self.sets_prefix.is_none() {
                let mut prefix = self.fresh_prefix("any");
                prefix.push('-');
                self.sets_prefix = Some(prefix);
            }
            // Borrowed beside the sets and the blocks (a copy per node was an allocation per tool).
            let prefix = self.sets_prefix.as_deref().unwrap_or_default();
            self.sets
                .rule(mask, variant, prefix, " ::= ", &mut self.blocks, out);
            self.give_back(rendered);
            self.ends = ends;
            return;
        }
        let mut prefix = self.fresh_prefix("any");
        prefix.push('-');
        out.push_str(&prefix);
        out.push('0');
        write_any_order_sets(
            &mut self.blocks,
            items,
            separator.as_deref(),
            &prefix,
            |out, item| out.push_str(&rendered[ends[item]..ends[item + 1]]),
            " ::= ",
        );
        if let SetMask::New(mask) = mask {
            self.sets.register(mask, variant, &prefix);
        }
        self.give_back(rendered);
        self.ends = ends;
    }

    /// The rule for a value valid against `schema`.
    ///
    /// An equal schema converted before has its rule already: converting it again would build the
    /// same bodies (sub-schemas first, each deduplicated by body), so the rule is the same.
    fn schema(&mut self, schema: &'g Value, hint: &str) -> Name {
        if !nests_schemas(schema) {
            // A leaf (a string, a number, an enum…) is cheaper to convert than to look up (a hash and
            // a comparison of the whole schema, descriptions included): its body is deduplicated by
            // [`Rules::add`], which gives an equal schema the same rule.
            return self.convert(schema, hint);
        }
        let hash = schema_hash(schema);
        let mut next = self.converted.get(&hash).copied();
        while let Some(at) = next {
            let (seen, name, after) = &self.schemas[at];
            if same_schema(seen, schema) {
                return name.clone();
            }
            next = *after;
        }
        let name = self.convert(schema, hint);
        let first = self.converted.insert(hash, self.schemas.len());
        self.schemas.push((schema, name.clone(), first));
        name
    }

    /// The rule of `schema`, converted now (not looked up among those converted).
    fn convert(&mut self, schema: &'g Value, hint: &str) -> Name {
        match self.schema_body(schema, hint) {
            Body::Rule(name) => self.add_str(hint, &name),
            Body::Static(body) => self.add_str(hint, body),
            Body::Text(body) => self.add(hint, body),
        }
    }

    fn schema_body(&mut self, schema: &'g Value, hint: &str) -> Body {
        let Some(map) = schema.as_object() else {
            // `true`, or anything that is not a schema object: any value. `false` admits nothing, which
            // GBNF cannot say; it is read as any value too.
            return Body::Rule(self.any_value());
        };
        let keywords = Keywords::of(map);
        if let Some(value) = keywords.constant {
            let mut body = String::new();
            push_value_literal(&mut body, value);
            return Body::Text(body);
        }
        if let Some(values) = keywords.values {
            let mut body = String::with_capacity(4 + values.len() * 16);
            body.push_str("( ");
            for (at, value) in values.iter().enumerate() {
                if at > 0 {
                    body.push_str(" | ");
                }
                push_value_literal(&mut body, value);
            }
            body.push_str(" )");
            return Body::Text(body);
        }
        if let Some(options) = keywords.any_of.or(keywords.one_of) {
            let mut body = String::from("( ");
            let mut option_hint = String::with_capacity(hint.len() + 4);
            for (at, option) in options.iter().enumerate() {
                option_hint.clear();
                option_hint.push_str(hint);
                option_hint.push('-');
                push_number(&mut option_hint, at as u64);
                let name = self.schema(option, &option_hint);
                if at > 0 {
                    body.push_str(" | ");
                }
                body.push_str(&name);
            }
            body.push_str(" )");
            return Body::Text(body);
        }
        match keywords.kind {
            Some(Value::String(kind)) => self.typed(kind, &keywords, hint),
            Some(Value::Array(kinds)) => {
                let mut body = String::from("( ");
                let mut kind_hint = String::with_capacity(hint.len() + 8);
                for (at, kind) in kinds.iter().filter_map(Value::as_str).enumerate() {
                    kind_hint.clear();
                    kind_hint.push_str(hint);
                    kind_hint.push('-');
                    kind_hint.push_str(kind);
                    let name = match self.typed(kind, &keywords, hint) {
                        Body::Rule(name) => self.add_str(&kind_hint, &name),
                        Body::Static(text) => self.add_str(&kind_hint, text),
                        Body::Text(text) => self.add(&kind_hint, text),
                    };
                    if at > 0 {
                        body.push_str(" | ");
                    }
                    body.push_str(&name);
                }
                body.push_str(" )");
                Body::Text(body)
            }
            _ if keywords.properties.is_some() => self.typed("object", &keywords, hint),
            _ if keywords.items.is_some() => self.typed("array", &keywords, hint),
            _ => Body::Rule(self.any_value()),
        }
    }

    fn typed(&mut self, kind: &str, keywords: &Keywords<'g>, hint: &str) -> Body {
        match kind {
            "string" => Body::Text(self.string(keywords)),
            "integer" => Body::Static(INTEGER),
            "number" => Body::Static(NUMBER),
            "boolean" => Body::Static("( \"true\" | \"false\" )"),
            "null" => Body::Static("\"null\""),
            "object" => self.object(keywords, hint),
            "array" => Body::Text(self.array(keywords, hint)),
            _ => Body::Rule(self.any_value()),
        }
    }

    fn string(&mut self, keywords: &Keywords<'_>) -> String {
        let char_rule = match &self.char_rule {
            Some(name) => name.clone(),
            None => {
                let name = self.add_str("char", CHAR);
                self.char_rule = Some(name.clone());
                name
            }
        };
        let (min, max) = (keywords.min_length, keywords.max_length);
        let mut body = String::with_capacity(char_rule.len() + 24);
        body.push_str("\"\\\"\" ");
        body.push_str(&char_rule);
        match (min, max) {
            (None, None) => body.push('*'),
            (Some(min), None) => {
                body.push('{');
                push_number(&mut body, min);
                body.push_str(",}");
            }
            (min, Some(max)) => {
                body.push('{');
                push_number(&mut body, min.unwrap_or(0));
                body.push(',');
                push_number(&mut body, max);
                body.push('}');
            }
        }
        body.push_str(" \"\\\"\"");
        body
    }

    fn object(&mut self, keywords: &Keywords<'g>, hint: &str) -> Body {
        let ws = self.ws();
        let properties = keywords.properties.and_then(Value::as_object);
        let closed = keywords.closed;
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            if closed {
                return Body::Text(["\"{\" ", &ws, " \"}\""].concat());
            }
            return Body::Rule(self.any_object());
        };
        let required = keywords.required;
        let is_required = |key: &str| {
            required.is_some_and(|names| names.iter().any(|name| name.as_str() == Some(key)))
        };
        // Each declared member as `"key" : value`, in declared order, one after the other in
        // `members` (each member's end and whether it is required in `ends`).
        let [
            mut members,
            mut value_hint,
            mut after,
            mut first,
            mut next_after,
            mut next_first,
        ] = [(); 6].map(|()| self.buffer());
        let mut ends = Vec::with_capacity(properties.len());
        for (at, (key, schema)) in properties.iter().enumerate() {
            value_hint.clear();
            value_hint.push_str(hint);
            value_hint.push('-');
            push_number(&mut value_hint, at as u64);
            let value = self.schema(schema, &value_hint);
            push_key_literal(&mut members, key);
            for part in [" ", &ws, " \":\" ", &ws, " ", &value] {
                members.push_str(part);
            }
            ends.push((members.len(), is_required(key)));
        }
        // rest(i, first): members i.. with a comma before each unless it is the first written;
        // `after` and `first` are the bodies for the members after the current one, built in
        // buffers that swap with `next_after` and `next_first`.
        if closed {
            after.push_str("\"\"");
            first.push_str("\"\"");
        } else {
            let (after_tail, first_tail) = self.open_tails();
            after.push_str(&after_tail);
            first.push_str(&first_tail);
        }
        // The hints of the rest rules, in the buffer of the values' hint.
        value_hint.clear();
        for part in [hint, "-rest", hint, "-first"] {
            value_hint.push_str(part);
        }
        let (rest_hint, first_hint) = value_hint.split_at(hint.len() + "-rest".len());
        for at in (0..ends.len()).rev() {
            let (end, required) = ends[at];
            let member = &members[if at == 0 { 0 } else { ends[at - 1].0 }..end];
            let after_rule = self.add_str(rest_hint, &after);
            next_after.clear();
            next_first.clear();
            if !required {
                next_after.push_str("( ");
                next_first.push_str("( ");
            }
            for part in ["\",\" ", &ws, " ", member, " ", &ws, " ", &after_rule] {
                next_after.push_str(part);
            }
            for part in [member, " ", &ws, " ", &after_rule] {
                next_first.push_str(part);
            }
            if !required {
                // Only an optional member may be skipped to the rest's first member.
                let first_rule = self.add_str(first_hint, &first);
                next_after.push_str(" ) | ");
                next_after.push_str(&after_rule);
                next_first.push_str(" ) | ");
                next_first.push_str(&first_rule);
            }
            std::mem::swap(&mut after, &mut next_after);
            std::mem::swap(&mut first, &mut next_first);
        }
        value_hint.clear();
        value_hint.push_str(hint);
        value_hint.push_str("-members");
        let body = self.add_str(&value_hint, &first);
        for buffer in [members, value_hint, after, first, next_after, next_first] {
            self.give_back(buffer);
        }
        Body::Text(["\"{\" ", &ws, " ", &body, " \"}\""].concat())
    }

    /// An empty buffer: one given back before ([`Rules::give_back`]), or a new one with room for an
    /// object's members (grown a few times from empty, it was 2% of a JSON format's GBNF).
    fn buffer(&mut self) -> String {
        self.buffers
            .pop()
            .unwrap_or_else(|| String::with_capacity(512))
    }

    fn give_back(&mut self, mut buffer: String) {
        buffer.clear();
        self.buffers.push(buffer);
    }

    /// The tails of an object that admits further members (`additionalProperties` not `false`): after
    /// a declared member, and with no member written yet. The same for every object, made once.
    fn open_tails(&mut self) -> (Name, Name) {
        if let Some(tails) = &self.open_tails {
            return tails.clone();
        }
        let ws = self.ws();
        let value = self.any_value();
        let string = self.string(&Keywords::default());
        let string = self.add("string", string);
        // Joined from their parts, not `format!`ted (which was half of this once-per-grammar cost).
        let member = [&*string, " ", &ws, " \":\" ", &ws, " ", &value].concat();
        let tails: (Name, Name) = (
            ["( \",\" ", &ws, " ", &member, " ", &ws, " )*"]
                .concat()
                .into(),
            [
                "( ",
                &member,
                " ",
                &ws,
                " ( \",\" ",
                &ws,
                " ",
                &member,
                " ",
                &ws,
                " )* )?",
            ]
            .concat()
            .into(),
        );
        self.open_tails = Some(tails.clone());
        tails
    }

    fn array(&mut self, keywords: &Keywords<'g>, hint: &str) -> String {
        let ws = self.ws();
        let item = match keywords.items {
            Some(items) if items.is_object() => self.schema(items, &[hint, "-item"].concat()),
            _ => self.any_value(),
        };
        let min = keywords.min_items.unwrap_or(0);
        let max = keywords.max_items;
        let mut body = String::with_capacity(32 + 3 * item.len() + 6 * ws.len());
        for part in ["\"[\" ", &ws, " "] {
            body.push_str(part);
        }
        // `ITEM WS ( "," WS ITEM WS )` then the repetition.
        let items = |body: &mut String| {
            for part in [
                &item,
                " ",
                &ws,
                " ( \",\" ",
                &ws,
                " ",
                &item,
                " ",
                &ws,
                " )",
            ] {
                body.push_str(part);
            }
        };
        match (min, max) {
            (_, Some(0)) => body.push_str("\"\""),
            (0, None) => {
                body.push_str("( ");
                items(&mut body);
                body.push_str("* )?");
            }
            (min, None) => {
                items(&mut body);
                body.push('{');
                push_number(&mut body, min - 1);
                body.push_str(",}");
            }
            (min, Some(max)) => {
                if min == 0 {
                    body.push_str("( ");
                }
                items(&mut body);
                body.push('{');
                push_number(&mut body, min.saturating_sub(1));
                body.push(',');
                push_number(&mut body, max - 1);
                body.push('}');
                if min == 0 {
                    body.push_str(" )?");
                }
            }
        }
        body.push_str(" \"]\"");
        body
    }

    /// Any JSON value (recursive rules, written once).
    fn any_value(&mut self) -> Name {
        if let Some((value, _)) = &self.any_value {
            return value.clone();
        }
        let value_at = self.reserve("value");
        let value_name = self.rules[value_at].0.clone();
        let ws = self.ws();
        let string = self.string(&Keywords::default());
        let string = self.add("string", string);
        // Joined from their parts, not `format!`ted (built once per grammar, yet 2% of a
        // JSON-fields format's GBNF, mostly the formatting).
        let (ws, string, value) = (&*ws, &*string, &*value_name);
        let member = [string, " ", ws, " \":\" ", ws, " ", value, " ", ws].concat();
        let object = [
            "\"{\" ",
            ws,
            " ( ",
            &member,
            " ( \",\" ",
            ws,
            " ",
            &member,
            " )* )? \"}\"",
        ]
        .concat();
        let object = self.add("object", object);
        self.any_value = Some((value_name.clone(), object.clone()));
        let array = [
            "\"[\" ",
            ws,
            " ( ",
            value,
            " ",
            ws,
            " ( \",\" ",
            ws,
            " ",
            value,
            " ",
            ws,
            " )* )? \"]\"",
        ]
        .concat();
        let array = self.add("array", array);
        let start = self.bodies.len();
        for part in [
            &*object,
            " | ",
            &array,
            " | ",
            string,
            " | ",
            NUMBER,
            " | \"true\" | \"false\" | \"null\"",
        ] {
            self.bodies.push_str(part);
        }
        self.rules[value_at].1 = start..self.bodies.len();
        value_name
    }

    fn any_object(&mut self) -> Name {
        self.any_value();
        self.any_value
            .as_ref()
            .map(|(_, object)| object.clone())
            .unwrap_or_else(|| Rc::from(""))
    }
}

/// True when `schema` holds schemas its conversion converts in turn (properties, items,
/// alternatives): the schemas worth remembering by [`Rules::schema`].
fn nests_schemas(schema: &Value) -> bool {
    schema.as_object().is_some_and(|map| {
        map.keys()
            .any(|key| matches!(key.as_str(), "properties" | "items" | "anyOf" | "oneOf"))
    })
}

/// What a schema converts to: a rule's body, or the name of a rule that is the value already (any
/// value), which the schema's rule then holds alone.
enum Body {
    Text(String),
    /// A body that is always the same text (a number, a boolean).
    Static(&'static str),
    Rule(Name),
}

/// The keywords of a schema object that the conversion reads, found in one pass over its members
/// (a map lookup per keyword, up to eleven per schema, cost more than the pass).
#[derive(Default)]
struct Keywords<'g> {
    constant: Option<&'g Value>,
    /// `enum`, when it is a list.
    values: Option<&'g Vec<Value>>,
    any_of: Option<&'g Vec<Value>>,
    one_of: Option<&'g Vec<Value>>,
    kind: Option<&'g Value>,
    properties: Option<&'g Value>,
    items: Option<&'g Value>,
    required: Option<&'g Vec<Value>>,
    /// `additionalProperties: false`.
    closed: bool,
    min_length: Option<u64>,
    max_length: Option<u64>,
    min_items: Option<u64>,
    max_items: Option<u64>,
}

impl<'g> Keywords<'g> {
    fn of(map: &'g serde_json::Map<String, Value>) -> Self {
        let mut keywords = Keywords::default();
        for (key, value) in map {
            match key.as_str() {
                "const" => keywords.constant = Some(value),
                "enum" => keywords.values = value.as_array(),
                "anyOf" => keywords.any_of = value.as_array(),
                "oneOf" => keywords.one_of = value.as_array(),
                "type" => keywords.kind = Some(value),
                "properties" => keywords.properties = Some(value),
                "items" => keywords.items = Some(value),
                "required" => keywords.required = value.as_array(),
                "additionalProperties" => keywords.closed = *value == Value::Bool(false),
                "minLength" => keywords.min_length = value.as_u64(),
                "maxLength" => keywords.max_length = value.as_u64(),
                "minItems" => keywords.min_items = value.as_u64(),
                "maxItems" => keywords.max_items = value.as_u64(),
                _ => {}
            }
        }
        keywords
    }
}

/// A hash of `schema` that equal schemas (with their members in the same order) share: for a
/// caller that looks an equal schema up among those it has seen ([`same_schema`]).
pub(crate) fn schema_hash(schema: &Value) -> u64 {
    use std::hash::BuildHasher;
    FastHash::default().hash_one(SchemaKey(schema))
}

/// True when the schemas are equal with their members in the same order.
pub(crate) fn same_schema(a: &Value, b: &Value) -> bool {
    SchemaKey(a) == SchemaKey(b)
}

/// A schema as a key of [`Rules::converted`]: equal when the schemas are equal with their members in
/// the same order (the converter writes properties in declared order, and `serde_json`'s
/// `preserve_order` maps compare regardless of order).
struct SchemaKey<'g>(&'g Value);

impl PartialEq for SchemaKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        // Scalars are compared here, not through `Value`'s `==` (a call per leaf of a tool's
        // schema: its descriptions and bounds).
        fn same(a: &Value, b: &Value) -> bool {
            match (a, b) {
                (Value::Object(a), Value::Object(b)) => {
                    a.len() == b.len()
                        && a.iter()
                            .zip(b)
                            .all(|((ka, va), (kb, vb))| ka == kb && same_leaf_first(va, vb))
                }
                (Value::Array(a), Value::Array(b)) => {
                    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_leaf_first(a, b))
                }
                (a, b) => same_leaf_first(a, b),
            }
        }
        #[inline(always)]
        fn same_leaf_first(a: &Value, b: &Value) -> bool {
            match (a, b) {
                (Value::String(a), Value::String(b)) => a == b,
                (Value::Number(a), Value::Number(b)) => a == b,
                (Value::Bool(a), Value::Bool(b)) => a == b,
                (Value::Null, Value::Null) => true,
                (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_)) => {
                    same(a, b)
                }
                _ => false,
            }
        }
        std::ptr::eq(self.0, other.0) || same(self.0, other.0)
    }
}

impl Eq for SchemaKey<'_> {}

impl std::hash::Hash for SchemaKey<'_> {
    /// Hashes the schema's first level (its members' names and scalar values, the sizes of what
    /// nests, and the member names of a nested object: a tool's property names): enough to tell
    /// schemas apart, at a small cost for a tool's whole schema. (Without the nested names, tools
    /// with as many properties collided, and each collision compared two whole schemas.)
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        fn shallow<H: std::hash::Hasher>(value: &Value, state: &mut H) {
            match value {
                Value::Array(items) => state.write_usize(items.len()),
                Value::Object(members) => {
                    state.write_usize(members.len());
                    for key in members.keys() {
                        state.write(key.as_bytes());
                    }
                }
                other => std::hash::Hash::hash(other, state),
            }
        }
        match self.0 {
            Value::Object(members) => {
                for (key, value) in members {
                    state.write(key.as_bytes());
                    shallow(value, state);
                }
            }
            other => shallow(other, state),
        }
    }
}

/// A string character: unescaped, or an escape; `\\u` escapes of UTF-16 surrogates are left out (a lone
/// one is not a character, and `serde_json` refuses it), so characters beyond the BMP are written raw.
const CHAR: &str = "[^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" ( [0-9a-cA-CeEfF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} ) )";
const INTEGER: &str = "( \"0\" | \"-\"? [1-9] [0-9]* )";
const NUMBER: &str = "( \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )? )";

/// Writes the GBNF literal of a value as JSON writes it compactly (`"\"a\""` for `"a"`, `1`).
fn push_value_literal(out: &mut String, value: &Value) {
    match value {
        Value::String(text) => push_key_literal(out, text),
        other => push_literal(out, &serde_json::to_string(other).unwrap_or_default()),
    }
}

/// Writes the GBNF literal of a member name as JSON writes it (`"\"key\""`): what
/// `literal(&serde_json::to_string(key))` makes, without the two strings in between for a name that
/// needs no escape (the common case).
fn push_key_literal(out: &mut String, key: &str) {
    if key
        .chars()
        .any(|c| c == '"' || c == '\\' || (c as u32) < 0x20)
    {
        push_literal(out, &serde_json::to_string(key).unwrap_or_default());
        return;
    }
    out.push_str("\"\\\"");
    out.push_str(key);
    out.push_str("\\\"\"");
}

/// A GBNF string literal.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_literal(&mut out, text);
    out
}

/// Writes a GBNF string literal.
fn push_literal(out: &mut String, text: &str) {
    out.push('"');
    // Most literals need no escape (GBNF escapes what JSON does): copied whole; the others (a JSON
    // key's quotes) a run at a time between escapes.
    if !super::grammar::needs_json_escape(text) {
        out.push_str(text);
        out.push('"');
        return;
    }
    // A JSON string's text (`"name"`, `"tool_00_lookup"`): its two quotes written with the
    // literal's own (three copies, two of constant size, where the runs between escapes were five:
    // a fifteenth of a JSON-fields format's GBNF was these literals).
    if let Some(inner) = text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        && !super::grammar::needs_json_escape(inner)
    {
        out.push_str("\\\"");
        out.push_str(inner);
        out.push_str("\\\"\"");
        return;
    }
    // The runs between escapes copied whole, the escapes found eight bytes at a time (GBNF escapes
    // the bytes JSON does): DSML's literals (`<｜DSML｜invoke name="`) went a byte at a time.
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(at) = super::grammar::next_escape(bytes, start) {
        out.push_str(&text[start..at]);
        match bytes[at] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b => {
                let _ = write!(out, "\\x{b:02X}");
            }
        }
        start = at + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// Writes `[^…]`: every character outside `alphabet` (any character but NUL when the alphabet is
/// empty).
fn push_negated_class(out: &mut String, alphabet: &[char]) {
    if alphabet.is_empty() {
        out.push_str("[^\\x00]");
        return;
    }
    out.reserve(alphabet.len() + 3);
    out.push_str("[^");
    for &c in alphabet {
        match c {
            ']' | '[' | '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            // llama.cpp knows no `\-` or `\^` (nor llguidance `\-`): a hex escape is a plain
            // character to every engine.
            '-' => out.push_str("\\x2D"),
            '^' => out.push_str("\\x5E"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push(']');
}

/// A schema as standalone GBNF (its rule is `root`), for tests and for servers that want a JSON-only
/// grammar.
pub(crate) fn schema_grammar(schema: &Value) -> String {
    let grammar = Grammar {
        rules: vec![("root".to_owned(), Node::Json(Arc::new(schema.clone())))],
    };
    render(&grammar)
}
