//! Untrusted configuration files: response-format regexes compile under explicit size limits, schemas
//! nest at most `MAX_SCHEMA_DEPTH` levels, errors name the JSON path, and a tokenizer config that is not
//! usable says why. Never a panic, never an abort.

use std::fs;

use parser_auto::response::ResponseFormat;
use parser_auto::response::schema::MAX_SCHEMA_DEPTH;
use parser_auto::template::ChatTemplate;
use parser_auto::{Error, ErrorKind};
use rstest::rstest;
use serde_json::json;

fn limit_of(err: &Error) -> Option<&'static str> {
    match err.kind() {
        ErrorKind::LimitExceeded { limit, .. } => Some(limit),
        _ => None,
    }
}

/// A pattern small to write that compiles to far more than the regex size limit.
const HUGE_PATTERN: &str = r"(\w{1000}){1000}";

fn template_config(open_pattern: &str) -> String {
    json!({
        "chat_template": "{{ messages }}",
        "response_template": {
            "fields": {
                "tool_calls": {
                    "open_pattern": open_pattern,
                    "close": "</call>",
                    "repeats": true,
                    "content": "json",
                },
                "content": {"content": "text"},
            }
        }
    })
    .to_string()
}

fn schema_config(schema: serde_json::Value) -> String {
    json!({"chat_template": "{{ messages }}", "response_schema": schema}).to_string()
}

#[rstest]
#[case::template_anchor(template_config(HUGE_PATTERN), "tool_calls")]
#[case::schema_regex(
    schema_config(json!({"type": "object", "properties": {"p": {"type": "string", "x-regex": HUGE_PATTERN}}})),
    "$.properties.p"
)]
fn huge_regexes_hit_the_size_limit(#[case] config: String, #[case] path: &str) {
    let err = ResponseFormat::from_tokenizer_config(&config).unwrap_err();
    assert_eq!(limit_of(&err), Some("regex_size"), "{err}");
    assert!(err.to_string().contains(path), "names where: {err}");
}

#[test]
fn deep_schemas_hit_the_depth_limit() {
    // `items` nests one JSON level a schema level, so the JSON parser's own depth limit (128) is not
    // what stops it.
    let mut schema = json!({"type": "string"});
    for _ in 0..MAX_SCHEMA_DEPTH + 10 {
        schema = json!({"type": "array", "items": schema});
    }
    let err = ResponseFormat::from_tokenizer_config(&schema_config(schema)).unwrap_err();
    assert_eq!(limit_of(&err), Some("schema_depth"), "{err}");
    assert!(err.to_string().contains("$.items.items"), "{err}");
    // Within the limit, the same shape compiles.
    let mut schema = json!({"type": "string"});
    for _ in 0..MAX_SCHEMA_DEPTH - 2 {
        schema = json!({"type": "array", "items": schema});
    }
    assert!(ResponseFormat::from_tokenizer_config(&schema_config(schema)).is_ok());
}

#[test]
fn a_hostile_response_format_leaves_the_template_usable() {
    // The template still renders; the format that does not compile is left out (and logged).
    let template = ChatTemplate::from_tokenizer_config(&template_config(HUGE_PATTERN), None)
        .expect("the template loads");
    assert!(template.response_format().is_none());
}

#[rstest]
#[case::not_json("{\"chat_template\": ", "not JSON")]
#[case::not_a_template(r#"{"chat_template": 42}"#, "chat_template")]
fn unusable_tokenizer_configs_say_why(#[case] config: &str, #[case] says: &str) {
    let err = ChatTemplate::from_tokenizer_config(config, None).unwrap_err();
    assert!(err.to_string().contains(says), "{err}");
}

#[test]
fn a_directory_is_not_a_template_file() {
    let dir = std::env::temp_dir().join(format!("llm-parse-config-dir-{}", std::process::id()));
    let config = dir.join("tokenizer_config.json");
    fs::create_dir_all(&config).unwrap();
    let err = ChatTemplate::from_file(&config).unwrap_err();
    let err_dir = ChatTemplate::from_model_dir(&dir).unwrap_err();
    fs::remove_dir_all(&dir).unwrap();
    assert!(err.to_string().contains("tokenizer_config.json"), "{err}");
    assert!(
        err_dir.to_string().contains("no chat template")
            || err_dir.to_string().contains("directory"),
        "{err_dir}"
    );
}
