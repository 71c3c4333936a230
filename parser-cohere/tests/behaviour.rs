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

const ACTION: &str = "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>";
const TURN: &str = "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Weather?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
const PARIS: RowCall = RowCall::ValidWithId("get_weather", r#"{"city": "Paris"}"#, "0");

// Command-R7B / A (DESIGN §3, §4.6): reasoning the model opens or the prompt opened, wrapped content,
// action arrays read element by element.
#[rstest]
#[case::thinking_then_action(TURN, &format!("<|START_THINKING|>Weather.<|END_THINKING|>{ACTION}"), Some("Weather."), None, vec![PARIS])]
#[case::response_markers_removed(TURN, "<|START_RESPONSE|>Sunny.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>", None, Some("Sunny."), vec![])]
#[case::text_markers_removed(TURN, "<|START_TEXT|>Let me check.<|END_TEXT|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]<|END_ACTION|>", None, Some("Let me check."), vec![PARIS])]
#[case::prompt_opened_thinking(&format!("{TURN}<|START_THINKING|>"), "Weather.<|END_THINKING|><|START_TEXT|>Sunny.<|END_TEXT|>", Some("Weather."), Some("Sunny."), vec![])]
#[case::prompt_closed_thinking(&format!("{TURN}<|START_THINKING|><|END_THINKING|>"), "<|START_TEXT|>Sunny.<|END_TEXT|>", None, Some("Sunny."), vec![])]
#[case::malformed_element_keeps_its_siblings(
    TURN,
    "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"set_alarm\", \"parameters\": {\"time\": 15:30}}, {\"tool_call_id\": \"1\", \"tool_name\": \"now\", \"parameters\": {}}]<|END_ACTION|>",
    None, None, vec![RowCall::InvalidWithId("set_alarm", "0"), RowCall::ValidWithId("now", "{}", "1")]
)]
#[case::cut_off_arguments_stay_invalid(TURN, "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Pa", None, None, vec![RowCall::InvalidWithId("get_weather", "0")])]
#[case::cut_off_before_the_name_is_content(TURN, "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_na", None, Some("<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_na"), vec![])]
fn command_a(
    #[case] tail: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run("command-a", prompt_options(Some(tail), None), output);
    check_row(&message, reasoning, content, &calls);
}

#[rstest]
#[case::one_action("Action:\n```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]\n```", None, vec![RowCall::Valid("get_weather", r#"{"city": "Paris"}"#)])]
#[case::plain_answer("<|CHATBOT_TOKEN|>It is sunny.<|END_OF_TURN_TOKEN|>", Some("It is sunny."), vec![])]
#[case::the_word_action_in_prose("Action: none needed.", Some("Action: none needed."), vec![])]
fn command_r_plus(
    #[case] output: &str,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let message = run("command-r-plus", ParseOptions::new(), output);
    check_row(&message, None, content, &calls);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(
        check_sample_splits("cohere"),
        parser_cohere::data_parsers().len()
    );
}

#[test]
fn pushes_after_finish_do_nothing() {
    for data in parser_cohere::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <");
    }
}

/// Each entry lists every marker of its spec as a special token (the chunking tests push them whole).
#[test]
fn special_tokens_list_the_spec_markers() {
    for data in parser_cohere::data_parsers() {
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
#[case("CohereForAI/c4ai-command-r7b-12-2024", "command-a")]
#[case("CohereLabs/c4ai-command-a-03-2025", "command-a")]
#[case("CohereLabs/command-a-reasoning-08-2025", "command-a")]
#[case("CohereLabs/command-a-vision-07-2025", "command-a")]
#[case("CohereForAI/c4ai-command-r-plus", "command-r-plus")]
#[case("CohereForAI/c4ai-command-r-plus-08-2024", "command-r-plus")]
#[case("CohereForAI/c4ai-command-r-v01", "command-r-plus")]
#[case("CohereForAI/c4ai-command-r-08-2024", "command-r-plus")]
#[case("bartowski/c4ai-command-r7b-12-2024-GGUF", "command-a")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// The peers' names for these formats (vLLM, SGLang, llama.cpp, Ollama).
#[rstest]
#[case("cohere_command3", "command-a")]
#[case("cohere_command4", "command-a")]
#[case("command_r7b", "command-a")]
#[case("cohere", "command-a")]
#[case("command-r-plus", "command-r-plus")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    // Any mix of the format's markers and text: no panic, and every chunking gives the one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(picks in proptest::collection::vec(0..64usize, 0..40), seed in any::<u64>(), which in 0..8usize) {
        let parsers = parser_cohere::data_parsers();
        let data = parsers[which % parsers.len()];
        let entry = find_by_name(data.name()).unwrap();
        let mut soup: Vec<&str> = entry.special_tokens.to_vec();
        soup.extend(["<", "{", "}", "[", "]", "(", ")", "\"", "\"name\": ", "\"get_weather\"", "f(", "a=1", ",", ":", " ", "\n", "é", "text", "{\"city\": \"Paris\"}"]);
        let text: String = picks.iter().map(|&i| soup[i % soup.len()]).collect();
        let options = ParseOptions::new().with_call_id_seed(1);
        let streamed = check_chunkings(&|| entry.parser(&options), &text, &Chunking::property(seed, entry.special_tokens));
        prop_assert!(streamed.is_ok(), "{}", streamed.unwrap_err());
    }
}
