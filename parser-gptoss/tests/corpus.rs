//! Every GPT-OSS case of the copied corpora (vLLM, SGLang, llama.cpp), run one-shot and under every
//! chunking, compared with the case's expectation — or, where the peer's expectation contradicts
//! DESIGN.md §4 or the harmony mapping (see the crate docs), with ours from `corpus/deviations/` (which
//! states the reason). The comparison is the one `cargo xtask conformance` makes.
//!
//! SGLang's legacy text-level GPT-OSS tests assert only the calls; their cases carry `null` for reasoning and
//! content, meaning "not asserted" (see their notes). Where our message has content or reasoning there, the
//! deviation file states ours, so that it is pinned too.

use std::path::{Path, PathBuf};

use parser_core::testing::{check_corpus_file, load_cases};
use parser_gptoss::markers::SPECIAL_TOKENS;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/gpt_oss.jsonl")]
#[case("sglang/gpt_oss.jsonl")]
#[case("llama_cpp/gpt_oss.jsonl")]
fn corpus_file(#[case] file: &str) {
    // Every GPT-OSS parser chunks by the family's special tokens.
    for entry in parser_core::entries()
        .into_iter()
        .filter(|e| e.family == "gptoss")
    {
        assert_eq!(entry.special_tokens, SPECIAL_TOKENS, "{}", entry.name);
    }
    check_corpus_file(&corpus_dir(), file, "gptoss", |_| true);
}

// Every deviation of this family names a case of its corpus files (a stale id would hide nothing, but
// would mislead).
#[test]
fn every_gptoss_deviation_names_a_case() {
    let dir = corpus_dir();
    let ids: Vec<String> = [
        "vllm/gpt_oss.jsonl",
        "sglang/gpt_oss.jsonl",
        "llama_cpp/gpt_oss.jsonl",
    ]
    .iter()
    .flat_map(|file| load_cases(&dir.join(file)))
    .map(|case| case.id)
    .collect();
    let text = std::fs::read_to_string(dir.join("deviations/gptoss.jsonl")).unwrap();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = value["id"].as_str().unwrap();
        assert!(ids.iter().any(|known| known == id), "no corpus case {id}");
        assert!(!value["reason"].as_str().unwrap().is_empty(), "{id}");
    }
}
