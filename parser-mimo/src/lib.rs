//! Xiaomi MiMo's reasoning and tool-call format (MiMo-V2-Flash, MiMo-V2.5), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `mimo` | Xiaomi MiMo-V2-Flash, MiMo-V2.5 (Pro) | `<think>` … `</think>`, on by default (`enable_thinking`) | Qwen3-Coder's XML: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`, values typed by the tool schema |
//!
//! The wire format, as the model writes it after the generation prompt `<|im_start|>assistant\n<think>`:
//!
//! ```text
//! The user wants the weather.</think>Let me check.
//! <tool_call>
//! <function=get_weather>
//! <parameter=city>Paris</parameter>
//! </function>
//! </tool_call><|im_end|>
//! ```
//!
//! One `<tool_call>` block per call; whitespace between the tags is framing, and one framing newline at
//! each end of a value is removed. `<|im_end|>` (the end of the turn) is dropped.
//!
//! # Typing: SGLang's, not vLLM's
//! The peers disagree on the values: vLLM's `mimo` keeps every value a JSON string whatever the
//! request's schema says, SGLang's `mimo` types it by the schema (an `integer` parameter's `3` is `3`,
//! an `object`'s text is decoded as JSON, a value that does not convert stays the text). This parser
//! types, as SGLang does and as every other Qwen3-Coder-style format here does: the call's arguments
//! then satisfy the schema the request declared, which is what a client validates them against, and
//! the grammar ([`constraint`]) writes each value in its schema's form, so typed values are what a
//! constrained model produces. A value the schema types as a string, or a parameter the schema does not
//! declare, is the same string under both peers' rules.
//!
//! # Not MiMo-VL, not MiMo-7B
//! MiMo-VL writes Qwen2.5's Hermes `<tool_call>{json}</tool_call>` and resolves to `qwen2.5` by its
//! name; MiMo-7B (llama.cpp's `xiaomi_mimo` handler) writes the same JSON calls and is `qwen3`'s. Only
//! the V2 models (`MiMo-V2…`) are this parser's.
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED` with Qwen3-Coder's markers), which also gives its grammar ([`constraint`]).
//!
//! # Stage
//! Thinking is on unless the request turns it off (`enable_thinking: false`, whose prompt ends in
//! `<think></think>`). The output starts in reasoning when the prompt tail (after the last
//! `<|im_start|>assistant`) opened `<think>`, or, without a tail, when thinking is not turned off; a
//! `<think>` the model writes itself at the start is read as the opener. A call block while reasoning is
//! still open is held: calls if it ends the output, reasoning text otherwise.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>");
//! let message = parser_mimo::mimo(&options).parse(concat!(
//!     "The user wants Paris.</think>Let me check.\n",
//!     "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</tool_call><|im_end|>",
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
use parser_generic::spec::{Analysis, Capabilities, Markers, ReasoningMode, ToolFormat};

/// The format, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers::qwen3_coder_xml(),
        capabilities: Capabilities {
            thinking_variable: Some("enable_thinking".into()),
            thinking_default: Some(true),
            ..Capabilities::default()
        },
        generation_prompt: "<|im_start|>assistant\n<think>".into(),
        generation_prompt_no_thinking: Some("<|im_start|>assistant\n<think></think>".into()),
        end_of_turn: vec!["<|im_end|>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static MIMO: DataParser = DataParser::new("mimo", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<function=",
    ">",
    "</function>",
    "<parameter=",
    "</parameter>",
    "<|im_end|>",
];

/// The `mimo` parser for one request.
pub fn mimo(options: &ParseOptions) -> Parser {
    MIMO.parser(options)
}

/// The `mimo` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    MIMO.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "mimo",
        family: "mimo",
        // vLLM's and SGLang's `mimo` (tool and reasoning) is the parser's own name.
        aliases: &["mimo-v2"],
        models: &["mimo-v2"],
        summary: "Xiaomi MiMo-V2: <think> on by default, Qwen3-Coder <tool_call><function=NAME><parameter=KEY> calls typed by the tool schema",
        sample: "The user wants the weather in Paris for three days.</think>Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</tool_call><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris for three days?<|im_end|>\n<|im_start|>assistant\n<think>",
        special_tokens: SPECIAL_TOKENS,
        build: mimo,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "mimo", build: constraint }
}
