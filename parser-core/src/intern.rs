//! Interning: runtime marker strings turned into the `&'static` values the streaming engine is built on.
//!
//! [`MarkerSet`], [`ReasoningSyntax`], [`StageDetector`] and [`ValueSyntax`] hold `&'static` data, because a
//! family builds them once, in `static`s, from its constant markers. A parser configured at run time (the
//! template-driven parser of `parser-auto`, whose markers come from analysing a chat template) has its
//! markers as `String`s. This module turns them into `&'static` values by leaking them, **once per distinct
//! content**: every value is memoised in a process-wide table keyed by its content, so asking again for the
//! same strings or the same set returns the same reference and allocates nothing.
//!
//! # Bounds
//! Memory grows with the number of *distinct* markers and marker sets ever asked for — in practice the
//! number of distinct chat templates a process serves (a few kilobytes each) — never with the number of
//! requests. Each lookup takes a global lock and hashes a few short strings; do it when a parser is built,
//! never per delta. [`stats`] reports what has been leaked so far; a warning is logged (`tracing`) when the
//! total passes [`WARN_BYTES`], which only a process that interns unboundedly many distinct markers (for
//! example strings taken from user input) would ever reach.
//!
//! # Normalisation
//! Marker lists are normalised before they are interned: empty strings are dropped (a [`MarkerSet`] marker
//! must not be empty) and duplicates are removed, keeping the first occurrence. A [`MarkerSet`] holds at most
//! eight groups; groups beyond the eighth are ignored (and logged), so nothing here ever panics.
//!
//! ```
//! use parser_core::{Found, intern};
//! let closer = String::from("</think>");
//! let set = intern::marker_set(&[&["<think>"], &[closer.as_str()]]);
//! assert_eq!(set.find("a</think>", false), Some(Found::Marker { start: 1, end: 9, group: 1, index: 0 }));
//! // The same content gives the same set: nothing new is leaked.
//! assert!(std::ptr::eq(set, intern::marker_set(&[&["<think>"], &["</think>"]])));
//! assert_eq!(intern::intern("</think>"), "</think>");
//! ```

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::reasoning::ReasoningSyntax;
use crate::scanner::MarkerSet;
use crate::stage::StageDetector;
use crate::tagged::ValueSyntax;

/// The number of leaked bytes (approximate) past which a warning is logged, once.
pub const WARN_BYTES: usize = 16 << 20;

/// The most groups a [`MarkerSet`] holds.
const MAX_GROUPS: usize = 8;

type List = Vec<&'static str>;

#[derive(PartialEq, Eq, Hash)]
struct ReasoningKey {
    open: List,
    close: List,
    turn_start: List,
    ignore: List,
    block_openers: List,
}

#[derive(PartialEq, Eq, Hash)]
struct ValueKey {
    closers: List,
    interrupters: List,
    followers: Option<List>,
    trim_newline: bool,
}

#[derive(Default)]
struct Tables {
    strings: HashSet<&'static str>,
    lists: HashMap<List, &'static [&'static str]>,
    sets: HashMap<Vec<List>, &'static MarkerSet>,
    reasoning: HashMap<ReasoningKey, &'static ReasoningSyntax>,
    values: HashMap<ValueKey, &'static ValueSyntax>,
    bytes: usize,
    warned: bool,
}

static TABLES: LazyLock<Mutex<Tables>> = LazyLock::new(Mutex::default);

/// What has been interned so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InternStats {
    /// Distinct strings.
    pub strings: usize,
    /// Distinct marker lists.
    pub lists: usize,
    /// Distinct [`MarkerSet`]s.
    pub marker_sets: usize,
    /// Distinct [`ReasoningSyntax`]es.
    pub reasoning_syntaxes: usize,
    /// Distinct [`ValueSyntax`]es.
    pub value_syntaxes: usize,
    /// Approximate number of bytes leaked in total.
    pub bytes: usize,
}

/// Counts of everything interned so far (for monitoring the bound; see the module docs).
pub fn stats() -> InternStats {
    let tables = lock();
    InternStats {
        strings: tables.strings.len(),
        lists: tables.lists.len(),
        marker_sets: tables.sets.len(),
        reasoning_syntaxes: tables.reasoning.len(),
        value_syntaxes: tables.values.len(),
        bytes: tables.bytes,
    }
}

/// The `&'static` copy of `text`, leaked the first time it is asked for.
pub fn intern(text: &str) -> &'static str {
    lock().string(text)
}

/// The `&'static` copy of a marker list: empty strings dropped, duplicates removed (first kept).
pub fn intern_list(items: &[&str]) -> &'static [&'static str] {
    lock().list(items)
}

/// The [`MarkerSet`] of these groups (each normalised like [`intern_list`]; at most eight groups are kept),
/// built and leaked the first time it is asked for.
pub fn marker_set(groups: &[&[&str]]) -> &'static MarkerSet {
    lock().marker_set(groups)
}

/// The [`ReasoningSyntax`] with these markers (see [`ReasoningSyntax::new`] and [`StageDetector::new`]),
/// built and leaked the first time it is asked for.
pub fn reasoning_syntax(
    open: &[&str],
    close: &[&str],
    turn_start: &[&str],
    ignore: &[&str],
    block_openers: &[&str],
) -> &'static ReasoningSyntax {
    let mut tables = lock();
    let key = ReasoningKey {
        open: tables.list(open).to_vec(),
        close: tables.list(close).to_vec(),
        turn_start: tables.list(turn_start).to_vec(),
        ignore: tables.list(ignore).to_vec(),
        block_openers: tables.list(block_openers).to_vec(),
    };
    if let Some(found) = tables.reasoning.get(&key) {
        return found;
    }
    let detector = StageDetector::new(
        tables.list(&key.open),
        tables.list(&key.close),
        tables.list(&key.turn_start),
    );
    let syntax: &'static ReasoningSyntax = Box::leak(Box::new(ReasoningSyntax::new(
        detector,
        tables.list(&key.ignore),
        tables.list(&key.block_openers),
    )));
    tables.grow(std::mem::size_of::<ReasoningSyntax>());
    tables.reasoning.insert(key, syntax);
    syntax
}

