//! `llm-parse --grammar`: a request's constraint, printed whole as JSON or one form at a time, for a
//! parser picked by model, name or chat template; clear errors where there is none.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_llm-parse");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn tools() -> String {
    root()
        .join("examples/data/tools.json")
        .to_string_lossy()
        .into_owned()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("run llm-parse")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

fn user_error(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with("llm-parse: error: ")),
        "{stderr}"
    );
}

/// The whole constraint as JSON.
fn all(args: &[&str]) -> Value {
    let tools = tools();
    let mut full = vec!["--grammar", "--tools", tools.as_str()];
    full.extend_from_slice(args);
    serde_json::from_str(&stdout(&run(&full))).expect("one JSON object")
}

const QWEN3: &str = "Qwen/Qwen3-8B";
const THINKING_OFF: &str = "<|im_start|>assistant\n<think>\n\n</think>\n\n";

#[test]
fn auto_is_a_lazy_grammar_with_triggers() {
    let constraint = all(&["--model", QWEN3]);
    assert_eq!(constraint["parser"], "qwen3");
    assert_eq!(constraint["lazy"], true);
    assert_eq!(
        constraint["triggers"]["words"],
        serde_json::json!(["<tool_call>"])
    );
    let pattern = constraint["triggers"]["patterns"][0].as_str().unwrap();
    assert!(pattern.contains("(<tool_call>)"), "{pattern}");
    assert_eq!(
        constraint["preserved_tokens"],
        serde_json::json!(["<think>", "</think>", "<tool_call>", "</tool_call>"])
    );
    assert!(
        constraint["gbnf"]
            .as_str()
            .unwrap()
            .starts_with("root ::= ")
    );
    assert!(constraint["lark"].as_str().unwrap().starts_with("start: "));
    assert_eq!(constraint["structural_tag"]["type"], "structural_tag");
}

#[test]
fn each_format_prints_its_field_as_is() {
    let tools = tools();
    let constraint = all(&["--parser", "qwen3", "--tool-choice", "required"]);
    for (format, field) in [("lark", "lark"), ("gbnf", "gbnf")] {
        let args = [
            "--grammar",
            "--parser",
            "qwen3",
            "--tools",
            &tools,
            "--tool-choice",
            "required",
            "--format",
            format,
        ];
        assert_eq!(stdout(&run(&args)), constraint[field].as_str().unwrap());
    }
    let args = [
        "--grammar",
        "--parser",
        "qwen3",
        "--tools",
        &tools,
        "--tool-choice",
        "required",
        "--format",
        "structural-tag",
    ];
    let tag: Value = serde_json::from_str(&stdout(&run(&args))).unwrap();
    assert_eq!(tag, constraint["structural_tag"]);
}

