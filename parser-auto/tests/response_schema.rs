//! `ResponseSchema` against transformers' own `recursive_parse`.
//!
//! `fixtures/response_schema/cases.json` holds model outputs and what transformers 5.14.1 returned
//! (or raised) for them, written by `fixtures/response_schema/generate.py` (run by hand; these tests
//! never need Python).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::LazyLock;

use parser_auto::response::ResponseSchema;
use parser_auto::{Error, ErrorKind};
use proptest::prelude::*;
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/response_schema")
}

fn read_json(name: &str) -> Value {
    // `join` keeps an absolute path as it is.
    let path = fixtures().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// `cases.json`, or the file `RESPONSE_SCHEMA_CASES` names (a bigger one-off run of `generate.py --out`).
fn cases() -> Value {
    match std::env::var_os("RESPONSE_SCHEMA_CASES") {
        Some(path) => read_json(&PathBuf::from(path).to_string_lossy()),
        None => read_json("cases.json"),
    }
}

fn compiled_schemas(cases: &Value) -> BTreeMap<String, ResponseSchema> {
    cases["schemas"]
        .as_object()
        .expect("cases.json has `schemas`")
        .iter()
        .map(|(name, schema)| {
            let compiled = ResponseSchema::new(schema)
                .unwrap_or_else(|e| panic!("schema `{name}` does not compile: {e}"));
            (name.clone(), compiled)
        })
        .collect()
}

#[test]
fn matches_transformers_recursive_parse() {
    let cases = cases();
    let schemas = compiled_schemas(&cases);
    let list = cases["cases"].as_array().expect("cases.json has `cases`");
    assert!(list.len() >= 80, "only {} cases", list.len());
    let mut failures = Vec::new();
    for case in list {
        let schema = case["schema"].as_str().expect("case names its schema");
        let name = case["name"].as_str().expect("case has a name");
        let output = case["output"].as_str().expect("case has an output");
        let got = schemas[schema].parse(output);
        match (case.get("expected"), case.get("expected_error"), got) {
            (Some(expected), None, Ok(got)) if got == *expected => {}
            (None, Some(_), Err(e)) => {
                assert!(matches!(e.kind(), ErrorKind::InvalidOption(_)));
                assert!(
                    e.to_string().contains("response_schema at $"),
                    "{schema}/{name}: the error does not name the node: {e}"
                );
            }
            (expected, expected_error, got) => failures.push(format!(
                "{schema}/{name}\n  output:   {output:?}\n  expected: {}\n  got:      {}",
                expected.map_or_else(
                    || format!("error {}", expected_error.unwrap_or(&Value::Null)),
                    Value::to_string
                ),
                match got {
                    Ok(v) => v.to_string(),
                    Err(e) => format!("error {e}"),
                }
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from Python:\n{}",
        failures.len(),
        list.len(),
        failures.join("\n")
    );
}

#[test]
fn standalone_schema_files_match_and_compile() {
    let cases = cases();
    for (name, schema) in cases["schemas"].as_object().expect("schemas") {
        let config = read_json(&format!("{name}.json"));
        assert_eq!(
            &config["response_schema"], schema,
            "{name}.json is stale: rerun generate.py"
        );
        ResponseSchema::new(&config["response_schema"]).expect("compiles");
    }
}

/// Compiles a schema that must be rejected, returning the message.
fn rejected(schema: Value) -> String {
    let err: Error = ResponseSchema::new(&schema).expect_err("must be rejected");
    assert!(matches!(err.kind(), ErrorKind::InvalidOption(_)), "{err:?}");
    err.to_string()
}

/// A schema with one string property `p` using this regex.
fn with_regex(pattern: &str) -> Value {
    json!({"type": "object", "properties": {"p": {"type": "string", "x-regex": pattern}}})
}

#[test]
fn rejects_what_the_regex_crate_cannot_run() {
    for pattern in [
        r"(?=a)(.)",
        r"(?!a)(.)",
        r"(?<=a)(.)",
        r"(?<!a)(.)",
        r"(a)\1",
        r"(?P<x>a)(?P=x)",
        r"(a*+)",
        r"(a++)",
        r"(?>a)(b)",
        r"(a)?(?(1)b|c)",
    ] {
        let msg = rejected(with_regex(pattern));
        assert!(
            msg.contains("uses look-around/backreferences, which the regex crate does not support"),
            "{pattern}: {msg}"
        );
        assert!(msg.contains("$.properties.p"), "{pattern}: {msg}");
    }
}

#[test]
fn rejects_patterns_python_rejects_too() {
    for (pattern, why) in [
        (r"(a", "unterminated"),
        (r"a)", "unbalanced"),
        (r"(*a)", "nothing to repeat"),
        (r"(a**)", "multiple repeat"),
        (r"(\q)", "bad escape"),
        (r"(?<n>a)", "(?P<name>"),
        (r"(a)(?i)", "global flags"),
        (r"([z-a])", "bad character range"),
    ] {
        let msg = rejected(with_regex(pattern));
        assert!(msg.contains(why), "{pattern}: {msg}");
    }
}

#[test]
fn rejects_malformed_schemas_naming_the_node() {
    let cases = [
        (
            json!({"type": "object", "properties": {"a": {"x-regex": "(.*)", "x-parser": "yaml"}}}),
            "$.properties.a",
            "unknown x-parser",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"x-parser": "json",
                "x-parser-args": {"transform": "[?name == 'x']"}}}}}),
            "$.properties.a.items",
            "outside the supported JMESPath subset",
        ),
        (
            json!({"type": "object", "properties": {"a": {"x-parser": "json",
                "x-parser-args": {"transform": "length(@)"}}}}),
            "$.properties.a",
            "outside the supported JMESPath subset",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "x-regex-iterator": "(a)"}}}),
            "$.properties.a",
            "x-regex-iterator needs `type: array`",
        ),
        (
            json!({"type": "array", "x-regex-key-value": "(?P<key>a)(?P<value>b)", "items": {}}),
            "$",
            "x-regex-key-value needs `type: object`",
        ),
        (
            json!({"type": "object", "x-regex-key-value": "(a)=(b)"}),
            "$",
            "named groups `key` and `value`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"x-regex": "abc"}}}),
            "$.properties.a",
            "exactly one capture group",
        ),
        (
            json!({"type": "object", "properties": {"a": {"x-regex": "(a)(b)"}}}),
            "$.properties.a",
            "exactly one capture group",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "x-regex-iterator": "(a)"}}}),
            "$.properties.a",
            "needs `items` or `prefixItems`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "null"}}}),
            "$.properties.a",
            "unsupported `type`",
        ),
        (
            json!({"type": "object", "properties": {"a b": true}}),
            "$.properties[\"a b\"]",
            "must be a JSON object",
        ),
        (
            json!({"type": "object", "required": "name"}),
            "$",
            "required must be a list",
        ),
        (
            json!({"type": "object", "x-regex-substitutions": [["(a)", "\\2"]], "properties": {}}),
            "$",
            "invalid group reference 2",
        ),
    ];
    for (schema, path, why) in cases {
        let msg = rejected(schema.clone());
        assert!(
            msg.contains(&format!("response_schema at {path}:")),
            "{schema}: {msg}"
        );
        assert!(msg.contains(why), "{schema}: {msg}");
    }
}

