//! `cargo xtask conformance [--family NAME] [--verbose]`.
//!
//! Loads every `*.jsonl` file under `corpus/vllm/`, `corpus/sglang/`, `corpus/llama_cpp/`, `corpus/ollama/` and
//! `corpus/authored/` (`parser_core::testing::load_cases`) and, when it exists, `corpus/deviations/*.jsonl`
//! (`load_deviations`): a case with a deviation is compared with the deviation's expectation instead of its
//! own. Each case's model is resolved with `parser_auto::entry_for_model`; a case whose model does not
//! resolve is counted under "no family parser yet" and skipped: its model has no family crate yet (a
//! server reaches it through its chat template: the generic parser, tested by `template_corpus`), so it
//! is not a failure. Every other case runs one-shot and under
//! [`Chunking::standard`] (whole, 1/2/3/5/8 characters, eight random splits, the resolved parser's special tokens whole), all
//! of which must give the same message (`check_chunkings`), and that message is compared with the
//! expectation (`compare`). A parser that panics fails the case; the run goes on.
//!
//! With `--family NAME`, only cases whose model resolves to a parser of that family are counted (cases
//! with no parser are not counted either, and files left with no case are not listed).
//!
//! Prints one row per corpus file (cases, no family parser yet, pass, fail, deviations used) and a total; with
//! `--verbose`, every failure's id and message. Exits with 1 when any resolved case fails.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use parser_core::testing::{
    Case, Chunking, Deviation, check_chunkings, compare, load_cases, load_deviations,
};

use crate::flags;

/// The corpus sources, each a directory under `corpus/`: cases transcribed from the peers, and cases
/// written here (`authored/`, one file per family, started by `cargo xtask new-family`).
const SOURCES: &[&str] = &["vllm", "sglang", "llama_cpp", "ollama", "authored"];

/// The results of one corpus file.
#[derive(Debug, Default)]
struct FileReport {
    /// Path relative to `corpus/`.
    name: String,
    cases: usize,
    no_parser: usize,
    pass: usize,
    fail: usize,
    deviations_used: usize,
    /// Case id and message of each failure.
    failures: Vec<(String, String)>,
}

impl FileReport {
    fn add(&mut self, other: &FileReport) {
        self.cases += other.cases;
        self.no_parser += other.no_parser;
        self.pass += other.pass;
        self.fail += other.fail;
        self.deviations_used += other.deviations_used;
    }
}

/// Runs the corpus.
pub fn run(flags: &flags::Conformance) -> Result<ExitCode, String> {
    let corpus = crate::project_root().join("corpus");
    let files = corpus_files(&corpus)?;
    if files.is_empty() {
        return Err(format!(
            "no *.jsonl files under {}/{{{}}}",
            corpus.display(),
            SOURCES.join(",")
        ));
    }
    let deviations = load_deviations(&corpus.join("deviations"));

    let mut reports = Vec::new();
    let mut seen_ids = HashSet::new();
    for path in &files {
        let name = path
            .strip_prefix(&corpus)
            .unwrap_or(path)
            .display()
            .to_string();
        let cases = load_cases(path);
        seen_ids.extend(cases.iter().map(|case| case.id.clone()));
        let report = run_file(name, &cases, &deviations, flags.family.as_deref());
        if flags.family.is_none() || report.cases > 0 {
            reports.push(report);
        }
    }

    print_table(&reports);
    let mut unused: Vec<&str> = deviations
        .keys()
        .filter(|id| !seen_ids.contains(*id))
        .map(String::as_str)
        .collect();
    unused.sort_unstable();
    for id in unused {
        println!("warning: corpus/deviations/ has a deviation for `{id}`, which is no corpus case");
    }

    let failures: usize = reports.iter().map(|r| r.fail).sum();
    if flags.verbose {
        for report in &reports {
            for (id, message) in &report.failures {
                println!("\nFAIL {id} ({})\n{}", report.name, indent(message));
            }
        }
    } else if failures > 0 {
        println!("{failures} failure(s); run with --verbose to see them.");
    }
    Ok(if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Every `*.jsonl` file of the sources, sorted by source then name.
fn corpus_files(corpus: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for source in SOURCES {
        let dir = corpus.join(source);
        if !dir.is_dir() {
            println!("warning: {} does not exist", dir.display());
            continue;
        }
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut in_dir: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        in_dir.sort();
        files.extend(in_dir);
    }
    Ok(files)
}

fn run_file(
    name: String,
    cases: &[Case],
    deviations: &HashMap<String, Deviation>,
    family: Option<&str>,
) -> FileReport {
    let mut report = FileReport {
        name,
        ..FileReport::default()
    };
    for case in cases {
        let Ok(entry) = parser_auto::entry_for_model(&case.model) else {
            if family.is_none() {
                report.cases += 1;
                report.no_parser += 1;
            }
            continue;
        };
        if family.is_some_and(|family| !entry.family.eq_ignore_ascii_case(family)) {
            continue;
        }
        report.cases += 1;
        let expected = match deviations.get(&case.id) {
            Some(deviation) => {
                report.deviations_used += 1;
                &deviation.expected
            }
            None => &case.expected,
        };
        let options = case.options();
        let chunkings = Chunking::standard(entry.special_tokens);
        let outcome =
            quietly(|| check_chunkings(&|| entry.parser(&options), &case.output, &chunkings))
                .and_then(|checked| checked)
                .and_then(|message| compare(&message, expected));
        match outcome {
            Ok(()) => report.pass += 1,
            Err(message) => {
                report.fail += 1;
                report.failures.push((case.id.clone(), message));
            }
        }
    }
    report
}

thread_local! {
    /// The last panic's message, recorded by the hook [`quietly`] installs.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into an `Err` with its message and location instead of printing it.
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        PANIC.with(|slot| *slot.borrow_mut() = Some(info.to_string()));
    }));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    result.map_err(|_| {
        let message = PANIC.with(|slot| slot.borrow_mut().take());
        format!(
            "parser panicked: {}",
            message.unwrap_or_else(|| "(no message)".to_owned())
        )
    })
}

