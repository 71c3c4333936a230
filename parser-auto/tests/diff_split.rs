//! The diff split and marker segmentation of the differential analysis (`parser_auto::analyze::diff`):
//! - llama.cpp's 46 golden cases (`corpus/llama_cpp_autoparser/diff_split.jsonl`), all in one test that names
//!   every failing case;
//! - non-ASCII markers (`◁think▷`, DeepSeek's `<｜…｜>`) and code points that share leading bytes;
//! - where this implementation deliberately differs from llama.cpp (see the module docs);
//! - `until_common_prefix` / `after_common_suffix`;
//! - properties on random strings over a bracket-heavy alphabet: no panic, both inputs rebuilt from the split,
//!   symmetry, no marker cut.

use std::path::Path;

use parser_auto::analyze::diff::{
    DiffSplit, Segment, SegmentKind, after_common_suffix, calculate_diff_split, segmentize_markers,
    until_common_prefix,
};
use proptest::prelude::*;
use rstest::rstest;
use serde_json::Value;

const GOLDEN: &str = "../corpus/llama_cpp_autoparser/diff_split.jsonl";

/// `(prefix, left, right, suffix)`, for compact assertions.
fn parts(d: &DiffSplit) -> (&str, &str, &str, &str) {
    (&d.prefix, &d.left, &d.right, &d.suffix)
}

fn split(left: &str, right: &str) -> DiffSplit {
    calculate_diff_split(left, right)
}

fn field<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no string field {key:?}"))
}

/// Checks one golden case; `Err` says what differs.
fn check_golden(case: &Value) -> Result<(), String> {
    let function = field(case, "function")?;
    let input = &case["input"];
    let expected = &case["expected"];
    match function {
        "calculate_diff_split" => {
            let (left, right) = (field(input, "left")?, field(input, "right")?);
            let got = calculate_diff_split(left, right);
            let mut errors = Vec::new();
            for (key, actual) in [
                ("prefix", &got.prefix),
                ("left", &got.left),
                ("right", &got.right),
                ("suffix", &got.suffix),
            ] {
                if let Some(want) = expected.get(key)
                    && want.as_str() != Some(actual.as_str())
                {
                    errors.push(format!("{key}: expected {want}, got {actual:?}"));
                }
                let contains = case["expected_contains"].get(key).and_then(Value::as_array);
                for needle in contains.into_iter().flatten() {
                    let needle = needle
                        .as_str()
                        .ok_or("expected_contains holds a non-string")?;
                    if !actual.contains(needle) {
                        errors.push(format!("{key}: {actual:?} does not contain {needle:?}"));
                    }
                }
            }
            // Not part of the golden data, but it must hold for every case (it does in llama.cpp too).
            if format!("{}{}{}", got.prefix, got.left, got.suffix) != left
                || format!("{}{}{}", got.prefix, got.right, got.suffix) != right
            {
                errors.push(format!("the split {got:?} does not rebuild the inputs"));
            }
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors.join("; "))
            }
        }
        "segmentize_markers" => {
            let got: Vec<(String, String)> = segmentize_markers(field(input, "text")?)
                .into_iter()
                .map(|s| {
                    let kind = match s.kind {
                        SegmentKind::Text => "TEXT",
                        SegmentKind::Marker => "MARKER",
                    };
                    (kind.to_owned(), s.value)
                })
                .collect();
            let want: Vec<(String, String)> = serde_json::from_value(expected.clone())
                .map_err(|e| format!("bad expectation: {e}"))?;
            if got == want {
                Ok(())
            } else {
                Err(format!("expected {want:?}, got {got:?}"))
            }
        }
        other => Err(format!("unknown function {other:?}")),
    }
}

