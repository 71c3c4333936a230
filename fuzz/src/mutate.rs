//! Mutators: ways to damage a well-formed output. Each keeps the text valid UTF-8 (every cut and insert
//! is on a character boundary); none knows the format beyond its markers, so they also produce what no
//! grammar would.

use parser_core::testing::Rng;

use crate::Family;

/// The largest character boundary of `text` at or below `at`.
pub fn char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A random character boundary of `text`.
fn random_boundary(rng: &mut Rng, text: &str) -> usize {
    char_boundary(text, rng.below(text.len() + 1))
}

/// Markers and marker-shaped snippets of every family, for splicing.
const SNIPPETS: &[&str] = &[
    // DeepSeek.
    "<think>",
    "</think>",
    "<｜end▁of▁sentence｜>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁calls｜>",
    "<｜tool_calls_begin｜>",
    "function<｜tool▁sep｜>f\n```json\n",
    "f<｜tool▁sep｜>{",
    "```",
    "function<f>\n```json\n{}",
    "function\n```json\n{\"tools\": [",
    "<tool_call>function</think>f\n```json\n",
    "<｜DSML｜function_calls>",
    "</｜DSML｜function_calls>",
    "<｜DSML｜tool_calls>",
    "</｜DSML｜tool_calls>",
    "<｜DSML｜invoke name=\"f\">",
    "</｜DSML｜invoke>",
    "<｜DSML｜parameter name=\"p\" string=\"true\">",
    "<｜DSML｜parameter name=\"p\" string=\"false\">",
    "</｜DSML｜parameter>",
    // Qwen.
    "<tool_call>",
    "</tool_call>",
    "<tool_call>\n{\"name\": \"f\", \"arguments\": ",
    "{\"name\": \"g\", \"arguments\": {}}",
    "<function=f>",
    "</function>",
    "<parameter=s>",
    "<parameter=n>",
    "</parameter>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|im_start|>",
    // Kimi.
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "functions.f:9",
    "◁think▷",
    "◁/think▷",
    "<|im_assistant|>",
    "<|im_middle|>",
    // Harmony.
    "<|start|>",
    "<|start|>assistant",
    "<|channel|>",
    "<|channel|>analysis<|message|>",
    "<|channel|>final<|message|>",
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|>",
    " to=functions.g",
    "<|constrain|>",
    "<|message|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
    // Generic formats.
    "[TOOL_CALLS]",
    "[ARGS]",
    "[THINK]",
    "[/THINK]",
    "<|tool_call|>",
    "<tool_calls>",
    "</tool_calls>",
    "<seed:think>",
    "</seed:think>",
    "<seed:tool_call>",
    "<minimax:tool_call>",
    "<invoke name=\"f\">",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<tool_call>f<arg_key>k</arg_key><arg_value>",
    "<|observation|>",
    "<|user|>",
    "<|assistant|>",
    "<|tool_call_start|>[f(a=1)]",
    "<|START_ACTION|>",
    "[BEGIN FINAL RESPONSE]",
    // JSON punctuation.
    "{",
    "}",
    "\"",
    "\\",
    "[",
    "]",
    ":",
    ",",
    "\\\"",
    "\\u",
    "\\ud83d",
];

/// Closing markers, for duplication and removal.
const CLOSERS: &[&str] = &[
    "</think>",
    "◁/think▷",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁end｜>",
    "</｜DSML｜function_calls>",
    "</｜DSML｜tool_calls>",
    "</｜DSML｜invoke>",
    "</｜DSML｜parameter>",
    "```",
    "</tool_call>",
    "</function>",
    "</parameter>",
    "</arg_value>",
    "</arg_key>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_end|>",
    "<|tool_call_end|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
    "<|message|>",
    "}",
    "\"",
];

/// Garbage that is still valid UTF-8: controls, BOM, replacement character, combining marks, direction
/// marks, astral characters, lone punctuation.
const GARBAGE: &[&str] = &[
    "\0",
    "\u{1}",
    "\u{1b}",
    "\r",
    "\t",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{feff}",
    "\u{fffd}",
    "\u{10ffff}",
    "\u{301}",
    "\u{202e}",
    "\u{2028}",
    "😀",
    "𝄞",
    "北",
    "é",
    "｜",
    "▁",
    "◁",
    "▷",
    "<",
    ">",
    "|",
    "/",
    "=",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    "`",
    "'",
    ":",
    ",",
    " ",
    "\n",
];

/// Where reasoning opens, for nesting a call block inside it.
const REASONING_OPENERS: &[&str] = &[
    "<think>",
    "◁think▷",
    "analysis<|message|>",
    "<seed:think>",
    "[THINK]",
];

/// Applies one to three random mutations to `text`; returns their names. `big` allows the expensive
/// ones (a ~1 MB value, a slice repeated thousands of times, deep nesting).
pub fn mutate(family: Family, rng: &mut Rng, text: &mut String, big: bool) -> Vec<&'static str> {
    let mut applied = Vec::new();
    for _ in 0..1 + rng.below(3) {
        applied.push(mutate_once(family, rng, text, big));
    }
    applied
}

