//! Llama tool-call parsers for llm-parse: Llama 3.1 / 3.2 / 3.3 JSON calls (bare or after
//! `<|python_tag|>`) and Llama 4 pythonic calls.
//!
//! | parser | models | reasoning | tool calls |
//! |---|---|---|---|
//! | `llama3` | Llama 3.1, 3.2, 3.3 (and fine-tunes keeping their template) | none | `{"name": "f", "parameters": {…}}` (or `"arguments"`) as the whole answer, optionally after `<|python_tag|>`; several separated by `;` or newlines |
//! | `llama4` | Llama 4 Scout / Maverick | none | `[f(a=1), g(b="x")]` at the start of the answer, optionally inside `<|python_start|>…<|python_end|>` |
//!
//! Both are data: a [`parser_generic`] format description ([`Analysis`]) run by the generic engine
//! ([`DataParser`]). `llama3`'s constrained-decoding grammar is the bare JSON calls its template renders,
//! `llama4`'s the bare Python list its model writes ([`constraint`]).
//!
//! Names: vLLM's `llama3_json` and `llama4_json` (the same JSON parser) and SGLang's `llama` are
//! `llama3`, as are llama.cpp's `llama_3_x` / `llama_3_x_with_builtin_tools` handlers; vLLM's
//! `llama4_pythonic` and `pythonic`, and SGLang's `pythonic`, are `llama4`.
//!
//! # The wire formats
//!
//! Llama 3.x's templates render a call as a bare JSON object after the assistant header, with
//! `parameters` for the arguments; the model may also write `arguments`, open the call with
//! `<|python_tag|>`, and end its turn with `<|eom_id|>` (it expects a tool result) or `<|eot_id|>`:
//!
//! ```text
//! <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {}}<|eom_id|>
//! ```
//!
//! Without `<|python_tag|>` a call opens only at the very start of the answer (after whitespace): the
//! template renders no marker, so JSON in prose is never a call. After `<|python_tag|>` (anywhere, as
//! SGLang and llama.cpp read it) the JSON calls follow. `<|eom_id|>` and `<|eot_id|>` end the turn and
//! never reach content. Llama 3.1's built-in tools (`<|python_tag|>brave_search.call(query="…")`,
//! `wolfram_alpha.call(…)`, raw Python for `code_interpreter`) are not read as calls yet: their text,
//! `<|python_tag|>` included, is content — as vLLM's `llama3_json` leaves it (llama.cpp's
//! `llama_3_x_with_builtin_tools` handler turns `brave_search.call(query=…)` into a `brave_search` call).
//!
//! Llama 4 writes a Python list of calls with keyword arguments, converted to JSON objects (`True` →
//! `true`, `None` → `null`, tuples → arrays); the arguments of each call arrive whole when its `)` is
//! read:
//!
//! ```text
//! <|python_start|>[get_weather(city="Paris"), get_time(tz='CET')]<|python_end|><|eom|>
//! ```
//!
//! A call is committed at its complete name (DESIGN §4.6): arguments cut off or not convertible keep
//! the call, flagged invalid; text that never completes a name is content, raw.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let mut parser = parser_llama::llama3(&ParseOptions::new());
//! let message = parser.parse(r#"<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>"#);
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! let mut parser = parser_llama::llama4(&ParseOptions::new());
//! let message = parser.parse("[get_weather(city='Paris', days=3)]");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, JsonFields, Markers, ToolFormat};

pub mod markers {
    //! The Llama tokens.

    /// Llama 3.1: opens a call (a JSON object, or a built-in tool's Python).
    pub const PYTHON_TAG: &str = "<|python_tag|>";
    /// Llama 3.x: ends a turn that expects a tool result.
    pub const EOM: &str = "<|eom_id|>";
    /// Llama 3.x: ends a turn.
    pub const EOT: &str = "<|eot_id|>";
    /// Llama 3.x: what the generation prompt ends with.
    pub const ASSISTANT_3: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n";
    /// Llama 4: opens a Python list of calls.
    pub const PYTHON_START: &str = "<|python_start|>";
    /// Llama 4: closes it.
    pub const PYTHON_END: &str = "<|python_end|>";
    /// Llama 4: ends a turn that expects a tool result.
    pub const EOM_4: &str = "<|eom|>";
    /// Llama 4: ends a turn.
    pub const EOT_4: &str = "<|eot|>";
    /// Llama 4: what the generation prompt ends with.
    pub const ASSISTANT_4: &str = "<|header_start|>assistant<|header_end|>\n\n";
    /// Every special token of the formats (servers deliver each as one delta).
    pub const SPECIAL_TOKENS: &[&str] =
        &[PYTHON_TAG, EOM, EOT, PYTHON_START, PYTHON_END, EOM_4, EOT_4];
}

use markers::*;

/// Llama 3.x: JSON calls at the start of the answer or after `<|python_tag|>`, `;` between them.
fn llama3_spec() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            tool_section_start: PYTHON_TAG.into(),
            call_separator: ";".into(),
            ..Markers::default()
        },
        json: JsonFields {
            args_field: "parameters".into(),
            ..JsonFields::default()
        },
        calls_at_start: true,
        generation_prompt: ASSISTANT_3.into(),
        end_of_turn: vec![EOM.into(), EOT.into()],
        ..Analysis::default()
    }
}

