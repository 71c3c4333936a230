//! Response formats from tokenizer configs as parsers: the legacy `response_schema` (decided at the
//! end of the output) and the route a tokenizer config takes.

use std::path::{Path, PathBuf};

use parser_auto::response::{ResponseFormat, Value};
use parser_core::ParseOptions;
use parser_core::testing::{Chunking, check_chunkings};
use serde::Deserialize;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/response_schema")
}

#[derive(Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    schema: String,
    name: String,
    output: String,
    expected: Option<Value>,
}

fn format(schema: &str) -> Option<ResponseFormat> {
    let text = std::fs::read_to_string(fixtures().join(format!("{schema}.json"))).ok()?;
    Some(
        ResponseFormat::from_tokenizer_config(&text)
            .unwrap_or_else(|e| panic!("{schema}: {e}"))
            .expect("the fixture declares a response_schema"),
    )
}

const TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|im_end|>",
    "<|channel|>",
    "<|message|>",
    "<|end|>",
    "<|call|>",
];

/// Every transformers case parses, one-shot and under every chunking alike, to transformers' reasoning,
/// content and calls; outputs transformers cannot parse become content, whole.
#[test]
fn schema_parsers_give_transformers_messages_under_any_chunking() {
    let text = std::fs::read_to_string(fixtures().join("cases.json")).expect("cases.json");
    let cases: Cases = serde_json::from_str(&text).expect("cases.json parses");
    let mut checked = 0;
    for case in cases.cases {
        let Some(format) = format(&case.schema) else {
            continue;
        };
        let options = ParseOptions::new().with_call_id_seed(3);
        let make = || format.parser(&options);
        let message = check_chunkings(&make, &case.output, &Chunking::standard(TOKENS))
            .unwrap_or_else(|e| panic!("{}/{}: {e}", case.schema, case.name));
        checked += 1;
        let Some(expected) = case.expected else {
            assert_eq!(
                message.content.as_deref(),
                Some(case.output.as_str()),
                "{}",
                case.name
            );
            continue;
        };
        // Compared as the project's conventions compare text: trimmed, empty meaning absent.
        let trimmed = |t: Option<&str>| {
            t.map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let field = |keys: &[&str]| {
            trimmed(
                keys.iter()
                    .find_map(|k| expected.get(k).and_then(Value::as_str)),
            )
        };
        let label = format!("{}/{}", case.schema, case.name);
        assert_eq!(
            trimmed(message.reasoning.as_deref()),
            field(&["reasoning_content", "thinking", "reasoning"]),
            "{label}"
        );
        assert_eq!(
            trimmed(message.content.as_deref()),
            field(&["content"]),
            "{label}"
        );
        let calls: Vec<&str> = match expected.get("tool_calls") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|c| {
                    c.get("function")
                        .unwrap_or(c)
                        .get("name")
                        .and_then(Value::as_str)
                })
                .collect(),
            _ => Vec::new(),
        };
        let ours: Vec<&str> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(ours, calls, "{label}");
    }
    assert!(checked >= 50, "only {checked} schema cases ran");
}

#[test]
fn the_documentation_gpt_oss_example() {
    let format = format("gpt_oss_doc").expect("gpt_oss_doc fixture");
    let output = "<|channel|>analysis<|message|>The user asks about SF. We need to call get_current_weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_current_weather <|constrain|>json<|message|>{\"location\":\"San Francisco, CA\"}<|call|>";
    let message = format.parser(&ParseOptions::new()).parse(output);
    assert_eq!(
        message.reasoning.as_deref(),
        Some("The user asks about SF. We need to call get_current_weather.")
    );
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].name, "get_current_weather");
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"location":"San Francisco, CA"}"#
    );
    assert!(message.tool_calls[0].valid);
}
