//! GLM outputs: GLM-4.5 / 4.6 (the model opens `<think>`, newline-formatted calls) and GLM-4.7 / 5
//! (reasoning forced open by the prompt, compact calls); `<tool_call>NAME<arg_key>K</arg_key>
//! <arg_value>V</arg_value></tool_call>` with values as the template writes them (strings as is,
//! anything else as JSON), typed by the tool schema when there is one.

use std::sync::OnceLock;

use parser_core::testing::Rng;
use serde_json::Value;

use super::{Generated, NAMES, Scale, UNICODE, call_count, json_object, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

const TOOL_CALL_END: &str = "</tool_call>";

/// Prose: words, and markers that stay text where they stand.
const PROSE: &[&str] = &[
    "the",
    "weather",
    "is",
    " ",
    "\n",
    "a < b",
    "<tool",
    "<arg",
    "</arg_value>",
    "<thi",
    "</",
    "<|",
    "<|assis",
    "<｜tool▁calls▁begin｜>",
    "<|channel|>",
    "北京",
    "😀",
    "é",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
];

/// Reasoning words.
const THOUGHTS: &[&str] = &["hmm", " ", "\n", "é", "😀", "<tool", "<arg_key>", "{"];

/// Raw text of string values: quotes, braces, newlines, literal closers not followed by a tag.
const RAW: &[&str] = &[
    "plain",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "\n",
    " ",
    "\t",
    "<arg_val",
    "{\"a\": 1}",
    "北京",
    "😀",
    "02134",
    "true",
    "<function=f>",
    "<|call|>",
    "</arg_value>x",
    "a</arg_value> b",
];

/// Huge values leave out the literal closers (the last two of [`RAW`]): each one costs a scan of the
/// rest of the text (known issue `tagged-closer-follower-scan`), so a megabyte of them takes minutes.
const HUGE_RAW: usize = RAW.len() - 2;

/// The registry parsers this grammar writes outputs for.
pub const PARSERS: &[&str] = &["glm-4.5", "glm-4.7"];

/// The request's tools: every name takes `s` (string), `n` (integer), `b` (boolean), `o` (object).
fn schema() -> Value {
    super::qwen::schema()
}

/// A well-formed GLM output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let parser = rng.pick(PARSERS);
    let compact = if rng.chance(80) {
        parser == "glm-4.7"
    } else {
        parser == "glm-4.5"
    };
    let mut setup = Setup::named(parser);
    let typed = rng.chance(50);
    if typed {
        setup.tools = Some(schema());
    }
    // (reasoning at all, the model writes `<think>` itself)
    let (reasoning, model_opens) = match (parser, rng.below(3)) {
        ("glm-4.5", 0) => {
            setup.prompt_tail = Some("<|user|>\nHi<|assistant|>\n<think></think>".to_owned());
            (false, false)
        }
        ("glm-4.5", 1) => {
            setup.prompt_tail = Some("<|user|>\nHi<|assistant|>".to_owned());
            (false, false)
        }
        ("glm-4.5", _) => {
            setup.prompt_tail = Some("<|user|>\nHi<|assistant|>".to_owned());
            (true, true)
        }
        (_, 0) => {
            setup.prompt_tail = Some("<|user|>Hi<|assistant|></think>".to_owned());
            (false, false)
        }
        (_, 1) => {
            setup.enable_thinking = Some(true);
            (true, false)
        }
        _ => {
            setup.prompt_tail = Some("<|user|>Hi<|assistant|><think>".to_owned());
            (true, false)
        }
    };
    let mut g = Generated {
        setup,
        text: String::new(),
        expected: Expected::default(),
    };
    if reasoning {
        if model_opens {
            g.text.push_str("\n<think>");
        }
        let count = 1 + rng.below(10);
        g.expected.reasoning = format!("I think {}", words(rng, THOUGHTS, count));
        g.text.push_str(&g.expected.reasoning);
        g.text.push_str("</think>");
        if !compact {
            g.text.push('\n');
            g.expected.content.push('\n');
        }
    }
    // Whether the output ends with a call (the last segment wrote a block).
    let mut ends_in_call = false;
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(3)
    };
    for _ in 0..segments {
        if rng.chance(60) {
            let count = rng.below(8);
            let text = format!("ok{}.", words(rng, PROSE, count));
            ends_in_call = false;
            g.expected.content.push_str(&text);
            g.text.push_str(&text);
            if !compact {
                g.text.push('\n');
                g.expected.content.push('\n');
            }
        }
        if rng.chance(70) || scale != Scale::default() {
            let calls = block(
                rng,
                scale,
                compact,
                typed,
                &mut g.text,
                &mut g.expected.calls,
            );
            // The newline after each `</tool_call>` is content, as any text between calls.
            if !compact {
                g.expected.content.push_str(&"\n".repeat(calls));
            }
            ends_in_call = true;
        }
    }
    let end_token = rng.chance(20);
    if !end_token && ends_in_call && rng.chance(20) {
        cut_last_closer(rng, compact, &mut g);
    }
    if end_token {
        g.text
            .push_str(rng.pick(&["<|endoftext|>", "<|user|>", "<|observation|>"]));
    }
    g
}

