//! Behaviour tables: DESIGN.md §4's conventions on Sarashina's format. Every row runs one-shot and
//! under every chunking (whole, 1/2/3/5/8 characters, eight random splits, the markers whole), and all
//! of them must agree before the row is checked. Then the registry and a marker soup.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_finish_is_final, check_row, check_sample_splits,
    run_row, three_way_splits,
};
use parser_core::{ParseOptions, ParsedMessage, find_by_name, find_for_model};
use parser_sarashina::markers::SPECIAL_TOKENS;
use proptest::prelude::*;
use rstest::rstest;

fn run(output: &str) -> ParsedMessage {
    run_row("sarashina", ParseOptions::new(), output, SPECIAL_TOKENS)
}

#[rstest]
#[case::marker_then_list("<|tool_calls|>[{'name': 'f', 'arguments': {'a': 'x'}}]", None, vec![RowCall::Valid("f", r#"{"a": "x"}"#)])]
#[case::leading_whitespace_is_framing("\n  [{'name': 'f', 'arguments': {}}]", None, vec![RowCall::Valid("f", "{}")])]
#[case::escapes_and_unicode("[{'name': 'say', 'arguments': {'text': 'line\\n\"q\" \\u00e9 東京'}}]", None, vec![RowCall::Valid("say", r#"{"text": "line\n\"q\" é 東京"}"#)])]
#[case::brackets_inside_strings("[{'name': 'say', 'arguments': {'text': ']}) ['}}]", None, vec![RowCall::Valid("say", r#"{"text": "]}) ["}"#)])]
#[case::numbers_as_written("[{'name': 'n', 'arguments': {'x': 1.50, 'y': -2, 'z': [True, None]}}]", None, vec![RowCall::Valid("n", r#"{"x": 1.50, "y": -2, "z": [true, null]}"#)])]
#[case::missing_arguments_is_empty("[{'name': 'now'}]", None, vec![RowCall::Valid("now", "{}")])]
#[case::arguments_not_an_object("[{'name': 'f', 'arguments': 'a=1'}]", None, vec![RowCall::Invalid("f")])]
#[case::element_without_name_is_text("[{'arguments': {}}]", Some("[{'arguments': {}}]"), vec![])]
#[case::expression_is_text("<|tool_calls|>[{'name': f(1)}]", Some("<|tool_calls|>[{'name': f(1)}]"), vec![])]
#[case::marker_then_prose_is_text("<|tool_calls|> none today", Some("<|tool_calls|> none today"), vec![])]
#[case::cut_off_list_is_text("[{'name': 'f', 'arguments': {'a': 'x", Some("[{'name': 'f', 'arguments': {'a': 'x"), vec![])]
#[case::two_blocks("<|tool_calls|>[{'name': 'a', 'arguments': {}}]<|tool_calls|>[{'name': 'b', 'arguments': {}}]", None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{}")])]
#[case::lone_bracket_is_text("[", Some("["), vec![])]
fn sarashina_calls(
    #[case] output: &str,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run(output);
    check_row(&message, None, content, &calls);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(check_sample_splits("sarashina"), 1);
}

#[test]
fn pushes_after_finish_do_nothing() {
    let entry = find_by_name("sarashina").unwrap();
    check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <|tool_ca");
}

#[rstest]
#[case("sbintuitions/sarashina2.2-3b-instruct-v0.1", "sarashina")]
#[case("sbintuitions/sarashina2.2-0.5b-instruct-v0.1", "sarashina")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// smg's name for the format.
#[rstest]
#[case("sarashina", "sarashina")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    // Any mix of the format's markers, brackets, quotes and text: no panic, and every chunking gives
    // the one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(picks in proptest::collection::vec(0..64usize, 0..40), seed in any::<u64>()) {
        let entry = find_by_name("sarashina").unwrap();
        let mut soup: Vec<&str> = SPECIAL_TOKENS.to_vec();
        soup.extend(["[", "]", "{", "}", "(", ")", "'", "\"", "\\", "'name': ", "'f'", "'arguments': ", ": ", ", ", "True", "None", "1", " ", "\n", "é", "text"]);
        let text: String = picks.iter().map(|&i| soup[i % soup.len()]).collect();
        let options = ParseOptions::new().with_call_id_seed(1);
        let streamed = check_chunkings(&|| entry.parser(&options), &text, &Chunking::property(seed, SPECIAL_TOKENS));
        prop_assert!(streamed.is_ok(), "{}", streamed.unwrap_err());
    }
}

/// String values stream as they parse one-shot, whatever the deltas: a delta that stays inside a
/// string is kept without stepping the reader (escapes of either quote and of the backslash, the
/// other quote raw, multi-byte text, brackets as text), and its closing quote or the list's `]` may
/// be cut anywhere. Every standard chunking (`run`), then every cut in three pieces, against one-shot.
#[rstest]
#[case::escapes_single(
    r#"[{'name': 'write', 'arguments': {'text': 'it\'s "q" \\ x\n\t\u00e9\x41 end\\'}}]"#,
    r#"{"text": "it's \"q\" \\ x\n\téA end\\"}"#
)]
#[case::escapes_double(
    r#"[{'name': 'write', 'arguments': {'text': "say 'hi' \"there\" \\\\ done\"", 'n': 2}}]"#,
    r#"{"text": "say 'hi' \"there\" \\\\ done\"", "n": 2}"#
)]
#[case::multibyte_runs(r#"<|tool_calls|>[{'name': 'write', 'arguments': {'text': '北京 café 😀 東京', 'other': "é'北'"}}]"#, r#"{"text": "北京 café 😀 東京", "other": "é'北'"}"#)]
#[case::brackets_in_strings(
    r#"[{'name': 'write', 'arguments': {'text': 'a) ] } ( [{b}] "', 'more': "]}"}}]"#,
    r#"{"text": "a) ] } ( [{b}] \"", "more": "]}"}"#
)]
#[case::continuation_and_unknown_escape(
    "[{'name': 'write', 'arguments': {'text': 'one\\\ntwo \\q \\u4eac'}}]",
    r#"{"text": "onetwo \\q 京"}"#
)]
fn string_values_stream_as_one_shot(#[case] output: &str, #[case] arguments: &'static str) {
    let message = run(output);
    check_row(&message, None, None, &[RowCall::Valid("write", arguments)]);
    let entry = find_by_name("sarashina").unwrap();
    let options = ParseOptions::new().with_call_id_seed(7);
    for (cut, split) in three_way_splits(&|| entry.parser(&options), output) {
        assert_eq!(split, message, "cut {cut}");
    }
}
