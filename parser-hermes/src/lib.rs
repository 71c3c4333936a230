//! NousResearch Hermes' reasoning and tool-call format (Hermes-2-Pro, Hermes-3, Hermes-4), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `hermes` | Hermes-2-Pro, Hermes-2-Theta, Hermes-3, Hermes-4 / 4.3 | `<think>` written by the model (Hermes-4; 2 and 3 do not think) | `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, one block per call |
//!
//! The wire format, as the model writes it after the generation prompt `<|im_start|>assistant\n`:
//!
//! ```text
//! <think>The user wants the weather.</think>Let me check.        (Hermes-4 only)
//! <tool_call>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! </tool_call>
//! <tool_call>
//! {"name": "get_time", "arguments": {}}
//! </tool_call><|im_end|>
//! ```
//!
//! This is the wire format of Qwen's Hermes calls (`parser-qwen`'s `qwen2.5` / `qwen3`), and vLLM's
//! `hermes` tool parser reads both. Here it is **data**: a hand-written [`spec`] run by the generic
//! engine of `parser-generic` (`JSON_NATIVE` in per-call markers), which also gives the format's grammar
//! for constrained decoding ([`constraint`]). Arguments stream as the raw JSON the model wrote; an
//! argument object written as a JSON string (`"arguments": "{\"city\": …}"`) is kept raw. `<|im_end|>`
//! is dropped.
//!
//! # Stage
//! The prompt leaves the model in the answer (`<|im_start|>assistant\n`); a `<think>` at the very start
//! of the output opens reasoning. A prompt tail that ends in `<think>` (a prefill) starts in reasoning.
//! A `<tool_call>` while reasoning is open is held: a call if the block ends the output, reasoning
//! text if `</think>` or more text follows (DESIGN §4.8).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n");
//! let message = parser_hermes::hermes(&options).parse(concat!(
//!     "<think>The user wants Paris.</think>Let me check.\n",
//!     "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//! assert_eq!(message.content.as_deref(), Some("Let me check.\n"));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// The format, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            ..Markers::default()
        },
        generation_prompt: "<|im_start|>assistant\n".into(),
        turn_start: vec!["<|im_start|>assistant".into()],
        end_of_turn: vec!["<|im_end|>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static HERMES: DataParser = DataParser::new("hermes", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|im_end|>",
];

/// The `hermes` parser for one request.
pub fn hermes(options: &ParseOptions) -> Parser {
    HERMES.parser(options)
}

/// The `hermes` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    HERMES.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "hermes",
        family: "hermes",
        // vLLM's and SGLang's `hermes`, llama.cpp's `hermes_2_pro` handler.
        aliases: &["hermes_2_pro", "hermes2", "hermes3", "hermes4", "nous-hermes"],
        models: &["hermes-2-pro", "hermes-2-theta", "hermes-3-llama", "hermes-4", "hermes3"],
        summary: "Hermes-2-Pro / 3 / 4: <think> by the model (Hermes-4), <tool_call>{\"name\", \"arguments\"}</tool_call> calls",
        sample: "<think>The user wants the weather in Paris.</think>Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris for three days?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: hermes,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "hermes", build: constraint }
}
