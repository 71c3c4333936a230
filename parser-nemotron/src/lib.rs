//! NVIDIA Nemotron's reasoning and tool-call formats (Nemotron Nano v2 and Nemotron 3 Nano), for
//! llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `nemotron-nano-v2` | NVIDIA-Nemotron-Nano-9B-v2, 12B-v2 | forced open: the generation prompt ends in `<think>\n` (`<think></think>` with `/no_think`) | `<TOOLCALL>[{"name": …, "arguments": {…}}, …]</TOOLCALL>` |
//! | `nemotron-3-nano` | NVIDIA-Nemotron-3-Nano-30B-A3B (and later Nemotron 3) | forced open unless `enable_thinking=false` (`<think></think>` in the prompt) | Qwen3-Coder's XML: `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`, values typed by the tool schema |
//!
//! The wire formats, as the model writes them after the generation prompt:
//!
//! ```text
//! Nano v2 (after <SPECIAL_11>Assistant\n<think>\n):
//!     The user wants the weather.\n</think>\n\n<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL><SPECIAL_12>
//! Nemotron 3 Nano (after <|im_start|>assistant\n<think>\n):
//!     The user wants the weather.\n</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<|im_end|>
//! ```
//!
//! `<SPECIAL_12>` and `<|im_end|>` end the turn and are dropped. In Nano v2's list each element is read
//! on its own; a single object in place of the list is read too. Nemotron 3's values are strings unless
//! the request's tool schema types their parameter; one framing newline at each end is removed.
//!
//! Both formats are **data**: hand-written specs ([`nano_v2_spec`], [`nano_v3_spec`]) run by the
//! generic engine of `parser-generic` (`JSON_NATIVE` list in per-call markers; `TAG_WITH_TAGGED`), which
//! also gives their grammars.
//!
//! # Stage
//! Both templates open `<think>` in the generation prompt: the output starts in reasoning unless the
//! prompt tail ends in `<think></think>` (Nano v2's `/no_think` system prompt; Nemotron 3's
//! `enable_thinking=false`, which is also read from the request when no prompt tail is given). A call
//! block while reasoning is open is held: calls if it ends the output, reasoning text otherwise.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<think>\n");
//! let message = parser_nemotron::nemotron_3_nano(&options).parse(concat!(
//!     "The user wants Paris.\n</think>\n",
//!     "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris.\n"));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{
    Analysis, Capabilities, JsonFields, Markers, ReasoningMode, ToolFormat,
};

/// Nemotron Nano v2, as data for the generic engine.
pub fn nano_v2_spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<TOOLCALL>".into(),
            per_call_end: "</TOOLCALL>".into(),
            ..Markers::default()
        },
        json: JsonFields {
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: "<SPECIAL_11>Assistant\n<think>\n".into(),
        generation_prompt_no_thinking: Some("<SPECIAL_11>Assistant\n<think></think>".into()),
        end_of_turn: vec!["<SPECIAL_12>".into()],
        ..Analysis::default()
    }
}

/// Nemotron 3 Nano, as data for the generic engine.
pub fn nano_v3_spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers::qwen3_coder_xml(),
        capabilities: Capabilities {
            thinking_variable: Some("enable_thinking".into()),
            thinking_default: Some(true),
            ..Capabilities::default()
        },
        generation_prompt: "<|im_start|>assistant\n<think>\n".into(),
        generation_prompt_no_thinking: Some("<|im_start|>assistant\n<think></think>".into()),
        end_of_turn: vec!["<|im_end|>".into()],
        ..Analysis::default()
    }
}

/// The registered `nemotron-nano-v2` parser, built from [`nano_v2_spec`] on first use.
pub static NANO_V2: DataParser = DataParser::new("nemotron-nano-v2", nano_v2_spec);
/// The registered `nemotron-3-nano` parser, built from [`nano_v3_spec`] on first use.
pub static NANO_V3: DataParser = DataParser::new("nemotron-3-nano", nano_v3_spec);

/// Every marker of Nano v2, whole.
pub const NANO_V2_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<TOOLCALL>",
    "</TOOLCALL>",
    "<SPECIAL_12>",
];
/// Every marker of Nemotron 3 Nano, whole.
pub const NANO_V3_TOKENS: &[&str] = &[
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

/// The `nemotron-nano-v2` parser for one request.
pub fn nemotron_nano_v2(options: &ParseOptions) -> Parser {
    NANO_V2.parser(options)
}

/// The `nemotron-3-nano` parser for one request.
pub fn nemotron_3_nano(options: &ParseOptions) -> Parser {
    NANO_V3.parser(options)
}

/// The `nemotron-nano-v2` grammar for one request, from the same spec.
pub fn constraint_nano_v2(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    NANO_V2.constraint(options, request)
}

/// The `nemotron-3-nano` grammar for one request, from the same spec.
pub fn constraint_nano_v3(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    NANO_V3.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "nemotron-nano-v2",
        family: "nemotron",
        // vLLM `nemotron_nano_v2` (tool), llama.cpp's `nemotron_v2` handler.
        aliases: &["nemotron_nano_v2", "nemotron_v2", "nemotron-v2"],
        models: &["nemotron-nano-9b-v2", "nemotron-nano-12b-v2", "nemotron-nano-v2"],
        summary: "Nemotron Nano v2: <think> forced open by the prompt, <TOOLCALL>[{\"name\", \"arguments\"}, …]</TOOLCALL> calls",
        sample: "The user wants the weather in Paris.\n</think>\n\n<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}]</TOOLCALL><SPECIAL_12>",
        sample_prompt_tail: "<SPECIAL_11>User\nWeather in Paris for three days?\n<SPECIAL_11>Assistant\n<think>\n",
        special_tokens: NANO_V2_TOKENS,
        build: nemotron_nano_v2,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "nemotron-3-nano",
        family: "nemotron",
        // vLLM `nemotron_v3` (reasoning), Ollama `nemotron-3-nano` / `nemotron-3.5-nano`, SGLang's
        // `nemotron` tool parser (= qwen_xml) and smg's `nano_v3` reasoning parser.
        aliases: &["nemotron_v3", "nemotron-3.5-nano", "nemotron", "nano_v3", "nemotron3"],
        models: &["nemotron-3", "nemotron-3.5"],
        summary: "Nemotron 3 Nano: <think> forced open unless enable_thinking=false, Qwen3-Coder XML <tool_call><function=NAME><parameter=KEY> calls typed by the tool schema",
        sample: "The user wants the weather in Paris.\n</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n<|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris for three days?<|im_end|>\n<|im_start|>assistant\n<think>\n",
        special_tokens: NANO_V3_TOKENS,
        build: nemotron_3_nano,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "nemotron-nano-v2", build: constraint_nano_v2 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "nemotron-3-nano", build: constraint_nano_v3 }
}
