//! Template route = family (issue 18, item 4): every family's own chat template, with the model name
//! withheld, resolves to the family parser the model name gives, and parses the family's whole corpus
//! (the files the family's own tests run) exactly as that parser does — one-shot and under every
//! standard chunking.
//!
//! Each case is paired with the template of the parser its model resolves to. Cases are left out only
//! when `templates/` holds no template of that parser, and the test counts them:
//! - `deepseek-v3` (V3-0324: no template here; R1's template is R1's parser), `deepseek-v3.2` and
//!   `deepseek-v4` (DSML; their templates were not copied, see `templates/MANIFEST.md`);
//! - `qwen3-instruct-2507` and `qwen3.5` (no template copied);
//! - `kimi-k2.5` and `kimi-vl` (no template copied);
//! - `llama4` (no Llama 4 template copied);
//! - `granite-4` and `granite-20b-fc` (no template copied);
//! - `hy-v3` (Hy3's template was not available);
//! - cases whose model is another family's (`llama_cpp/hermes.jsonl` in Qwen's list: its NousResearch
//!   models are `hermes`'s), as the family tests skip them.

use std::path::{Path, PathBuf};

use parser_auto::Route;
use parser_auto::template::ChatTemplate;
use parser_core::testing::{Chunking, check_chunkings, load_cases};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The corpus files each family's tests run (`parser-*/tests/corpus.rs`).
const FILES: &[(&str, &[&str])] = &[
    (
        "deepseek",
        &[
            "vllm/deepseek_r1_reasoning.jsonl",
            "vllm/deepseek_v3.jsonl",
            "vllm/deepseek_v31.jsonl",
            "vllm/deepseek_v32.jsonl",
            "vllm/deepseek_v3_reasoning.jsonl",
            "sglang/deepseek.jsonl",
            "llama_cpp/deepseek_r1.jsonl",
            "llama_cpp/deepseek_v31.jsonl",
        ],
    ),
    (
        "qwen",
        &[
            "vllm/hermes.jsonl",
            "vllm/qwen3_coder.jsonl",
            "vllm/qwen3_reasoning.jsonl",
            "sglang/qwen.jsonl",
            "sglang/qwen3_coder.jsonl",
            "llama_cpp/qwen.jsonl",
            "llama_cpp/qwen3_coder.jsonl",
            "llama_cpp/hermes.jsonl",
        ],
    ),
    (
        "kimi",
        &[
            "vllm/kimi_k2.jsonl",
            "vllm/kimi_k2_reasoning.jsonl",
            "sglang/kimi.jsonl",
            "llama_cpp/kimi_k2.jsonl",
        ],
    ),
    (
        "gptoss",
        &[
            "vllm/gpt_oss.jsonl",
            "sglang/gpt_oss.jsonl",
            "llama_cpp/gpt_oss.jsonl",
        ],
    ),
    ("glm", &["llama_cpp/glm.jsonl", "authored/glm.jsonl"]),
    (
        "mistral",
        &[
            "llama_cpp/mistral.jsonl",
            "vllm/mistral.jsonl",
            "vllm/mistral_reasoning.jsonl",
            "ollama/ministral.jsonl",
            "authored/mistral.jsonl",
        ],
    ),
    (
        "llama",
        &[
            "llama_cpp/llama3.jsonl",
            "sglang/generic.jsonl",
            "sglang/llama.jsonl",
            "vllm/llama3_json.jsonl",
            "authored/llama.jsonl",
        ],
    ),
    (
        "hermes",
        &["llama_cpp/hermes.jsonl", "authored/hermes.jsonl"],
    ),
    (
        "minimax",
        &[
            "llama_cpp/minimax.jsonl",
            "vllm/minimax_m2.jsonl",
            "authored/minimax.jsonl",
        ],
    ),
    (
        "seed",
        &[
            "llama_cpp/seed_oss.jsonl",
            "vllm/seed_oss.jsonl",
            "authored/seed.jsonl",
        ],
    ),
    (
        "granite",
        &[
            "llama_cpp/granite.jsonl",
            "vllm/granite.jsonl",
            "authored/granite.jsonl",
        ],
    ),
    (
        "nemotron",
        &[
            "llama_cpp/nemotron.jsonl",
            "vllm/nemotron_nano_v2.jsonl",
            "ollama/nemotron.jsonl",
            "authored/nemotron.jsonl",
        ],
    ),
    (
        "hunyuan",
        &[
            "vllm/hunyuan_a13b.jsonl",
            "authored/hunyuan.jsonl",
            "vllm/hy_v3.jsonl",
        ],
    ),
];

