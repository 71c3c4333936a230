//! Salesforce xLAM's tool-call format (xLAM-2 `-fc-r` models, on Llama 3.1 and Qwen2.5 bases), for
//! llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `xlam` | Salesforce Llama-xLAM-2-8B / 70B-fc-r, xLAM-2-1B / 3B / 32B-fc-r, xLAM-1 | `<think>…</think>` when the output opens with it | `[{"name": …, "arguments": {…}}, …]` as the whole answer, or inside `<tool_call>…</tool_call>` |
//!
//! The wire format, as the model writes it after its base's generation prompt
//! (`<|start_header_id|>assistant<|end_header_id|>\n\n` or `<|im_start|>assistant\n`), as its template
//! instructs ("make calls in a single JSON array"):
//!
//! ```text
//! [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]<|eot_id|>
//! Let me check.<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>
//! ```
//!
//! - A JSON array of `{"name", "arguments"}` objects at the very start of the answer is a list of
//!   calls; an array later in prose is text. `<tool_call>…</tool_call>` (a special token of the Qwen2.5
//!   bases) may wrap the array anywhere, with content before it.
//! - `<think>` at the very start of the output opens reasoning up to `</think>`; the calls may follow.
//! - `<|eot_id|>`, `<|eom_id|>`, `<|im_end|>` and `<|endoftext|>` are dropped.
//!
//! vLLM's `xlam` parser also looks for the array inside a Markdown ```` ```json ```` fence and after
//! `[TOOL_CALLS]`, fallbacks for models prompted with other families' formats. The generic engine
//! reads one section marker beside the bare array, and `<tool_call>` is the one the Qwen2.5-based
//! models have as a token (and the one the grammar can describe), so those two shapes are text here
//! (`corpus/deviations/xlam.jsonl`).
//!
//! The format fits the generic engine (`JSON_NATIVE` calls in an array, bare at the start or inside
//! section markers), so this crate is data: a [`parser_generic::spec::Analysis`] run by
//! [`parser_generic`], which also builds the grammar of a request from the same spec (the grammar
//! writes the `<tool_call>` form: a bare array has no marker a grammar could be triggered by).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_xlam::xlam(&ParseOptions::new())
//!     .parse("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|eot_id|>");
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! assert_eq!(message.content, None);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ReasoningMode, ToolFormat};

/// xLAM: a JSON array of calls at the start of the answer or in `<tool_call>`, `<think>` when the
/// output opens with it, Llama 3 or ChatML turns.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            tool_section_start: "<tool_call>".into(),
            tool_section_end: "</tool_call>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        calls_at_start: true,
        generation_prompt: "<|im_start|>assistant\n".into(),
        turn_start: vec![
            "<|im_start|>assistant".into(),
            "<|start_header_id|>assistant<|end_header_id|>".into(),
        ],
        end_of_turn: vec![
            "<|eot_id|>".into(),
            "<|eom_id|>".into(),
            "<|im_end|>".into(),
            "<|endoftext|>".into(),
        ],
        ..Analysis::default()
    }
}

static XLAM: DataParser = DataParser::new("xlam", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|im_start|>assistant",
    "<|start_header_id|>assistant<|end_header_id|>",
];

/// The `xlam` parser for one request.
pub fn xlam(options: &ParseOptions) -> Parser {
    XLAM.parser(options)
}

/// The grammar of one request for `xlam`, from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    XLAM.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 1] {
    [&XLAM]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "xlam",
        family: "xlam",
        aliases: &["xlam2", "salesforce-xlam"],
        models: &["xlam"],
        summary: "Salesforce xLAM: a [{name, arguments}] array as the answer or in <tool_call>",
        sample: "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_time\", \"arguments\": {\"tz\": \"Europe/Paris\"}}]<|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather and time in Paris?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: xlam,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "xlam", build: constraint }
}
