//! Every MiniCPM case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/`).
//!
//! - `vllm/minicpm5.jsonl`: vLLM's `minicpm5` tool-parser tests (deviations: the spellings and CDATA
//!   this parser does not read, schema checks the peer makes, an unfinished call stays a call).
//! - `vllm/minicpmv.jsonl`: vLLM's `minicpmv` parser tests (deviations: with thinking off the peer
//!   drops a `<think>` block and a stray `</think>`, kept here).
//! - `authored/minicpm.jsonl`: reasoning the model opens, then a call; thinking off; MiniCPM-V's
//!   restored newlines beside arguments and code kept as written.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/minicpm5.jsonl", 13)]
#[case("vllm/minicpmv.jsonl", 21)]
#[case("authored/minicpm.jsonl", 4)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "minicpm", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
