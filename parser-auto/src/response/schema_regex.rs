//! Python `re` patterns, compiled for the `regex` crate with Python's matching semantics.
//!
//! `recursive_parse` always calls `re.search` / `re.finditer` / `re.sub` with `re.DOTALL`. Most of
//! Python's syntax maps one to one onto the `regex` crate; the translation below rewrites what does not:
//!
//! - Python's non-multi-line `$` matches at the end *and just before a final `\n`*. The `regex` crate has
//!   no such assertion, and no look-ahead to build one. Instead, when a pattern uses that `$`, the
//!   final `\n` of the haystack is swapped for the byte `0xFE` (never part of UTF-8), `0xFE` is made the
//!   line terminator, `$` becomes `(?m:$)` (which then matches only at the end or before that byte), and
//!   every atom that could match `\n` also accepts `0xFE`. Offsets do not move, so captures are sliced
//!   from the original text.
//! - `\w`, `\W`, `\s`, `\S` get Python's definitions (`str.isalnum()`/`_`, `str.isspace()`), which
//!   differ from the `regex` crate's Unicode classes at the margins.
//! - `\Z` is `\z`; `^` is `\A` unless multi-line; `{,n}` is `{0,n}`; a `{` that is no quantifier is a
//!   literal; class members are emitted as `\x{..}` so `[`, `&&`, `--`, `~~` stay literal as in Python.
//! - Iteration follows Python 3.7+: an empty match right after a non-empty one is reported, and
//!   after an empty match Python first retries the same position for a *non-empty* match (by
//!   backtracking further). The `regex` crate cannot be asked for that, so [`NonEmptyVm`] runs the
//!   pattern's Thompson NFA (same syntax and flags) in priority order, rejecting the empty match.
//!
//! What the `regex` crate cannot run (look-around, backreferences, atomic groups, possessive
//! quantifiers, conditionals) is rejected when the schema is compiled.

use regex::bytes::{CaptureLocations, Regex, RegexBuilder};
use regex_automata::nfa::thompson::{self, NFA, State, WhichCaptures};
use regex_automata::util::look::LookMatcher;
use regex_automata::util::primitives::StateID;
use regex_automata::util::syntax;
use serde_json::{Map, Value};

/// The byte standing in for the haystack's final `\n` when a pattern uses Python's `$`.
const FINAL_NEWLINE: u8 = 0xFE;

/// Why a pattern could not be compiled.
pub(super) type PatternError = String;

const LOOKAROUND: &str = "uses look-around/backreferences, which the regex crate does not support";

/// A compiled Python pattern.
#[derive(Clone, Debug)]
pub(super) struct PyRegex {
    /// The Python source, for messages.
    source: String,
    regex: Regex,
    /// Whether the haystack's final `\n` must be swapped for [`FINAL_NEWLINE`] (see the module docs).
    final_newline: bool,
    /// `(index, name)` of the named groups, in definition order.
    named: Vec<(usize, String)>,
    /// Number of capture groups, group 0 excluded.
    groups: usize,
    /// For Python's "non-empty match here" retry after an empty match.
    vm: NonEmptyVm,
}

/// One match: `(start, end)` of each group, group 0 first, in byte offsets of the original text.
pub(super) struct PyMatch {
    spans: Vec<Option<(usize, usize)>>,
}

impl PyMatch {
    fn group<'t>(&self, text: &'t str, index: usize) -> Option<&'t str> {
        let (start, end) = (*self.spans.get(index)?)?;
        text.get(start..end)
    }

    fn whole(&self) -> (usize, usize) {
        self.spans.first().copied().flatten().unwrap_or((0, 0))
    }
}

impl PyRegex {
    /// Translates and compiles a Python pattern (searched with `re.DOTALL`).
    pub(super) fn new(source: &str) -> Result<PyRegex, PatternError> {
        let translated = translate(source)?;
        let line_terminator = if translated.final_newline {
            FINAL_NEWLINE
        } else {
            b'\n'
        };
        let regex = RegexBuilder::new(&translated.pattern)
            .line_terminator(line_terminator)
            .size_limit(crate::response::content::REGEX_SIZE_LIMIT)
            .dfa_size_limit(crate::response::content::REGEX_DFA_SIZE_LIMIT)
            .build()
            .map_err(|e| format!("the regex crate rejects the translated pattern: {e}"))?;
        let vm = NonEmptyVm::new(&translated.pattern, line_terminator)?;
        let named = regex
            .capture_names()
            .enumerate()
            .filter_map(|(i, name)| name.map(|n| (i, n.to_owned())))
            .collect();
        Ok(PyRegex {
            source: source.to_owned(),
            groups: regex.captures_len().saturating_sub(1),
            regex,
            final_newline: translated.final_newline,
            named,
            vm,
        })
    }

    /// The Python source of the pattern.
    pub(super) fn source(&self) -> &str {
        &self.source
    }

    /// Whether the pattern has named groups (then a match becomes a dict).
    pub(super) fn has_named_groups(&self) -> bool {
        !self.named.is_empty()
    }

    /// Whether the pattern has a group of this name.
    pub(super) fn has_group(&self, name: &str) -> bool {
        self.named.iter().any(|(_, n)| n == name)
    }

