//! Seeded outputs with format-aware damage, for the grammars whose outputs come from the corpus and the
//! registry samples ([`super::data`], [`super::machines`]) rather than from a grammar with an oracle.
//!
//! The shared mutators ([`crate::mutate`]) know a fixed list of markers, written before most of these
//! formats existed. Here the damage is made of the parser's own markers: its special tokens and the
//! tag-shaped runs (`<…>`, `[…]`) of its seeds — each one split by inserted text, spelled slightly wrong,
//! duplicated, dropped, swapped with another, cut short at the end of the output, or replaced by another
//! parser's marker — and of whole seeds nested after a marker (a call block inside reasoning, a message
//! inside a message). The result has no oracle: the invariant checks judge it.

use parser_core::testing::Rng;

use super::data::Seed;
use super::{Generated, Scale, UNICODE};
use crate::check::Expected;
use crate::mutate::char_boundary;
use crate::setup::Setup;

/// A seed of one of `groups`, recombined at markers with others of its parser, scaled, and (usually)
/// damaged with the format's own markers.
pub(super) fn generate(
    groups: &[&(&'static str, Vec<Seed>)],
    rng: &mut Rng,
    scale: Scale,
) -> Generated {
    if groups.is_empty() {
        return Generated {
            setup: Setup::named("hermes"),
            text: String::new(),
            expected: Expected::default(),
        };
    }
    let (_, group) = groups[rng.below(groups.len())];
    let seed = &group[rng.below(group.len())];
    let mut text = seed.output.clone();
    let tokens = seed.setup.tokens();
    for _ in 0..rng.below(3) {
        let other = &group[rng.below(group.len())].output;
        let slice = super::generic::marker_slice(rng, other, tokens);
        let at = super::generic::marker_position(rng, &text, tokens);
        text.insert_str(at, slice);
    }
    if scale.many_calls > 0 {
        let slice = super::generic::marker_slice(rng, &seed.output, tokens).to_owned();
        let at = super::generic::marker_position(rng, &text, tokens);
        text.insert_str(at, &slice.repeat(scale.many_calls.min(2000)));
    }
    if scale.huge_value > 0 {
        let at = char_boundary(&text, rng.below(text.len() + 1));
        let filler = super::huge_text(
            rng,
            &["x", " ", "{", "\"", "é", "\n", "<"],
            scale.huge_value,
        );
        text.insert_str(at, &filler);
    }
    if rng.chance(70) {
        let markers = markers(&seed.output, tokens);
        for _ in 0..1 + rng.below(3) {
            damage(rng, &mut text, &markers, group, groups);
        }
    }
    Generated {
        setup: seed.setup.clone(),
        text,
        expected: Expected::default(),
    }
}

/// A seed output of one of `groups` (for the mutators' nesting).
pub(super) fn call_block(groups: &[&(&'static str, Vec<Seed>)], rng: &mut Rng) -> String {
    if groups.is_empty() {
        return String::new();
    }
    let (_, group) = groups[rng.below(groups.len())];
    group[rng.below(group.len())].output.clone()
}

/// The format's markers: its special tokens and the tag-shaped runs of `text` (`<` or `[` to the
/// matching closer within 64 bytes, on one line), longest first, without repeats.
pub(super) fn markers(text: &str, tokens: &[&'static str]) -> Vec<String> {
    let mut found: Vec<String> = tokens
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| (*t).to_owned())
        .collect();
    for (open, close) in [('<', '>'), ('[', ']')] {
        for (at, _) in text.match_indices(open) {
            let rest = &text[at..];
            let window = &rest[..char_boundary(rest, 64)];
            if let Some(end) = window[1..].find([close, '\n', open]) {
                let end = end + 1;
                if window[end..].starts_with(close) && end > 1 {
                    found.push(window[..=end].to_owned());
                }
            }
        }
    }
    found.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    found.dedup();
    found
}

/// A random occurrence (start, length) in `text` of one of `markers`.
fn occurrence(rng: &mut Rng, text: &str, markers: &[String]) -> Option<(usize, usize)> {
    if markers.is_empty() {
        return None;
    }
    // Long texts: look in a window (a scan of the whole text per damage would be quadratic in the
    // big inputs).
    let (from, window) = if text.len() > 1 << 16 {
        let from = char_boundary(text, rng.below(text.len() - 4096));
        (from, &text[from..char_boundary(text, from + 4096)])
    } else {
        (0, text)
    };
    let mut found = Vec::new();
    for marker in markers {
        found.extend(
            window
                .match_indices(marker.as_str())
                .map(|(at, m)| (from + at, m.len())),
        );
    }
    (!found.is_empty()).then(|| found[rng.below(found.len())])
}

/// A character boundary strictly inside `text[at..at + len]`, when the marker has more than one
/// character.
fn inside(rng: &mut Rng, text: &str, at: usize, len: usize) -> Option<usize> {
    let marker = &text[at..at + len];
    let cuts: Vec<usize> = marker.char_indices().skip(1).map(|(i, _)| i).collect();
    (!cuts.is_empty()).then(|| at + cuts[rng.below(cuts.len())])
}

/// A marker spelled slightly wrong: a character dropped or doubled, the case changed, a bar swapped
/// for its fullwidth or ASCII twin, a space before the closer.
fn near_miss(rng: &mut Rng, marker: &str) -> String {
    let chars: Vec<char> = marker.chars().collect();
    let wrong: String = match rng.below(6) {
        0 => chars[..chars.len() - 1].iter().collect(),
        1 => chars[1..].iter().collect(),
        2 => {
            let at = rng.below(chars.len());
            let mut out: String = chars[..=at].iter().collect();
            out.extend(&chars[at..]);
            out
        }
        3 => {
            if marker.chars().any(char::is_lowercase) {
                marker.to_uppercase()
            } else {
                marker.to_lowercase()
            }
        }
        4 => chars
            .iter()
            .map(|c| match c {
                '|' => '\u{ff5c}',
                '\u{ff5c}' => '|',
                '_' => '\u{2581}',
                '\u{2581}' => '_',
                c => *c,
            })
            .collect(),
        _ => marker
            .replacen('>', " >", 1)
            .replacen(']', " ]", 1)
            .replacen('=', " = ", 1),
    };
    if wrong == marker {
        format!("{marker} ")
    } else {
        wrong
    }
}

/// Text put inside or beside a marker.
fn filler(rng: &mut Rng, markers: &[String]) -> String {
    match rng.below(5) {
        0 if !markers.is_empty() => markers[rng.below(markers.len())].clone(),
        1 => " ".to_owned(),
        2 => "\n".to_owned(),
        _ => rng.pick(UNICODE).to_owned(),
    }
}

/// One damage made of the format's markers.
fn damage(
    rng: &mut Rng,
    text: &mut String,
    markers: &[String],
    group: &[Seed],
    groups: &[&(&'static str, Vec<Seed>)],
) {
    let Some((at, len)) = occurrence(rng, text, markers) else {
        // No marker left (a truncated seed): a marker at a random place.
        if !markers.is_empty() {
            let at = char_boundary(text, rng.below(text.len() + 1));
            text.insert_str(at, &markers[rng.below(markers.len())]);
        }
        return;
    };
    match rng.below(10) {
        // Split by inserted text.
        0 => {
            if let Some(cut) = inside(rng, text, at, len) {
                let fill = filler(rng, markers);
                text.insert_str(cut, &fill);
            }
        }
        // Spelled slightly wrong.
        1 => {
            let wrong = near_miss(rng, &text[at..at + len]);
            text.replace_range(at..at + len, &wrong);
        }
        // Duplicated, here or elsewhere.
        2 => {
            let marker = text[at..at + len].to_owned();
            let to = if rng.chance(50) {
                at + len
            } else {
                char_boundary(text, rng.below(text.len() + 1))
            };
            text.insert_str(to, &marker);
        }
        // Dropped.
        3 => text.replace_range(at..at + len, ""),
        // Cut short: the output ends inside or just after the marker.
        4 => {
            let end = inside(rng, text, at, len)
                .filter(|_| rng.chance(70))
                .unwrap_or(at + len);
            text.truncate(end);
        }
        // Swapped with another marker of the format.
        5 => {
            let other = &markers[rng.below(markers.len())];
            text.replace_range(at..at + len, other);
        }
        // Another parser's marker in its place or beside it.
        6 => {
            let (_, other_group) = groups[rng.below(groups.len())];
            let other_seed = &other_group[rng.below(other_group.len())];
            let theirs = markers_of(other_seed);
            if !theirs.is_empty() {
                let marker = theirs[rng.below(theirs.len())].clone();
                if rng.chance(50) {
                    text.replace_range(at..at + len, &marker);
                } else {
                    text.insert_str(at + len, &marker);
                }
            }
        }
        // A whole seed of the same parser nested after the marker.
        7 | 8 => {
            let nested = group[rng.below(group.len())].output.clone();
            text.insert_str(at + len, &nested);
        }
        // Unicode or a line break right before or after it.
        _ => {
            let fill = filler(rng, &[]);
            let to = if rng.chance(50) { at } else { at + len };
            text.insert_str(to, &fill);
        }
    }
}

fn markers_of(seed: &Seed) -> Vec<String> {
    markers(&seed.output, seed.setup.tokens())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_tags_and_tokens() {
        let found = markers(
            "<mm:think>a</mm:think>[TOOL_CALLS]x <b\nc> [a b]",
            &["<|sep|>"],
        );
        for want in [
            "<mm:think>",
            "</mm:think>",
            "[TOOL_CALLS]",
            "<|sep|>",
            "[a b]",
        ] {
            assert!(found.iter().any(|m| m == want), "{want} in {found:?}");
        }
        assert!(!found.iter().any(|m| m.contains('\n')), "{found:?}");
    }

    #[test]
    fn near_misses_differ() {
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            for marker in ["<|sep|>", "</ifm|think>", "]<]minimax[>[", "x"] {
                assert_ne!(near_miss(&mut rng, marker), marker);
            }
        }
    }
}
