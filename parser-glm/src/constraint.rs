//! Constrained decoding for the GLM parsers: their format described from [`crate::markers`], with
//! tagged parameters ([`CallName::Parameters`]), rendered by [`parser_core::constraint`]. A call is
//! `<tool_call>NAME` and one `<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>` per argument: each
//! key one of the tool's properties, a string value raw, anything else JSON (as the chat template
//! writes them).
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
//! // GLM-4.7 with thinking off: the prompt closed the think block.
//! let options = ParseOptions::new().with_prompt_tail("<|assistant|></think>").with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_glm::constraint::glm47(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! // The name right after the opener, then the arguments in any order.
//! assert!(constraint.lark().contains(r#"tail_0: ("get_weather" args_0_0"#));
//! assert!(constraint.lark().contains(r#""<arg_key>days</arg_key>""#));
//! assert!(constraint.lark().contains(r#"%json {"type":"integer"}"#));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ParameterTags, ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, ParseOptions, Stage};

use crate::STAGE;
use crate::markers::*;

/// The GLM call format; `padding` is what the model writes between the tags (GLM-4.5: a newline,
/// GLM-4.7: nothing), for the structural tag (the grammars accept any whitespace there).
pub fn glm_format(padding: &'static str) -> FormatDescription {
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // A `<tool_call>` inside open reasoning is held.
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: None,
            section_optional: false,
            call_begin: TOOL_CALL.into(),
            // The name right after `<tool_call>` (the parser reads it up to whitespace or `<`).
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
                    value_stops: vec![ARG_KEY.into(), TOOL_CALL_END.into()],
                    padding: padding.into(),
                },
                end: "".into(),
            },
            call_end: TOOL_CALL_END.into(),
            padding: padding.into(),
            separator: padding.into(),
            array: false,
        },
        reserved: RESERVED.iter().map(|&token| token.into()).collect(),
    }
}

/// The constraint of a request for [`crate::glm45`]: reasoning as the prompt leaves it (the model may
/// open `<think>` itself; `enable_thinking` is not consulted), calls with newlines between the tags.
pub fn glm45(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, Stage::Content, false);
    glm_format("\n").constraint(options.tools.as_deref(), start, request)
}

/// The constraint of a request for [`crate::glm47`]: reasoning open unless the prompt (or
/// `enable_thinking: false`) closed it, calls without newlines.
pub fn glm47(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, Stage::Reasoning, true);
    glm_format("").constraint(options.tools.as_deref(), start, request)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "glm-4.5", build: glm45 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "glm-4.7", build: glm47 }
}
