//! Constrained decoding for the DSML parsers (`deepseek-v3.2`, `deepseek-v4`, `deepseek-v4.1`): their
//! format described from their [`Dsml`] spelling, with tagged parameters ([`CallName::Parameters`]), rendered by
//! [`parser_core::constraint`]. Calls stand in a block; each is
//! `<｜DSML｜invoke name="NAME">` and one `<｜DSML｜parameter name="KEY" string="…">VALUE</｜DSML｜parameter>`
//! per argument: each key one of the tool's properties, a string value raw with `string="true"`,
//! anything else JSON with `string="false"`.
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
//! let options = ParseOptions::new().with_prompt_tail("<｜Assistant｜></think>").with_tools(Arc::new(tools));
//! let constraint = parser_deepseek::constraint_dsml::v32(&options, &ConstraintRequest::default()).unwrap();
//! // `auto`: the grammar applies from the block opener on.
//! assert!(constraint.lazy);
//! assert_eq!(constraint.triggers.words, ["<｜DSML｜function_calls>"]);
//! assert!(constraint.lark().contains(r#""<｜DSML｜parameter name=\"city\"" " string=\"true\">""#));
//! assert!(constraint.lark().contains(r#""<｜DSML｜parameter name=\"days\"" " string=\"false\">""#));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintEntry, ConstraintRequest, FormatDescription,
    ParameterTags, ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, ParseOptions, Stage};

use crate::markers::*;
use crate::{DSML_V32, DSML_V41, Dsml, STAGE};

/// The DSML call format of `dsml` in the block of `dsml.blocks[block]` (V3.2: 0, V4: 1), with the
/// parser's `reserved` tokens (what its content scan drops or stops at), `<think>` reasoning.
pub fn dsml_format(dsml: &Dsml, block: usize, reserved: &[&str]) -> FormatDescription {
    // The other spellings of the block opener open a call block in the parser too.
    let mut reserved: Vec<_> = reserved
        .iter()
        .map(|&token| token.to_owned().into())
        .collect();
    reserved.extend(
        dsml.block_openers
            .iter()
            .filter(|&&opener| opener != dsml.blocks[block] && opener != dsml.invoke)
            .map(|&opener| opener.into()),
    );
    let mut value_stops = vec![dsml.invoke_end.into()];
    value_stops.extend(dsml.block_ends.iter().map(|&end| end.into()));
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // A DSML block inside open reasoning is held.
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: Some((dsml.blocks[block].into(), dsml.block_ends[block].into())),
            section_optional: false,
            call_begin: dsml.invoke.into(),
            name: CallName::Parameters {
                prefix: " name=\"".into(),
                suffix: "\">".into(),
                parameters: ParameterTags {
                    key_open: format!("{} name=\"", dsml.param).into(),
                    key_close: "\"".into(),
                    space_before_value: false,
                    string_open: " string=\"true\">".into(),
                    json_open: " string=\"false\">".into(),
                    value_close: dsml.param_end.into(),
                    // Values are read exactly as written.
                    framing: "".into(),
                    // A value without its closer ends at the call's or the block's end.
                    value_stops,
                    padding: "\n".into(),
                },
                end: "".into(),
            },
            call_end: dsml.invoke_end.into(),
            // The invoke's name attribute follows its tag name on the same line: the newline
            // before `</｜DSML｜invoke>` is the parameters' padding.
            padding: "".into(),
            separator: "\n".into(),
            array: false,
        },
        reserved,
    }
}

fn build(
    options: &ParseOptions,
    request: &ConstraintRequest,
    dsml: &Dsml,
    block: usize,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, Stage::Content, true);
    dsml_format(dsml, block, RESERVED).constraint(options.tools.as_deref(), start, request)
}

/// The constraint of a request for [`crate::v32`]: reasoning as the prompt leaves it, DSML calls in
/// `<｜DSML｜function_calls>`.
pub fn v32(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, &DSML_V32, 0)
}

/// The constraint of a request for [`crate::v4`]: reasoning as the prompt leaves it, DSML calls in
/// `<｜DSML｜tool_calls>`.
pub fn v4(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, &DSML_V32, 1)
}

/// The constraint of a request for [`crate::v41`]: reasoning as the prompt leaves it, spaced DSML
/// calls in `<｜DSML｜ calls>`.
pub fn v41(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, &DSML_V41, 0)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v3.2", build: v32 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v4.1", build: v41 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v4", build: v4 }
}
