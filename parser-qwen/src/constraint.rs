//! Constrained decoding for the Hermes-style parsers: their format described from [`crate::markers`]
//! and the core JSON call fields, rendered by [`parser_core::constraint`].
//!
//! ```
//! use parser_core::constraint::{ConstraintRequest, ToolChoice};
//! use parser_core::{ParseOptions, Tools};
//! use std::sync::Arc;
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
//! }}]))
//! .unwrap();
//! // Thinking off: the prompt closed the think block.
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<|im_start|>assistant\n<think>\n\n</think>\n\n")
//!     .with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_qwen::constraint::qwen3(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.gbnf.contains(r#""<tool_call>""#));
//! assert!(constraint.lark.contains(r#""\"get_weather\"""#));
//! assert!(!constraint.lark.contains("<think>"));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, JsonCallFields, ParseOptions, Stage};

use crate::STAGE;
use crate::markers::*;

/// The Hermes-style call format (`<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`), with
/// `<think>` reasoning when `reasoning` is set.
pub fn hermes_format(reasoning: bool) -> FormatDescription {
    let fields = JsonCallFields::STANDARD;
    FormatDescription {
        reasoning: reasoning.then(|| ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // A `<tool_call>` inside open reasoning is held, and is a call only if it ends the output.
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: None,
            section_optional: false,
            call_begin: TOOL_CALL.into(),
            name: CallName::JsonFields {
                name: fields.name[0].into(),
                arguments: fields.arguments[0].into(),
            },
            call_end: TOOL_CALL_END.into(),
            padding: "\n".into(),
            separator: "\n".into(),
        },
        reserved: EOS.iter().map(|&token| token.into()).collect(),
    }
}

fn build(
    options: &ParseOptions,
    request: &ConstraintRequest,
    reasoning: Option<Stage>,
) -> Result<Constraint, Error> {
    let start = match reasoning {
        Some(default) => ReasoningStart::detect(&STAGE, options, default, true),
        None => ReasoningStart::Off,
    };
    hermes_format(reasoning.is_some()).constraint(options.tools.as_deref(), start, request)
}

/// The constraint of a request for [`crate::qwen25`]: no reasoning, Hermes-style calls.
pub fn qwen25(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, None)
}

/// The constraint of a request for [`crate::qwen3`]: reasoning as the prompt (or `enable_thinking`)
/// leaves it, else optional; Hermes-style calls.
pub fn qwen3(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, Some(Stage::Content))
}

/// The constraint of a request for [`crate::qwen3_thinking`]: reasoning open unless the prompt closed
/// it; Hermes-style calls.
pub fn qwen3_thinking(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    build(options, request, Some(Stage::Reasoning))
}

/// The constraint of a request for [`crate::qwen3_instruct_2507`]: no reasoning, Hermes-style calls.
pub fn qwen3_instruct_2507(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    build(options, request, None)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "qwen2.5", build: qwen25 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "qwen3", build: qwen3 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "qwen3-thinking", build: qwen3_thinking }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "qwen3-instruct-2507", build: qwen3_instruct_2507 }
}
