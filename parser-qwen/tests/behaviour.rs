//! Behaviour tables: DESIGN.md §4's conventions on Qwen's formats. Every row runs one-shot and under every
//! chunking (whole, 1/2/3/5/8 characters, eight random splits, the family's markers whole) and all of them
//! must agree before the row is checked.

use std::sync::Arc;

use parser_core::testing::{
    RowCall, check_content_held_back_exactly, check_finish_is_final, check_generated_ids,
    check_row, check_sample_splits, prompt_options, run_row, three_way_splits,
};
use parser_core::{
    Delta, ParseOptions, ParsedMessage, Policy, ReasoningFormat, SpecialTokens, Stage, Tools,
    find_by_name, find_for_model, normalize_model, normalize_name,
};
use parser_qwen::markers::SPECIAL_TOKENS;
use rstest::rstest;

fn run(parser: &str, options: ParseOptions, output: &str) -> ParsedMessage {
    run_row(parser, options, output, SPECIAL_TOKENS)
}

/// Qwen3 with thinking on: the generation prompt opens the assistant turn only.
const PLAIN_TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
/// `enable_thinking=false`: the template renders an empty think block into the prompt.
const THINK_OFF: &str =
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
/// QwQ, *-Thinking-2507, Qwen3.5: the prompt opens `<think>`.
const FORCED_OPEN: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";

// Stage and reasoning split (DESIGN §3, §4.8).
#[rstest]
#[case::qwen3_model_opens_reasoning(
    "qwen3",
    Some(PLAIN_TAIL),
    None,
    "<think>\nI think.\n</think>\n\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::qwen3_default_without_tags_is_content(
    "qwen3",
    None,
    None,
    "Plain answer.",
    None,
    Some("Plain answer.")
)]
#[case::qwen3_default_model_opens_reasoning(
    "qwen3",
    None,
    None,
    "<think>\nI think.\n</think>\n\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::qwen3_thinking_flag_on_without_tags_is_reasoning(
    "qwen3",
    None,
    Some(true),
    "Still thinking",
    Some("Still thinking"),
    None
)]
#[case::qwen3_thinking_flag_on_bare_closer_splits(
    "qwen3",
    None,
    Some(true),
    "I think.</think>Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::qwen3_thinking_flag_on_redundant_opener(
    "qwen3",
    None,
    Some(true),
    "<think>\nI think.</think>Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::qwen3_thinking_off_by_prompt(
    "qwen3",
    Some(THINK_OFF),
    None,
    "Answer.",
    None,
    Some("Answer.")
)]
#[case::qwen3_thinking_off_bare_closer_is_text(
    "qwen3",
    Some(THINK_OFF),
    None,
    "abc</think>def",
    None,
    Some("abc</think>def")
)]
#[case::qwen3_thinking_off_by_flag("qwen3", None, Some(false), "Answer.", None, Some("Answer."))]
#[case::qwen3_prompt_beats_flag(
    "qwen3",
    Some(THINK_OFF),
    Some(true),
    "Answer.",
    None,
    Some("Answer.")
)]
#[case::qwen3_opener_after_content_is_text(
    "qwen3",
    None,
    None,
    "Use <think> tags.",
    None,
    Some("Use <think> tags.")
)]
#[case::qwen3_empty_think_block(
    "qwen3",
    Some(THINK_OFF),
    None,
    "<think>\n\n</think>\n\nAnswer.",
    None,
    Some("Answer.")
)]
#[case::forced_open_only_closer(
    "qwen3-thinking",
    Some(FORCED_OPEN),
    None,
    "I think.\n</think>\n\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::forced_open_default_without_prompt(
    "qwen3-thinking",
    None,
    None,
    "I think.</think>Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::forced_open_truncated_reasoning_stays_reasoning(
    "qwen3-thinking",
    Some(FORCED_OPEN),
    None,
    "I was thinking about",
    Some("I was thinking about"),
    None
)]
#[case::forced_open_redundant_opener(
    "qwen3-thinking",
    Some(FORCED_OPEN),
    None,
    "\n<think>\nI think.</think>\n\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::qwq_thinking_off_by_prompt(
    "qwen3-thinking",
    Some("<|im_start|>assistant\n<think>\n</think>"),
    None,
    "Answer.",
    None,
    Some("Answer.")
)]
#[case::only_first_closer_counts(
    "qwen3-thinking",
    Some(FORCED_OPEN),
    None,
    "a</think>b</think>c",
    Some("a"),
    Some("b</think>c")
)]
#[case::earlier_turns_do_not_count(
    "qwen3",
    Some(
        "<|im_start|>assistant\n<think>\n\n</think>\n\nOld.<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\n"
    ),
    None,
    "R</think>C",
    Some("R"),
    Some("C")
)]
#[case::end_tokens_are_dropped(
    "qwen3-thinking",
    Some(FORCED_OPEN),
    None,
    "R<|endoftext|></think>C<|im_end|>",
    Some("R"),
    Some("C")
)]
#[case::instruct_2507_never_reasons(
    "qwen3-instruct-2507",
    Some(FORCED_OPEN),
    Some(true),
    "<think>x</think>y",
    None,
    Some("<think>x</think>y")
)]
#[case::qwen25_never_reasons("qwen2.5", None, Some(true), "a</think>b", None, Some("a</think>b"))]
#[case::qwen35_forced_open_by_default(
    "qwen3.5",
    None,
    None,
    "I think.\n</think>\n\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::qwen35_thinking_off_by_prompt(
    "qwen3.5",
    Some(THINK_OFF),
    None,
    "Answer.",
    None,
    Some("Answer.")
)]
#[case::qwen3_coder_default_is_content("qwen3-coder", None, None, "Answer.", None, Some("Answer."))]
#[case::look_alike_markers_are_text(
    "qwen3",
    None,
    None,
    "a < b, <tool>, <tool_cal and <|im_",
    None,
    Some("a < b, <tool>, <tool_cal and <|im_")
)]
fn reasoning_split(
    #[case] parser: &str,
    #[case] tail: Option<&str>,
    #[case] thinking: Option<bool>,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let message = run(parser, prompt_options(tail, thinking), output);
    check_row(&message, reasoning, content, &[]);
}

