//! Every Qwen case of the copied corpora (vLLM, SGLang, llama.cpp), run one-shot and under every chunking,
//! compared with the case's expectation — or, where the peer's expectation contradicts DESIGN.md §4, with
//! ours from `corpus/deviations/qwen.jsonl` (which states the reason).
//!
//! Cases whose model is not a Qwen model are skipped: `llama_cpp/hermes.jsonl` holds NousResearch
//! Hermes-2-Pro / Hermes-3 cases (Llama-3 models that happen to use the Hermes call format). No Qwen model
//! pattern claims them, by design: model patterns name model families; they are `parser-hermes`'s.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
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
    let run = check_corpus_file(&corpus_dir(), file, "qwen", |case| {
        is_qwen_model(&case.model)
    });
    assert_eq!(run, qwen_cases, "{file}: Qwen cases run");
}
