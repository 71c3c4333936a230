//! Behaviour tables: DESIGN.md §4's conventions on Llama's formats. Every row runs one-shot and under
//! every chunking, and all of them must agree before the row is checked.

use parser_core::testing::{
    RowCall, check_content_held_back_exactly, check_finish_is_final, check_generated_ids,
    check_row, check_sample_splits, prompt_options, run_row, three_way_splits,
};
use parser_core::{ParseOptions, ParsedMessage, find_by_name, find_for_model};
use parser_llama::markers::{EOM, EOT, PYTHON_TAG, SPECIAL_TOKENS};
use proptest::prelude::*;
use rstest::rstest;

fn run(parser: &str, output: &str) -> ParsedMessage {
    run_row(
        parser,
        prompt_options(Some(TAIL), None),
        output,
        SPECIAL_TOKENS,
    )
}

const FAMILY: &str = "llama";
const TAIL: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n";
const CITY: RowCall = RowCall::Valid("get_weather", r#"{"city": "Paris"}"#);

#[rstest]
#[case::bare(r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#, None, vec![CITY])]
#[case::arguments_field(r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#, None, vec![CITY])]
#[case::leading_whitespace("\n {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", None, vec![CITY])]
#[case::python_tag(r#"<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>"#, None, vec![CITY])]
#[case::python_tag_after_text(r#"Let me check.<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}"#, Some("Let me check."), vec![CITY])]
#[case::semicolons(r#"{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": 1}}"#, None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", r#"{"x": 1}"#)])]
#[case::newline_between(r#"{"name": "a", "parameters": {}}
{"name": "b", "parameters": {}}"#, None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{}")])]
#[case::text_after_call(r#"{"name": "get_weather", "parameters": {"city": "Paris"}} Done."#, Some("Done."), vec![CITY])]
#[case::eot_dropped("Hello.<|eot_id|>", Some("Hello."), vec![])]
#[case::json_in_prose(r#"Use {"name": "get_weather"} like this."#, Some(r#"Use {"name": "get_weather"} like this."#), vec![])]
#[case::no_name(r#"{"parameters": {}}"#, Some(r#"{"parameters": {}}"#), vec![])]
#[case::cut_inside_name(r#"{"name": "get_wea"#, Some(r#"{"name": "get_wea"#), vec![])]
#[case::cut_inside_arguments(r#"{"name": "get_weather", "parameters": {"city": "Pa"#, None, vec![RowCall::Invalid("get_weather")])]
#[case::arguments_not_json(r#"{"name": "get_weather", "parameters": {city}}"#, None, vec![RowCall::Invalid("get_weather")])]
fn llama3_calls(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run("llama3", output);
    check_row(&message, None, content, &calls);
}

#[rstest]
#[case::bare("[get_weather(city='Paris')]", None, vec![CITY])]
#[case::python_start("<|python_start|>[get_weather(city=\"Paris\")]<|python_end|><|eom|>", None, vec![CITY])]
#[case::two_calls("[a(), b(x=1, y=True, z=None)]", None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", r#"{"x": 1, "y": true, "z": null}"#)])]
#[case::text_after_list("[get_weather(city='Paris')] Done.<|eot|>", Some("Done."), vec![CITY])]
#[case::list_in_prose("Call [get_weather(city='Paris')] later.", Some("Call [get_weather(city='Paris')] later."), vec![])]
#[case::positional_argument("[get_weather('Paris')]", None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_inside_arguments("[get_weather(city='Pa", None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_inside_name("[get_wea", Some("[get_wea"), vec![])]
fn llama4_calls(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run("llama4", output);
    check_row(&message, None, content, &calls);
}

#[rstest]
#[case("meta-llama/Llama-3.1-8B-Instruct", "llama3")]
#[case("meta-llama/Meta-Llama-3.1-70B-Instruct", "llama3")]
#[case("meta-llama/Llama-3.2-3B-Instruct", "llama3")]
#[case("meta-llama/Llama-3.3-70B-Instruct", "llama3")]
#[case("unsloth/Llama-3.3-70B-Instruct-GGUF", "llama3")]
#[case("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4")]
#[case("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama4")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// Fine-tunes named after a Llama model keep their own format (Hermes, Firefunction, Nemotron).
#[rstest]
#[case("NousResearch/Hermes-2-Pro-Llama-3-8B")]
#[case("NousResearch/Hermes-3-Llama-3.1-8B")]
#[case("fireworks-ai/llama-3-firefunction-v2")]
#[case("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF")]
#[case("meta-llama/Meta-Llama-3-8B-Instruct")]
fn fine_tunes_are_not_claimed(#[case] model: &str) {
    assert!(
        find_for_model(model).map_or(true, |e| e.family != FAMILY),
        "{model}"
    );
}