    /// Number of capture groups.
    pub(super) fn groups(&self) -> usize {
        self.groups
    }

    fn haystack<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, [u8]> {
        if self.final_newline && text.ends_with('\n') {
            let mut bytes = text.as_bytes().to_vec();
            if let Some(last) = bytes.last_mut() {
                *last = FINAL_NEWLINE;
            }
            std::borrow::Cow::Owned(bytes)
        } else {
            std::borrow::Cow::Borrowed(text.as_bytes())
        }
    }

    /// The leftmost match starting at or after `from` (a char boundary), never one that splits a char.
    fn find_at(
        &self,
        text: &str,
        hay: &[u8],
        mut from: usize,
        locs: &mut CaptureLocations,
    ) -> Option<PyMatch> {
        loop {
            let m = self.regex.captures_read_at(locs, hay, from)?;
            // Every consuming atom is Unicode-aware, so only an empty match (an assertion) can land
            // inside a multi-byte char. Python works on code points and never sees that position: look
            // again from the next char.
            if text.is_char_boundary(m.start()) && text.is_char_boundary(m.end()) {
                let spans = (0..locs.len()).map(|i| locs.get(i)).collect();
                return Some(PyMatch { spans });
            }
            from = next_boundary(text, m.start())?;
        }
    }

    /// `re.search`: the leftmost match.
    pub(super) fn search(&self, text: &str) -> Option<PyMatch> {
        let hay = self.haystack(text);
        let mut locs = self.regex.capture_locations();
        self.find_at(text, &hay, 0, &mut locs)
    }

    /// `re.finditer`: every match, left to right, with Python 3.7+'s handling of empty matches.
    pub(super) fn find_all(&self, text: &str) -> Vec<PyMatch> {
        let hay = self.haystack(text);
        let mut locs = self.regex.capture_locations();
        let mut out: Vec<PyMatch> = Vec::new();
        let mut pos = 0;
        // Where the previous match was empty: Python must then advance past it.
        let mut empty_at: Option<usize> = None;
        while pos <= text.len() {
            let Some(m) = self.find_at(text, &hay, pos, &mut locs) else {
                break;
            };
            let (start, end) = m.whole();
            if start == end && empty_at == Some(start) {
                // Python backtracks for a non-empty match at this same position, and only then
                // moves on (where an empty match is fine again).
                if let Some(m) = self
                    .vm
                    .non_empty_at(&hay, start)
                    .map(|spans| PyMatch { spans })
                    && m.whole().1 > start
                    && text.is_char_boundary(m.whole().1)
                {
                    empty_at = None;
                    pos = m.whole().1;
                    out.push(m);
                    continue;
                }
                match next_boundary(text, start) {
                    Some(next) => {
                        pos = next;
                        empty_at = None;
                        continue;
                    }
                    None => break,
                }
            }
            empty_at = (start == end).then_some(end);
            pos = end;
            out.push(m);
        }
        out
    }

    /// `re.sub` with a compiled replacement template.
    pub(super) fn sub(&self, text: &str, template: &Template) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for m in self.find_all(text) {
            let (start, end) = m.whole();
            out.push_str(text.get(last..start).unwrap_or(""));
            for piece in &template.pieces {
                match piece {
                    TemplatePiece::Literal(s) => out.push_str(s),
                    // Python 3.5+: a group that did not participate expands to "".
                    TemplatePiece::Group(i) => out.push_str(m.group(text, *i).unwrap_or("")),
                }
            }
            last = end;
        }
        out.push_str(text.get(last..).unwrap_or(""));
        out
    }

    /// `_parse_re_match`: a dict of the named groups that participated, else the single unnamed
    /// group (or `None` if it did not participate). The schema compiler guarantees the pattern has
    /// named groups or exactly one group.
    pub(super) fn match_value(&self, text: &str, m: &PyMatch) -> Value {
        if self.named.is_empty() {
            return m
                .group(text, 1)
                .map_or(Value::Null, |s| Value::String(s.to_owned()));
        }
        let mut dict = Map::new();
        for (index, name) in &self.named {
            if let Some(s) = m.group(text, *index) {
                dict.insert(name.clone(), Value::String(s.to_owned()));
            }
        }
        Value::Object(dict)
    }
}

fn next_boundary(text: &str, at: usize) -> Option<usize> {
    let mut next = at.checked_add(1)?;
    while next <= text.len() && !text.is_char_boundary(next) {
        next += 1;
    }
    (next <= text.len()).then_some(next)
}

/// A priority-ordered simulation (a PikeVM) of the pattern's Thompson NFA, for one question the
/// `regex` crate cannot answer: the highest-priority match at a position *that is not empty*, which
/// is what Python's backtracking finds after an empty match there.
#[derive(Clone)]
struct NonEmptyVm {
    nfa: NFA,
    slots: usize,
}

impl std::fmt::Debug for NonEmptyVm {
    // The NFA's own Debug lists every state: too much inside a schema's Debug.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NonEmptyVm")
            .field("states", &self.nfa.states().len())
            .finish()
    }
}

