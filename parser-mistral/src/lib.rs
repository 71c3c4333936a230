//! Mistral reasoning and tool-call parsers for llm-parse: Mistral v0.3 / Mistral-Nemo JSON arrays,
//! the `[TOOL_CALLS]NAME[ARGS]{…}` calls of the v11+ tokenizers (Mistral-Small-3.2, Devstral,
//! Magistral, Ministral-3), and Magistral's `[THINK]…[/THINK]` reasoning.
//!
//! | parser | models | reasoning | tool calls | grammar |
//! |---|---|---|---|---|
//! | `mistral` | Mistral-Small-3.2, Devstral, Mistral-Medium-3, Mistral-Large-3 (v11+ tokenizers) | none | both formats below | v11+ |
//! | `magistral` | Magistral-Small / Medium, Ministral-3 | `[THINK]…[/THINK]`, written by the model | both formats | v11+ |
//! | `mistral-v0.3` | Mistral-7B-Instruct-v0.3, Mistral-Nemo, Mixtral-8x22B, Mistral-Small-3.1 / 2501, Mistral-Large-2407 / 2411, Codestral, Pixtral, Ministral-8B | none | both formats | the JSON array |
//!
//! Every Mistral parser reads both call formats that follow `[TOOL_CALLS]`, as vLLM's and SGLang's
//! `mistral` parsers do: the model name (or the chat template) only decides which one the
//! constrained-decoding grammar asks for.
//!
//! Every format here is data: each parser is a [`parser_generic`] format description (an
//! [`Analysis`]) run by the generic engine ([`DataParser`]), and its grammar comes from a description
//! of the same markers. Nothing in these formats needs a state machine of its own.
//!
//! # The wire formats
//!
//! v11+: each call has its own `[TOOL_CALLS]`; the name runs up to `[ARGS]`,
//! `[CALL_ID]` or the arguments' `{` (vLLM decodes with `skip_special_tokens`, which drops `[ARGS]` and
//! `[CALL_ID]` but keeps `[TOOL_CALLS]`); the arguments are one JSON object, streamed raw.
//!
//! ```text
//! Let me check.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[CALL_ID]aB3dE5gH7[ARGS]{"tz": "CET"}</s>
//! ```
//!
//! v0.3 / Nemo: one `[TOOL_CALLS]` and a JSON array of call objects (or one object); `"id"` (written
//! by Mistral-Nemo after the arguments) comes back as the call id. Each element is read on its own: a
//! broken element is an invalid call, and its siblings are still calls.
//!
//! ```text
//! [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "aB3dE5gH7"}]</s>
//! ```
//!
//! Magistral and Ministral-3 think in `[THINK]…[/THINK]`. Their templates end the generation prompt with
//! `[/INST]` and the model opens `[THINK]` itself, so the output starts as content and a `[THINK]` at
//! its start (after whitespace) opens reasoning; a prompt tail that ends in `[THINK]` (a prefill) starts
//! it inside reasoning. Only the first `[/THINK]` ends reasoning; tool markup inside a closed `[THINK]`
//! block is reasoning text; a call block that opens while reasoning is still open is held, and is
//! read as calls only if it ends the output (DESIGN §4.8).
//!
//! `</s>` (the end-of-sequence token the templates write after each answer) is dropped. A call is
//! committed once `[TOOL_CALLS]` and its complete name have been read (DESIGN §4.6): arguments that
//! are cut off or not JSON keep the call, flagged invalid; text that never completes a name is
//! content, raw.
//!
//! # Names
//!
//! vLLM's `mistral` tool-call parser and SGLang's `mistral` detector are `mistral`; vLLM's `mistral`
//! reasoning parser (Magistral) is `magistral`'s job: `--parser magistral`. llama.cpp's handlers
//! `mistral_nemo` (→ `mistral-v0.3`), `magistral` and `ministral_3` (→ `magistral`) and Ollama's
//! `ministral` (→ `magistral`: its thinking-less variant reads the same output) are aliases.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let mut parser = parser_mistral::mistral(&ParseOptions::new());
//! let message = parser.parse(r#"[TOOL_CALLS]get_weather[CALL_ID]aB3dE5gH7[ARGS]{"city": "Paris"}</s>"#);
//! assert_eq!(message.tool_calls[0].id, "aB3dE5gH7");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! let mut parser = parser_mistral::magistral(&ParseOptions::new().with_prompt_tail("[INST]Hi[/INST]"));
//! let message = parser.parse("[THINK]A greeting.[/THINK]Hello!");
//! assert_eq!(message.reasoning.as_deref(), Some("A greeting."));
//! assert_eq!(message.content.as_deref(), Some("Hello!"));
//!
//! let mut parser = parser_mistral::mistral_v03(&ParseOptions::new());
//! let message = parser.parse(r#"[TOOL_CALLS] [{"name": "now", "arguments": {}, "id": "Zx9Yw8Vu7"}]"#);
//! assert_eq!(message.tool_calls[0].id, "Zx9Yw8Vu7");
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{
    Analysis, CallIdPosition, JsonFields, Markers, ReasoningMode, ToolFormat,
};

