//! A hostile chat template given to the CLI: `--render`, `--analyze`, `--template` and `--model-dir`
//! print the limit's error and exit 2 (where the library falls back to plain content with a warning).

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

/// Doubles a string until the render budget stops it.
const HOSTILE: &str = "{% for m in messages %}{{ m.content }}{% endfor %}\
    {% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("llm-parse-limits-{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_llm-parse"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("llm-parse runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn render_prints_the_limit_and_exits_2() {
    let dir = scratch("render");
    let template = dir.join("chat_template.jinja");
    fs::write(&template, HOSTILE).unwrap();
    let request = r#"{"messages": [{"role": "user", "content": "Hi"}]}"#;
    for args in [
        vec!["--render", "-", "--template", template.to_str().unwrap()],
        vec!["--render", "-", "--model-dir", dir.to_str().unwrap()],
    ] {
        let out = run(&args, request);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("limit `"), "{args:?}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing rendered is printed"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parsing_and_analysing_a_hostile_template_fail_with_the_limit() {
    let dir = scratch("parse");
    let template = dir.join("chat_template.jinja");
    fs::write(&template, HOSTILE).unwrap();
    // The library falls back to plain content (with a warning); the command line says why and fails.
    for args in [
        vec!["--template", template.to_str().unwrap(), "-"],
        vec!["--model-dir", dir.to_str().unwrap(), "-"],
        vec!["--analyze", template.to_str().unwrap()],
    ] {
        let out = run(&args, "Hello there");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("limit `"), "{args:?}: {stderr}");
    }
    fs::remove_dir_all(&dir).unwrap();
}
