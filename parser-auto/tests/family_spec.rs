//! The families written as data against what the differential analyzer finds in their models' chat
//! templates: each hand-written spec agrees with the analysis on every marker the template writes, and
//! where it reads more (a format the template does not render, markers the model writes on its own), the
//! difference is listed here with the reason.

use std::path::Path;

use parser_auto::analyze::{Analysis, ToolFormat};
use parser_auto::template::ChatTemplate;

fn analysis(file: &str) -> Analysis {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(file);
    let template = ChatTemplate::from_file(&path).unwrap();
    (*parser_auto::analysis_for(&template)).clone()
}

#[cfg(feature = "mistral")]
#[test]
fn mistral_specs_agree_with_the_templates() {
    use parser_auto::mistral;
    // v11+ templates: `[TOOL_CALLS]` per call, `[ARGS]` before the arguments; Mistral-Small-3.2 writes
    // `[CALL_ID]` between the name and `[ARGS]`, which the spec reads as the analysis does. The spec
    // also reads the v0.3 array behind the same token (the template never renders it).
    for (file, parser) in [
        ("Mistral-Small-3.2-24B-Instruct-2506.jinja", "mistral"),
        ("unsloth-mistral-Devstral-Small-2507.jinja", "mistral"),
        (
            "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
            "magistral",
        ),
    ] {
        let found = analysis(file);
        let spec = mistral::spec(parser).unwrap();
        assert_eq!(found.tools, ToolFormat::TagWithJson, "{file}");
        assert_eq!(spec.tools, found.tools, "{file}");
        assert_eq!(
            spec.markers.per_call_start, found.markers.per_call_start,
            "{file}"
        );
        assert_eq!(
            spec.markers.reasoning_start, found.markers.reasoning_start,
            "{file}"
        );
        assert_eq!(
            spec.markers.reasoning_end, found.markers.reasoning_end,
            "{file}"
        );
        assert_eq!(spec.generation_prompt, found.generation_prompt, "{file}");
        // `[ARGS]` ends the name: the analysis of Devstral and Ministral-3 calls it the name's suffix,
        // Mistral-Small-3.2's the id's; the spec reads it after the name or after an id.
        let args = [
            &found.markers.func_name_suffix,
            &found.markers.call_id_suffix,
        ];
        assert!(args.iter().any(|m| *m == "[ARGS]"), "{file}: {found:?}");
        assert_eq!(spec.markers.call_id_suffix, "[ARGS]");
        if !found.markers.call_id_prefix.is_empty() {
            assert_eq!(
                spec.markers.call_id_prefix, found.markers.call_id_prefix,
                "{file}"
            );
            assert_eq!(spec.call_id, found.call_id, "{file}");
        }
    }
    // Mistral-Nemo: one `[TOOL_CALLS]` before a JSON array with `"id"` fields. The spec reads it behind
    // the same per-call marker as the v11 calls (its JSON fields are the analysis'); its grammar spec is
    // the analysis' format.
    let found = analysis("mistralai-Mistral-Nemo-Instruct-2407.jinja");
    let spec = mistral::spec("mistral-v0.3").unwrap();
    assert_eq!(found.tools, ToolFormat::JsonNative);
    assert!(found.json.array_wrapped && spec.json.array_wrapped);
    assert_eq!(
        found.markers.tool_section_start,
        spec.markers.per_call_start
    );
    assert_eq!(found.json.id_field, spec.json.id_field);
    assert_eq!(found.json.name_field, spec.json.name_field);
    assert_eq!(found.json.args_field, spec.json.args_field);
}

#[cfg(feature = "llama")]
#[test]
fn llama_specs_agree_with_the_templates() {
    use parser_auto::llama;
    // Llama 3.x templates render a bare `{"name": …, "parameters": …}` after the assistant header and
    // end the turn with `<|eot_id|>`. The spec adds what the model writes that the template does not
    // render with custom tools: `<|python_tag|>` before a call, `;` between calls, `<|eom_id|>`.
    for file in [
        "meta-llama-Llama-3.1-8B-Instruct.jinja",
        "meta-llama-Llama-3.2-3B-Instruct.jinja",
        "meta-llama-Llama-3.3-70B-Instruct.jinja",
    ] {
        let found = analysis(file);
        let spec = llama::spec("llama3").unwrap();
        assert_eq!(found.tools, ToolFormat::JsonNative, "{file}");
        assert_eq!(spec.tools, found.tools, "{file}");
        assert_eq!(spec.json.name_field, found.json.name_field, "{file}");
        assert_eq!(spec.json.args_field, found.json.args_field, "{file}");
        assert!(
            found.markers.tool_section_start.is_empty() && found.markers.per_call_start.is_empty()
        );
        assert!(
            spec.calls_at_start,
            "{file}: a bare call at the start, as the template renders it"
        );
        assert!(
            spec.generation_prompt
                .ends_with("<|start_header_id|>assistant<|end_header_id|>\n\n")
        );
        assert!(
            found.generation_prompt.ends_with(&spec.generation_prompt),
            "{file}"
        );
        for token in &found.end_of_turn {
            assert!(spec.end_of_turn.contains(token), "{file}: {token}");
        }
    }
}
