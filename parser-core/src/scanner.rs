//! The incremental marker scanner every family uses.
//!
//! Two pieces:
//! - [`MarkerSet`]: a set of literal markers (special tokens, tags), built at compile time, that finds the
//!   first marker in a text or says from where the text must be held back because its tail is still a prefix
//!   of some marker.
//! - [`Carry`]: the held-back text between two pushes. A parser's state machine runs over `held + delta`
//!   and reports how many bytes it consumed; the rest waits for the next push.
//!
//! # Design rationale
//! Held-back text is exactly the longest suffix that can still grow into a marker, so nothing that cannot
//! be a marker is ever delayed, and no fragment of a marker (`</thi`, `<｜tool▁`) is ever released as text.
//! The hold-back is bounded by the longest marker, so a push costs O(delta + longest marker): text that was
//! emitted is never read again. Markers start with a byte that begins a UTF-8 character, so every split
//! point the scanner reports is a character boundary.

use memchr::{memchr, memchr_iter, memchr2, memchr2_iter, memchr3, memchr3_iter};

const MAX_GROUPS: usize = 8;
/// Up to this many bytes, [`MarkerSet`] looks for a marker's first byte with a table rather than memchr.
const SHORT_HAYSTACK: usize = 16;

/// A set of literal markers, in groups (for example: openers, closers, tokens to drop).
///
/// Build it once, in a `static`, with [`MarkerSet::new`]: the first-byte table is computed at compile time,
/// so creating a parser costs nothing.
///
/// ```
/// use parser_core::{Found, MarkerSet};
/// static SET: MarkerSet = MarkerSet::new(&[&["<think>"], &["</think>"]]);
/// assert_eq!(
///     SET.find("abc</think>def", false),
///     Some(Found::Marker { start: 3, end: 11, group: 1, index: 0 })
/// );
/// // The tail "</th" could still become "</think>": hold it back.
/// assert_eq!(SET.find("abc</th", false), Some(Found::Partial { start: 3 }));
/// // At the end of the output nothing can grow any more.
/// assert_eq!(SET.find("abc</th", true), None);
/// ```
#[derive(Debug)]
pub struct MarkerSet {
    groups: [&'static [&'static str]; MAX_GROUPS],
    group_count: usize,
    first: [bool; 256],
    needles: [u8; 3],
    needle_count: usize,
    max_len: usize,
    /// A filter of the markers' first two bytes, indexed by [`pair_slot`]: a candidate whose next byte
    /// makes a pair no marker starts with is skipped without comparing markers (`a < b` in prose).
    pairs: [u64; 64],
    /// Some marker is one byte long: every candidate must be checked.
    has_single: bool,
    /// First bytes that are common in prose (lowercase letters, space; see [`is_common`]), when some
    /// marker starts with one (`functools`, ` functools`): a long text is then searched for those
    /// markers whole, with a substring search, rather than stopping at every such byte.
    common: [bool; 256],
    has_common: bool,
    /// The first bytes that are not common, for the memchr scan beside the substring searches.
    rare_needles: [u8; 3],
    rare_count: usize,
}

/// Whether `byte` is frequent in prose: a marker starting with it would stop a first-byte scan every
/// few bytes (a space, or a lowercase letter as in `functools`, which stopped it ~1,300 times per
/// 100 KB). Capitals and digits are not: a substring search for Command-R+'s `Action:` cost more
/// (1.17 instructions per byte one-shot) than stopping at each `A` with the pair filter (0.83).
const fn is_common(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte == b' '
}

/// From this length on, [`MarkerSet::find`] looks for markers that start with a common byte with a
/// substring search per marker (its setup, a few hundred instructions, is then paid back).
const ANCHORED_MIN: usize = 256;

/// The bit of [`MarkerSet::pairs`] for a first byte and a second byte: distinct second bytes of one first
/// byte never share a bit.
#[inline]
const fn pair_slot(first: u8, second: u8) -> usize {
    (((first as usize) << 4) ^ second as usize) & 4095
}

/// What [`MarkerSet::find`] saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A whole marker at `start..end`: marker `index` of group `group`.
    Marker {
        /// Byte offset where the marker starts.
        start: usize,
        /// Byte offset just after the marker.
        end: usize,
        /// Group of the marker, as given to [`MarkerSet::new`].
        group: usize,
        /// Index of the marker within its group.
        index: usize,
    },
    /// No whole marker before `start`, and the text from `start` to the end is a proper prefix of a marker:
    /// hold it back until more text arrives.
    Partial {
        /// Byte offset where the held-back tail starts.
        start: usize,
    },
}