#[rstest]
#[case::forced_open(vec![151644, 77091, 198, 151667, 198], Stage::Reasoning)]
#[case::thinking_off(vec![151644, 77091, 198, 151667, 271, 151668, 271], Stage::Content)]
#[case::plain_turn(vec![151667, 151668, 151644, 77091, 198], Stage::Content)]
fn stage_from_prompt_token_ids(#[case] ids: Vec<u32>, #[case] stage: Stage) {
    let table = Arc::new(SpecialTokens::from_pairs([
        (151644, "<|im_start|>"),
        (151645, "<|im_end|>"),
        (151667, "<think>"),
        (151668, "</think>"),
    ]));
    // `plain_turn`: a think block before the last turn start does not count; qwen3's default applies.
    let entry = find_by_name("qwen3").unwrap();
    let options = ParseOptions::new().with_prompt_token_ids(ids, table);
    assert_eq!(entry.parser(&options).stage(), stage);
}

const CALL: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const XML_CALL: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";

// Calls and reasoning (DESIGN §4.8): markup inside closed reasoning is reasoning text; a block that ends
// the output while reasoning is open is a call (held until then).
#[rstest]
#[case::closed_reasoning_then_call(&format!("<think>Plan.</think>\n\n{CALL}"), Some("Plan."), None, 1)]
#[case::block_inside_closed_reasoning_is_reasoning(
    &format!("<think>Maybe {CALL} no.</think>Done."),
    Some(&format!("Maybe {CALL} no.") as &str), Some("Done."), 0)]
#[case::block_then_closer_is_reasoning(
    &format!("<think>Maybe {CALL}</think>Done."),
    Some(&format!("Maybe {CALL}") as &str), Some("Done."), 0)]
#[case::block_ending_the_output_inside_reasoning_is_a_call(
    &format!("<think>I need the weather.\n\n{CALL}"), Some("I need the weather."), None, 1)]
#[case::block_then_end_token_is_still_a_call(
    &format!("<think>I need the weather.\n\n{CALL}<|im_end|>"), Some("I need the weather."), None, 1)]
#[case::two_blocks_ending_the_output_are_calls(
    &format!("<think>Two cities.\n{CALL}\n{CALL}\n"), Some("Two cities."), None, 2)]
#[case::block_followed_by_more_reasoning_is_reasoning(
    &format!("<think>Maybe {CALL} then more thoughts"),
    Some(&format!("Maybe {CALL} then more thoughts") as &str), None, 0)]
#[case::xml_block_ending_the_output_inside_reasoning_is_a_call(
    &format!("<think>Reading.\n\n{XML_CALL}"), Some("Reading."), None, 1)]
#[case::unclosed_opener_inside_reasoning_is_reasoning(
    "<think>I could use <tool_call> here.</think>No.",
    Some("I could use <tool_call> here."),
    Some("No."),
    0
)]
fn calls_and_reasoning(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: usize,
) {
    let message = run("qwen3", prompt_options(Some(PLAIN_TAIL), None), output);
    let expected: Vec<RowCall> = (0..calls)
        .map(|_| RowCall::Valid("get_weather", "{\"city\": \"Paris\"}"))
        .collect();
    check_row(&message, reasoning, content, &expected);
}

// An end token inside a value is the value's text (Qwen3-Coder values are raw text), whether the call
// follows `</think>` or is held in open reasoning until it ends the output (found by the fuzzer).
#[rstest]
#[case::after_the_closer("<think>Plan.</think>")]
#[case::held_in_open_reasoning("<think>Plan.")]
fn end_token_inside_a_value_is_kept(
    #[case] before: &str,
    #[values(
        ("<|im_end|>", "{\"s\": \"a<|im_end|>b\"}"),
        ("<|endoftext|>", "{\"s\": \"a<|endoftext|>b\"}")
    )]
    token: (&str, &'static str),
) {
    let (token, arguments) = token;
    let output = format!(
        "{before}\n<tool_call>\n<function=f>\n<parameter=s>\na{token}b\n</parameter>\n</function>\n</tool_call>{token}"
    );
    let message = run(
        "qwen3-coder",
        prompt_options(Some(PLAIN_TAIL), None),
        &output,
    );
    check_row(
        &message,
        Some("Plan."),
        None,
        &[RowCall::Valid("f", arguments)],
    );
}

#[test]
fn forced_open_call_without_closer_is_a_call() {
    let output = format!("The user wants the weather.\n\n{CALL}");
    for parser in ["qwen3-thinking", "qwen3.5"] {
        let message = run(parser, prompt_options(Some(FORCED_OPEN), None), &output);
        check_row(
            &message,
            Some("The user wants the weather."),
            None,
            &[RowCall::Valid("get_weather", "{\"city\": \"Paris\"}")],
        );
    }
}

// Hermes-style calls: shapes, JSON-aware boundaries, raw arguments, degradation (DESIGN §4.3–4.6).
#[rstest]
#[case::with_newlines(CALL, None, vec![RowCall::Valid("get_weather", "{\"city\": \"Paris\"}")])]
#[case::without_newlines(
    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>",
    None, vec![RowCall::Valid("f", "{\"a\": 1}")])]
