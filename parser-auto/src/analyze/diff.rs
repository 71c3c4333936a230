//! Marker segmentation and the diff split: the two primitives the differential analysis is built on.
//!
//! The analysis renders a chat template twice with one input changed and asks *what changed*:
//! [`calculate_diff_split`] cuts the two renders into a common prefix, a common suffix and the differing
//! middles. Markers (`<think>`, `<|im_start|>`, `[TOOL_CALLS]`, `◁think▷`, `<｜tool▁calls▁begin｜>`) are
//! compared whole, so a diff never starts or ends inside one; only free text between markers is compared
//! character by character. [`segmentize_markers`] is the tokenizer behind that rule, and
//! [`until_common_prefix`] / [`after_common_suffix`] cut a render at what two probe values have in common.
//!
//! The algorithm follows llama.cpp's auto-parser (`calculate_diff_split`, `segmentize_markers` in
//! `common/chat-auto-parser-helpers.cpp`) and gives the
//! same result on all 46 of its test cases (`corpus/llama_cpp_autoparser/diff_split.jsonl`). It differs on
//! purpose where llama.cpp loses text or splits what it promises to keep whole:
//!
//! - **`◁…▷` is a marker bracket** besides `<…>` and `[…]` (Kimi-VL's `◁think▷`; llama.cpp issue #25369).
//!   DeepSeek's `<｜…｜>` needs nothing new: its brackets are ASCII.
//! - **Characters, not bytes.** Free text is compared by `char`, so a common prefix or suffix never ends inside
//!   a multi-byte code point (`é`/`è`, `▁`/`▂` share leading bytes).
//! - **Every segment is used once.** llama.cpp marks a segment list "fully consumed" but can still match that
//!   last segment again afterwards: `a<x>` vs `a<x><x>` comes out as *identical*, and `<s>\n` vs `<s>\n<gen>\n`
//!   as prefix `<s>\n`, right `<gen>`, suffix `\n`, which does not rebuild `<s>\n`. Here the result always
//!   rebuilds both inputs: `prefix + left + suffix == left input`, `prefix + right + suffix == right input`.
//! - **Free text stays free text.** The character-level step is limited to the run of text segments at each
//!   edge; llama.cpp compares the joined remainders and can run into a marker through a stray closer in the
//!   text (`a>c` vs `q<a>c` gave the suffix `a>c`, splitting `<a>`).
//! - **No rotated diff** (from newer llama.cpp, made symmetric): when one side's diff is empty and that side is
//!   a prefix of the other, the split is "all of it in common, the rest is new". Without this, a render without
//!   and with the generation prompt, `…<|im_end|>\n` vs `…<|im_end|>\n<|im_start|>assistant\n<think>\n`, gives
//!   right `\n<|im_start|>assistant\n<think>` and suffix `\n`. Applied only when the cut does not fall inside a
//!   marker.
//!
//! Every function here is total: any input, including unbalanced brackets and arbitrary Unicode, gives a
//! result and never panics.

use std::ops::Range;

/// The bracket pairs that delimit a marker: the opening and the matching closing character.
///
/// `【…】` is deliberately absent: in the templates studied it appears only as citation syntax inside prose
/// (GPT-OSS's browser tool description, `【6†L9-L11】`), and in CJK text it is ordinary punctuation, so
/// treating it as a marker would stop character-level diffs in Chinese prose without finding any real token.
const BRACKETS: [(char, char); 3] = [('<', '>'), ('[', ']'), ('◁', '▷')];

/// The closing character for `c` if `c` opens a marker.
fn closer_for(c: char) -> Option<char> {
    BRACKETS
        .iter()
        .find(|&&(open, _)| open == c)
        .map(|&(_, close)| close)
}

/// What a [`Segment`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// Free text between markers; also an unclosed opener and everything after it.
    Text,
    /// A bracketed marker, brackets included: `<think>`, `[TOOL_CALLS]`, `◁/think▷`.
    Marker,
}

/// One piece of a segmented text (see [`segmentize_markers`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Text or marker.
    pub kind: SegmentKind,
    /// The piece itself; the values of all segments concatenate to the segmented text.
    pub value: String,
}