/// Llama 4: a Python list of calls at the start of the answer, or inside `<|python_start|>…<|python_end|>`.
fn llama4_spec() -> Analysis {
    Analysis {
        tools: ToolFormat::Pythonic,
        markers: Markers {
            tool_section_start: PYTHON_START.into(),
            tool_section_end: PYTHON_END.into(),
            ..Markers::default()
        },
        calls_at_start: true,
        generation_prompt: ASSISTANT_4.into(),
        end_of_turn: vec![EOM_4.into(), EOT_4.into()],
        ..Analysis::default()
    }
}

static LLAMA3: DataParser = DataParser::new("llama3", llama3_spec);
/// The calls a `llama3` grammar asks for: bare `{"name": …, "parameters": …}` objects at the start of
/// the answer, as the template renders them (the parser also reads them after `<|python_tag|>`).
fn llama3_grammar() -> Analysis {
    let mut spec = llama3_spec();
    spec.markers = Markers {
        call_separator: ";".into(),
        ..Markers::default()
    };
    spec.calls_at_start = false;
    spec
}
static LLAMA3_GRAMMAR: DataParser = DataParser::new("llama3", llama3_grammar);
static LLAMA4: DataParser = DataParser::new("llama4", llama4_spec);
/// The calls a `llama4` grammar asks for: a bare Python list `[f(a=1), g()]` at the start of the
/// answer, as the model writes it (the parser also reads it inside `<|python_start|>…<|python_end|>`).
fn llama4_grammar() -> Analysis {
    let mut spec = llama4_spec();
    spec.markers = Markers::default();
    spec.calls_at_start = false;
    spec
}
static LLAMA4_GRAMMAR: DataParser = DataParser::new("llama4", llama4_grammar);

/// The spec of a parser (`llama3`, `llama4`): what it reads.
pub fn spec(parser: &str) -> Option<&'static Analysis> {
    [&LLAMA3, &LLAMA4]
        .into_iter()
        .find(|p| p.name() == parser)
        .map(DataParser::spec)
}

/// Llama 3.1 / 3.2 / 3.3: JSON calls.
pub fn llama3(options: &ParseOptions) -> Parser {
    LLAMA3.parser(options)
}

/// Llama 4: pythonic calls.
pub fn llama4(options: &ParseOptions) -> Parser {
    LLAMA4.parser(options)
}

pub mod constraint {
    //! The constrained-decoding grammars: `llama3`'s bare JSON calls and `llama4`'s bare Python list
    //! at the start of the answer (the generic constraint describes both; under `auto` the grammar is
    //! not lazy: the answer is the calls, or text that does not open with `{` / `[`).

    use super::*;

    /// `llama3`'s constraint.
    pub fn llama3(
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        LLAMA3_GRAMMAR.constraint(options, request)
    }

    parser_core::inventory::submit! {
        ConstraintEntry { parser: "llama3", build: llama3 }
    }

    /// `llama4`'s constraint.
    pub fn llama4(
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        LLAMA4_GRAMMAR.constraint(options, request)
    }

    parser_core::inventory::submit! {
        ConstraintEntry { parser: "llama4", build: llama4 }
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "llama3",
        family: "llama",
        aliases: &["llama3_json", "llama4_json", "llama", "llama_3_x", "llama_3_x_with_builtin_tools", "llama3.1", "llama3.2", "llama3.3"],
        // Meta's instruct models by size, so that fine-tunes named after them (`Hermes-3-Llama-3.1-8B`,
        // `Llama-3.1-Nemotron-70B-Instruct`, `llama-3-firefunction-v2`) keep their own format.
        models: &[
            "llama-3.1-8b-instruct", "llama-3.1-70b-instruct", "llama-3.1-405b-instruct",
            "llama-3.2-1b-instruct", "llama-3.2-3b-instruct", "llama-3.2-11b-vision-instruct",
            "llama-3.2-90b-vision-instruct", "llama-3.3-70b-instruct",
            // Ollama's library names with their tag (`llama3.1:8b`); `llama3.2-vision` has no tool format.
            "llama3.1:", "llama3.2:", "llama3.3:",
        ],
        summary: "Llama 3.1 / 3.2 / 3.3: {\"name\", \"parameters\"} JSON as the whole answer or after <|python_tag|>, ';' between calls",
        sample: "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"get_time\", \"parameters\": {\"tz\": \"Europe/Paris\"}}<|eom_id|>",
        sample_prompt_tail: "<|start_header_id|>user<|end_header_id|>\n\nWeather and time in Paris?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        special_tokens: SPECIAL_TOKENS,
        build: llama3,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "llama4",
        family: "llama",
        aliases: &["llama4_pythonic", "pythonic", "llama-4"],
        models: &["llama-4-scout", "llama-4-maverick", "llama4:"],
        summary: "Llama 4: [f(a=1), g(b=\"x\")] Python calls at the start of the answer or in <|python_start|>…<|python_end|>, arguments converted to JSON",
        sample: "<|python_start|>[get_weather(city=\"Paris\", days=3), get_time(tz='Europe/Paris')]<|python_end|><|eom|>",
        sample_prompt_tail: "<|header_start|>user<|header_end|>\n\nWeather and time in Paris?<|eot|><|header_start|>assistant<|header_end|>\n\n",
        special_tokens: SPECIAL_TOKENS,
        build: llama4,
    }
}
