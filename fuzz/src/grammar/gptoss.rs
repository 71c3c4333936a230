//! GPT-OSS harmony outputs: analysis, preambles, built-in tool messages, function calls with every header
//! shape (recipient in the channel or the role part, `<|constrain|>json`, ` json`, none), final answers;
//! with and without `<|start|>assistant`, explicit or implicit ends, and a prefilled prompt.

use parser_core::testing::Rng;

use super::{Generated, JSON_STRINGS, NAMES, Scale, arguments, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// Body words: prose, and text that looks like markers without being one that ends a body.
const PROSE: &[&str] = &[
    "the",
    "weather",
    "is",
    " ",
    " ",
    "\n",
    "a < b",
    "<|",
    "<|chan",
    "<|sta",
    "<|en",
    "<|weird|>",
    "<|message|>",
    "<|constrain|>",
    "to=functions.x",
    "analysis",
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "|>",
    "<think>",
    "<｜tool▁calls▁begin｜>",
    "<tool_call>",
    "<|tool_call_begin|>",
];

const PLAIN_TAIL: &str = "<|start|>user<|message|>Hi<|end|><|start|>assistant";
const PREFILLED_TAIL: &str =
    "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|>";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Message {
    Analysis,
    Preamble,
    Builtin,
    Call,
    Final,
}

/// A well-formed harmony output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let prefilled = rng.chance(15);
    let mut g = Generated {
        setup: Setup::named("gpt-oss").with_tail(if prefilled {
            PREFILLED_TAIL
        } else {
            PLAIN_TAIL
        }),
        text: String::new(),
        expected: Expected {
            exact_text: true,
            ..Expected::default()
        },
    };
    let count = if scale.many_calls > 0 {
        scale.many_calls
    } else {
        1 + rng.below(5)
    };
    // The request declares its tools: a call may then be addressed `to=NAME`, without `functions.`
    // (issue 18).
    let declared = rng.chance(30);
    if declared {
        g.setup.tools = Some(super::qwen::schema());
    }
    let mut huge_left = scale.huge_value;
    // Whether the previous message ended with an explicit terminator.
    let mut ended = true;
    for n in 0..count {
        let last = n + 1 == count;
        let kind = if n == 0 && prefilled {
            Message::Analysis
        } else if scale.many_calls > 0 {
            Message::Call
        } else {
            [
                Message::Analysis,
                Message::Analysis,
                Message::Preamble,
                Message::Builtin,
                Message::Call,
                Message::Call,
                Message::Final,
            ][rng.below(7)]
        };
        if n > 0 && rng.chance(30) {
            g.text.push_str(["\n", "\n\n", " "][rng.below(3)]);
        }
        // The first message has no role (the prompt ends with `<|start|>assistant`), unless the model
        // repeats it; later ones start with `<|start|>assistant`, or only `<|channel|>` after an end.
        let start = if n == 0 {
            if rng.chance(15) {
                "<|start|>assistant"
            } else {
                ""
            }
        } else if ended && rng.chance(20) {
            ""
        } else {
            "<|start|>assistant"
        };
        let skip_header = n == 0 && prefilled;
        let body = match kind {
            Message::Analysis | Message::Preamble | Message::Final => {
                if !skip_header {
                    let channel = match kind {
                        Message::Analysis => "analysis",
                        Message::Preamble => "commentary",
                        _ => "final",
                    };
                    g.text.push_str(start);
                    g.text.push_str("<|channel|>");
                    g.text.push_str(channel);
                    g.text.push_str("<|message|>");
                }
                let count = 1 + rng.below(10);
                let mut text = format!("w{}", words(rng, PROSE, count));
                if huge_left > 0 && kind == Message::Analysis {
                    text.push_str(&super::huge_text(rng, PROSE, huge_left));
                    huge_left = 0;
                }
                if kind == Message::Analysis {
                    g.expected.reasoning.push_str(&text);
                } else {
                    g.expected.content.push_str(&text);
                }
                text
            }
            Message::Builtin => {
                let (recipient, body) = if rng.chance(50) {
                    // A built-in tool's body is reasoning text: the first end marker ends it.
                    let query = rng.pick(&["rust", "北京 weather", "a \\\"b\\\" {c}", ""]);
                    (
                        "browser.search",
                        format!("{{\"query\": \"{query}\", \"topn\": {}}}", rng.below(10)),
                    )
                } else {
                    ("python", format!("print({})", rng.next_u64() % 100))
                };
                g.text.push_str(start);
                g.text.push_str(&format!(
                    "<|channel|>analysis to={recipient}{}<|message|>",
                    [" <|constrain|>json", " code", ""][rng.below(3)]
                ));
                g.expected.reasoning.push_str(&body);
                body
            }
            Message::Call => {
                let name = rng.pick(NAMES);
                let args = arguments(rng, JSON_STRINGS, std::mem::take(&mut huge_left));
                let role_part = start == "<|start|>assistant" || (n == 0 && rng.chance(50));
                let namespace = if declared && rng.chance(50) {
                    ""
                } else {
                    "functions."
                };
                let header = if role_part && rng.chance(50) {
                    let lead = if start.is_empty() {
                        " "
                    } else {
                        "<|start|>assistant "
                    };
                    format!(
                        "{lead}to={namespace}{name}<|channel|>commentary{}<|message|>",
                        [" <|constrain|>json", "<|constrain|>json", " json", ""][rng.below(4)]
                    )
                } else {
                    format!(
                        "{start}<|channel|>{} to={namespace}{name}{}<|message|>",
                        ["commentary", "commentary", "analysis"][rng.below(3)],
                        [" <|constrain|>json", "<|constrain|>json", " json", ""][rng.below(4)]
                    )
                };
                g.text.push_str(&header);
                g.expected.calls.push(ExpectedCall {
                    name: name.to_owned(),
                    arguments: args.clone(),
                    as_json: false,
                    id: None,
                });
                args
            }
        };
        g.text.push_str(&body);
        // The end: explicit, or left out (the last message, or one followed by `<|start|>`).
        ended = true;
        let end = match kind {
            Message::Call | Message::Builtin => {
                ["<|call|>", "<|call|>", "<|end|>", ""][rng.below(4)]
            }
            Message::Final => ["<|return|>", "<|end|>", ""][rng.below(3)],
            _ => ["<|end|>", "<|end|>", ""][rng.below(3)],
        };
        if end.is_empty() && !last {
            // Only `<|start|>` may end a message implicitly: the next one must have it.
            if rng.chance(50) {
                g.text.push_str("<|end|>");
            } else {
                g.text
                    .push_str(if kind == Message::Call { "\n" } else { "" });
                g.text
                    .push_str("<|start|>assistant<|channel|>final<|message|>");
                let text = format!("v{}", words(rng, PROSE, 2));
                g.expected.content.push_str(&text);
                g.text.push_str(&text);
                g.text.push_str("<|end|>");
            }
        } else {
            g.text.push_str(end);
            if end.is_empty() && kind == Message::Call && rng.chance(40) {
                // Issue 18: the output ends inside the call's `<|call|>`: a complete call.
                g.text.push_str(&CALL[..1 + rng.below(CALL.len() - 1)]);
            }
        }
    }
    g
}

const CALL: &str = "<|call|>";

/// One call message (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let name = rng.pick(NAMES);
    let args = arguments(rng, JSON_STRINGS, 0);
    format!(
        "<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}{}",
        ["<|call|>", ""][rng.below(2)]
    )
}

/// Other harmony options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    other.preamble_reasoning = rng.chance(50);
    other.builtin_calls = rng.chance(50);
    if rng.chance(30) {
        other.prompt_tail = Some(
            [
                PLAIN_TAIL,
                PREFILLED_TAIL,
                "<|start|>assistant<|channel|>commentary to=functions.f<|message|>",
                "<|start|>assistant<|channel|>analysis",
                "",
            ][rng.below(5)]
            .to_owned(),
        );
    }
    other
}