/// A segment as a byte range of the text it came from.
#[derive(Clone, Debug)]
struct Span {
    kind: SegmentKind,
    range: Range<usize>,
}

/// The segments of `text` as byte ranges (char boundaries), in order, covering all of it.
fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut border = 0;
    // The closing character of the marker being read, if one is open.
    let mut open: Option<char> = None;
    for (at, c) in text.char_indices() {
        match open {
            None => {
                if let Some(close) = closer_for(c) {
                    if border < at {
                        out.push(Span {
                            kind: SegmentKind::Text,
                            range: border..at,
                        });
                    }
                    border = at;
                    open = Some(close);
                }
            }
            Some(close) if c == close => {
                let end = at + c.len_utf8();
                out.push(Span {
                    kind: SegmentKind::Marker,
                    range: border..end,
                });
                border = end;
                open = None;
            }
            Some(_) => {}
        }
    }
    if border < text.len() {
        out.push(Span {
            kind: SegmentKind::Text,
            range: border..text.len(),
        });
    }
    out
}

/// Splits `text` into free text and markers, left to right.
///
/// A marker opens at `<`, `[` or `◁` when no marker is open, and closes at the first matching `>`, `]` or `▷`;
/// markers do not nest, and the other bracket kinds are ordinary characters inside one. The text before an
/// opener is a [`SegmentKind::Text`] segment. An opener that is never closed starts a text segment that runs to
/// the end (so `a<b` gives two text segments, `a` and `<b`). The segments concatenate to `text`; the empty
/// text has none.
///
/// ```
/// use parser_auto::analyze::diff::{segmentize_markers, SegmentKind::*};
///
/// let kinds: Vec<_> = segmentize_markers("im<blue>daba◁dee▷da[hey]")
///     .into_iter()
///     .map(|s| (s.kind, s.value))
///     .collect();
/// assert_eq!(kinds, [
///     (Text, "im".into()), (Marker, "<blue>".into()), (Text, "daba".into()),
///     (Marker, "◁dee▷".into()), (Text, "da".into()), (Marker, "[hey]".into()),
/// ]);
/// ```
///
/// A JSON array between tags (`<calls>[{…}]</calls>`) is read as a marker, as in llama.cpp.
pub fn segmentize_markers(text: &str) -> Vec<Segment> {
    spans(text)
        .into_iter()
        .map(|span| Segment {
            kind: span.kind,
            value: text[span.range].to_owned(),
        })
        .collect()
}

/// Two renders cut into what they share and where they differ (see [`calculate_diff_split`]).
///
/// `prefix + left + suffix` is the left input and `prefix + right + suffix` the right input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffSplit {
    /// The common beginning.
    pub prefix: String,
    /// The common end.
    pub suffix: String,
    /// What only the left input has between them.
    pub left: String,
    /// What only the right input has between them.
    pub right: String,
}

/// Splits two texts into a common prefix, a common suffix and the two differing middles, comparing markers
/// whole and free text by character.
///
/// 1. Both texts are segmented ([`segmentize_markers`]). If one is empty, the other is all diff.
/// 2. While both sides have at least two segments left, equal segments (same kind and value) are taken from the
///    front into the prefix and from the back into the suffix, both in the same round.
/// 3. If one side is down to one segment, it may still equal the other side's last segment (suffix) or, failing
///    that, its first (prefix). Two equal single markers go to the prefix.
/// 4. Between what is left, a common character suffix is taken only if both sides end in free text, and then a
///    common character prefix of what remains only if both start with free text; each stays within that edge's
///    run of text segments, so a marker is never cut.
/// 5. If one side's diff is empty and that side is a prefix of the other (the cut not inside a marker), the
///    result is that whole side as the prefix, an empty suffix and the other side's rest; identical inputs give
///    `prefix` = the input and everything else empty.
///
/// ```
/// use parser_auto::analyze::diff::calculate_diff_split;
///
/// let d = calculate_diff_split("prefix<div>content</div>", "prefix<div>different</div>");
/// assert_eq!((d.prefix.as_str(), d.left.as_str(), d.right.as_str(), d.suffix.as_str()),
///            ("prefix<div>", "cont", "differ", "ent</div>"));
///
/// let d = calculate_diff_split("PREFIX</think>Sure", "PREFIX<think>Lemme think</think>Sure");
/// assert_eq!((d.prefix.as_str(), d.left.as_str(), d.right.as_str(), d.suffix.as_str()),
///            ("PREFIX", "", "<think>Lemme think", "</think>Sure"));
/// ```
///
/// The split is symmetric: swapping the inputs swaps `left` and `right` and keeps the rest.
pub fn calculate_diff_split(left: &str, right: &str) -> DiffSplit {
    let (prefix_len, suffix_len) = split_lengths(left, right);
    match (
        cut(left, prefix_len, suffix_len),
        cut(right, prefix_len, suffix_len),
    ) {
        (Some((prefix, l, suffix)), Some((_, r, _))) => DiffSplit {
            prefix: prefix.to_owned(),
            suffix: suffix.to_owned(),
            left: l.to_owned(),
            right: r.to_owned(),
        },
        // Cannot happen (`split_lengths` keeps both cuts inside both texts, on char boundaries); if it ever
        // did, the honest answer is "nothing in common".
        _ => DiffSplit {
            left: left.to_owned(),
            right: right.to_owned(),
            ..DiffSplit::default()
        },
    }
}