pub mod markers {
    //! The Mistral tokens.

    /// Opens each call (v11+) or the array of calls (v0.3).
    pub const TOOL_CALLS: &str = "[TOOL_CALLS]";
    /// Between a v11+ call's name (or id) and its arguments.
    pub const ARGS: &str = "[ARGS]";
    /// Before a v11+ call's id (Mistral-Small-3.2).
    pub const CALL_ID: &str = "[CALL_ID]";
    /// Opens reasoning (Magistral, Ministral-3).
    pub const THINK: &str = "[THINK]";
    /// Ends reasoning.
    pub const THINK_END: &str = "[/THINK]";
    /// The end-of-sequence token the templates write after each answer: dropped.
    pub const EOS: &str = "</s>";
    /// What every Mistral generation prompt ends with: the end of the user's turn.
    pub const INST_END: &str = "[/INST]";
    /// Every special token of the formats (servers deliver each as one delta).
    pub const SPECIAL_TOKENS: &[&str] = &[TOOL_CALLS, ARGS, CALL_ID, THINK, THINK_END, EOS];
}

use markers::*;

/// The markers every Mistral parser reads: `[TOOL_CALLS]` before each v11+ call (name, optional
/// `[CALL_ID]` id, `[ARGS]`, JSON) or before a v0.3 array of call objects.
fn calls(reasoning: bool) -> Analysis {
    Analysis {
        reasoning: if reasoning {
            ReasoningMode::TagBased
        } else {
            ReasoningMode::None
        },
        tools: ToolFormat::TagWithJson,
        markers: Markers {
            reasoning_start: if reasoning {
                THINK.into()
            } else {
                String::new()
            },
            reasoning_end: if reasoning {
                THINK_END.into()
            } else {
                String::new()
            },
            per_call_start: TOOL_CALLS.into(),
            call_id_prefix: CALL_ID.into(),
            call_id_suffix: ARGS.into(),
            ..Markers::default()
        },
        call_id: CallIdPosition::BetweenFuncAndArgs,
        // The v0.3 array behind the same `[TOOL_CALLS]`, its `"id"` byte-exact.
        json: JsonFields {
            id_field: "id".into(),
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: INST_END.into(),
        turn_start: vec![INST_END.into()],
        end_of_turn: vec![EOS.into()],
        ..Analysis::default()
    }
}

/// `mistral`: both call formats, no reasoning.
fn mistral_spec() -> Analysis {
    calls(false)
}

/// `magistral`: both call formats and `[THINK]` reasoning.
fn magistral_spec() -> Analysis {
    calls(true)
}

/// The v11+ calls a grammar asks for: `[TOOL_CALLS]NAME[ARGS]{…}` (no `[CALL_ID]`: ids are the
/// server's to give when it constrains the output).
fn v11_grammar(reasoning: bool) -> Analysis {
    let mut spec = calls(reasoning);
    spec.markers.func_name_suffix = ARGS.into();
    spec.markers.call_id_prefix.clear();
    spec.markers.call_id_suffix.clear();
    spec.call_id = CallIdPosition::None;
    spec.json = JsonFields::default();
    spec
}

/// The v0.3 array a grammar asks for: `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`.
fn v03_grammar() -> Analysis {
    Analysis {
        tools: ToolFormat::JsonNative,
        markers: Markers {
            tool_section_start: TOOL_CALLS.into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: INST_END.into(),
        end_of_turn: vec![EOS.into()],
        ..Analysis::default()
    }
}

static MISTRAL: DataParser = DataParser::new("mistral", mistral_spec);
static MAGISTRAL: DataParser = DataParser::new("magistral", magistral_spec);
static MISTRAL_V03: DataParser = DataParser::new("mistral-v0.3", mistral_spec);
static MISTRAL_GRAMMAR: DataParser = DataParser::new("mistral", || v11_grammar(false));
static MAGISTRAL_GRAMMAR: DataParser = DataParser::new("magistral", || v11_grammar(true));
static MISTRAL_V03_GRAMMAR: DataParser = DataParser::new("mistral-v0.3", v03_grammar);

/// The spec of a parser (`mistral`, `magistral`, `mistral-v0.3`): what it reads.
pub fn spec(parser: &str) -> Option<&'static Analysis> {
    [&MISTRAL, &MAGISTRAL, &MISTRAL_V03]
        .into_iter()
        .find(|p| p.name() == parser)
        .map(DataParser::spec)
}

/// Mistral-Small-3.2, Devstral and the other v11+ models: both call formats, no reasoning.
pub fn mistral(options: &ParseOptions) -> Parser {
    MISTRAL.parser(options)
}

/// Magistral and Ministral-3: `[THINK]` reasoning (opened by the model, or by a prompt that ends in
/// `[THINK]`) and both call formats.
pub fn magistral(options: &ParseOptions) -> Parser {
    MAGISTRAL.parser(options)
}

/// Mistral-7B-v0.3, Mistral-Nemo and the other pre-v11 models: both call formats, no reasoning; its
/// grammar asks for the JSON array.
pub fn mistral_v03(options: &ParseOptions) -> Parser {
    MISTRAL_V03.parser(options)
}

pub mod constraint {
    //! The constrained-decoding grammars: the v11+ calls for `mistral` and `magistral`, the JSON array
    //! for `mistral-v0.3` — each the subset of what its parser reads that the model is trained to
    //! write, from the same markers.

    use super::*;

    /// `mistral`'s constraint.
    pub fn mistral(
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        MISTRAL_GRAMMAR.constraint(options, request)
    }

    /// `magistral`'s constraint.
    pub fn magistral(
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        MAGISTRAL_GRAMMAR.constraint(options, request)
    }

    /// `mistral-v0.3`'s constraint.
    pub fn mistral_v03(
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        MISTRAL_V03_GRAMMAR.constraint(options, request)
    }

    parser_core::inventory::submit! {
        ConstraintEntry { parser: "mistral", build: mistral }
    }
    parser_core::inventory::submit! {
        ConstraintEntry { parser: "magistral", build: magistral }
    }
    parser_core::inventory::submit! {
        ConstraintEntry { parser: "mistral-v0.3", build: mistral_v03 }
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "mistral",
        family: "mistral",
        aliases: &["mistral-v11", "devstral"],
        models: &["mistral-small", "devstral", "mistral-medium", "mistral-large-3"],
        summary: "Mistral v11+ (Small-3.2, Devstral): [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…} calls, ids byte-exact; v0.3 JSON arrays read too",
        sample: "Let me check both.[TOOL_CALLS]get_weather[CALL_ID]aB3dE5gH7[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]get_time[CALL_ID]Zx9Yw8Vu7[ARGS]{\"tz\": \"Europe/Paris\"}</s>",
        sample_prompt_tail: "[INST]Weather and time in Paris?[/INST]",
        special_tokens: SPECIAL_TOKENS,
        build: mistral,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "magistral",
        family: "mistral",
        aliases: &["ministral-3", "ministral_3", "ministral", "mistral-reasoning"],
        models: &["magistral", "ministral-3"],
        summary: "Magistral, Ministral-3: [THINK]…[/THINK] written by the model, then Mistral v11+ [TOOL_CALLS]NAME[ARGS]{…} calls",
        sample: "[THINK]The user wants the weather in Paris; one call.[/THINK]Let me check.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}</s>",
        sample_prompt_tail: "[INST]Weather in Paris?[/INST]",
        special_tokens: SPECIAL_TOKENS,
        build: magistral,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "mistral-v0.3",
        family: "mistral",
        aliases: &["mistral-nemo", "mistral_nemo", "mistral-v03"],
        models: &[
            "mistral-7b-instruct-v0.3", "mistral-nemo", "mixtral-8x22b-instruct", "mistral-small-24b",
            "mistral-small-3.1", "mistral-small-instruct-2409", "mistral-large-instruct", "devstral-small-2505",
            "codestral", "pixtral", "ministral-8b", "mixtral",
            // Ollama's library names, tag included (`mistral:7b` is Mistral-7B-Instruct-v0.3).
            "mistral:", "mistral-small:", "mistral-large:",
        ],
        summary: "Mistral v0.3 / Nemo: [TOOL_CALLS] [{\"name\", \"arguments\", \"id\"}] arrays, the 9-character ids byte-exact",
        sample: "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"aB3dE5gH7\"}, {\"name\": \"get_time\", \"arguments\": {\"tz\": \"Europe/Paris\"}, \"id\": \"Zx9Yw8Vu7\"}]</s>",
        sample_prompt_tail: "[INST]Weather and time in Paris?[/INST]",
        special_tokens: SPECIAL_TOKENS,
        build: mistral_v03,
    }
}