/// A thread: an NFA state and its capture slots.
type Thread = (StateID, Vec<Option<usize>>);

impl NonEmptyVm {
    fn new(pattern: &str, line_terminator: u8) -> Result<NonEmptyVm, PatternError> {
        let mut look = LookMatcher::new();
        look.set_line_terminator(line_terminator);
        // The same syntax as `regex::bytes::Regex` (Unicode on, invalid UTF-8 allowed).
        let nfa = NFA::compiler()
            .syntax(
                syntax::Config::new()
                    .utf8(false)
                    .line_terminator(line_terminator),
            )
            .configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(crate::response::content::REGEX_SIZE_LIMIT))
                    .which_captures(WhichCaptures::All)
                    .look_matcher(look),
            )
            .build(pattern)
            .map_err(|e| format!("cannot build the pattern's automaton: {e}"))?;
        // Word boundaries need Unicode data; without it `LookMatcher::matches` would panic.
        nfa.look_set_any()
            .available()
            .map_err(|e| format!("cannot build the pattern's automaton: {e}"))?;
        let slots = nfa.group_info().slot_len();
        Ok(NonEmptyVm { nfa, slots })
    }

    /// The spans (group 0 first) of the best match anchored at `start` that ends after `start`.
    fn non_empty_at(&self, hay: &[u8], start: usize) -> Option<Vec<Option<(usize, usize)>>> {
        let mut current: Vec<Thread> = Vec::new();
        let mut seen = vec![false; self.nfa.states().len()];
        self.closure(
            &mut current,
            &mut seen,
            self.nfa.start_anchored(),
            vec![None; self.slots],
            hay,
            start,
        );
        let mut found: Option<Vec<Option<usize>>> = None;
        let mut at = start;
        while !current.is_empty() {
            let mut next: Vec<Thread> = Vec::new();
            seen.iter_mut().for_each(|s| *s = false);
            for (id, slots) in current {
                let target = match self.nfa.state(id) {
                    State::Match { .. } => {
                        if at > start {
                            // Leftmost-first: lower-priority threads are cut; the higher-priority
                            // ones already in `next` may still find a longer match.
                            found = Some(slots);
                            break;
                        }
                        // The empty match: Python's backtracking rejects it and goes on.
                        continue;
                    }
                    State::ByteRange { trans } => trans.matches(hay, at).then_some(trans.next),
                    State::Sparse(sparse) => sparse.matches(hay, at),
                    State::Dense(dense) => dense.matches(hay, at),
                    _ => None,
                };
                if let Some(target) = target {
                    self.closure(&mut next, &mut seen, target, slots, hay, at + 1);
                }
            }
            if at >= hay.len() {
                break;
            }
            current = next;
            at += 1;
        }
        let found = found?;
        let spans = found
            .chunks(2)
            .map(|pair| match pair {
                [Some(s), Some(e)] => Some((*s, *e)),
                _ => None,
            })
            .collect();
        Some(spans)
    }

    /// Adds the states reachable from `id` without consuming input, in priority order.
    fn closure(
        &self,
        list: &mut Vec<Thread>,
        seen: &mut [bool],
        id: StateID,
        slots: Vec<Option<usize>>,
        hay: &[u8],
        at: usize,
    ) {
        let mut stack: Vec<Thread> = vec![(id, slots)];
        while let Some((id, mut slots)) = stack.pop() {
            let Some(mark) = seen.get_mut(id.as_usize()) else {
                continue;
            };
            if *mark {
                continue;
            }
            *mark = true;
            match self.nfa.state(id) {
                State::Look { look, next } => {
                    if self.nfa.look_matcher().matches(*look, hay, at) {
                        stack.push((*next, slots));
                    }
                }
                State::Union { alternates } => {
                    for alt in alternates.iter().rev() {
                        stack.push((*alt, slots.clone()));
                    }
                }
                State::BinaryUnion { alt1, alt2 } => {
                    stack.push((*alt2, slots.clone()));
                    stack.push((*alt1, slots));
                }
                State::Capture { next, slot, .. } => {
                    if let Some(s) = slots.get_mut(slot.as_usize()) {
                        *s = Some(at);
                    }
                    stack.push((*next, slots));
                }
                State::Fail => {}
                State::ByteRange { .. }
                | State::Sparse(_)
                | State::Dense(_)
                | State::Match { .. } => {
                    list.push((id, slots));
                }
            }
        }
    }
}

/// A `re.sub` replacement string, parsed as Python's `parse_template` does.
#[derive(Clone, Debug)]
pub(super) struct Template {
    pieces: Vec<TemplatePiece>,
}

#[derive(Clone, Debug)]
enum TemplatePiece {
    Literal(String),
    Group(usize),
}

