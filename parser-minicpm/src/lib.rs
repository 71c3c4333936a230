//! OpenBMB's MiniCPM 5 and MiniCPM-V reasoning and tool-call formats, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `minicpm5` | OpenBMB MiniCPM 5 | `<think>` … `</think>` written by the model, on by default (`enable_thinking`; `<think>\n\n</think>\n\n` in the prompt when off) | bare `<function name="NAME"><param name="KEY">VALUE</param></function>`, values typed by the tool schema |
//! | `minicpmv` | OpenBMB MiniCPM-V 4.5 (Qwen3-based) | `<think>` … `</think>`, off by default (`enable_thinking`) | Qwen3-Coder `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`, typed by the tool schema |
//!
//! The wire format, as the model writes it after the generation prompt `<|im_start|>assistant\n`:
//!
//! ```text
//! <think>The user wants the weather.</think>Let me check.
//! <function name="get_weather"><param name="city">Paris</param></function><|im_end|>
//! ```
//!
//! Calls have no wrapper: each opens at `<function name="` and ends at `</function>`, several may
//! follow each other. Whitespace between the tags is framing, one framing newline at each end of a
//! value is removed, and a value is typed by the request's tool schema (the peers decode a non-string
//! value as JSON, or as a Python literal, and keep the text when neither reads). `<|im_end|>` is
//! dropped.
//!
//! # What the peers also read, and this parser does not
//! The peers parse each block as XML after the fact, and so also read spellings that a decoder with
//! special tokens kept, or a looser model, writes. The tokenizer's own tokens decoded without their
//! space, `<functionname="` / `<paramname="`, are read here too: the spec lists them as other
//! spellings of the two markers ([`Analysis::marker_spellings`]; the grammar writes the template's
//! spelling). Not read: `Ġ` for the space (a byte-level decoder left raw), values in
//! `<![CDATA[…]]>` (the string written, markers included), and a lone `properties` parameter holding
//! the arguments as a dict; recorded as deviations in the corpus. The peers also refuse
//! calls the tool schema does not allow (unknown names and parameters, duplicate or missing required
//! parameters) and give them back as text; here a call is a call (names are not checked, DESIGN §4.6).
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED` without a block marker: a call opens at its markup-like function-name prefix),
//! which also gives its grammar ([`constraint`]).
//!
//! # Stage
//! The generation prompt opens nothing; the model opens `<think>` itself at the start of the output,
//! and reasoning runs to `</think>`. With `enable_thinking: false` the prompt ends in a closed
//! `<think>\n\n</think>\n\n`, and the output is the answer.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n");
//! let message = parser_minicpm::minicpm5(&options).parse(concat!(
//!     "<think>The user wants Paris.</think>Let me check.",
//!     "<function name=\"get_weather\"><param name=\"city\">Paris</param></function><|im_end|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
//!
//! # MiniCPM-V
//! MiniCPM-V 4.5 is built on Qwen3 and writes Qwen3's format: `<think>` reasoning, which its
//! template leaves off unless the request sets `enable_thinking` (so a `<think>` the model writes
//! anyway is still read as reasoning), and Qwen3-Coder's XML calls. Two things are its own, both
//! as vLLM's `minicpmv` parser reads them:
//! - the reserved tokens `<reserved_12>` … `<reserved_15>` and `<|reserved_12|>` … `<|reserved_15|>`
//!   are dropped like `<|im_end|>` (data: the spec's end-of-turn tokens);
//! - the tokenizer decodes a newline as the two characters `\` `n` (one token), so reasoning and
//!   content have their written-out newlines restored: `\n`, `\r`, `\r\n` become a newline, except
//!   inside code (`` `…` ``, ```` ```…``` ````), LaTeX (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`) and after
//!   a run of backslashes. Call arguments are kept as written. This is the one thing the generic
//!   engine does not do, so [`minicpmv`] wraps the engine's parser in a small filter on its
//!   reasoning and content (at most three bytes held, so streaming still equals one-shot).
//!
//! Where vLLM differs: with thinking off it drops what the model writes inside `<think>` and a stray
//! `</think>`; here that text is reasoning and the stray closer is content (DESIGN §4.6: nothing
//! dropped), recorded as deviations in the corpus.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
//! let message = parser_minicpm::minicpmv(&options).parse(concat!(
//!     "Line one\\nline two `a\\nb`",
//!     "<tool_call><function=get_weather><parameter=city>SF</parameter></function></tool_call>",
//! ));
//! assert_eq!(message.content.as_deref(), Some("Line one\nline two `a\\nb`"));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "SF"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod minicpmv;
mod newlines;

pub use minicpmv::{MINICPMV, SPECIAL_TOKENS_V, constraint_v, minicpmv, spec_v};

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Capabilities, Markers, ReasoningMode, ToolFormat};

/// The format, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            func_name_prefix: "<function name=\"".into(),
            func_name_suffix: "\">".into(),
            func_close: "</function>".into(),
            arg_name_prefix: "<param name=\"".into(),
            arg_name_suffix: "\">".into(),
            arg_value_suffix: "</param>".into(),
            ..Markers::default()
        },
        capabilities: Capabilities {
            thinking_variable: Some("enable_thinking".into()),
            thinking_default: Some(true),
            ..Capabilities::default()
        },
        generation_prompt: "<|im_start|>assistant\n".into(),
        generation_prompt_no_thinking: Some(
            "<|im_start|>assistant\n<think>\n\n</think>\n\n".into(),
        ),
        turn_start: vec!["<|im_start|>assistant".into()],
        end_of_turn: vec!["<|im_end|>".into()],
        // The tokenizer's own tokens, decoded with special tokens kept: no space inside.
        marker_spellings: vec![
            ("<function name=\"".into(), "<functionname=\"".into()),
            ("<param name=\"".into(), "<paramname=\"".into()),
        ],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static MINICPM5: DataParser = DataParser::new("minicpm5", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<function name=\"",
    "\">",
    "</function>",
    "<param name=\"",
    "</param>",
    "<|im_end|>",
    "<functionname=\"",
    "<paramname=\"",
];

/// The `minicpm5` parser for one request.
pub fn minicpm5(options: &ParseOptions) -> Parser {
    MINICPM5.parser(options)
}

/// The `minicpm5` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    MINICPM5.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "minicpm5",
        family: "minicpm",
        // vLLM's, SGLang's and llama.cpp's `minicpm5` is the parser's own name.
        aliases: &["minicpm-5"],
        models: &["minicpm5", "minicpm-5"],
        summary: "OpenBMB MiniCPM 5: <think> written by the model, bare <function name=…><param name=…> calls typed by the tool schema",
        sample: "<think>The user wants the weather in Paris for three days.</think>Let me check.\n<function name=\"get_weather\"><param name=\"city\">Paris</param><param name=\"days\">3</param></function><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris for three days?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: minicpm5,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "minicpm5", build: constraint }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "minicpmv",
        family: "minicpm",
        // vLLM's `minicpmv` reasoning (and tool) parser is the parser's own name.
        aliases: &["minicpm-v"],
        models: &["minicpm-v"],
        summary: "OpenBMB MiniCPM-V 4.5: Qwen3 <think> (off by default) and Qwen3-Coder XML calls, written-out \\n newlines restored outside code",
        sample: "<think>The user wants the weather.\\nParis, three days.</think>Let me check.\\n<tool_call><function=get_weather><parameter=city>Paris</parameter><parameter=days>3</parameter></function></tool_call><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris for three days?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS_V,
        build: minicpmv,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "minicpmv", build: constraint_v }
}
