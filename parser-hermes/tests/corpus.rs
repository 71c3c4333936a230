//! Every Hermes case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation — or, where a peer's expectation contradicts DESIGN.md §4, with ours from
//! `corpus/deviations/`.
//!
//! - `llama_cpp/hermes.jsonl`: llama.cpp's Hermes-2-Pro and Hermes-3 cases (`tests/test-chat.cpp`).
//! - `authored/hermes.jsonl`: Hermes-4's reasoning, call markup inside reasoning, cut-off calls.
//! - `vllm/hermes.jsonl`: vLLM's `hermes` tool-parser tests. vLLM runs them on Qwen3-32B's tokenizer,
//!   so their model ids are Qwen's and resolve to `parser-qwen` (which runs them as its corpus); the
//!   same outputs run here through the `hermes` parser by name, with the same deviations.

use std::path::{Path, PathBuf};

use parser_core::testing::{
    Chunking, check_chunkings, check_corpus_file, compare, load_cases, load_deviations,
};
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/hermes.jsonl", 4)]
#[case("authored/hermes.jsonl", 7)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "hermes", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}

#[test]
fn vllm_hermes_cases_through_the_hermes_parser() {
    let dir = corpus_dir();
    let deviations = load_deviations(&dir.join("deviations"));
    let entry = parser_core::find_by_name("hermes").unwrap();
    let cases = load_cases(&dir.join("vllm/hermes.jsonl"));
    assert_eq!(cases.len(), 13);
    for case in cases {
        let options = case.options();
        let make = || entry.parser(&options);
        let message = check_chunkings(
            &make,
            &case.output,
            &Chunking::standard(entry.special_tokens),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case.id));
        let expected = deviations
            .get(&case.id)
            .map_or(&case.expected, |deviation| &deviation.expected);
        compare(&message, expected).unwrap_or_else(|e| panic!("{}: {e}", case.id));
    }
}