/// The output ends with its last call missing `</tool_call>`, or cut inside it (issue 18): a call with at
/// least one argument is still complete and valid, and no fragment of the closer reaches its arguments.
fn cut_last_closer(rng: &mut Rng, compact: bool, g: &mut Generated) {
    let closer = if compact {
        TOOL_CALL_END.to_owned()
    } else {
        format!("{TOOL_CALL_END}\n")
    };
    let has_arguments = g
        .expected
        .calls
        .last()
        .is_some_and(|call| call.arguments != "{}");
    if !has_arguments || !g.text.ends_with(&closer) {
        return;
    }
    g.text.truncate(g.text.len() - closer.len());
    if !compact {
        // The newline after the closer was content.
        g.expected.content.pop();
    }
    if rng.chance(60) {
        g.text
            .push_str(&TOOL_CALL_END[..rng.below(TOOL_CALL_END.len())]);
    }
}

/// One call (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    let compact = rng.chance(50);
    block(
        rng,
        Scale::default(),
        compact,
        false,
        &mut text,
        &mut Vec::new(),
    );
    text
}

/// Writes one or more calls (one `<tool_call>` each).
fn block(
    rng: &mut Rng,
    scale: Scale,
    compact: bool,
    typed: bool,
    text: &mut String,
    calls: &mut Vec<ExpectedCall>,
) -> usize {
    static STRINGS: OnceLock<Vec<&str>> = OnceLock::new();
    let strings =
        STRINGS.get_or_init(|| super::json_strings_without(&["</arg_value>", "</tool_call>"]));
    let nl = if compact { "" } else { "\n" };
    let count = call_count(rng, scale, 2);
    for n in 0..count {
        let name = rng.pick(NAMES);
        text.push_str(&format!("<tool_call>{name}{nl}"));
        let mut args = serde_json::Map::new();
        // Keys end only at `</arg_key>`: `<`, `>` and `&` are part of them (issue 18).
        for key in ["s", "n", "b", "o", "extra", "名前", "p<1>", "x>y", "a&b"] {
            if !rng.chance(50) {
                continue;
            }
            let (raw, value) = match key {
                "n" => {
                    let n = rng.next_u64() % 100_000;
                    let value = if typed {
                        Value::from(n)
                    } else {
                        Value::from(n.to_string())
                    };
                    (n.to_string(), value)
                }
                "b" => {
                    let b = rng.chance(50);
                    let raw = if b { "true" } else { "false" };
                    let value = if typed {
                        Value::from(b)
                    } else {
                        Value::from(raw)
                    };
                    (raw.to_owned(), value)
                }
                "o" => {
                    let raw = json_object(rng, strings, 1);
                    let value = if typed {
                        serde_json::from_str(&raw).unwrap_or(Value::Null)
                    } else {
                        Value::from(raw.clone())
                    };
                    (raw, value)
                }
                _ => {
                    let count = 1 + rng.below(4);
                    let mut raw = words(rng, RAW, count);
                    if n == 0 && key == "s" && scale.huge_value > 0 {
                        raw = super::huge_text(rng, &RAW[..HUGE_RAW], scale.huge_value);
                    }
                    if rng.chance(10) {
                        raw.push_str(rng.pick(UNICODE));
                    }
                    (raw.clone(), Value::from(raw))
                }
            };
            text.push_str(&format!(
                "<arg_key>{key}</arg_key>{nl}<arg_value>{raw}</arg_value>{nl}"
            ));
            args.insert(key.to_owned(), value);
        }
        text.push_str("</tool_call>");
        text.push_str(nl);
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: Value::Object(args).to_string(),
            as_json: true,
            id: None,
        });
    }
    count
}

/// Another GLM parser or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(60) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    if rng.chance(30) {
        other.tools = if other.tools.is_some() {
            None
        } else {
            Some(schema())
        };
    }
    if rng.chance(30) {
        other.prompt_tail = Some(
            [
                "<|assistant|><think>",
                "<|assistant|></think>",
                "<|assistant|>",
                "<|assistant|>\n<think></think>",
            ][rng.below(4)]
            .to_owned(),
        );
    }
    other
}
