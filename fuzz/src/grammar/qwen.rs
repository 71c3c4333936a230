//! Qwen outputs: Hermes-style JSON calls (Qwen2.5, Qwen3, QwQ / Thinking-2507, Instruct-2507) and
//! Qwen3-Coder XML calls typed by the tool schema (Qwen3-Coder, Qwen3.5); reasoning opened by the model,
//! forced open by the prompt, switched off by the prompt or by `enable_thinking`.

use std::sync::OnceLock;

use parser_core::testing::Rng;
use serde_json::Value;

use super::{
    Generated, JSON_STRINGS, NAMES, Scale, UNICODE, arguments, call_count, escape, json_object,
    words,
};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// Prose: words, and markers that stay text where they stand (a `<tool_call>` that never becomes a
/// call is content, raw).
const PROSE: &[&str] = &[
    "the",
    "weather",
    "is",
    " ",
    " ",
    "\n",
    "a < b",
    "<tool",
    "<tool_cal",
    "<tool_call>",
    "</tool_call>",
    "<func",
    "<param",
    "</parameter>",
    "<thi",
    "</",
    "<|im",
    "<｜tool▁calls▁begin｜>",
    "<|channel|>",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "end",
];

/// Reasoning words: prose, plus call markup (reasoning text when `</think>` follows).
const THOUGHTS: &[&str] = &[
    "hmm",
    " ",
    "\n",
    "<tool_call>",
    "<function=f>",
    "{",
    "é",
    "😀",
    "<|im",
    "<tool",
];

/// Raw text inside XML string values: quotes, backslashes, braces, newlines, and literal closers that
/// are not followed by a tag.
const RAW: &[&str] = &[
    "plain",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "\n",
    "  ",
    "\t",
    "<tool_call>",
    "<function=y>",
    "{\"a\": 1}",
    "北京",
    "😀",
    "02134",
    "true",
    "</tool_call>",
    "<|im_end|>",
    "<｜tool▁call▁end｜>",
    "<|call|>",
    "</parameter>x",
    "a</parameter> b",
];

/// Huge values leave out the literal closers (the last two of [`RAW`]): each one costs a scan of the
/// rest of the text (known issue `tagged-closer-follower-scan`), so a megabyte of them takes minutes.
const HUGE_RAW: usize = RAW.len() - 2;

const PLAIN_TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
const THINK_OFF: &str =
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
const FORCED_OPEN: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";

