//! Property tests: random Qwen-shaped outputs (Hermes-style JSON and Qwen3-Coder XML calls), with or
//! without reasoning (model-opened or forced open by the prompt), content before, between and after call
//! blocks, and arguments full of quotes, escapes, braces, unicode and marker text inside strings. Each
//! output is parsed one-shot and under several random chunkings:
//! - well-formed outputs must give exactly what was generated (the oracle);
//! - truncated or spliced outputs must never panic and must stream exactly like one-shot.

use std::sync::Arc;

use parser_core::testing::{Chunking, Rng, check_chunkings, non_blank};
use parser_core::{ParseOptions, ParsedMessage, Tools, escape_json_into, find_by_name};
use parser_qwen::markers::SPECIAL_TOKENS;
use proptest::prelude::*;
use serde_json::Value;

/// Words that are not markers but look like their beginnings, or are markers that stay text where they
/// are used (a `<tool_call>` in prose that never becomes a call is content, raw).
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
    "北京",
    "😀",
    "é",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "end",
];
/// Reasoning words: prose, plus whole call blocks' markers (reasoning text when `</think>` follows).
const THOUGHTS: &[&str] = &[
    "hmm",
    " ",
    "\n",
    "<tool_call>",
    "<function=f>",
    "{",
    "é",
    "<|im",
];
/// Strings placed inside JSON string values (already escaped): everything that must not end the arguments.
const TRICKY_JSON: &[&str] = &[
    "plain",
    "say \\\"hi\\\"",
    "C:\\\\dir",
    "}{",
    "]",
    "</tool_call>",
    "<tool_call>",
    "</think>",
    "\\n",
    "北京",
    "😀",
    "\\u00e9",
    "<function=x>",
    "<|im_end|>",
];
/// Raw text placed inside XML string values: quotes, backslashes, braces, newlines and literal closers
/// that are not followed by a tag.
const TRICKY_TEXT: &[&str] = &[
    "plain",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    "\n",
    "  ",
    "\t",
    "</parameter>x",
    "a</parameter> b",
    "<tool_call>",
    "<function=y>",
    "{\"a\": 1}",
    "北京",
    "😀",
    "02134",
    "true",
    "</tool_call>",
    "<|im_end|>",
];
const NAMES: &[&str] = &["get_weather", "search", "api.v2.lookup", "f", "write-file"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Hermes,
    Xml,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Thinking {
    /// No reasoning at all.
    None,
    /// The model writes `<think>…</think>`.
    ModelOpened,
    /// The prompt opened `<think>`; the output only closes it.
    ForcedOpen,
}

const PLAIN_TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
const THINK_OFF: &str =
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
const FORCED_OPEN: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";

struct Generated {
    parser: &'static str,
    tail: &'static str,
    output: String,
    reasoning: String,
    content: String,
    /// Name and argument text (exact for JSON calls; compared as JSON for XML calls).
    calls: Vec<(String, String)>,
    format: Format,
}

/// The request's tools for XML calls: every name takes `s` (string), `n` (integer), `b` (boolean),
/// `o` (object); anything else is undeclared and stays a string.
fn schema() -> Arc<Tools> {
    let tools: Vec<Value> = NAMES
        .iter()
        .map(|name| {
            serde_json::json!({"type": "function", "function": {"name": name, "parameters": {
                "type": "object", "properties": {
                    "s": {"type": "string"}, "n": {"type": "integer"},
                    "b": {"type": "boolean"}, "o": {"type": "object"}}}}})
        })
        .collect();
    Arc::new(Tools::from_json(&Value::Array(tools)).unwrap())
}

fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let format = if rng.chance(50) {
        Format::Hermes
    } else {
        Format::Xml
    };
    let (parser, thinking, tail) = match (format, rng.below(4)) {
        (Format::Hermes, 0) => ("qwen3", Thinking::ModelOpened, PLAIN_TAIL),
        (Format::Hermes, 1) => ("qwen3", Thinking::None, THINK_OFF),
        (Format::Hermes, 2) => ("qwen3-thinking", Thinking::ForcedOpen, FORCED_OPEN),
        (Format::Hermes, _) => (
            ["qwen2.5", "qwen3-instruct-2507"][rng.below(2)],
            Thinking::None,
            PLAIN_TAIL,
        ),
        (Format::Xml, 0) => ("qwen3-coder", Thinking::ModelOpened, PLAIN_TAIL),
        (Format::Xml, 1) => ("qwen3-coder", Thinking::None, PLAIN_TAIL),
        (Format::Xml, 2) => ("qwen3.5", Thinking::ForcedOpen, FORCED_OPEN),
        (Format::Xml, _) => ("qwen3.5", Thinking::None, THINK_OFF),
    };
    let mut g = Generated {
        parser,
        tail,
        output: String::new(),
        reasoning: String::new(),
        content: String::new(),
        calls: Vec::new(),
        format,
    };
    if thinking != Thinking::None {
        let count = 1 + rng.below(12);
        g.reasoning = format!("I think {}", rng.words(THOUGHTS, count));
        if thinking == Thinking::ModelOpened {
            g.output.push_str("<think>\n");
        }
        g.output.push_str(&g.reasoning);
        g.output.push_str("\n</think>\n\n");
    }
    for _ in 0..1 + rng.below(4) {
        if rng.chance(60) {
            let count = rng.below(8);
            let text = format!("ok{}", rng.words(PROSE, count));
            g.content.push_str(&text);
            g.output.push_str(&text);
        }
        if rng.chance(70) {
            let wrapped = block(&mut rng, &mut g);
            // Whitespace between two calls outside a `<tool_call>` block is framing, not content.
            if wrapped && rng.chance(50) {
                g.content.push('\n');
                g.output.push('\n');
            }
        }
    }
    if rng.chance(30) {
        g.output.push_str("<|im_end|>");
    }
    g
}

