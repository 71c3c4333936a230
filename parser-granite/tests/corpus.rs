//! Every Granite case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/`).
//!
//! - `llama_cpp/granite.jsonl`: llama.cpp's Granite 3.3 cases (`tests/test-chat.cpp`).
//! - `vllm/granite.jsonl`: vLLM's `granite` (Granite 3.x lists) and `granite-20b-fc` tool-parser tests.
//! - `authored/granite.jsonl`: 3.3's `<think>` / `<response>` with a call, a malformed list element,
//!   a cut-off list, JSON in prose, Granite 4's `<tool_call>` blocks.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/granite.jsonl", 2)]
#[case("vllm/granite.jsonl", 12)]
#[case("authored/granite.jsonl", 7)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "granite", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
