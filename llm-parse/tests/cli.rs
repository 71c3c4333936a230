//! End-to-end tests of the `llm-parse` binary: every mode, run as a user would run it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_llm-parse");

const V31_MODEL: &str = "deepseek-ai/DeepSeek-V3.1";
const V31_OUTPUT: &str = "REASONING</think>CONTENT<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
const V31_TAIL: &str = "<｜Assistant｜><think>";

/// A file under the temp dir, removed when dropped.
struct TempFile(PathBuf);

impl std::ops::Deref for TempFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempFile {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A fresh file under the temp dir with `contents`; unique per test process and call.
fn temp_file(name: &str, contents: &str) -> TempFile {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(
        "llm-parse-cli-{}-{unique}-{name}",
        std::process::id()
    ));
    std::fs::write(&path, contents).expect("write temp file");
    TempFile(path)
}

/// Runs the binary with no stdin.
fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run llm-parse")
}

/// Runs the binary with `input` on stdin.
fn run_with_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn llm-parse");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write stdin");
    drop(stdin);
    child.wait_with_output().expect("wait for llm-parse")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        stdout(output),
        stderr(output)
    );
}

/// Exit code 2, one `llm-parse: error:` line on stderr mentioning `needle`, and no panic.
fn assert_user_error(output: &Output, needle: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "stderr: {err}");
    assert!(err.starts_with("llm-parse: error: "), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.contains(needle), "`{needle}` not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn json_line(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
}

#[test]
fn no_arguments_shows_every_registered_parser_without_reading_stdin() {
    // Keep stdin open and never write to it: a run that read stdin would hang until the deadline.
    let out = temp_file("samples.out", "");
    let mut child = Command::new(BIN)
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(&out).expect("create output file"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn llm-parse");
    let _stdin = child.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll llm-parse") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("llm-parse with no arguments did not finish: is it reading stdin?");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let text = std::fs::read_to_string(&out).expect("read output");
    let entries = parser_auto::entries();
    assert!(!entries.is_empty(), "no parsers registered");
    for entry in entries {
        assert!(
            text.contains(&format!("=== {} ", entry.name)),
            "{} missing:\n{text}",
            entry.name
        );
    }
    assert!(text.contains("\"tool_calls\": ["), "{text}");
}

#[test]
fn list_shows_the_registry() {
    let output = run(&["--list"]);
    assert_success(&output);
    let text = stdout(&output);
    assert!(text.starts_with("FAMILY"), "{text}");
    assert!(
        text.lines()
            .any(|line| line.starts_with("deepseek") && line.contains("deepseek-r1")),
        "{text}"
    );
}

#[test]
fn help_and_version() {
    for flag in ["--help", "-h"] {
        let output = run(&[flag]);
        assert_success(&output);
        let text = stdout(&output);
        assert!(
            text.contains("--model") && text.contains("EXAMPLES"),
            "{text}"
        );
    }
    let output = run(&["--version"]);
    assert_success(&output);
    assert!(stdout(&output).starts_with(&format!("llm-parse {}", env!("CARGO_PKG_VERSION"))));
}

#[test]
fn one_shot_on_a_file() {
    let file = temp_file("v31.txt", V31_OUTPUT);
    let output = run(&[
        "--model",
        V31_MODEL,
        "--prompt-tail",
        V31_TAIL,
        file.to_str().unwrap(),
    ]);
    assert_success(&output);
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 1, "{text}");
    let message = json_line(text.trim_end());
    assert_eq!(message["reasoning"], "REASONING");
    assert_eq!(message["content"], "CONTENT");
    let calls = message["tool_calls"].as_array().expect("tool_calls array");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["name"], "get_time");
    assert_eq!(calls[0]["arguments"], json!({"city": "Paris"}));
    assert_eq!(calls[0]["valid"], true);
    assert!(calls[0]["id"].as_str().is_some_and(|id| !id.is_empty()));
    // Fields in reading order.
    assert!(
        text.starts_with(r#"{"reasoning":"REASONING","content":"CONTENT","tool_calls":[{"id":"#),
        "{text}"
    );
}

