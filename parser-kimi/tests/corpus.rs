//! Every Kimi case of the copied corpora (vLLM, SGLang, llama.cpp), run one-shot and under every
//! chunking, compared with the case's expectation — or, where the peer's expectation contradicts
//! DESIGN.md §4, with ours from `corpus/deviations/` (which states the reason).

use std::path::{Path, PathBuf};

use parser_core::testing::{Chunking, check_chunkings, compare, load_cases, load_deviations};
use parser_kimi::markers::SPECIAL_TOKENS;
use rstest::rstest;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[rstest]
#[case("vllm/kimi_k2.jsonl")]
#[case("vllm/kimi_k2_reasoning.jsonl")]
#[case("sglang/kimi.jsonl")]
#[case("llama_cpp/kimi_k2.jsonl")]
fn corpus_file(#[case] file: &str) {
    let dir = corpus_dir();
    let deviations = load_deviations(&dir.join("deviations"));
    let cases = load_cases(&dir.join(file));
    assert!(!cases.is_empty(), "{file} has no cases");
    let chunkings = Chunking::standard(SPECIAL_TOKENS);
    let mut failures = Vec::new();
    for case in &cases {
        let entry =
            parser_core::find_for_model(&case.model).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        assert_eq!(
            entry.family, "kimi",
            "{}: resolved to {}",
            case.id, entry.name
        );
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
            failures.push(format!("{} [{}]:\n{why}", case.id, entry.name));
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