impl Found {
    /// Where the text that is certainly not a marker ends.
    pub fn start(&self) -> usize {
        match *self {
            Found::Marker { start, .. } | Found::Partial { start } => start,
        }
    }
}

impl MarkerSet {
    /// Builds the set from at most eight groups. Panics (at compile time, in a `static`) on an empty
    /// marker or too many groups.
    pub const fn new(groups: &[&'static [&'static str]]) -> Self {
        assert!(
            groups.len() <= MAX_GROUPS,
            "a MarkerSet holds at most eight groups"
        );
        let mut kept: [&'static [&'static str]; MAX_GROUPS] = [&[]; MAX_GROUPS];
        let mut first = [false; 256];
        let mut needles = [0u8; 3];
        let mut needle_count = 0;
        let mut max_len = 0;
        let mut pairs = [0u64; 64];
        let mut has_single = false;
        let mut common = [false; 256];
        let mut has_common = false;
        let mut rare_needles = [0u8; 3];
        let mut rare_count = 0;
        let mut g = 0;
        while g < groups.len() {
            let group = groups[g];
            kept[g] = group;
            let mut i = 0;
            while i < group.len() {
                let bytes = group[i].as_bytes();
                assert!(!bytes.is_empty(), "a marker must not be empty");
                if bytes.len() > max_len {
                    max_len = bytes.len();
                }
                if bytes.len() == 1 {
                    has_single = true;
                } else {
                    let slot = pair_slot(bytes[0], bytes[1]);
                    pairs[slot / 64] |= 1 << (slot % 64);
                }
                let b = bytes[0] as usize;
                if !first[b] {
                    first[b] = true;
                    if needle_count < 3 {
                        needles[needle_count] = bytes[0];
                    }
                    needle_count += 1;
                    if is_common(bytes[0]) {
                        common[b] = true;
                        has_common = true;
                    } else {
                        if rare_count < 3 {
                            rare_needles[rare_count] = bytes[0];
                        }
                        rare_count += 1;
                    }
                }
                i += 1;
            }
            g += 1;
        }
        MarkerSet {
            groups: kept,
            group_count: groups.len(),
            first,
            needles,
            needle_count,
            max_len,
            pairs,
            has_single,
            common,
            has_common,
            rare_needles,
            rare_count,
        }
    }

    /// The length in bytes of the longest marker: the most that is ever held back.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Marker `index` of group `group`.
    pub fn marker(&self, group: usize, index: usize) -> &'static str {
        self.groups[group][index]
    }

    /// The groups the set was built from.
    pub fn groups(&self) -> &[&'static [&'static str]] {
        &self.groups[..self.group_count]
    }

    /// Finds the first marker in `text`, or the start of a tail that must be held back.
    ///
    /// When two markers match at the same place the longer wins, and a whole short marker is not reported
    /// while a longer one could still match there. With `eof` nothing is held back: a partial tail is just
    /// text. `None` means `text` holds no marker and no partial tail.
    pub fn find(&self, text: &str, eof: bool) -> Option<Found> {
        let bytes = text.as_bytes();
        if self.has_common && bytes.len() >= ANCHORED_MIN {
            return self.find_anchored(bytes, eof);
        }
        if bytes.len() > SHORT_HAYSTACK
            && let Some(found) = self.scan_needles(self.needles, self.needle_count, bytes, eof)
        {
            return found;
        }
        let mut from = 0;
        while from < bytes.len() {
            let at = from + self.next_candidate(&bytes[from..])?;
            if let Some(&next) = bytes.get(at + 1)
                && !self.has_single
                && !self.pair_may_start(bytes[at], next)
            {
                from = at + 1;
                continue;
            }
            if let Some(found) = self.check_at(bytes, at, eof) {
                return Some(found);
            }
            from = at + 1;
        }
        None
    }

    /// [`find`](Self::find) on a long text when some marker starts with a common byte. The answer is
    /// the first position where [`check_at`](Self::check_at) says something, found in three parts:
    /// the first such position among the rare first bytes (memchr, as usual); the first whole
    /// occurrence of a marker that starts with a common byte (a substring search per marker, before
    /// that position); and, not at `eof`, a common-byte partial tail (only the last `max_len - 1`
    /// bytes can hold one). The earliest of them is checked as a plain scan would.
    #[inline(never)]
    fn find_anchored(&self, bytes: &[u8], eof: bool) -> Option<Found> {
        let rare = self.find_rare(bytes, eof);
        let mut bound = rare.map_or(bytes.len(), |found| found.start());
        for markers in self.groups() {
            for marker in markers.iter() {
                let m = marker.as_bytes();
                if !self.common[m[0] as usize] {
                    continue;
                }
                // Only an occurrence that starts before `bound` matters.
                let end = (bound + m.len()).saturating_sub(1).min(bytes.len());
                if let Some(at) = memchr::memmem::find(&bytes[..end], m) {
                    bound = bound.min(at);
                }
            }
        }
        if !eof {
            let lowest = bytes.len().saturating_sub(self.max_len.saturating_sub(1));
            if let Some(at) = (lowest..bound).find(|&at| {
                self.common[bytes[at] as usize] && self.check_at(bytes, at, eof).is_some()
            }) {
                bound = at;
            }
        }
        match rare {
            Some(found) if found.start() == bound => Some(found),
            _ if bound < bytes.len() => self.check_at(bytes, bound, eof),
            _ => None,
        }
    }

    /// The first position whose byte is a rare first byte and where [`check_at`](Self::check_at)
    /// says something.
    fn find_rare(&self, bytes: &[u8], eof: bool) -> Option<Found> {
        if self.rare_count == 0 {
            return None;
        }
        self.scan_needles(self.rare_needles, self.rare_count, bytes, eof)
            .unwrap_or_else(|| {
                let candidates = (0..bytes.len()).filter(|&at| {
                    self.first[bytes[at] as usize] && !self.common[bytes[at] as usize]
                });
                self.find_among(candidates, bytes, eof)
            })
    }

    /// The first candidate with something to report, among the positions of `needles[..count]`
    /// (one to three bytes; `None` for more, which the caller scans with the table).
    #[inline(always)]
    fn scan_needles(
        &self,
        needles: [u8; 3],
        count: usize,
        bytes: &[u8],
        eof: bool,
    ) -> Option<Option<Found>> {
        // A long text: one memchr iterator over all of it, rather than a new search from each
        // candidate that turned out to start no marker (`a < b` in prose): a new search costs
        // about 140 instructions, most of a 100 KB one-shot parse. On x86-64 with AVX2 the
        // searcher is built once here and iterated without memchr's per-call dispatch (another
        // ~20 instructions a candidate); elsewhere memchr's generic iterators.
        #[cfg(target_arch = "x86_64")]
        {
            use memchr::arch::x86_64::avx2::memchr::{One, Three, Two};
            let [a, b, c] = needles;
            match count {
                1 => {
                    if let Some(s) = One::new(a) {
                        return Some(self.find_among(s.iter(bytes), bytes, eof));
                    }
                }
                2 => {
                    if let Some(s) = Two::new(a, b) {
                        return Some(self.find_among(s.iter(bytes), bytes, eof));
                    }
                }
                3 => {
                    if let Some(s) = Three::new(a, b, c) {
                        return Some(self.find_among(s.iter(bytes), bytes, eof));
                    }
                }
                _ => {}
            }
        }
        let [a, b, c] = needles;
        match count {
            1 => Some(self.find_among(memchr_iter(a, bytes), bytes, eof)),
            2 => Some(self.find_among(memchr2_iter(a, b, bytes), bytes, eof)),
            3 => Some(self.find_among(memchr3_iter(a, b, c, bytes), bytes, eof)),
            _ => None,
        }
    }

    /// [`find`](Self::find) over the candidates (positions of a byte that starts a marker) in order.
    #[inline(always)]
    fn find_among(
        &self,
        candidates: impl Iterator<Item = usize>,
        bytes: &[u8],
        eof: bool,
    ) -> Option<Found> {
        for at in candidates {
            if let Some(&next) = bytes.get(at + 1)
                && !self.has_single
                && !self.pair_may_start(bytes[at], next)
            {
                continue;
            }
            if let Some(found) = self.check_at(bytes, at, eof) {
                return Some(found);
            }
        }
        None
    }

    /// The tail of `text` that must be held back, as a byte offset (`text.len()` when nothing is held).
    /// Unlike [`find`](Self::find) this ignores whole markers: use it on text known to hold none.
    pub fn holdback_start(&self, text: &str) -> usize {
        let bytes = text.as_bytes();
        let lowest = bytes.len().saturating_sub(self.max_len.saturating_sub(1));
        for at in lowest..bytes.len() {
            if self.first[bytes[at] as usize] && self.is_proper_prefix(&bytes[at..]) {
                return at;
            }
        }
        bytes.len()
    }

    /// Whether `text` has a byte that starts a marker: when it has none, it holds no marker and no
    /// partial tail, so [`find`](Self::find) would return `None`. A cheap test for the common delta of a
    /// few plain characters.
    ///
    /// ```
    /// use parser_core::MarkerSet;
    /// static SET: MarkerSet = MarkerSet::new(&[&["</think>"]]);
    /// assert!(!SET.may_contain_marker("So 3 > 2."));
    /// assert!(SET.may_contain_marker("a <")); // `<` may start `</think>`
    /// ```
    #[inline(always)]
    pub fn may_contain_marker(&self, text: &str) -> bool {
        let hay = text.as_bytes();
        if hay.len() <= SHORT_HAYSTACK {
            // A delta of a token or a few: OR the lookups together, no branch per byte (the answer is
            // nearly always "no", so stopping early saves nothing).
            let first = &self.first;
            let mut quads = hay.chunks_exact(4);
            let mut any = false;
            for quad in &mut quads {
                any |= first[quad[0] as usize]
                    | first[quad[1] as usize]
                    | first[quad[2] as usize]
                    | first[quad[3] as usize];
            }
            return quads
                .remainder()
                .iter()
                .fold(any, |any, &b| any | first[b as usize]);
        }
        self.long_candidate(hay).is_some()
    }

    /// Whether [`find`](Self::find) may find something in `text` (a marker or a partial tail, not at
    /// `eof`): `false` means certainly not. Sharper than [`may_contain_marker`](Self::may_contain_marker)
    /// on a short delta: a byte that can start a marker is passed over, as `find` passes it over, when
    /// the byte after it can start no marker with it (`a < b` in prose).
    ///
    /// ```
    /// use parser_core::MarkerSet;
    /// static SET: MarkerSet = MarkerSet::new(&[&["</think>"]]);
    /// assert!(!SET.may_match("a < b"));
    /// assert!(SET.may_match("a </b")); // `</` may start `</think>`
    /// assert!(SET.may_match("a <")); // and so may a `<` at the end
    /// ```
    #[inline(always)]
    pub fn may_match(&self, text: &str) -> bool {
        self.may_contain_marker(text) && self.may_match_candidates(text.as_bytes())
    }

    /// Whether `byte` can start a marker: the per-byte test of
    /// [`may_contain_marker`](Self::may_contain_marker), for a caller that folds it into a scan of its
    /// own (a tagged value's delta is tested for markers and JSON escapes in one pass).
    #[inline(always)]
    pub(crate) fn can_start(&self, byte: u8) -> bool {
        self.first[byte as usize]
    }

    /// [`may_match`](Self::may_match) once some byte can start a marker: the pair filter on a short
    /// delta, "maybe" on a long one (the scanner decides).
    #[inline(never)]
    fn may_match_candidates(&self, hay: &[u8]) -> bool {
        if hay.len() > SHORT_HAYSTACK || self.has_single {
            return true;
        }
        hay.iter().enumerate().any(|(at, &byte)| {
            self.first[byte as usize]
                && hay
                    .get(at + 1)
                    .is_none_or(|&next| self.pair_may_start(byte, next))
        })
    }

    #[inline(always)]
    fn next_candidate(&self, hay: &[u8]) -> Option<usize> {
        // A streamed delta is a token or a few: a table lookup per byte beats memchr's dispatch and
        // setup there.
        if hay.len() <= SHORT_HAYSTACK {
            return hay.iter().position(|&b| self.first[b as usize]);
        }
        self.long_candidate(hay)
    }

    /// [`next_candidate`](Self::next_candidate) on a long haystack, with memchr.
    #[inline(never)]
    fn long_candidate(&self, hay: &[u8]) -> Option<usize> {
        match self.needle_count {
            0 => None,
            1 => memchr(self.needles[0], hay),
            2 => memchr2(self.needles[0], self.needles[1], hay),
            3 => memchr3(self.needles[0], self.needles[1], self.needles[2], hay),
            _ => hay.iter().position(|&b| self.first[b as usize]),
        }
    }

    /// Whether some marker may start with the bytes `first`, `second` (false: certainly none does).
    #[inline]
    fn pair_may_start(&self, first: u8, second: u8) -> bool {
        let slot = pair_slot(first, second);
        self.pairs[slot / 64] & (1 << (slot % 64)) != 0
    }

    fn is_proper_prefix(&self, rest: &[u8]) -> bool {
        self.groups().iter().flat_map(|g| g.iter()).any(|m| {
            let m = m.as_bytes();
            rest.len() < m.len() && m.starts_with(rest)
        })
    }

    fn check_at(&self, bytes: &[u8], at: usize, eof: bool) -> Option<Found> {
        let rest = &bytes[at..];
        let mut best: Option<(usize, usize, usize)> = None;
        for (group, markers) in self.groups().iter().enumerate() {
            for (index, marker) in markers.iter().enumerate() {
                let m = marker.as_bytes();
                if m[0] != rest[0] {
                    continue;
                }
                if rest.starts_with(m) {
                    if best.is_none_or(|(len, _, _)| m.len() > len) {
                        best = Some((m.len(), group, index));
                    }
                } else if !eof && rest.len() < m.len() && m.starts_with(rest) {
                    // A longer marker may still match here: nothing at `at` can be decided yet.
                    return Some(Found::Partial { start: at });
                }
            }
        }
        best.map(|(len, group, index)| Found::Marker {
            start: at,
            end: at + len,
            group,
            index,
        })
    }
}

