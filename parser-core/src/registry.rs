//! The parser registry: families register entries with `inventory`; lookups by name or model.
//!
//! Iteration order of `inventory` is unspecified, so every lookup sorts or ranks explicitly.

use crate::compose::Parser;
use crate::error::{Error, ErrorKind};
use crate::options::ParseOptions;

/// One registered parser: its names, the models it is for, and how to build it.
///
/// Families submit entries at module level:
///
/// ```ignore
/// inventory::submit! {
///     ParserEntry {
///         name: "deepseek-v3.1",
///         family: "deepseek",
///         aliases: &["deepseek_v31", "deepseekv31"],
///         models: &["deepseek-v3.1", "deepseek-v3.2-exp"],
///         summary: "DeepSeek V3.1: <think> by prompt, NAME<｜tool▁sep｜>{json} calls",
///         sample: "Sure.<｜tool▁calls▁begin｜>…",
///         sample_prompt_tail: "<｜Assistant｜></think>",
///         special_tokens: SPECIAL_TOKENS,
///         build: build_v31,
///     }
/// }
/// ```
#[derive(Debug)]
pub struct ParserEntry {
    /// Canonical name.
    pub name: &'static str,
    /// The family (crate) it belongs to.
    pub family: &'static str,
    /// Other names, e.g. vLLM's and SGLang's (`deepseek_r1`, `deepseek-r1`).
    pub aliases: &'static [&'static str],
    /// Model-name patterns: a model matches when its normalised name contains the normalised pattern.
    pub models: &'static [&'static str],
    /// One line on what it parses.
    pub summary: &'static str,
    /// A typical raw output of the format, for `llm-parse` with no input and for documentation.
    pub sample: &'static str,
    /// The prompt tail that goes with [`sample`](Self::sample) (empty when none is needed).
    pub sample_prompt_tail: &'static str,
    /// The format's special tokens, which servers deliver as whole deltas (for chunking tests).
    pub special_tokens: &'static [&'static str],
    /// Builds a parser for one request.
    pub build: fn(&ParseOptions) -> Parser,
}

inventory::collect!(ParserEntry);

impl ParserEntry {
    /// Builds a parser for one request.
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        (self.build)(options)
    }
}

/// Every registered entry, sorted by family and name.
pub fn entries() -> Vec<&'static ParserEntry> {
    index().sorted.clone()
}

/// The registry, read once: entries sorted, names and model patterns normalised.
struct Index {
    sorted: Vec<&'static ParserEntry>,
    /// (normalised name or alias, entry)
    names: Vec<(String, &'static ParserEntry)>,
    /// (normalised model pattern, entry)
    patterns: Vec<(String, &'static ParserEntry)>,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut sorted: Vec<&'static ParserEntry> =
            inventory::iter::<ParserEntry>.into_iter().collect();
        sorted.sort_by_key(|entry| (entry.family, entry.name));
        let names = sorted
            .iter()
            .flat_map(|entry| {
                std::iter::once(entry.name)
                    .chain(entry.aliases.iter().copied())
                    .map(|name| (normalize_name(name), *entry))
            })
            .collect();
        let patterns = sorted
            .iter()
            .flat_map(|entry| {
                entry
                    .models
                    .iter()
                    .map(|pattern| (normalize_name(pattern), *entry))
            })
            .collect();
        Index {
            sorted,
            names,
            patterns,
        }
    })
}

/// Lowercases and drops `-`, `_`, `.` and spaces, so that `deepseek_v31`, `deepseek-v3.1` and
/// `DeepSeekV31` are one name.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Quantisation and packaging suffixes that say nothing about the output format.
const PACKAGING: &[&str] = &[
    "gguf",
    "awq",
    "gptq",
    "fp8",
    "fp16",
    "bf16",
    "int4",
    "int8",
    "mlx",
    "4bit",
    "8bit",
    "3bit",
    "6bit",
    "w4a16",
    "w8a8",
    "nvfp4",
    "mxfp4",
    "exl2",
    "dynamic",
    "ud",
    "hf",
    "quantized",
];

