//! The argument fast path (`CallMachine::plain_arguments`: a delta inside a string of the arguments is
//! written without the machine) streams exactly as one-shot: JSON calls one per block, in an array
//! (where the element's end is tracked beside the call), with an id after the arguments (held), with
//! JSON-encoded arguments (decoded), and Python calls; strings that end in an escaped quote or
//! backslash, `\u` escapes and surrogate pairs, braces and brackets inside strings, multi-byte
//! characters, cut-off outputs — under every chunking into pieces of 1 to 7 characters, at every
//! offset, so that a piece ends at every byte (after a backslash, inside `\uXXXX`) and the next one is
//! taken by the fast path or declined.

use std::sync::Arc;

use parser_core::testing::char_pieces;
use parser_core::{Accumulator, ParseOptions, ParsedMessage};
use parser_generic::GenericParserFactory;
use parser_generic::spec::{Analysis, JsonFields, Markers, ReasoningMode, ToolFormat};

/// Hermes-like: `<tool_call>{…}</tool_call>` per call, with `<think>`.
fn per_call() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            ..Markers::default()
        },
        end_of_turn: vec!["<|end|>".into()],
        ..Analysis::default()
    }
}

/// An array of calls in a section: `<calls>[{…}, {…}]</calls>`.
fn array(id_field: &str) -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            tool_section_start: "<calls>".into(),
            tool_section_end: "</calls>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            id_field: id_field.into(),
            ..JsonFields::default()
        },
        end_of_turn: vec!["<|end|>".into()],
        ..Analysis::default()
    }
}

/// Python calls in a list: `<calls>[f(a="…"), g(b='…')]</calls>`.
fn pythonic() -> Analysis {
    Analysis {
        tools: ToolFormat::Pythonic,
        markers: Markers {
            tool_section_start: "<calls>".into(),
            tool_section_end: "</calls>".into(),
            ..Markers::default()
        },
        end_of_turn: vec!["<|end|>".into()],
        ..Analysis::default()
    }
}

/// A string value with every kind of escape, ending in an escaped quote; braces and brackets in it.
const TRICKY: &str =
    r#""fn main() { \"x\" } [a] \\ \/ \u00e9\u4EAC \ud83d\ude00 é北京😀 ]}, \n\t end \"""#;

/// The JSON calls' arguments objects: strings that end in `\"` and `\\`, more members after them.
fn arguments() -> Vec<String> {
    vec![
        format!(r#"{{"s": {TRICKY}, "n": [1, "}}"], "t": "a\\"}}"#),
        r#"{"a": "x\\\\", "b": "\"{\"", "c": "\\\"}]"}"#.into(),
        r#"{"u": "\u005c\u0022 \uD834\uDD1E"}"#.into(),
    ]
}

fn stream(factory: &GenericParserFactory, text: &str, offset: usize, size: usize) -> ParsedMessage {
    let options = ParseOptions::new().with_call_id_seed(7);
    let mut parser = factory.parser(&options);
    let mut viewed = factory.parser(&options);
    let mut out = Accumulator::new();
    let pieces = char_pieces(text, |n| if n == 0 && offset > 0 { offset } else { size });
    for piece in pieces {
        let deltas = parser.push(piece);
        let pushed: Vec<_> = deltas.iter().collect();
        let view: Vec<_> = viewed.push_view(piece).iter().collect();
        assert_eq!(
            pushed, view,
            "push and push_view differ on {piece:?} of {text:?}"
        );
        out.extend(deltas);
    }
    out.extend(parser.finish());
    out.into_message()
}

/// Streams every output of `analysis` in pieces of 1 to 7 characters at every offset, and cut off
/// at every few bytes, against one-shot.
fn check(analysis: Analysis, outputs: &[String]) {
    let factory = GenericParserFactory::new(Arc::new(analysis));
    let options = ParseOptions::new().with_call_id_seed(7);
    for output in outputs {
        let one_shot = factory.parser(&options).parse(output);
        assert!(
            !one_shot.tool_calls.is_empty(),
            "no call in {output:?}: {one_shot:?}"
        );
        for size in 1..=7 {
            for offset in 0..size {
                let streamed = stream(&factory, output, offset, size);
                assert_eq!(
                    streamed, one_shot,
                    "{output:?} in pieces of {size} after {offset}"
                );
            }
        }
        for cut in (1..output.len()).filter(|&c| output.is_char_boundary(c) && c % 5 == 0) {
            let cut_off = &output[..cut];
            let one_shot = factory.parser(&options).parse(cut_off);
            for size in [1, 3, 4] {
                assert_eq!(
                    stream(&factory, cut_off, 0, size),
                    one_shot,
                    "{cut_off:?} in pieces of {size}"
                );
            }
        }
    }
}

#[test]
fn json_calls_one_per_block() {
    let mut outputs: Vec<String> = arguments()
        .iter()
        .map(|args| {
            format!(
                "<think>Let me see.</think>Sure.<tool_call>{{\"name\": \"f\", \"arguments\": {args}}}</tool_call><tool_call>{{\"name\": \"g\", \"arguments\": {args}}}</tool_call>"
            )
        })
        .collect();
    // JSON-encoded arguments: decoded as they stream.
    for args in arguments() {
        let encoded = serde_json::to_string(&args).unwrap();
        outputs.push(format!(
            "<tool_call>{{\"name\": \"f\", \"arguments\": {encoded}}}</tool_call>"
        ));
    }
    check(per_call(), &outputs);
}

#[test]
fn json_calls_in_an_array() {
    let outputs: Vec<String> = arguments()
        .iter()
        .map(|args| {
            format!(
                "Sure.<calls>[{{\"name\": \"f\", \"arguments\": {args}}}, {{\"name\": \"g\", \"arguments\": {args}}}]</calls>"
            )
        })
        .chain(std::iter::once(format!(
            "<calls>[{{\"name\": \"f\", \"arguments\": \"{{\\\"s\\\": \\\"q\\\\\\\"}}\\\"}}\"}}, {{\"name\": \"g\", \"arguments\": {}}}]</calls>",
            arguments()[1]
        )))
        .collect();
    check(array(""), &outputs);
}

#[test]
fn json_calls_in_an_array_with_ids_after_the_arguments() {
    let outputs: Vec<String> = arguments()
        .iter()
        .map(|args| {
            format!(
                "<calls>[{{\"name\": \"f\", \"arguments\": {args}, \"id\": \"Ab3dE6gh9\"}}, {{\"name\": \"g\", \"arguments\": {args}, \"id\": \"Zz9\"}}]</calls>"
            )
        })
        .collect();
    check(array("id"), &outputs);
}

#[test]
fn python_calls() {
    let outputs = [
        r#"<calls>[f(s="a \"q\" \\ {b} ) ] \n é北京", n=1), g(t='it\'s \\', u="x\\")]</calls>"#
            .to_string(),
        r#"<calls>[f(s="end in a quote \"")]</calls>"#.to_string(),
    ];
    check(pythonic(), &outputs);
}
