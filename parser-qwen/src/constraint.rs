//! Constrained decoding for the Qwen parsers: the Hermes-style format described from
//! [`crate::markers`] and the core JSON call fields, the Qwen3-Coder XML format from the same markers
//! with tagged parameters ([`CallName::Parameters`]), both rendered by [`parser_core::constraint`].
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
//! assert!(constraint.gbnf().contains(r#""<tool_call>""#));
//! assert!(constraint.lark().contains(r#""\"get_weather\"""#));
//! assert!(!constraint.lark().contains("<think>"));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ParameterTags, ReasoningMarkers, ReasoningStart,
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
            array: false,
        },
        reserved: EOS.iter().map(|&token| token.into()).collect(),
    }
}

/// Closes the `<function=NAME>` and `<parameter=KEY>` tags.
const TAG_CLOSE: &str = ">";

/// The Qwen3-Coder XML call format (`<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`),
/// with `<think>` reasoning: each parameter name one of the tool's properties, a string value raw (its
/// framing newlines dropped by the parser), anything else JSON.
///
/// ```
/// use parser_core::constraint::{ConstraintRequest, ReasoningStart, ToolChoice};
/// use parser_core::Tools;
///
/// let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
///     "name": "get_weather",
///     "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
///                    "required": ["city"]}
/// }}]))
/// .unwrap();
/// let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
/// let constraint = parser_qwen::constraint::xml_format()
///     .constraint(Some(&tools), ReasoningStart::Off, &request)
///     .unwrap();
/// assert!(constraint.lark().contains(r#""<function=get_weather>""#));
/// assert!(constraint.lark().contains(r#""<parameter=days>""#));
/// assert!(constraint.lark().contains(r#"%json {"type":"integer"}"#));
/// ```
pub fn xml_format() -> FormatDescription {
    let mut reserved: Vec<_> = EOS.iter().map(|&token| token.into()).collect();
    // A bare `<function=` opens a call too: free text never holds one.
    reserved.push(FUNCTION.into());
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // Held inside open reasoning, as the Hermes-style calls are.
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: None,
            section_optional: false,
            call_begin: TOOL_CALL.into(),
            name: CallName::Parameters {
                prefix: FUNCTION.into(),
                suffix: TAG_CLOSE.into(),
                parameters: ParameterTags {
                    key_open: PARAMETER.into(),
                    key_close: TAG_CLOSE.into(),
                    space_before_value: false,
                    string_open: "".into(),
                    json_open: "".into(),
                    value_close: PARAMETER_END.into(),
                    // `ValueSyntax::trim_newline`: one newline dropped at each end of a value.
                    framing: "\n".into(),
                    // A value without its closer ends at the next parameter or the call's end.
                    value_stops: vec![PARAMETER.into(), FUNCTION_END.into()],
                    padding: "\n".into(),
                },
                end: FUNCTION_END.into(),
            },
            call_end: TOOL_CALL_END.into(),
            padding: "\n".into(),
            separator: "\n".into(),
            array: false,
        },
        reserved,
    }
}

fn build_xml(
    options: &ParseOptions,
    request: &ConstraintRequest,
    default: Stage,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, default, true);
    xml_format().constraint(options.tools.as_deref(), start, request)
}

/// The constraint of a request for [`crate::qwen3_coder`]: reasoning as for [`qwen3`], XML calls.
pub fn qwen3_coder(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    build_xml(options, request, Stage::Content)
}

/// The constraint of a request for [`crate::qwen35`]: reasoning open unless the prompt closed it, XML
/// calls.
pub fn qwen35(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build_xml(options, request, Stage::Reasoning)
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
parser_core::inventory::submit! {
    ConstraintEntry { parser: "qwen3-coder", build: qwen3_coder }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "qwen3.5", build: qwen35 }
}