#[case::several_in_a_row_keep_order(
    "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": [1, {\"y\": null}]}}\n</tool_call>\n<tool_call>\n{\"name\": \"c\", \"arguments\": {\"t\": true}}\n</tool_call>",
    None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{\"x\": [1, {\"y\": null}]}"), RowCall::Valid("c", "{\"t\": true}")])]
#[case::content_before_between_and_after(
    "Before. <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> Between. <tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call> After.",
    Some("Before.  Between.  After."), vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{}")])]
#[case::string_arguments_are_decoded(
    "<tool_call>\n{\"name\": \"f\", \"arguments\": \"{\\\"city\\\": \\\"北京\\\", \\\"q\\\": \\\"a\\\\\\\"b\\\", \\\"e\\\": \\\"\\ud83d\\ude00\\\"}\"}\n</tool_call>",
    None, vec![RowCall::Valid("f", "{\"city\": \"北京\", \"q\": \"a\\\"b\", \"e\": \"😀\"}")])]
#[case::markers_and_braces_inside_strings(
    "<tool_call>{\"name\": \"f\", \"arguments\": {\"code\": \"}</tool_call><tool_call>{\\\"}\", \"t\": \"</think>\"}}</tool_call>",
    None, vec![RowCall::Valid("f", "{\"code\": \"}</tool_call><tool_call>{\\\"}\", \"t\": \"</think>\"}")])]
#[case::unicode_kept_exactly(
    "<tool_call>{\"name\": \"翻译\", \"arguments\": {\"text\": \"北京 😀 é\", \"u\": \"\\u00e9\"}}</tool_call>",
    None, vec![RowCall::Valid("翻译", "{\"text\": \"北京 😀 é\", \"u\": \"\\u00e9\"}")])]
#[case::key_order_and_big_numbers_kept(
    "<tool_call>{\"name\": \"f\", \"arguments\": {\"z\": 1, \"a\": 123456789012345678901234, \"f\": 1.50}}</tool_call>",
    None, vec![RowCall::Valid("f", "{\"z\": 1, \"a\": 123456789012345678901234, \"f\": 1.50}")])]
#[case::pretty_printed(
    "<tool_call>\n{\n    \"name\": \"f\",\n    \"arguments\": {\n        \"a\": [1, 2]\n    }\n}\n</tool_call>",
    None, vec![RowCall::Valid("f", "{\n        \"a\": [1, 2]\n    }")])]
#[case::arguments_before_name(
    "<tool_call>{\"arguments\": {\"q\": \"x\"}, \"name\": \"search\"}</tool_call>",
    None, vec![RowCall::Valid("search", "{\"q\": \"x\"}")])]
#[case::parameters_is_arguments(
    "<tool_call>{\"name\": \"f\", \"parameters\": {\"a\": 1}}</tool_call>",
    None, vec![RowCall::Valid("f", "{\"a\": 1}")])]
#[case::no_arguments_is_empty_object(
    "<tool_call>{\"name\": \"now\"}</tool_call>",
    None, vec![RowCall::Valid("now", "{}")])]
#[case::truncated_mid_arguments_stays_flagged(
    "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par",
    Some("Checking."), vec![RowCall::Invalid("get_weather")])]
#[case::committed_at_the_complete_name(
    "<tool_call>\n{\"name\": \"get_weather\"",
    None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_before_the_name_is_content(
    "Checking.\n<tool_call>\n{\"name\": \"get_wea",
    Some("Checking.\n<tool_call>\n{\"name\": \"get_wea"), vec![])]
#[case::cut_after_the_opener_is_content(
    "Checking.<tool_call>\n",
    Some("Checking.<tool_call>"), vec![])]
#[case::opener_followed_by_prose_is_content(
    "<tool_call>\nThis is not a call",
    Some("<tool_call>\nThis is not a call"), vec![])]
#[case::object_without_a_name_is_content(
    "<tool_call>{\"foo\": 1}</tool_call>",
    Some("<tool_call>{\"foo\": 1}</tool_call>"), vec![])]
#[case::object_without_opener_is_content(
    "{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
    Some("{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"), vec![])]
#[case::invalid_json_keeps_the_other_calls(
    "<tool_call>{\"name\": \"a\", \"arguments\": {broken}}</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": {\"ok\": 1}}</tool_call>",
    None, vec![RowCall::Invalid("a"), RowCall::Valid("b", "{\"ok\": 1}")])]
#[case::bare_string_arguments_are_invalid(
    "<tool_call>{\"name\": \"f\", \"arguments\": \"hello\"}</tool_call>",
    None, vec![RowCall::Invalid("f")])]
#[case::missing_block_end_before_the_next_block(
    "<tool_call>{\"name\": \"a\", \"arguments\": {}}\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
    None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{}")])]
#[case::missing_block_end_at_the_end(
    "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"k\": 1}}",
    None, vec![RowCall::Valid("a", "{\"k\": 1}")])]
// Issue 18: a call missing only its final closer is complete, also when the output ends inside it.
#[case::cut_inside_the_block_end(
    "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"k\": 1}}\n</tool_",
    None, vec![RowCall::Valid("a", "{\"k\": 1}")])]
#[case::cut_at_the_block_end_start(
    "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"k\": 1}}\n<",
    None, vec![RowCall::Valid("a", "{\"k\": 1}")])]
#[case::two_objects_in_one_block(
    "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>",
    None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{}")])]
#[case::text_after_the_object_without_block_end(
    "<tool_call>{\"name\": \"a\", \"arguments\": {}}\nDone.",
    Some("Done."), vec![RowCall::Valid("a", "{}")])]
#[case::end_token_after_the_call(
    "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call><|im_end|>",
    None, vec![RowCall::Valid("a", "{}")])]