impl Template {
    /// Parses `repl` for `regex`: `\g<name>`, `\g<n>`, `\n` (group refs), octal and the usual escapes.
    pub(super) fn new(repl: &str, regex: &PyRegex) -> Result<Template, PatternError> {
        let chars: Vec<char> = repl.chars().collect();
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut i = 0;
        let group = |literal: &mut String, pieces: &mut Vec<TemplatePiece>, index: usize| {
            if index > regex.groups() {
                return Err(format!(
                    "replacement `{repl}`: invalid group reference {index}"
                ));
            }
            if !literal.is_empty() {
                pieces.push(TemplatePiece::Literal(std::mem::take(literal)));
            }
            pieces.push(TemplatePiece::Group(index));
            Ok(())
        };
        while let Some(&c) = chars.get(i) {
            i += 1;
            if c != '\\' {
                literal.push(c);
                continue;
            }
            let Some(&e) = chars.get(i) else {
                return Err(format!("replacement `{repl}`: bad escape (end of pattern)"));
            };
            i += 1;
            match e {
                'g' => {
                    if chars.get(i) != Some(&'<') {
                        return Err(format!("replacement `{repl}`: missing < after \\g"));
                    }
                    let rest: String = chars.get(i + 1..).unwrap_or(&[]).iter().collect();
                    let Some(close) = rest.find('>') else {
                        return Err(format!(
                            "replacement `{repl}`: missing >, unterminated name"
                        ));
                    };
                    let name = rest.get(..close).unwrap_or("");
                    i += 2 + name.chars().count();
                    let index = if let Ok(n) = name.parse::<usize>() {
                        if !name.bytes().all(|b| b.is_ascii_digit()) {
                            return Err(format!("replacement `{repl}`: bad group name {name:?}"));
                        }
                        n
                    } else if let Some((index, _)) = regex.named.iter().find(|(_, n)| n == name) {
                        *index
                    } else {
                        return Err(format!("replacement `{repl}`: unknown group name {name:?}"));
                    };
                    group(&mut literal, &mut pieces, index)?;
                }
                '0' => {
                    let mut value = 0u32;
                    for _ in 0..2 {
                        match chars.get(i).and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                value = value * 8 + d;
                                i += 1;
                            }
                            None => break,
                        }
                    }
                    literal.push(char::from_u32(value & 0xff).unwrap_or('\0'));
                }
                '1'..='9' => {
                    let first = e.to_digit(10).unwrap_or(0);
                    match chars.get(i).and_then(|c| c.to_digit(10)) {
                        Some(second) => {
                            i += 1;
                            let third = chars.get(i).and_then(|c| c.to_digit(8));
                            if let (true, true, Some(third)) = (first < 8, second < 8, third) {
                                i += 1;
                                let value = first * 64 + second * 8 + third;
                                if value > 0o377 {
                                    return Err(format!(
                                        "replacement `{repl}`: octal escape outside of range 0-0o377"
                                    ));
                                }
                                literal.push(char::from_u32(value).unwrap_or('\0'));
                            } else {
                                group(&mut literal, &mut pieces, (first * 10 + second) as usize)?;
                            }
                        }
                        None => group(&mut literal, &mut pieces, first as usize)?,
                    }
                }
                'a' => literal.push('\x07'),
                'b' => literal.push('\x08'),
                'f' => literal.push('\x0c'),
                'n' => literal.push('\n'),
                'r' => literal.push('\r'),
                't' => literal.push('\t'),
                'v' => literal.push('\x0b'),
                '\\' => literal.push('\\'),
                c if c.is_ascii_alphabetic() => {
                    return Err(format!("replacement `{repl}`: bad escape \\{c}"));
                }
                // Python keeps an unknown non-letter escape as written, backslash included.
                c => {
                    literal.push('\\');
                    literal.push(c);
                }
            }
        }
        if !literal.is_empty() {
            pieces.push(TemplatePiece::Literal(literal));
        }
        Ok(Template { pieces })
    }
}

/// The result of [`translate`].
struct Translated {
    pattern: String,
    final_newline: bool,
}

/// A piece of the translated pattern, before we know whether Python's `$` is used.
enum Piece {
    Text(String),
    /// An atom that can match `\n` (so, in final-newline mode, must also match `0xFE`).
    NewlineAtom(String),
    /// Python's non-multi-line `$`.
    Dollar,
}

#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Start of pattern, group or branch: nothing to repeat.
    Nothing,
    Anchor,
    Atom,
    Repeat,
}

#[derive(Clone, Copy)]
struct Flags {
    dotall: bool,
    multiline: bool,
}

/// Python's `\s` (`str.isspace()`): Unicode White_Space plus the separators U+001C..U+001F.
const SPACE: &str = r"\s\x{1C}-\x{1F}";
/// Python's `\w` (`str.isalnum()` or `_`): letters, numbers, underscore.
const WORD: &str = r"\p{L}\p{N}_";

/// Translates a Python pattern into `regex` crate syntax.
fn translate(source: &str) -> Result<Translated, PatternError> {
    let mut t = Translator {
        chars: source.chars().collect(),
        i: 0,
        pieces: Vec::new(),
        flags: Flags {
            dotall: true,
            multiline: false,
        },
        stack: Vec::new(),
        last: Last::Nothing,
        global_flags_allowed: true,
        multiline_anchor: false,
    };
    t.run()?;
    let dollar = t.pieces.iter().any(|p| matches!(p, Piece::Dollar));
    if dollar && t.multiline_anchor {
        return Err(
            "mixes multi-line and single-line `^`/`$`, which cannot be translated for the regex crate"
                .to_owned(),
        );
    }
    let mut pattern = String::new();
    for piece in &t.pieces {
        match piece {
            Piece::Text(s) => pattern.push_str(s),
            Piece::NewlineAtom(s) if dollar => {
                pattern.push_str("(?:");
                pattern.push_str(s);
                pattern.push_str(r"|(?-u:\xFE))");
            }
            Piece::NewlineAtom(s) => pattern.push_str(s),
            Piece::Dollar => pattern.push_str("(?m:$)"),
        }
    }
    Ok(Translated {
        pattern,
        final_newline: dollar,
    })
}

