//! The examples in `examples/`, run as tests with their no-argument inputs, so that `cargo test` keeps
//! them working: each example's logic is compiled in here as a module and called with a buffer for
//! stdout.

#[allow(dead_code)]
#[path = "../examples/one_shot.rs"]
mod one_shot;

#[allow(dead_code)]
#[path = "../examples/sse_stream.rs"]
mod sse_stream;

#[allow(dead_code)]
#[path = "../examples/model_dir.rs"]
mod model_dir;

use parser_auto::openai::ReasoningField;
use serde_json::Value;

fn run(f: impl FnOnce(&mut Vec<u8>) -> Result<(), Box<dyn std::error::Error>>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn one_shot_prints_the_message_and_the_completion() {
    let out = run(|out| {
        one_shot::run(
            one_shot::SAMPLE_MODEL,
            Some(one_shot::SAMPLE_PROMPT_TAIL),
            one_shot::SAMPLE_OUTPUT,
            out,
        )
    });
    assert!(out.contains("parser `deepseek-v3.1`"), "{out}");
    let json = &out[out.find("chat.completion:\n").unwrap() + "chat.completion:\n".len()..];
    let completion: Value = serde_json::from_str(json).unwrap();
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "Checking both.");
    assert_eq!(
        choice["message"]["reasoning_content"],
        "The user wants two cities: one call each."
    );
    assert_eq!(
        choice["message"]["tool_calls"][1]["function"]["arguments"],
        "{\"city\": \"北京\"}"
    );
}

#[test]
fn one_shot_reports_an_unknown_model() {
    let mut out = Vec::new();
    assert!(one_shot::run("no-such-model", None, "text", &mut out).is_err());
}

#[test]
fn sse_stream_prints_chunks_then_done() {
    let tokens = sse_stream::SAMPLE_TOKENS.iter().map(|t| t.to_string());
    let out = run(|out| {
        sse_stream::stream(
            sse_stream::DEFAULT_MODEL,
            ReasoningField::Reasoning,
            tokens,
            out,
        )
    });
    assert!(out.ends_with("data: [DONE]\n\n"), "{out}");
    let chunks: Vec<Value> = out
        .split_terminator("\n\n")
        .filter(|event| *event != "data: [DONE]")
        .map(|event| serde_json::from_str(event.strip_prefix("data: ").unwrap()).unwrap())
        .collect();
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        serde_json::json!({"role": "assistant"})
    );
    let delta = |n: usize| &chunks[n]["choices"][0]["delta"];
    let reasoning: String = (0..chunks.len())
        .filter_map(|n| delta(n).get("reasoning")?.as_str())
        .collect();
    assert_eq!(reasoning, "\nThe user wants the weather in Paris.\n");
    let arguments: String = (0..chunks.len())
        .filter_map(|n| delta(n).get("tool_calls")?[0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(arguments, "{\"city\": \"Paris\"}");
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );
}

#[test]
fn sse_stream_reads_json_string_lines_and_raw_lines() {
    assert_eq!(sse_stream::token_text("\"\\n\\n\""), "\n\n");
    assert_eq!(sse_stream::token_text("\" Paris\""), " Paris");
    assert_eq!(sse_stream::token_text("Hi there"), "Hi there");
    assert_eq!(sse_stream::token_text("\"unterminated"), "\"unterminated");
    assert_eq!(
        sse_stream::parse_field("reasoning"),
        Ok(ReasoningField::Reasoning)
    );
    assert!(sse_stream::parse_field("thinking").is_err());
}

#[test]
fn model_dir_routes_and_stages_from_token_ids() {
    let root = model_dir::temp_root("model-dir-test");
    let out = run(|out| model_dir::demo(&root, out));
    std::fs::remove_dir_all(&root).unwrap();
    for expected in [
        "without a model name: family parser `qwen3` (by template signature)",
        "as Qwen/Qwen3-8B: family parser `qwen3` (by model name)",
        "(thinking off): starts in Content",
        "(thinking forced open): starts in Reasoning",
        r#"{"role":"assistant","content":"\n\nIt is 42.","reasoning_content":"Six times seven.\n"}"#,
        "without a model name: family parser `deepseek-v3.1` (by template signature)",
        r#"{"role":"assistant","content":"It is sunny in Paris.","reasoning_content":"The forecast says sun."}"#,
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
}
