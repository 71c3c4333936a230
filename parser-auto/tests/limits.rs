//! `Limits::call_buffer`: what every construct that must be held does when it passes the limit, and that
//! the decision is the same for every chunking (streaming still equals one-shot).
//!
//! Each row is run twice, with a small limit and with the default one, so that it shows both sides: the
//! same output is a call under the default limit and degrades as documented under the small one.

use std::sync::Arc;

use parser_auto::response::ResponseTemplate;
use parser_core::testing::{Chunking, check_chunkings};
use parser_core::{Limits, ParseOptions, ParsedMessage, Parser, Stage, Tools};
use rstest::rstest;

/// Small enough that every row's held construct passes it.
const SMALL: Limits = Limits { call_buffer: 48 };

const TOKENS: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁sep｜>",
];

fn long(word: &str) -> String {
    word.repeat(30)
}

fn plot_tools() -> Arc<Tools> {
    let json = serde_json::json!([{"type": "function", "function": {"name": "plot", "parameters": {
        "type": "object", "properties": {"points": {"type": "array"}}}}}]);
    Arc::new(Tools::from_json(&json).expect("tools"))
}

/// Parses one-shot and under the standard chunkings (which must agree), with `limits`.
fn parse(model: &str, options: ParseOptions, limits: Limits, output: &str) -> ParsedMessage {
    let options = options.with_limits(limits).with_call_id_seed(7);
    let make = || -> Parser { parser_auto::for_model(model, &options).expect("model") };
    check_chunkings(&make, output, &Chunking::standard(TOKENS)).unwrap_or_else(|e| panic!("{e}"))
}

/// A call block inside open reasoning that ends the output is a call — unless it grew past the limit
/// while held: then it is reasoning text, as if reasoning went on.
#[rstest]
#[case::default_limit(Limits::default(), true)]
#[case::small_limit(SMALL, false)]
fn held_block_in_reasoning(#[case] limits: Limits, #[case] is_call: bool) {
    let output = format!(
        "Let me write it.\n<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"text\": \"{}\"}}}}\n</tool_call>",
        long("ab")
    );
    let options = ParseOptions::new().with_stage(Stage::Reasoning);
    let message = parse("Qwen/Qwen3-8B", options, limits, &output);
    if is_call {
        assert_eq!(message.tool_calls.len(), 1);
        assert_eq!(message.reasoning.as_deref(), Some("Let me write it.\n"));
    } else {
        assert!(message.tool_calls.is_empty());
        assert_eq!(message.reasoning.as_deref(), Some(output.as_str()));
    }
}

/// Arguments written before the name are held until the name comes; past the limit the object is not a
/// call, and its text is content.
#[rstest]
#[case::default_limit(Limits::default(), true)]
#[case::small_limit(SMALL, false)]
fn arguments_before_the_name(#[case] limits: Limits, #[case] is_call: bool) {
    let output = format!(
        "<tool_call>\n{{\"arguments\": {{\"text\": \"{}\"}}, \"name\": \"write\"}}\n</tool_call>",
        long("ab")
    );
    let options = ParseOptions::new().with_stage(Stage::Content);
    let message = parse("Qwen/Qwen3-8B", options, limits, &output);
    if is_call {
        assert_eq!(message.tool_calls.len(), 1);
        assert_eq!(message.tool_calls[0].name, "write");
        assert!(message.tool_calls[0].valid);
    } else {
        assert!(message.tool_calls.is_empty());
        assert_eq!(message.content.as_deref(), Some(output.as_str()));
    }
}

