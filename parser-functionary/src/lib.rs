//! MeetKai functionary's tool-call formats (v3.1 on Llama 3.1, v3.2), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `functionary-v3.1` | functionary-small / medium-v3.1 | none | `<function=NAME>{…}</function>` |
//! | `functionary-v3.2` | functionary-small / medium-v3.2 (and later v3.x) | none | `>>>NAME\n{…}`; content is written to the recipient `all`: `>>>all\ntext` |
//!
//! The wire formats, as the model writes them after the generation prompt
//! `<|start_header_id|>assistant<|end_header_id|>\n\n`:
//!
//! ```text
//! v3.1:  Let me check.<function=get_weather>{"city": "Paris"}</function><|eom_id|>
//! v3.2:  >>>all\nLet me check.>>>get_weather\n{"city": "Paris"}
//! ```
//!
//! Both fit the generic engine (`TAG_WITH_JSON` calls: a name in markup, a JSON object of arguments), so
//! this crate is data: one [`parser_generic::spec::Analysis`] per parser, run by [`parser_generic`],
//! which also builds their grammars. In v3.2, `>>>all` and one newline after it are framing wherever a
//! call could open, and the text after them is content; `>>>` followed by any other name is a call
//! (`>>>allowed` too). `<|eot_id|>` and `<|eom_id|>` are dropped.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_functionary::functionary_v32(&ParseOptions::new())
//!     .parse(">>>all\nLet me check.>>>get_weather\n{\"city\": \"Paris\"}");
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, ContentMode, Markers, ToolFormat};

/// The Llama 3 generation prompt both versions use.
pub const GENERATION_PROMPT: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n";

/// v3.1: `<function=NAME>{…}</function>`.
pub fn v31_spec() -> Analysis {
    Analysis {
        tools: ToolFormat::TagWithJson,
        markers: Markers {
            per_call_start: "<function=".into(),
            func_name_suffix: ">".into(),
            per_call_end: "</function>".into(),
            ..Markers::default()
        },
        generation_prompt: GENERATION_PROMPT.into(),
        end_of_turn: vec!["<|eot_id|>".into(), "<|eom_id|>".into()],
        ..Analysis::default()
    }
}

/// v3.2: `>>>NAME\n{…}` calls and `>>>all\n` content.
pub fn v32_spec() -> Analysis {
    Analysis {
        content: ContentMode::AlwaysWrapped,
        tools: ToolFormat::TagWithJson,
        markers: Markers {
            content_start: ">>>all".into(),
            per_call_start: ">>>".into(),
            func_name_suffix: "\n".into(),
            ..Markers::default()
        },
        generation_prompt: GENERATION_PROMPT.into(),
        end_of_turn: vec!["<|eot_id|>".into()],
        ..Analysis::default()
    }
}

static V31: DataParser = DataParser::new("functionary-v3.1", v31_spec);
static V32: DataParser = DataParser::new("functionary-v3.2", v32_spec);

/// Every marker of `functionary-v3.1`, whole (the chunking tests push each one whole).
pub const V31_TOKENS: &[&str] = &["<function=", ">", "</function>", "<|eot_id|>", "<|eom_id|>"];

/// Every marker of `functionary-v3.2`, whole.
pub const V32_TOKENS: &[&str] = &[">>>all", ">>>", "<|eot_id|>"];

/// The `functionary-v3.1` parser for one request.
pub fn functionary_v31(options: &ParseOptions) -> Parser {
    V31.parser(options)
}

/// The `functionary-v3.2` parser for one request.
pub fn functionary_v32(options: &ParseOptions) -> Parser {
    V32.parser(options)
}

/// The grammar of one request for `functionary-v3.1`, from the same spec.
pub fn v31_constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    V31.constraint(options, request)
}

/// The grammar of one request for `functionary-v3.2`, from the same spec.
pub fn v32_constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    V32.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 2] {
    [&V31, &V32]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "functionary-v3.1",
        family: "functionary",
        aliases: &["functionary_v3_1", "functionary-v3-llama-3.1", "functionary_v3_1_llama_3_1"],
        models: &["functionary-small-v3.1", "functionary-medium-v3.1"],
        summary: "functionary v3.1 (Llama 3.1): <function=NAME>{json}</function> calls",
        sample: "Let me check.<function=get_weather>{\"city\": \"Paris\"}</function>",
        sample_prompt_tail: "<|start_header_id|>user<|end_header_id|>\n\nWeather in Paris?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        special_tokens: V31_TOKENS,
        build: functionary_v31,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "functionary-v3.1", build: v31_constraint }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "functionary-v3.2",
        family: "functionary",
        aliases: &["functionary", "functionary_v3_2"],
        models: &["functionary", "functionary-small-v3.2", "functionary-medium-v3.2"],
        summary: "functionary v3.2: >>>NAME\\n{json} calls, >>>all\\n content",
        sample: ">>>all\nLet me check.>>>get_weather\n{\"city\": \"Paris\"}",
        sample_prompt_tail: "<|start_header_id|>user<|end_header_id|>\n\nWeather in Paris?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        special_tokens: V32_TOKENS,
        build: functionary_v32,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "functionary-v3.2", build: v32_constraint }
}
