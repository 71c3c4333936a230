//! Kimi K3 outputs (`parser-kimi`'s `kimi-k3`), with their oracle: XTML channels of `<|open|>`,
//! `<|close|>` and `<|sep|>` — reasoning in the `think` channel (opened by the prompt, or not at all),
//! content bare or in `response` channels, calls in `tools` channels whose `call` elements carry the
//! name in an entity-escaped `tool` attribute and typed `argument` elements (a `string` value raw,
//! any other JSON), and the end-of-message closer.

use parser_core::testing::Rng;

use super::{
    Generated, JSON_STRINGS, NAMES, Scale, UNICODE, call_count, escape, json_value, words,
};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// The registry parser.
pub const PARSER: &str = "kimi-k3";

const THINK_OPEN: &str = "<|open|>think<|sep|>";
const THINK_CLOSE: &str = "<|close|>think<|sep|>";
const RESPONSE_OPEN: &str = "<|open|>response<|sep|>";
const RESPONSE_CLOSE: &str = "<|close|>response<|sep|>";
const MESSAGE_CLOSE: &str = "<|close|>message<|sep|>";
const TOOLS_OPEN: &str = "<|open|>tools<|sep|>";
const TOOLS_CLOSE: &str = "<|close|>tools<|sep|>";

/// Prose: words, unicode, and the starts of K3's tokens and element names without being one (no `|>`,
/// which would complete one).
const PROSE: &[&str] = &[
    "the",
    "weather",
    " ",
    "\n",
    "a < b",
    "<|",
    "<|open",
    "<|clos",
    "<|se",
    "think",
    "response",
    "tools",
    "call tool=\"f\"",
    "&quot;",
    "&amp;",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "<think>",
    "</think>",
    "<|tool_call_begin|>",
    "end",
];

/// Raw text of `string` values: anything but an element's closer.
const RAW: &[&str] = &[
    "Paris",
    " ",
    "\n",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "{\"a\": 1}",
    "a < b",
    "<|",
    "<|close",
    "<|open",
    "argument",
    "&quot;",
    "02134",
    "true",
    "北京",
    "😀",
    "\t",
];

/// Keys as the model means them, and as written in the attribute (entity-escaped).
const KEYS: &[(&str, &str)] = &[
    ("city", "city"),
    ("days", "days"),
    ("名前", "名前"),
    ("a&b", "a&amp;b"),
    ("say \"x\"", "say &quot;x&quot;"),
    ("q_2", "q_2"),
];

/// A well-formed Kimi K3 output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let mut setup = Setup::named(PARSER);
    let mut expected = Expected::default();
    let mut text = String::new();
    // Reasoning: opened by the prompt; or thinking off; or the prompt already in the answer.
    let reasoning = match rng.below(4) {
        0 | 1 => {
            setup.prompt_tail = Some(THINK_OPEN.to_owned());
            true
        }
        2 => {
            setup.enable_thinking = Some(false);
            false
        }
        _ => {
            setup.prompt_tail = Some(format!("{THINK_OPEN}Hm.{THINK_CLOSE}{RESPONSE_OPEN}"));
            false
        }
    };
    // How reasoning ends: its closer, the answer channel's opener, or a calls channel.
    let mut calls_first = false;
    let mut open_response = false;
    if reasoning {
        let count = 1 + rng.below(10);
        expected.reasoning = format!("I think {}", words(rng, PROSE, count));
        text.push_str(&expected.reasoning);
        match rng.below(10) {
            0 | 1 => {
                text.push_str(RESPONSE_OPEN);
                open_response = true;
            }
            2 => calls_first = true,
            _ => text.push_str(THINK_CLOSE),
        }
    }
    let mut index = 0;
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(3)
    };
    for n in 0..segments {
        let first = n == 0;
        if !(first && calls_first) && (open_response && first || rng.chance(70)) {
            let count = rng.below(8);
            let prose = format!("ok {}", words(rng, PROSE, count));
            expected.content.push_str(&prose);
            if open_response && first {
                text.push_str(&prose);
                text.push_str(RESPONSE_CLOSE);
            } else if rng.chance(60) {
                text.push_str(RESPONSE_OPEN);
                text.push_str(&prose);
                text.push_str(RESPONSE_CLOSE);
            } else {
                text.push_str(&prose);
            }
        }
        if (first && calls_first) || rng.chance(60) || scale != Scale::default() {
            channel(rng, scale, &mut text, &mut expected.calls, &mut index);
        }
    }
    if rng.chance(50) {
        text.push_str(MESSAGE_CLOSE);
    }
    Generated {
        setup,
        text,
        expected,
    }
}

/// One calls channel (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    channel(rng, Scale::default(), &mut text, &mut Vec::new(), &mut 0);
    text
}

/// Writes a calls channel with one or more calls.
fn channel(
    rng: &mut Rng,
    scale: Scale,
    text: &mut String,
    calls: &mut Vec<ExpectedCall>,
    index: &mut usize,
) {
    let count = call_count(rng, scale, 3);
    let huge_at = (scale.huge_value > 0).then(|| rng.below(count));
    text.push_str(TOOLS_OPEN);
    for n in 0..count {
        let name = rng.pick(NAMES);
        *index += 1;
        if rng.chance(80) {
            text.push_str(&format!(
                "<|open|>call tool=\"{name}\" index=\"{index}\"<|sep|>"
            ));
        } else {
            text.push_str(&format!(
                "<|open|>call index=\"{index}\" tool=\"{name}\"<|sep|>"
            ));
        }
        let mut members = Vec::new();
        for p in 0..rng.below(4) {
            let (key, written) = KEYS[rng.below(KEYS.len())];
            let key = format!("{key}{p}");
            let written = format!("{written}{p}");
            let (kind, value) = match rng.below(7) {
                0..=2 => {
                    let count = 1 + rng.below(4);
                    let mut raw = words(rng, RAW, count);
                    if huge_at == Some(n) && p == 0 {
                        raw = super::huge_text(rng, RAW, scale.huge_value);
                    }
                    if rng.chance(10) {
                        raw.push_str(rng.pick(UNICODE));
                    }
                    members.push(format!("\"{}\": \"{}\"", escape(&key), escape(&raw)));
                    ("string", raw)
                }
                3 => {
                    let value = (rng.next_u64() % 100_000).to_string();
                    ("integer", value)
                }
                4 => ("number", super::json_number(rng)),
                5 => ("boolean", ["true", "false"][rng.below(2)].to_owned()),
                _ => {
                    if rng.chance(50) {
                        ("object", super::json_object(rng, JSON_STRINGS, 1))
                    } else {
                        let items: Vec<String> = (0..rng.below(4))
                            .map(|_| json_value(rng, JSON_STRINGS, 2))
                            .collect();
                        ("array", format!("[{}]", items.join(", ")))
                    }
                }
            };
            if kind != "string" {
                members.push(format!("\"{}\": {value}", escape(&key)));
            }
            text.push_str(&format!(
                "<|open|>argument key=\"{written}\" type=\"{kind}\"<|sep|>{value}<|close|>argument<|sep|>"
            ));
        }
        text.push_str("<|close|>call<|sep|>");
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: format!("{{{}}}", members.join(", ")),
            as_json: true,
            id: None,
        });
    }
    text.push_str(TOOLS_CLOSE);
}
