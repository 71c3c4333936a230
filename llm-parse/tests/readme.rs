//! The `llm-parse` commands that README.md and CONTRIBUTING.md show run as written from the repository
//! root, with the files they name (`examples/data/`, `templates/`, `corpus/`, fixtures), and succeed.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_llm-parse");

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// The `llm-parse …` commands of the `sh` code blocks of a document, continuation lines joined.
fn commands(document: &str) -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join(document))
        .unwrap_or_else(|error| panic!("read {document}: {error}"));
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (joined, continued) = match trimmed.strip_suffix('\\') {
            Some(head) => (format!("{pending}{head} "), true),
            None => (format!("{pending}{trimmed}"), false),
        };
        if continued {
            pending = joined;
            continue;
        }
        pending.clear();
        if joined.starts_with("llm-parse ") {
            commands.push(joined);
        }
    }
    commands
}

/// Runs one command line with `sh`, the built binary first on the `PATH`, from the repository root.
fn run_as_written(command: &str) {
    let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(workspace_root())
        .env("PATH", std::env::join_paths(dirs).expect("a PATH"))
        .output()
        .expect("run sh");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "`{command}` failed ({}):\n{stderr}",
        output.status
    );
    assert!(!output.stdout.is_empty(), "`{command}` printed nothing");
    assert!(!stderr.contains("panicked"), "`{command}`:\n{stderr}");
}

#[test]
fn every_readme_command_runs_as_written() {
    let readme = commands("README.md");
    // --list, --batch (twice), --analyze (twice), --render (twice), files, a model dir…
    assert!(readme.len() >= 10, "{readme:#?}");
    for command in &readme {
        run_as_written(command);
    }
}

#[test]
fn every_contributing_command_runs_as_written() {
    let contributing = commands("CONTRIBUTING.md");
    assert!(contributing.len() >= 3, "{contributing:#?}");
    for command in &contributing {
        run_as_written(command);
    }
}

#[test]
fn the_readme_says_how_to_install_the_binary() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    assert!(readme.contains("cargo install --path llm-parse"));
}

/// `shown` (a README excerpt of `actual`): equal, except that a string with `…` stands for any string
/// that starts with its text before the `…`, and an object with a `"…"` key for one that has at least
/// its other members.
fn shows(shown: &serde_json::Value, actual: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (shown, actual) {
        (Value::String(s), Value::String(a)) => match s.split_once('…') {
            Some((head, _)) => a.starts_with(head),
            None => s == a,
        },
        (Value::Object(s), Value::Object(a)) => {
            (s.contains_key("…") || s.len() == a.len())
                && s.iter()
                    .filter(|(key, _)| *key != "…")
                    .all(|(key, value)| a.get(key).is_some_and(|a| shows(value, a)))
        }
        (Value::Array(s), Value::Array(a)) => {
            s.len() == a.len() && s.iter().zip(a).all(|(s, a)| shows(s, a))
        }
        _ => shown == actual,
    }
}

/// The same grammar text, except for the key order of `%json` schemas (serde_json keeps the tools file's
/// order when a crate of the build turns on its `preserve_order` feature, as the workspace's test build
/// does, and sorts the keys otherwise).
fn same_grammar(shown: &str, actual: &str) -> bool {
    let json = |line: &str| {
        line.split_once(": %json ").and_then(|(rule, schema)| {
            Some((
                rule.to_owned(),
                serde_json::from_str::<serde_json::Value>(schema).ok()?,
            ))
        })
    };
    shown.lines().count() == actual.lines().count()
        && shown
            .lines()
            .zip(actual.lines())
            .all(|(s, a)| match (json(s), json(a)) {
                (Some(s), Some(a)) => s == a,
                _ => s == a,
            })
}

#[test]
fn the_grammar_examples_show_the_real_output() {
    let text = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let lines: Vec<&str> = text.lines().collect();
    let mut checked = 0;
    // A `--grammar` command alone in its block, followed by the block of what it prints.
    for (at, line) in lines.iter().enumerate() {
        if !line.starts_with("llm-parse --grammar ")
            || lines.get(at + 1) != Some(&"```")
            || lines.get(at.wrapping_sub(1)) != Some(&"```sh")
        {
            continue;
        }
        let command = line.to_owned();
        let mut rest = lines[at + 2..].iter();
        let fence = *rest
            .find(|l| !l.trim().is_empty())
            .expect("an output block");
        let shown: String = rest
            .take_while(|l| l.trim() != "```")
            .map(|l| format!("{l}\n"))
            .collect();
        let output = Command::new(BIN)
            .args(command.split_whitespace().skip(1))
            .current_dir(workspace_root())
            .output()
            .expect("run llm-parse");
        assert!(output.status.success(), "{command}");
        let actual = String::from_utf8(output.stdout).expect("UTF-8");
        match fence {
            "```text" => assert!(
                same_grammar(&shown, &actual),
                "{command}:\n{shown}\nis not\n{actual}"
            ),
            "```json" => {
                let shown: serde_json::Value = serde_json::from_str(&shown).expect("shown JSON");
                let actual: serde_json::Value = serde_json::from_str(&actual).expect("JSON");
                assert!(
                    shows(&shown, &actual),
                    "{command}: {shown:#}\nis not\n{actual:#}"
                );
            }
            other => panic!("{command}: output block {other}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 3);
}
