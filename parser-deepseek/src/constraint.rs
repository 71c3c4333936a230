//! Constrained decoding for the native DeepSeek parsers (`deepseek-r1`, `deepseek-v3`,
//! `deepseek-v3.1`): their format described from [`crate::markers`], rendered by
//! [`parser_core::constraint`].
//!
//! The grammar generates the native shape of each generation only: V3.1's `NAME<｜tool▁sep｜>{…}`,
//! R1's and V3's `function<｜tool▁sep｜>NAME` with the arguments in a `json` fence. R1's fallback shapes
//! (a tools array, `<tool_call>`-wrapped, `function<NAME>`) are parsed but never generated, and free
//! text avoids their openers, so that text the grammar allows never becomes a call by them.
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
//! // R1: the prompt leaves the output inside reasoning.
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<｜Assistant｜><think>\n")
//!     .with_tools(Arc::new(tools));
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = parser_deepseek::constraint::r1(&options, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.lark.contains("\"function<｜tool▁sep｜>get_weather\\n```json\\n\" json_1 WS? \"```\""));
//! assert!(constraint.preserved_tokens.contains(&"<｜tool▁sep｜>".to_owned()));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, ParseOptions, Stage};

use crate::markers::*;
use crate::{Generation, STAGE};

/// The opening fence of R1's and V3's arguments, after the name's line.
pub const ARGS_FENCE_OPEN: &str = "\n```json\n";
/// The closing fence of R1's and V3's arguments.
pub const ARGS_FENCE_CLOSE: &str = "\n```";

/// The native call format of a generation, as [`NativeToolParser::new`](crate::NativeToolParser::new) takes it:
/// [`Generation::V31`]'s `NAME<｜tool▁sep｜>{…}`, or [`Generation::V3`]'s (R1's and V3's)
/// `function<｜tool▁sep｜>NAME` and fenced arguments, in a `<｜tool▁calls▁begin｜>` section (a bare call
/// is read too), with `<think>` reasoning. With `fallbacks` (R1), free text avoids the openers of R1's
/// fallback shapes.
pub fn native_format(generation: Generation, fallbacks: bool) -> FormatDescription {
    let fenced = generation == Generation::V3;
    let mut reserved: Vec<_> = CALLS_BEGIN_SPELLINGS
        .iter()
        .filter(|&&spelling| spelling != CALLS_BEGIN)
        .chain([CALLS_END, CALL_END, SEP].iter())
        .chain(RESERVED)
        .map(|&marker| marker.into())
        .collect();
    if fallbacks {
        // R1's fallback openers: free text never spells them (R1 would read a call there).
        reserved.extend(
            [TOOLS_ARRAY_OPEN, XML_WRAPPED_OPEN, SIMPLIFIED_OPEN].map(|opener| opener.into()),
        );
    }
    let name = if fenced {
        CallName::Enclosed {
            prefix: format!("{FUNCTION}{SEP}").into(),
            open: ARGS_FENCE_OPEN.into(),
            close: ARGS_FENCE_CLOSE.into(),
        }
    } else {
        CallName::Tagged {
            prefix: "".into(),
            index_separator: None,
            suffix: SEP.into(),
            id_first: None,
            tight: false,
        }
    };
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // `BlockInReasoning::Hold`: a call block opened inside reasoning is a call when it ends
            // the output, which is what the grammar lets it do.
            ended_by_calls: true,
        }),
        calls: CallFormat {
            section: Some((CALLS_BEGIN.into(), CALLS_END.into())),
            section_optional: true,
            call_begin: CALL_BEGIN.into(),
            name,
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
    generation: Generation,
    fallbacks: bool,
    default: Stage,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, default, true);
    let format = native_format(generation, fallbacks);
    let mut constraint = format.constraint(options.tools.as_deref(), start, request)?;
    if !constraint.preserved_tokens.iter().any(|t| t == SEP) {
        // The separator stands inside the `Enclosed` prefix, which core does not split into tokens.
        let at = constraint
            .preserved_tokens
            .iter()
            .position(|t| t == CALL_END)
            .unwrap_or(constraint.preserved_tokens.len());
        constraint.preserved_tokens.insert(at, SEP.to_owned());
    }
    Ok(constraint)
}

/// The constraint of a request for [`crate::r1`]: reasoning open unless the prompt (or
/// `enable_thinking`) closed it, fenced native calls.
pub fn r1(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, Generation::V3, true, Stage::Reasoning)
}

/// The constraint of a request for [`crate::v3`]: reasoning only if the prompt opens it (or the model
/// does), fenced native calls.
pub fn v3(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, Generation::V3, false, Stage::Content)
}

/// The constraint of a request for [`crate::v31`]: reasoning when the prompt ends in `<think>` (or the
/// model opens it), `NAME<｜tool▁sep｜>{…}` calls.
pub fn v31(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, Generation::V31, false, Stage::Content)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-r1", build: r1 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v3", build: v3 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v3.1", build: v31 }
}
