//! Behaviour tables: DESIGN.md §4's conventions on the family's formats. Every row runs one-shot and
//! under every chunking (whole, 1/2/3/5/8 characters, eight random splits, the parser's markers whole),
//! and all of them must agree before the row is checked. Then the registry: names, models, and the
//! entries' special tokens against their specs.

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_finish_is_final, check_row, check_sample_splits,
    prompt_options, run_row,
};
use parser_core::{ParseOptions, ParsedMessage, find_by_name, find_for_model};
use proptest::prelude::*;
use rstest::rstest;

#[allow(unused_imports)]
use parser_core::testing::check_generated_ids;

fn run(parser: &str, options: ParseOptions, output: &str) -> ParsedMessage {
    let entry = find_by_name(parser).unwrap();
    run_row(parser, options, output, entry.special_tokens)
}

#[allow(dead_code)]
fn calls(message: &ParsedMessage) -> Vec<(&str, &str, bool)> {
    message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str(), c.valid))
        .collect()
}

#[rstest]
#[case::tool_code("```tool_code\nget_weather(city=\"Paris\", days=3)\n```<end_of_turn>", None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris", "days": 3}"#)])]
#[case::answer("Hello!<end_of_turn>", Some("Hello!"), vec![])]
#[case::other_fences_are_content("```python\nprint(1)\n```", Some("```python\nprint(1)\n```"), vec![])]
#[case::cut_off_is_invalid("```tool_code\nget_weather(city=\"Pa", None, vec![RowCall::Invalid("get_weather")])]
fn gemma(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run(
        "gemma",
        prompt_options(Some("<start_of_turn>model\n"), None),
        output,
    );
    check_row(&message, None, content, &calls);
}

/// FunctionGemma: `<escape>` strings, bare values, nesting, and the edge cases of DESIGN §4.6.
#[rstest]
#[case::one_call("<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>", None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris"}"#)])]
#[case::bare_values("<start_function_call>call:add{a:1,b:-2.5,ok:true,none:null}<end_function_call>", None, vec![RowCall::Valid("add", r#"{"a": 1, "b": -2.5, "ok": true, "none": null}"#)])]
#[case::bare_text_is_a_string("<start_function_call>call:f{unit:celsius}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"unit": "celsius"}"#)])]
#[case::string_is_json_escaped("<start_function_call>call:f{s:<escape>a \"q\" \\ b\nc<escape>}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"s": "a \"q\" \\ b\nc"}"#)])]
#[case::string_controls_and_multibyte("<start_function_call>call:f{s:<escape>\t\u{1}\u{8}\u{c}é北京 \"q\"\\<escape>}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"s": "\t\u0001\b\fé北京 \"q\"\\"}"#)])]
#[case::string_keeps_punctuation("<start_function_call>call:f{s:<escape>a,b}c:{[d]}<escape>}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"s": "a,b}c:{[d]}"}"#)])]
#[case::nested("<start_function_call>call:f{o:{k:<escape>v<escape>,n:[1,2,{x:[]}]},e:{}}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"o": {"k": "v", "n": [1, 2, {"x": []}]}, "e": {}}"#)])]
#[case::array_of_strings("<start_function_call>call:f{items:[<escape>a<escape>,<escape>b<escape>]}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"items": ["a", "b"]}"#)])]
#[case::no_arguments("<start_function_call>call:now{}<end_function_call>", None, vec![RowCall::Valid("now", "{}")])]
#[case::whitespace_is_framing("<start_function_call> call:f { a : 1 , b : <escape>x<escape> } <end_function_call>", None, vec![RowCall::Valid("f", r#"{"a": 1, "b": "x"}"#)])]
#[case::quoted_key("<start_function_call>call:f{<escape>my key<escape>:1}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"my key": 1}"#)])]
#[case::content_then_two_calls("Let me check.<start_function_call>call:a{}<end_function_call><start_function_call>call:b{x:1}<end_function_call><start_function_response>", Some("Let me check."), vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", r#"{"x": 1}"#)])]
#[case::missing_closer_at_the_end("<start_function_call>call:f{a:1}", None, vec![RowCall::Valid("f", r#"{"a": 1}"#)])]
#[case::missing_closer_before_the_next_call("<start_function_call>call:f{a:1}<start_function_call>call:g{}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"a": 1}"#), RowCall::Valid("g", "{}")])]
#[case::text_after_the_object_is_content("<start_function_call>call:f{a:1} done", Some("done"), vec![RowCall::Valid("f", r#"{"a": 1}"#)])]
#[case::cut_off_in_a_string("<start_function_call>call:f{a:<escape>Par", None, vec![RowCall::Invalid("f")])]
#[case::cut_off_in_a_key("<start_function_call>call:f{a:1,ci", None, vec![RowCall::Invalid("f")])]
#[case::cut_off_in_a_bare_value("<start_function_call>call:f{a:12", None, vec![RowCall::Invalid("f")])]
#[case::cut_off_in_the_head("<start_function_call>call:get_wea", Some("<start_function_call>call:get_wea"), vec![])]
#[case::closer_inside_a_string("<start_function_call>call:f{a:<escape>x<end_function_call>after", Some("after"), vec![RowCall::Invalid("f")])]
#[case::closer_before_the_brace("<start_function_call>call:f{a:1<end_function_call>after", Some("after"), vec![RowCall::Invalid("f")])]
#[case::key_without_colon("<start_function_call>call:f{oops}<end_function_call>after", Some("after"), vec![RowCall::Invalid("f")])]
#[case::not_a_call_head("<start_function_call>hello<end_function_call>", Some("<start_function_call>hello"), vec![])]
#[case::missing_commas("<start_function_call>call:f{a:<escape>x<escape>b:1,c:{d:1}e:<escape>y<escape>}<end_function_call>", None, vec![RowCall::Valid("f", r#"{"a": "x", "b": 1, "c": {"d": 1}, "e": "y"}"#)])]
#[case::no_name("<start_function_call>call:{a:1}", Some("<start_function_call>call:{a:1}"), vec![])]
#[case::plain_answer("Hello!<end_of_turn>", Some("Hello!"), vec![])]
#[case::new_turn_ends_the_reply("Hi.<end_of_turn>\n<start_of_turn>user\nmore", Some("Hi."), vec![])]
fn functiongemma(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run(
        "functiongemma",
        prompt_options(Some("<start_of_turn>model\n"), None),
        output,
    );
    check_row(&message, None, content, &calls);
}