/// The part of a model id that names the model: the organisation prefix and packaging suffixes
/// (`-GGUF`, `-AWQ`, `-FP8`, `-Q4_K_M`, …) removed, then normalised like a parser name.
///
/// ```
/// use parser_core::normalize_model;
/// assert_eq!(normalize_model("unsloth/DeepSeek-V3.1-GGUF"), "deepseekv31");
/// assert_eq!(normalize_model("deepseek-ai/DeepSeek-R1-0528"), "deepseekr10528");
/// assert_eq!(normalize_model("bartowski/DeepSeek-R1-Distill-Qwen-7B-Q4_K_M"), "deepseekr1distillqwen7b");
/// // A bare `Q1` names a model, not a quantisation (1-bit ones are `IQ1_S`, `IQ1_M`, `TQ1_0`).
/// assert_eq!(normalize_model("IQuestLab/IQuest-Q1"), "iquestq1");
/// assert_eq!(normalize_model("IQuest-Q1-IQ1_S"), "iquestq1");
/// ```
pub fn normalize_model(model: &str) -> String {
    let base = model.trim().rsplit('/').next().unwrap_or(model);
    let mut parts: Vec<&str> = base.split('-').collect();
    while parts.len() > 1 {
        let last = parts[parts.len() - 1].to_ascii_lowercase();
        let quant = last.len() > 1
            && last != "q1"
            && (last.starts_with('q') || last.starts_with("iq"))
            && last
                .chars()
                .nth(if last.starts_with("iq") { 2 } else { 1 })
                .is_some_and(|c| c.is_ascii_digit());
        if PACKAGING.contains(&last.as_str()) || quant {
            parts.pop();
        } else {
            break;
        }
    }
    normalize_name(&parts.join("-"))
}

/// The entry registered under `name` (canonical or alias, in any spelling).
pub fn find_by_name(name: &str) -> Result<&'static ParserEntry, Error> {
    let wanted = normalize_name(name);
    index()
        .names
        .iter()
        .find(|(known, _)| *known == wanted)
        .map(|(_, entry)| *entry)
        .ok_or_else(|| Error::new(ErrorKind::UnknownParser(name.to_owned())))
}

/// The entry for a model id: the most specific (longest) matching pattern wins; on a tie, the pattern
/// that matches earlier in the name.
///
/// Ollama's names keep their tag (`llama3.1:8b`), so a pattern ending in `:` (`llama3.1:`) is for
/// Ollama's library names only. A bare name that matches nothing is tried once more as Ollama reads it,
/// with its implicit `:latest` tag (`llama3.1` is `llama3.1:latest`).
///
/// ```
/// use parser_core::find_for_model;
/// # use parser_core::{inventory, ParserEntry, ParseOptions, Parser};
/// # fn build(_: &ParseOptions) -> Parser { unimplemented!() }
/// # inventory::submit! { ParserEntry { name: "doc-llama", family: "doc", aliases: &[],
/// #     models: &["doc-llama3.1:"], summary: "", sample: "", sample_prompt_tail: "",
/// #     special_tokens: &[], build } }
/// assert_eq!(find_for_model("doc-llama3.1:8b").unwrap().name, "doc-llama");
/// assert_eq!(find_for_model("doc-llama3.1").unwrap().name, "doc-llama");
/// assert!(find_for_model("org/doc-llama3.1").is_err());
/// ```
pub fn find_for_model(model: &str) -> Result<&'static ParserEntry, Error> {
    best_match(&normalize_model(model))
        .or_else(|| {
            // Only a bare name can be an Ollama name without its tag: `org/model` is a repository id.
            let bare = !model.is_empty() && !model.contains(['/', ':']);
            bare.then(|| best_match(&normalize_model(&format!("{model}:latest"))))
                .flatten()
        })
        .ok_or_else(|| Error::new(ErrorKind::UnknownModel(model.to_owned())))
}

/// The entry whose pattern matches the normalised model id most specifically.
fn best_match(normalized: &str) -> Option<&'static ParserEntry> {
    index()
        .patterns
        .iter()
        .filter(|(pattern, _)| !pattern.is_empty())
        .filter_map(|(pattern, entry)| {
            normalized
                .find(pattern.as_str())
                .map(|at| (pattern.len(), std::cmp::Reverse(at), *entry))
        })
        .max_by_key(|(len, at, entry)| (*len, *at, std::cmp::Reverse(entry.name)))
        .map(|(_, _, entry)| entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalise_across_engines() {
        for name in [
            "deepseek_v31",
            "deepseek-v3.1",
            "DeepSeekV31",
            "deepseekv31",
        ] {
            assert_eq!(normalize_name(name), "deepseekv31");
        }
    }

    #[test]
    fn packaging_suffixes_and_orgs_are_dropped() {
        assert_eq!(normalize_model("Qwen/Qwen3-8B-AWQ"), "qwen38b");
        assert_eq!(
            normalize_model("x/y/DeepSeek-V3-0324-FP8"),
            "deepseekv30324"
        );
        assert_eq!(normalize_model("DeepSeek-V3.2-Exp-BF16"), "deepseekv32exp");
        assert_eq!(
            normalize_model("unsloth/DeepSeek-R1-0528-GGUF"),
            "deepseekr10528"
        );
        assert_eq!(
            normalize_model("Kimi-K2-Instruct-0905-IQ2_XXS"),
            "kimik2instruct0905"
        );
    }
}
