//! DeepSeek outputs: R1 / V3 (native calls, fenced JSON), V3.1 (native calls, bare JSON), V3.2 / V4
//! (DSML), reasoning by prompt tail, `enable_thinking` or the model's default.

use std::sync::OnceLock;

use parser_core::testing::Rng;

use super::{
    Generated, JSON_STRINGS, NAMES, Scale, UNICODE, arguments, call_count, escape, scrub, words,
};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// The registry parsers this grammar writes outputs for.
pub const PARSERS: &[&str] = &[
    "deepseek-r1",
    "deepseek-v3",
    "deepseek-v3.1",
    "deepseek-v3.2",
    "deepseek-v4",
    "deepseek-v4.1",
];

/// Prose: words, whitespace, unicode, and text that looks like the start of a marker without being one
/// (plus other families' markers, which are text here).
const PROSE: &[&str] = &[
    "the",
    "weather",
    "is",
    " ",
    " ",
    "\n",
    "a < b",
    "<｜",
    "<｜tool",
    "<thi",
    "</",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "<｜DSML",
    "```",
    "<|im_end|>",
    "<|channel|>",
    "<|tool_call_begin|>",
    "</tool_call>",
    "<function=f>",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "end",
];

/// Raw text of DSML string parameters: anything but the parameter's closer.
const RAW: &[&str] = &[
    "plain",
    " ",
    "\n",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "{\"a\": 1}",
    "a < b",
    "<｜",
    "<｜DSML",
    "</｜DSML",
    "</think>",
    "<｜tool▁call▁end｜>",
    "02134",
    "true",
    "北京",
    "😀",
    "\t",
];

const USER: &str = "<｜User｜>Weather?";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Fenced,
    Bare,
    Dsml {
        block: &'static str,
        end: &'static str,
        /// Written after `｜DSML｜` before each tag name: V4.1 spells every tag with a space.
        space: &'static str,
    },
}

const FUNCTION_CALLS: Shape = Shape::Dsml {
    block: "<｜DSML｜function_calls>",
    end: "</｜DSML｜function_calls>",
    space: "",
};
const TOOL_CALLS: Shape = Shape::Dsml {
    block: "<｜DSML｜tool_calls>",
    end: "</｜DSML｜tool_calls>",
    space: "",
};
const SPACED_CALLS: Shape = Shape::Dsml {
    block: "<｜DSML｜ calls>",
    end: "</｜DSML｜ calls>",
    space: " ",
};

/// A well-formed DeepSeek output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let parser = rng.pick(PARSERS);
    let shape = match parser {
        "deepseek-r1" | "deepseek-v3" => {
            if rng.chance(15) {
                Shape::Bare
            } else {
                Shape::Fenced
            }
        }
        "deepseek-v3.1" => {
            if rng.chance(15) {
                Shape::Fenced
            } else {
                Shape::Bare
            }
        }
        "deepseek-v3.2" => {
            if rng.chance(20) {
                TOOL_CALLS
            } else {
                FUNCTION_CALLS
            }
        }
        "deepseek-v4.1" => SPACED_CALLS,
        _ => {
            if rng.chance(20) {
                FUNCTION_CALLS
            } else {
                TOOL_CALLS
            }
        }
    };
    let mut setup = Setup::named(parser);
    let default_reasoning = parser == "deepseek-r1";
    // Where the output starts, and whether the model writes `<think>` itself.
    let (reasoning_stage, model_opens) = match rng.below(6) {
        0 => {
            setup.prompt_tail = Some(format!(
                "{USER}<｜Assistant｜><think>{}",
                ["", "\n"][rng.below(2)]
            ));
            (true, false)
        }
        1 => {
            setup.prompt_tail = Some(format!("{USER}<｜Assistant｜></think>"));
            (false, false)
        }
        2 => {
            setup.prompt_tail = Some(format!("{USER}<｜Assistant｜>"));
            (default_reasoning, true)
        }
        3 => {
            let on = rng.chance(50);
            setup.enable_thinking = Some(on);
            (on, false)
        }
        _ => (default_reasoning, default_reasoning && rng.chance(30)),
    };
    let mut text = String::new();
    let mut expected = Expected::default();
    // Reasoning left open by a call block that ends the output (a call, DESIGN §4.8).
    let open_reasoning_block = reasoning_stage && rng.chance(10);
    if reasoning_stage || model_opens {
        if model_opens {
            if rng.chance(20) {
                text.push('\n');
            }
            text.push_str("<think>");
        }
        let count = 1 + rng.below(12);
        expected.reasoning = format!("I think {}", words(rng, PROSE, count));
        if rng.chance(10) {
            // A whole call block inside reasoning that goes on: reasoning text. (Reasoning is read
            // before calls: a `</think>` inside the block's JSON strings would end it.)
            let mut nested = block_text(rng, shape);
            scrub(&mut nested, &mut [], &[("</think>", "</th ink>")]);
            expected.reasoning.push_str(&nested);
            expected.reasoning.push_str(" so ");
        }
        text.push_str(&expected.reasoning);
        if open_reasoning_block {
            let mut block_text = String::new();
            let mut calls = block(rng, shape, scale, &mut block_text);
            scrub(&mut block_text, &mut calls, &[("</think>", "</th ink>")]);
            text.push_str(&block_text);
            expected.calls = calls;
            return Generated {
                setup,
                text,
                expected,
            };
        }
        text.push_str("</think>");
        if rng.chance(30) {
            text.push_str("\n\n");
        }
    }
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(4)
    };
    for _ in 0..segments {
        if rng.chance(60) {
            let count = rng.below(8);
            let prose = format!("ok {}", words(rng, PROSE, count));
            expected.content.push_str(&prose);
            text.push_str(&prose);
        }
        if rng.chance(70) || scale != Scale::default() {
            let calls = block(rng, shape, scale, &mut text);
            expected.calls.extend(calls);
            if rng.chance(30) {
                // After a call with no section around it, whitespace is framing (as between the
                // calls of a section); after a section or DSML block, it is content.
                if !text.ends_with("<｜tool▁call▁end｜>") {
                    expected.content.push('\n');
                }
                text.push('\n');
            }
        }
    }
    if rng.chance(20) {
        text.push_str("<｜end▁of▁sentence｜>");
    }
    Generated {
        setup,
        text,
        expected,
    }
}

