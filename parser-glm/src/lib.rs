//! GLM's reasoning and tool-call formats (Z.ai GLM-4.5, 4.6, 4.7 and 5), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `glm-4.5` | GLM-4.5, GLM-4.5-Air, GLM-4.6 (hybrid) | `<think>` written by the model; `enable_thinking=false` renders `<think></think>` into the prompt | `<tool_call>NAME\n<arg_key>…</arg_key>\n<arg_value>…</arg_value>\n</tool_call>` |
//! | `glm-4.7` | GLM-4.7, GLM-4.7-Flash, GLM-5 | forced open: the prompt ends in `<think>` (`</think>` when thinking is off) | the same without newlines: `<tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>` |
//!
//! The wire formats, as the model writes them after the generation prompt `<|assistant|>`:
//!
//! ```text
//! GLM-4.5 / 4.6:  \n<think>The user wants the weather.</think>\nLet me check.
//!                 <tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>
//!                 (thinking off: the prompt ends in <|assistant|>\n<think></think>)
//! GLM-4.7 / 5:    The user wants the weather.</think>Let me check.            (the prompt ends in <|assistant|><think>)
//!                 <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>
//!                 (thinking off: the prompt ends in <|assistant|></think>)
//! ```
//!
//! Values are written as the chat template writes them: a string as is, anything else as JSON
//! (`{{ v | tojson if v is not string else v }}`). So a value is a string unless the request's tool
//! schema types its parameter otherwise (`3` above is `"3"` without a schema saying `integer`). Both
//! parsers read both call layouts (whitespace between tags is framing); details on [`GlmToolParser`].
//! Calls come one after another, with content before them; `<|observation|>`, `<|user|>` and
//! `<|endoftext|>` (the end-of-turn tokens) are dropped.
//!
//! # Stage
//! Decided from the end of the rendered prompt (after the last `<|assistant|>`: `<think>` → reasoning,
//! `</think>` → content), else from the prompt's token ids (the special-token table must map
//! `<|assistant|>`, `<think>` and `</think>`), else — for `glm-4.7` only — from `enable_thinking`, else
//! from the parser's default: content for `glm-4.5` (the model opens `<think>` itself when it thinks, so
//! the flag says nothing the output does not), reasoning for `glm-4.7` (its prompt opens it).
//!
//! # Calls while reasoning is open
//! A `<tool_call>` while reasoning is still open is held ([`BlockInReasoning::Hold`]): if the block ends
//! the output it is a call and reasoning ended before it (GLM-4.7 answering with a call right after the
//! prompt's `<think>`); if `</think>` or more text follows, it was reasoning text.
//!
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! // GLM-4.7: the prompt opened <think>; `days` is an integer by the schema, `city` a string.
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather", "parameters": {"type": "object", "properties": {
//!         "city": {"type": "string"}, "days": {"type": "integer"}}}}}])).unwrap();
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<|user|>Weather in Paris?<|assistant|><think>")
//!     .with_tools(Arc::new(tools));
//! let message = parser_glm::glm47(&options).parse(concat!(
//!     "The user wants the weather.</think>Let me check.",
//!     "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>",
//!     "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//!
//! // GLM-4.6: the model opens <think> itself; without a schema every value is a string.
//! let options = ParseOptions::new().with_prompt_tail("<|user|>\nWeather in Paris?<|assistant|>");
//! let message = parser_glm::glm45(&options).parse(concat!(
//!     "\n<think>The user wants the weather.</think>\n",
//!     "<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"days": "3"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;
pub mod markers;
mod tool;

use parser_core::{
    BlockInReasoning, Composed, ParseOptions, Parser, ParserEntry, ReasoningFormat,
    ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser,
};

pub use tool::GlmToolParser;

use markers::*;

/// Stage detection: `<think>` / `</think>` after the last `<|assistant|>` of the prompt.
pub static STAGE: StageDetector = StageDetector::new(&[THINK_OPEN], &[THINK_CLOSE], &[ASSISTANT]);

/// `<think>` reasoning; end-of-turn tokens dropped; `<tool_call>` inside open reasoning is held.
pub static THINK: ReasoningSyntax =
    ReasoningSyntax::new(STAGE, DROPPED, BLOCK_OPENERS).with_turn_starts(TURN_STARTS);

/// Composes `<think>` reasoning, starting in the stage the request decides (`None`: `default`), with
/// GLM's tool parser.
fn compose(
    name: &'static str,
    options: &ParseOptions,
    decided: Option<Stage>,
    default: Stage,
) -> Parser {
    let stage = decided.unwrap_or(default);
    let inline = options.reasoning_format == ReasoningFormat::Inline;
    let reasoning = ThinkTagReasoningParser::new(&THINK, stage)
        .stage_from_default(decided.is_none())
        .inline(inline)
        .blocks_in_reasoning(BlockInReasoning::Hold);
    let tools = GlmToolParser::new(options);
    Parser::new(name, Composed::new(reasoning, tools, stage, inline))
}

/// GLM-4.5 / 4.6 (hybrid): `<think>` written by the model, stage from the prompt (`enable_thinking` is
/// not consulted); calls with a newline after the name (either layout is read).
pub fn glm45(options: &ParseOptions) -> Parser {
    let decided = STAGE.from_request_without_switch(options);
    compose("glm-4.5", options, decided, Stage::Content)
}

/// GLM-4.7 / GLM-5: reasoning forced open by the prompt unless thinking is off; calls without newlines
/// (either layout is read).
pub fn glm47(options: &ParseOptions) -> Parser {
    compose(
        "glm-4.7",
        options,
        STAGE.from_request(options),
        Stage::Reasoning,
    )
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "glm-4.5",
        family: "glm",
        aliases: &["glm45", "glm", "glm4_moe", "glm46", "glm45_moe", "spark25"],
        models: &["glm-4.5", "glm-4.6"],
        summary: "GLM-4.5 / 4.6: <think> by the model, <tool_call>NAME\\n<arg_key>…</arg_key>\\n<arg_value>…</arg_value> calls typed by the tool schema",
        sample: "\n<think>The user wants the weather in Paris for three days.</think>\nLet me check.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        sample_prompt_tail: "<|user|>\nWeather in Paris for three days?<|assistant|>",
        special_tokens: SPECIAL_TOKENS,
        build: glm45,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "glm-4.7",
        family: "glm",
        aliases: &["glm47", "glm5", "glm47_moe"],
        models: &["glm-4.7", "glm-5"],
        summary: "GLM-4.7 / 5: <think> forced open by the prompt, <tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value> calls typed by the tool schema",
        sample: "The user wants the weather in two cities; one call each.</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>北京</arg_value></tool_call>",
        sample_prompt_tail: "<|user|>Weather in Paris and Beijing?<|assistant|><think>",
        special_tokens: SPECIAL_TOKENS,
        build: glm47,
    }
}