/// `text` as (its first `prefix` bytes, the middle, its last `suffix` bytes), if those are char boundaries
/// that do not overlap.
fn cut(text: &str, prefix: usize, suffix: usize) -> Option<(&str, &str, &str)> {
    let end = text.len().checked_sub(suffix)?;
    Some((
        text.get(..prefix)?,
        text.get(prefix..end)?,
        text.get(end..)?,
    ))
}

/// The byte lengths of the common prefix and suffix of [`calculate_diff_split`]; both are char boundaries of
/// both texts and `prefix + suffix` fits in each.
fn split_lengths(left: &str, right: &str) -> (usize, usize) {
    let l = spans(left);
    let r = spans(right);
    if l.is_empty() || r.is_empty() {
        return (0, 0);
    }
    let same =
        |a: &Span, b: &Span| a.kind == b.kind && left[a.range.clone()] == right[b.range.clone()];

    // The segments not yet assigned: `l[la..lb]` and `r[ra..rb]`.
    let (mut la, mut lb, mut ra, mut rb) = (0, l.len(), 0, r.len());
    let (mut prefix, mut suffix) = (0, 0);

    // Step 2: whole segments from both ends while both sides have two or more.
    while lb - la >= 2 && rb - ra >= 2 {
        let mut moved = false;
        if same(&l[la], &r[ra]) {
            prefix += l[la].range.len();
            la += 1;
            ra += 1;
            moved = true;
        }
        // Both ranges still hold at least one segment here.
        if same(&l[lb - 1], &r[rb - 1]) {
            suffix += l[lb - 1].range.len();
            lb -= 1;
            rb -= 1;
            moved = true;
        }
        if !moved {
            break;
        }
    }

    // Step 3: one side down to a single segment (an exhausted side takes no part).
    match (lb - la, rb - ra) {
        (1, n) if n >= 2 => {
            if same(&l[la], &r[rb - 1]) {
                suffix += l[la].range.len();
                lb -= 1;
                rb -= 1;
            } else if same(&l[la], &r[ra]) {
                prefix += l[la].range.len();
                la += 1;
                ra += 1;
            }
        }
        (n, 1) if n >= 2 => {
            if same(&l[lb - 1], &r[ra]) {
                suffix += l[lb - 1].range.len();
                lb -= 1;
                rb -= 1;
            } else if same(&l[la], &r[ra]) {
                prefix += l[la].range.len();
                la += 1;
                ra += 1;
            }
        }
        (1, 1) if l[la].kind == SegmentKind::Marker && same(&l[la], &r[ra]) => {
            prefix += l[la].range.len();
            la += 1;
            ra += 1;
        }
        _ => {}
    }

    // Step 4: characters, within the free text at each edge of what is left.
    if la < lb && ra < rb {
        let (l_lo, mut l_hi) = (prefix, left.len() - suffix);
        let (r_lo, mut r_hi) = (prefix, right.len() - suffix);
        if l[lb - 1].kind == SegmentKind::Text && r[rb - 1].kind == SegmentKind::Text {
            let l_from = trailing_text_start(&l[la..lb], l_hi);
            let r_from = trailing_text_start(&r[ra..rb], r_hi);
            let n = common_suffix_len(&left[l_from..l_hi], &right[r_from..r_hi]);
            suffix += n;
            l_hi -= n;
            r_hi -= n;
        }
        if l[la].kind == SegmentKind::Text && r[ra].kind == SegmentKind::Text {
            let l_to = leading_text_end(&l[la..lb], l_lo).min(l_hi);
            let r_to = leading_text_end(&r[ra..rb], r_lo).min(r_hi);
            prefix += common_prefix_len(&left[l_lo..l_to], &right[r_lo..r_to]);
        }
    }

    // Step 5: one side is all in common and a prefix of the other: no rotated diff.
    let common = prefix + suffix;
    if common == left.len() && right.starts_with(left) && !inside_marker(&r, left.len()) {
        return (left.len(), 0);
    }
    if common == right.len() && left.starts_with(right) && !inside_marker(&l, right.len()) {
        return (right.len(), 0);
    }
    (prefix, suffix)
}

