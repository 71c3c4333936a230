//! Every IQuest case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation (or a deviation's, `corpus/deviations/`).
//!
//! - `sglang/iquest_q1.jsonl`: SGLang's `iquest_q1` detector tests (deviations: a value's framing
//!   newline, unfinished blocks stay invalid calls, the end-of-turn token, unknown names stay calls).
//! - `authored/iquest.jsonl`: reasoning then a typed call, a call ending open reasoning, GLM's
//!   `<tool_call>` as text, a prompt that closed the reasoning.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("sglang/iquest_q1.jsonl", 10)]
#[case("authored/iquest.jsonl", 4)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "iquest", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