#[test]
fn the_request_shapes_the_grammar() {
    let required = all(&["--model", QWEN3, "--tool-choice", "required"]);
    assert_eq!(required["lazy"], false);
    assert_eq!(required["triggers"]["words"], serde_json::json!([]));
    // Thinking off: no reasoning in the grammar.
    let off = all(&[
        "--model",
        QWEN3,
        "--tool-choice",
        "required",
        "--prompt-tail",
        THINKING_OFF,
    ]);
    assert!(required["lark"].as_str().unwrap().contains("<think>"));
    assert!(!off["lark"].as_str().unwrap().contains("<think>"));
    let off_switch = all(&[
        "--model",
        QWEN3,
        "--tool-choice",
        "required",
        "--thinking",
        "off",
    ]);
    assert_eq!(off_switch["lark"], off["lark"]);
    // A named function is required, so not lazy.
    let named = all(&["--model", QWEN3, "--tool-choice", "get_weather"]);
    assert_eq!(named["lazy"], false);
    assert!(
        named["gbnf"]
            .as_str()
            .unwrap()
            .contains(r#"\"get_weather\""#)
    );
    // No calls at all.
    let none = all(&["--model", QWEN3, "--tool-choice", "none"]);
    assert!(!none["gbnf"].as_str().unwrap().contains("get_weather"));
    // At most one call.
    let single = all(&[
        "--model",
        QWEN3,
        "--tool-choice",
        "required",
        "--no-parallel",
    ]);
    assert_eq!(
        single["structural_tag"]["format"]["elements"][1]["stop_after_first"],
        true
    );
    assert_eq!(
        required["structural_tag"]["format"]["elements"][1]["stop_after_first"],
        false
    );
    assert_ne!(single["lark"], required["lark"]);
}

#[test]
fn a_template_of_a_family_uses_the_family_grammar() {
    let tools = tools();
    let output = run(&[
        "--grammar",
        "--template",
        "templates/Qwen-Qwen3-0.6B.jinja",
        "--tools",
        &tools,
        "--format",
        "lark",
    ]);
    let by_model = all(&["--model", QWEN3]);
    assert_eq!(stdout(&output), by_model["lark"].as_str().unwrap());
    assert!(String::from_utf8_lossy(&output.stderr).contains("llm-parse: route: family parser"));
}

#[test]
fn the_generic_route_has_a_grammar_where_the_analysis_describes_the_format() {
    let tools = tools();
    // Hermes-2-Pro's template routes to the analyzer, whose JSON calls the grammars describe.
    let output = run(&[
        "--grammar",
        "--template",
        "templates/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
        "--tools",
        &tools,
        "--tool-choice",
        "required",
        "--format",
        "lark",
    ]);
    let lark = stdout(&output);
    assert!(lark.contains("\"<tool_call>\""), "{lark}");
    // Llama 3.1's template routes to its family (`llama3`), whose grammar is its bare JSON calls at the
    // start of the answer: no trigger, so `auto` is not lazy.
    let llama = all(&[
        "--template",
        "templates/meta-llama-Llama-3.1-8B-Instruct.jinja",
    ]);
    assert_eq!(llama["lazy"], false, "{llama}");
    // Solar's call ids before the name: written as digits after the call's opener.
    let output = run(&[
        "--grammar",
        "--template",
        "templates/upstage-Solar-Open-100B.jinja",
        "--tools",
        &tools,
        "--tool-choice",
        "required",
        "--format",
        "lark",
    ]);
    let lark = stdout(&output);
    assert!(
        lark.contains(r#""<|tool_call:begin|>""#) && lark.contains(r#""<|tool_call:name|>""#),
        "{lark}"
    );
}

#[test]
fn parsers_without_a_grammar_say_so() {
    let tools = tools();
    let request = parser_auto::constraint::ConstraintRequest::default();
    let options = parser_auto::ParseOptions::new();
    let mut without = Vec::new();
    for entry in parser_auto::entries() {
        if !matches!(entry.constraint(&options, &request), Some(Ok(_))) {
            without.push(entry.name);
        }
        let output = run(&["--grammar", "--parser", entry.name, "--tools", &tools]);
        match entry.constraint(&options, &request) {
            Some(Ok(_)) => {
                stdout(&output);
            }
            // A family written as data whose format the generic constraint does not describe yet.
            Some(Err(error)) => {
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert!(!output.status.success(), "{}: {stderr}", entry.name);
                assert!(
                    stderr.contains(&error.to_string()),
                    "{}: {stderr}",
                    entry.name
                );
            }
            None => user_error(&output, "has no constrained-decoding grammar yet"),
        }
    }
    // Every registered parser has one, except (in registry order, by family) Inkling's, whose
    // reasoning blocks may follow content and calls (parser-inkling's docs); Muse's, whose calls sit
    // in messages chosen by their recipient (parser-muse's docs); Olmo 3's: the Python-call grammar
    // writes LFM2's `[…]` list, Olmo 3 one call per line (parser-olmo's docs and grammar test); and
    // Sarashina's, whose calls are Python dict literals (parser-sarashina's docs).
    // None of these is described by parser-core's constraint formats yet.
    assert_eq!(
        without,
        [
            "inkling",
            "muse",
            "muse-glimmer",
            "olmo3",
            "olmo3-think",
            "sarashina"
        ]
    );
}

#[test]
fn user_errors_exit_2() {
    let tools = tools();
    user_error(
        &run(&["--grammar", "--model", QWEN3]),
        "--grammar needs the request's tools",
    );
    user_error(
        &run(&[
            "--grammar",
            "--model",
            QWEN3,
            "--tools",
            &tools,
            "--format",
            "ebnf",
        ]),
        "`--format` is `lark`, `gbnf` or `structural-tag`",
    );
    user_error(
        &run(&[
            "--grammar",
            "--model",
            QWEN3,
            "--tools",
            &tools,
            "--tool-choice",
            "get_time",
        ]),
        "`get_time`, which is not among the request's tools",
    );
    user_error(
        &run(&["--grammar", "--model", QWEN3, "--tools", &tools, "--stream"]),
        "`--stream` does not apply to --grammar",
    );
    user_error(
        &run(&["--grammar", "--model", QWEN3, "--tools", &tools, "out.txt"]),
        "unexpected argument `out.txt` with --grammar",
    );
    user_error(
        &run(&["--grammar", "--tools", &tools]),
        "say which parser to use",
    );
    user_error(
        &run(&["--model", QWEN3, "--no-parallel"]),
        "`--no-parallel` only applies to --grammar",
    );
    user_error(
        &run(&["--model", QWEN3, "--format", "gbnf"]),
        "`--format` only applies to --grammar",
    );
}