#[test]
fn stdin_is_read_for_dash_and_for_no_file() {
    let file = temp_file("v31-stdin.txt", V31_OUTPUT);
    let from_file = run(&[
        "--model",
        V31_MODEL,
        "--prompt-tail",
        V31_TAIL,
        file.to_str().unwrap(),
    ]);
    assert_success(&from_file);
    for extra in [&["-"][..], &[]] {
        let mut args = vec!["--model", V31_MODEL, "--prompt-tail", V31_TAIL];
        args.extend_from_slice(extra);
        let output = run_with_stdin(&args, V31_OUTPUT);
        assert_success(&output);
        assert_eq!(stdout(&output), stdout(&from_file));
    }
}

#[test]
fn parser_by_name_and_tools_file() {
    let file = temp_file("v31-name.txt", V31_OUTPUT);
    let tools = temp_file(
        "tools.json",
        r#"[{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]"#,
    );
    let by_model = run(&[
        "--model",
        V31_MODEL,
        "--prompt-tail",
        V31_TAIL,
        file.to_str().unwrap(),
    ]);
    let by_name = run(&[
        "--parser",
        "deepseek_v31",
        "--prompt-tail",
        V31_TAIL,
        "--tools",
        tools.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_success(&by_name);
    let message = json_line(stdout(&by_name).trim_end());
    assert_eq!(message["tool_calls"][0]["name"], "get_time");
    assert_eq!(stdout(&by_name), stdout(&by_model));

    // FastDeploy's strict rule: the answer text before the call block makes the block content.
    let strict = run(&[
        "--model",
        V31_MODEL,
        "--prompt-tail",
        V31_TAIL,
        "--strict",
        file.to_str().unwrap(),
    ]);
    assert_success(&strict);
    json_line(stdout(&strict).trim_end());
}

/// DeepSeek outputs: (model, prompt tail, output).
fn deepseek_outputs() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        (V31_MODEL, V31_TAIL, V31_OUTPUT),
        (
            V31_MODEL,
            "<｜Assistant｜></think>",
            "Sure, «both».<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{\"x\":1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>bar<｜tool▁sep｜>{\"y\": \"é😀\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        (
            "deepseek-ai/DeepSeek-R1",
            "",
            "<think>Let me think about «this» 😀.</think>The answer is 42.",
        ),
        (
            "deepseek-ai/DeepSeek-R1",
            "<｜Assistant｜><think>\n",
            "Okay.</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Par",
        ),
    ]
}

fn parse_args<'a>(model: &'a str, tail: &'a str, file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--model", model];
    if !tail.is_empty() {
        args.extend(["--prompt-tail", tail]);
    }
    args.extend_from_slice(extra);
    args.push(file);
    args
}

#[test]
fn chunked_runs_print_exactly_the_one_shot_result() {
    for (model, tail, text) in deepseek_outputs() {
        let file = temp_file("chunks.txt", text);
        let file = file.to_str().unwrap();
        let one_shot = run(&parse_args(model, tail, file, &[]));
        assert_success(&one_shot);
        for chunk in ["1", "3", "random:7", "random:0"] {
            let chunked = run(&parse_args(model, tail, file, &["--chunk", chunk]));
            assert_success(&chunked);
            assert_eq!(
                stdout(&chunked),
                stdout(&one_shot),
                "--chunk {chunk} on {text:?}"
            );
        }
    }
}

