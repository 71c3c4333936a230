//! Other spellings of markers (`Analysis::marker_spellings`): every spelling is read wherever its
//! marker is, alone or mixed with the marker, one-shot and under every chunking; text that only
//! looks like a spelling stays content as written; the grammar writes the first spelling only.

use std::sync::Arc;

use parser_core::testing::{Chunking, check_chunkings};
use parser_core::{ParseOptions, ParsedMessage};
use parser_generic::GenericParserFactory;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// A tagged format with a second spelling for each marker it scans for.
fn tagged() -> Analysis {
    let pairs = [
        ("<think>", "<reason>"),
        ("</think>", "</reason>"),
        ("<calls>", "<CALLS>"),
        ("</calls>", "</CALLS>"),
        ("<fn name=\"", "<fnname=\""),
        ("</fn>", "</FN>"),
        ("<arg name=\"", "<argname=\""),
        ("</arg>", "</ARG>"),
        ("<|end|>", "<|END|>"),
    ];
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            tool_section_start: "<calls>".into(),
            tool_section_end: "</calls>".into(),
            func_name_prefix: "<fn name=\"".into(),
            func_name_suffix: "\">".into(),
            func_close: "</fn>".into(),
            arg_name_prefix: "<arg name=\"".into(),
            arg_name_suffix: "\">".into(),
            arg_value_suffix: "</arg>".into(),
            ..Markers::default()
        },
        end_of_turn: vec!["<|end|>".into()],
        marker_spellings: pairs
            .iter()
            .map(|(marker, spelling)| (marker.to_string(), spelling.to_string()))
            .collect(),
        ..Analysis::default()
    }
}

const TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<reason>",
    "</reason>",
    "<calls>",
    "</calls>",
    "<CALLS>",
    "</CALLS>",
    "<fn name=\"",
    "<fnname=\"",
    "\">",
    "</fn>",
    "</FN>",
    "<arg name=\"",
    "<argname=\"",
    "</arg>",
    "</ARG>",
    "<|end|>",
    "<|END|>",
];

fn run(analysis: Analysis, output: &str) -> ParsedMessage {
    let factory = GenericParserFactory::new(Arc::new(analysis));
    let options = ParseOptions::new().with_call_id_seed(7);
    check_chunkings(
        &|| factory.parser(&options),
        output,
        &Chunking::standard(TOKENS),
    )
    .unwrap_or_else(|why| panic!("{output:?}: {why}"))
}

/// Every way of spelling one call (and its reasoning) gives the same message.
#[test]
fn every_spelling_reads_alike() {
    let spellings = [
        [
            "<think>",
            "</think>",
            "<calls>",
            "<fn name=\"",
            "<arg name=\"",
            "</arg>",
            "</fn>",
            "</calls>",
            "<|end|>",
        ],
        [
            "<reason>",
            "</reason>",
            "<CALLS>",
            "<fnname=\"",
            "<argname=\"",
            "</ARG>",
            "</FN>",
            "</CALLS>",
            "<|END|>",
        ],
        [
            "<think>",
            "</reason>",
            "<CALLS>",
            "<fn name=\"",
            "<argname=\"",
            "</arg>",
            "</FN>",
            "</calls>",
            "<|END|>",
        ],
        [
            "<reason>",
            "</think>",
            "<calls>",
            "<fnname=\"",
            "<arg name=\"",
            "</ARG>",
            "</fn>",
            "</CALLS>",
            "<|end|>",
        ],
    ];
    let mut messages = Vec::new();
    for [
        think,
        unthink,
        calls,
        fname,
        aname,
        aclose,
        fclose,
        uncalls,
        end,
    ] in spellings
    {
        let output = format!(
            "{think}Hmm.{unthink}Checking.{calls}{fname}get\">{aname}city\">Paris{aclose}{aname}days\">3{aclose}{fclose}{fname}now\">{fclose}{uncalls}{end}"
        );
        let message = run(tagged(), &output);
        assert_eq!(message.reasoning.as_deref(), Some("Hmm."), "{output:?}");
        assert_eq!(message.content.as_deref(), Some("Checking."), "{output:?}");
        assert_eq!(message.tool_calls.len(), 2, "{output:?}");
        assert_eq!(message.tool_calls[0].name, "get");
        assert!(
            message.tool_calls.iter().all(|call| call.valid),
            "{output:?}"
        );
        messages.push(message.tool_calls[0].arguments.clone());
    }
    assert!(messages.iter().all(|m| *m == messages[0]), "{messages:?}");
}

/// A value may hold a spelling's characters when they do not close it; cut-off spellings and
/// look-alikes are content as written (nothing dropped, nothing respelled).
#[test]
fn look_alikes_stay_as_written() {
    for text in [
        "A <fnname=\"get",
        "A <fnname=\"get\" <b>",
        "A <fnnam",
        "<fnname= get>",
        "x <CALL> y",
        "x <|END y",
    ] {
        let message = run(tagged(), text);
        assert_eq!(message.content.as_deref(), Some(text), "{text:?}");
        assert!(message.tool_calls.is_empty(), "{text:?}");
    }
}

/// A call cut inside an argument stays a committed, invalid call, in either spelling.
#[test]
fn cut_calls_stay_invalid() {
    for text in [
        "<calls><fn name=\"get\"><arg name=\"city\">Par",
        "<CALLS><fnname=\"get\"><argname=\"city\">Par",
        "<CALLS><fnname=\"get\"><argname=\"ci",
    ] {
        let message = run(tagged(), text);
        assert_eq!(message.tool_calls.len(), 1, "{text:?}");
        assert!(!message.tool_calls[0].valid, "{text:?}");
    }
}

/// The grammar is written from the first spelling only.
#[test]
fn the_grammar_writes_the_first_spelling() {
    use parser_core::Tools;
    use parser_core::constraint::{ConstraintRequest, ResponseFormat, ToolChoice};
    let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
        "name": "get", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]))
    .unwrap();
    let options = ParseOptions::new().with_tools(Arc::new(tools));
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        parallel_tool_calls: true,
        response_format: ResponseFormat::Text,
    };
    let constraint = GenericParserFactory::new(Arc::new(tagged()))
        .constraint(&options, &request)
        .unwrap();
    let lark = constraint.lark();
    assert!(lark.contains("<fn name="), "{lark}");
    assert!(!lark.contains("<fnname="), "{lark}");
}
