//! Property tests: random Kimi-shaped outputs (K2, K2-Thinking, K2.5), with or without reasoning, content
//! around and between call sections, sections in both spellings, compact or newline-formatted, calls with
//! dotted names and byte-exact ids, and arguments full of quotes, escapes, braces, unicode and marker text
//! inside strings. Each output is parsed one-shot and under several random chunkings:
//! - well-formed outputs must give exactly what was generated (the oracle);
//! - truncated or spliced outputs must never panic and must stream exactly like one-shot.

use parser_core::testing::{Chunking, Rng, check_chunkings, non_blank};
use parser_core::{ParseOptions, ParsedMessage, find_by_name};
use parser_kimi::markers::SPECIAL_TOKENS;
use proptest::prelude::*;

/// Words that are not markers but look like their beginnings.
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
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "functions.f:0",
    "end",
];
/// Strings placed inside JSON string values: everything that must not end the arguments.
const TRICKY: &[&str] = &[
    "plain",
    "say \\\"hi\\\"",
    "C:\\\\dir",
    "}{",
    "]",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>functions.x:1<|tool_call_argument_begin|>",
    "<|im_end|>",
    "</think>",
    "\\n",
    "北京",
    "😀",
    "\\u00e9",
    "<div>",
];
const NAMES: &[&str] = &["get_weather", "search", "api.v2.lookup", "f", "write-file"];
const TURN: &str = "<|im_user|>user<|im_middle|>Hi<|im_end|><|im_assistant|>assistant<|im_middle|>";
const K25_ON: &str = "<|im_assistant|>assistant<|im_middle|><think>";
const K25_OFF: &str = "<|im_assistant|>assistant<|im_middle|><think></think>";

struct Generated {
    parser: &'static str,
    tail: &'static str,
    output: String,
    reasoning: String,
    content: String,
    /// Id, name and exact argument text.
    calls: Vec<(String, String, String)>,
}

fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let parser = ["kimi-k2", "kimi-k2-thinking", "kimi-k2.5"][rng.below(3)];
    let thinking = parser != "kimi-k2" && rng.chance(70);
    let tail = match parser {
        "kimi-k2.5" if thinking => K25_ON,
        "kimi-k2.5" => K25_OFF,
        _ if thinking => TURN,
        // K2-Thinking with the answer forced by the prompt.
        "kimi-k2-thinking" => "<|im_assistant|>assistant<|im_middle|><think></think>",
        _ => TURN,
    };
    let mut g = Generated {
        parser,
        tail,
        output: String::new(),
        reasoning: String::new(),
        content: String::new(),
        calls: Vec::new(),
    };
    // Reasoning that a call section ends, without `</think>`.
    let mut section_ends_reasoning = false;
    if thinking {
        if parser == "kimi-k2-thinking" && rng.chance(70) {
            g.output.push_str("<think>");
        }
        let words = 1 + rng.below(12);
        g.reasoning = format!("I think{}", rng.words(PROSE, words));
        g.output.push_str(&g.reasoning);
        if rng.chance(25) {
            section_ends_reasoning = true;
        } else {
            g.output.push_str("</think>");
        }
    }
    let mut index = 0;
    for n in 0..1 + rng.below(4) {
        if !(n == 0 && section_ends_reasoning) && rng.chance(60) {
            let words = rng.below(8);
            let text = format!("ok{}", rng.words(PROSE, words));
            g.content.push_str(&text);
            g.output.push_str(&text);
        }
        if (n == 0 && section_ends_reasoning) || rng.chance(70) {
            block(&mut rng, &mut g, &mut index);
        }
    }
    g
}

fn block(rng: &mut Rng, g: &mut Generated, index: &mut usize) {
    let count = 1 + rng.below(3);
    let sectioned = rng.chance(85);
    let newlines = rng.chance(50);
    let nl = if newlines { "\n" } else { "" };
    if sectioned {
        g.output.push_str(
            [
                "<|tool_calls_section_begin|>",
                "<|tool_call_section_begin|>",
            ][rng.below(2)],
        );
        g.output.push_str(nl);
    }
    for n in 0..count {
        let name = rng.pick(NAMES);
        let id = if rng.chance(80) {
            format!("functions.{name}:{index}")
        } else {
            format!("{name}:{index}")
        };
        *index += 1;
        let args = rng.json_object(TRICKY, 0);
        let pad = [" ", "", "\n"][rng.below(3)];
        g.output.push_str(&format!(
            "<|tool_call_begin|>{pad}{id}{pad}<|tool_call_argument_begin|>{pad}{args}{pad}"
        ));
        // The call end may be left out before the next call.
        if n + 1 == count || rng.chance(90) {
            g.output.push_str("<|tool_call_end|>");
        }
        if sectioned {
            g.output.push_str(nl);
        }
        g.calls.push((id, name.to_owned(), args));
    }
    if sectioned {
        g.output
            .push_str(["<|tool_calls_section_end|>", "<|tool_call_section_end|>"][rng.below(2)]);
    }
}

fn parse_all_ways(parser: &str, tail: &str, output: &str, chunk_seed: u64) -> ParsedMessage {
    let entry = find_by_name(parser).unwrap();
    let options = ParseOptions::new()
        .with_prompt_tail(tail)
        .with_call_id_seed(9);
    let chunkings = Chunking::property(chunk_seed, SPECIAL_TOKENS);
    match check_chunkings(&|| entry.parser(&options), output, &chunkings) {
        Ok(message) => message,
        Err(why) => panic!("{parser} with tail {tail:?} on {output:?}:\n{why}"),
    }
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
        let message = parse_all_ways(g.parser, g.tail, &g.output, chunk_seed);
        prop_assert_eq!(message.reasoning_trimmed().filter(|t| !t.is_empty()), non_blank(&g.reasoning), "{:?}", g.output);
        prop_assert_eq!(message.content_trimmed().filter(|t| !t.is_empty()), non_blank(&g.content), "{:?}", g.output);
        prop_assert_eq!(message.tool_calls.len(), g.calls.len(), "{:?} on {:?}", message, g.output);
        for (call, (id, name, args)) in message.tool_calls.iter().zip(&g.calls) {
            prop_assert_eq!(&call.id, id);
            prop_assert_eq!(&call.name, name);
            prop_assert!(call.valid, "{:?}", call);
            prop_assert_eq!(&call.arguments, args);
        }
    }

    // Truncated anywhere (max_tokens) or with a marker spliced in: no panic, streaming equals one-shot,
    // and every valid call's arguments are a JSON object.
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
        for parser in ["kimi-k2", "kimi-k2-thinking", "kimi-k2.5", "kimi-vl"] {
            let message = parse_all_ways(parser, g.tail, &output, chunk_seed);
            for call in message.tool_calls.iter().filter(|c| c.valid) {
                prop_assert!(parser_core::is_json_object(&call.arguments), "{:?}", call);
            }
        }
    }
}