struct Translator {
    chars: Vec<char>,
    i: usize,
    pieces: Vec<Piece>,
    flags: Flags,
    /// Flags to restore at each open group's `)`.
    stack: Vec<Flags>,
    last: Last,
    /// Python accepts global flags `(?i)` only before anything else.
    global_flags_allowed: bool,
    multiline_anchor: bool,
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.i + offset).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn text(&mut self, s: impl Into<String>, last: Last) {
        self.pieces.push(Piece::Text(s.into()));
        self.last = last;
    }

    fn literal(&mut self, c: char) {
        let escaped = regex::escape(c.encode_utf8(&mut [0; 4]));
        if c == '\n' {
            self.pieces.push(Piece::NewlineAtom(escaped));
        } else {
            self.pieces.push(Piece::Text(escaped));
        }
        self.last = Last::Atom;
    }

    fn run(&mut self) -> Result<(), PatternError> {
        while let Some(c) = self.next() {
            if c != '(' {
                self.global_flags_allowed = false;
            }
            match c {
                '\\' => self.escape()?,
                '[' => self.class()?,
                '(' => self.group()?,
                ')' => {
                    let Some(flags) = self.stack.pop() else {
                        return Err("unbalanced parenthesis".to_owned());
                    };
                    self.flags = flags;
                    self.text(")", Last::Atom);
                }
                '|' => self.text("|", Last::Nothing),
                '.' if self.flags.dotall => {
                    self.pieces.push(Piece::NewlineAtom("(?s:.)".to_owned()));
                    self.last = Last::Atom;
                }
                '.' => self.text(r"[^\n]", Last::Atom),
                '^' if self.flags.multiline => {
                    self.multiline_anchor = true;
                    self.text("(?m:^)", Last::Anchor);
                }
                '^' => self.text(r"\A", Last::Anchor),
                '$' if self.flags.multiline => {
                    self.multiline_anchor = true;
                    self.text("(?m:$)", Last::Anchor);
                }
                '$' => {
                    self.pieces.push(Piece::Dollar);
                    self.last = Last::Anchor;
                }
                '*' => self.repeat("*")?,
                '+' => self.repeat("+")?,
                '?' => self.repeat("?")?,
                '{' => match self.counted_repeat() {
                    Some(q) => self.repeat(&q)?,
                    None => self.literal('{'),
                },
                c => self.literal(c),
            }
        }
        if !self.stack.is_empty() {
            return Err("missing ), unterminated subpattern".to_owned());
        }
        Ok(())
    }

    /// Parses `{m}`, `{m,}`, `{,n}`, `{m,n}` after a `{`, as Python does; `None` (nothing consumed)
    /// when the `{` is a literal.
    fn counted_repeat(&mut self) -> Option<String> {
        let start = self.i;
        if self.peek() == Some('}') {
            return None;
        }
        let mut lo = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            lo.push(c);
            self.i += 1;
        }
        let hi = if self.peek() == Some(',') {
            self.i += 1;
            let mut hi = String::new();
            while let Some(c) = self.peek().filter(char::is_ascii_digit) {
                hi.push(c);
                self.i += 1;
            }
            Some(hi)
        } else {
            None
        };
        if self.peek() != Some('}') {
            self.i = start;
            return None;
        }
        self.i += 1;
        let lo = if lo.is_empty() { "0".to_owned() } else { lo };
        Some(match hi {
            None => format!("{{{lo}}}"),
            Some(hi) => format!("{{{lo},{hi}}}"),
        })
    }

    fn repeat(&mut self, quantifier: &str) -> Result<(), PatternError> {
        match self.last {
            Last::Nothing | Last::Anchor => return Err("nothing to repeat".to_owned()),
            Last::Repeat => return Err("multiple repeat".to_owned()),
            Last::Atom => {}
        }
        let mut q = quantifier.to_owned();
        match self.peek() {
            Some('?') => {
                self.i += 1;
                q.push('?');
            }
            Some('+') => {
                return Err(format!(
                    "possessive quantifier `{quantifier}+` {LOOKAROUND} (atomic matching)"
                ));
            }
            _ => {}
        }
        self.text(q, Last::Repeat);
        Ok(())
    }

    /// An escape outside a class (the `\` is consumed).
    fn escape(&mut self) -> Result<(), PatternError> {
        let Some(c) = self.next() else {
            return Err("bad escape (end of pattern)".to_owned());
        };
        match c {
            'A' => self.text(r"\A", Last::Anchor),
            'Z' => self.text(r"\z", Last::Anchor),
            'b' => self.text(r"\b", Last::Anchor),
            'B' => self.text(r"\B", Last::Anchor),
            'd' => self.text(r"\d", Last::Atom),
            'D' => self.newline_atom(r"\D"),
            's' => self.newline_atom(format!("[{SPACE}]")),
            'S' => self.text(format!("[^{SPACE}]"), Last::Atom),
            'w' => self.text(format!("[{WORD}]"), Last::Atom),
            'W' => self.newline_atom(format!("[^{WORD}]")),
            '0' => {
                let value = self.octal_digits(2, 0);
                self.literal(char_from(value)?);
            }
            '1'..='9' => {
                // Python: an octal escape if three octal digits, else a group reference.
                if let (Some(d2), Some(d3)) = (self.peek(), self.peek_at(1))
                    && c < '8'
                    && ('0'..='7').contains(&d2)
                    && ('0'..='7').contains(&d3)
                {
                    self.i += 2;
                    let value = octal(&[c, d2, d3]);
                    if value > 0o377 {
                        return Err(format!(
                            "octal escape \\{c}{d2}{d3} outside of range 0-0o377"
                        ));
                    }
                    self.literal(char_from(value)?);
                } else {
                    return Err(format!("backreference `\\{c}` {LOOKAROUND}"));
                }
            }
            c => {
                let lit = self.common_escape(c)?;
                self.literal(lit);
            }
        }
        Ok(())
    }

    fn newline_atom(&mut self, s: impl Into<String>) {
        self.pieces.push(Piece::NewlineAtom(s.into()));
        self.last = Last::Atom;
    }

    /// Escapes meaning one char both inside and outside classes: `\n`-style, `\x`, `\u`, `\U`,
    /// punctuation. `\b` and digits are handled by the callers.
    fn common_escape(&mut self, c: char) -> Result<char, PatternError> {
        Ok(match c {
            'a' => '\x07',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            'x' => self.hex_escape('x', 2)?,
            'u' => self.hex_escape('u', 4)?,
            'U' => self.hex_escape('U', 8)?,
            'N' => {
                return Err(
                    "named character escapes `\\N{...}` are not supported; write the character itself"
                        .to_owned(),
                );
            }
            c if c.is_ascii_alphanumeric() => return Err(format!("bad escape \\{c}")),
            c => c,
        })
    }

    fn hex_escape(&mut self, kind: char, digits: usize) -> Result<char, PatternError> {
        let mut value = 0u32;
        for n in 0..digits {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    value = value * 16 + d;
                    self.i += 1;
                }
                None => {
                    return Err(format!(
                        "incomplete escape \\{kind} (needs {digits} hex digits, found {n})"
                    ));
                }
            }
        }
        char_from(value)
    }

    /// Reads up to `max` more octal digits, continuing from `value`.
    fn octal_digits(&mut self, max: usize, mut value: u32) -> u32 {
        for _ in 0..max {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    value = value * 8 + d;
                    self.i += 1;
                }
                None => break,
            }
        }
        value
    }

    /// A character class (the `[` is consumed).
    fn class(&mut self) -> Result<(), PatternError> {
        let negate = self.peek() == Some('^');
        if negate {
            self.i += 1;
        }
        let mut items: Vec<ClassItem> = Vec::new();
        loop {
            let Some(c) = self.next() else {
                return Err("unterminated character set".to_owned());
            };
            if c == ']' && !items.is_empty() {
                break;
            }
            let first = if c == '\\' {
                self.class_escape()?
            } else {
                ClassItem::Char(c)
            };
            if self.peek() != Some('-') {
                items.push(first);
                continue;
            }
            self.i += 1;
            let Some(that) = self.next() else {
                return Err("unterminated character set".to_owned());
            };
            if that == ']' {
                items.push(first);
                items.push(ClassItem::Char('-'));
                break;
            }
            let second = if that == '\\' {
                self.class_escape()?
            } else {
                ClassItem::Char(that)
            };
            match (first, second) {
                (ClassItem::Char(lo), ClassItem::Char(hi)) if lo <= hi => {
                    items.push(ClassItem::Range(lo, hi));
                }
                _ => return Err("bad character range in a character class".to_owned()),
            }
        }
        let mut out = String::from(if negate { "[^" } else { "[" });
        let mut newline = false;
        for item in &items {
            match item {
                ClassItem::Char(c) => {
                    newline |= *c == '\n';
                    out.push_str(&format!(r"\x{{{:X}}}", u32::from(*c)));
                }
                ClassItem::Range(lo, hi) => {
                    newline |= (*lo..=*hi).contains(&'\n');
                    out.push_str(&format!(
                        r"\x{{{:X}}}-\x{{{:X}}}",
                        u32::from(*lo),
                        u32::from(*hi)
                    ));
                }
                ClassItem::Set(set, matches_newline) => {
                    newline |= *matches_newline;
                    out.push_str(set);
                }
            }
        }
        out.push(']');
        if newline != negate {
            self.newline_atom(out);
        } else {
            self.text(out, Last::Atom);
        }
        Ok(())
    }

    /// An escape inside a class (the `\` is consumed).
    fn class_escape(&mut self) -> Result<ClassItem, PatternError> {
        let Some(c) = self.next() else {
            return Err("bad escape (end of pattern)".to_owned());
        };
        Ok(match c {
            'b' => ClassItem::Char('\x08'),
            'd' => ClassItem::Set(r"\d".to_owned(), false),
            'D' => ClassItem::Set(r"\D".to_owned(), true),
            's' => ClassItem::Set(SPACE.to_owned(), true),
            'S' => ClassItem::Set(format!("[^{SPACE}]"), false),
            'w' => ClassItem::Set(WORD.to_owned(), false),
            'W' => ClassItem::Set(format!("[^{WORD}]"), true),
            '0'..='7' => {
                let value = self.octal_digits(2, c.to_digit(8).unwrap_or(0));
                if value > 0o377 {
                    return Err("octal escape outside of range 0-0o377".to_owned());
                }
                ClassItem::Char(char_from(value)?)
            }
            c => ClassItem::Char(self.common_escape(c)?),
        })
    }

    /// A group or extension (the `(` is consumed).
    fn group(&mut self) -> Result<(), PatternError> {
        if self.peek() != Some('?') {
            self.global_flags_allowed = false;
            self.stack.push(self.flags);
            self.text("(", Last::Nothing);
            return Ok(());
        }
        self.i += 1;
        let Some(c) = self.next() else {
            return Err("unexpected end of pattern".to_owned());
        };
        if c != '#' && !(c == '-' || FLAG_CHARS.contains(c)) {
            self.global_flags_allowed = false;
        }
        match c {
            ':' => {
                self.stack.push(self.flags);
                self.text("(?:", Last::Nothing);
            }
            'P' => match self.next() {
                Some('<') => {
                    let name = self.until('>')?;
                    if !is_identifier(&name) {
                        return Err(format!("bad character in group name {name:?}"));
                    }
                    self.stack.push(self.flags);
                    self.text(format!("(?P<{name}>"), Last::Nothing);
                }
                Some('=') => return Err(format!("named backreference `(?P=` {LOOKAROUND}")),
                other => {
                    return Err(format!(
                        "unknown extension ?P{}",
                        other.map(String::from).unwrap_or_default()
                    ));
                }
            },
            '#' => {
                // A comment: dropped, and (as in Python) it changes nothing around it.
                loop {
                    match self.next() {
                        Some(')') => break,
                        Some(_) => {}
                        None => return Err("missing ), unterminated comment".to_owned()),
                    }
                }
            }
            '=' | '!' => return Err(format!("look-ahead `(?{c}` {LOOKAROUND}")),
            '<' => match self.next() {
                Some(d @ ('=' | '!')) => return Err(format!("look-behind `(?<{d}` {LOOKAROUND}")),
                _ => {
                    return Err(
                        "unknown extension `(?<` (Python spells named groups `(?P<name>...)`)"
                            .to_owned(),
                    );
                }
            },
            '>' => return Err(format!("atomic group `(?>` {LOOKAROUND} (atomic matching)")),
            '(' => return Err(format!("conditional group `(?(` {LOOKAROUND}")),
            c if c == '-' || FLAG_CHARS.contains(c) => self.flags_group(c)?,
            c => return Err(format!("unknown extension ?{c}")),
        }
        Ok(())
    }

    /// Inline flags `(?ims)` / `(?i-s:...)`, as Python's `_parse_flags` reads them.
    fn flags_group(&mut self, first: char) -> Result<(), PatternError> {
        let mut add = String::new();
        let mut del = String::new();
        let mut c = first;
        if c != '-' {
            loop {
                check_flag(c)?;
                add.push(c);
                c = self.next().ok_or("missing -, : or )")?;
                if ")-:".contains(c) {
                    break;
                }
                if !FLAG_CHARS.contains(c) {
                    return Err("unknown flag".to_owned());
                }
            }
        }
        if c == ')' {
            if !self.global_flags_allowed {
                return Err("global flags not at the start of the expression".to_owned());
            }
            if add.contains('i') {
                self.text("(?i)", Last::Nothing);
            }
            self.apply(&add, "");
            return Ok(());
        }
        self.global_flags_allowed = false;
        if c == '-' {
            c = self.next().ok_or("missing flag")?;
            if !FLAG_CHARS.contains(c) {
                return Err("unknown flag".to_owned());
            }
            loop {
                if "auL".contains(c) {
                    return Err(
                        "bad inline flags: cannot turn off flags 'a', 'u' and 'L'".to_owned()
                    );
                }
                check_flag(c)?;
                del.push(c);
                c = self.next().ok_or("missing :")?;
                if c == ':' {
                    break;
                }
                if !FLAG_CHARS.contains(c) {
                    return Err("unknown flag".to_owned());
                }
            }
        }
        if add.chars().any(|f| del.contains(f)) {
            return Err("bad inline flags: flag turned on and off".to_owned());
        }
        self.stack.push(self.flags);
        self.apply(&add, &del);
        // Only `i` is left to the regex crate; `s` and `m` are applied by the translation itself.
        let group = match (add.contains('i'), del.contains('i')) {
            (true, _) => "(?i:",
            (_, true) => "(?-i:",
            _ => "(?:",
        };
        self.text(group, Last::Nothing);
        Ok(())
    }

    fn apply(&mut self, add: &str, del: &str) {
        if add.contains('s') {
            self.flags.dotall = true;
        }
        if add.contains('m') {
            self.flags.multiline = true;
        }
        if del.contains('s') {
            self.flags.dotall = false;
        }
        if del.contains('m') {
            self.flags.multiline = false;
        }
    }

    fn until(&mut self, end: char) -> Result<String, PatternError> {
        let mut s = String::new();
        loop {
            match self.next() {
                Some(c) if c == end => break,
                Some(c) => s.push(c),
                None => return Err(format!("missing {end}, unterminated name")),
            }
        }
        if s.is_empty() {
            return Err("missing group name".to_owned());
        }
        Ok(s)
    }
}