/// Each parser's own templates in `templates/`.
const TEMPLATES: &[(&str, &[&str])] = &[
    (
        "deepseek-r1",
        &[
            "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
            "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
            "llama-cpp-deepseek-r1.jinja",
        ],
    ),
    ("deepseek-v3.1", &["deepseek-ai-DeepSeek-V3.1.jinja"]),
    ("qwen2.5", &["Qwen-Qwen2.5-7B-Instruct.jinja"]),
    ("qwen3", &["Qwen-Qwen3-0.6B.jinja"]),
    ("qwen3-thinking", &["Qwen-QwQ-32B.jinja"]),
    ("qwen3-coder", &["Qwen3-Coder.jinja"]),
    (
        "kimi-k2",
        &["Kimi-K2-Instruct.jinja", "moonshotai-Kimi-K2.jinja"],
    ),
    ("kimi-k2-thinking", &["Kimi-K2-Thinking.jinja"]),
    ("gpt-oss", &["openai-gpt-oss-120b.jinja"]),
    ("glm-4.5", &["GLM-4.6.jinja"]),
    ("glm-4.7", &["GLM-4.7-Flash.jinja"]),
    (
        "mistral",
        &[
            "Mistral-Small-3.2-24B-Instruct-2506.jinja",
            "unsloth-mistral-Devstral-Small-2507.jinja",
        ],
    ),
    (
        "mistral-v0.3",
        &["mistralai-Mistral-Nemo-Instruct-2407.jinja"],
    ),
    (
        "magistral",
        &["mistralai-Ministral-3-14B-Reasoning-2512.jinja"],
    ),
    (
        "llama3",
        &[
            "meta-llama-Llama-3.1-8B-Instruct.jinja",
            "meta-llama-Llama-3.2-3B-Instruct.jinja",
            "meta-llama-Llama-3.3-70B-Instruct.jinja",
        ],
    ),
    (
        "hermes",
        &[
            "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
            "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
        ],
    ),
    ("minimax-m2", &["MiniMax-M2.jinja"]),
    ("seed-oss", &["ByteDance-Seed-OSS.jinja"]),
    ("granite", &["ibm-granite-granite-3.3-2B-Instruct.jinja"]),
    ("nemotron-nano-v2", &["NVIDIA-Nemotron-Nano-v2.jinja"]),
    (
        "nemotron-3-nano",
        &["NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja"],
    ),
    ("hunyuan-a13b", &["tencent-Hunyuan-A13B-Instruct.jinja"]),
];

/// Parsers with no template in `templates/` (see the module docs).
const NO_TEMPLATE: &[&str] = &[
    "deepseek-v3",
    "deepseek-v3.2",
    "deepseek-v4",
    "qwen3-instruct-2507",
    "qwen3.5",
    "kimi-k2.5",
    "kimi-vl",
    "llama4",
    "granite-4",
    "granite-20b-fc",
    "hy-v3",
];

#[test]
fn every_family_template_parses_the_family_corpus_as_the_family() {
    let root = root();
    let mut failures = Vec::new();
    for (family, files) in FILES {
        let mut run = 0;
        let mut skipped = std::collections::BTreeMap::<&str, usize>::new();
        for file in *files {
            for case in load_cases(&root.join("corpus").join(file)) {
                let entry = match parser_auto::entry_for_model(&case.model) {
                    Ok(entry) if entry.family == *family => entry,
                    _ => {
                        *skipped.entry("another model").or_default() += 1;
                        continue;
                    }
                };
                let Some((_, templates)) = TEMPLATES.iter().find(|(name, _)| *name == entry.name)
                else {
                    assert!(
                        NO_TEMPLATE.contains(&entry.name),
                        "{}: no template listed for {}",
                        case.id,
                        entry.name
                    );
                    *skipped.entry(entry.name).or_default() += 1;
                    continue;
                };
                let options = case.options();
                let chunkings = Chunking::standard(entry.special_tokens);
                let by_name = check_chunkings(&|| entry.parser(&options), &case.output, &chunkings)
                    .unwrap_or_else(|e| panic!("{} [{}]: {e}", case.id, entry.name));
                for file in *templates {
                    let template = ChatTemplate::from_file(&root.join("templates").join(file))
                        .unwrap_or_else(|e| panic!("{file}: {e}"));
                    let prepared = parser_auto::prepare(None, Some(&template)).expect("resolves");
                    if prepared.route != Route::TemplateSignature(entry.name) {
                        failures.push(format!(
                            "{} with {file}: route {}, want {}",
                            case.id, prepared.route, entry.name
                        ));
                        continue;
                    }
                    let make = || prepared.parser(&options);
                    match check_chunkings(&make, &case.output, &chunkings) {
                        Ok(message) if message == by_name => {}
                        Ok(message) => failures.push(format!(
                            "{} with {file}:\n  template: {message:?}\n  by name:  {by_name:?}",
                            case.id
                        )),
                        Err(e) => failures.push(format!("{} with {file}: {e}", case.id)),
                    }
                }
                run += 1;
            }
        }
        println!("{family}: {run} cases run; left out: {skipped:?}");
        assert!(run > 0, "{family}: no case run");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
