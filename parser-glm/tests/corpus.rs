//! Every GLM case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation — or, where a peer's expectation contradicts DESIGN.md §4, with ours from
//! `corpus/deviations/glm.jsonl` (none so far).
//!
//! - `llama_cpp/glm.jsonl`: llama.cpp's GLM-4.6 and GLM-4.7-Flash cases (`tests/test-chat.cpp`), with the
//!   prompt tails their templates render.
//! - `authored/glm.jsonl`: the format's corners the peers' tests leave out (schema typing of every JSON
//!   type, a literal `</arg_value>` in code, call markup inside reasoning, a call without arguments, a
//!   call cut off inside a value, a call missing only its closer or cut inside it, keys holding `<`, `>`, `&`).

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/glm.jsonl", 6)]
#[case("authored/glm.jsonl", 11)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "glm", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
