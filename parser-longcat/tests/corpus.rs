//! Every LongCat case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/longcat.jsonl`).
//!
//! - `vllm/longcat.jsonl`: vLLM's `longcat` tool-parser tests (its shared tool-parser test suite).
//! - `authored/longcat.jsonl`: thinking mode (reasoning opened by the prompt), the end token, cut-off
//!   reasoning, call markup inside reasoning, a call that ends open reasoning.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/longcat.jsonl", 9)]
#[case("authored/longcat.jsonl", 6)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "longcat", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
