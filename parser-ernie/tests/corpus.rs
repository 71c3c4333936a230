//! Every ERNIE case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/ernie.jsonl`).
//!
//! - `vllm/ernie45.jsonl`: vLLM's `ernie45` tool-parser and reasoning-parser tests.
//! - `authored/ernie.jsonl`: `<response>` answers, the end tokens, the stage without a prompt tail or in
//!   the answer, cut-off and malformed calls, call markup inside reasoning.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/ernie45.jsonl", 8)]
#[case("authored/ernie.jsonl", 7)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "ernie", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
