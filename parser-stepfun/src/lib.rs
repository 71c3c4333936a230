//! StepFun's reasoning and tool-call formats (Step-3.5-Flash, Step-3), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `step-3.5` | Step-3.5-Flash | forced open: the prompt ends in `<think>\n` | Qwen3-Coder's XML: `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`, values typed by the tool schema |
//! | `step-3` | Step-3 | forced open (everything before `</think>` is reasoning) | `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="KEY">VALUE</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>` |
//!
//! The wire formats, as the model writes them:
//!
//! ```text
//! Step-3.5:  (the prompt ends in <|im_start|>assistant\n<think>\n)
//!            The user wants the weather.\n</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>
//! Step-3:    The user wants the weather.</think><｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
//!            <steptml:parameter name="city">Paris</steptml:parameter>
//!            </steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>
//! ```
//!
//! Both fit the generic engine (`TAG_WITH_TAGGED` calls), so this crate is data: one
//! [`parser_generic::spec::Analysis`] per parser, run by [`parser_generic`], which also builds the grammar of a request from the same spec. Values are typed by the request's tool schema (a string parameter stays a string, `3`
//! is an integer only where the schema says so); one framing newline is removed at each end of a value.
//! Step-3's format comes from the peers' parsers (vLLM and SGLang `step3`); its chat template is not in
//! `templates/`.
//!
//! # Stage
//! Both templates open `<think>` in the generation prompt and have no thinking switch: the output starts
//! in reasoning unless the prompt's tail (after the last assistant turn start) closed it. A call block
//! while reasoning is open is held: a call if it ends the output, reasoning text otherwise.
//!
//! ```
//! use std::sync::Arc;
//! use parser_core::{ParseOptions, Tools};
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather", "parameters": {"type": "object", "properties": {
//!         "city": {"type": "string"}, "days": {"type": "integer"}}}}}])).unwrap();
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<think>\n")
//!     .with_tools(Arc::new(tools));
//! let message = parser_stepfun::step35(&options).parse(concat!(
//!     "The user wants the weather.\n</think>\n<tool_call>\n<function=get_weather>\n",
//!     "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref().map(str::trim), Some("The user wants the weather."));
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// Step-3.5-Flash: `<think>` forced open by the prompt, Qwen3-Coder XML calls, ChatML turns.
pub fn step35_spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<tool_call>\n".into(),
            per_call_end: "</tool_call>".into(),
            func_name_prefix: "<function=".into(),
            func_name_suffix: ">\n".into(),
            func_close: "</function>\n".into(),
            arg_name_prefix: "<parameter=".into(),
            arg_name_suffix: ">".into(),
            arg_value_prefix: "\n".into(),
            arg_value_suffix: "\n</parameter>".into(),
            arg_separator: "\n".into(),
            ..Markers::default()
        },
        generation_prompt: "<|im_start|>assistant\n<think>\n".into(),
        end_of_turn: vec!["<|im_end|>".into()],
        ..Analysis::default()
    }
}

/// Step-3: `</think>` ends the reasoning the prompt opened; steptml calls in DeepSeek-like sections.
pub fn step3_spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            tool_section_start: "<｜tool_calls_begin｜>".into(),
            tool_section_end: "<｜tool_calls_end｜>".into(),
            per_call_start: "<｜tool_call_begin｜>function<｜tool_sep｜>".into(),
            per_call_end: "<｜tool_call_end｜>".into(),
            func_name_prefix: "<steptml:invoke name=\"".into(),
            func_name_suffix: "\">".into(),
            func_close: "</steptml:invoke>".into(),
            arg_name_prefix: "<steptml:parameter name=\"".into(),
            arg_name_suffix: "\">".into(),
            arg_value_suffix: "</steptml:parameter>".into(),
            ..Markers::default()
        },
        generation_prompt: "<|BOT|>assistant\n<think>\n".into(),
        end_of_turn: vec!["<|EOT|>".into()],
        ..Analysis::default()
    }
}

static STEP35: DataParser = DataParser::new("step-3.5", step35_spec);
static STEP3: DataParser = DataParser::new("step-3", step3_spec);

/// Every marker of `step-3.5`, whole (the chunking tests push each one whole).
pub const STEP35_TOKENS: &[&str] = &[
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

/// Every marker of `step-3`, whole.
pub const STEP3_TOKENS: &[&str] = &[
    "<think>",
    "</think>",
    "<｜tool_calls_begin｜>",
    "<｜tool_calls_end｜>",
    "<｜tool_call_begin｜>function<｜tool_sep｜>",
    "<｜tool_call_end｜>",
    "<steptml:invoke name=\"",
    "\">",
    "</steptml:invoke>",
    "<steptml:parameter name=\"",
    "</steptml:parameter>",
    "<|EOT|>",
];

/// The `step-3.5` parser for one request.
pub fn step35(options: &ParseOptions) -> Parser {
    STEP35.parser(options)
}

/// The `step-3` parser for one request.
pub fn step3(options: &ParseOptions) -> Parser {
    STEP3.parser(options)
}

/// The grammar of one request for `step-3.5`, from the same spec.
pub fn step35_constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    STEP35.constraint(options, request)
}

/// The grammar of one request for `step-3`, from the same spec.
pub fn step3_constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    STEP3.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 2] {
    [&STEP35, &STEP3]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "step-3.5",
        family: "stepfun",
        aliases: &["step3p5", "step3.5", "step-3.5-flash", "step5"],
        models: &["step-3.5"],
        summary: "Step-3.5-Flash: <think> forced open by the prompt, Qwen3-Coder XML calls typed by the tool schema",
        sample: "The user wants the weather in Paris.\n</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        sample_prompt_tail: "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\n",
        special_tokens: STEP35_TOKENS,
        build: step35,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "step-3",
        family: "stepfun",
        aliases: &["step3"],
        models: &["step3", "step-3"],
        summary: "Step-3: reasoning up to </think>, <｜tool_calls_begin｜> sections of <steptml:invoke> calls typed by the tool schema",
        sample: "The user wants the weather in Paris.</think><｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\">\n<steptml:parameter name=\"city\">Paris</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>",
        sample_prompt_tail: "<|BOT|>user\nWeather in Paris?<|EOT|><|BOT|>assistant\n<think>\n",
        special_tokens: STEP3_TOKENS,
        build: step3,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "step-3.5", build: step35_constraint }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "step-3", build: step3_constraint }
}
