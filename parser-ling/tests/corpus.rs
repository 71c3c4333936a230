//! Every Ling case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/`).
//!
//! - `sglang/ling3.jsonl`: SGLang's `ling3` tool-detector and reasoning-parser tests.
//! - `authored/ling.jsonl`: the template's layout with typed values, untyped values, thinking off, two
//!   calls, a cut-off value.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("sglang/ling3.jsonl", 6)]
#[case("authored/ling.jsonl", 5)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "ling", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
