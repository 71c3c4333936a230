//! Mistral outputs: v11+ calls (`[TOOL_CALLS]NAME[ARGS]{…}`, with or without `[CALL_ID]ID`, or without
//! `[ARGS]` as vLLM decodes them), v0.3 / Nemo JSON arrays (ids byte-exact), and Magistral's
//! `[THINK]…[/THINK]` reasoning.

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
    "[",
    "]",
    "[TOOL",
    "[TOOL_CALL",
    "[ARGS",
    "[/THI",
    "[THIN",
    "[INST",
    "</",
    "</s",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "[1, 2]",
    "<tool_call>",
    "<think>",
    "end",
];

const TAIL: &str = "[INST]Weather?[/INST]";
/// The registry parsers this grammar writes outputs for.
pub const PARSERS: &[&str] = &["mistral", "magistral", "mistral-v0.3"];
const ID_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn id(rng: &mut Rng) -> String {
    (0..9)
        .map(|_| char::from(ID_CHARS[rng.below(ID_CHARS.len())]))
        .collect()
}

/// A well-formed Mistral output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let parser = rng.pick(PARSERS);
    let mut g = Generated {
        setup: Setup::named(parser).with_tail(TAIL),
        text: String::new(),
        expected: Expected::default(),
    };
    if parser == "magistral" && rng.chance(70) {
        let count = 1 + rng.below(12);
        g.expected.reasoning = format!("I think{}", words(rng, PROSE, count));
        g.text
            .push_str(&format!("[THINK]{}[/THINK]", g.expected.reasoning));
    }
    let segments = if scale.many_calls > 0 || parser == "mistral-v0.3" {
        1
    } else {
        1 + rng.below(3)
    };
    for _ in 0..segments {
        if rng.chance(60) {
            let count = rng.below(8);
            let text = format!("ok{}", words(rng, PROSE, count));
            g.expected.content.push_str(&text);
            g.text.push_str(&text);
        }
        if rng.chance(75) || scale != Scale::default() {
            if parser == "mistral-v0.3" {
                array(rng, scale, &mut g.text, &mut g.expected.calls);
            } else {
                v11_calls(rng, scale, &mut g.text, &mut g.expected.calls);
            }
        }
    }
    if rng.chance(30) {
        g.text.push_str("</s>");
    }
    g
}

/// One call block (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    if rng.chance(70) {
        v11_calls(rng, Scale::default(), &mut text, &mut Vec::new());
    } else {
        array(rng, Scale::default(), &mut text, &mut Vec::new());
    }
    text
}

/// v11+ calls, each after its own `[TOOL_CALLS]`.
fn v11_calls(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    for n in 0..call_count(rng, scale, 3) {
        let name = rng.pick(NAMES);
        let huge = if n == 0 { scale.huge_value } else { 0 };
        let args = arguments(rng, JSON_STRINGS, huge);
        let call_id = rng.chance(40).then(|| id(rng));
        text.push_str("[TOOL_CALLS]");
        text.push_str(name);
        match &call_id {
            Some(call_id) => text.push_str(&format!("[CALL_ID]{call_id}[ARGS]")),
            None if rng.chance(85) => text.push_str("[ARGS]"),
            // vLLM decodes without [ARGS]: the name runs up to the `{`.
            None => {}
        }
        text.push_str(&args);
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: args,
            as_json: false,
            id: call_id,
        });
    }
}

/// A v0.3 / Nemo array of call objects.
fn array(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    let pad = [" ", "", "\n"][rng.below(3)];
    text.push_str(&format!("[TOOL_CALLS]{pad}["));
    for n in 0..call_count(rng, scale, 3) {
        if n > 0 {
            text.push_str([", ", ",", ",\n"][rng.below(3)]);
        }
        let name = rng.pick(NAMES);
        let huge = if n == 0 { scale.huge_value } else { 0 };
        let args = arguments(rng, JSON_STRINGS, huge);
        let call_id = rng.chance(60).then(|| id(rng));
        match &call_id {
            Some(call_id) => text.push_str(&format!(
                "{{\"name\": \"{name}\", \"arguments\": {args}, \"id\": \"{call_id}\"}}"
            )),
            None => text.push_str(&format!("{{\"name\": \"{name}\", \"arguments\": {args}}}")),
        }
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: args,
            as_json: false,
            id: call_id,
        });
    }
    text.push(']');
}

/// Another Mistral parser or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(60) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    if rng.chance(30) {
        other.prompt_tail =
            Some([TAIL, "[/INST][THINK]", "[/INST][THINK]x[/THINK]"][rng.below(3)].to_owned());
    }
    other
}