#[case::xml_shape_inside_a_hermes_block(XML_CALL,
    None, vec![RowCall::Valid("get_weather", "{\"city\": \"Paris\"}")])]
#[case::bare_function_is_content_for_hermes(
    "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>",
    Some("<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"), vec![])]
#[case::dotted_and_dashed_names(
    "<tool_call>{\"name\": \"api.search-v2\", \"arguments\": {}}</tool_call>",
    None, vec![RowCall::Valid("api.search-v2", "{}")])]
fn hermes_calls(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run("qwen3", prompt_options(Some(PLAIN_TAIL), None), output);
    check_row(&message, None, content, &calls);
}

fn schema() -> Arc<Tools> {
    Arc::new(
        Tools::from_json(
            &serde_json::json!([{"type": "function", "function": {"name": "ship", "parameters": {
            "type": "object", "properties": {
                "zip": {"type": "string"},
                "count": {"type": "integer"},
                "weight": {"type": "number"},
                "express": {"type": "boolean"},
                "meta": {"type": "object"},
                "tags": {"type": "array"},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "note": {"type": "string", "nullable": true},
                "code": {"type": "string"},
                "html": {"type": "object"}
            }}}}]),
        )
        .unwrap(),
    )
}

/// One XML call of `ship` with one parameter, the value written with the template's framing newlines.
fn ship(param: &str, value: &str) -> String {
    format!(
        "<tool_call>\n<function=ship>\n<parameter={param}>\n{value}\n</parameter>\n</function>\n</tool_call>"
    )
}

// Qwen3-Coder values typed by the request's schema (DESIGN §4.8).
#[rstest]
#[case::integer("count", "3", "{\"count\": 3}")]
#[case::integer_from_float_text("count", "140.0", "{\"count\": 140}")]
#[case::number("weight", "2.50", "{\"weight\": 2.50}")]
#[case::boolean_true("express", "True", "{\"express\": true}")]
#[case::boolean_false("express", "False", "{\"express\": false}")]
#[case::object("meta", "{\"a\": [1, 2]}", "{\"meta\": {\"a\": [1, 2]}}")]
#[case::array("tags", "[\"x\", \"y\"]", "{\"tags\": [\"x\", \"y\"]}")]
#[case::any_of_null("limit", "null", "{\"limit\": null}")]
#[case::any_of_integer("limit", "7", "{\"limit\": 7}")]
#[case::nullable_string_null("note", "null", "{\"note\": null}")]
#[case::nullable_string_text("note", "fragile", "{\"note\": \"fragile\"}")]
#[case::string_stays_string("zip", "02134", "{\"zip\": \"02134\"}")]
#[case::string_true_stays_string("zip", "true", "{\"zip\": \"true\"}")]
#[case::failed_coercion_keeps_string("count", "many", "{\"count\": \"many\"}")]
// Issue 18: integers as Python's `int()` (vLLM's parser) reads them; what it refuses stays a string.
#[case::integer_leading_zeros("count", "007", "{\"count\": 7}")]
#[case::integer_negative_leading_zeros("count", "-007", "{\"count\": -7}")]
#[case::integer_plus_sign("count", "+7", "{\"count\": 7}")]
#[case::integer_underscores("count", "1_000", "{\"count\": 1000}")]
#[case::integer_hex_stays_string("count", "0x1F", "{\"count\": \"0x1F\"}")]
#[case::integer_null_stays_string("count", "null", "{\"count\": \"null\"}")]
#[case::boolean_invalid_stays_string("express", "yes", "{\"express\": \"yes\"}")]
#[case::any_of_null_integer_leading_zeros("limit", "007", "{\"limit\": 7}")]
#[case::undeclared_param_stays_string("extra", "42", "{\"extra\": \"42\"}")]
#[case::string_escaped(
    "code",
    "say \"hi\"\n\tC:\\dir 北京",
    "{\"code\": \"say \\\"hi\\\"\\n\\tC:\\\\dir 北京\"}"
)]
#[case::literal_closer_in_a_string("code", "a</parameter>b", "{\"code\": \"a</parameter>b\"}")]
#[case::literal_closer_then_newline_in_a_string(
    "code",
    "x = '</parameter>'\ny = 1",
    "{\"code\": \"x = '</parameter>'\\ny = 1\"}"
)]
#[case::literal_closer_in_an_object(
    "html",
    "{\"s\": \"</parameter> x\"}",
    "{\"html\": {\"s\": \"</parameter> x\"}}"
)]
#[case::one_framing_newline_each_end("code", "\nkeep one\n", "{\"code\": \"\\nkeep one\\n\"}")]
#[case::inner_whitespace_kept("code", "  spaced  ", "{\"code\": \"  spaced  \"}")]
#[case::empty_value("code", "", "{\"code\": \"\"}")]
fn xml_values_typed_by_schema(#[case] param: &str, #[case] value: &str, #[case] arguments: &str) {
    let output = ship(param, value);
    let message = run(
        "qwen3-coder",
        ParseOptions::new().with_tools(schema()),
        &output,
    );
    check_row(
        &message,
        None,
        None,
        &[RowCall::Valid("ship", leak(arguments))],
    );
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

// Qwen3-Coder call shapes and degradation (DESIGN §4.6).
#[rstest]
#[case::two_params(
    "<tool_call>\n<function=ship>\n<parameter=zip>\n02134\n</parameter>\n<parameter=count>\n2\n</parameter>\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("ship", "{\"zip\": \"02134\", \"count\": 2}")])]
#[case::without_newlines(
    "<tool_call><function=ship><parameter=zip>1</parameter><parameter=count>2</parameter></function></tool_call>",
    None, vec![RowCall::Valid("ship", "{\"zip\": \"1\", \"count\": 2}")])]
