//! Every Muse case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation.
//!
//! - `authored/muse.jsonl`: the layout of vLLM's `muse_glimmer` parser docs (reasoning, a call, an
//!   answer), channel scoping, JSON values, a cut-off call, unframed text, and the layout the grammars
//!   write (a Spark call after reasoning, a Glimmer call after content).
//! - `vllm/muse_glimmer.jsonl`: the `muse_glimmer` tool parser's contract tests (from a model port's
//!   copy of them: segmentation, scoping, JSON values, names, a truncated invoke).

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/muse_glimmer.jsonl", 12)]
#[case("authored/muse.jsonl", 7)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "muse", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
