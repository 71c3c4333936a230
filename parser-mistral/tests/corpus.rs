//! Every Mistral case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation — or, where a peer's expectation contradicts DESIGN.md §4, with ours from
//! `corpus/deviations/mistral.jsonl`.
//!
//! - `llama_cpp/mistral.jsonl`: llama.cpp's Mistral-Nemo, Mistral-Small-3.2, Devstral and Ministral-3
//!   cases (`tests/test-chat.cpp`).
//! - `vllm/mistral.jsonl`: vLLM's `test_mistral_tool_parser.py`, pre-v11 (JSON arrays) and v11 (names,
//!   as vLLM decodes them without `[ARGS]`).
//! - `vllm/mistral_reasoning.jsonl`: vLLM's `test_mistral_reasoning_parser.py` (Magistral).
//! - `ollama/ministral.jsonl`: Ollama's `ministral_test.go`.
//! - `authored/mistral.jsonl`: call ids in both formats, cut-off calls, markup inside reasoning, a
//!   prompt that opens `[THINK]`.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/mistral.jsonl", 14)]
#[case("vllm/mistral.jsonl", 20)]
#[case("vllm/mistral_reasoning.jsonl", 10)]
#[case("ollama/ministral.jsonl", 12)]
#[case("authored/mistral.jsonl", 8)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "mistral", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