#[case::missing_tool_call_opener(
    "Shipping.\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</function>",
    Some("Shipping."), vec![RowCall::Valid("ship", "{\"count\": 2}")])]
#[case::no_parameters(
    "<tool_call>\n<function=now>\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("now", "{}")])]
#[case::closer_before_the_next_parameter_ends_the_value(
    "<tool_call>\n<function=ship>\n<parameter=code>\nx</parameter>\n<parameter=count>\n2\n</parameter>\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("ship", "{\"code\": \"x\", \"count\": 2}")])]
#[case::missing_parameter_closer(
    "<tool_call>\n<function=ship>\n<parameter=code>\nx\n<parameter=count>\n2\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("ship", "{\"code\": \"x\", \"count\": 2}")])]
#[case::missing_function_closer(
    "<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</tool_call>",
    None, vec![RowCall::Valid("ship", "{\"count\": 2}")])]
#[case::two_functions_in_one_block(
    "<tool_call>\n<function=now>\n</function>\n<function=ship>\n<parameter=count>\n1\n</parameter>\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("now", "{}"), RowCall::Valid("ship", "{\"count\": 1}")])]
#[case::parallel_blocks_with_text(
    "A <tool_call>\n<function=now>\n</function>\n</tool_call> B <tool_call>\n<function=now>\n</function>\n</tool_call> C",
    Some("A  B  C"), vec![RowCall::Valid("now", "{}"), RowCall::Valid("now", "{}")])]
#[case::truncated_inside_a_value(
    "<tool_call>\n<function=ship>\n<parameter=code>\nprint(",
    None, vec![RowCall::Invalid("ship")])]
#[case::truncated_after_a_parameter(
    "<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n",
    None, vec![RowCall::Invalid("ship")])]
// Issue 18: a call missing only its final `</tool_call>` is complete, also when the output ends inside
// it; one that lacks its `</function>` too stays flagged, without a fragment of a cut-off tag.
#[case::missing_block_end_at_the_end(
    "<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</function>",
    None, vec![RowCall::Valid("ship", "{\"count\": 2}")])]
#[case::cut_inside_the_block_end(
    "<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</function>\n</tool_",
    None, vec![RowCall::Valid("ship", "{\"count\": 2}")])]
#[case::cut_inside_the_function_end(
    "<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</func",
    None, vec![RowCall::Invalid("ship")])]
#[case::truncated_inside_a_parameter_tag(
    "<tool_call>\n<function=ship>\n<parameter=cou",
    None, vec![RowCall::Invalid("ship")])]
#[case::cut_inside_the_function_tag_is_content(
    "Hi<tool_call>\n<function=shi",
    Some("Hi<tool_call>\n<function=shi"), vec![])]
#[case::bad_function_tag_is_content(
    "<tool_call>\n<function=two words>\n</function>\n</tool_call>",
    Some("<tool_call>\n<function=two words>\n</function>\n</tool_call>"), vec![])]
#[case::junk_in_the_body_flags_the_call(
    "<tool_call>\n<function=ship>\nnot a parameter\n</function>\n</tool_call>after",
    Some("after"), vec![RowCall::Invalid("ship")])]
#[case::json_shape_inside_an_xml_block(
    "<tool_call>\n{\"name\": \"ship\", \"arguments\": {\"count\": 2}}\n</tool_call>",
    None, vec![RowCall::Valid("ship", "{\"count\": 2}")])]
#[case::unknown_function_values_stay_strings(
    "<tool_call>\n<function=other>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("other", "{\"n\": \"5\"}")])]
#[case::markup_inside_a_string_value(
    "<tool_call>\n<function=ship>\n<parameter=code>\n<tool_call>{\"name\": \"x\"}<function=y>\n</parameter>\n</function>\n</tool_call>",
    None, vec![RowCall::Valid("ship", "{\"code\": \"<tool_call>{\\\"name\\\": \\\"x\\\"}<function=y>\"}")])]
fn xml_calls(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    let message = run(
        "qwen3-coder",
        ParseOptions::new().with_tools(schema()),
        output,
    );
    check_row(&message, None, content, &calls);
}

// FastDeploy's strict rule set, as a policy: once visible content is written, later call markup is text.
#[rstest]
#[case::whitespace_before_the_call_is_fine(&format!("<think>R</think>\n\n{CALL}"), None, 1)]
#[case::text_before_the_call_makes_it_content(
    &format!("<think>R</think>EFG\n{CALL}"), Some(&format!("EFG\n{CALL}") as &str), 0)]
#[case::text_between_calls_stops_call_parsing(
    &format!("<think>R</think>{CALL}\nXYZ\n{CALL}"), Some(&format!("XYZ\n{CALL}") as &str), 1)]
fn strict_tool_position_policy(
    #[case] output: &str,
    #[case] content: Option<&str>,
    #[case] calls: usize,
) {
    let strict = prompt_options(Some(PLAIN_TAIL), None).with_policy(Policy {
        strict_tool_position: true,
        ..Policy::default()
    });
    let message = run("qwen3", strict, output);
    assert_eq!(message.reasoning_trimmed(), Some("R"));
    assert_eq!(message.content_trimmed(), content);
    assert_eq!(message.tool_calls.len(), calls);
}

// `reasoning_format: none`: reasoning stays inline in content, markers included; calls are still calls,
// and tool markup inside reasoning is still not a call.
#[rstest]
#[case::model_opened(
    "qwen3",
    PLAIN_TAIL,
    "<think>Hmm.</think>Yes.",
    "<think>Hmm.</think>Yes.",
    0
)]
#[case::forced_open(
    "qwen3-thinking",
    FORCED_OPEN,
    "Hmm.</think>Yes.",
    "Hmm.</think>Yes.",
    0
)]
#[case::then_call("qwen3-thinking", FORCED_OPEN, &format!("Hmm.</think>{CALL}"), "Hmm.</think>", 1)]
#[case::markup_in_closed_reasoning("qwen3-thinking", FORCED_OPEN,
    &format!("Maybe {CALL}</think>No."), &format!("Maybe {CALL}</think>No.") as &str, 0)]