/// One call block of a random shape (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let shape = [
        Shape::Fenced,
        Shape::Bare,
        FUNCTION_CALLS,
        TOOL_CALLS,
        SPACED_CALLS,
    ][rng.below(5)];
    block_text(rng, shape)
}

fn block_text(rng: &mut Rng, shape: Shape) -> String {
    let mut text = String::new();
    block(rng, shape, Scale::default(), &mut text);
    text
}

/// Writes one call block; returns its calls.
fn block(rng: &mut Rng, shape: Shape, scale: Scale, text: &mut String) -> Vec<ExpectedCall> {
    let count = call_count(rng, scale, 3);
    let huge_at = (scale.huge_value > 0).then(|| rng.below(count));
    let mut calls = Vec::new();
    match shape {
        Shape::Fenced | Shape::Bare => {
            let sectioned = rng.chance(90);
            if sectioned {
                text.push_str(if rng.chance(90) {
                    "<｜tool▁calls▁begin｜>"
                } else {
                    rng.pick(&[
                        "<｜tool_calls_begin｜>",
                        "<｜tool calls begin｜>",
                        "<｜tool\\_calls\\_begin｜>",
                        "<｜tool▁calls｜>",
                    ])
                });
                if rng.chance(20) {
                    text.push('\n');
                }
            }
            for n in 0..count {
                let name = rng.pick(NAMES);
                let huge = if huge_at == Some(n) {
                    scale.huge_value
                } else {
                    0
                };
                let args = arguments(rng, JSON_STRINGS, huge);
                text.push_str("<｜tool▁call▁begin｜>");
                if shape == Shape::Fenced {
                    text.push_str(&format!(
                        "function<｜tool▁sep｜>{name}\n```json\n{args}\n```"
                    ));
                } else {
                    text.push_str(&format!("{name}<｜tool▁sep｜>{args}"));
                }
                // The call end may be left out before another call or the section end.
                if !sectioned || n + 1 == count || rng.chance(90) {
                    text.push_str("<｜tool▁call▁end｜>");
                }
                if sectioned && rng.chance(30) {
                    text.push('\n');
                }
                calls.push(ExpectedCall {
                    name: name.to_owned(),
                    arguments: args,
                    as_json: false,
                    id: None,
                });
            }
            if sectioned {
                text.push_str("<｜tool▁calls▁end｜>");
            }
        }
        Shape::Dsml { block, end, space } => {
            text.push_str(block);
            text.push('\n');
            for n in 0..count {
                let name = rng.pick(NAMES);
                text.push_str(&format!("<｜DSML｜{space}invoke name=\"{name}\">\n"));
                let mut members = Vec::new();
                for p in 0..rng.below(4) {
                    let key = ["p", "city", "名前", "q_2"][rng.below(4)];
                    let key = format!("{key}{p}");
                    if rng.chance(60) {
                        let count = 1 + rng.below(4);
                        let mut raw = words(rng, RAW, count);
                        if huge_at == Some(n) && p == 0 {
                            raw = super::huge_text(rng, RAW, scale.huge_value);
                        }
                        if rng.chance(10) {
                            raw.push_str(rng.pick(UNICODE));
                        }
                        text.push_str(&format!(
                            "<｜DSML｜{space}parameter name=\"{key}\" string=\"true\">{raw}</｜DSML｜{space}parameter>\n"
                        ));
                        members.push(format!("\"{}\": \"{}\"", escape(&key), escape(&raw)));
                    } else {
                        static STRINGS: OnceLock<Vec<&str>> = OnceLock::new();
                        let strings =
                            STRINGS.get_or_init(|| super::json_strings_without(&["DSML"]));
                        let value = super::json_value(rng, strings, 1);
                        text.push_str(&format!(
                            "<｜DSML｜{space}parameter name=\"{key}\" string=\"false\">{value}</｜DSML｜{space}parameter>\n"
                        ));
                        members.push(format!("\"{}\": {value}", escape(&key)));
                    }
                }
                text.push_str(&format!("</｜DSML｜{space}invoke>\n"));
                calls.push(ExpectedCall {
                    name: name.to_owned(),
                    arguments: format!("{{{}}}", members.join(", ")),
                    as_json: true,
                    id: None,
                });
            }
            text.push_str(end);
        }
    }
    calls
}

/// Another DeepSeek parser or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(60) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    if rng.chance(30) {
        other.prompt_tail = Some(
            [
                "<｜Assistant｜><think>",
                "<｜Assistant｜></think>",
                "<｜Assistant｜>",
                "<think>",
            ][rng.below(4)]
            .to_owned(),
        );
    }
    if rng.chance(20) {
        other.tools = Some(super::qwen::schema());
    }
    other
}
