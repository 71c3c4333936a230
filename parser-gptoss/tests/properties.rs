//! Property tests: random harmony outputs — analysis, preambles, built-in tool messages, function calls
//! with every header shape and arguments full of quotes, escapes, braces, unicode and marker text inside
//! strings, final answers — with and without `<|start|>assistant`, end tokens and a prefilled prompt. Each
//! output is parsed one-shot and under several random chunkings:
//! - well-formed outputs must give exactly what was generated (the oracle);
//! - truncated or spliced outputs must never panic and must stream exactly like one-shot, under every
//!   policy and reasoning format.

use parser_core::testing::{Chunking, Rng, check_chunkings};
use parser_core::{ParseOptions, ParsedMessage, ReasoningFormat};
use parser_gptoss::markers::SPECIAL_TOKENS;
use parser_gptoss::{BuiltinTools, HarmonyPolicy, Preamble, gpt_oss_with};
use proptest::prelude::*;

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
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "|>",
];
/// Strings placed inside JSON string values: everything that must not end the arguments.
const TRICKY: &[&str] = &[
    "plain",
    "say \\\"hi\\\"",
    "C:\\\\dir",
    "}{",
    "]",
    "<|call|>",
    "<|end|>",
    "<|return|>",
    "<|start|>assistant<|channel|>final<|message|>",
    "<|channel|>",
    "\\n",
    "北京",
    "😀",
    "\\u00e9",
    "if (a < b) {",
];
const NAMES: &[&str] = &["get_weather", "search", "api.v2.lookup", "f", "write-file"];

struct Generated {
    tail: &'static str,
    output: String,
    reasoning: String,
    content: String,
    /// Name and exact argument text.
    calls: Vec<(String, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Message {
    Analysis,
    Preamble,
    Builtin,
    Call,
    Final,
}

fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let prefilled = rng.chance(15);
    let mut g = Generated {
        tail: if prefilled {
            "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|>"
        } else {
            "<|start|>user<|message|>Hi<|end|><|start|>assistant"
        },
        output: String::new(),
        reasoning: String::new(),
        content: String::new(),
        calls: Vec::new(),
    };
    let count = 1 + rng.below(5);
    // Whether the previous message ended with an explicit terminator.
    let mut ended = true;
    for n in 0..count {
        let last = n + 1 == count;
        let kind = if n == 0 && prefilled {
            Message::Analysis
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
            g.output.push_str(["\n", "\n\n", " "][rng.below(3)]);
        }
        // The header: the first message has no role (the prompt ends with `<|start|>assistant`), unless the
        // model repeats it; later ones start with `<|start|>assistant`, or only `<|channel|>` after an end.
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
                    g.output.push_str(start);
                    g.output.push_str("<|channel|>");
                    g.output.push_str(channel);
                    g.output.push_str("<|message|>");
                }
                let words = 1 + rng.below(10);
                let text = format!("w{}", rng.words(PROSE, words));
                if kind == Message::Analysis {
                    g.reasoning.push_str(&text);
                } else {
                    g.content.push_str(&text);
                }
                text
            }
            Message::Builtin => {
                let (recipient, body) = if rng.chance(50) {
                    // A built-in tool's body is reasoning text: the first end marker ends it, even
                    // inside a JSON string (only call arguments are read as JSON).
                    let query = rng.pick(&["rust", "北京 weather", "a \\\"b\\\" {c}", ""]);
                    (
                        "browser.search",
                        format!("{{\"query\": \"{query}\", \"topn\": {}}}", rng.below(10)),
                    )
                } else {
                    ("python", format!("print({})", rng.next_u64() % 100))
                };
                g.output.push_str(start);
                g.output.push_str(&format!(
                    "<|channel|>analysis to={recipient}{}<|message|>",
                    [" <|constrain|>json", " code", ""][rng.below(3)]
                ));
                g.reasoning.push_str(&body);
                body
            }
            Message::Call => {
                let name = rng.pick(NAMES);
                let args = rng.json_object(TRICKY, 0);
                let role_part = start == "<|start|>assistant" || (n == 0 && rng.chance(50));
                let header = if role_part && rng.chance(50) {
                    let lead = if start.is_empty() {
                        " "
                    } else {
                        "<|start|>assistant "
                    };
                    format!(
                        "{lead}to=functions.{name}<|channel|>commentary{}<|message|>",
                        [" <|constrain|>json", "<|constrain|>json", " json", ""][rng.below(4)]
                    )
                } else {
                    format!(
                        "{start}<|channel|>{} to=functions.{name}{}<|message|>",
                        ["commentary", "commentary", "analysis"][rng.below(3)],
                        [" <|constrain|>json", "<|constrain|>json", " json", ""][rng.below(4)]
                    )
                };
                g.output.push_str(&header);
                g.calls.push((name.to_owned(), args.clone()));
                args
            }
        };
        g.output.push_str(&body);
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
                g.output.push_str("<|end|>");
            } else {
                g.output
                    .push_str(if kind == Message::Call { "\n" } else { "" });
                // Force the next message to start with `<|start|>`.
                g.output
                    .push_str("<|start|>assistant<|channel|>final<|message|>");
                let text = format!("v{}", rng.words(PROSE, 2));
                g.content.push_str(&text);
                g.output.push_str(&text);
                g.output.push_str("<|end|>");
                ended = true;
            }
        } else {
            g.output.push_str(end);
        }
    }
    g
}