fn inline_reasoning(
    #[case] parser: &str,
    #[case] tail: &str,
    #[case] output: &str,
    #[case] content: &str,
    #[case] calls: usize,
) {
    let inline = prompt_options(Some(tail), None).with_reasoning_format(ReasoningFormat::Inline);
    let message = run(parser, inline, output);
    assert_eq!(message.reasoning, None);
    assert_eq!(message.content_trimmed(), Some(content));
    assert_eq!(message.tool_calls.len(), calls);
}

/// Streams `output` one character at a time and returns the events.
fn events(parser: &str, options: &ParseOptions, output: &str) -> Vec<String> {
    let entry = find_by_name(parser).unwrap();
    let mut parser = entry.parser(options);
    let mut seen = Vec::new();
    let mut record = |deltas: &parser_core::Deltas| {
        for delta in deltas.iter() {
            seen.push(match delta {
                Delta::Reasoning(t) => format!("R:{t}"),
                Delta::Content(t) => format!("C:{t}"),
                Delta::ToolCallStart { index, name, .. } => format!("S{index}:{name}"),
                Delta::ToolCallArguments { index, fragment } => format!("A{index}:{fragment}"),
                Delta::ToolCallEnd { index, valid } => format!("E{index}:{valid}"),
            });
        }
    };
    for (at, c) in output.char_indices() {
        record(parser.push(&output[at..at + c.len_utf8()]));
    }
    record(parser.finish());
    seen
}

const LONG: &str = "0123456789012345678901234567890123456789";

// Arguments stream as they arrive: with one character per delta, a long argument comes in many fragments,
// not in one piece at the end; each call starts and ends once, and the fragments concatenate to the final
// arguments.
#[rstest]
#[case::hermes_object(
    "qwen3",
    format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"content\": \"{LONG}\"}}}}\n</tool_call>")
)]
#[case::hermes_string_arguments(
    "qwen3",
    format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": \"{{\\\"content\\\": \\\"{LONG}\\\"}}\"}}\n</tool_call>")
)]
#[case::xml_string_value(
    "qwen3-coder",
    format!("<tool_call>\n<function=write>\n<parameter=content>\n{LONG}\n</parameter>\n</function>\n</tool_call>")
)]
#[case::xml_bare_function(
    "qwen3.5",
    format!("</think><function=write>\n<parameter=content>\n{LONG}\n</parameter>\n</function>")
)]
fn arguments_stream_as_they_arrive(#[case] parser: &str, #[case] output: String) {
    let options = ParseOptions::new().with_call_id_seed(3);
    let seen = events(parser, &options, &output);
    let fragments: Vec<&str> = seen.iter().filter_map(|e| e.strip_prefix("A0:")).collect();
    assert!(
        fragments.len() >= LONG.len(),
        "only {} argument fragments: {seen:?}",
        fragments.len()
    );
    assert_eq!(seen.iter().filter(|e| e.starts_with("S0:")).count(), 1);
    assert_eq!(seen.iter().filter(|e| e.starts_with("E0:")).count(), 1);
    assert!(seen.last().is_some_and(|e| e == "E0:true"), "{seen:?}");
    let message = find_by_name(parser)
        .unwrap()
        .parser(&options)
        .parse(&output);
    assert_eq!(fragments.concat(), message.tool_calls[0].arguments);
    assert_eq!(
        message.tool_calls[0].arguments,
        format!("{{\"content\": \"{LONG}\"}}")
    );
}

// Several calls in a row: indices 0, 1, 2 in order, each started and ended once, in both shapes.
#[rstest]
#[case::hermes(
    "qwen3",
    "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": {\"x\": 1}}</tool_call><tool_call>{\"name\": \"c\"}</tool_call>"
)]
#[case::xml(
    "qwen3-coder",
    "<tool_call>\n<function=a>\n</function>\n</tool_call>\n<tool_call>\n<function=b>\n<parameter=x>\n1\n</parameter>\n</function>\n<function=c>\n</function>\n</tool_call>"
)]
fn several_calls_stream_with_their_indices(#[case] parser: &str, #[case] output: &str) {
    let seen = events(parser, &ParseOptions::new(), output);
    let calls: Vec<&String> = seen
        .iter()
        .filter(|e| e.starts_with('S') || e.starts_with('E'))
        .collect();
    assert_eq!(
        calls,
        ["S0:a", "E0:true", "S1:b", "E1:true", "S2:c", "E2:true"],
        "{seen:?}"
    );
}

#[test]
fn non_string_values_are_written_when_the_parameter_closes() {
    let options = ParseOptions::new().with_tools(schema());
    let output = "<tool_call>\n<function=ship>\n<parameter=count>\n12345\n</parameter>\n</function>\n</tool_call>";
    let seen = events("qwen3-coder", &options, output);
    // Written whole, once `</parameter>` is known to close it (the closer counts only before the next tag).
    assert!(seen.iter().any(|e| e.starts_with("A0:12345")), "{seen:?}");
    assert!(!seen.iter().any(|e| e == "A0:1"), "{seen:?}");
}