/// Gemma 4: the thought channel and `<|"|>` strings.
#[rstest]
#[case::thought_then_call("<|channel>thought\nThe user wants the weather.<channel|><|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|><|tool_response>", Some("The user wants the weather."), None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris", "days": 3}"#)])]
#[case::thought_then_answer("<|channel>thought\nHmm.\n<channel|>It is 4.<turn|>", Some("Hmm."), Some("It is 4."), vec![])]
#[case::answer_only("It is 4.<turn|>", None, Some("It is 4."), vec![])]
#[case::channel_without_name("<|channel>Hmm.<channel|>Hi", Some("Hmm."), Some("Hi"), vec![])]
#[case::thought_cut_off("<|channel>thought\nStill thinking", Some("Still thinking"), None, vec![])]
#[case::two_calls("<|tool_call>call:a{x:<|\"|>1<|\"|>}<tool_call|><|tool_call>call:b{y:[1,<|\"|>z<|\"|>]}<tool_call|>", None, None, vec![RowCall::Valid("a", r#"{"x": "1"}"#), RowCall::Valid("b", r#"{"y": [1, "z"]}"#)])]
#[case::nested_object("<|tool_call>call:f{filter:{field:<|\"|>a<|\"|>,op:<|\"|>eq<|\"|>,values:[true,false]}}<tool_call|>", None, None, vec![RowCall::Valid("f", r#"{"filter": {"field": "a", "op": "eq", "values": [true, false]}}"#)])]
#[case::unicode("<|tool_call>call:f{city:<|\"|>北京<|\"|>}<tool_call|>", None, None, vec![RowCall::Valid("f", r#"{"city": "北京"}"#)])]
#[case::turn_end_instead_of_closer("<|tool_call>call:f{a:1}<turn|>", None, None, vec![RowCall::Valid("f", r#"{"a": 1}"#)])]
#[case::cut_off_in_a_string("<|tool_call>call:f{a:<|\"|>Par", None, None, vec![RowCall::Invalid("f")])]
#[case::cut_off_after_the_brace_open("<|tool_call>call:f{", None, None, vec![RowCall::Invalid("f")])]
#[case::delimiter_cut_off("<|tool_call>call:f{a:<|\"", None, None, vec![RowCall::Invalid("f")])]
#[case::malformed_body("<|tool_call>call:f{a:1]}<tool_call|>ok", None, Some("ok"), vec![RowCall::Invalid("f")])]
#[case::stray_closer_after_a_call("<|tool_call>call:f{}<tool_call|><tool_call|>Done.", None, Some("Done."), vec![RowCall::Valid("f", "{}")])]
#[case::other_markup_is_content("a < b and c > d, {x:1}", None, Some("a < b and c > d, {x:1}"), vec![])]
fn gemma4(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run(
        "gemma4",
        prompt_options(Some("<|turn>model\n"), None),
        output,
    );
    check_row(&message, reasoning, content, &calls);
}

/// The stage comes from the prompt: an open thought channel (after a tool result with thinking on)
/// starts in reasoning; an empty channel closed in the prompt, or none, in the answer.
#[rstest]
#[case::open_channel(
    "<tool_response|><|channel>thought\n",
    Some("Done.<channel|>"),
    Some("Done."),
    Some("Ok.")
)]
#[case::closed_empty_channel(
    "<|turn>model\n<|channel>thought\n<channel|>",
    None,
    None,
    Some("Ok.")
)]
#[case::model_turn("<|turn>model\n", None, None, Some("Ok."))]
fn gemma4_stage(
    #[case] tail: &str,
    #[case] lead: Option<&str>,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let output = format!("{}Ok.", lead.unwrap_or(""));
    let message = run("gemma4", prompt_options(Some(tail), None), &output);
    check_row(&message, reasoning, content, &[]);
}

