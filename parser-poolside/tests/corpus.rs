//! Every Poolside case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/`).
//!
//! - `vllm/poolside_v1.jsonl`: vLLM's `poolside_v1` tool-parser tests (thinking off, as the template's
//!   default: the prompt ends in `</think>`).
//! - `authored/poolside.jsonl`: thinking on, untyped values, an earlier turn's `</think>`, a call right
//!   after the prompt's `<think>`, a cut-off value.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/poolside_v1.jsonl", 11)]
#[case("authored/poolside.jsonl", 6)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "poolside", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
