//! `--template-name`, and the template a model with several named ones (Hermes-2-Pro: `default` and
//! `tool_use`) gets without it: `tool_use` when the request has tools (`--tools`), as transformers picks.
//! The model directory is parser-auto's fixture `tests/fixtures/named_templates/`.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_llm-parse");

const HERMES_CALL: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "A city."}}}}}]"#;

fn hermes_dir() -> String {
    format!(
        "{}/../parser-auto/tests/fixtures/named_templates/NousResearch-Hermes-2-Pro-Llama-3-8B",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A file under the temp dir, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!(
            "llm-parse-template-name-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }

    fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The parsed message and the route line of a successful run.
fn message_and_route(output: &Output) -> (Value, String) {
    assert!(output.status.success(), "{}", stderr(output));
    let message = serde_json::from_slice(&output.stdout).unwrap();
    let route = stderr(output)
        .lines()
        .find_map(|line| line.strip_prefix("llm-parse: route: "))
        .unwrap_or_else(|| panic!("no route in {}", stderr(output)))
        .to_owned();
    (message, route)
}

#[test]
fn tools_pick_the_tool_use_template_unless_a_name_is_given() {
    let output = TempFile::new("output.txt", HERMES_CALL);
    let tools = TempFile::new("tools.json", TOOLS);
    let dir = hermes_dir();
    let config = format!("{dir}/tokenizer_config.json");

    // With tools: tool_use, whose Hermes instructions route it to the Hermes family (from the directory
    // or the config file).
    for source in [&["--model-dir", &dir][..], &["--template", &config]] {
        let mut args = source.to_vec();
        args.extend(["--tools", tools.arg(), output.arg()]);
        let (message, route) = message_and_route(&run(&args));
        assert_eq!(
            route, "family parser `hermes` (by template signature)",
            "{args:?}"
        );
        assert_eq!(message["tool_calls"][0]["name"], "get_weather", "{message}");
        assert_eq!(message["content"], Value::Null, "{message}");
    }

    // Without tools, or with `default` named: the default template (ChatML), which writes no calls.
    for args in [
        &["--model-dir", &dir, output.arg()][..],
        &[
            "--model-dir",
            &dir,
            "--template-name",
            "default",
            "--tools",
            tools.arg(),
            output.arg(),
        ],
    ] {
        let (message, route) = message_and_route(&run(args));
        assert_eq!(route, "plain content (no parser matched)", "{args:?}");
        assert_eq!(message["content"], HERMES_CALL, "{message}");
    }

    // `tool_use` named: also without tools.
    let (message, route) = message_and_route(&run(&[
        "--model-dir",
        &dir,
        "--template-name",
        "tool_use",
        output.arg(),
    ]));
    assert_eq!(route, "family parser `hermes` (by template signature)");
    assert_eq!(message["tool_calls"][0]["name"], "get_weather", "{message}");
}

#[test]
fn render_and_analyze_take_the_template_name() {
    let conversation = TempFile::new(
        "conversation.json",
        r#"[{"role": "user", "content": "Weather in Paris?"}]"#,
    );
    let tools = TempFile::new("render-tools.json", TOOLS);
    let dir = hermes_dir();
    let render = |extra: &[&str]| {
        let mut args = vec!["--render", conversation.arg(), "--model-dir", &dir];
        args.extend(extra);
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        String::from_utf8(output.stdout).unwrap()
    };
    let tool_use = render(&["--tools", tools.arg()]);
    assert!(
        tool_use.contains("You are a function calling AI model."),
        "{tool_use}"
    );
    let plain = render(&[]);
    assert_eq!(
        plain,
        "<|begin_of_text|><|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
    );
    let named = render(&["--template-name", "tool_use"]);
    assert!(
        named.contains("You are a function calling AI model."),
        "{named}"
    );

    let analyze = |extra: &[&str]| {
        let mut args = vec!["--analyze", &dir];
        args.extend(extra);
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        String::from_utf8(output.stdout).unwrap()
    };
    assert!(analyze(&[]).contains("plain content"));
    let report = analyze(&["--template-name", "tool_use"]);
    assert!(report.contains("<tool_call>"), "{report}");
}

#[test]
fn an_unknown_template_name_lists_the_model_s_names() {
    let output = TempFile::new("unknown-name.txt", HERMES_CALL);
    let result = run(&[
        "--model-dir",
        &hermes_dir(),
        "--template-name",
        "rag",
        output.arg(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let err = stderr(&result);
    assert!(err.contains("--template-name"), "{err}");
    assert!(err.contains("default, tool_use"), "{err}");
}