/// One call block with one to three calls (Hermes: one object per block); false when it is a bare
/// `<function=…>` call without the `<tool_call>` wrapper.
fn block(rng: &mut Rng, g: &mut Generated) -> bool {
    let name = rng.pick(NAMES);
    match g.format {
        Format::Hermes => {
            let args = rng.json_object(TRICKY_JSON, 0);
            let sep = ["\n", ""][rng.below(2)];
            let written = if rng.chance(25) {
                // Arguments as a JSON-encoded string: decoded as they stream.
                let mut escaped = String::new();
                escape_json_into(&args, &mut escaped);
                format!("\"{escaped}\"")
            } else {
                args.clone()
            };
            let object = if rng.chance(20) {
                format!("{{\"arguments\": {written}, \"name\": \"{name}\"}}")
            } else {
                format!("{{\"name\": \"{name}\", \"arguments\": {written}}}")
            };
            g.output
                .push_str(&format!("<tool_call>{sep}{object}{sep}</tool_call>"));
            g.calls.push((name.to_owned(), args));
            true
        }
        Format::Xml => {
            // A bare `<function=` right after a `<tool_call>` in the prose would join it: always wrap then.
            let wrapped = rng.chance(80) || g.output.trim_end().ends_with("<tool_call>");
            if wrapped {
                g.output.push_str("<tool_call>\n");
            }
            for n in 0..1 + rng.below(if wrapped { 3 } else { 1 }) {
                let name = if n == 0 { name } else { rng.pick(NAMES) };
                g.output.push_str(&format!("<function={name}>\n"));
                let mut args = serde_json::Map::new();
                for key in ["s", "n", "b", "o", "extra"] {
                    if !rng.chance(50) {
                        continue;
                    }
                    let (raw, value) = match key {
                        "n" => {
                            let n = rng.next_u64() % 100_000;
                            (n.to_string(), Value::from(n))
                        }
                        "b" => {
                            let b = rng.chance(50);
                            let raw =
                                [["false", "False"], ["true", "True"]][b as usize][rng.below(2)];
                            (raw.to_owned(), Value::from(b))
                        }
                        "o" => {
                            let text = rng.json_object(TRICKY_JSON, 1);
                            let value = serde_json::from_str(&text).unwrap();
                            (text, value)
                        }
                        _ => {
                            let count = 1 + rng.below(4);
                            let text = rng.words(TRICKY_TEXT, count);
                            (text.clone(), Value::from(text))
                        }
                    };
                    g.output
                        .push_str(&format!("<parameter={key}>\n{raw}\n</parameter>\n"));
                    args.insert(key.to_owned(), value);
                }
                g.output.push_str("</function>");
                if wrapped {
                    g.output.push('\n');
                }
                g.calls
                    .push((name.to_owned(), Value::Object(args).to_string()));
            }
            if wrapped {
                g.output.push_str("</tool_call>");
            }
            wrapped
        }
    }
}