fn mutate_once(family: Family, rng: &mut Rng, text: &mut String, big: bool) -> &'static str {
    let roll = rng.below(if big { 106 } else { 100 });
    match roll {
        0..=19 => {
            let at = random_boundary(rng, text);
            text.truncate(at);
            "truncate"
        }
        20..=41 => {
            let snippet = rng.pick(SNIPPETS);
            let at = random_boundary(rng, text);
            text.insert_str(at, snippet);
            "splice"
        }
        42..=48 => {
            match random_occurrence(rng, text, CLOSERS) {
                Some((at, len)) => {
                    let closer = text[at..at + len].to_owned();
                    let to = if rng.chance(50) {
                        at + len
                    } else {
                        random_boundary(rng, text)
                    };
                    text.insert_str(to, &closer);
                }
                None => text.push_str(rng.pick(CLOSERS)),
            }
            "duplicate closer"
        }
        49..=57 => {
            let all: &[&str] = if rng.chance(50) { CLOSERS } else { SNIPPETS };
            if let Some((at, len)) = random_occurrence(rng, text, all) {
                text.replace_range(at..at + len, "");
            }
            "drop marker"
        }
        58..=62 => {
            if let Some((at, len)) = random_occurrence(rng, text, SNIPPETS) {
                let marker = text[at..at + len].to_owned();
                text.replace_range(at..at + len, &near_miss(rng, &marker));
            }
            "near-miss marker"
        }
        63..=71 => {
            let count = 1 + rng.below(16);
            let garbage: String = (0..count).map(|_| rng.pick(GARBAGE)).collect();
            let at = random_boundary(rng, text);
            text.insert_str(at, &garbage);
            "garbage"
        }
        72..=78 => {
            let block = crate::grammar::call_block(family, rng);
            let at = match random_occurrence(rng, text, REASONING_OPENERS) {
                Some((at, len)) if rng.chance(70) => {
                    let after = at + len;
                    let room = text.len() - after;
                    char_boundary(text, after + rng.below(room.min(80) + 1))
                }
                _ => random_boundary(rng, text),
            };
            text.insert_str(at, &block);
            "nest call block"
        }
        79..=86 => {
            let from = random_boundary(rng, text);
            let to = char_boundary(text, from + 1 + rng.below(40));
            text.replace_range(from..to, "");
            "delete slice"
        }
        87..=91 => {
            let from = random_boundary(rng, text);
            let to = char_boundary(text, from + 1 + rng.below(200));
            let slice = text[from..to].to_owned();
            let at = random_boundary(rng, text);
            text.insert_str(at, &slice);
            "duplicate slice"
        }
        92..=95 => {
            let a = random_boundary(rng, text);
            let b = char_boundary(text, a + rng.below(60));
            let c = char_boundary(text, b + rng.below(60));
            let swapped = format!("{}{}", &text[b..c], &text[a..b]);
            text.replace_range(a..c, &swapped);
            "swap slices"
        }
        96..=99 => {
            if let Some((at, len)) = random_occurrence(rng, text, SNIPPETS) {
                let upper = text[at..at + len].to_uppercase();
                text.replace_range(at..at + len, &upper);
            }
            "uppercase marker"
        }
        100..=101 => {
            // A slice (around a marker when there is one) repeated thousands of times.
            let from = match random_occurrence(rng, text, SNIPPETS) {
                Some((at, _)) => at,
                None => random_boundary(rng, text),
            };
            let to = char_boundary(text, from + 1 + rng.below(300));
            let slice = text[from..to].to_owned();
            if !slice.is_empty() {
                let times = (1000 + rng.below(3000)).min((2 << 20) / slice.len().max(1));
                text.insert_str(to, &slice.repeat(times));
            }
            "repeat slice"
        }
        102..=103 => {
            let pool: &[&str] = &["x", " ", "é", "\\\"", "{", "}", "<", "北京", "\\n"];
            let filler = crate::grammar::huge_text(rng, pool, 1 << 20);
            let at = random_boundary(rng, text);
            text.insert_str(at, &filler);
            "huge slice"
        }
        _ => {
            let depth = [64, 200, 1000, 20_000][rng.below(4)];
            let open = ["[", "{\"a\":", "[{\"b\":"][rng.below(3)];
            let at = random_boundary(rng, text);
            text.insert_str(at, &open.repeat(depth));
            "deep nesting"
        }
    }
}

/// A marker spelled slightly wrong: its last character dropped, a bar or space swapped for its
/// fullwidth or ASCII twin, or one character doubled.
fn near_miss(rng: &mut Rng, marker: &str) -> String {
    match rng.below(4) {
        0 => {
            let mut text = marker.to_owned();
            text.pop();
            text
        }
        1 => marker
            .replace('｜', "|")
            .replace('▁', "_")
            .replace("<|", "<｜"),
        2 => {
            let chars: Vec<char> = marker.chars().collect();
            let at = rng.below(chars.len());
            let mut text: String = chars[..=at].iter().collect();
            text.extend(&chars[at..]);
            text
        }
        _ => marker.replace('>', " >"),
    }
}

/// A random occurrence (start, length) of one of `markers` in `text`.
fn random_occurrence(rng: &mut Rng, text: &str, markers: &[&str]) -> Option<(usize, usize)> {
    if text.len() > 1 << 16 {
        // Long texts: look in a window, not the whole text.
        let from = char_boundary(text, rng.below(text.len() - 4096));
        let to = char_boundary(text, from + 4096);
        return random_occurrence(rng, &text[from..to], markers).map(|(at, len)| (from + at, len));
    }
    let mut found = Vec::new();
    for marker in markers {
        for (at, _) in text.match_indices(marker) {
            found.push((at, marker.len()));
        }
    }
    (!found.is_empty()).then(|| found[rng.below(found.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_keep_utf8_and_do_not_panic() {
        let mut rng = Rng::new(11);
        for family in Family::ALL {
            for _ in 0..300 {
                let mut text =
                    String::from("<think>北京 😀</think>ok<tool_call>{\"a\": \"é\"}</tool_call>");
                mutate(family, &mut rng, &mut text, true);
                assert!(std::str::from_utf8(text.as_bytes()).is_ok());
            }
        }
    }
}
