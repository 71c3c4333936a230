//! The family's grammar. Calls with tagged parameters (`TAG_WITH_TAGGED`) are not described by the
//! generic engine's constraint yet (parser-generic's `constraint`): the grammar says so, and this test
//! changes when it is (the acceptance, refusal and soundness walks of the other families then apply).

use std::sync::Arc;

use parser_core::constraint::{ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};

#[test]
fn tagged_parameters_are_not_described_yet() {
    let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}}}}}]))
    .unwrap();
    let options = ParseOptions::new().with_tools(Arc::new(tools));
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        parallel_tool_calls: true,
        response_format: ResponseFormat::Text,
    };
    let error = parser_nemotron::constraint_nano_v3(&options, &request).unwrap_err();
    assert!(error.to_string().contains("TAG_WITH_TAGGED"), "{error}");
    let entry = parser_core::find_by_name("nemotron-3-nano").unwrap();
    assert!(entry.constraint(&options, &request).unwrap().is_err());
}
