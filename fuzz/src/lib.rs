//! Adversarial runs of llm-parse's parsers on stable Rust: no libFuzzer, no nightly, no coverage
//! instrumentation — grammar-based generators of each family's real output shapes, mutators on top, and
//! every behaviour DESIGN.md §4 promises checked on each input.
//!
//! # How an input is made
//! 1. A **generator** ([`grammar`]) writes a well-formed output of one family from a grammar of its real
//!    shapes (the formats in each family's `lib.rs`, its tests and the corpus): reasoning present, absent
//!    or forced open by the prompt tail, content before, between and after call blocks, zero to many
//!    calls, nested JSON arguments with unicode, escapes, braces, quotes and other families' markers
//!    inside strings. It also returns what the output *means* (the oracle): reasoning, content, calls.
//!    Now and then the grammar is scaled up: an argument of up to ~1 MB, or thousands of calls.
//! 2. Often, **mutators** ([`mutate`]) damage it: truncation anywhere (on a character boundary), markers
//!    of this and other families spliced in, closing markers duplicated or dropped, near-miss marker
//!    spellings, garbage (valid UTF-8: controls, BOM, combining marks, astral characters), a call block
//!    nested in reasoning, a huge value, a slice repeated thousands of times, slices removed or swapped.
//!    A damaged input has no oracle, and is also run under sibling parsers and other request options
//!    (inline reasoning, strict tool position, harmony policies, a tool schema).
//!
//! # What is checked ([`check`])
//! Each input is parsed one-shot and under several chunkings (one character at a time, random splits,
//! random splits with special tokens whole), and must: not panic; give the same [`ParsedMessage`] under
//! every chunking; follow the call protocol (one `ToolCallStart` per index, indices 0, 1, 2… in order,
//! ids non-empty and unique, fragments and ends only for the open call, one end per call); give valid
//! calls whose arguments are a JSON object; never put into content or reasoning a marker, or a fragment of
//! one, that the output did not contain as text (see [`check::check_leaks`] for the exact, sound rule);
//! and, for undamaged inputs, parse to exactly what was generated.
//!
//! Each input is also timed: the parsers are linear, so an input whose checks take far longer than its
//! size allows is reported as slow (a quadratic path).
//!
//! # Families
//! `deepseek` (R1, V3, V3.1 native calls; V3.2 / V4 DSML, V4.1's spaced DSML), `qwen` (Hermes JSON;
//! Qwen3-Coder / Qwen3.5 XML), `kimi` (K2, K2-Thinking, K2.5, VL; K3's XTML channels), `gptoss`
//! (harmony), `glm` (GLM-4.5 / 4.7), `mistral`, `llama`, `gemma`, `horizon` (K2 Horizon),
//! `minimax-m3` and `inkling`: grammars with an oracle. `data` (the families written as data) and
//! `machines` (the state machines with no grammar of their own yet: Muse, Sarashina): each parser's corpus
//! cases and registry sample, recombined and damaged with the format's own markers, no oracle. And
//! `generic`: the parser the differential analyzer builds from a chat template of `templates/`, fed the
//! corpus outputs of that template recombined (no oracle there: the corpus tests own it).
//!
//! Every registered parser is written by exactly one of them (`tests/coverage.rs`); `--family` also
//! takes a registry parser or family name (`--family longcat` runs `data` on LongCat's outputs alone).
//!
//! And `templates` ([`templates`]), which fuzzes the other untrusted input of a server: chat templates
//! mutated from the 47 real ones into hostile shapes (loops, self-calling macros, doubling strings,
//! lists that contain themselves, huge sizes given to filters) and response configs, rendered, analysed
//! and loaded under the render budget: no panic (caught ones included), no hang, every failure an
//! `Error`. Its findings are `fuzz/regressions/templates/<hash>.jinja`.
//!
//! # Failures
//! A failing input is shrunk ([`shrink`]: truncation, then removal of ever smaller slices, while the same
//! kind of failure persists) and written to `fuzz/regressions/<family>/<hash>.txt` ([`regress`]): a
//! header line with the family, the request options, the failed check and the chunking, then the raw
//! input. `cargo test -p fuzz` re-runs every such file through all checks. A bug that is reported but
//! not fixed yet (its fix lies outside this crate) is a [`check::KNOWN_ISSUES`] entry: failures it
//! matches are counted apart and do not fail a run, and its regression file carries an `open` note.
//!
//! # Running it
//! `cargo xtask fuzz --family F --minutes N` (release build; `--inputs N`, `--seed S`, `--jobs J`), or
//! the `fuzz` binary directly: `--replay FILE` re-runs regression files, `--input N` makes input `N` of
//! a seeded run again and times its checks. A run prints, per family, the inputs tried, the
//! throughput and every failure kept; its exit code is 1 when a check failed.
//!
//! ```
//! use fuzz::{Budget, Family};
//! let report = fuzz::run(Family::Kimi, &Budget::inputs(50).with_seed(7));
//! assert_eq!(report.inputs, 50);
//! assert!(report.failures.is_empty(), "{report}");
//! ```
//!
//! [`ParsedMessage`]: parser_core::ParsedMessage
#![forbid(unsafe_code)]

