//! AllenAI Olmo 3's reasoning and tool-call format (Olmo-3 / 3.1 Instruct and Think), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `olmo3` | Olmo-3-7B-Instruct, Olmo-3.1-32B-Instruct | none | `<function_calls>\nf(a='x')\ng(b=1)\n</function_calls>`: Python calls, one per line |
//! | `olmo3-think` | Olmo-3-7B / 32B-Think, Olmo-3.1-32B-Think | forced open: the prompt ends in `<think>` | as `olmo3` |
//!
//! The wire format, as the model writes it after the ChatML generation prompt `<|im_start|>assistant\n`
//! (the Think models' prompt goes on with `<think>`):
//!
//! ```text
//! Let me check.<function_calls>
//! get_weather(city='Paris', units='celsius')
//! get_time(tz='Europe/Paris', dst=true)
//! </function_calls><|im_end|>
//! ```
//!
//! - Calls are Python calls with keyword arguments, one per line between `<function_calls>` and
//!   `</function_calls>`; values are Python literals, and JSON's `true` / `false` / `null` are read
//!   too (the template writes them so). Arguments are converted to a JSON object per call; a call
//!   whose arguments do not convert keeps its raw text, flagged invalid.
//! - `<|im_end|>` is dropped.
//!
//! # Reasoning
//! `olmo3-think`: the Think models' generation prompt ends in `<think>`, so the output starts in
//! reasoning up to `</think>` (vLLM's `olmo3` reasoning parser; a `<think>` the model writes again
//! at the start is read too). `olmo3` has no reasoning.
//!
//! The format fits the generic engine (`PYTHONIC` calls inside section markers, as LFM2's), so this
//! crate is data: a [`parser_generic::spec::Analysis`] per parser, run by [`parser_generic`].
//!
//! # Grammar
//! The constraint ([`constraint`], [`constraint_think`], registered as each parser's
//! `ConstraintEntry`) comes from the same spec: the call separator `\n` makes the generic description
//! one Python call per line inside `<function_calls>` … `</function_calls>`
//! ([`parser_core::constraint::CallFormat::separator`]), each call naming a request's tool, its
//! keyword arguments the schema's properties, each value a Python literal of its schema
//! ([`parser_core::constraint::CallName::Python`]); lazy under `auto`, triggered by
//! `<function_calls>`; `olmo3-think` starts inside reasoning, up to `</think>`.
//!
//! Not written, though the parser reads them: JSON's `true` / `false` / `null` (the grammar writes
//! Python's `True` / `False` / `None`, as the peers' test outputs do), a `[…]` list inside the block,
//! two calls on one line.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_olmo::olmo3(&ParseOptions::new()).parse(concat!(
//!     "Let me check.<function_calls>\n",
//!     "get_weather(city='Paris', days=3)\n",
//!     "</function_calls><|im_end|>",
//! ));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// Olmo 3 Instruct: Python calls in `<function_calls>`, ChatML turns.
pub fn spec() -> Analysis {
    Analysis {
        tools: ToolFormat::Pythonic,
        markers: Markers {
            tool_section_start: "<function_calls>\n".into(),
            tool_section_end: "\n</function_calls>".into(),
            call_separator: "\n".into(),
            ..Markers::default()
        },
        generation_prompt: "<|im_start|>assistant\n".into(),
        end_of_turn: vec!["<|im_end|>".into()],
        ..Analysis::default()
    }
}

/// Olmo 3 Think: as [`spec`], the output starting inside `<think>` reasoning.
pub fn think_spec() -> Analysis {
    let mut analysis = spec();
    analysis.reasoning = ReasoningMode::TagBased;
    analysis.markers.reasoning_start = "<think>".into();
    analysis.markers.reasoning_end = "</think>".into();
    analysis.generation_prompt = "<|im_start|>assistant\n<think>".into();
    analysis
}

static OLMO3: DataParser = DataParser::new("olmo3", spec);
static OLMO3_THINK: DataParser = DataParser::new("olmo3-think", think_spec);

/// Every marker of the formats, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<function_calls>",
    "</function_calls>",
    "<|im_end|>",
    "<think>",
    "</think>",
    "<|im_start|>assistant",
];

/// The `olmo3` parser (Instruct models) for one request.
pub fn olmo3(options: &ParseOptions) -> Parser {
    OLMO3.parser(options)
}

/// The `olmo3-think` parser (Think models) for one request.
pub fn olmo3_think(options: &ParseOptions) -> Parser {
    OLMO3_THINK.parser(options)
}

/// The grammar of one request for `olmo3`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    OLMO3.constraint(options, request)
}

/// The grammar of one request for `olmo3-think`, from the same spec.
pub fn constraint_think(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    OLMO3_THINK.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 2] {
    [&OLMO3, &OLMO3_THINK]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "olmo3",
        family: "olmo",
        aliases: &["olmo3-instruct", "olmo3.1"],
        models: &["olmo-3", "olmo-3-7b-instruct", "olmo-3.1-32b-instruct"],
        summary: "Olmo 3 Instruct: <function_calls> with one Python call per line",
        sample: "Let me check.<function_calls>\nget_weather(city='Paris', days=3)\nget_time(tz='Europe/Paris')\n</function_calls><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather and time in Paris?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: olmo3,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "olmo3-think",
        family: "olmo",
        aliases: &["olmo3-32b-think"],
        models: &["olmo-3-7b-think", "olmo-3-32b-think", "olmo-3.1-32b-think"],
        summary: "Olmo 3 Think: <think> opened by the prompt, <function_calls> Python calls",
        sample: "The user wants the weather.</think>Let me check.<function_calls>\nget_weather(city='Paris')\n</function_calls><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>",
        special_tokens: SPECIAL_TOKENS,
        build: olmo3_think,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "olmo3", build: constraint }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "olmo3-think", build: constraint_think }
}
