//! Behaviour tables: DESIGN.md §4's conventions on Mistral's formats. Every row runs one-shot and
//! under every chunking (whole, 1/2/3/5/8 characters, eight random splits, the family's tokens
//! whole), and all of them must agree before the row is checked. Then properties: exact hold-back,
//! and no panic and streaming equal to one-shot on random marker soup.

use parser_core::testing::{
    RowCall, check_content_held_back_exactly, check_finish_is_final, check_generated_ids,
    check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{ParseOptions, ParsedMessage, find_by_name, find_for_model};
use parser_mistral::markers::{EOS, SPECIAL_TOKENS, TOOL_CALLS};
use proptest::prelude::*;
use rstest::rstest;

fn run(parser: &str, options: ParseOptions, output: &str) -> ParsedMessage {
    run_row(parser, options, output, SPECIAL_TOKENS)
}

const FAMILY: &str = "mistral";
const TAIL: &str = "[INST]Weather in Paris?[/INST]";
const CITY: RowCall = RowCall::Valid("get_weather", r#"{"city": "Paris"}"#);

// Calls: both formats under every parser, ids byte-exact, and what is not a call.
#[rstest]
#[case::v11("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", None, vec![CITY])]
#[case::v11_without_args_token("[TOOL_CALLS]get_weather{\"city\": \"Paris\"}", None, vec![CITY])]
#[case::v11_call_id("[TOOL_CALLS]get_weather[CALL_ID]aB3dE5gH7[ARGS]{\"city\": \"Paris\"}", None, vec![RowCall::ValidWithId("get_weather", r#"{"city": "Paris"}"#, "aB3dE5gH7")])]
#[case::v11_two_calls("[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS]b[ARGS]{\"x\": 1}", None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", r#"{"x": 1}"#)])]
#[case::v11_text_around("Checking.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"} Done.", Some("Checking. Done."), vec![CITY])]
#[case::v11_eos_dropped("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}</s>", None, vec![CITY])]
#[case::v11_braces_in_strings("[TOOL_CALLS]f[ARGS]{\"s\": \"}{[TOOL_CALLS]\"}", None, vec![RowCall::Valid("f", r#"{"s": "}{[TOOL_CALLS]"}"#)])]
#[case::v03_array("[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", None, vec![CITY])]
#[case::v03_ids("[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}, \"id\": \"aB3dE5gH7\"}, {\"name\": \"b\", \"arguments\": {}, \"id\": \"Zx9Yw8Vu7\"}]", None, vec![RowCall::ValidWithId("a", "{}", "aB3dE5gH7"), RowCall::ValidWithId("b", "{}", "Zx9Yw8Vu7")])]
#[case::v03_broken_element("[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {\"t\": 15:30}}, {\"name\": \"b\", \"arguments\": {}}]", None, vec![RowCall::Invalid("a"), RowCall::Valid("b", "{}")])]
#[case::opener_in_prose("Write [TOOL_CALLS] then a name.", Some("Write [TOOL_CALLS] then a name."), vec![])]
#[case::cut_inside_name("[TOOL_CALLS]get_wea", Some("[TOOL_CALLS]get_wea"), vec![])]
#[case::cut_after_args_token("[TOOL_CALLS]get_weather[ARGS]", None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_inside_arguments("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Pa", None, vec![RowCall::Invalid("get_weather")])]
#[case::arguments_not_json("[TOOL_CALLS]get_weather[ARGS]Paris", None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_inside_array_element("[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"ci", None, vec![RowCall::Invalid("get_weather")])]
fn tool_calls(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    for parser in ["mistral", "magistral", "mistral-v0.3"] {
        let message = run(parser, prompt_options(Some(TAIL), None), output);
        check_row(&message, None, content, &calls);
    }
}

// Where Magistral's reasoning starts and ends (DESIGN §3, §4.8).
#[rstest]
#[case::model_opens(
    TAIL,
    "[THINK]I think.[/THINK]Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::model_opens_after_whitespace(
    TAIL,
    "\n[THINK]I think.[/THINK]\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::no_think_is_content(TAIL, "Answer.", None, Some("Answer."))]
#[case::think_later_is_content(
    TAIL,
    "Answer. [THINK]x[/THINK]",
    None,
    Some("Answer. [THINK]x[/THINK]")
)]
#[case::prompt_opened(
    "[/INST][THINK]",
    "I think.[/THINK]Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::cut_off_reasoning(TAIL, "[THINK]Still thinking", Some("Still thinking"), None)]
#[case::second_closer_is_content(TAIL, "[THINK]a[/THINK]b[/THINK]", Some("a"), Some("b[/THINK]"))]
fn reasoning_split(
    #[case] tail: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let message = run("magistral", prompt_options(Some(tail), None), output);
    check_row(&message, reasoning, content, &[]);
}

// Calls and reasoning: after [/THINK] a call; markup inside closed reasoning is reasoning text; a call
// block that ends the output while reasoning is open is a call (DESIGN §4.8).
#[rstest]
#[case::call_after_reasoning("[THINK]Weather.[/THINK][TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", Some("Weather."), None, vec![CITY])]
#[case::markup_in_closed_reasoning("[THINK]Maybe [TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}.[/THINK]No.", Some("Maybe [TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}."), Some("No."), vec![])]
#[case::call_ends_open_reasoning("[THINK]Weather.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", Some("Weather."), None, vec![CITY])]
fn calls_and_reasoning(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run("magistral", prompt_options(Some(TAIL), None), output);
    check_row(&message, reasoning, content, &calls);
}

