//! Constrained decoding for the Kimi parsers: their format described from [`crate::markers`], rendered
//! by [`parser_core::constraint`]. Calls are written in a section, with ids `functions.NAME:IDX`.
//! Kimi K3's XTML channels are described from [`crate::k3`]'s markers ([`k3_format`]).
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
//! assert!(constraint.lark().contains(r#""functions.get_weather" ":" /[0-9]+/"#));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, ElementTags,
    FormatDescription, ReasoningMarkers, ReasoningStart,
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

/// Kimi K3's format, from [`crate::k3`]'s markers: `think` channel reasoning (a `tools` channel that
/// opens inside it ends it), one `tools` channel of `call` elements, each
/// `<|open|>call tool="NAME" index="N"<|sep|>` (`N` the running index, any digits: it counts the
/// calls of the whole conversation) and one `argument` element per parameter, whose head names the
/// value's JSON type: `string` before raw text, another type name before JSON. Names are written
/// entity-escaped, as the parser reads them back.
///
/// Not described: the `response` channel's wrappers around content (free text may hold them; the
/// parser drops them) and the `<|close|>message<|sep|>` that ends the turn (the grammar ends after the
/// channel's closer: the engine's stop token ends the turn).
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
/// let constraint = parser_kimi::constraint::k3_format()
///     .constraint(Some(&tools), ReasoningStart::Off, &request)
///     .unwrap();
/// let lark = constraint.lark();
/// assert!(lark.contains(r#""<|open|>call " tail_0"#));
/// assert!(lark.contains(r#""tool=\"get_weather" "\" index=\"" /[0-9]+/"#));
/// assert!(lark.contains(r#""<|open|>argument key=\"days" "\" type=\"" ("number" | "integer")"#));
/// assert!(lark.contains(r#"%json {"type":"integer"}"#));
/// ```
pub fn k3_format() -> FormatDescription {
    use crate::k3::*;
    // `NAME="` opens an attribute's value; `"` then `<|sep|>` ends a head.
    let attribute = |name: &str| format!("{name}=\"");
    let next_attribute = |name: &str| format!("\" {name}=\"");
    let head_end = format!("\"{SEP}");
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // `BlockInReasoning::EndsReasoning`: the `tools` channel ends open reasoning.
            ended_by_calls: true,
        }),
        calls: CallFormat {
            section: Some((TOOLS_OPEN.into(), TOOLS_CLOSE.into())),
            section_optional: false,
            call_begin: CALL_OPEN.into(),
            name: CallName::Elements {
                prefix: attribute(TOOL_ATTRIBUTE).into(),
                counter: Some(next_attribute(INDEX_ATTRIBUTE).into()),
                suffix: head_end.clone().into(),
                parameters: ElementTags {
                    key_open: format!("{ARGUMENT_OPEN}{}", attribute(KEY_ATTRIBUTE)).into(),
                    type_open: Some(next_attribute(TYPE_ATTRIBUTE).into()),
                    key_close: head_end.into(),
                    value_close: ARGUMENT_CLOSE.into(),
                    close_end: None,
                    escape: true,
                    item: None,
                    // A value without its closer ends at the call's or the channel's closer.
                    value_stops: vec![CALL_CLOSE.into(), TOOLS_CLOSE.into()],
                    padding: "".into(),
                },
            },
            call_end: CALL_CLOSE.into(),
            padding: "".into(),
            separator: "".into(),
            array: false,
        },
        reserved: vec![],
    }
}

/// The constraint of a request for [`crate::kimi_k3`]: reasoning open unless the prompt (or
/// `enable_thinking: false`) closed it, calls in the `tools` channel; the preserved tokens are the
/// three XTML tokens.
pub fn k3(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&crate::k3::STAGE, options, Stage::Reasoning, true);
    let mut constraint = k3_format().constraint(options.tools.as_deref(), start, request)?;
    constraint.preserved_tokens = crate::k3::SPECIAL_TOKENS
        .iter()
        .map(|&token| token.to_owned())
        .collect();
    Ok(constraint)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "kimi-k3", build: k3 }
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