/// Where the run of text segments at the end of `spans` starts; `none` if `spans` ends in a marker.
fn trailing_text_start(spans: &[Span], none: usize) -> usize {
    let run = spans
        .iter()
        .rev()
        .take_while(|s| s.kind == SegmentKind::Text);
    run.last().map_or(none, |s| s.range.start)
}

/// Where the run of text segments at the start of `spans` ends; `none` if `spans` starts with a marker.
fn leading_text_end(spans: &[Span], none: usize) -> usize {
    let run = spans.iter().take_while(|s| s.kind == SegmentKind::Text);
    run.last().map_or(none, |s| s.range.end)
}

/// Whether byte offset `at` falls strictly inside a marker of `spans`.
fn inside_marker(spans: &[Span], at: usize) -> bool {
    spans
        .iter()
        .any(|s| s.kind == SegmentKind::Marker && s.range.start < at && at < s.range.end)
}

/// The byte length of the longest common prefix of `a` and `b`, in whole characters.
fn common_prefix_len(a: &str, b: &str) -> usize {
    a.chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum()
}

/// The byte length of the longest common suffix of `a` and `b`, in whole characters.
fn common_suffix_len(a: &str, b: &str) -> usize {
    a.chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum()
}

/// The part of `full` before the first occurrence of the longest common prefix of `a` and `b`.
///
/// Empty when `a` and `b` have no common prefix or `full` does not contain it. The common prefix is taken in
/// whole characters. Used to find what precedes a probe value: `until_common_prefix(render, "{}", "{\"x\":")`
/// is the text before the first `{`.
///
/// ```
/// use parser_auto::analyze::diff::until_common_prefix;
///
/// let render = "<|tool_call_argument_begin|>{\"AA\": \"XXXX\"}<|tool_call_end|>";
/// assert_eq!(until_common_prefix(render, "{}", "{\"first\":"), "<|tool_call_argument_begin|>");
/// assert_eq!(until_common_prefix(render, "abc", "xyz"), "");
/// ```
pub fn until_common_prefix<'a>(full: &'a str, a: &str, b: &str) -> &'a str {
    let n = common_prefix_len(a, b);
    if n == 0 {
        return "";
    }
    full.find(&a[..n]).map_or("", |at| &full[..at])
}

/// The part of `full` after the last occurrence of the longest common suffix of `a` and `b`.
///
/// Empty when `a` and `b` have no common suffix or `full` does not contain it. The common suffix is taken in
/// whole characters.
///
/// ```
/// use parser_auto::analyze::diff::after_common_suffix;
///
/// let render = "{\"AA\": \"XXXX\"}<|tool_call_end|>";
/// assert_eq!(after_common_suffix(render, "{}", "\"XXXX\"}"), "<|tool_call_end|>");
/// assert_eq!(after_common_suffix(render, "ab", "cd"), "");
/// ```
pub fn after_common_suffix<'a>(full: &'a str, a: &str, b: &str) -> &'a str {
    let n = common_suffix_len(a, b);
    if n == 0 {
        return "";
    }
    let needle = &a[a.len() - n..];
    full.rfind(needle)
        .map_or("", |at| &full[at + needle.len()..])
}