#[rstest]
#[case("mistralai/Mistral-7B-Instruct-v0.3", "mistral-v0.3")]
#[case("mistralai/Mistral-Nemo-Instruct-2407", "mistral-v0.3")]
#[case("mistralai/Mixtral-8x22B-Instruct-v0.1", "mistral-v0.3")]
#[case("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-v0.3")]
#[case("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-v0.3")]
#[case("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral")]
#[case("unsloth/Mistral-Small-3.2-24B-Instruct-2506-GGUF", "mistral")]
#[case("mistralai/Devstral-Small-2507", "mistral")]
#[case("mistralai/Devstral-Small-2505", "mistral-v0.3")]
#[case("mistralai/Devstral-2-123B-Instruct-2512", "mistral")]
#[case("mistralai/Magistral-Small-2509", "magistral")]
#[case("mistralai/Magistral-Medium-2506", "magistral")]
#[case("mistralai/Ministral-3-14B-Reasoning-2512", "magistral")]
#[case("mistralai/Ministral-3-8B-Instruct-2512", "magistral")]
#[case("mistralai/Mistral-Large-3-675B-Instruct-2512", "mistral")]
#[case("mistralai/Mistral-Large-Instruct-2411", "mistral-v0.3")]
#[case("mistralai/Ministral-8B-Instruct-2410", "mistral-v0.3")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// Fine-tunes named after a Mistral model keep their own format.
#[rstest]
#[case("NousResearch/Hermes-2-Pro-Mistral-7B")]
#[case("teknium/OpenHermes-2.5-Mistral-7B")]
fn fine_tunes_are_not_claimed(#[case] model: &str) {
    assert!(
        find_for_model(model).map_or(true, |e| e.family != FAMILY),
        "{model}"
    );
}

#[rstest]
#[case("mistral", "mistral")]
#[case("mistral_nemo", "mistral-v0.3")]
#[case("mistral-nemo", "mistral-v0.3")]
#[case("magistral", "magistral")]
#[case("ministral", "magistral")]
#[case("ministral_3", "magistral")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

#[test]
fn ids_are_generated_when_the_model_writes_none() {
    let make = |options: &ParseOptions| find_by_name("mistral").unwrap().parser(options);
    check_generated_ids(&make, "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}");
}

// Array elements far longer than the window the generic engine looks for an element's end in (a few
// KB): read one window after another as across pushes, so one-shot agrees with every chunking; and an
// element whose braces never balance, followed by many more, is ended by the next opener each time
// (linear: this output once took quadratic time).
#[test]
fn long_and_unbalanced_array_elements() {
    let value = "a}{[TOOL_CALLS] \\\" é ".repeat(1500);
    let arguments: &'static str = format!(r#"{{"s": "{value}"}}"#).leak();
    let output = format!(
        r#"[TOOL_CALLS] [{{"name": "a", "arguments": {arguments}}}, {{"name": "b", "arguments": {{}}}}]"#
    );
    let message = run("mistral-v0.3", prompt_options(Some(TAIL), None), &output);
    check_row(
        &message,
        None,
        None,
        &[RowCall::Valid("a", arguments), RowCall::Valid("b", "{}")],
    );

    let broken = format!(
        r#"[TOOL_CALLS] [{{"name": "a", "arguments": {{"t": {{ {} "#,
        "x ".repeat(3000)
    );
    let output = format!(
        "{}[TOOL_CALLS] [{{\"name\": \"b\", \"arguments\": {{}}}}]",
        broken.repeat(4)
    );
    let message = run("mistral-v0.3", prompt_options(Some(TAIL), None), &output);
    let invalid = RowCall::Invalid("a");
    check_row(
        &message,
        None,
        None,
        &[
            invalid,
            invalid,
            invalid,
            invalid,
            RowCall::Valid("b", "{}"),
        ],
    );
}

#[test]
fn every_sample_parses_under_every_split() {
    assert_eq!(check_sample_splits("mistral"), 3);
}

#[test]
fn a_held_tail_is_released_by_finish() {
    let parser = find_by_name("magistral")
        .unwrap()
        .parser(&prompt_options(Some(TAIL), None));
    check_finish_is_final(parser, "Text [TOOL_CA");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    // Only what could still become a marker is held back; it is released as soon as it cannot.
    #[test]
    fn content_is_held_back_exactly(pieces in proptest::collection::vec(
        prop_oneof!["[a-z ]{0,4}", Just("[".to_owned()), Just("[TOOL".to_owned()), Just("[TOOL_CALLS".to_owned()), Just("</s".to_owned()), Just("[/THI".to_owned())], 1..8)) {
        let parser = find_by_name("mistral").unwrap().parser(&prompt_options(Some(TAIL), None));
        // In content, only the call opener and the end-of-sequence token mean something.
        check_content_held_back_exactly(parser, "Answer: ", &pieces, &[TOOL_CALLS, EOS]).map_err(TestCaseError::fail)?;
    }
}

// The entries' special tokens (constants) hold every marker of the specs.
#[test]
fn special_tokens_cover_the_specs_markers() {
    for parser in ["mistral", "magistral", "mistral-v0.3"] {
        let spec = parser_mistral::spec(parser).unwrap();
        for token in parser_generic::markers(spec) {
            assert!(SPECIAL_TOKENS.contains(token), "{parser}: {token}");
        }
        assert_eq!(find_by_name(parser).unwrap().special_tokens, SPECIAL_TOKENS);
    }
}