// All 46 golden cases (41 calculate_diff_split, 5 segmentize_markers) transcribed from llama.cpp's
// tests/test-chat-auto-parser.cpp; every failing id is reported at once.
#[test]
fn llama_cpp_golden_cases() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut counts = (0, 0);
    let mut failures = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let case: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let id = case["id"].as_str().unwrap_or("<no id>").to_owned();
        match case["function"].as_str() {
            Some("calculate_diff_split") => counts.0 += 1,
            Some("segmentize_markers") => counts.1 += 1,
            _ => {}
        }
        if let Err(why) = check_golden(&case) {
            failures.push(format!("{id}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        counts,
        (41, 5),
        "the golden file changed: (calculate_diff_split, segmentize_markers) cases"
    );
}

// `◁…▷` is a marker bracket pair, like `<…>` and `[…]`; other brackets are plain characters inside it.
#[test]
fn segmentize_finds_non_ascii_markers() {
    let marker = |v: &str| Segment {
        kind: SegmentKind::Marker,
        value: v.to_owned(),
    };
    let text = |v: &str| Segment {
        kind: SegmentKind::Text,
        value: v.to_owned(),
    };
    assert_eq!(
        segmentize_markers("◁think▷Let me see.◁/think▷Answer"),
        [
            marker("◁think▷"),
            text("Let me see."),
            marker("◁/think▷"),
            text("Answer")
        ]
    );
    assert_eq!(
        segmentize_markers("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}"),
        [
            marker("<｜tool▁calls▁begin｜>"),
            marker("<｜tool▁call▁begin｜>"),
            text("f"),
            marker("<｜tool▁sep｜>"),
            text("{}")
        ]
    );
    assert_eq!(segmentize_markers("◁a<b▷c>"), [marker("◁a<b▷"), text("c>")]);
    assert_eq!(
        segmentize_markers("x◁unclosed"),
        [text("x"), text("◁unclosed")]
    );
    // `【…】` is prose (GPT-OSS citations, CJK punctuation), not a marker.
    assert_eq!(
        segmentize_markers("见【6†L9-L11】"),
        [text("见【6†L9-L11】")]
    );
    assert_eq!(segmentize_markers(""), []);
}

#[rstest]
// Kimi-VL reasoning, the `◁…▷` counterpart of the golden `</think>` case.
#[case(
    "PREFIX◁/think▷Sure",
    "PREFIX◁think▷Lemme think◁/think▷Sure",
    ("PREFIX", "", "◁think▷Lemme think", "◁/think▷Sure")
)]
#[case(
    "<|im_assistant|>assistant<|im_middle|>Hi<|im_end|>",
    "<|im_assistant|>assistant<|im_middle|>◁think▷R◁/think▷Hi<|im_end|>",
    ("<|im_assistant|>assistant<|im_middle|>", "", "◁think▷R◁/think▷", "Hi<|im_end|>")
)]
// Without `◁▷` as brackets the diff would cut into the marker: `think▷` would be common text.
#[case("◁think▷A◁/think▷", "◁think▷B◁/think▷", ("◁think▷", "A", "B", "◁/think▷"))]
// DeepSeek's fullwidth special tokens are compared whole.
#[case(
    "<｜Assistant｜>Hi<｜end▁of▁sentence｜>",
    "<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
    (
        "<｜Assistant｜>",
        "Hi",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<｜end▁of▁sentence｜>"
    )
)]
#[case(
    "<｜tool▁calls▁begin｜>x",
    "<｜tool▁call▁begin｜>x",
    ("", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "x")
)]
// Free text is compared by character: `é`/`è` and `▁`/`▂` share their leading bytes.
#[case("xé", "xè", ("x", "é", "è", ""))]
#[case("é1", "è1", ("", "é", "è", "1"))]
#[case("a▁b", "a▂b", ("a", "▁", "▂", "b"))]
#[case("北京", "北大", ("北", "京", "大", ""))]
fn non_ascii_split(
    #[case] left: &str,
    #[case] right: &str,
    #[case] want: (&str, &str, &str, &str),
) {
    assert_eq!(parts(&split(left, right)), want);
}