/// A bare value of a top-level argument is typed by the tool's schema; without one it is JSON when it
/// reads as JSON, else a string.
#[rstest]
#[case::string_schema(
    "<|tool_call>call:lookup{zip:75001,n:2}<tool_call|>",
    r#"{"zip": "75001", "n": 2}"#
)]
#[case::integer_schema_reads_python_int(
    "<|tool_call>call:lookup{n:007}<tool_call|>",
    r#"{"n": 7}"#
)]
#[case::boolean_schema("<|tool_call>call:lookup{flag:True}<tool_call|>", r#"{"flag": true}"#)]
#[case::nested_values_are_untyped(
    "<|tool_call>call:lookup{o:{zip:75001}}<tool_call|>",
    r#"{"o": {"zip": 75001}}"#
)]
fn bare_values_follow_the_schema(#[case] output: &str, #[case] arguments: &'static str) {
    let tools =
        parser_core::Tools::from_json(&serde_json::json!([{"type": "function", "function": {
        "name": "lookup", "parameters": {"type": "object", "properties": {
            "zip": {"type": "string"}, "n": {"type": "integer"}, "flag": {"type": "boolean"},
            "o": {"type": "object"}}}}}]))
        .unwrap();
    let options =
        prompt_options(Some("<|turn>model\n"), None).with_tools(std::sync::Arc::new(tools));
    let message = run("gemma4", options, output);
    check_row(&message, None, None, &[RowCall::Valid("lookup", arguments)]);
}

/// Markers split anywhere across deltas: every split of every row above is covered by the chunkings;
/// here a string argument arrives in pieces and each piece streams at once.
#[test]
fn a_string_argument_streams_as_it_arrives() {
    let entry = find_by_name("gemma4").unwrap();
    let mut parser = entry.parser(&ParseOptions::new());
    let deltas = parser.push("<|tool_call>call:f{a:<|\"|>Hel");
    let text: String = deltas
        .iter()
        .filter_map(|d| match d {
            parser_core::Delta::ToolCallArguments { fragment, .. } => Some(fragment),
            _ => None,
        })
        .collect();
    assert_eq!(text, r#"{"a": "Hel"#);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(check_sample_splits("gemma"), 3);
}

#[test]
fn pushes_after_finish_do_nothing() {
    for data in parser_gemma::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <");
    }
}

/// Each entry lists every marker of its spec as a special token (the chunking tests push them whole).
#[test]
fn special_tokens_list_the_spec_markers() {
    for data in parser_gemma::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        for token in data.tokens() {
            assert!(
                entry.special_tokens.contains(token),
                "{}: {token:?} is not in its special tokens {:?}",
                entry.name,
                entry.special_tokens
            );
        }
    }
}

#[rstest]
#[case("google/gemma-2-2b-it", "gemma")]
#[case("google/gemma-2-9b-it", "gemma")]
#[case("google/gemma-3-27b-it", "gemma")]
#[case("unsloth/gemma-3-4b-it-GGUF", "gemma")]
#[case("google/functiongemma-270m-it", "functiongemma")]
#[case("unsloth/functiongemma-270m-it-GGUF", "functiongemma")]
#[case("google/gemma-4-31B-it", "gemma4")]
#[case("google/gemma-4-E2B-it", "gemma4")]
#[case("google/gemma-4-26B-A4B-it", "gemma4")]
#[case("gemma4:e4b", "gemma4")]
#[case("functiongemma:270m", "functiongemma")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// The peers' names for these formats (vLLM, SGLang, llama.cpp, Ollama).
#[rstest]
#[case("gemma", "gemma")]
#[case("gemma3", "gemma")]
#[case("functiongemma", "functiongemma")]
#[case("gemma4", "gemma4")]
#[case("peg-gemma4", "gemma4")]
#[case("gemma4-no-thinking", "gemma4")]
#[case("gemma4-small", "gemma4")]
#[case("gemma4-large", "gemma4")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    // Any mix of the format's markers and text: no panic, and every chunking gives the one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(picks in proptest::collection::vec(0..64usize, 0..40), seed in any::<u64>(), which in 0..8usize) {
        let names = ["gemma", "functiongemma", "gemma4"];
        let entry = find_by_name(names[which % names.len()]).unwrap();
        let mut soup: Vec<&str> = entry.special_tokens.to_vec();
        soup.extend(["<", "{", "}", "[", "]", "(", ")", "\"", "\"name\": ", "\"get_weather\"", "f(", "a=1", ",", ":", " ", "\n", "é", "text", "{\"city\": \"Paris\"}", "call:", "get_weather{", "city:", "1", "true", "thought\n", "<|channel>thought\n"]);
        let text: String = picks.iter().map(|&i| soup[i % soup.len()]).collect();
        let options = ParseOptions::new().with_call_id_seed(1);
        let streamed = check_chunkings(&|| entry.parser(&options), &text, &Chunking::property(seed, entry.special_tokens));
        prop_assert!(streamed.is_ok(), "{}", streamed.unwrap_err());
    }
}