/// Python's inline flag letters.
const FLAG_CHARS: &str = "iLmsxatu";

fn check_flag(c: char) -> Result<(), PatternError> {
    match c {
        'i' | 'm' | 's' | 'u' => Ok(()),
        'L' => Err("bad inline flags: cannot use 'L' flag with a str pattern".to_owned()),
        'x' => Err("the verbose flag `x` is not supported".to_owned()),
        'a' => Err("the ASCII flag `a` is not supported".to_owned()),
        _ => Err(format!("the flag `{c}` is not supported")),
    }
}

enum ClassItem {
    Char(char),
    Range(char, char),
    /// A class escape in Rust syntax, and whether it contains `\n`.
    Set(String, bool),
}

fn octal(digits: &[char]) -> u32 {
    digits
        .iter()
        .fold(0, |v, c| v * 8 + c.to_digit(8).unwrap_or(0))
}

fn char_from(value: u32) -> Result<char, PatternError> {
    char::from_u32(value).ok_or_else(|| {
        format!("escape \\x{{{value:X}}} is not a Unicode scalar value (surrogates cannot match)")
    })
}

/// Python's `str.isidentifier()`, which named groups must satisfy.
fn is_identifier(name: &str) -> bool {
    static IDENT: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\A[\p{XID_Start}_]\p{XID_Continue}*\z").ok()
    });
    IDENT.as_ref().is_some_and(|re| re.is_match(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rust(p: &str) -> String {
        translate(p).map(|t| t.pattern).unwrap_or_else(|e| e)
    }

    #[test]
    fn translates() {
        assert_eq!(rust(r"a\Zb"), r"a\zb");
        assert_eq!(rust(r"x{,3}"), "x{0,3}");
        assert_eq!(rust(r"x{}"), r"x\{\}");
        assert_eq!(rust(r"\<"), "<");
        assert_eq!(rust(r"[]a]"), r"[\x{5D}\x{61}]");
        assert_eq!(rust(r"(?P<a>.)$"), r"(?P<a>(?:(?s:.)|(?-u:\xFE)))(?m:$)");
    }

    #[test]
    fn python_dollar() {
        let re = PyRegex::new(r"(.*?)(?:<end>|$)").unwrap();
        let m = re.search("abc\n").unwrap();
        assert_eq!(re.match_value("abc\n", &m), Value::String("abc".into()));
        let m = re.search("abc\n\n").unwrap();
        assert_eq!(re.match_value("abc\n\n", &m), Value::String("abc\n".into()));
        let re = PyRegex::new(r"(a\s*)$").unwrap();
        let m = re.search("a \n").unwrap();
        assert_eq!(re.match_value("a \n", &m), Value::String("a \n".into()));
    }

    #[test]
    fn python_empty_matches() {
        let re = PyRegex::new(r"(\w*)").unwrap();
        let all: Vec<Value> = re
            .find_all("ab cd")
            .iter()
            .map(|m| re.match_value("ab cd", m))
            .collect();
        assert_eq!(all, ["ab", "", "cd", ""].map(|s| Value::String(s.into())));
        let re = PyRegex::new("x*").unwrap();
        let t = Template::new("-", &re).unwrap();
        assert_eq!(re.sub("abxd", &t), "-a-b--d-");
        // After an empty match Python retries the same position for a non-empty one.
        let re = PyRegex::new("(a*?)").unwrap();
        let all: Vec<Value> = re
            .find_all("aa")
            .iter()
            .map(|m| re.match_value("aa", m))
            .collect();
        assert_eq!(all, ["", "a", "", "a", ""].map(|s| Value::String(s.into())));
        let re = PyRegex::new("(?m)^(.*?)$").unwrap();
        let all: Vec<Value> = re
            .find_all("\nx")
            .iter()
            .map(|m| re.match_value("\nx", m))
            .collect();
        assert_eq!(all, ["", "\nx"].map(|s| Value::String(s.into())));
    }

    #[test]
    fn rejects() {
        for p in [
            r"(?=a)",
            r"(?!a)",
            r"(?<=a)",
            r"(?<!a)",
            r"(a)\1",
            r"(?P<n>a)(?P=n)",
            r"a*+",
            r"(?>a)",
        ] {
            let err = translate(p).err().unwrap_or_default();
            assert!(err.contains("look-around/backreferences"), "{p}: {err}");
        }
    }
}