#[rstest]
// llama.cpp (07c6a59b4) reuses the exhausted left segment and reports these as identical (prefix `a<x>`).
#[case("a<x>", "a<x><x>", ("a<x>", "", "<x>", ""))]
// … this one as prefix `a`, right `<y>`, suffix `<x><x>`, which does not rebuild the left input `a<x>`.
#[case("a<x>", "a<y><x><x>", ("a", "", "<y><x>", "<x>"))]
// … and this one as prefix `<s>\n`, right `<gen>`, suffix `\n`, which does not rebuild `<s>\n` either.
#[case("<s>\n", "<s>\n<gen>\n", ("<s>\n", "", "<gen>\n", ""))]
#[case("<s>\n<gen>\n", "<s>\n", ("<s>\n", "<gen>\n", "", ""))]
// llama.cpp's character suffix runs through a stray `>` into the marker `<a>`: right `q<`, suffix `a>c`.
#[case("a>c", "q<a>c", ("", "a>", "q<a>", "c"))]
#[case("/]b", "/[]b", ("/", "]", "[]", "b"))]
// A rotated diff (llama.cpp: right `\n<|im_start|>assistant\n<think>`, suffix `\n`) becomes "the rest is new", as in
// newer llama.cpp: the generation prompt comes out whole.
#[case(
    "<|im_start|>user\nhi<|im_end|>\n",
    "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n",
    ("<|im_start|>user\nhi<|im_end|>\n", "", "<|im_start|>assistant\n<think>\n", "")
)]
#[case("A\n", "A\nB\n", ("A\n", "", "B\n", ""))]
// … but not when that cut would fall inside a marker (the same result as llama.cpp here).
#[case("<b", "<b><b", ("", "", "<b>", "<b"))]
fn deliberate_differences_from_llama_cpp(
    #[case] left: &str,
    #[case] right: &str,
    #[case] want: (&str, &str, &str, &str),
) {
    assert_eq!(parts(&split(left, right)), want);
}

#[rstest]
// T6 in llama.cpp: what precedes the arguments object.
#[case(
    "<|tool_call_argument_begin|>{\"AA_ARG_FST_AA\": \"XXXX\"}<|tool_call_end|>",
    "{}",
    "{\"first\":",
    "<|tool_call_argument_begin|>"
)]
// The first occurrence counts.
#[case("ab{c}{d}", "{x", "{y", "ab")]
#[case("{at the start", "{x", "{y", "")]
// No common prefix, or not found.
#[case("anything", "abc", "xyz", "")]
#[case("anything", "", "", "")]
#[case("no brace here", "{x", "{y", "")]
// In whole characters: `é` and `è` share a leading byte but not a character.
#[case("zzé", "éa", "éb", "zz")]
// `Ã` (C3 83) starts with the byte `é` and `è` share; a byte-level prefix would find it.
#[case("zzÃ", "é", "è", "")]
fn until_common_prefix_cases(
    #[case] full: &str,
    #[case] a: &str,
    #[case] b: &str,
    #[case] want: &str,
) {
    assert_eq!(until_common_prefix(full, a, b), want);
}

#[rstest]
// T6 in llama.cpp: what follows the arguments object.
#[case(
    "{\"AA_ARG_FST_AA\": \"XXXX\"}<|tool_call_end|>",
    "{}",
    "\"XXXX\"}",
    "<|tool_call_end|>"
)]
// The last occurrence counts.
#[case("{a}{b}tail", "x}", "y}", "tail")]
#[case("ends with }", "x}", "y}", "")]
// No common suffix, or not found.
#[case("anything", "abc", "xyz", "")]
#[case("anything", "", "", "")]
#[case("no brace here", "x}", "y}", "")]
// In whole characters.
#[case("éé!", "aé", "bé", "!")]
#[case("1é2", "ё", "é", "")]
fn after_common_suffix_cases(
    #[case] full: &str,
    #[case] a: &str,
    #[case] b: &str,
    #[case] want: &str,
) {
    assert_eq!(after_common_suffix(full, a, b), want);
}