pub mod check;
pub mod grammar;
pub mod mutate;
pub mod regress;
mod runner;
pub mod setup;
pub mod shrink;
pub mod templates;

pub use check::{CheckKind, Failure};
pub use runner::{Budget, FoundFailure, Report, explain, explain_into, explain_only, run};
pub use setup::{Cut, Setup};

/// A family of parsers to fuzz.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// DeepSeek R1, V3, V3.1 (native special-token calls, R1's fallbacks), V3.2 and V4 (DSML).
    Deepseek,
    /// Qwen2.5, Qwen3, QwQ / Thinking-2507, Instruct-2507 (Hermes JSON calls), Qwen3-Coder and Qwen3.5
    /// (XML calls typed by the tool schema).
    Qwen,
    /// Kimi-K2, K2-Thinking, K2.5, Kimi-VL (call sections, byte-exact ids), Kimi K3 (XTML channels).
    Kimi,
    /// GPT-OSS (harmony channels, from text).
    Gptoss,
    /// GLM-4.5 / 4.6 and GLM-4.7 / 5 (`<tool_call>NAME<arg_key>…` calls typed by the tool schema).
    Glm,
    /// Mistral v0.3 / Nemo arrays, v11+ `[TOOL_CALLS]NAME[ARGS]` calls (ids byte-exact), Magistral's
    /// `[THINK]` (a family as data: the generic engine).
    Mistral,
    /// Llama 3.x JSON calls (bare or after `<|python_tag|>`), Llama 4 pythonic calls (a family as data).
    Llama,
    /// The generic parser the differential analyzer builds from a chat template
    /// (`parser_auto::prepare` on templates of `templates/`).
    Generic,
    /// The families written as data (Hermes, MiniMax-M2, Seed-OSS, Granite, Nemotron, ERNIE, Hunyuan,
    /// LongCat, Laguna, Ling 3, IQuest Q1: specs run by the generic engine), seeded from their corpus
    /// cases.
    Data,
    /// FunctionGemma and Gemma 4 (`call:NAME{…}` in Gemma's value syntax, a state machine; Gemma 4's
    /// thought channel).
    Gemma,
    /// The hand-written state machines with no grammar of their own yet (Muse Spark / Glimmer,
    /// Sarashina), seeded from their corpus cases and samples
    /// and damaged with their own markers.
    Machines,
    /// K2 Horizon (`<ifm|…>` tags: three reasoning efforts, calls in XML, typed XML or JSON).
    Horizon,
    /// MiniMax-M3 (`<mm:think>`, calls of `]<]minimax[>[`-namespaced elements, nested values).
    MinimaxM3,
    /// Inkling (typed blocks in any order: thinking, text, JSON calls).
    Inkling,
}