// No fragment of a marker ever reaches content, reasoning or arguments, at any split.
#[test]
fn split_markers_never_leak() {
    let output = format!("<think>Thinking hard.</think>Here.{CALL}<|im_end|>");
    let entry = find_by_name("qwen3").unwrap();
    let options = prompt_options(Some(PLAIN_TAIL), None).with_call_id_seed(1);
    for (cut, message) in three_way_splits(&|| entry.parser(&options), &output) {
        assert_eq!(
            message.reasoning.as_deref(),
            Some("Thinking hard."),
            "cut {cut}"
        );
        assert_eq!(message.content.as_deref(), Some("Here."), "cut {cut}");
        assert_eq!(message.tool_calls.len(), 1, "cut {cut}");
        assert_eq!(message.tool_calls[0].arguments, "{\"city\": \"Paris\"}");
    }
}

#[test]
fn pushes_after_finish_do_nothing() {
    let entry = find_by_name("qwen3").unwrap();
    // The `<` could have started a marker: it is held until the end.
    check_finish_is_final(entry.parser(&ParseOptions::new()), "Hello <");
}

#[test]
fn generated_ids_are_stable_within_a_request_and_differ_across_requests() {
    let entry = find_by_name("qwen3").unwrap();
    check_generated_ids(&|options| entry.parser(options), CALL);
}

// Every registered Qwen parser's sample, cut in three at every pair of character boundaries (the second
// cut in steps of 5): the same message as one-shot. Each sample holds the family's markers in context, so
// every marker is split at every position of it.
#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(check_sample_splits("qwen"), 6);
}

// Model ids resolve to the most specific parser (the longest normalised pattern wins, across families).
#[rstest]
#[case("Qwen/Qwen2.5-7B-Instruct", "qwen2.5")]
#[case("Qwen/Qwen2.5-Coder-32B-Instruct-AWQ", "qwen2.5")]
#[case("Qwen/Qwen2-7B-Instruct", "qwen2.5")]
#[case("Qwen/Qwen3-8B", "qwen3")]
#[case("Qwen/Qwen3-32B", "qwen3")]
#[case("Qwen/Qwen3-30B-A3B", "qwen3")]
#[case("Qwen/Qwen3-235B-A22B-FP8", "qwen3")]
#[case("unsloth/Qwen3-8B-GGUF", "qwen3")]
#[case("Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3-thinking")]
#[case("Qwen/QwQ-32B", "qwen3-thinking")]
#[case("Qwen/QwQ-32B-AWQ", "qwen3-thinking")]
#[case("Qwen/Qwen3-30B-A3B-Thinking-2507", "qwen3-thinking")]
#[case("Qwen/Qwen3-4B-Thinking-2507-FP8", "qwen3-thinking")]
#[case("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-30B-A3B-Instruct-2507", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder")]
#[case("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3-coder")]
#[case("Qwen/Qwen3.5-397B-A17B", "qwen3.5")]
// Issue 18: Qwen3-VL's Instruct models never think, its Thinking models are forced open; Qwen3.6 is
// Qwen3.5's format.
#[case("Qwen/Qwen3-VL-2B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-4B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-8B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-8B-Instruct-FP8", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-32B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-30B-A3B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-235B-A22B-Instruct", "qwen3-instruct-2507")]
#[case("unsloth/Qwen3-VL-8B-Instruct-GGUF", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-2B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-VL-4B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-VL-8B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-VL-32B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-VL-30B-A3B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-VL-235B-A22B-Thinking-FP8", "qwen3-thinking")]
#[case("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-Next-80B-A3B-Thinking-FP8", "qwen3-thinking")]
#[case("Qwen/Qwen3.5-27B", "qwen3.5")]
#[case("Qwen/Qwen3.6-35B-A3B", "qwen3.5")]
#[case("Qwen/Qwen-7B-Chat", "qwen3")]
// MiMo-VL's template is Qwen2.5's.
#[case("XiaomiMiMo/MiMo-VL-7B-RL", "qwen2.5")]
#[case("XiaomiMiMo/MiMo-VL-7B-SFT-2508", "qwen2.5")]
#[case("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1")]
#[case("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "deepseek-r1")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    let qwen_parser = parser_qwen_names().contains(&parser);
    if qwen_parser {
        let entry = find_for_model(model).unwrap();
        assert_eq!(entry.name, parser, "{model}");
        return;
    }
    // Another family's parser (not linked into this test): its pattern, the parser's name, must match
    // and be longer than every Qwen pattern that matches, so that it wins across families.
    let name = normalize_model(model);
    let theirs = normalize_name(parser);
    assert!(name.contains(&theirs), "{model}");
    let longest_qwen = parser_core::entries()
        .into_iter()
        .filter(|e| e.family == "qwen")
        .flat_map(|e| e.models.iter())
        .map(|pattern| normalize_name(pattern))
        .filter(|pattern| name.contains(pattern.as_str()))
        .map(|pattern| pattern.len())
        .max()
        .unwrap_or(0);
    assert!(
        longest_qwen < theirs.len(),
        "{model}: a Qwen pattern of {longest_qwen} bytes would beat {parser}"
    );
}

fn parser_qwen_names() -> Vec<&'static str> {
    parser_core::entries()
        .into_iter()
        .filter(|e| e.family == "qwen")
        .map(|e| e.name)
        .collect()
}

