//! K2 Horizon outputs (`parser-horizon`'s `k2-horizon`), with their oracle: reasoning forced open by the
//! prompt (a redundant opener now and then) and ended by any of the three effort closers or by the
//! call group; content; `<ifm|tool_calls>` groups whose calls mix the three layouts — XML (string
//! values), typed XML (an `<ifm|arg_type>` naming the JSON type) and JSON — with framing whitespace
//! between tags.

use parser_core::testing::Rng;

use super::{
    Generated, JSON_STRINGS, NAMES, Scale, UNICODE, arguments, call_count, escape, json_value,
    words,
};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// The registry parser.
pub const PARSER: &str = "k2-horizon";

const OPENERS: &[&str] = &["<ifm|think>", "<ifm|think_fast>", "<ifm|think_faster>"];
const CLOSERS: &[&str] = &["</ifm|think>", "</ifm|think_fast>", "</ifm|think_faster>"];

/// Prose: words, unicode, and the starts of the format's tags without being one.
const PROSE: &[&str] = &[
    "the",
    "weather",
    " ",
    "\n",
    "a < b",
    "<ifm",
    "<ifm|",
    "</ifm",
    "<ifm|tool",
    "</ifm|thin",
    "ifm|think>",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "<think>",
    "</think>",
    "<tool_call>",
    "end",
];

/// Raw text of string values: anything but a tag of the format.
const RAW: &[&str] = &[
    "Paris",
    " ",
    "\n",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "{\"a\": 1}",
    "a < b",
    "<ifm",
    "</ifm",
    "arg_value>",
    "02134",
    "true",
    "北京",
    "😀",
    "\t",
];

/// A well-formed K2 Horizon output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let mut setup = Setup::named(PARSER);
    let mut expected = Expected::default();
    let mut text = String::new();
    let reasoning = match rng.below(4) {
        0 => {
            setup.prompt_tail = Some(format!("<|user|>Hi{}", rng.pick(OPENERS)));
            true
        }
        1 => {
            let effort = rng.below(3);
            setup.prompt_tail = Some(format!("{}{}", OPENERS[effort], CLOSERS[effort]));
            false
        }
        _ => true,
    };
    let mut group_ends_reasoning = false;
    if reasoning {
        if rng.chance(10) {
            text.push_str(rng.pick(OPENERS));
        }
        let count = 1 + rng.below(10);
        expected.reasoning = format!("I think {}", words(rng, PROSE, count));
        text.push_str(&expected.reasoning);
        if rng.chance(15) {
            group_ends_reasoning = true;
        } else {
            text.push_str(rng.pick(CLOSERS));
        }
    }
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(3)
    };
    for n in 0..segments {
        let group_now = n == 0 && group_ends_reasoning;
        if !group_now && rng.chance(65) {
            let count = rng.below(8);
            let prose = format!("ok {}", words(rng, PROSE, count));
            expected.content.push_str(&prose);
            text.push_str(&prose);
        }
        if group_now || rng.chance(65) || scale != Scale::default() {
            group(rng, scale, &mut text, &mut expected.calls);
        }
    }
    Generated {
        setup,
        text,
        expected,
    }
}

/// One call group (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    group(rng, Scale::default(), &mut text, &mut Vec::new());
    text
}

/// Other request options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(30) {
        other.prompt_tail =
            [None, Some("<ifm|think>"), Some("</ifm|think_fast>")][rng.below(3)].map(str::to_owned);
    }
    if rng.chance(20) {
        other.tools = Some(super::qwen::schema());
    }
    other
}

/// Framing whitespace between tags.
fn framing(rng: &mut Rng) -> &'static str {
    ["", "", "", "\n", " ", "\n  "][rng.below(6)]
}

/// Writes a call group.
fn group(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    let count = call_count(rng, scale, 3);
    let huge_at = (scale.huge_value > 0).then(|| rng.below(count));
    text.push_str("<ifm|tool_calls>");
    for n in 0..count {
        text.push_str(framing(rng));
        text.push_str("<ifm|tool_call>");
        let name = rng.pick(NAMES);
        let huge = if huge_at == Some(n) {
            scale.huge_value
        } else {
            0
        };
        if rng.chance(25) {
            let args = arguments(rng, JSON_STRINGS, huge);
            text.push_str(&format!("{{\"name\": \"{name}\", \"arguments\": {args}}}"));
            calls.push(ExpectedCall {
                name: name.to_owned(),
                arguments: args,
                as_json: false,
                id: None,
            });
        } else {
            let typed = rng.chance(50);
            text.push_str(name);
            let mut members = Vec::new();
            for p in 0..rng.below(4) {
                let key = format!("{}{p}", ["city", "days", "名前", "q_2"][rng.below(4)]);
                text.push_str(framing(rng));
                text.push_str(&format!("<ifm|arg_key>{key}</ifm|arg_key>"));
                let (kind, value) = if typed {
                    typed_value(rng)
                } else {
                    ("", String::new())
                };
                let value = if kind.is_empty() || kind == "string" {
                    let count = 1 + rng.below(4);
                    let mut raw = words(rng, RAW, count);
                    if huge > 0 && p == 0 {
                        raw = super::huge_text(rng, RAW, huge);
                    }
                    if rng.chance(10) {
                        raw.push_str(rng.pick(UNICODE));
                    }
                    members.push(format!("\"{}\": \"{}\"", escape(&key), escape(&raw)));
                    raw
                } else {
                    members.push(format!("\"{}\": {value}", escape(&key)));
                    value
                };
                if !kind.is_empty() {
                    text.push_str(framing(rng));
                    text.push_str(&format!("<ifm|arg_type>{kind}</ifm|arg_type>"));
                }
                text.push_str(framing(rng));
                text.push_str(&format!("<ifm|arg_value>{value}</ifm|arg_value>"));
            }
            calls.push(ExpectedCall {
                name: name.to_owned(),
                arguments: format!("{{{}}}", members.join(", ")),
                as_json: true,
                id: None,
            });
        }
        text.push_str(framing(rng));
        text.push_str("</ifm|tool_call>");
    }
    text.push_str(framing(rng));
    text.push_str("</ifm|tool_calls>");
}

/// A declared type and a value that fits it (`string`: the value is written by the caller).
fn typed_value(rng: &mut Rng) -> (&'static str, String) {
    match rng.below(7) {
        0 | 1 => ("string", String::new()),
        2 => ("integer", (rng.next_u64() % 100_000).to_string()),
        3 => ("number", super::json_number(rng)),
        4 => ("boolean", ["true", "false"][rng.below(2)].to_owned()),
        5 => ("object", super::json_object(rng, JSON_STRINGS, 1)),
        _ => {
            let items: Vec<String> = (0..rng.below(4))
                .map(|_| json_value(rng, JSON_STRINGS, 2))
                .collect();
            (
                ["array", "array[string]"][rng.below(2)],
                format!("[{}]", items.join(", ")),
            )
        }
    }
}
