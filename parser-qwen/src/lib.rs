//! Qwen's reasoning and tool-call formats, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `qwen2.5` | Qwen2 / Qwen2.5 (incl. Coder, Math) | none | Hermes-style JSON |
//! | `qwen3` | Qwen3 hybrid (Qwen3-8B, -30B-A3B, -235B-A22B, …), any other `qwen*` | `<think>` written by the model; the prompt or `enable_thinking` decide | Hermes-style JSON |
//! | `qwen3-thinking` | QwQ, Qwen3-*-Thinking-2507, Qwen3-Next-*-Thinking, Qwen3-VL-*-Thinking | forced open: the prompt ends in `<think>\n` | Hermes-style JSON |
//! | `qwen3-instruct-2507` | Qwen3-*-Instruct-2507, Qwen3-Next-*-Instruct, Qwen3-VL-*-Instruct | none (a `<think>` they print is content) | Hermes-style JSON |
//! | `qwen3-coder` | Qwen3-Coder-* | as `qwen3` | XML, typed by the tool schema |
//! | `qwen3.5` | Qwen3.5-*, Qwen3.6-* | forced open by default, as `qwen3-thinking` | XML, typed by the tool schema |
//!
//! The wire formats, as the model writes them:
//!
//! ```text
//! reasoning:  <think>\nThe user wants the weather.\n</think>\n\n          (Qwen3 hybrid: the model opens it)
//!             The user wants the weather.\n</think>\n\n                 (QwQ, *-Thinking-2507, Qwen3.5: the
//!                                                                      prompt ends in <think>\n)
//!             the prompt ends in <think>\n\n</think>\n\n                (enable_thinking=false: no reasoning)
//! Hermes:     <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>
//! XML:        <tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>
//! ```
//!
//! Calls may come several in a row, with content before, between and after them. Both shapes are
//! accepted after `<tool_call>` by every parser here (a model served under the other format's name still
//! works); the XML parsers also accept `<function=NAME>` without the `<tool_call>` wrapper. Details of
//! each shape are on [`QwenToolParser`].
//!
//! # Stage
//! Where the output starts is decided from the end of the rendered prompt (after the last
//! `<|im_start|>assistant`: `<think>` → reasoning, `</think>` → content), else from the prompt's token ids
//! (the special-token table must map `<|im_start|>`, `<think>` and `</think>`), else from
//! `enable_thinking` (`true` → reasoning, `false` → content), else from the parser's default: content for
//! `qwen3` and `qwen3-coder` (the hybrid models write their own `<think>`, which opens reasoning at the
//! start of the output), reasoning for `qwen3-thinking` and `qwen3.5` (their prompts open it). `qwen2.5`
//! and `qwen3-instruct-2507` never reason: everything outside calls is content.
//!
//! # Calls while reasoning is open
//! Tool markup inside a closed `<think>…</think>` block is reasoning text. A `<tool_call>` while reasoning
//! is still open (no `</think>` yet) is **held** ([`BlockInReasoning::Hold`]): if the block ends the output
//! it is a call and reasoning ended before it (vLLM's Qwen3 reasoning tests: a `<tool_call>` without
//! `</think>` ends reasoning); if `</think>` or more text follows it, it was reasoning text. Ending
//! reasoning at the opener ([`BlockInReasoning::EndsReasoning`]) cannot be taken back when `</think>`
//! follows, which would turn markup inside a closed reasoning block into a call (DESIGN §4.8); ignoring it
//! would lose the call the model meant to make. Holding keeps both rules, at the cost of releasing a call
//! made inside open reasoning only when the output ends.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! // Qwen3 with thinking on: the model opens <think> itself.
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n");
//! let message = parser_qwen::qwen3(&options).parse(concat!(
//!     "<think>\nThe user wants the weather.\n</think>\n\n",
//!     "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
//! ));
//! assert_eq!(message.reasoning_trimmed(), Some("The user wants the weather."));
//! assert_eq!(message.content, None);
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! // QwQ / Thinking-2507: the prompt opens <think>; the output only closes it. Arguments written as a
//! // JSON-encoded string are decoded.
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>assistant\n<think>\n");
//! let message = parser_qwen::qwen3_thinking(&options).parse(concat!(
//!     "Search first.\n</think>\n\nSure.\n",
//!     "<tool_call>\n{\"name\": \"search\", \"arguments\": \"{\\\"q\\\": \\\"Qwen\\\"}\"}\n</tool_call>",
//! ));
//! assert_eq!(message.reasoning_trimmed(), Some("Search first."));
//! assert_eq!(message.content_trimmed(), Some("Sure."));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"q": "Qwen"}"#);
//! ```
//!
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! // Qwen3-Coder: values are typed by the request's tool schema; strings stay strings.
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "ship", "parameters": {"type": "object", "properties": {
//!         "zip": {"type": "string"}, "count": {"type": "integer"}, "express": {"type": "boolean"}}}}}])).unwrap();
//! let options = ParseOptions::new().with_tools(Arc::new(tools));
//! let message = parser_qwen::qwen3_coder(&options).parse(concat!(
//!     "<tool_call>\n<function=ship>\n",
//!     "<parameter=zip>\n02134\n</parameter>\n",
//!     "<parameter=count>\n3\n</parameter>\n",
//!     "<parameter=express>\nTrue\n</parameter>\n",
//!     "</function>\n</tool_call>",
//! ));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"zip": "02134", "count": 3, "express": true}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;
pub mod markers;
mod tool;

use parser_core::{
    BlockInReasoning, Composed, NoReasoning, ParseOptions, Parser, ParserEntry, ReasoningFormat,
    ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser,
};

pub use tool::QwenToolParser;

use markers::*;

/// Stage detection for every Qwen prompt. `<|im_start|>` alone is a turn start too, so that token ids
/// (where `assistant` is a separate token) find the last turn; the generation prompt is the last one.
pub static STAGE: StageDetector =
    StageDetector::new(&[THINK_OPEN], &[THINK_CLOSE], &[ASSISTANT, IM_START]);

/// `<think>` reasoning; `<tool_call>` inside open reasoning is held.
pub static THINK_HERMES: ReasoningSyntax =
    ReasoningSyntax::new(STAGE, DROPPED, HERMES_BLOCK_OPENERS).with_turn_starts(TURN_STARTS);

/// `<think>` reasoning; `<tool_call>` and `<function=` inside open reasoning are held.
pub static THINK_XML: ReasoningSyntax =
    ReasoningSyntax::new(STAGE, DROPPED, XML_BLOCK_OPENERS).with_turn_starts(TURN_STARTS);

/// Composes a `<think>` reasoning parser (or none) with Qwen's tool parser.
fn compose(
    name: &'static str,
    options: &ParseOptions,
    reasoning: Option<(&'static ReasoningSyntax, Stage)>,
    tools: QwenToolParser,
) -> Parser {
    match reasoning {
        None => Parser::new(
            name,
            Composed::new(NoReasoning, tools, Stage::Content, false),
        ),
        Some((syntax, default_stage)) => {
            let decided = STAGE.from_request(options);
            let stage = decided.unwrap_or(default_stage);
            let inline = options.reasoning_format == ReasoningFormat::Inline;
            let reasoning = ThinkTagReasoningParser::new(syntax, stage)
                .stage_from_default(decided.is_none())
                .inline(inline)
                .blocks_in_reasoning(BlockInReasoning::Hold);
            let composed = Composed::new(reasoning, tools, stage, inline);
            Parser::new(name, composed.buffer_limit(options.limits.call_buffer))
        }
    }
}

/// Qwen2 / Qwen2.5: no reasoning, Hermes-style calls.
pub fn qwen25(options: &ParseOptions) -> Parser {
    compose("qwen2.5", options, None, QwenToolParser::hermes(options))
}

/// Qwen3 (hybrid thinking): `<think>` as the prompt, `enable_thinking` or the model decide; Hermes-style
/// calls.
pub fn qwen3(options: &ParseOptions) -> Parser {
    compose(
        "qwen3",
        options,
        Some((&THINK_HERMES, Stage::Content)),
        QwenToolParser::hermes(options),
    )
}

/// QwQ, Qwen3-*-Thinking-2507: reasoning forced open by the prompt; Hermes-style calls.
pub fn qwen3_thinking(options: &ParseOptions) -> Parser {
    compose(
        "qwen3-thinking",
        options,
        Some((&THINK_HERMES, Stage::Reasoning)),
        QwenToolParser::hermes(options),
    )
}

/// Qwen3-*-Instruct-2507: no reasoning, Hermes-style calls.
pub fn qwen3_instruct_2507(options: &ParseOptions) -> Parser {
    compose(
        "qwen3-instruct-2507",
        options,
        None,
        QwenToolParser::hermes(options),
    )
}

/// Qwen3-Coder: `<think>` as for Qwen3, XML calls typed by the tool schema.
pub fn qwen3_coder(options: &ParseOptions) -> Parser {
    compose(
        "qwen3-coder",
        options,
        Some((&THINK_XML, Stage::Content)),
        QwenToolParser::xml(options),
    )
}

/// Qwen3.5: reasoning forced open by default (the prompt ends in `<think>\n`), XML calls typed by the
/// tool schema.
pub fn qwen35(options: &ParseOptions) -> Parser {
    compose(
        "qwen3.5",
        options,
        Some((&THINK_XML, Stage::Reasoning)),
        QwenToolParser::xml(options),
    )
}

// Which Qwen3-generation models think (issue 18). A model id containing `qwen3` that no more specific
// pattern matches goes to the hybrid `qwen3`, where a `<think>` the model prints opens reasoning: right for the
// hybrid models only. So every model that is *not* hybrid needs a pattern here, by its real id (a pattern
// is a substring of the normalised id, and the size sits between the family and the variant).
//
// - Qwen3-*-Thinking-2507, QwQ, Qwen3-Next-80B-A3B-Thinking and Qwen3-VL-*-Thinking: their templates end
//   the generation prompt in `<think>\n` (the model writes only `…</think>`): `qwen3-thinking`.
// - Qwen3-*-Instruct-2507, Qwen3-Next-80B-A3B-Instruct and Qwen3-VL-*-Instruct: never think (their
//   templates have no `<think>` and no `enable_thinking`); a `<think>…</think>` they print is content:
//   `qwen3-instruct-2507`. Qwen3-VL comes in 2B, 4B, 8B, 32B, 30B-A3B and 235B-A22B, each as -Instruct
//   and -Thinking, with Hermes-style calls (transformers' fallback for `qwen3_vl` is `<tool_call>` JSON).
// - Qwen3.5 and Qwen3.6: one hybrid model per size, no -Instruct / -Thinking split is known; the
//   template opens `<think>\n` unless `enable_thinking=false` (then `<think>\n\n</think>\n\n`), which
//   the prompt tail tells the parser; calls are XML (SGLang maps `qwen3.5*` and `qwen3.6*` to its XML
//   parser, transformers `qwen3_5` too): `qwen3.5`.
// - Qwen3-Coder (-Instruct, no thinking variant) keeps `qwen3-coder`, whose reasoning is as `qwen3`'s.
const THINKING_MODELS: &[&str] = &[
    "qwq",
    "thinking-2507",
    "qwen3-next-80b-a3b-thinking",
    "qwen3-vl-2b-thinking",
    "qwen3-vl-4b-thinking",
    "qwen3-vl-8b-thinking",
    "qwen3-vl-32b-thinking",
    "qwen3-vl-30b-a3b-thinking",
    "qwen3-vl-235b-a22b-thinking",
];
const INSTRUCT_MODELS: &[&str] = &[
    "instruct-2507",
    "qwen3-next-80b-a3b-instruct",
    "qwen3-vl-2b-instruct",
    "qwen3-vl-4b-instruct",
    "qwen3-vl-8b-instruct",
    "qwen3-vl-32b-instruct",
    "qwen3-vl-30b-a3b-instruct",
    "qwen3-vl-235b-a22b-instruct",
];

parser_core::inventory::submit! {
    ParserEntry {
        name: "qwen2.5",
        family: "qwen",
        aliases: &["qwen25", "qwen2"],
        // MiMo-VL's chat template is Qwen2.5's (another default system prompt).
        models: &["qwen2", "qwen2.5", "mimo-vl"],
        summary: "Qwen2 / Qwen2.5: no reasoning, Hermes-style <tool_call>{json}</tool_call> calls",
        sample: "I'll check the weather in Paris for you.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>",
        sample_prompt_tail: "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: qwen25,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "qwen3",
        family: "qwen",
        aliases: &["qwen", "qwen3_json", "qwen3-hybrid", "xiaomi_mimo"],
        models: &["qwen", "qwen3"],
        summary: "Qwen3 (hybrid thinking): <think> by the model, the prompt or enable_thinking; Hermes-style calls",
        sample: "<think>\nThe user wants the weather in two cities; one call each.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}\n</tool_call><|im_end|>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris and Beijing?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: qwen3,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "qwen3-thinking",
        family: "qwen",
        aliases: &["qwq", "qwen3-thinking-2507", "qwen3_thinking_2507", "qwen3-vl-thinking", "holo2"],
        models: THINKING_MODELS,
        summary: "QwQ / Qwen3-*-Thinking-2507: <think> forced open by the prompt, Hermes-style calls",
        sample: "The user wants to find files; I should search.\n</think>\n\nLet me search.\n<tool_call>\n{\"name\": \"search_files\", \"arguments\": {\"pattern\": \"*.rs\", \"max_results\": 10}}\n</tool_call>",
        sample_prompt_tail: "<|im_start|>user\nFind the Rust files.<|im_end|>\n<|im_start|>assistant\n<think>\n",
        special_tokens: SPECIAL_TOKENS,
        build: qwen3_thinking,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "qwen3-instruct-2507",
        family: "qwen",
        aliases: &["qwen3_instruct_2507", "qwen3-instruct", "qwen3-vl-instruct"],
        models: INSTRUCT_MODELS,
        summary: "Qwen3-*-Instruct-2507: no reasoning, Hermes-style calls",
        sample: "Let me look that up.\n<tool_call>\n{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"Qwen3 release date\\\"}\"}\n</tool_call>",
        sample_prompt_tail: "<|im_start|>user\nWhen was Qwen3 released?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: qwen3_instruct_2507,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "qwen3-coder",
        family: "qwen",
        aliases: &["qwen3_coder", "qwen3_xml", "qwen_xml", "qwen3-coder-xml", "qwen_coder", "nanbeige"],
        models: &["qwen3-coder"],
        summary: "Qwen3-Coder: <think> as Qwen3, <tool_call><function=NAME><parameter=KEY>… XML calls typed by the tool schema",
        sample: "I'll list the directory first.\n<tool_call>\n<function=run_shell>\n<parameter=command>\nls -la \"/tmp/my dir\"\n</parameter>\n<parameter=timeout>\n30\n</parameter>\n</function>\n</tool_call>",
        sample_prompt_tail: "<|im_start|>user\nWhat is in /tmp/my dir?<|im_end|>\n<|im_start|>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: qwen3_coder,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "qwen3.5",
        family: "qwen",
        aliases: &["qwen35", "qwen3_5", "qwen3.8", "ornith"],
        models: &["qwen3.5", "qwen3.6"],
        summary: "Qwen3.5: <think> forced open by default, XML calls typed by the tool schema",
        sample: "The user wants the weather in Tokyo.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Tokyo for 3 days?<|im_end|>\n<|im_start|>assistant\n<think>\n",
        special_tokens: SPECIAL_TOKENS,
        build: qwen35,
    }
}
