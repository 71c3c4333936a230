//! Constrained decoding for the DSML parsers (`deepseek-v3.2`, `deepseek-v4`): their format described
//! from [`crate::markers`], with tagged parameters ([`CallName::Parameters`]), rendered by
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

use crate::STAGE;
use crate::markers::*;

/// The DSML call format in the block of `DSML_BLOCKS[block]` (V3.2: 0, V4: 1).
pub fn dsml_format(block: usize) -> FormatDescription {
    // The other spelling of the block opener opens a call block in the parser too.
    let mut reserved: Vec<_> = RESERVED.iter().map(|&token| token.into()).collect();
    reserved.extend(
        DSML_BLOCK_OPENERS
            .iter()
            .filter(|&&opener| opener != DSML_BLOCKS[block] && opener != DSML_INVOKE)
            .map(|&opener| opener.into()),
    );
    let mut value_stops = vec![DSML_INVOKE_END.into()];
    value_stops.extend(DSML_BLOCK_ENDS.iter().map(|&end| end.into()));
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // A DSML block inside open reasoning is held.
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: Some((DSML_BLOCKS[block].into(), DSML_BLOCK_ENDS[block].into())),
            section_optional: false,
            call_begin: DSML_INVOKE.into(),
            name: CallName::Parameters {
                prefix: " name=\"".into(),
                suffix: "\">".into(),
                parameters: ParameterTags {
                    key_open: format!("{DSML_PARAM} name=\"").into(),
                    key_close: "\"".into(),
                    space_before_value: false,
                    string_open: " string=\"true\">".into(),
                    json_open: " string=\"false\">".into(),
                    value_close: DSML_PARAM_END.into(),
                    // Values are read exactly as written.
                    framing: "".into(),
                    // A value without its closer ends at the call's or the block's end.
                    value_stops,
                    padding: "\n".into(),
                },
                end: "".into(),
            },
            call_end: DSML_INVOKE_END.into(),
            padding: "\n".into(),
            separator: "\n".into(),
            array: false,
        },
        reserved,
    }
}

fn build(
    options: &ParseOptions,
    request: &ConstraintRequest,
    block: usize,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, Stage::Content, true);
    dsml_format(block).constraint(options.tools.as_deref(), start, request)
}

/// The constraint of a request for [`crate::v32`]: reasoning as the prompt leaves it, DSML calls in
/// `<｜DSML｜function_calls>`.
pub fn v32(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, 0)
}

/// The constraint of a request for [`crate::v4`]: reasoning as the prompt leaves it, DSML calls in
/// `<｜DSML｜tool_calls>`.
pub fn v4(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
    build(options, request, 1)
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v3.2", build: v32 }
}
parser_core::inventory::submit! {
    ConstraintEntry { parser: "deepseek-v4", build: v4 }
}
