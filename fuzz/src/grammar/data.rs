//! Outputs of the families written as data (`parser-hermes`, `parser-minimax`'s M2, `parser-seed`,
//! `parser-granite`, `parser-nemotron`, `parser-phi`, `parser-xlam`, `parser-internlm`, `parser-jamba`,
//! `parser-olmo`, `parser-ernie`, `parser-hunyuan`, `parser-longcat`, `parser-poolside`, `parser-ling`,
//! `parser-iquest`, `parser-upstage`, `parser-exaone`, `parser-mimo`, `parser-dots`, `parser-minicpm`,
//! `parser-plamo`, `parser-arcee`, `parser-apertus`, `parser-apriel`, `parser-cohere`,
//! `parser-fireworks`, `parser-functionary`, `parser-gigachat`, `parser-lfm2`, `parser-stepfun`, Gemma
//! 2 / 3's `tool_code`: specs run by the generic engine): their corpus cases (every source) and registry
//! samples, each with its model's registered parser and its request options, recombined — a slice of
//! another case of the same parser spliced in at one of the format's markers — and damaged with the
//! format's own markers ([`super::seeded`]). The corpus tests check the cases against their
//! expectations; here they are seeds for the mutators, so they carry no oracle.
//!
//! The seeds are shared with [`super::machines`] (the state machines no hand grammar writes).

use std::path::PathBuf;
use std::sync::OnceLock;

use parser_core::testing::{Case, Rng, load_cases};

use super::{Generated, Scale};
use crate::setup::Setup;

/// The families this grammar covers (registry family names).
pub const FAMILIES: &[&str] = &[
    "hermes",
    "minimax",
    "seed",
    "granite",
    "nemotron",
    "phi",
    "xlam",
    "internlm",
    "jamba",
    "olmo",
    "ernie",
    "hunyuan",
    "longcat",
    "poolside",
    "ling",
    "iquest",
    "upstage",
    "exaone",
    "sarashina",
    "mimo",
    "dots",
    "minicpm",
    "plamo",
    "arcee",
    "apertus",
    "apriel",
    "cohere",
    "fireworks",
    "functionary",
    "gigachat",
    "lfm2",
    "stepfun",
];

/// Parsers of other families that are written as data too and have no grammar of their own.
pub const EXTRA_PARSERS: &[&str] = &["gemma"];

/// Whether the data grammar generates `entry`'s outputs: a family written as data (or a data parser of
/// another family), unless another grammar writes that parser (Sarashina and MiniMax-M3 are state
/// machines: [`super::machines`], [`super::minimax_m3`]).
fn covers(entry: &parser_core::ParserEntry) -> bool {
    (FAMILIES.contains(&entry.family) || EXTRA_PARSERS.contains(&entry.name))
        && !super::machines::PARSERS.contains(&entry.name)
        && entry.name != super::minimax_m3::PARSER
}

/// The registry parsers this grammar generates (those with seeds).
pub fn parsers() -> Vec<&'static str> {
    groups(covers, None).iter().map(|(name, _)| *name).collect()
}

/// A corpus case (or a registry sample) as a seed: its setup and output.
pub(super) struct Seed {
    pub(super) setup: Setup,
    pub(super) output: String,
}

/// Every registry parser's seeds, by parser name: its corpus cases (every source) and its registry
/// sample, so that a parser with no corpus case yet is still fuzzed (loaded once).
fn all_seeds() -> &'static [(&'static str, Vec<Seed>)] {
    static SEEDS: OnceLock<Vec<(&'static str, Vec<Seed>)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("corpus");
        let mut files: Vec<PathBuf> = ["vllm", "sglang", "llama_cpp", "ollama", "authored"]
            .iter()
            .flat_map(|source| std::fs::read_dir(dir.join(source)).into_iter().flatten())
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        let mut groups: Vec<(&'static str, Vec<Seed>)> = parser_auto::entries()
            .into_iter()
            .map(|entry| {
                let mut setup = Setup::named(entry.name);
                if !entry.sample_prompt_tail.is_empty() {
                    setup.prompt_tail = Some(entry.sample_prompt_tail.to_owned());
                }
                let sample = Seed {
                    setup,
                    output: entry.sample.to_owned(),
                };
                (entry.name, vec![sample])
            })
            .collect();
        for path in files {
            for case in load_cases(&path) {
                let Ok(entry) = parser_auto::entry_for_model(&case.model) else {
                    continue;
                };
                let seed = Seed {
                    setup: setup_of(&case, entry.name),
                    output: case.output.clone(),
                };
                if let Some((_, group)) = groups.iter_mut().find(|(name, _)| *name == entry.name) {
                    group.push(seed);
                }
            }
        }
        groups
    })
}

/// The seed groups of the parsers `covers` accepts; with `only` (a registry parser name, alias or
/// family name), just those of that parser or family, when it names any of them.
pub(super) fn groups(
    covers: fn(&parser_core::ParserEntry) -> bool,
    only: Option<&str>,
) -> Vec<&'static (&'static str, Vec<Seed>)> {
    let covered: Vec<_> = all_seeds()
        .iter()
        .filter(|(name, _)| parser_auto::entry_by_name(name).is_ok_and(covers))
        .collect();
    let Some(only) = only else {
        return covered;
    };
    // A registry family name first (`gigachat` is also an alias of one of its parsers), then a parser
    // name or alias.
    let family = only.to_ascii_lowercase();
    let of_family = |name: &str| parser_auto::entry_by_name(name).is_ok_and(|e| e.family == family);
    let mut picked: Vec<_> = covered
        .iter()
        .copied()
        .filter(|(name, _)| of_family(name))
        .collect();
    if picked.is_empty()
        && let Ok(entry) = parser_auto::entry_by_name(only)
    {
        picked = covered
            .iter()
            .copied()
            .filter(|(name, _)| entry.name == *name)
            .collect();
    }
    if picked.is_empty() { covered } else { picked }
}

fn setup_of(case: &Case, parser: &str) -> Setup {
    let mut setup = Setup::named(parser);
    setup.prompt_tail = case.prompt_tail.clone();
    setup.enable_thinking = case.thinking;
    setup.tools = case.tools.clone();
    setup.inline = case.reasoning_format() == parser_auto::ReasoningFormat::Inline;
    setup
}

/// The number of parsers with seeds (0 when the registry is empty).
pub fn parser_count() -> usize {
    groups(covers, None).len()
}

/// A corpus output of a data family, sometimes with a slice of another case of the same parser spliced
/// in at a marker, and damaged with the format's own markers ([`super::seeded`]). No oracle. With
/// `only`, just the parsers of that parser or family.
pub fn generate(rng: &mut Rng, scale: Scale, only: Option<&str>) -> Generated {
    super::seeded::generate(&groups(covers, only), rng, scale)
}

/// A corpus output of a data family (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    super::seeded::call_block(&groups(covers, None), rng)
}

/// Other request options, or another parser of the same family.
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = super::generic::variant(rng, setup);
    if rng.chance(15) {
        let siblings: Vec<&str> = parser_auto::entries()
            .iter()
            .filter(|entry| {
                parser_auto::entry_by_name(&setup.parser)
                    .is_ok_and(|this| this.family == entry.family)
            })
            .map(|entry| entry.name)
            .collect();
        if !siblings.is_empty() {
            other.parser = siblings[rng.below(siblings.len())].to_owned();
        }
    }
    other
}