/// A value typed as an array (by the schema, or by DSML's `string="false"`) is collected and parsed at
/// its end; past the limit it streams on as a JSON string of the text as written, under its key. Nothing
/// is lost either way.
#[rstest]
fn typed_value(
    #[values("qwen3-coder", "dsml", "dsml-without-schema", "glm")] format: &str,
    #[values((Limits::default(), true), (SMALL, false))] limit: (Limits, bool),
) {
    let (limits, typed) = limit;
    let points = format!("[{}[0, 0]]", long("[1, 2], "));
    let (model, output) = match format {
        "qwen3-coder" => (
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            format!(
                "<tool_call>\n<function=plot>\n<parameter=points>\n{points}\n</parameter>\n</function>\n</tool_call>"
            ),
        ),
        // DSML writes a typed value's key late (to unwrap a lone `arguments` wrapper): the limit's way
        // out must still write it.
        "dsml" | "dsml-without-schema" => (
            "deepseek-ai/DeepSeek-V3.2",
            format!(
                "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"plot\">\n\
                 <｜DSML｜parameter name=\"points\" string=\"false\">{points}</｜DSML｜parameter>\n\
                 </｜DSML｜invoke>\n</｜DSML｜function_calls>"
            ),
        ),
        "glm" => (
            "zai-org/GLM-4.6",
            format!(
                "<tool_call>plot\n<arg_key>points</arg_key>\n<arg_value>{points}</arg_value>\n</tool_call>"
            ),
        ),
        other => unreachable!("format {other}"),
    };
    let mut options = ParseOptions::new().with_stage(Stage::Content);
    if format != "dsml-without-schema" {
        options = options.with_tools(plot_tools());
    }
    let message = parse(model, options, limits, &output);
    assert_eq!(message.tool_calls.len(), 1, "{message:?}");
    let call = &message.tool_calls[0];
    assert!(call.valid);
    let arguments: serde_json::Value = serde_json::from_str(&call.arguments).expect("JSON");
    let expected = if typed {
        serde_json::from_str(&points).expect("points")
    } else {
        serde_json::Value::String(points)
    };
    assert_eq!(arguments, serde_json::json!({"points": expected}));
}

/// DeepSeek R1's tools-array fallback is read whole before its calls are written; past the limit it is
/// content.
#[rstest]
#[case::default_limit(Limits::default(), true)]
#[case::small_limit(SMALL, false)]
fn deepseek_r1_tools_array(#[case] limits: Limits, #[case] is_call: bool) {
    let block = format!(
        "function\n```json\n{{\"tools\": [{{\"name\": \"write\", \"arguments\": {{\"text\": \"{}\"}}}}]}}\n```",
        long("ab")
    );
    let output = format!("Done thinking.</think>{block}");
    let message = parse(
        "deepseek-ai/DeepSeek-R1",
        ParseOptions::new(),
        limits,
        &output,
    );
    if is_call {
        assert_eq!(message.tool_calls.len(), 1, "{message:?}");
    } else {
        assert!(message.tool_calls.is_empty(), "{message:?}");
        let content = message.content.as_deref().unwrap_or_default();
        assert!(content.contains(&long("ab")), "{message:?}");
    }
}

/// A response_template call region that passes the limit is closed there; its body does not parse as
/// JSON, so it is content, and the rest of the output is read outside every region.
#[rstest]
#[case::default_limit(Limits::default(), true)]
#[case::small_limit(SMALL, false)]
fn response_template_region(#[case] limits: Limits, #[case] is_call: bool) {
    let config = include_str!("fixtures/response_template/qwen3.tokenizer_config.json");
    let config: serde_json::Value = serde_json::from_str(config).expect("fixture");
    let template = ResponseTemplate::from_json(&config["response_template"].to_string())
        .expect("response_template");
    let output = format!(
        "<think>\nplan\n</think>\n\nOn it.\n<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"text\": \"{}\"}}}}\n</tool_call><|im_end|>",
        long("ab")
    );
    let options = ParseOptions::new().with_limits(limits).with_call_id_seed(7);
    let make = || template.parser(&options);
    let message = check_chunkings(&make, &output, &Chunking::standard(TOKENS))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(message.reasoning.as_deref(), Some("plan"));
    if is_call {
        assert_eq!(message.tool_calls.len(), 1, "{message:?}");
    } else {
        assert!(message.tool_calls.is_empty(), "{message:?}");
        let content = message.content.as_deref().unwrap_or_default();
        assert!(content.contains("abab"), "{message:?}");
    }
}