#[test]
fn stream_prints_deltas_then_the_final_message() {
    for (model, tail, text) in deepseek_outputs() {
        let file = temp_file("stream.txt", text);
        let file = file.to_str().unwrap();
        let one_shot = json_line(stdout(&run(&parse_args(model, tail, file, &[]))).trim_end());
        for extra in [
            &["--stream"][..],
            &["--stream", "--chunk", "1"],
            &["--stream", "--chunk", "random:3"],
        ] {
            let output = run(&parse_args(model, tail, file, extra));
            assert_success(&output);
            let lines: Vec<Value> = stdout(&output).lines().map(json_line).collect();
            let (last, deltas) = lines.split_last().expect("at least the final line");
            assert_eq!(last["final"], one_shot, "{extra:?} on {text:?}");

            // The deltas add up to the final message.
            let (mut reasoning, mut content) = (String::new(), String::new());
            let mut arguments: Vec<String> = Vec::new();
            for delta in deltas {
                let object = delta.as_object().expect("a delta is an object");
                assert_eq!(object.len(), 1, "{delta}");
                if let Some(text) = delta["reasoning"].as_str() {
                    assert!(!text.is_empty());
                    reasoning.push_str(text);
                } else if let Some(text) = delta["content"].as_str() {
                    assert!(!text.is_empty());
                    content.push_str(text);
                } else if delta.get("tool_call_start").is_some() {
                    assert_eq!(delta["tool_call_start"]["index"], arguments.len());
                    arguments.push(String::new());
                } else if let Some(fragment) = delta["tool_call_arguments"]["fragment"].as_str() {
                    let index = delta["tool_call_arguments"]["index"].as_u64().unwrap() as usize;
                    arguments[index].push_str(fragment);
                } else {
                    assert!(delta.get("tool_call_end").is_some(), "{delta}");
                }
            }
            let trimmed = |text: &str| (!text.trim().is_empty()).then(|| text.to_owned());
            assert_eq!(
                last["final"]["reasoning"].as_str().map(str::to_owned),
                trimmed(&reasoning)
            );
            assert_eq!(
                last["final"]["content"].as_str().map(str::to_owned),
                trimmed(&content)
            );
            assert_eq!(
                arguments.len(),
                one_shot["tool_calls"].as_array().unwrap().len()
            );
        }
    }
}

