//! Constrained decoding for `minimax-m3`: the format described from [`crate::m3`]'s markers, as
//! element calls ([`CallName::Elements`]), rendered by [`parser_core::constraint`].
//!
//! A call is `]<]minimax[>[<invoke name="NAME">` and one element per parameter,
//! `]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY>` (the closer repeats the key), all inside one
//! `]<]minimax[>[<tool_call>` block. Each key is one of the tool's properties (in any order, the
//! required ones present); a string value is raw text (not starting with `]`, which could open an
//! element); an object that declares `properties` is its members as child elements, in declared
//! order; an array with `items` is one `]<]minimax[>[<item>` element per entry; any other value is
//! JSON text, which the parser types by the schema. See parser-core's `ElementTags` for the details
//! (an empty object or array is written `{}` / `[]`; strings inside nested values hold no `]`).
//!
//! Not held: a JSON value's strings may hold a closer (the hole `%json` cannot close, as for every
//! tagged format); a parameter or member whose name is not a plain element name (whitespace, `<`,
//! `/`, `"`, `>`) cannot be written and is left out.
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
//! let constraint = parser_minimax::m3_grammar::constraint(&options, &request).unwrap();
//! let lark = constraint.lark();
//! assert!(lark.contains(r#"tail_0: ("get_weather" "\">" args_0_0"#));
//! assert!(lark.contains(r#""]<]minimax[>[<days" ">" (json_1 "]<]minimax[>[</days>")"#));
//! ```

use parser_core::constraint::{
    CallFormat, CallName, Constraint, ConstraintRequest, ElementTags, FormatDescription,
    ReasoningMarkers, ReasoningStart,
};
use parser_core::{Error, ParseOptions, Stage};

use crate::m3::*;

/// MiniMax-M3's format, from [`crate::m3`]'s markers.
pub fn format() -> FormatDescription {
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: THINK_OPEN.into(),
            close: THINK_CLOSE.into(),
            // `BlockInReasoning::Hold`: a block inside open reasoning does not end it.
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: Some((TOOL_CALL.into(), TOOL_CALL_END.into())),
            section_optional: false,
            call_begin: INVOKE.into(),
            name: CallName::Elements {
                prefix: "".into(),
                counter: None,
                suffix: INVOKE_NAME_END.into(),
                parameters: ElementTags {
                    key_open: TAG_OPEN.into(),
                    type_open: None,
                    key_close: TAG_END.into(),
                    value_close: format!("{TAG_OPEN}/").into(),
                    close_end: Some(TAG_END.into()),
                    escape: false,
                    item: Some(ITEM.into()),
                    // A value without its closer ends at the invoke's or the block's closer.
                    value_stops: vec![INVOKE_END.into(), TOOL_CALL_END.into()],
                    padding: "".into(),
                },
            },
            call_end: INVOKE_END.into(),
            padding: "".into(),
            separator: "\n".into(),
            array: false,
        },
        reserved: vec![END_OF_TURN.into()],
    }
}

/// The constraint of a request for [`crate::minimax_m3`]: reasoning as the prompt leaves it (the
/// model may open `<mm:think>` itself), calls in one block; the preserved tokens are the format's
/// single tokens.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    let start = ReasoningStart::detect(&STAGE, options, Stage::Content, false);
    let mut constraint = format().constraint(options.tools.as_deref(), start, request)?;
    constraint.preserved_tokens = SPECIAL_TOKENS.iter().map(|&t| t.to_owned()).collect();
    Ok(constraint)
}
