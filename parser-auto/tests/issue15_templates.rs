//! The templates added for families that had a parser but no template here (MiniCPM 5, MiniMax-M3,
//! GigaChat 3.5): each routes to its family by signature when the model name is unknown, and the
//! family's hand-written spec agrees with what the differential analyzer finds in it — or, for the
//! families written as state machines, the analysis shows why no spec could describe them.

use std::path::Path;

use parser_auto::analyze::{Analysis, ToolFormat};
use parser_auto::template::ChatTemplate;
use parser_auto::{Route, resolve};
use parser_core::ParseOptions;
use rstest::rstest;

fn template(file: &str) -> ChatTemplate {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(file);
    ChatTemplate::from_file(&path).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn analysis(file: &str) -> Analysis {
    parser_auto::analysis_for(&template(file)).as_ref().clone()
}

#[rstest]
#[case("openbmb-MiniCPM5.jinja", "minicpm5")]
#[case("MiniMax-M3.jinja", "minimax-m3")]
#[case("GigaChat3.5.jinja", "gigachat3.5")]
fn the_template_routes_to_its_family(#[case] file: &str, #[case] parser: &'static str) {
    let template = template(file);
    let resolved = resolve(None, Some(&template), &ParseOptions::new()).unwrap();
    assert_eq!(resolved.route, Route::TemplateSignature(parser), "{file}");
    assert_eq!(resolved.parser.name(), parser, "{file}");
}

/// MiniCPM 5 is data: its spec is what the analyzer finds in the template — tool format, JSON fields,
/// content mode, reasoning, every marker and the end of the turn. The template does not show the
/// tokenizer's other spelling (`<functionname="`), which the spec adds as `marker_spellings`, nor the
/// default the model follows when `enable_thinking` is not given (the template then opens nothing and
/// the model writes `<think>` itself; the spec's stage rules say so).
#[test]
fn minicpm5_spec_agrees_with_its_template() {
    let found = analysis("openbmb-MiniCPM5.jinja");
    let spec = parser_auto::minicpm::spec();
    assert_eq!(found.tools, spec.tools, "tool format");
    assert_eq!(found.reasoning, spec.reasoning, "reasoning");
    assert_eq!(found.content, spec.content, "content");
    assert_eq!(found.json, spec.json, "JSON fields");
    assert_eq!(found.markers, spec.markers, "markers");
    assert_eq!(found.end_of_turn, spec.end_of_turn, "end of turn");
    assert_eq!(
        found.capabilities.thinking_variable, spec.capabilities.thinking_variable,
        "thinking switch"
    );
    assert!(found.marker_spellings.is_empty());
}

/// MiniMax-M3 is a state machine (parser-minimax's `m3`): every tag is preceded by the namespace
/// token `]<]minimax[>[`, each parameter is an element named after the parameter (its closer repeats
/// the name) and values nest as elements. The analyzer reads the namespace token as the call opener
/// and `<` / `>` as the argument-name markup, with no value closer: a description no spec could
/// improve on, so there is no spec to compare; the template routes by signature instead.
#[test]
fn minimax_m3_is_beyond_a_spec() {
    let found = analysis("MiniMax-M3.jinja");
    assert_eq!(found.tools, ToolFormat::TagWithTagged);
    assert_eq!(found.markers.reasoning_start, "<mm:think>");
    assert_eq!(found.markers.reasoning_end, "</mm:think>");
    assert_eq!(found.markers.per_call_start.trim(), "<]minimax[>");
    assert_eq!(found.markers.func_name_prefix.trim(), "<invoke name=\"");
    assert_eq!(found.markers.arg_name_prefix.trim(), "<");
    assert!(found.markers.arg_value_suffix.is_empty());
}

/// GigaChat 3.5 is a state machine (parser-gigachat's `gcml`, DeepSeek's DSML reader with GCML's
/// spelling): the analyzer finds the GCML markers, but only the spelling of a string parameter
/// (`string="true"`); a JSON value's parameter is written `string="false"` and decoded as JSON, which
/// one argument-name suffix cannot say. The markers it finds are the family's.
#[test]
fn gigachat35_is_beyond_a_spec() {
    let found = analysis("GigaChat3.5.jinja");
    let m = &found.markers;
    assert_eq!(found.tools, ToolFormat::TagWithTagged);
    assert_eq!(m.reasoning_start, "<think>");
    assert_eq!(m.per_call_start.trim(), "<｜GCML｜tool_calls>");
    assert_eq!(m.per_call_end.trim(), "</｜GCML｜tool_calls>");
    assert_eq!(m.func_name_prefix.trim(), "<｜GCML｜invoke name=\"");
    assert_eq!(m.func_close.trim(), "</｜GCML｜invoke>");
    assert_eq!(m.arg_name_prefix.trim(), "<｜GCML｜parameter name=\"");
    assert_eq!(m.arg_name_suffix.trim(), "\" string=\"true\">");
    assert_eq!(m.arg_value_suffix.trim(), "</｜GCML｜parameter>");
}