impl Family {
    /// Every family, in the order `--family all` runs them.
    pub const ALL: [Family; 14] = [
        Family::Deepseek,
        Family::Qwen,
        Family::Kimi,
        Family::Gptoss,
        Family::Glm,
        Family::Mistral,
        Family::Llama,
        Family::Generic,
        Family::Data,
        Family::Gemma,
        Family::Machines,
        Family::Horizon,
        Family::MinimaxM3,
        Family::Inkling,
    ];

    /// The family's name on the command line and in regression paths.
    pub fn name(self) -> &'static str {
        match self {
            Family::Deepseek => "deepseek",
            Family::Qwen => "qwen",
            Family::Kimi => "kimi",
            Family::Gptoss => "gptoss",
            Family::Glm => "glm",
            Family::Mistral => "mistral",
            Family::Llama => "llama",
            Family::Generic => "generic",
            Family::Data => "data",
            Family::Gemma => "gemma",
            Family::Machines => "machines",
            Family::Horizon => "horizon",
            Family::MinimaxM3 => "minimax-m3",
            Family::Inkling => "inkling",
        }
    }

    /// The family named `name` (also accepts `gpt-oss`, `harmony`, `template`, and each data family's
    /// name for `data`); otherwise the family whose generator writes the registry parser (name or
    /// alias) or registry family `name` (`minimax-m3` and `muse`: `machines`; `lfm2`: `data`). With
    /// [`Budget::only`], a run of `data` or `machines` can keep to that one parser or family.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::from_own_name(name).or_else(|| {
            let entry = parser_auto::entry_by_name(name).ok();
            let lower = name.to_ascii_lowercase();
            Family::ALL.into_iter().find(|family| {
                grammar::parsers(*family).iter().any(|parser| match entry {
                    Some(entry) => entry.name == *parser,
                    None => parser_auto::entry_by_name(parser).is_ok_and(|e| e.family == lower),
                })
            })
        })
    }

    fn from_own_name(name: &str) -> Option<Family> {
        Some(match name.to_ascii_lowercase().as_str() {
            "deepseek" => Family::Deepseek,
            "qwen" => Family::Qwen,
            "kimi" => Family::Kimi,
            "gptoss" | "gpt-oss" | "gpt_oss" | "harmony" => Family::Gptoss,
            "glm" => Family::Glm,
            "gemma" | "gemma4" | "functiongemma" => Family::Gemma,
            "mistral" => Family::Mistral,
            "llama" => Family::Llama,
            "machines" => Family::Machines,
            "horizon" | "k2-horizon" => Family::Horizon,
            "minimax-m3" | "minimax_m3" => Family::MinimaxM3,
            "inkling" => Family::Inkling,
            "generic" | "template" => Family::Generic,
            "data" | "hermes" | "minimax" | "seed" | "granite" | "nemotron" | "phi" | "xlam"
            | "internlm" | "jamba" | "olmo" | "ernie" | "hunyuan" | "longcat" | "upstage"
            | "exaone" | "mimo" | "dots" | "minicpm" | "plamo" | "arcee" => Family::Data,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Inputs of a [`test_run`]: a few seconds per family in a debug build.
pub const TEST_INPUTS: u64 = 3000;

/// The short deterministic run a test suite makes (fixed seed, no big inputs): every generator, mutator
/// and check of `family` exercised. Each family crate's property test calls it, so that this crate's
/// grammar is the one generator of the family's outputs (`cargo xtask fuzz` runs the long ones).
///
/// # Panics
/// When a check fails, with the report (the failing inputs, shrunk, and what went wrong).
pub fn test_run(family: Family) {
    let mut budget = Budget::inputs(TEST_INPUTS).with_seed(0x5eed_2026);
    budget.big_inputs = false;
    let report = run(family, &budget);
    eprint!("{report}");
    assert_eq!(report.inputs, TEST_INPUTS, "{report}");
    assert!(report.is_clean(), "{report}");
}