/// Text held back between two pushes.
///
/// A parser's state machine is a function `step(state, text) -> consumed`. [`Carry::feed`] runs it over the
/// held text followed by the new delta, without copying the delta when nothing is held (the common case),
/// and keeps the unconsumed tail for the next push. The buffer keeps its capacity: no allocation per delta
/// in steady state.
///
/// A state machine must consume everything it will not need to look at again; only a bounded tail (a
/// possible marker prefix, a short tag being read) may stay unconsumed, or pushes would re-read it.
#[derive(Clone, Debug, Default)]
pub struct Carry {
    held: String,
}

impl Carry {
    /// An empty carry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The text currently held back.
    pub fn held(&self) -> &str {
        &self.held
    }

    /// Runs `step` over `held + delta` and keeps what it did not consume.
    pub fn feed<M: ?Sized>(
        &mut self,
        delta: &str,
        machine: &mut M,
        step: impl FnOnce(&mut M, &str) -> usize,
    ) {
        if self.held.is_empty() {
            let used = clamp_boundary(delta, step(machine, delta));
            self.held.push_str(&delta[used..]);
        } else {
            self.held.push_str(delta);
            let text = std::mem::take(&mut self.held);
            let used = clamp_boundary(&text, step(machine, &text));
            let mut text = text;
            text.drain(..used);
            self.held = text;
        }
    }

