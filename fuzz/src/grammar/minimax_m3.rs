//! MiniMax-M3 outputs (`parser-minimax`'s `minimax-m3`), with their oracle: `<mm:think>` reasoning
//! (opened by the model or by the prompt), content, and call blocks of namespaced elements — every tag
//! behind the `]<]minimax[>[` token, invokes with framing whitespace between them, parameters as
//! elements named after their key whose values are text (strings, with no tool schema) or nested
//! elements (an object, a repeated child collapsing into a list), and `[e~[` dropped at the end.

use parser_core::testing::Rng;

use super::{Generated, NAMES, Scale, UNICODE, call_count, escape, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// The registry parser.
pub const PARSER: &str = "minimax-m3";

const NS: &str = "]<]minimax[>[";
const THINK_OPEN: &str = "<mm:think>";
const THINK_CLOSE: &str = "</mm:think>";
const TAIL: &str = "]~b]user\nWeather?[e~[\n]~b]ai\n";

/// Prose: words, unicode, and the starts of the format's markers without being one.
const PROSE: &[&str] = &[
    "the",
    "weather",
    " ",
    "\n",
    "a < b",
    "]<]",
    "]<]minimax",
    "<mm:",
    "</mm:thin",
    "[e~ ",
    "<tool_call>",
    "<invoke name=\"f\">",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "<think>",
    "end",
];

/// Raw text of values: anything without the namespace token.
const RAW: &[&str] = &[
    "Paris",
    " ",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "{\"a\": 1}",
    "a < b",
    "</city>",
    "<b>",
    "]<]",
    "[>[",
    "02134",
    "true",
    "北京",
    "😀",
    "\t",
];

/// Parameter and child element names.
const KEYS: &[&str] = &["city", "days", "user_id", "q_2", "名前", "sku"];

/// A well-formed MiniMax-M3 output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let mut setup = Setup::named(PARSER);
    let mut expected = Expected::default();
    let mut text = String::new();
    let thinking = rng.chance(70);
    let prompt_opens = thinking && rng.chance(40);
    setup.prompt_tail = Some(if prompt_opens {
        format!("{TAIL}{THINK_OPEN}")
    } else {
        TAIL.to_owned()
    });
    if thinking {
        if !prompt_opens {
            text.push_str(THINK_OPEN);
        }
        let count = 1 + rng.below(10);
        expected.reasoning = format!("I think {}", words(rng, PROSE, count));
        text.push_str(&expected.reasoning);
        text.push_str(THINK_CLOSE);
    }
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(3)
    };
    for _ in 0..segments {
        if rng.chance(65) {
            let count = rng.below(8);
            let prose = format!("ok {}", words(rng, PROSE, count));
            expected.content.push_str(&prose);
            text.push_str(&prose);
        }
        if rng.chance(65) || scale != Scale::default() {
            block(rng, scale, &mut text, &mut expected.calls);
        }
    }
    if rng.chance(30) {
        text.push_str("[e~[");
    }
    Generated {
        setup,
        text,
        expected,
    }
}

/// One call block (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    block(rng, Scale::default(), &mut text, &mut Vec::new());
    text
}

/// Other request options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(30) {
        other.prompt_tail =
            [None, Some(TAIL), Some("]~b]ai\n<mm:think>")][rng.below(3)].map(str::to_owned);
    }
    if rng.chance(20) {
        other.tools = Some(super::qwen::schema());
    }
    other
}

/// Framing whitespace between invokes.
fn framing(rng: &mut Rng) -> &'static str {
    ["", "\n", "\n", " ", "\n\n"][rng.below(5)]
}

/// A text value: raw words, now and then unicode, or about `huge` bytes.
fn raw(rng: &mut Rng, huge: usize) -> String {
    if huge > 0 {
        return super::huge_text(rng, RAW, huge);
    }
    let count = 1 + rng.below(4);
    let mut raw = words(rng, RAW, count);
    if rng.chance(10) {
        raw.push_str(rng.pick(UNICODE));
    }
    raw
}

/// Writes a call block.
fn block(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    let count = call_count(rng, scale, 3);
    let huge_at = (scale.huge_value > 0).then(|| rng.below(count));
    text.push_str(NS);
    text.push_str("<tool_call>");
    for n in 0..count {
        text.push_str(framing(rng));
        let name = rng.pick(NAMES);
        text.push_str(&format!("{NS}<invoke name=\"{name}\">"));
        let mut members = Vec::new();
        for p in 0..rng.below(4) {
            let key = format!("{}{p}", rng.pick(KEYS));
            text.push_str(&format!("{NS}<{key}>"));
            let value = if rng.chance(75) {
                let huge = if huge_at == Some(n) && p == 0 {
                    scale.huge_value
                } else {
                    0
                };
                let value = raw(rng, huge);
                text.push_str(&value);
                format!("\"{}\"", escape(&value))
            } else {
                nested(rng, text)
            };
            text.push_str(&format!("{NS}</{key}>"));
            members.push(format!("\"{}\": {value}", escape(&key)));
        }
        text.push_str(&format!("{NS}</invoke>"));
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: format!("{{{}}}", members.join(", ")),
            as_json: true,
            id: None,
        });
    }
    text.push_str(framing(rng));
    text.push_str(NS);
    text.push_str("</tool_call>");
}

/// Writes a nested value (child elements with text values, one child name now and then repeated into
/// a list, whitespace-only framing between children); returns its JSON.
fn nested(rng: &mut Rng, text: &mut String) -> String {
    let mut members: Vec<(String, Vec<String>)> = Vec::new();
    for c in 0..1 + rng.below(3) {
        let child = format!("{}{c}", rng.pick(KEYS));
        let times = if rng.chance(20) { 2 } else { 1 };
        let mut values = Vec::new();
        for t in 0..times {
            // Framing between children only: a value starting with whitespace is text.
            if (c > 0 || t > 0) && rng.chance(30) {
                text.push_str(["\n", " ", "\n  "][rng.below(3)]);
            }
            let value = raw(rng, 0);
            text.push_str(&format!("{NS}<{child}>{value}{NS}</{child}>"));
            values.push(format!("\"{}\"", escape(&value)));
        }
        members.push((child, values));
    }
    let members: Vec<String> = members
        .into_iter()
        .map(|(child, values)| {
            let value = if values.len() == 1 {
                values.into_iter().next().unwrap_or_default()
            } else {
                format!("[{}]", values.join(", "))
            };
            format!("\"{}\": {value}", escape(&child))
        })
        .collect();
    format!("{{{}}}", members.join(", "))
}
