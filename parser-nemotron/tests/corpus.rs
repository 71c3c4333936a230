//! Every Nemotron case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/nemotron.jsonl`).
//!
//! - `llama_cpp/nemotron.jsonl`: llama.cpp's Nemotron-3-Nano and Nano-v2 cases (`tests/test-chat.cpp`).
//! - `vllm/nemotron_nano_v2.jsonl`: vLLM's `nemotron_nano_v2` tool-parser tests.
//! - `ollama/nemotron.jsonl`: Ollama's `nemotron-3-nano` parser tests (thinking).
//! - `authored/nemotron.jsonl`: Nano v2 lists after reasoning, `/no_think`, cut-off calls; Nemotron 3's
//!   schema typing and its stage from `enable_thinking` or the default.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/nemotron.jsonl", 9)]
#[case("vllm/nemotron_nano_v2.jsonl", 9)]
#[case("ollama/nemotron.jsonl", 7)]
#[case("authored/nemotron.jsonl", 7)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "nemotron", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