/// The [`ValueSyntax`] whose value ends at one of `closers` (consumed) or, when the closer is missing, in
/// front of one of `interrupters`; with `followers`, a closer only counts when one of them (or the end of
/// the output) follows it. Built and leaked the first time it is asked for.
pub fn value_syntax(
    closers: &[&str],
    interrupters: &[&str],
    followers: Option<&[&str]>,
    trim_newline: bool,
) -> &'static ValueSyntax {
    let mut tables = lock();
    let key = ValueKey {
        closers: tables.list(closers).to_vec(),
        interrupters: tables.list(interrupters).to_vec(),
        followers: followers.map(|f| tables.list(f).to_vec()),
        trim_newline,
    };
    if let Some(found) = tables.values.get(&key) {
        return found;
    }
    let ends = tables.marker_set(&[&key.closers, &key.interrupters]);
    let closer_followers = key.followers.as_deref().map(|f| tables.marker_set(&[f]));
    let syntax: &'static ValueSyntax = Box::leak(Box::new(ValueSyntax {
        ends,
        closer_followers,
        trim_newline,
    }));
    tables.grow(std::mem::size_of::<ValueSyntax>());
    tables.values.insert(key, syntax);
    syntax
}

/// The tables, even after a panic elsewhere poisoned the lock (they are only ever extended, so a
/// half-finished insert leaves them consistent).
fn lock() -> MutexGuard<'static, Tables> {
    TABLES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Tables {
    fn grow(&mut self, bytes: usize) {
        self.bytes += bytes;
        if self.bytes > WARN_BYTES && !self.warned {
            self.warned = true;
            tracing::warn!(
                bytes = self.bytes,
                "interned marker data keeps growing: are markers built from per-request input?"
            );
        }
    }

    fn string(&mut self, text: &str) -> &'static str {
        if let Some(found) = self.strings.get(text) {
            return found;
        }
        let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
        self.grow(text.len());
        self.strings.insert(leaked);
        leaked
    }

    fn list<S: AsRef<str>>(&mut self, items: &[S]) -> &'static [&'static str] {
        let mut key: List = Vec::with_capacity(items.len());
        for item in items {
            let item = item.as_ref();
            if item.is_empty() || key.contains(&item) {
                continue;
            }
            key.push(self.string(item));
        }
        if let Some(found) = self.lists.get(&key) {
            return found;
        }
        let leaked: &'static [&'static str] = Box::leak(key.clone().into_boxed_slice());
        self.grow(std::mem::size_of_val(leaked));
        self.lists.insert(key, leaked);
        leaked
    }

    fn marker_set<S: AsRef<str>>(&mut self, groups: &[&[S]]) -> &'static MarkerSet {
        if groups.len() > MAX_GROUPS {
            tracing::warn!(
                groups = groups.len(),
                "a MarkerSet holds at most eight groups; the rest are ignored"
            );
        }
        let lists: Vec<&'static [&'static str]> = groups
            .iter()
            .take(MAX_GROUPS)
            .map(|group| self.list(group))
            .collect();
        let key: Vec<List> = lists.iter().map(|l| l.to_vec()).collect();
        if let Some(found) = self.sets.get(&key) {
            return found;
        }
        // Every marker is non-empty and there are at most eight groups: `new` cannot panic.
        let set: &'static MarkerSet = Box::leak(Box::new(MarkerSet::new(&lists)));
        self.grow(std::mem::size_of::<MarkerSet>());
        self.sets.insert(key, set);
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::Found;

    #[test]
    fn same_content_same_reference() {
        let a = intern(&String::from("<x-marker>"));
        let b = intern("<x-marker>");
        assert!(std::ptr::eq(a, b));
        let l1 = intern_list(&["<a>", "", "<b>", "<a>"]);
        assert_eq!(l1, &["<a>", "<b>"]);
        assert!(std::ptr::eq(l1, intern_list(&["<a>", "<b>"])));
    }

    #[test]
    fn marker_sets_tolerate_empty_markers_and_too_many_groups() {
        let set = marker_set(&[&["", "<open>"], &[], &["</open>"]]);
        assert_eq!(
            set.find("x</open>", false),
            Some(Found::Marker {
                start: 1,
                end: 8,
                group: 2,
                index: 0
            })
        );
        let many: Vec<&[&str]> = vec![&["a"]; 12];
        assert_eq!(marker_set(&many).groups().len(), 8);
        let none = marker_set(&[&[""]]);
        assert_eq!(none.find("anything", false), None);
    }

    #[test]
    fn reasoning_and_value_syntaxes_are_memoised() {
        let r1 = reasoning_syntax(&["<t>"], &["</t>"], &[], &["<eos>"], &["<call>"]);
        let r2 = reasoning_syntax(&["<t>", ""], &["</t>"], &[], &["<eos>"], &["<call>"]);
        assert!(std::ptr::eq(r1, r2));
        assert_eq!(r1.detector.open, &["<t>"]);
        let v1 = value_syntax(&["</v>"], &["<k>"], Some(&["<k>"]), true);
        let v2 = value_syntax(&["</v>"], &["<k>"], Some(&["<k>"]), true);
        assert!(std::ptr::eq(v1, v2));
        assert!(!std::ptr::eq(
            v1,
            value_syntax(&["</v>"], &["<k>"], None, true)
        ));
        assert!(stats().marker_sets >= 2);
    }
}