#[test]
fn batch_gives_one_line_per_case_and_errors_only_where_expected() {
    let good = json!({
        "id": "t/good", "model": V31_MODEL, "prompt_tail": V31_TAIL, "thinking": true, "tools": null,
        "output": V31_OUTPUT, "expected": {"ignored": true},
    });
    let inline = json!({
        "id": "t/inline", "model": "deepseek-ai/DeepSeek-R1", "prompt_tail": null, "thinking": null,
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}],
        "llama_cpp": {"reasoning_format": "none"},
        "output": "<think>hmm</think>Hi.",
    });
    let unknown = json!({"id": "t/unknown", "model": "acme/NoSuchModel-7B", "output": "hi"});
    let template = json!({"id": "t/template", "model": "acme/NoSuchModel-7B", "template": "acme.jinja", "output": "hi"});
    let lines = [
        good.to_string(),
        "{this is not json".to_owned(),
        String::new(),
        unknown.to_string(),
        inline.to_string(),
        template.to_string(),
    ];
    let file = temp_file("cases.jsonl", &lines.join("\n"));
    for extra in [&[][..], &["--chunk", "1"], &["--chunk", "random:7"]] {
        let mut args = vec!["--batch", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let output = run(&args);
        // Three cases cannot be run: every line is printed, and the run fails loudly.
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("3 of 5 cases could not be run"),
            "{}",
            stderr(&output)
        );
        let results: Vec<Value> = stdout(&output).lines().map(json_line).collect();
        assert_eq!(results.len(), 5, "{}", stdout(&output));

        assert_eq!(results[0]["id"], "t/good");
        assert_eq!(results[0]["error"], Value::Null);
        assert_eq!(
            results[0]["route"],
            "family parser `deepseek-v3.1` (by model name)"
        );
        let keys: Vec<&str> = results[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys.len(), 6);
        assert_eq!(results[0]["reasoning"], "REASONING");
        assert_eq!(
            results[0]["tool_calls"][0]["arguments"],
            json!({"city": "Paris"})
        );

        assert_eq!(results[1]["id"], Value::Null);
        assert!(
            results[1]["error"]
                .as_str()
                .unwrap()
                .starts_with("line 2: "),
            "{}",
            results[1]
        );

        assert_eq!(results[2]["id"], "t/unknown");
        assert!(
            results[2]["error"]
                .as_str()
                .unwrap()
                .contains("acme/NoSuchModel-7B")
        );
        assert_eq!(results[2]["tool_calls"], json!([]));

        assert_eq!(results[3]["id"], "t/inline");
        assert_eq!(results[3]["error"], Value::Null);
        assert_eq!(results[3]["reasoning"], Value::Null);
        assert!(
            results[3]["content"]
                .as_str()
                .unwrap()
                .contains("<think>hmm</think>")
        );

        assert_eq!(results[4]["id"], "t/template");
        assert!(results[4]["error"].as_str().unwrap().contains("template"));
        assert_eq!(results[4]["route"], Value::Null);

        assert!(
            stderr(&output).contains("3 of 5 cases"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn batch_over_the_vllm_deepseek_v31_corpus() {
    let corpus = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/vllm/deepseek_v31.jsonl"
    ));
    let cases = std::fs::read_to_string(corpus).expect("read corpus");
    let count = cases.lines().filter(|line| !line.trim().is_empty()).count();
    let corpus = corpus.to_str().unwrap();

    let one_shot = run(&["--batch", corpus]);
    assert_success(&one_shot);
    let text = stdout(&one_shot);
    assert_eq!(text.lines().count(), count);
    for (line, case) in text
        .lines()
        .zip(cases.lines().filter(|line| !line.trim().is_empty()))
    {
        let result = json_line(line);
        assert_eq!(result["error"], Value::Null, "{line}");
        assert_eq!(result["id"], json_line(case)["id"]);
    }
    // The streaming path, however cut, gives the same lines.
    for chunk in ["1", "random:7"] {
        let chunked = run(&["--batch", corpus, "--chunk", chunk]);
        assert_success(&chunked);
        assert_eq!(stdout(&chunked), text, "--chunk {chunk}");
    }
}

#[test]
fn user_errors_exit_2_with_one_clear_line() {
    let file = temp_file("errors.txt", "hello");
    let file = file.to_str().unwrap();
    let bad_tools = temp_file("bad-tools.json", "[{\"type\": ");
    let no_name_tools = temp_file(
        "no-name-tools.json",
        r#"[{"type": "function", "function": {}}]"#,
    );
    let template = temp_file("chat.jinja", "{{ messages }}");
    let broken_template = temp_file("broken.jinja", "{% for m in messages %}{{ m.content }}");
    let missing = std::env::temp_dir().join("llm-parse-cli-this-file-does-not-exist.txt");
    let missing = missing.to_str().unwrap();

    assert_user_error(&run(&["--bogus"]), "--bogus");
    assert_user_error(&run(&["--model"]), "needs a value");
    assert_user_error(
        &run(&["--model", V31_MODEL, "--chunk", "0", file]),
        "--chunk",
    );
    assert_user_error(
        &run(&["--model", V31_MODEL, "--thinking", "maybe", file]),
        "--thinking",
    );
    assert_user_error(&run(&["--model", V31_MODEL, missing]), "cannot read");
    assert_user_error(
        &run(&["--model", "acme/NoSuchModel-7B", file]),
        "acme/NoSuchModel-7B",
    );
    assert_user_error(
        &run(&["--parser", "no-such-parser", file]),
        "no-such-parser",
    );
    assert_user_error(&run(&[file]), "--model");
    assert_user_error(
        &run(&[
            "--model",
            V31_MODEL,
            "--tools",
            bad_tools.to_str().unwrap(),
            file,
        ]),
        "not valid JSON",
    );
    assert_user_error(
        &run(&[
            "--model",
            V31_MODEL,
            "--tools",
            no_name_tools.to_str().unwrap(),
            file,
        ]),
        "tool 0",
    );
    assert_user_error(
        &run(&[
            "--model",
            "acme/NoSuchModel-7B",
            "--template",
            broken_template.to_str().unwrap(),
            file,
        ]),
        "does not compile",
    );
    assert_user_error(
        &run(&["--template", broken_template.to_str().unwrap(), file]),
        "broken.jinja",
    );
    assert_user_error(&run(&["--template", missing, file]), "cannot read");
    assert_user_error(&run(&["--model-dir", file, file]), "not a directory");
    assert_user_error(
        &run(&["--template", template.to_str().unwrap(), "--model-dir", "."]),
        "not both",
    );
    assert_user_error(&run(&["--analyze", missing]), "cannot read");
    assert_user_error(
        &run(&["--analyze", broken_template.to_str().unwrap()]),
        "does not compile",
    );
    assert_user_error(&run(&["--model", V31_MODEL, "--json", file]), "--analyze");
    assert_user_error(&run(&["--batch", missing]), "cannot read");
}

#[test]
fn a_template_is_not_needed_when_the_model_is_known() {
    let file = temp_file("with-template.txt", V31_OUTPUT);
    let template = temp_file("known.jinja", "{{ messages }}");
    let output = run(&[
        "--model",
        V31_MODEL,
        "--template",
        template.to_str().unwrap(),
        "--prompt-tail",
        V31_TAIL,
        file.to_str().unwrap(),
    ]);
    assert_success(&output);
}

/// The `llm-parse: hint:` lines of a run's stderr.
fn hint_lines(output: &Output) -> Vec<String> {
    stderr(output)
        .lines()
        .filter(|line| line.starts_with("llm-parse: hint: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_closer_in_content_when_nothing_said_where_the_output_starts_gives_a_hint() {
    let file = temp_file("no-stage.txt", V31_OUTPUT);
    let file = file.to_str().unwrap();
    // DeepSeek-V3.1 and Qwen3 start in the answer unless the request says otherwise: the model's
    // `</think>` then lands in the content, and the user is told why, once, however the output is cut.
    for model in [V31_MODEL, "Qwen/Qwen3-8B"] {
        for chunk in [None, Some("1"), Some("random:7")] {
            let mut args = vec!["--model", model, file];
            args.extend(chunk.iter().flat_map(|chunk| ["--chunk", chunk]));
            let output = run(&args);
            assert_success(&output);
            let message = json_line(stdout(&output).trim_end());
            assert!(
                message["content"].as_str().unwrap().contains("</think>"),
                "{message}"
            );
            let hints = hint_lines(&output);
            assert_eq!(hints.len(), 1, "{model} {chunk:?}: {}", stderr(&output));
            assert!(hints[0].contains("`</think>`"), "{}", hints[0]);
            assert!(hints[0].contains("--prompt-tail"), "{}", hints[0]);
        }
    }
    // Whatever the request says, it decided: no hint (even when the output disagrees with it).
    let said: [&[&str]; 4] = [
        &["--prompt-tail", V31_TAIL],
        &["--thinking", "on"],
        &["--thinking", "off"],
        &["--stage", "content"],
    ];
    for extra in said {
        let mut args = vec!["--model", V31_MODEL, file];
        args.extend(extra);
        let output = run(&args);
        assert_success(&output);
        assert!(
            hint_lines(&output).is_empty(),
            "{extra:?}: {}",
            stderr(&output)
        );
    }
    // R1 starts in reasoning by default: its `</think>` ends it.
    let r1 = run(&["--model", "deepseek-ai/DeepSeek-R1", file]);
    assert_success(&r1);
    assert!(hint_lines(&r1).is_empty(), "{}", stderr(&r1));
}

#[test]
fn a_closed_stdout_is_not_a_crash() {
    let mut child = Command::new(BIN)
        .arg("--help")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn llm-parse");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait for llm-parse");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stderr(&output).contains("panicked"));
}

// The issue's "done means": `--batch` over every copied DeepSeek corpus file gives no error for any case,
// and exactly the same lines with `--chunk 1` and `--chunk random:SEED` as one-shot.
#[test]
fn batch_over_every_deepseek_corpus_file_is_identical_in_every_mode() {
    let files = [
        "vllm/deepseek_r1_reasoning.jsonl",
        "vllm/deepseek_v3.jsonl",
        "vllm/deepseek_v31.jsonl",
        "vllm/deepseek_v32.jsonl",
        "vllm/deepseek_v3_reasoning.jsonl",
        "sglang/deepseek.jsonl",
        "llama_cpp/deepseek_r1.jsonl",
        "llama_cpp/deepseek_v31.jsonl",
    ];
    for file in files {
        let path = format!("{}/../corpus/{file}", env!("CARGO_MANIFEST_DIR"));
        let one_shot = run(&["--batch", &path]);
        assert_success(&one_shot);
        let lines = stdout(&one_shot);
        for line in lines.lines() {
            assert_eq!(json_line(line)["error"], Value::Null, "{file}: {line}");
        }
        for chunk in ["1", "random:7", "random:12345"] {
            let chunked = run(&["--batch", &path, "--chunk", chunk]);
            assert_success(&chunked);
            assert_eq!(stdout(&chunked), lines, "{file} with --chunk {chunk}");
        }
    }
}

const QWEN3_CODER_CALL: &str =
    "<tool_call>\n<function=get>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>";

fn workspace_path(relative: &str) -> String {
    format!("{}/../{relative}", env!("CARGO_MANIFEST_DIR"))
}

/// The `llm-parse: route: ...` lines of a run's stderr.
fn route_lines(output: &Output) -> Vec<String> {
    stderr(output)
        .lines()
        .filter(|line| line.starts_with("llm-parse: route: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn analyze_prints_the_modes_markers_and_route() {
    let template = workspace_path("templates/Qwen3-Coder.jinja");
    let output = run(&["--analyze", &template]);
    assert_success(&output);
    let report = stdout(&output);
    assert!(
        report.contains("TAG_WITH_TAGGED") || report.contains("TagWithTagged"),
        "{report}"
    );
    let route = report
        .lines()
        .find(|line| line.starts_with("route:"))
        .unwrap_or_else(|| panic!("no route line in:\n{report}"));
    assert!(route.contains("parser"), "{route}");
    assert!(report.contains("<parameter="), "{report}");
    assert!(report.contains("preserved tokens"), "{report}");

    let output = run(&["--analyze", &template, "--json"]);
    assert_success(&output);
    let analysis = json_line(&stdout(&output));
    assert_eq!(analysis["tools"], "TAG_WITH_TAGGED");
    assert_eq!(analysis["markers"]["func_name_prefix"], "<function=");
    // The route, in the JSON too: the same sentence as the report's, and its parts.
    assert_eq!(analysis["template"], "Qwen3-Coder.jinja");
    assert_eq!(
        analysis["route"]["description"],
        route.trim_start_matches("route:").trim()
    );
    assert!(analysis["route"]["kind"].is_string(), "{analysis}");
}

#[test]
fn analyze_shows_the_generation_prompt_and_plain_values() {
    let mistral = workspace_path("templates/mistralai-Mistral-Nemo-Instruct-2407.jinja");
    let output = run(&["--analyze", &mistral]);
    assert_success(&output);
    let report = stdout(&output);
    // What the template renders after the user's message, no probe text.
    assert!(
        report.contains("generation prompt: \"[/INST]\""),
        "{report}"
    );
    assert!(!report.contains("USER_MSG"), "{report}");
    assert!(report.contains("tools:      JSON_NATIVE"), "{report}");
    let json = json_line(&stdout(&run(&["--analyze", &mistral, "--json"])));
    assert_eq!(json["generation_prompt"], "[/INST]");
    // The analysis is shown even where the template routes to its family.
    assert_eq!(
        json["route"],
        json!({"kind": "template_signature", "parser": "mistral-v0.3",
               "description": "family parser `mistral-v0.3` (by template signature)"})
    );

    // A thinking switch: its default in words, no Rust values anywhere.
    let glm = workspace_path("templates/GLM-4.7-Flash.jinja");
    let output = run(&["--analyze", &glm]);
    assert_success(&output);
    let report = stdout(&output);
    assert!(
        report.contains("thinking:   switch `enable_thinking`, on by default"),
        "{report}"
    );
    assert!(
        report.contains("generation prompt: \"<|assistant|><think>\""),
        "{report}"
    );
    for debug in ["Some(", "None", "TagBased", "_USER_MSG"] {
        assert!(!report.contains(debug), "{debug}: {report}");
    }
    let json = json_line(&stdout(&run(&["--analyze", &glm, "--json"])));
    assert_eq!(
        json["route"],
        json!({"kind": "template_signature", "parser": "glm-4.7",
               "description": "family parser `glm-4.7` (by template signature)"})
    );
}

#[test]
fn analyze_refuses_what_is_not_a_template() {
    // A model output given by mistake, and a template that renders no conversation.
    let output = temp_file("not-a-template.txt", V31_OUTPUT);
    let no_messages = temp_file("no-messages.jinja", "{{ bos_token }}Hello");
    for file in [&output, &no_messages] {
        for json in [false, true] {
            let mut args = vec!["--analyze", file.to_str().unwrap()];
            if json {
                args.push("--json");
            }
            let result = run(&args);
            assert_user_error(&result, "is not a chat template");
            assert!(stdout(&result).is_empty(), "{}", stdout(&result));
        }
    }
}

#[test]
fn a_template_alone_picks_the_parser() {
    let template = workspace_path("templates/Qwen3-Coder.jinja");
    let file = temp_file("qwen3-coder.txt", QWEN3_CODER_CALL);
    let file = file.to_str().unwrap();
    let one_shot = run(&["--template", &template, file]);
    assert_success(&one_shot);
    let message = json_line(stdout(&one_shot).trim_end());
    assert_eq!(message["content"], Value::Null, "{message}");
    assert_eq!(message["tool_calls"][0]["name"], "get", "{message}");
    assert_eq!(message["tool_calls"][0]["valid"], true, "{message}");
    assert_eq!(message["tool_calls"][0]["arguments"]["a"], "1", "{message}");
    assert_eq!(route_lines(&one_shot).len(), 1, "{}", stderr(&one_shot));

    // Streamed however cut, the same message.
    for chunk in ["1", "random:7"] {
        let chunked = run(&["--template", &template, "--chunk", chunk, file]);
        assert_success(&chunked);
        assert_eq!(stdout(&chunked), stdout(&one_shot), "--chunk {chunk}");
    }

    // A model name that a registered parser knows wins over the template, and says so.
    let by_name = run(&[
        "--template",
        &template,
        "--model",
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        file,
    ]);
    assert_success(&by_name);
    assert_eq!(
        route_lines(&by_name),
        ["llm-parse: route: family parser `qwen3-coder` (by model name)"]
    );
    assert_eq!(
        json_line(stdout(&by_name).trim_end())["tool_calls"][0]["name"],
        "get"
    );

    // Plain --model runs print no route.
    let plain = run(&["--model", V31_MODEL, file]);
    assert_success(&plain);
    assert!(stderr(&plain).is_empty(), "{}", stderr(&plain));
}

#[test]
fn a_model_dir_gives_the_template_and_its_tokens() {
    let dir = std::env::temp_dir().join(format!("llm-parse-cli-model-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create model dir");
    let source = std::fs::read_to_string(workspace_path("templates/Qwen3-Coder.jinja"))
        .expect("read template");
    let config = json!({"chat_template": source, "eos_token": "<|im_end|>", "bos_token": null});
    std::fs::write(dir.join("tokenizer_config.json"), config.to_string()).expect("write config");
    let file = temp_file("model-dir.txt", QWEN3_CODER_CALL);
    let dir_arg = dir.to_str().unwrap();

    let output = run(&["--model-dir", dir_arg, file.to_str().unwrap()]);
    let analyzed = run(&["--analyze", dir_arg]);
    let as_template = run(&["--template", dir_arg, file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);

    assert_success(&output);
    assert_eq!(
        json_line(stdout(&output).trim_end())["tool_calls"][0]["name"],
        "get"
    );
    assert_eq!(route_lines(&output).len(), 1, "{}", stderr(&output));
    assert_success(&analyzed);
    assert!(
        stdout(&analyzed).contains("route:"),
        "{}",
        stdout(&analyzed)
    );
    assert_success(&as_template);
    assert_eq!(stdout(&as_template), stdout(&output));
}

#[test]
fn batch_with_templates_and_the_model_withheld() {
    let corpus = workspace_path("corpus/llama_cpp/qwen3_coder.jsonl");
    let templates = workspace_path("templates");
    let cases = std::fs::read_to_string(&corpus).expect("read corpus");
    let count = cases.lines().filter(|line| !line.trim().is_empty()).count();
    let args = [
        "--batch",
        &corpus,
        "--templates",
        &templates,
        "--ignore-model",
    ];
    let one_shot = run(&args);
    assert_success(&one_shot);
    let text = stdout(&one_shot);
    assert_eq!(text.lines().count(), count);
    for line in text.lines() {
        let result = json_line(line);
        assert_eq!(result["error"], Value::Null, "{line}");
        let route = result["route"].as_str().unwrap_or_default();
        assert!(
            !route.is_empty() && !route.contains("by model name"),
            "{line}"
        );
        assert!(line.starts_with("{\"id\":"), "{line}");
    }
    for chunk in ["1", "random:7"] {
        let mut chunked_args = args.to_vec();
        chunked_args.extend(["--chunk", chunk]);
        let chunked = run(&chunked_args);
        assert_success(&chunked);
        assert_eq!(stdout(&chunked), text, "--chunk {chunk}");
    }
    // With the model name given, the family parser is picked by it.
    let by_name = run(&["--batch", &corpus, "--templates", &templates]);
    assert_success(&by_name);
    for line in stdout(&by_name).lines() {
        assert_eq!(
            json_line(line)["route"],
            "family parser `qwen3-coder` (by model name)"
        );
    }
}

// Every llama.cpp corpus case with its template alone: no panic and no error field for any case
// (whether each result is right is checked by parser-auto's template_corpus test).
#[test]
fn batch_over_every_llama_cpp_file_by_template_alone() {
    let dir = workspace_path("corpus/llama_cpp");
    let templates = workspace_path("templates");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read corpus dir")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let (mut total, mut without_error) = (0usize, 0usize);
    for file in &files {
        let path = file.to_str().unwrap();
        let output = run(&["--batch", path, "--templates", &templates, "--ignore-model"]);
        assert_success(&output);
        assert!(
            !stderr(&output).contains("panicked"),
            "{path}: {}",
            stderr(&output)
        );
        let cases = std::fs::read_to_string(file).expect("read corpus file");
        let count = cases.lines().filter(|line| !line.trim().is_empty()).count();
        let text = stdout(&output);
        assert_eq!(text.lines().count(), count, "{path}");
        for line in text.lines() {
            let result = json_line(line);
            total += 1;
            if result["error"].is_null() {
                without_error += 1;
            } else {
                eprintln!("{path}: {line}");
            }
        }
    }
    println!("{without_error} of {total} llama.cpp cases ran without an error");
    assert_eq!(without_error, total);
}

fn template_path(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(file)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn render_prints_the_prompt_byte_for_byte() {
    let body = r#"{"model": "Qwen/Qwen3-8B", "temperature": 0.6,
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather, in °C",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "chat_template_kwargs": {"enable_thinking": false}}"#;
    let request = temp_file("request.json", body);
    let output = run(&[
        "--render",
        request.to_str().unwrap(),
        "--template",
        &template_path("Qwen-Qwen3-0.6B.jinja"),
    ]);
    assert_success(&output);
    let prompt = stdout(&output);
    assert!(
        prompt.starts_with("<|im_start|>system\nBe brief.\n\n# Tools\n"),
        "{prompt}"
    );
    // Keys in the request's order, printed as Python's json.dumps prints them.
    assert!(prompt.contains(
        r#"{"type": "function", "function": {"name": "get_weather", "description": "Weather, in °C", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}"#
    ), "{prompt}");
    assert!(
        prompt.ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n"),
        "{prompt}"
    );
    assert!(stderr(&output).is_empty());
}

#[test]
fn render_reports_polyfills_and_takes_stdin_and_overrides() {
    let messages =
        r#"[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]"#;
    let output = run_with_stdin(
        &[
            "--render",
            "-",
            "--template",
            &template_path("google-gemma-2-2b-it.jinja"),
        ],
        messages,
    );
    assert_success(&output);
    assert_eq!(
        stdout(&output),
        "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\n"
    );
    assert!(stderr(&output).contains("llm-parse: polyfill: SystemMergedIntoUser"));

    let thinking = run_with_stdin(
        &[
            "--render",
            "-",
            "--thinking",
            "off",
            "--template",
            &template_path("Qwen-Qwen3-0.6B.jinja"),
        ],
        r#"[{"role": "user", "content": "Hi"}]"#,
    );
    assert_success(&thinking);
    assert!(stdout(&thinking).ends_with("<think>\n\n</think>\n\n"));
}

#[test]
fn render_needs_a_template_and_valid_json() {
    assert_user_error(
        &run(&["--render", "x.json"]),
        "--render needs the chat template",
    );
    let bad = temp_file("bad.json", "{not json");
    let output = run(&[
        "--render",
        bad.to_str().unwrap(),
        "--template",
        &template_path("Qwen-Qwen3-0.6B.jinja"),
    ]);
    assert_user_error(&output, "not valid JSON");
    assert_user_error(
        &run(&["--render", "x.json", "--stream", "--template", "t.jinja"]),
        "does not apply to --render",
    );
}
