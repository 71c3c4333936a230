//! Constrained decoding for the Kimi parsers: their format described from [`crate::markers`], rendered
//! by [`parser_core::constraint`]. Calls are written in a section, with ids `functions.NAME:IDX`.
//!
//! ```
//! use parser_core::constraint::{ConstraintRequest, ToolChoice};
//! use parser_core::{ParseOptions, Tools};
//! use std::sync::Arc;
//!
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}
//! }}]))
//! .unwrap();
//! let options = ParseOptions::new().with_tools(Arc::new(tools));
//! let constraint = parser_kimi::constraint::k2(&options, &ConstraintRequest::default()).unwrap();
//! // `auto`: the grammar applies from the section opener on (or a call's: a call may stand alone).
//! assert!(constraint.lazy);
//! assert_eq!(constraint.triggers.words, ["<|tool_calls_section_begin|>", "<|tool_call_begin|>"]);
//! assert!(constraint.lark.contains(r#""functions.get_weather" ":" /[0-9]+/"#));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, ParseOptions, Stage, StageDetector};

use crate::markers::*;
use crate::{STAGE, VL_STAGE};

/// The Kimi call format, with reasoning between `open` and `close`.
pub fn kimi_format(open: &'static str, close: &'static str) -> FormatDescription {
    let mut reserved: Vec<_> = SECTION_BEGINS
        .iter()
        .chain(SECTION_ENDS)
        .filter(|&&marker| marker != SECTION_BEGIN)
        .map(|&marker| marker.into())
        .collect();
    reserved.extend([CALL_END.into(), ARGUMENT_BEGIN.into(), IM_END.into()]);
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: open.into(),
            close: close.into(),
            // `BlockInReasoning::EndsReasoning`: a call section ends open reasoning.
            ended_by_calls: true,
        }),
        calls: CallFormat {
            section: Some((SECTION_BEGIN.into(), SECTION_END.into())),
            // "A call may stand without a section around it."
            section_optional: true,
            call_begin: CALL_BEGIN.into(),
            name: CallName::Tagged {
                prefix: ID_PREFIX.into(),
                index_separator: Some(ID_INDEX_SEPARATOR.into()),
                suffix: ARGUMENT_BEGIN.into(),
                id_first: None,
                tight: false,
            },
            call_end: CALL_END.into(),
            padding: "".into(),
            separator: "".into(),
            array: false,
        },
        reserved,
    }
}

fn build(
    options: &ParseOptions,
    request: &ConstraintRequest,
    detector: &StageDetector,
    default: Stage,
    follows_switch: bool,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(detector, options, default, follows_switch);
    let format = kimi_format(detector.open[0], detector.close[0]);
    format.constraint(options.tools.as_deref(), start, request)
}

/// The constraint of a request for [`crate::k2`]: reasoning only if the prompt opens it (or the model
/// does), Kimi calls.
pub fn k2(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, &STAGE, Stage::Content, false)
}

/// The constraint of a request for [`crate::k2_thinking`]: reasoning open unless the prompt closed it.
pub fn k2_thinking(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    build(options, request, &STAGE, Stage::Reasoning, false)
}

/// The constraint of a request for [`crate::k25`]: reasoning as the prompt, then `enable_thinking`, say
/// (on by default).
pub fn k25(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, &STAGE, Stage::Reasoning, true)
}

/// The constraint of a request for [`crate::vl`]: `◁think▷` reasoning when the output opens it.
pub fn vl(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, &VL_STAGE, Stage::Content, true)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "kimi-k2", build: k2 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "kimi-k2-thinking", build: k2_thinking }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "kimi-k2.5", build: k25 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "kimi-vl", build: vl }
}
