//! Property tests: random DeepSeek-shaped outputs (V3.1 bare, R1 fenced, V3.2 DSML), with reasoning,
//! content around and between call blocks, and arguments full of quotes, escapes, braces, unicode and
//! marker text inside strings. Each output is parsed one-shot and under several random chunkings:
//! - well-formed outputs must give exactly what was generated (the oracle);
//! - truncated or spliced outputs must never panic and must stream exactly like one-shot.

use parser_core::testing::{Chunking, Rng, check_chunkings, non_blank};
use parser_core::{ParseOptions, ParsedMessage, escape_json_into, find_by_name};
use parser_deepseek::markers::SPECIAL_TOKENS;
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
    "<｜",
    "<｜tool",
    "<thi",
    "</",
    "北京",
    "😀",
    "é",
    "{",
    "}",
    "\"quoted\"",
    "50%",
    "x>y",
    "<tool",
    "<｜DSML",
    "end",
];
/// Strings placed inside JSON string values: everything that must not end the arguments.
const TRICKY: &[&str] = &[
    "plain",
    "say \\\"hi\\\"",
    "C:\\\\dir",
    "}{",
    "]",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "</think>",
    "\\n",
    "北京",
    "😀",
    "\\u00e9",
    "```",
    "<｜DSML｜invoke name=\\\"x\\\">",
];
const NAMES: &[&str] = &["get_weather", "search", "api.v2.lookup", "f", "write-file"];

#[derive(Clone, Copy, Debug)]
enum Format {
    V31,
    R1,
    Dsml,
}

struct Generated {
    parser: &'static str,
    tail: &'static str,
    output: String,
    reasoning: String,
    content: String,
    /// Name and argument text (exact for native calls; compared as JSON for DSML).
    calls: Vec<(String, String)>,
}

fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let format = [Format::V31, Format::R1, Format::Dsml][rng.below(3)];
    let (parser, thinking_tail, plain_tail) = match format {
        Format::V31 => (
            "deepseek-v3.1",
            "<｜Assistant｜><think>",
            "<｜Assistant｜></think>",
        ),
        Format::R1 => (
            "deepseek-r1",
            "<｜Assistant｜><think>\n",
            "<｜Assistant｜></think>",
        ),
        Format::Dsml => (
            "deepseek-v3.2",
            "<｜Assistant｜><think>",
            "<｜Assistant｜></think>",
        ),
    };
    let thinking = rng.chance(60);
    let mut generated = Generated {
        parser,
        tail: if thinking { thinking_tail } else { plain_tail },
        output: String::new(),
        reasoning: String::new(),
        content: String::new(),
        calls: Vec::new(),
    };
    if thinking {
        let words = 1 + rng.below(12);
        generated.reasoning = format!("I think{}", rng.words(PROSE, words));
        generated.output.push_str(&generated.reasoning);
        generated.output.push_str("</think>");
    }
    for _ in 0..1 + rng.below(4) {
        if rng.chance(60) {
            let words = rng.below(8);
            let text = format!("ok{}", rng.words(PROSE, words));
            generated.content.push_str(&text);
            generated.output.push_str(&text);
        }
        if rng.chance(70) {
            block(&mut rng, format, &mut generated);
        }
    }
    generated
}

fn block(rng: &mut Rng, format: Format, g: &mut Generated) {
    let count = 1 + rng.below(3);
    match format {
        Format::V31 | Format::R1 => {
            g.output.push_str("<｜tool▁calls▁begin｜>");
            for _ in 0..count {
                let name = rng.pick(NAMES);
                let args = rng.json_object(TRICKY, 0);
                if matches!(format, Format::V31) {
                    g.output.push_str(&format!(
                        "<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>"
                    ));
                } else {
                    g.output.push_str(&format!(
                        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>"
                    ));
                }
                if rng.chance(50) {
                    g.output.push('\n');
                }
                g.calls.push((name.to_owned(), args));
            }
            g.output.push_str("<｜tool▁calls▁end｜>");
        }
        Format::Dsml => {
            g.output.push_str("<｜DSML｜function_calls>\n");
            for _ in 0..count {
                let name = rng.pick(NAMES);
                g.output
                    .push_str(&format!("<｜DSML｜invoke name=\"{name}\">\n"));
                let mut args = Vec::new();
                for n in 0..rng.below(4) {
                    if rng.chance(60) {
                        let raw: String = (0..1 + rng.below(4)).map(|_| rng.pick(PROSE)).collect();
                        g.output.push_str(&format!(
                            "<｜DSML｜parameter name=\"p{n}\" string=\"true\">{raw}</｜DSML｜parameter>\n"
                        ));
                        let mut escaped = String::new();
                        escape_json_into(&raw, &mut escaped);
                        args.push(format!("\"p{n}\": \"{escaped}\""));
                    } else {
                        let value = rng.json_value(TRICKY, 1);
                        g.output.push_str(&format!(
                            "<｜DSML｜parameter name=\"p{n}\" string=\"false\">{value}</｜DSML｜parameter>\n"
                        ));
                        args.push(format!("\"p{n}\": {value}"));
                    }
                }
                g.output.push_str("</｜DSML｜invoke>\n");
                g.calls
                    .push((name.to_owned(), format!("{{{}}}", args.join(", "))));
            }
            g.output.push_str("</｜DSML｜function_calls>");
        }
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
        let message = parse_all_ways(g.parser, g.tail, &g.output, chunk_seed);
        prop_assert_eq!(message.reasoning_trimmed().filter(|t| !t.is_empty()), non_blank(&g.reasoning));
        prop_assert_eq!(message.content_trimmed().filter(|t| !t.is_empty()), non_blank(&g.content));
        prop_assert_eq!(message.tool_calls.len(), g.calls.len(), "{:?}", message);
        for (call, (name, args)) in message.tool_calls.iter().zip(&g.calls) {
            prop_assert_eq!(&call.name, name);
            prop_assert!(call.valid, "{:?}", call);
            if g.parser == "deepseek-v3.2" {
                let got: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
                let want: serde_json::Value = serde_json::from_str(args).unwrap();
                prop_assert_eq!(got, want);
            } else {
                prop_assert_eq!(&call.arguments, args);
            }
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
        for parser in ["deepseek-r1", "deepseek-v3", "deepseek-v3.1", "deepseek-v3.2"] {
            let message = parse_all_ways(parser, g.tail, &output, chunk_seed);
            for call in message.tool_calls.iter().filter(|c| c.valid) {
                prop_assert!(parser_core::is_json_object(&call.arguments), "{:?}", call);
            }
        }
    }
}