fn parse_all_ways(
    policy: HarmonyPolicy,
    options: &ParseOptions,
    output: &str,
    chunk_seed: u64,
) -> ParsedMessage {
    let options = options.clone().with_call_id_seed(9);
    let chunkings = Chunking::property(chunk_seed, SPECIAL_TOKENS);
    match check_chunkings(&|| gpt_oss_with(&options, policy), output, &chunkings) {
        Ok(message) => message,
        Err(why) => panic!("{policy:?} {options:?} on {output:?}:\n{why}"),
    }
}

/// The text as generated (harmony message text is kept exactly, not trimmed), or `None` when blank.
fn exact_non_blank(text: &str) -> Option<&str> {
    Some(text).filter(|t| !t.trim().is_empty())
}

proptest! {
    // PROPTEST_CASES=100000 for a long run; 400 keeps CI fast.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(400),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Well-formed outputs parse to exactly what was generated, whatever the chunking.
    #[test]
    fn well_formed_outputs_parse_to_what_was_generated(seed in any::<u64>(), chunk_seed in any::<u64>()) {
        let g = generate(seed);
        let options = ParseOptions::new().with_prompt_tail(g.tail);
        let message = parse_all_ways(HarmonyPolicy::default(), &options, &g.output, chunk_seed);
        prop_assert_eq!(message.reasoning.as_deref(), exact_non_blank(&g.reasoning), "{:?}", g.output);
        prop_assert_eq!(message.content.as_deref(), exact_non_blank(&g.content), "{:?}", g.output);
        prop_assert_eq!(message.tool_calls.len(), g.calls.len(), "{:?} {:?}", g.output, message);
        for (call, (name, args)) in message.tool_calls.iter().zip(&g.calls) {
            prop_assert_eq!(&call.name, name);
            prop_assert!(call.valid, "{:?}", call);
            prop_assert_eq!(&call.arguments, args);
        }
    }

    // Truncated anywhere (max_tokens), with a special token spliced in, or with a random slice removed: no
    // panic, streaming equals one-shot under every policy and reasoning format, and every valid call's
    // arguments are a JSON object.
    #[test]
    fn damaged_outputs_stream_like_one_shot(
        seed in any::<u64>(),
        chunk_seed in any::<u64>(),
        cut in any::<usize>(),
        splice in any::<usize>(),
        variant in 0usize..4,
    ) {
        let g = generate(seed);
        let mut output = g.output.clone();
        let mut at = cut % (output.len() + 1);
        while !output.is_char_boundary(at) {
            at -= 1;
        }
        output.truncate(at);
        if !output.is_empty() {
            let mut at = splice % output.len();
            while !output.is_char_boundary(at) {
                at -= 1;
            }
            match splice % 3 {
                0 => output.insert_str(at, SPECIAL_TOKENS[(splice / 3) % SPECIAL_TOKENS.len()]),
                1 => {
                    let mut to = (at + 1 + (splice / 3) % 40).min(output.len());
                    while !output.is_char_boundary(to) {
                        to -= 1;
                    }
                    output.replace_range(at..to, "");
                }
                _ => {}
            }
        }
        let (policy, format) = match variant {
            0 => (HarmonyPolicy::default(), ReasoningFormat::Extract),
            1 => (HarmonyPolicy::default(), ReasoningFormat::Inline),
            2 => (
                HarmonyPolicy::default()
                    .with_preamble(Preamble::Reasoning)
                    .with_builtin_tools(BuiltinTools::Calls),
                ReasoningFormat::Extract,
            ),
            _ => (
                HarmonyPolicy::default().with_builtin_tools(BuiltinTools::Calls),
                ReasoningFormat::Inline,
            ),
        };
        let options = ParseOptions::new().with_prompt_tail(g.tail).with_reasoning_format(format);
        let message = parse_all_ways(policy, &options, &output, chunk_seed);
        for call in message.tool_calls.iter().filter(|c| c.valid) {
            prop_assert!(parser_core::is_json_object(&call.arguments), "{:?}", call);
        }
        if format == ReasoningFormat::Inline {
            prop_assert_eq!(message.reasoning, None);
        }
    }
}