#[test]
fn const_nodes_are_never_compiled() {
    // Python returns `const` before reading anything else, so a broken sibling key is harmless.
    let schema =
        ResponseSchema::new(&json!({"type": "object", "properties": {"role": {"const": "assistant", "x-regex": "(?=x)"}}}))
            .expect("compiles");
    assert_eq!(
        schema.parse("anything").expect("parses"),
        json!({"role": "assistant"})
    );
}

#[test]
fn python_dollar_matches_before_a_final_newline() {
    let schema = ResponseSchema::new(&with_regex(r"<a>(.*?)$")).expect("compiles");
    assert_eq!(schema.parse("<a>x\n").expect("parses"), json!({"p": "x"}));
    assert_eq!(
        schema.parse("<a>x\n\n").expect("parses"),
        json!({"p": "x\n"})
    );
    assert_eq!(schema.parse("<a>x").expect("parses"), json!({"p": "x"}));
}

#[test]
fn json_integers_stay_exact() {
    let schema = ResponseSchema::new(&json!({"x-parser": "json"})).expect("compiles");
    assert_eq!(
        schema.parse("[-0, -0.0]").expect("parses"),
        json!([0, -0.0])
    );
    // Python keeps the exact integer; serde_json here could only round it to a float: an error.
    let err = schema
        .parse(r#"{"id": 123456789012345678901234567890}"#)
        .expect_err("too large");
    assert!(err.to_string().contains("too large"), "{err}");
}

#[test]
fn root_without_match_is_null() {
    let schema = ResponseSchema::new(&json!({"type": "object", "x-regex": "<x>(?P<a>.*)</x>"}))
        .expect("compiles");
    assert_eq!(schema.parse("no tags").expect("parses"), Value::Null);
    assert_eq!(schema.parse("<x>1</x>").expect("parses"), json!({"a": "1"}));
}

/// Pieces of the formats above, to make up outputs that stress every schema.
const PIECES: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|im_end|>",
    "<function=f>",
    "</function>",
    "<parameter=k>",
    "</parameter>",
    "<|channel|>",
    "final",
    "analysis",
    "commentary ",
    "to=functions.",
    "<|message|>",
    "<|end|>",
    "<|call|>",
    "<|start|>",
    "{\"name\": \"f\", \"arguments\": {}}",
    "{",
    "}",
    "\"",
    ":",
    ",",
    "[",
    "]",
    "\n",
    "\r\n",
    " ",
    "é",
    "日本",
    "🤔",
    "\u{1c}",
    "x",
    "1",
    "<count>",
    "</count>",
    "<score>",
    "</score>",
    "<final>",
    "</final>",
    "<pair>",
    "</pair>",
    "<calls>",
    "</calls>",
    "<|tool_call>call:",
    "<tool_call|>",
    "<|\"|>",
    "<tail>",
    "- ",
    "#",
    "@@",
    "<meta a=b>",
    "<raw>",
    "</raw>",
    "<opt>",
    "</opt>",
    "<ci>",
    "</CI>",
    "<wrapped>",
    "</wrapped>",
];

/// The fixture schemas, compiled once for the property test.
static SCHEMAS: LazyLock<Vec<ResponseSchema>> =
    LazyLock::new(|| compiled_schemas(&cases()).into_values().collect());

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Model output never panics, whatever it holds: it parses or it is an error.
    #[test]
    fn arbitrary_output_never_panics(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..40)) {
        let output: String = pieces.concat();
        for schema in SCHEMAS.iter() {
            let _ = schema.parse(&output);
        }
    }

    /// Nor do arbitrary strings, including control characters and astral code points.
    #[test]
    fn arbitrary_text_never_panics(output in "(?s).{0,300}") {
        for schema in SCHEMAS.iter() {
            let _ = schema.parse(&output);
        }
    }
}