/// The registry parsers this grammar writes outputs for.
pub const PARSERS: &[&str] = &[
    "qwen2.5",
    "qwen3",
    "qwen3-thinking",
    "qwen3-instruct-2507",
    "qwen3-coder",
    "qwen3.5",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Hermes,
    Xml,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Thinking {
    None,
    ModelOpened,
    /// The prompt (or `enable_thinking`) opened `<think>`; the output only closes it.
    ForcedOpen,
}

/// The request's tools for XML calls: every name takes `s` (string), `n` (integer), `b` (boolean), `o`
/// (object); other parameters are undeclared and stay strings.
pub fn schema() -> Value {
    Value::Array(
        NAMES
            .iter()
            .map(|name| {
                serde_json::json!({"type": "function", "function": {"name": name, "parameters": {
                    "type": "object", "properties": {
                        "s": {"type": "string"}, "n": {"type": "integer"},
                        "b": {"type": "boolean"}, "o": {"type": "object"}}}}})
            })
            .collect(),
    )
}

/// A well-formed Qwen output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let format = if rng.chance(50) {
        Format::Hermes
    } else {
        Format::Xml
    };
    let (parser, thinking, tail, flag) = match (format, rng.below(5)) {
        (Format::Hermes, 0) => ("qwen3", Thinking::ModelOpened, PLAIN_TAIL, None),
        (Format::Hermes, 1) => ("qwen3", Thinking::None, THINK_OFF, None),
        (Format::Hermes, 2) => ("qwen3-thinking", Thinking::ForcedOpen, FORCED_OPEN, None),
        (Format::Hermes, 3) => {
            if rng.chance(50) {
                ("qwen3", Thinking::ForcedOpen, "", Some(true))
            } else {
                ("qwen3", Thinking::None, "", Some(false))
            }
        }
        (Format::Hermes, _) => (
            ["qwen2.5", "qwen3-instruct-2507"][rng.below(2)],
            Thinking::None,
            PLAIN_TAIL,
            None,
        ),
        (Format::Xml, 0) => ("qwen3-coder", Thinking::ModelOpened, PLAIN_TAIL, None),
        (Format::Xml, 1) => ("qwen3-coder", Thinking::None, PLAIN_TAIL, None),
        (Format::Xml, 2) => ("qwen3.5", Thinking::ForcedOpen, FORCED_OPEN, None),
        (Format::Xml, 3) => ("qwen3-coder", Thinking::ForcedOpen, "", Some(true)),
        (Format::Xml, _) => ("qwen3.5", Thinking::None, THINK_OFF, None),
    };
    let mut setup = Setup::named(parser);
    if !tail.is_empty() {
        setup.prompt_tail = Some(tail.to_owned());
    }
    setup.enable_thinking = flag;
    if format == Format::Xml {
        setup.tools = Some(schema());
    }
    let mut g = Generated {
        setup,
        text: String::new(),
        expected: Expected::default(),
    };
    if thinking != Thinking::None {
        // A call block while reasoning is open, ending the output: a call. Its reasoning holds no
        // call markup (an opener left open just before the block would be part of it), and the block
        // no `</think>` (reasoning is read before calls).
        let open_block = rng.chance(10);
        let count = 1 + rng.below(12);
        let pool = if open_block { &THOUGHTS[..3] } else { THOUGHTS };
        g.expected.reasoning = format!("I think {}", words(rng, pool, count));
        if thinking == Thinking::ModelOpened {
            g.text.push_str("<think>\n");
        }
        g.text.push_str(&g.expected.reasoning);
        if open_block {
            let (mut text, mut calls) = (String::new(), Vec::new());
            block(rng, format, scale, &mut text, &mut calls);
            // End-of-sequence tokens are dropped from reasoning before a held block is read.
            super::scrub(
                &mut text,
                &mut calls,
                &[
                    ("</think>", "</th ink>"),
                    ("<|im_end|>", "<|im end|>"),
                    ("<|endoftext|>", "<|end of text|>"),
                ],
            );
            g.text.push_str(&text);
            g.expected.calls = calls;
            return g;
        }
        g.text.push_str("\n</think>\n\n");
    }
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(4)
    };
    // Whether the output ends with a `<tool_call>` block's closer.
    let mut ends_in_block = false;
    for _ in 0..segments {
        if rng.chance(60) {
            let count = rng.below(8);
            let text = format!("ok{}", words(rng, PROSE, count));
            g.expected.content.push_str(&text);
            g.text.push_str(&text);
            ends_in_block = false;
        }
        if rng.chance(70) || scale != Scale::default() {
            // A bare `<function=` right after a `<tool_call>` in the prose would join it.
            let after_opener = g.text.trim_end().ends_with("<tool_call>");
            let mut calls = Vec::new();
            let wrapped = block_after(rng, format, scale, &mut g.text, &mut calls, after_opener);
            g.expected.calls.extend(calls);
            ends_in_block = wrapped;
            // Whitespace between two calls outside a `<tool_call>` block is framing, not content.
            if wrapped && rng.chance(50) {
                g.expected.content.push('\n');
                g.text.push('\n');
                ends_in_block = false;
            }
        }
    }
    let end_token = rng.chance(30);
    if !end_token && ends_in_block && rng.chance(20) {
        // Issue 18: the output ends missing the block's `</tool_call>`, or inside it: the calls are
        // complete, and no fragment of the closer is content.
        const CLOSER: &str = "</tool_call>";
        if let Some(cut) = g.text.strip_suffix(CLOSER).map(str::len) {
            g.text.truncate(cut);
            if rng.chance(60) {
                g.text.push_str(&CLOSER[..rng.below(CLOSER.len())]);
            }
        }
    }
    if end_token {
        g.text
            .push_str(["<|im_end|>", "<|endoftext|>"][rng.below(2)]);
    }
    g
}

/// One call block of a random format (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let format = if rng.chance(50) {
        Format::Hermes
    } else {
        Format::Xml
    };
    let mut text = String::new();
    block(rng, format, Scale::default(), &mut text, &mut Vec::new());
    text
}

fn block(
    rng: &mut Rng,
    format: Format,
    scale: Scale,
    text: &mut String,
    calls: &mut Vec<ExpectedCall>,
) -> bool {
    block_after(rng, format, scale, text, calls, false)
}

