//! Every GPT-OSS case of the copied corpora (vLLM, SGLang, llama.cpp), run one-shot and under every
//! chunking, compared with the case's expectation — or, where the peer's expectation contradicts
//! DESIGN.md §4 or the harmony mapping (see the crate docs), with ours from `corpus/deviations/` (which
//! states the reason). The comparison is the one `cargo xtask conformance` makes.
//!
//! SGLang's legacy text-level GPT-OSS tests assert only the calls; their cases carry `null` for reasoning and
//! content, meaning "not asserted" (see their notes). Where our message has content or reasoning there, the
//! deviation file states ours, so that it is pinned too.

use std::path::{Path, PathBuf};

use parser_core::testing::{Chunking, check_chunkings, compare, load_cases, load_deviations};
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
    let dir = corpus_dir();
    let deviations = load_deviations(&dir.join("deviations"));
    let cases = load_cases(&dir.join(file));
    assert!(!cases.is_empty(), "{file} has no cases");
    let mut failures = Vec::new();
    for case in &cases {
        let entry =
            parser_core::find_for_model(&case.model).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        assert_eq!(
            entry.family, "gptoss",
            "{}: resolved to {}",
            case.id, entry.name
        );
        assert_eq!(entry.special_tokens, SPECIAL_TOKENS);
        let chunkings = Chunking::standard(entry.special_tokens);
        let options = case.options();
        let make = || entry.parser(&options);
        let message = match check_chunkings(&make, &case.output, &chunkings) {
            Ok(message) => message,
            Err(why) => {
                failures.push(format!("{} [{}]: {why}", case.id, entry.name));
                continue;
            }
        };
        let expected = match deviations.get(&case.id) {
            Some(deviation) => {
                // A deviation must still be needed: the peer's expectation must really differ.
                if compare(&message, &case.expected).is_ok() {
                    failures.push(format!("{}: deviation no longer needed", case.id));
                }
                &deviation.expected
            }
            None => &case.expected,
        };
        if let Err(why) = compare(&message, expected) {
            failures.push(format!(
                "{} [{}]:\n{why}\n message: {message:?}",
                case.id, entry.name
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
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
