//! Baidu ERNIE-4.5's reasoning and tool-call format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `ernie-4.5` | ERNIE-4.5-21B-A3B-Thinking, ERNIE-4.5-VL (thinking by default) | `<think>` opened by the prompt, closed by the model; the answer optionally in `<response>…</response>` | `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, one block per call |
//! | `ernie-4.5-instruct` | ERNIE-4.5 without thinking (0.3B, 21B-A3B, 300B-A47B `-PT`) | only a `<think>` the model writes at the very start | the same |
//!
//! The wire format, as the Thinking model writes it after a generation prompt that ends in `<think>`
//! (vLLM's `ernie45` parsers and their tests):
//!
//! ```text
//! The user wants the weather in Paris.
//! </think>
//!
//! <response>
//! Let me check.
//! </response>
//! <tool_call>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! </tool_call>
//! ```
//!
//! or, without the `<response>` wrapper, `abc\n</think>\ndef`. `<response>` and `</response>` are
//! removed from content wherever they appear outside calls; `</s>` and `<|end_of_sentence|>` (the end
//! of the turn) are dropped. Arguments stream as the raw JSON the model wrote.
//!
//! The format is **data**: hand-written specs ([`spec`], [`instruct_spec`]) run by the generic engine of `parser-generic`
//! (`JSON_NATIVE` in per-call markers, `WRAPPED_WITH_REASONING` content), which also gives their grammars
//! for constrained decoding ([`constraint`], [`constraint_instruct`]).
//!
//! # Stage
//! The Thinking models' generation prompt opens reasoning (`Assistant: <think>`; vLLM's and
//! FastDeploy's `ernie45` / `ernie-x1` reasoning parsers read an output without `<think>` as reasoning
//! up to `</think>`, and the Thinking model cannot switch thinking off), so `ernie-4.5` starts in
//! reasoning unless the prompt tail closed it. `ernie-4.5-instruct` (the models without thinking,
//! generation prompt `Assistant: `) starts in the answer, where a `<think>` at the very start of the
//! output opens reasoning. Two parsers rather than one with a switch, because the prompt of a model
//! without thinking holds no marker that would tell the two apart. The models' chat templates were not
//! available here (the `User: …\nAssistant: ` turns are ms-swift's ERNIE template); the stage rules
//! follow the peers' parsers and tests.
//!
//! A `<tool_call>` while reasoning is open is held: a call if the block ends the output, reasoning
//! text if `</think>` or more text follows (DESIGN §4.8).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("User: Weather in Paris?\nAssistant: <think>\n");
//! let message = parser_ernie::ernie45(&options).parse(concat!(
//!     "The user wants Paris.\n</think>\n\n",
//!     "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris.\n"));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! let message = parser_ernie::ernie45(&options).parse("Easy.\n</think>\n\n<response>\nHello!\n</response>\n");
//! assert_eq!(message.reasoning.as_deref(), Some("Easy.\n"));
//! assert_eq!(message.content.as_deref().map(str::trim), Some("Hello!"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, ContentMode, Markers, ReasoningMode, ToolFormat};

/// The assistant's turn.
const ASSISTANT: &str = "Assistant: ";

/// The format after a given generation prompt, as data for the generic engine.
fn spec_after(generation_prompt: &str) -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        content: ContentMode::WrappedWithReasoning,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            content_start: "<response>".into(),
            content_end: "</response>".into(),
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            ..Markers::default()
        },
        generation_prompt: generation_prompt.into(),
        turn_start: vec![ASSISTANT.into()],
        // ERNIE-4.5's turns end in `</s>` (the Thinking model) or `<|end_of_sentence|>` (the others).
        end_of_turn: vec!["</s>".into(), "<|end_of_sentence|>".into()],
        ..Analysis::default()
    }
}

/// The Thinking models (`ernie-4.5`): the generation prompt opens reasoning.
pub fn spec() -> Analysis {
    spec_after("Assistant: <think>\n")
}

/// The models without thinking (`ernie-4.5-instruct`): the generation prompt leaves the model in the
/// answer.
pub fn instruct_spec() -> Analysis {
    spec_after(ASSISTANT)
}

/// The registered `ernie-4.5` parser, built from [`spec`] on first use.
pub static ERNIE45: DataParser = DataParser::new("ernie-4.5", spec);
/// The registered `ernie-4.5-instruct` parser, built from [`instruct_spec`] on first use.
pub static ERNIE45_INSTRUCT: DataParser = DataParser::new("ernie-4.5-instruct", instruct_spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<response>",
    "</response>",
    "<tool_call>",
    "</tool_call>",
    "</s>",
    "<|end_of_sentence|>",
];

/// The `ernie-4.5` parser for one request.
pub fn ernie45(options: &ParseOptions) -> Parser {
    ERNIE45.parser(options)
}

/// The `ernie-4.5-instruct` parser for one request.
pub fn ernie45_instruct(options: &ParseOptions) -> Parser {
    ERNIE45_INSTRUCT.parser(options)
}

/// The `ernie-4.5` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    ERNIE45.constraint(options, request)
}

/// The `ernie-4.5-instruct` grammar for one request, from the same spec.
pub fn constraint_instruct(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    ERNIE45_INSTRUCT.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "ernie-4.5",
        family: "ernie",
        // vLLM `ernie45` (tool and reasoning), FastDeploy's `ernie-x1` (ERNIE-4.5-21B-A3B-Thinking) and
        // `ernie-45-vl` (the VL models, thinking by default).
        // (`ernie45` is this parser's own name, normalised.)
        aliases: &["ernie-x1", "ernie-45-vl", "ernie-4.5-thinking"],
        models: &["ernie-4.5-21b-a3b-thinking", "ernie-4.5-vl"],
        summary: "ERNIE-4.5 Thinking / VL: <think> opened by the prompt, <response>…</response> answers, <tool_call>{\"name\", \"arguments\"}</tool_call> calls",
        sample: "The user wants the weather in Paris.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>\n</s>",
        sample_prompt_tail: "<|begin_of_sentence|>User: Weather in Paris for three days?\nAssistant: <think>\n",
        special_tokens: SPECIAL_TOKENS,
        build: ernie45,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "ernie-4.5", build: constraint }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "ernie-4.5-instruct",
        family: "ernie",
        aliases: &["ernie-4.5-pt"],
        models: &["ernie-4.5"],
        summary: "ERNIE-4.5 without thinking (0.3B … 300B-A47B -PT): the answer, <think> only if the model opens it, <tool_call>{\"name\", \"arguments\"}</tool_call> calls",
        sample: "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call><|end_of_sentence|>",
        sample_prompt_tail: "<|begin_of_sentence|>User: Weather in Paris for three days?\nAssistant: ",
        special_tokens: SPECIAL_TOKENS,
        build: ernie45_instruct,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "ernie-4.5-instruct", build: constraint_instruct }
}
