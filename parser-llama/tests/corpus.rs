//! Every Llama case of the corpus, run one-shot and under every chunking, compared with the case's
//! expectation — or, where a peer's expectation contradicts DESIGN.md §4, with ours from
//! `corpus/deviations/llama.jsonl`.
//!
//! - `llama_cpp/llama3.jsonl`: llama.cpp's Llama 3.1 / 3.2 / 3.3 cases (`tests/test-chat.cpp`).
//! - `sglang/generic.jsonl`: SGLang's generic JSON parser cases, which its tests run on Llama-3.1.
//! - `sglang/llama.jsonl`: SGLang's `Llama32Detector` (`<|python_tag|>` anywhere, `;` between calls).
//! - `vllm/llama3_json.jsonl`: vLLM's `test_llama3_json_tool_parser.py`.
//! - `vllm/llama4_pythonic.jsonl`: vLLM's `test_llama4_pythonic_tool_parser.py`.
//! - `authored/llama.jsonl`: `<|python_tag|>` with `<|eom_id|>`, end tokens, cut-off calls, Llama 4's
//!   `<|python_start|>`.

use std::path::{Path, PathBuf};

use parser_core::testing::check_corpus_file;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("llama_cpp/llama3.jsonl", 3)]
#[case("sglang/generic.jsonl", 13)]
#[case("sglang/llama.jsonl", 7)]
#[case("vllm/llama3_json.jsonl", 18)]
#[case("vllm/llama4_pythonic.jsonl", 12)]
#[case("authored/llama.jsonl", 7)]
fn corpus_file(#[case] file: &str, #[case] cases: usize) {
    let run = check_corpus_file(&corpus_dir(), file, "llama", |_| true);
    assert_eq!(run, cases, "{file}: cases run");
}
