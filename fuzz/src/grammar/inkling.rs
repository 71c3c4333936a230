//! Inkling outputs (`parser-inkling`), with their oracle: a sequence of blocks in any order — a
//! `<|message_model|>` header (the prompt writes the first one) with optional metadata, a content kind,
//! a body and an end — thinking blocks (reasoning), text, raw-invocation and tool-error blocks
//! (content), and JSON call blocks whose `"args"` (or `"arguments"`) stream as written.

use parser_core::testing::Rng;

use super::{Generated, JSON_STRINGS, NAMES, Scale, arguments, call_count, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// The registry parser.
pub const PARSER: &str = "inkling";

const MESSAGE_MODEL: &str = "<|message_model|>";
const END_MESSAGE: &str = "<|end_message|>";
const END_SAMPLING: &str = "<|content_model_end_sampling|>";

/// Prose: words, unicode, and the starts of the format's tokens without being one.
const PROSE: &[&str] = &[
    "the",
    "weather",
    " ",
    "\n",
    "a < b",
    "<|",
    "<|content",
    "<|end_mess",
    "<|message_",
    "content_text",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "<think>",
    "<tool_call>",
    "end",
];

/// A well-formed Inkling output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let setup = Setup::named(PARSER).with_tail(MESSAGE_MODEL);
    let mut expected = Expected::default();
    let mut text = String::new();
    let blocks = if scale != Scale::default() {
        1
    } else {
        1 + rng.below(6)
    };
    for n in 0..blocks {
        // The prompt wrote the first header.
        if n > 0 {
            text.push_str(MESSAGE_MODEL);
        }
        let kind = if scale != Scale::default() {
            3
        } else {
            rng.below(6)
        };
        if kind == 3 {
            call_blocks(rng, scale, &mut text, &mut expected.calls);
            continue;
        }
        let count = 1 + rng.below(8);
        let body = format!("b{n} {}", words(rng, PROSE, count));
        match kind {
            0 => {
                text.push_str("<|content_thinking|>");
                expected.reasoning.push_str(&body);
            }
            1 | 2 => {
                text.push_str("<|content_text|>");
                expected.content.push_str(&body);
            }
            4 => {
                text.push_str("<|content_invoke_tool_text|>");
                expected.content.push_str(&body);
            }
            _ => {
                text.push_str("<|content_tool_error|>");
                expected.content.push_str(&body);
            }
        }
        text.push_str(&body);
        text.push_str(if n + 1 == blocks && rng.chance(30) {
            END_SAMPLING
        } else {
            END_MESSAGE
        });
    }
    Generated {
        setup,
        text,
        expected,
    }
}

/// One call block (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::from(MESSAGE_MODEL);
    call_blocks(rng, Scale::default(), &mut text, &mut Vec::new());
    text
}

/// Other request options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(40) {
        other.prompt_tail = [
            None,
            Some("<|message_model|><|content_thinking|>"),
            Some("<|message_model|><|content_text|>"),
        ][rng.below(3)]
        .map(str::to_owned);
    }
    other
}

/// Writes one or more call blocks (after the first one's header).
fn call_blocks(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    let count = call_count(rng, scale, 2);
    for n in 0..count {
        // The caller (or the prompt) wrote the first block's header.
        if n > 0 {
            text.push_str(MESSAGE_MODEL);
        }
        let name = rng.pick(NAMES);
        if rng.chance(70) {
            text.push_str(name);
        }
        let huge = if n == 0 { scale.huge_value } else { 0 };
        let args = arguments(rng, JSON_STRINGS, huge);
        let field = if rng.chance(80) { "args" } else { "arguments" };
        text.push_str(&format!(
            "<|content_invoke_tool_json|>{{\"name\": \"{name}\", \"{field}\": {args}}}"
        ));
        text.push_str(END_MESSAGE);
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: args,
            as_json: false,
            id: None,
        });
    }
}
