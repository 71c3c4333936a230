//! The one entry point a server needs: pick the reasoning/tool-call parser for a model, by model name or
//! by parser name, with one cargo feature per family (all on by default).
//!
//! ```
//! use parser_auto::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<｜User｜>Weather in Paris?<｜Assistant｜></think>");
//! let parser = parser_auto::for_model("deepseek-ai/DeepSeek-V3.1", &options).unwrap();
//! let message = parser.parse(
//!     "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
//! );
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
//!
//! Streaming is the same parser, fed delta by delta:
//!
//! ```
//! use parser_auto::{Delta, ParseOptions};
//!
//! let mut parser = parser_auto::for_model("deepseek-ai/DeepSeek-R1", &ParseOptions::new()).unwrap();
//! for token in ["Think", "ing…</th", "ink>", "Answer."] {
//!     for delta in parser.push(token).iter() {
//!         match delta {
//!             Delta::Reasoning(text) => print!("[reasoning] {text}"),
//!             Delta::Content(text) => print!("[content] {text}"),
//!             other => print!("{other:?}"),
//!         }
//!     }
//! }
//! parser.finish();
//! ```
//!
//! # Features
//! - `deepseek` (default): DeepSeek R1, V3, V3.1, V3.2 (DSML) and V4, from `parser-deepseek`.
//! - `qwen` (default): Qwen2.5 / Qwen3 / QwQ / Qwen3-2507 (Hermes-style calls) and Qwen3-Coder / Qwen3.5 (XML
//!   calls), from `parser-qwen`.
//! - `kimi` (default): Kimi-K2, K2-Thinking and K2.5, from `parser-kimi`.
//! - `gptoss` (default): GPT-OSS harmony channels, parsed from text, from `parser-gptoss`.
//!
//! Each enabled family crate is referenced from here (`pub use parser_deepseek as deepseek`), which also
//! makes sure the linker keeps its registrations: `inventory` silently drops a crate nothing references.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use parser_core::{
    Accumulator, Delta, Deltas, Error, ErrorKind, ParseOptions, ParsedMessage, Parser, ParserEntry,
    Policy, ReasoningFormat, Sink, SpecialTokens, Stage, ToolCall, Tools, preview_arguments,
};

/// The DeepSeek family (feature `deepseek`).
#[cfg(feature = "deepseek")]
pub use parser_deepseek as deepseek;

/// The Qwen family (feature `qwen`).
#[cfg(feature = "qwen")]
pub use parser_qwen as qwen;

/// The Kimi family (feature `kimi`).
#[cfg(feature = "kimi")]
pub use parser_kimi as kimi;

/// The GPT-OSS family (feature `gptoss`).
#[cfg(feature = "gptoss")]
pub use parser_gptoss as gptoss;

/// The parser for a model id (`deepseek-ai/DeepSeek-V3.1`, `unsloth/DeepSeek-R1-GGUF`, …).
///
/// The most specific registered model pattern wins; organisation prefixes and packaging suffixes
/// (`-GGUF`, `-AWQ`, `-FP8`, …) are ignored. An unknown model is an [`ErrorKind::UnknownModel`] error.
pub fn for_model(model: &str, options: &ParseOptions) -> Result<Parser, Error> {
    Ok(entry_for_model(model)?.parser(options))
}

/// The parser registered under `name` or one of its aliases, in any spelling (`deepseek_r1`,
/// `deepseek-r1`, `DeepSeekR1`).
pub fn by_name(name: &str, options: &ParseOptions) -> Result<Parser, Error> {
    Ok(entry_by_name(name)?.parser(options))
}

/// The registry entry a model id resolves to.
pub fn entry_for_model(model: &str) -> Result<&'static ParserEntry, Error> {
    parser_core::find_for_model(model)
}

/// The registry entry for a parser name or alias.
pub fn entry_by_name(name: &str) -> Result<&'static ParserEntry, Error> {
    parser_core::find_by_name(name)
}

/// Every registered parser of the enabled families, sorted by family and name.
pub fn entries() -> Vec<&'static ParserEntry> {
    parser_core::entries()
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The families compiled in, by feature.
pub fn enabled_families() -> &'static [&'static str] {
    &[
        #[cfg(feature = "deepseek")]
        "deepseek",
        #[cfg(feature = "qwen")]
        "qwen",
        #[cfg(feature = "kimi")]
        "kimi",
        #[cfg(feature = "gptoss")]
        "gptoss",
    ]
}
