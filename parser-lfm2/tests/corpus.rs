//! Every Lfm2 case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation — or, where a peer's expectation contradicts DESIGN.md §4, with ours from
//! `corpus/deviations/lfm2.jsonl` (which states the reason).

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/lfm2.jsonl", 9)]
#[case("vllm/lfm2.jsonl", 15)]
#[case("ollama/lfm2.jsonl", 16)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "lfm2", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