fn parse_all_ways(
    parser: &str,
    tail: &str,
    output: &str,
    chunk_seed: u64,
) -> Result<ParsedMessage, String> {
    let entry = find_by_name(parser).unwrap();
    let options = ParseOptions::new()
        .with_prompt_tail(tail)
        .with_tools(schema())
        .with_call_id_seed(9);
    let chunkings = Chunking::property(chunk_seed, SPECIAL_TOKENS);
    check_chunkings(&|| entry.parser(&options), output, &chunkings)
        .map_err(|why| format!("{parser} with tail {tail:?} on {output:?}:\n{why}"))
}

proptest! {
    // PROPTEST_CASES=50000 for a long run; 400 keeps CI fast.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(400),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Well-formed outputs parse to exactly what was generated, whatever the chunking.
    #[test]
    fn well_formed_outputs_parse_to_what_was_generated(seed in any::<u64>(), chunk_seed in any::<u64>()) {
        let g = generate(seed);
        let message = parse_all_ways(g.parser, g.tail, &g.output, chunk_seed).map_err(TestCaseError::fail)?;
        prop_assert_eq!(message.reasoning_trimmed().filter(|t| !t.is_empty()), non_blank(&g.reasoning), "{:?}", g.output);
        prop_assert_eq!(message.content_trimmed().filter(|t| !t.is_empty()), non_blank(&g.content), "{:?}", g.output);
        prop_assert_eq!(message.tool_calls.len(), g.calls.len(), "{:?} on {:?}", message, g.output);
        for (call, (name, args)) in message.tool_calls.iter().zip(&g.calls) {
            prop_assert_eq!(&call.name, name);
            prop_assert!(call.valid, "{:?}", call);
            match g.format {
                Format::Hermes => prop_assert_eq!(&call.arguments, args),
                Format::Xml => {
                    let got: Value = serde_json::from_str(&call.arguments).unwrap();
                    let want: Value = serde_json::from_str(args).unwrap();
                    prop_assert_eq!(got, want, "{:?}", g.output);
                }
            }
        }
    }

    // Truncated anywhere (max_tokens) or with a marker spliced in: no panic, streaming equals one-shot
    // under every Qwen parser, and every valid call's arguments are a JSON object.
    #[test]
    fn damaged_outputs_stream_like_one_shot(seed in any::<u64>(), chunk_seed in any::<u64>(), cut in any::<usize>(), splice in any::<usize>()) {
        let g = generate(seed);
        let mut output = g.output.clone();
        let mut at = cut % (output.len() + 1);
        while !output.is_char_boundary(at) {
            at -= 1;
        }
        output.truncate(at);
        if splice % 3 == 0 && !output.is_empty() {
            let mut at = splice % output.len();
            while !output.is_char_boundary(at) {
                at -= 1;
            }
            let marker = SPECIAL_TOKENS[splice % SPECIAL_TOKENS.len()];
            output.insert_str(at, marker);
        }
        for parser in ["qwen2.5", "qwen3", "qwen3-thinking", "qwen3-instruct-2507", "qwen3-coder", "qwen3.5"] {
            let message = parse_all_ways(parser, g.tail, &output, chunk_seed).map_err(TestCaseError::fail)?;
            for call in message.tool_calls.iter().filter(|c| c.valid) {
                prop_assert!(parser_core::is_json_object(&call.arguments), "{:?}", call);
            }
        }
    }
}
