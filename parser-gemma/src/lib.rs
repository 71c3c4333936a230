//! Google Gemma 2 / 3's output format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `gemma` | Gemma 2, Gemma 3 (and 3n) | none | prompt-based function calling (Google's Gemma docs): a Python call in a ```` ```tool_code ```` block |
//!
//! Gemma 2 and 3 have no tool-call tokens and their chat templates render no tools: a server describes
//! the functions in the prompt, and Google's function-calling guide has the model answer with a Python
//! call in a `tool_code` block. As the model writes it after the generation prompt
//! `<start_of_turn>model\n`:
//!
//! ````text
//! ```tool_code
//! get_weather(city="Paris", days=3)
//! ```<end_of_turn>
//! ````
//!
//! The format fits the generic engine (`PYTHONIC` calls inside section markers), so this crate is data:
//! a [`parser_generic::spec::Analysis`] run by [`parser_generic`]. Plain
//! answers are content as written; `<end_of_turn>` is dropped. FunctionGemma
//! (`<start_function_call>call:NAME{…}`) and Gemma 4 (`<|tool_call>`) write other formats, not read here.
//!
//! # Grammar
//! The constraint (`ConstraintEntry`, [`constraint`]) comes from the same spec: one call per
//! ```` ```tool_code ```` block, written without a list as the guide shows it
//! ([`parser_generic::spec::Analysis::python_unlisted`]; the parser also reads `[f(), g()]`), naming
//! one of the request's tools, keyword arguments the schema's properties, each value a Python literal of
//! its schema; lazy under `auto`, triggered by ```` ```tool_code ````.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_gemma::gemma(&ParseOptions::new())
//!     .parse("```tool_code\nget_weather(city=\"Paris\", days=3)\n```");
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! let message = parser_gemma::gemma(&ParseOptions::new()).parse("Hello!<end_of_turn>");
//! assert_eq!(message.content.as_deref(), Some("Hello!"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ToolFormat};

/// Gemma 2 / 3: ```` ```tool_code ```` Python calls, `<end_of_turn>`.
pub fn spec() -> Analysis {
    Analysis {
        tools: ToolFormat::Pythonic,
        markers: Markers {
            tool_section_start: "```tool_code\n".into(),
            tool_section_end: "\n```".into(),
            ..Markers::default()
        },
        generation_prompt: "<start_of_turn>model\n".into(),
        end_of_turn: vec!["<end_of_turn>".into()],
        python_unlisted: true,
        ..Analysis::default()
    }
}

static GEMMA: DataParser = DataParser::new("gemma", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &["```tool_code", "```", "<end_of_turn>"];

/// The `gemma` parser for one request.
pub fn gemma(options: &ParseOptions) -> Parser {
    GEMMA.parser(options)
}

/// The grammar of one request for `gemma`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    GEMMA.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&GEMMA]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "gemma",
        family: "gemma",
        aliases: &["gemma2", "gemma3", "gemma-tool-code"],
        models: &["gemma-2", "gemma-3", "gemma-1.1"],
        summary: "Gemma 2 / 3: no tool tokens; prompt-based ```tool_code Python calls (Google's function-calling guide)",
        sample: "```tool_code\nget_weather(city=\"Paris\", days=3)\n```",
        sample_prompt_tail: "<start_of_turn>user\nWeather in Paris for three days?<end_of_turn>\n<start_of_turn>model\n",
        special_tokens: SPECIAL_TOKENS,
        build: gemma,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "gemma", build: constraint }
}
