//! Every Seed-OSS case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/`).
//!
//! - `llama_cpp/seed_oss.jsonl`: llama.cpp's Seed-OSS cases (`tests/test-chat.cpp`).
//! - `vllm/seed_oss.jsonl`: vLLM's `seed_oss` tool-parser tests (budget reflections, call markup inside
//!   reasoning); the peer runs the tool parser alone, so most run with `reasoning_format: none`.
//! - `authored/seed.jsonl`: a thinking budget of 0 in the prompt, reflections kept in reasoning, schema
//!   typing, a call ending open reasoning, a cut-off call, a prefilled `<seed:think>`.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/seed_oss.jsonl", 6)]
#[case("vllm/seed_oss.jsonl", 6)]
#[case("authored/seed.jsonl", 6)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "seed", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