/// Characters that stress the segmenter: every bracket (ASCII and `◁▷`), a marker-like bar, a multi-byte
/// letter, plain letters, and `【】` (not brackets here).
const ALPHABET: &[char] = &[
    '<', '>', '[', ']', '◁', '▷', '|', 'é', 'a', 'b', '/', '【', '】',
];

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), 0..max)
        .prop_map(String::from_iter)
}

/// Two texts: unrelated, or sharing a random beginning and end (so that there is something to find).
fn pair() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        (text(16), text(16)),
        (text(10), text(6), text(6), text(10))
            .prop_map(|(p, x, y, s)| (format!("{p}{x}{s}"), format!("{p}{y}{s}"))),
    ]
}

/// Byte ranges of the markers of `text`.
fn marker_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut at = 0;
    let mut out = Vec::new();
    for segment in segmentize_markers(text) {
        let end = at + segment.value.len();
        if segment.kind == SegmentKind::Marker {
            out.push((at, end));
        }
        at = end;
    }
    out
}

proptest! {
    // PROPTEST_CASES=100000 for a long run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Never panics, and both inputs are rebuilt from the split. (Every golden case satisfies this too;
    // llama.cpp itself does not always: "a<x>" vs "a<y><x><x>", see deliberate_differences_from_llama_cpp.)
    #[test]
    fn split_rebuilds_both_inputs((left, right) in pair()) {
        let d = calculate_diff_split(&left, &right);
        prop_assert_eq!(format!("{}{}{}", d.prefix, d.left, d.suffix), left);
        prop_assert_eq!(format!("{}{}{}", d.prefix, d.right, d.suffix), right);
    }

    // Swapping the inputs swaps left and right; identical inputs are all prefix.
    #[test]
    fn split_is_symmetric((left, right) in pair()) {
        let d = calculate_diff_split(&left, &right);
        let swapped = calculate_diff_split(&right, &left);
        prop_assert_eq!(parts(&swapped), (d.prefix.as_str(), d.right.as_str(), d.left.as_str(), d.suffix.as_str()));
        let same = calculate_diff_split(&left, &left);
        prop_assert_eq!(parts(&same), (left.as_str(), "", "", ""));
    }

    // No boundary of the split falls strictly inside a marker of either input.
    #[test]
    fn split_never_cuts_a_marker((left, right) in pair()) {
        let d = calculate_diff_split(&left, &right);
        for input in [&left, &right] {
            let cuts = [d.prefix.len(), input.len() - d.suffix.len()];
            for (start, end) in marker_ranges(input) {
                for cut in cuts {
                    prop_assert!(!(start < cut && cut < end), "{:?} cut at {} inside {:?} of {:?}", d, cut, &input[start..end], input);
                }
            }
        }
    }

    // Segments rebuild the text; markers are bracketed, text segments hold no complete marker.
    #[test]
    fn segments_rebuild_the_text(input in text(24)) {
        let segments = segmentize_markers(&input);
        prop_assert_eq!(segments.iter().map(|s| s.value.as_str()).collect::<String>(), input.clone());
        for s in &segments {
            prop_assert!(!s.value.is_empty());
            if s.kind == SegmentKind::Marker {
                let (first, last) = (s.value.chars().next(), s.value.chars().last());
                prop_assert!(matches!((first, last), (Some('<'), Some('>')) | (Some('['), Some(']')) | (Some('◁'), Some('▷'))), "{:?}", s);
            }
        }
    }

    // The helpers never panic and return a beginning / an end of `full`.
    #[test]
    fn helpers_return_a_part_of_full(full in text(16), a in text(6), b in text(6)) {
        prop_assert!(full.starts_with(until_common_prefix(&full, &a, &b)));
        prop_assert!(full.ends_with(after_common_suffix(&full, &a, &b)));
    }
}
