//! Constrained decoding for `k2-horizon`: the format described from [`crate::markers`], with tagged
//! parameters ([`CallName::Parameters`]), rendered by [`parser_core::constraint`].
//!
//! The parser reads three call layouts (the chat template's `tool_call_format`: `xml`, `xml_typed`,
//! `json`); the grammar generates only the native one, `xml` (the template's default):
//! `<ifm|tool_call>NAME` then one `<ifm|arg_key>KEY</ifm|arg_key><ifm|arg_value>VALUE</ifm|arg_value>`
//! per argument, each key one of the tool's properties, a string value raw, anything else JSON (as
//! the parser types an untyped value by the tool's schema), all inside one `<ifm|tool_calls>` group.
//! Reasoning is closed by the closer of the effort the prompt opened (`<ifm|think>` unless the prompt
//! ends in `<ifm|think_fast>` or `<ifm|think_faster>`); the group ends open reasoning.
//!
//! ```
//! use parser_core::constraint::{ConstraintRequest, ToolChoice};
//! use parser_core::{ParseOptions, Tools};
//! use std::sync::Arc;
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
//!                    "required": ["city"]}
//! }}]))
//! .unwrap();
//! let options = ParseOptions::new().with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_horizon::constraint::k2_horizon(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.lark().contains(r#"tail_0: ("get_weather" args_0_0"#));
//! assert!(constraint.lark().contains(r#""<ifm|arg_key>days</ifm|arg_key>""#));
//! assert!(constraint.lark().contains(r#"%json {"type":"integer"}"#));
//! // Reasoning first (the prompt opened it), up to its closer.
//! assert!(constraint.lark().contains("</ifm|think>"));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ParameterTags, ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, ParseOptions, Stage};

use crate::STAGE;
use crate::markers::*;

/// The format with reasoning between `open` and `close` (one effort's tag pair).
pub fn horizon_format(open: &'static str, close: &'static str) -> FormatDescription {
    // The other efforts' tags: free text never holds them.
    let reserved = THINK_OPENERS
        .iter()
        .chain(THINK_CLOSERS)
        .filter(|&&tag| tag != open && tag != close)
        .map(|&tag| tag.into())
        .collect();
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: open.into(),
            close: close.into(),
            // `BlockInReasoning::EndsReasoning`: the call group ends open reasoning.
            ended_by_calls: true,
        }),
        calls: CallFormat {
            section: Some((TOOL_CALLS.into(), TOOL_CALLS_END.into())),
            section_optional: false,
            call_begin: TOOL_CALL.into(),
            // The name right after `<ifm|tool_call>` (the parser reads it up to whitespace or `<`).
            name: CallName::Parameters {
                prefix: "".into(),
                suffix: "".into(),
                parameters: ParameterTags {
                    key_open: ARG_KEY.into(),
                    key_close: ARG_KEY_END.into(),
                    space_before_value: true,
                    string_open: ARG_VALUE.into(),
                    json_open: ARG_VALUE.into(),
                    value_close: ARG_VALUE_END.into(),
                    // Values are read exactly as written.
                    framing: "".into(),
                    // A value without its closer ends at the next argument or the call's end.
                    value_stops: vec![
                        ARG_KEY.into(),
                        TOOL_CALL_END.into(),
                        TOOL_CALL.into(),
                        TOOL_CALLS_END.into(),
                    ],
                    padding: "".into(),
                },
                end: "".into(),
            },
            call_end: TOOL_CALL_END.into(),
            padding: "".into(),
            separator: "".into(),
            array: false,
        },
        reserved,
    }
}

/// The constraint of a request for [`crate::k2_horizon`]: reasoning open unless the prompt closed it
/// (closed by the closer of the effort whose opener ends the prompt), XML calls in one group.
pub fn k2_horizon(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, Stage::Reasoning, false);
    let tail = options.prompt_tail.as_deref().unwrap_or("").trim_end();
    let effort = THINK_OPENERS
        .iter()
        .position(|open| tail.ends_with(open))
        .unwrap_or(0);
    let format = horizon_format(THINK_OPENERS[effort], THINK_CLOSERS[effort]);
    let mut constraint = format.constraint(options.tools.as_deref(), start, request)?;
    constraint.preserved_tokens = SPECIAL_TOKENS.iter().map(|&t| t.to_owned()).collect();
    Ok(constraint)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "k2-horizon", build: k2_horizon }
}
