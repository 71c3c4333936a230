//! The families written as data (parser-hermes, parser-minimax, parser-seed, parser-granite,
//! parser-nemotron, parser-hunyuan) against the differential analyzer: each hand-written spec agrees with what the
//! analyzer finds in the model's own chat template — tool format, JSON fields, content mode, every
//! marker, the end of the turn — except where a row says why not.

use std::path::Path;

use parser_auto::analyze::{Analysis, ContentMode, ReasoningMode};
use parser_auto::template::ChatTemplate;

fn analysis(file: &str) -> Analysis {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(file);
    let template = ChatTemplate::from_file(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    parser_auto::analysis_for(&template).as_ref().clone()
}

/// How a spec may differ from its template's analysis.
#[derive(Clone, Copy, PartialEq)]
enum Differs {
    Nothing,
    /// The template has no reasoning markers; the spec adds them (a later model of the family thinks).
    Reasoning,
    /// The template does not render tool calls; the spec's call markers come from the peers.
    CallsNotRendered,
    /// The template writes the answer as it is; the spec removes the wrapper the model writes around
    /// it (from the peers' parsers).
    ContentWrapper,
}

fn check(file: &str, spec: &Analysis, differs: Differs) {
    let found = analysis(file);
    let mut markers = found.markers.clone();
    if differs == Differs::Reasoning {
        assert_eq!(found.reasoning, ReasoningMode::None, "{file}");
        markers
            .reasoning_start
            .clone_from(&spec.markers.reasoning_start);
        markers
            .reasoning_end
            .clone_from(&spec.markers.reasoning_end);
    } else {
        assert_eq!(found.reasoning, spec.reasoning, "{file}: reasoning");
    }
    assert_eq!(found.tools, spec.tools, "{file}: tool format");
    assert_eq!(found.json, spec.json, "{file}: JSON fields");
    if differs == Differs::ContentWrapper {
        assert_eq!(found.content, ContentMode::Plain, "{file}");
        markers
            .content_start
            .clone_from(&spec.markers.content_start);
        markers.content_end.clone_from(&spec.markers.content_end);
    } else {
        assert_eq!(found.content, spec.content, "{file}: content mode");
    }
    assert_eq!(markers, spec.markers, "{file}: markers");
    assert_eq!(found.end_of_turn, spec.end_of_turn, "{file}: end of turn");
    if differs == Differs::CallsNotRendered {
        assert!(
            found.workarounds.iter().any(|w| w.contains("tool-call")),
            "{file}: {:?}",
            found.workarounds
        );
    }
}

#[test]
fn hermes() {
    // Hermes-2-Pro and 3 do not think; the spec adds Hermes-4's `<think>`, which only opens reasoning at
    // the very start of an output.
    for file in [
        "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
        "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
    ] {
        check(file, &parser_auto::hermes::spec(), Differs::Reasoning);
    }
}

#[test]
fn minimax() {
    // The analysis finds no end of turn (`[e~[` also ends user turns, so it is not told apart).
    let mut spec = parser_auto::minimax::spec();
    spec.end_of_turn.clear();
    check("MiniMax-M2.jinja", &spec, Differs::Nothing);
}

#[test]
fn seed() {
    check(
        "ByteDance-Seed-OSS.jinja",
        &parser_auto::seed::spec(),
        Differs::Nothing,
    );
}

#[test]
fn granite() {
    // Granite 3.3's template renders no tool calls; the analysis' `granite-tool-call` workaround names
    // the `<|tool_call|>` list, as the spec does (from vLLM's and llama.cpp's Granite parsers).
    check(
        "ibm-granite-granite-3.3-2B-Instruct.jinja",
        &parser_auto::granite::granite3_spec(),
        Differs::CallsNotRendered,
    );
}

#[test]
fn nemotron() {
    check(
        "NVIDIA-Nemotron-Nano-v2.jinja",
        &parser_auto::nemotron::nano_v2_spec(),
        Differs::Nothing,
    );
    check(
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
        &parser_auto::nemotron::nano_v3_spec(),
        Differs::Nothing,
    );
}

#[test]
fn hunyuan() {
    // vLLM's Hunyuan-A13B tool template writes the assistant's content as it is; the model wraps its
    // answer in `<answer>…</answer>` after reasoning (vLLM's `hunyuan_a13b` reasoning parser), which the
    // spec removes from content.
    check(
        "tencent-Hunyuan-A13B-Instruct.jinja",
        &parser_auto::hunyuan::spec(),
        Differs::ContentWrapper,
    );
}
