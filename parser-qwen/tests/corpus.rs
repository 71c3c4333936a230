//! Every Qwen case of the copied corpora (vLLM, SGLang, llama.cpp), run one-shot and under every chunking,
//! compared with the case's expectation — or, where the peer's expectation contradicts DESIGN.md §4, with
//! ours from `corpus/deviations/qwen.jsonl` (which states the reason).
//!
//! Cases whose model is not a Qwen model are skipped: `llama_cpp/hermes.jsonl` holds NousResearch
//! Hermes-2-Pro / Hermes-3 cases (Llama-3 models that happen to use the Hermes call format). No Qwen model
//! pattern claims them, by design: model patterns name model families, and the format is reachable by the
//! `hermes` alias.

use std::path::{Path, PathBuf};

use parser_core::testing::{Chunking, check_chunkings, compare, load_cases, load_deviations};
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// Whether a case's model is a Qwen model (anything else in these files is skipped, see the module docs).
fn is_qwen_model(model: &str) -> bool {
    let name = parser_core::normalize_model(model);
    name.contains("qwen") || name.contains("qwq")
}

#[rstest]
#[case("vllm/hermes.jsonl", 13)]
#[case("vllm/qwen3_coder.jsonl", 8)]
#[case("vllm/qwen3_reasoning.jsonl", 17)]
#[case("sglang/qwen.jsonl", 25)]
#[case("sglang/qwen3_coder.jsonl", 22)]
#[case("llama_cpp/qwen.jsonl", 4)]
#[case("llama_cpp/qwen3_coder.jsonl", 10)]
#[case("llama_cpp/hermes.jsonl", 0)]
fn corpus_file(#[case] file: &str, #[case] qwen_cases: usize) {
    let dir = corpus_dir();
    let deviations = load_deviations(&dir.join("deviations"));
    let cases = load_cases(&dir.join(file));
    assert!(!cases.is_empty(), "{file} has no cases");
    let mut failures = Vec::new();
    let mut run = 0;
    for case in cases.iter().filter(|case| is_qwen_model(&case.model)) {
        run += 1;
        let entry =
            parser_core::find_for_model(&case.model).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        assert_eq!(
            entry.family, "qwen",
            "{}: resolved to {}",
            case.id, entry.name
        );
        let options = case.options();
        let make = || entry.parser(&options);
        let chunkings = Chunking::standard(entry.special_tokens);
        let message = match check_chunkings(&make, &case.output, &chunkings) {
            Ok(message) => message,
            Err(why) => {
                failures.push(format!("{} [{}]: {why}", case.id, entry.name));
                continue;
            }
        };
        let expected = match deviations.get(&case.id) {
            Some(deviation) => {
                // A deviation must still be needed: the peer's expectation must really differ.
                if compare(&message, &case.expected).is_ok() {
                    failures.push(format!("{}: deviation no longer needed", case.id));
                }
                &deviation.expected
            }
            None => &case.expected,
        };
        if let Err(why) = compare(&message, expected) {
            failures.push(format!("{} [{}]:\n{why}", case.id, entry.name));
        }
    }
    assert_eq!(run, qwen_cases, "{file}: Qwen cases run");
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        run,
        failures.join("\n\n")
    );
}
