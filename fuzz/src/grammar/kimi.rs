//! Kimi outputs: K2 (no reasoning), K2-Thinking (always on), K2.5 (as the prompt says), Kimi-VL
//! (`◁think▷`); call sections in both spellings, compact or newline-formatted, or calls with no section;
//! ids `functions.NAME:IDX` (or `NAME:IDX`) returned byte-exact. And one output in five is Kimi K3's
//! ([`super::kimi_k3`]).

use parser_core::testing::Rng;

use super::{Generated, JSON_STRINGS, NAMES, Scale, arguments, call_count, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// Prose: words, and text that looks like the start of a marker without being one.
const PROSE: &[&str] = &[
    "the",
    "weather",
    "is",
    " ",
    " ",
    "\n",
    "a < b",
    "<|",
    "<|tool",
    "<|tool_call",
    "<|im",
    "<thi",
    "</",
    "◁",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "functions.f:0",
    "<｜tool▁calls▁begin｜>",
    "<tool_call>",
    "<|channel|>",
    "end",
];

const TURN: &str = "<|im_user|>user<|im_middle|>Hi<|im_end|><|im_assistant|>assistant<|im_middle|>";
const K25_ON: &str = "<|im_assistant|>assistant<|im_middle|><think>";
const K25_OFF: &str = "<|im_assistant|>assistant<|im_middle|><think></think>";

/// The registry parsers this grammar writes outputs for.
pub const PARSERS: &[&str] = &["kimi-k2", "kimi-k2-thinking", "kimi-k2.5", "kimi-vl"];

/// A well-formed Kimi output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    if rng.chance(20) {
        return super::kimi_k3::generate(rng, scale);
    }
    let parser = rng.pick(PARSERS);
    let thinking = parser != "kimi-k2" && rng.chance(70);
    let tail = match parser {
        "kimi-k2.5" if thinking => K25_ON,
        "kimi-k2.5" => K25_OFF,
        "kimi-k2-thinking" if !thinking => "<|im_assistant|>assistant<|im_middle|><think></think>",
        _ => TURN,
    };
    let (open, close) = if parser == "kimi-vl" {
        ("◁think▷", "◁/think▷")
    } else {
        ("<think>", "</think>")
    };
    let mut g = Generated {
        setup: Setup::named(parser).with_tail(tail),
        text: String::new(),
        expected: Expected::default(),
    };
    // Reasoning that a call section ends, without a closer.
    let mut section_ends_reasoning = false;
    if thinking {
        // K2-Thinking and VL write the opener; K2.5's prompt holds it.
        if parser == "kimi-vl" || (parser == "kimi-k2-thinking" && rng.chance(70)) {
            g.text.push_str(open);
        }
        let count = 1 + rng.below(12);
        g.expected.reasoning = format!("I think{}", words(rng, PROSE, count));
        g.text.push_str(&g.expected.reasoning);
        if rng.chance(25) {
            section_ends_reasoning = true;
        } else {
            g.text.push_str(close);
        }
    }
    let mut index = 0;
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(4)
    };
    for n in 0..segments {
        if !(n == 0 && section_ends_reasoning) && rng.chance(60) {
            let count = rng.below(8);
            let text = format!("ok{}", words(rng, PROSE, count));
            g.expected.content.push_str(&text);
            g.text.push_str(&text);
        }
        if (n == 0 && section_ends_reasoning) || rng.chance(70) || scale != Scale::default() {
            block(rng, scale, &mut g.text, &mut g.expected.calls, &mut index);
        }
    }
    if rng.chance(20) {
        g.text.push_str("<|im_end|>");
    }
    g
}

/// One call section (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    let mut index = rng.below(3);
    block(
        rng,
        Scale::default(),
        &mut text,
        &mut Vec::new(),
        &mut index,
    );
    text
}

fn block(
    rng: &mut Rng,
    scale: Scale,
    text: &mut String,
    calls: &mut Vec<ExpectedCall>,
    index: &mut usize,
) {
    let count = call_count(rng, scale, 3);
    let sectioned = rng.chance(85) || scale.many_calls > 0;
    let nl = if rng.chance(50) { "\n" } else { "" };
    if sectioned {
        text.push_str(
            [
                "<|tool_calls_section_begin|>",
                "<|tool_call_section_begin|>",
            ][rng.below(2)],
        );
        text.push_str(nl);
    }
    for n in 0..count {
        let name = rng.pick(NAMES);
        let id = if rng.chance(80) {
            format!("functions.{name}:{index}")
        } else {
            format!("{name}:{index}")
        };
        *index += 1;
        let huge = if n == 0 { scale.huge_value } else { 0 };
        let args = arguments(rng, JSON_STRINGS, huge);
        let pad = [" ", "", "\n"][rng.below(3)];
        text.push_str(&format!(
            "<|tool_call_begin|>{pad}{id}{pad}<|tool_call_argument_begin|>{pad}{args}{pad}"
        ));
        // The call end may be left out before the next call.
        if n + 1 == count || rng.chance(90) {
            text.push_str("<|tool_call_end|>");
        }
        if sectioned {
            text.push_str(nl);
        }
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: args,
            as_json: false,
            id: Some(id),
        });
    }
    if sectioned {
        text.push_str(["<|tool_calls_section_end|>", "<|tool_call_section_end|>"][rng.below(2)]);
    }
}

/// Another Kimi parser or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(60) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    if rng.chance(30) {
        other.prompt_tail = Some([TURN, K25_ON, K25_OFF][rng.below(3)].to_owned());
    }
    if rng.chance(20) {
        other.enable_thinking = Some(rng.chance(50));
    }
    if rng.chance(20) {
        // One tool: a bare counter id names it.
        other.tools = Some(serde_json::json!([{"type": "function", "function": {
            "name": "get_weather", "parameters": {"type": "object", "properties": {}}}}]));
    }
    other
}