/// Writes one call block; false when it is a bare `<function=…>` call without the `<tool_call>`
/// wrapper (never when `must_wrap`).
fn block_after(
    rng: &mut Rng,
    format: Format,
    scale: Scale,
    text: &mut String,
    calls: &mut Vec<ExpectedCall>,
    must_wrap: bool,
) -> bool {
    match format {
        Format::Hermes => {
            let count = if scale.many_calls > 0 {
                scale.many_calls
            } else if rng.chance(15) {
                2
            } else {
                1
            };
            let sep = ["\n", "", " "][rng.below(3)];
            text.push_str("<tool_call>");
            for n in 0..count {
                let name = rng.pick(NAMES);
                let huge = if n == 0 { scale.huge_value } else { 0 };
                let args = arguments(rng, JSON_STRINGS, huge);
                let written = if rng.chance(25) {
                    // Arguments as a JSON-encoded string: decoded as they stream.
                    format!("\"{}\"", escape(&args))
                } else {
                    args.clone()
                };
                let key = if rng.chance(10) {
                    "parameters"
                } else {
                    "arguments"
                };
                let object = if rng.chance(20) {
                    format!("{{\"{key}\": {written}, \"name\": \"{name}\"}}")
                } else {
                    format!("{{\"name\": \"{name}\", \"{key}\": {written}}}")
                };
                text.push_str(sep);
                text.push_str(&object);
                calls.push(ExpectedCall {
                    name: name.to_owned(),
                    arguments: args,
                    as_json: false,
                    id: None,
                });
            }
            text.push_str(sep);
            text.push_str("</tool_call>");
            true
        }
        Format::Xml => {
            let wrapped = rng.chance(80) || must_wrap || scale.many_calls > 0;
            if wrapped {
                text.push_str("<tool_call>\n");
            }
            let count = if wrapped {
                call_count(rng, scale, 3)
            } else {
                1
            };
            for n in 0..count {
                let name = rng.pick(NAMES);
                text.push_str(&format!("<function={name}>\n"));
                let mut args = serde_json::Map::new();
                for key in ["s", "n", "b", "o", "extra", "名前"] {
                    if !rng.chance(50) {
                        continue;
                    }
                    let (raw, value) = match key {
                        "n" => {
                            // Integers as Python's `int()` reads them (issue 18): leading zeros and
                            // a plus sign are allowed.
                            let n = rng.next_u64() % 100_000;
                            let prefix = ["", "", "", "0", "00", "+", "+0"][rng.below(7)];
                            (format!("{prefix}{n}"), Value::from(n))
                        }
                        "b" => {
                            let b = rng.chance(50);
                            let raw =
                                [["false", "False"], ["true", "True"]][b as usize][rng.below(2)];
                            (raw.to_owned(), Value::from(b))
                        }
                        "o" => {
                            static STRINGS: OnceLock<Vec<&str>> = OnceLock::new();
                            let strings = STRINGS.get_or_init(|| {
                                super::json_strings_without(&["</parameter>", "</function>"])
                            });
                            let text = json_object(rng, strings, 1);
                            let value = serde_json::from_str(&text).unwrap_or(Value::Null);
                            (text, value)
                        }
                        _ => {
                            let count = 1 + rng.below(4);
                            let mut text = words(rng, RAW, count);
                            if n == 0 && key == "s" && scale.huge_value > 0 {
                                text = super::huge_text(rng, &RAW[..HUGE_RAW], scale.huge_value);
                            }
                            if rng.chance(10) {
                                text.push_str(rng.pick(UNICODE));
                            }
                            (text.clone(), Value::from(text))
                        }
                    };
                    text.push_str(&format!("<parameter={key}>\n{raw}\n</parameter>\n"));
                    args.insert(key.to_owned(), value);
                }
                text.push_str("</function>");
                if wrapped {
                    text.push('\n');
                }
                calls.push(ExpectedCall {
                    name: name.to_owned(),
                    arguments: Value::Object(args).to_string(),
                    as_json: true,
                    id: None,
                });
            }
            if wrapped {
                text.push_str("</tool_call>");
            }
            wrapped
        }
    }
}

/// Another Qwen parser or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(60) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    if rng.chance(30) {
        other.prompt_tail = Some([PLAIN_TAIL, THINK_OFF, FORCED_OPEN][rng.below(3)].to_owned());
    }
    if rng.chance(30) {
        other.tools = if other.tools.is_some() {
            None
        } else {
            Some(schema())
        };
    }
    other
}