fn print_table(reports: &[FileReport]) {
    let mut total = FileReport {
        name: "total".to_owned(),
        ..FileReport::default()
    };
    for report in reports {
        total.add(report);
    }
    let header = [
        "file",
        "cases",
        "no family parser yet",
        "pass",
        "fail",
        "deviations used",
    ];
    let rows: Vec<[String; 6]> = reports
        .iter()
        .chain(std::iter::once(&total))
        .map(|r| {
            [
                r.name.clone(),
                r.cases.to_string(),
                r.no_parser.to_string(),
                r.pass.to_string(),
                r.fail.to_string(),
                r.deviations_used.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, &width))| {
                if i == 0 {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        format!("| {} |", padded.join(" | "))
    };
    println!("{}", line(&header.map(str::to_owned)));
    // Markdown: the first column left-aligned, numbers right-aligned.
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            if i == 0 {
                "-".repeat(w + 2)
            } else {
                format!("{}:", "-".repeat(w + 1))
            }
        })
        .collect();
    println!("|{}|", rule.join("|"));
    for row in &rows {
        println!("{}", line(row));
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_is_found() {
        let files = corpus_files(&crate::project_root().join("corpus")).unwrap();
        assert!(
            files.iter().any(|f| f.ends_with("vllm/deepseek_v31.jsonl")),
            "{files:?}"
        );
    }

    fn case(id: &str, model: &str, output: &str, content: &str) -> Case {
        serde_json::from_value(serde_json::json!({
            "id": id,
            "model": model,
            "prompt_tail": "<｜Assistant｜></think>",
            "output": output,
            "expected": {"reasoning": null, "content": content, "tool_calls": null},
        }))
        .unwrap()
    }

    #[test]
    fn cases_are_counted() {
        let cases = [
            case("t/ok", "deepseek-ai/DeepSeek-V3.1", "Hello.", "Hello."),
            case("t/bad", "deepseek-ai/DeepSeek-V3.1", "Hello.", "Goodbye."),
            case("t/fixed", "deepseek-ai/DeepSeek-V3.1", "Hello.", "Goodbye."),
            case("t/none", "no-such-org/NoSuchModel-7B", "Hello.", "Hello."),
        ];
        let deviation: Deviation = serde_json::from_value(serde_json::json!({
            "id": "t/fixed",
            "reason": "test",
            "expected": {"content": "Hello."},
        }))
        .unwrap();
        let deviations = HashMap::from([(deviation.id.clone(), deviation)]);
        let report = run_file("t".into(), &cases, &deviations, None);
        assert_eq!(
            (
                report.cases,
                report.no_parser,
                report.pass,
                report.fail,
                report.deviations_used
            ),
            (4, 1, 2, 1, 1)
        );
        assert_eq!(report.failures[0].0, "t/bad");

        let report = run_file("t".into(), &cases, &deviations, Some("DeepSeek"));
        assert_eq!((report.cases, report.no_parser, report.fail), (3, 0, 1));
        let report = run_file("t".into(), &cases, &deviations, Some("qwen"));
        assert_eq!(report.cases, 0);
    }

    #[test]
    fn panics_become_errors() {
        assert_eq!(quietly(|| 1), Ok(1));
        let err = quietly(|| -> u8 { panic!("boom") }).unwrap_err();
        assert!(err.contains("boom"), "{err}");
    }
}