    /// Runs `step` over the held text at the end of the output. The state machine must consume all of it.
    pub fn finish<M: ?Sized>(&mut self, machine: &mut M, step: impl FnOnce(&mut M, &str) -> usize) {
        let text = std::mem::take(&mut self.held);
        let used = step(machine, &text);
        debug_assert_eq!(
            used,
            text.len(),
            "a state machine must consume everything at the end"
        );
        let mut text = text;
        text.clear();
        self.held = text;
    }
}

/// Never trust a state machine to return a valid cut: clamp to the text and to a character boundary.
fn clamp_boundary(text: &str, used: usize) -> usize {
    let mut used = used.min(text.len());
    while !text.is_char_boundary(used) {
        used -= 1;
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;

    static DEEPSEEK: MarkerSet = MarkerSet::new(&[
        &["<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"],
        &["</think>"],
        &["<think>"],
    ]);

    // Every proper prefix of every marker, at the end of a text, is held back from exactly its start.
    #[test]
    fn every_marker_prefix_is_held_back() {
        for group in DEEPSEEK.groups() {
            for marker in group.iter() {
                for (cut, _) in marker.char_indices().skip(1) {
                    let text = format!("hello {}", &marker[..cut]);
                    assert_eq!(
                        DEEPSEEK.find(&text, false),
                        Some(Found::Partial { start: 6 }),
                        "{text:?}"
                    );
                    assert_eq!(DEEPSEEK.holdback_start(&text), 6, "{text:?}");
                    assert_eq!(DEEPSEEK.find(&text, true), None, "{text:?}");
                }
            }
        }
    }

    // A marker split at every byte position across two pushes is found once, whole, and nothing before
    // it is held back longer than needed.
    #[test]
    fn marker_split_at_every_position_is_found_through_carry() {
        for group in DEEPSEEK.groups() {
            for marker in group.iter() {
                let full = format!("ab{marker}cd");
                for cut in 0..=full.len() {
                    if !full.is_char_boundary(cut) {
                        continue;
                    }
                    let mut carry = Carry::new();
                    let mut seen: Vec<String> = Vec::new();
                    for piece in [&full[..cut], &full[cut..]] {
                        carry.feed(piece, &mut seen, |seen, text| {
                            let mut pos = 0;
                            loop {
                                match DEEPSEEK.find(&text[pos..], false) {
                                    Some(Found::Marker { start, end, .. }) => {
                                        seen.push(text[pos..pos + start].to_owned());
                                        seen.push(format!("[{}]", &text[pos + start..pos + end]));
                                        pos += end;
                                    }
                                    Some(Found::Partial { start }) => {
                                        seen.push(text[pos..pos + start].to_owned());
                                        return pos + start;
                                    }
                                    None => {
                                        seen.push(text[pos..].to_owned());
                                        return text.len();
                                    }
                                }
                            }
                        });
                    }
                    let joined: String = seen.concat();
                    assert_eq!(joined, format!("ab[{marker}]cd"), "cut at {cut}");
                    assert_eq!(carry.held(), "");
                }
            }
        }
    }

    #[test]
    fn longer_marker_wins_and_blocks_shorter_until_decided() {
        static SET: MarkerSet = MarkerSet::new(&[&["<a", "<ab>"]]);
        assert_eq!(SET.find("x<ab", false), Some(Found::Partial { start: 1 }));
        assert_eq!(
            SET.find("x<ab>", false),
            Some(Found::Marker {
                start: 1,
                end: 5,
                group: 0,
                index: 1
            })
        );
        assert_eq!(
            SET.find("x<abc", false),
            Some(Found::Marker {
                start: 1,
                end: 3,
                group: 0,
                index: 0
            })
        );
        assert_eq!(
            SET.find("x<ab", true),
            Some(Found::Marker {
                start: 1,
                end: 3,
                group: 0,
                index: 0
            })
        );
    }

    #[test]
    fn more_than_three_first_bytes_use_the_table() {
        static SET: MarkerSet = MarkerSet::new(&[&["a1", "b1", "c1", "d1"]]);
        assert_eq!(
            SET.find("xxd1", false),
            Some(Found::Marker {
                start: 2,
                end: 4,
                group: 0,
                index: 3
            })
        );
        assert_eq!(SET.find("xxd", false), Some(Found::Partial { start: 2 }));
    }

    /// Short texts are searched with the first-byte table, longer ones with memchr (one to three first
    /// bytes) or the table: every length, and every marker position, finds the same.
    #[test]
    fn short_and_long_texts_find_alike() {
        static ONE: MarkerSet = MarkerSet::new(&[&["<m>"]]);
        static TWO: MarkerSet = MarkerSet::new(&[&["<m>"], &["[m]"]]);
        static THREE: MarkerSet = MarkerSet::new(&[&["<m>"], &["[m]", "{m}"]]);
        static FOUR: MarkerSet = MarkerSet::new(&[&["<m>", "[m]", "{m}", "(m)"]]);
        for (set, marker) in [
            (&ONE, "<m>"),
            (&TWO, "[m]"),
            (&THREE, "{m}"),
            (&FOUR, "(m)"),
        ] {
            for len in 0..2 * SHORT_HAYSTACK {
                for at in 0..=len {
                    let text = format!("{}{marker}{}", "x".repeat(at), "y".repeat(len - at));
                    let found = Some(Found::Marker {
                        start: at,
                        end: at + 3,
                        // Each `marker` is the last of its set's last group.
                        group: set.group_count - 1,
                        index: set.groups()[set.group_count - 1]
                            .iter()
                            .position(|m| *m == marker)
                            .unwrap_or(0),
                    });
                    assert_eq!(set.find(&text, false), found, "{text:?}");
                    assert!(set.may_contain_marker(&text));
                    let partial = format!("{}{}", "x".repeat(len), &marker[..2]);
                    assert_eq!(
                        set.find(&partial, false),
                        Some(Found::Partial { start: len }),
                        "{partial:?}"
                    );
                    assert!(!set.may_contain_marker(&"x".repeat(len)));
                }
            }
        }
    }

    /// The short-delta test agrees with the first-byte table: every length up to past
    /// [`SHORT_HAYSTACK`], every position, needle bytes, their neighbours and zero bytes.
    #[test]
    fn short_word_test_agrees_with_the_table() {
        static ONE: MarkerSet = MarkerSet::new(&[&["</think>"]]);
        static TWO: MarkerSet = MarkerSet::new(&[&["<a>", "\u{0}x"]]);
        static THREE: MarkerSet = MarkerSet::new(&[&["<a>"], &["[b]", "\u{ff}"]]);
        static FOUR: MarkerSet = MarkerSet::new(&[&["<a>", "[b]", "{c}", "~d"]]);
        for set in [&ONE, &TWO, &THREE, &FOUR] {
            for len in 0..=SHORT_HAYSTACK + 4 {
                for at in 0..len {
                    for byte in [b'<', b'=', b';', b'[', b'Z', 0, 1, 0x7f, 0x80, 0xff, b'~'] {
                        let mut bytes = vec![b'a'; len];
                        bytes[at] = byte;
                        let Ok(text) = std::str::from_utf8(&bytes) else {
                            continue;
                        };
                        let expected = bytes.iter().any(|&b| set.first[b as usize]);
                        assert_eq!(set.may_contain_marker(text), expected, "{bytes:?}");
                    }
                }
            }
        }
    }

    /// `may_match` is false only where `find` finds nothing: short texts made of marker bytes, prose
    /// and `<` in every arrangement up to 5 bytes.
    #[test]
    fn may_match_is_false_only_where_find_finds_nothing() {
        static SET: MarkerSet = MarkerSet::new(&[&["</think>", "<|x|>"], &["[a]"]]);
        let alphabet = [b'<', b'/', b'|', b'x', b' ', b'[', b'a', b']', b't'];
        let mut bytes = Vec::new();
        for len in 0..=5u32 {
            for mut code in 0..alphabet.len().pow(len) {
                bytes.clear();
                for _ in 0..len {
                    bytes.push(alphabet[code % alphabet.len()]);
                    code /= alphabet.len();
                }
                let Ok(text) = std::str::from_utf8(&bytes) else {
                    continue;
                };
                if !SET.may_match(text) {
                    assert_eq!(SET.find(text, false), None, "{text:?}");
                }
            }
        }
    }

    /// Candidates whose next byte starts no marker (`a < b`) are skipped by the pair filter; one-byte
    /// markers and candidates at the end of the text are still checked.
    #[test]
    fn pair_filter_skips_only_impossible_candidates() {
        static SET: MarkerSet = MarkerSet::new(&[&["</think>"], &["<|x|>"]]);
        assert_eq!(SET.find("a < b <  c", false), None);
        assert_eq!(
            SET.find("a < b <|x|> c", false),
            Some(Found::Marker {
                start: 6,
                end: 11,
                group: 1,
                index: 0
            })
        );
        assert_eq!(
            SET.find("a < b <", false),
            Some(Found::Partial { start: 6 })
        );
        static SINGLE: MarkerSet = MarkerSet::new(&[&["<ab>", "<"]]);
        assert_eq!(
            SINGLE.find("x < y", false),
            Some(Found::Marker {
                start: 2,
                end: 3,
                group: 0,
                index: 1
            })
        );
    }

    /// Long texts (the iterator path) find what a check at every position finds: candidates that
    /// start no marker (`< `, `<x`, `[ `) before, between and after markers, a partial tail, with
    /// one, two and three first bytes.
    #[test]
    fn long_texts_find_what_a_check_everywhere_finds() {
        static ONE: MarkerSet = MarkerSet::new(&[&["</think>", "<|x|>"], &["<think>"]]);
        static TWO: MarkerSet = MarkerSet::new(&[&["</think>"], &["[a]", "[ab]"]]);
        static THREE: MarkerSet = MarkerSet::new(&[&["</think>"], &["[a]"], &["{b}"]]);
        let pieces = [
            "a < b ", "<x", "[ ", "{ ", "</think>", "<|x|>", "[a]", "[ab", "{b}", "x<", "北",
            "</th",
        ];
        let mut rng = 0x9e37_79b9_u64;
        for set in [&ONE, &TWO, &THREE] {
            for _ in 0..2000 {
                let mut text = String::new();
                while text.len() < 40 + (rng % 60) as usize {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    text.push_str(pieces[(rng % pieces.len() as u64) as usize]);
                }
                for eof in [false, true] {
                    let bytes = text.as_bytes();
                    let expected = (0..bytes.len())
                        .filter(|&at| set.first[bytes[at] as usize])
                        .find_map(|at| set.check_at(bytes, at, eof));
                    assert_eq!(set.find(&text, eof), expected, "{text:?} eof {eof}");
                }
            }
        }
    }

    /// Sets with markers that start with a common byte (the substring-search path of long texts):
    /// alone, beside rare-byte markers, overlapping (` functools` / `functools`, `fun` /
    /// `functools`), a one-byte common marker, more than three rare first bytes.
    static ANCHORED: [MarkerSet; 5] = [
        MarkerSet::new(&[&["functools"], &["<|eot_id|>", "<|eom_id|>"]]),
        MarkerSet::new(&[&[" functools", "functools"], &["<|eot_id|>"]]),
        MarkerSet::new(&[&["fun", "functools"], &["<x>"], &["[a]"]]),
        MarkerSet::new(&[&["functools"], &["t"], &["<x>"]]),
        MarkerSet::new(&[&["functools"], &["<x>", "[a]", "{b}", "(c)"]]),
    ];

    /// What a check at every byte that starts a marker finds: the definition `find` must meet.
    fn check_everywhere(set: &MarkerSet, text: &str, eof: bool) -> Option<Found> {
        let bytes = text.as_bytes();
        (0..bytes.len())
            .filter(|&at| set.first[bytes[at] as usize])
            .find_map(|at| set.check_at(bytes, at, eof))
    }

    /// Long texts through the substring-search path find what a check everywhere finds: candidates
    /// that start no marker (`fun`, `functo`, ` f`, `<|eot`), markers, overlapping markers, partial
    /// tails, before and after each other.
    #[test]
    fn anchored_texts_find_what_a_check_everywhere_finds() {
        let pieces = [
            "a < b ",
            "fun",
            "functo",
            "functools",
            " functools",
            " f",
            "<|eot_id|>",
            "<|eot",
            "<x>",
            "[a]",
            "{b}",
            "(c)",
            "北",
            "tt",
            "prose and more prose ",
            "functool",
        ];
        let mut rng = 0x2545_f491_u64;
        for set in &ANCHORED {
            for _ in 0..1500 {
                let mut text = String::new();
                let target = ANCHORED_MIN - 20 + (rng % 120) as usize;
                while text.len() < target {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    // Mostly prose, so that markers come late and after candidates.
                    let pick = (rng % (3 * pieces.len() as u64)) as usize;
                    text.push_str(pieces.get(pick).copied().unwrap_or("prose, "));
                }
                for eof in [false, true] {
                    assert_eq!(
                        set.find(&text, eof),
                        check_everywhere(set, &text, eof),
                        "{text:?} eof {eof}"
                    );
                }
            }
        }
    }

    /// Streaming equals one-shot on the substring-search path: a long text holding markers (and
    /// candidates that are none) split at every byte into two pushes through [`Carry`] gives the
    /// same pieces as one pass.
    #[test]
    fn anchored_markers_split_at_every_position_are_found_through_carry() {
        fn run(set: &MarkerSet, pushes: &[&str]) -> String {
            let mut carry = Carry::new();
            let mut seen = String::new();
            for (i, piece) in pushes.iter().enumerate() {
                let eof = i + 1 == pushes.len();
                carry.feed(piece, &mut seen, |seen, text| {
                    let mut pos = 0;
                    loop {
                        match set.find(&text[pos..], eof) {
                            Some(Found::Marker { start, end, .. }) => {
                                seen.push_str(&text[pos..pos + start]);
                                seen.push_str(&format!("[{}]", &text[pos + start..pos + end]));
                                pos += end;
                            }
                            Some(Found::Partial { start }) => {
                                seen.push_str(&text[pos..pos + start]);
                                return pos + start;
                            }
                            None => {
                                seen.push_str(&text[pos..]);
                                return text.len();
                            }
                        }
                    }
                });
            }
            assert_eq!(carry.held(), "");
            seen
        }
        let prose = "so fun, functional and a < b ".repeat(12);
        let text = format!("{prose} functools[1]<|eot_id|>{prose}functo<x>funct");
        for set in &ANCHORED {
            let whole = run(set, &[&text, ""]);
            for cut in (0..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
                assert_eq!(
                    run(set, &[&text[..cut], &text[cut..], ""]),
                    whole,
                    "cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn carry_clamps_bad_cuts_to_char_boundaries() {
        let mut carry = Carry::new();
        let mut unit = ();
        carry.feed("é", &mut unit, |_, _| 1);
        assert_eq!(carry.held(), "é");
    }
}