#[rstest]
#[case("llama3_json", "llama3")]
#[case("llama", "llama3")]
#[case("llama_3_x", "llama3")]
#[case("llama4_json", "llama3")]
#[case("llama4_pythonic", "llama4")]
#[case("pythonic", "llama4")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

#[test]
fn ids_are_generated() {
    let make = |options: &ParseOptions| find_by_name("llama3").unwrap().parser(options);
    check_generated_ids(
        &make,
        r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#,
    );
}

#[test]
fn every_sample_parses_under_every_split() {
    assert_eq!(check_sample_splits("llama"), 2);
}

#[test]
fn a_held_tail_is_released_by_finish() {
    let parser = find_by_name("llama3")
        .unwrap()
        .parser(&prompt_options(Some(TAIL), None));
    check_finish_is_final(parser, "Text <|python_t");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn content_is_held_back_exactly(pieces in proptest::collection::vec(
        prop_oneof!["[a-z ]{0,4}", Just("<|".to_owned()), Just("<|python_".to_owned()), Just("<|eot_i".to_owned()), Just("{".to_owned())], 1..8)) {
        let parser = find_by_name("llama3").unwrap().parser(&prompt_options(Some(TAIL), None));
        check_content_held_back_exactly(parser, "Answer: ", &pieces, &[PYTHON_TAG, EOM, EOT]).map_err(TestCaseError::fail)?;
    }
}

// The entries' special tokens (constants) hold every marker of the specs.
#[test]
fn special_tokens_cover_the_specs_markers() {
    for parser in ["llama3", "llama4"] {
        let spec = parser_llama::spec(parser).unwrap();
        for token in parser_generic::markers(spec) {
            assert!(SPECIAL_TOKENS.contains(token), "{parser}: {token}");
        }
        assert_eq!(find_by_name(parser).unwrap().special_tokens, SPECIAL_TOKENS);
    }
}

/// String arguments of Python calls stream as they parse one-shot, whatever the deltas: a delta that
/// stays inside a string is kept without stepping the reader (escapes of either quote and of the
/// backslash, the other quote raw, multi-byte text, brackets and parentheses as text), and its closing
/// quote or the call's `)` may be cut anywhere. Every standard chunking (`run`), then every cut in
/// three pieces, against one-shot.
#[rstest]
#[case::escapes_single(
    r#"[write(text='it\'s "q" \\ x\n\t\u00e9\x41 end\\')]"#,
    r#"{"text": "it's \"q\" \\ x\n\téA end\\"}"#
)]
#[case::escapes_double(
    r#"[write(text="say 'hi' \"there\" \\\\ done\"", n=2)]"#,
    r#"{"text": "say 'hi' \"there\" \\\\ done\"", "n": 2}"#
)]
#[case::multibyte_runs(
    r#"[write(text='北京 café 😀 東京', other="é'北'")]"#,
    r#"{"text": "北京 café 😀 東京", "other": "é'北'"}"#
)]
#[case::brackets_in_strings(
    r#"[write(text='a) ] } ( [b(x=1)] "', more=")(")]"#,
    r#"{"text": "a) ] } ( [b(x=1)] \"", "more": ")("}"#
)]
#[case::continuation_and_unknown_escape(
    "[write(text='one\\\ntwo \\q \\u4eac')]",
    r#"{"text": "onetwo \\q 京"}"#
)]
fn llama4_string_arguments_stream_as_one_shot(
    #[case] output: &str,
    #[case] arguments: &'static str,
) {
    let message = run("llama4", output);
    check_row(&message, None, None, &[RowCall::Valid("write", arguments)]);
    let entry = find_by_name("llama4").unwrap();
    let options = prompt_options(Some(TAIL), None).with_call_id_seed(7);
    for (cut, split) in three_way_splits(&|| entry.parser(&options), output) {
        assert_eq!(split, message, "cut {cut}");
    }
}