#[rstest]
#[case("qwen", "qwen3")]
#[case("qwen25", "qwen2.5")]
#[case("qwen2_5", "qwen2.5")]
#[case("qwen3", "qwen3")]
#[case("qwen3_json", "qwen3")]
#[case("qwen3_coder", "qwen3-coder")]
#[case("qwen3_xml", "qwen3-coder")]
#[case("qwen3-thinking", "qwen3-thinking")]
#[case("qwen3_thinking", "qwen3-thinking")]
#[case("qwq", "qwen3-thinking")]
#[case("qwen3-instruct-2507", "qwen3-instruct-2507")]
#[case("qwen3.5", "qwen3.5")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, failure_persistence: None, ..Default::default() })]

    // Exact hold-back (DESIGN §4.2): after every push, everything has been released except the longest
    // tail that could still become a marker — no more, no less.
    #[test]
    fn content_is_held_back_exactly(
        pieces in proptest::collection::vec("[<|/_toolcaimendftxsr>=n ]{1,4}", 1..40)
    ) {
        use parser_qwen::markers::{FUNCTION, RESERVED, TOOL_CALL};
        for (parser, markers) in [
            ("qwen3", [&[TOOL_CALL][..], RESERVED].concat()),
            ("qwen3-coder", [&[TOOL_CALL, FUNCTION][..], RESERVED].concat()),
        ] {
            let text: String = pieces.concat();
            proptest::prop_assume!(!markers.iter().any(|m| text.contains(m)));
            let entry = find_by_name(parser).unwrap();
            let options = prompt_options(Some(THINK_OFF), None);
            let held_back = check_content_held_back_exactly(entry.parser(&options), "x", &pieces, &markers);
            proptest::prop_assert!(held_back.is_ok(), "{}", held_back.unwrap_err());
        }
    }
}

// The template's own tokens never reach the reply (issue 18): tool-result tags are dropped (the text
// between them stays), and a new turn the model starts ends the output there, unless it is inside a
// call, where special tokens are the call's text.
#[rstest]
#[case::new_turn_after_the_answer(
    "qwen3",
    PLAIN_TAIL,
    "Answer.<|im_end|>\n<|im_start|>user\nAnd more?<|im_end|>",
    None,
    Some("Answer."),
    &[]
)]
#[case::new_turn_inside_reasoning(
    "qwen3",
    FORCED_OPEN,
    "Thinking<|im_start|>user\nNo.</think>Answer.",
    Some("Thinking"),
    None,
    &[]
)]
#[case::new_turn_after_a_call(
    "qwen3",
    PLAIN_TAIL,
    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call><|im_start|>user\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>",
    None,
    None,
    &[RowCall::Valid("f", "{\"a\": 1}")]
)]
#[case::new_turn_inside_a_string_argument_is_text(
    "qwen3",
    PLAIN_TAIL,
    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"<|im_start|>user\"}}\n</tool_call>",
    None,
    None,
    &[RowCall::Valid("f", "{\"s\": \"<|im_start|>user\"}")]
)]
#[case::new_turn_inside_an_xml_value_is_text(
    "qwen3-coder",
    PLAIN_TAIL,
    "<tool_call>\n<function=f>\n<parameter=s>\na<|im_start|>b\n</parameter>\n</function>\n</tool_call>",
    None,
    None,
    &[RowCall::Valid("f", "{\"s\": \"a<|im_start|>b\"}")]
)]
#[case::tool_response_tags_dropped(
    "qwen3",
    PLAIN_TAIL,
    "It said <tool_response>\n{\"t\": 20}\n</tool_response> so 20.",
    None,
    Some("It said \n{\"t\": 20}\n so 20."),
    &[]
)]
#[case::tool_response_tags_dropped_from_reasoning(
    "qwen3-thinking",
    FORCED_OPEN,
    "A<tool_response>B</tool_response>C</think>D",
    Some("ABC"),
    Some("D"),
    &[]
)]
#[case::new_turn_without_a_reasoning_parser(
    "qwen2.5",
    PLAIN_TAIL,
    "Hi.<|im_start|>assistant\nHi again.",
    None,
    Some("Hi."),
    &[]
)]
fn template_tokens_never_reach_the_reply(
    #[case] parser: &str,
    #[case] tail: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: &[RowCall],
) {
    let message = run(parser, prompt_options(Some(tail), None), output);
    check_row(&message, reasoning, content, calls);
}

// Issue 18: no fragment of a tag cut off at the end of the output reaches a call's arguments or the
// content.
#[rstest]
#[case("<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</func")]
#[case("<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n<param")]
#[case("<tool_call>\n<function=ship>\n<parameter=cou")]
#[case("<tool_call>\n<function=ship>\n<parameter=code>\nx\n</param")]
#[case("<tool_call>\n<function=ship>\n<parameter=count>\n2\n</parameter>\n</function>\n</tool_")]
fn cut_off_tags_leave_no_fragment(#[case] output: &str) {
    let message = run(
        "qwen3-coder",
        ParseOptions::new().with_tools(schema()),
        output,
    );
    assert_eq!(message.tool_calls.len(), 1, "{message:#?}");
    let arguments = &message.tool_calls[0].arguments;
    assert!(!arguments.contains('<'), "{output:?}: {arguments}");
    assert_eq!(message.content_trimmed(), None, "{message:#?}");
}

// Issue 18: what a model's parser does with the `<think>` it prints: a model that never thinks keeps it
// as content, a forced-open one reads reasoning up to `</think>`.
#[rstest]
#[case::vl_instruct(
    "Qwen/Qwen3-VL-8B-Instruct",
    "<think>x</think>Answer.",
    None,
    Some("<think>x</think>Answer.")
)]
#[case::next_instruct(
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "<think>x</think>Answer.",
    None,
    Some("<think>x</think>Answer.")
)]
#[case::vl_thinking(
    "Qwen/Qwen3-VL-8B-Thinking",
    "x\n</think>\n\nAnswer.",
    Some("x"),
    Some("Answer.")
)]
#[case::hybrid("Qwen/Qwen3-8B", "<think>x</think>Answer.", Some("x"), Some("Answer."))]
fn models_read_their_own_think_tags(
    #[case] model: &str,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    let parser = find_for_model(model).unwrap().name;
    let message = run(parser, ParseOptions::new(), output);
    check_row(&message, reasoning, content, &[]);
}
