//! Behaviour tables: the harmony mapping and DESIGN.md §4's conventions on GPT-OSS outputs. Every row runs
//! one-shot and under every chunking (whole, 1/2/3/5/8 characters, eight random splits, special tokens
//! whole) and all of them must agree before the row is checked.

use std::sync::Arc;

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_finish_is_final, check_generated_ids, check_row,
    check_sample_splits, must_hold,
};
use parser_core::{
    Accumulator, Delta, ParseOptions, ParsedMessage, ReasoningFormat, SpecialTokens, Stage,
    find_by_name, find_for_model,
};
use parser_gptoss::markers::{SPECIAL_TOKENS, TOKEN_IDS};
use parser_gptoss::{BuiltinTools, HarmonyPolicy, Preamble, gpt_oss_with};
use rstest::rstest;

fn run_with(policy: HarmonyPolicy, options: ParseOptions, output: &str) -> ParsedMessage {
    let options = options.with_call_id_seed(7);
    check_chunkings(
        &|| gpt_oss_with(&options, policy),
        output,
        &Chunking::standard(SPECIAL_TOKENS),
    )
    .unwrap_or_else(|why| panic!("{output:?}: {why}"))
}

fn run(output: &str) -> ParsedMessage {
    run_with(HarmonyPolicy::default(), ParseOptions::new(), output)
}

const ANALYSIS: &str = "<|channel|>analysis<|message|>Need the weather.<|end|>";
const ARGS: &str = "{\"city\": \"Paris\"}";

// Channels: analysis, final, calls (DESIGN §4; ecosystem §3's mapping).
#[rstest]
#[case::analysis_then_final(
    "<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>",
    Some("Simple."), Some("2 + 2 = 4."), vec![])]
#[case::final_only("<|channel|>final<|message|>Hi!<|return|>", None, Some("Hi!"), vec![])]
#[case::stop_tokens_stripped(
    "<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>Four.",
    Some("Simple."), Some("Four."), vec![])]
#[case::call_recipient_in_channel_part_with_constrain(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_constrain_without_space(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_bare_json(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_without_content_type(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_recipient_in_role_part(
    &format!("{ANALYSIS}<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_recipient_in_role_part_bare_json(
    &format!("{ANALYSIS}<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_on_the_analysis_channel(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>analysis to=functions.get_weather<|message|>{ARGS}<|call|>"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_as_the_first_message(
    &format!("<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{ARGS}<|call|>"),
    None, None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_first_with_recipient_in_role_part(
    &format!(" to=functions.get_weather<|channel|>commentary<|message|>{ARGS}"),
    None, None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::call_ended_by_end_instead_of_call(
    &format!("<|channel|>commentary to=functions.get_weather<|message|>{ARGS}<|end|>"),
    None, None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::missing_call_at_end_of_output(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{ARGS}"),
    Some("Need the weather."), None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::missing_call_before_trailing_whitespace(
    &format!("<|channel|>commentary to=functions.get_weather<|message|>{ARGS}\n\n"),
    None, None, vec![RowCall::Valid("get_weather", ARGS)])]
#[case::two_calls_in_a_row(
    "<|channel|>commentary to=functions.a <|constrain|>json<|message|>{}<|call|><|start|>assistant<|channel|>commentary to=functions.b <|constrain|>json<|message|>{\"x\": [1, {\"y\": null}]}<|call|>",
    None, None, vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{\"x\": [1, {\"y\": null}]}")])]
#[case::two_calls_without_call_tokens(
    "<|channel|>commentary to=functions.a<|message|>{\"k\": 1}\n<|start|>assistant to=functions.b<|channel|>commentary<|message|>{\"k\": 2}",
    None, None, vec![RowCall::Valid("a", "{\"k\": 1}"), RowCall::Valid("b", "{\"k\": 2}")])]
#[case::call_then_final(
    &format!("{ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{ARGS}<|call|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>"),
    Some("Need the weather."), Some("It is sunny."), vec![RowCall::Valid("get_weather", ARGS)])]
#[case::dotted_function_name(
    "<|channel|>commentary to=functions.api.v2.lookup<|message|>{}<|call|>",
    None, None, vec![RowCall::Valid("api.v2.lookup", "{}")])]
#[case::pretty_printed_arguments_kept_byte_exact(
    "<|channel|>commentary to=functions.f<|message|>\n{\n  \"z\": 1,\n  \"a\": 123456789012345678901234,\n  \"f\": 1.50\n}\n<|call|>",
    None, None, vec![RowCall::Valid("f", "{\n  \"z\": 1,\n  \"a\": 123456789012345678901234,\n  \"f\": 1.50\n}")])]
fn channels_and_calls(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    check_row(&run(output), reasoning, content, &calls);
}

// JSON-aware boundaries, raw arguments, unicode, degradation (DESIGN §4.3–4.7; painpoints #36–#40,
// #46–#50).
#[rstest]
#[case::braces_and_call_token_inside_strings(
    "<|channel|>commentary to=functions.f<|message|>{\"code\": \"}<|call|>{\\\"\", \"t\": \"<|end|><|start|>assistant<|channel|>final<|message|>\"}<|call|>",
    None, vec![RowCall::Valid("f", "{\"code\": \"}<|call|>{\\\"\", \"t\": \"<|end|><|start|>assistant<|channel|>final<|message|>\"}")])]
#[case::unicode_and_escapes_byte_exact(
    "<|channel|>commentary to=functions.f<|message|>{\"city\": \"北京\", \"e\": \"😀\", \"q\": \"say \\\"hi\\\"\", \"u\": \"\\u00e9\"}<|call|>",
    None, vec![RowCall::Valid("f", "{\"city\": \"北京\", \"e\": \"😀\", \"q\": \"say \\\"hi\\\"\", \"u\": \"\\u00e9\"}")])]
#[case::unicode_function_name(
    "<|channel|>commentary to=functions.météo<|message|>{}<|call|>",
    None, vec![RowCall::Valid("météo", "{}")])]
#[case::not_json_is_kept_invalid(
    "<|channel|>commentary to=functions.f<|message|>foo<|call|>",
    None, vec![RowCall::Invalid("f")])]
#[case::empty_body_is_kept_invalid(
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|><|call|>",
    None, vec![RowCall::Invalid("f")])]
#[case::junk_after_the_object_flags_the_call(
    "<|channel|>commentary to=functions.f<|message|>{\"a\": 1} trailing<|call|>",
    None, vec![RowCall::Invalid("f")])]
#[case::raw_newline_in_a_string_is_invalid_json(
    "<|channel|>commentary to=functions.f<|message|>{\"s\": \"line\nbreak\"}<|call|>",
    None, vec![RowCall::Invalid("f")])]
#[case::truncated_arguments_stay_flagged(
    "<|channel|>commentary to=functions.get_weather<|message|>{\"city\": \"Par",
    None, vec![RowCall::Invalid("get_weather")])]
// Issue 18: a call missing only its `<|call|>` at the end of the output is complete, also when the output
// ends inside it.
#[case::missing_only_the_call_token(
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}",
    None, vec![RowCall::Valid("f", "{\"a\": 1}")])]
#[case::cut_inside_the_call_token(
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|ca",
    None, vec![RowCall::Valid("f", "{\"a\": 1}")])]
#[case::committed_at_the_message_token(
    "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
    None, vec![RowCall::Invalid("get_weather")])]
#[case::invalid_call_keeps_the_next_one(
    "<|channel|>commentary to=functions.a<|message|>{broken}<|call|><|start|>assistant<|channel|>commentary to=functions.b<|message|>{\"ok\": 1}<|call|>",
    None, vec![RowCall::Invalid("a"), RowCall::Valid("b", "{\"ok\": 1}")])]
fn call_arguments(
    #[case] output: &str,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    check_row(&run(output), None, content, &calls);
}

// Messages with no header, missing ends, stray text and overlong headers.
#[rstest]
#[case::no_header_is_content("Hello there.", None, Some("Hello there."))]
#[case::no_header_then_a_message(
    "Let me look.\n<|channel|>final<|message|>Done.<|return|>",
    None,
    Some("Let me look.\nDone.")
)]
#[case::missing_end_before_start(
    "<|channel|>analysis<|message|>Thinking<|start|>assistant<|channel|>final<|message|>Answer",
    Some("Thinking"),
    Some("Answer")
)]
#[case::missing_start_after_end(
    "<|channel|>analysis<|message|>Thinking<|end|>\n<|channel|>final<|message|>Answer",
    Some("Thinking"),
    Some("Answer")
)]
#[case::missing_end_and_start(
    "<|channel|>analysis<|message|>Thinking<|channel|>final<|message|>Answer",
    Some("Thinking"),
    Some("Answer")
)]
#[case::empty_final_then_analysis(
    "<|channel|>final<|message|><|end|><|start|>assistant<|channel|>analysis<|message|>Thinking about edit...",
    Some("Thinking about edit..."),
    None
)]
#[case::look_alike_markers_are_text(
    "<|channel|>final<|message|>a < b, <|weird|> and <|chan and to=x<|return|>",
    None,
    Some("a < b, <|weird|> and <|chan and to=x")
)]
#[case::message_token_inside_a_body_is_text(
    "<|channel|>final<|message|>use <|message|> and <|constrain|> here<|return|>",
    None,
    Some("use <|message|> and <|constrain|> here")
)]
#[case::stray_terminators_are_dropped(
    "<|end|><|channel|>final<|message|>Hi<|end|><|return|>",
    None,
    Some("Hi")
)]
#[case::header_without_body_is_dropped(
    "<|channel|>analysis<|end|><|start|>assistant<|channel|>final<|message|>Hi",
    None,
    Some("Hi")
)]
#[case::header_abandoned_for_a_new_message(
    "<|start|>assistant<|start|>assistant<|channel|>final<|message|>Hi",
    None,
    Some("Hi")
)]
#[case::unknown_channel_is_content("<|channel|>notes<|message|>Hi<|end|>", None, Some("Hi"))]
#[case::no_channel_is_content("<|message|>Hi<|end|>", None, Some("Hi"))]
#[case::unicode_bodies(
    "<|channel|>analysis<|message|>思考中 😀<|end|><|start|>assistant<|channel|>final<|message|>Ça va, 北京!<|return|>",
    Some("思考中 😀"),
    Some("Ça va, 北京!")
)]
fn imperfect_outputs(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    check_row(&run(output), reasoning, content, &[]);
}

#[test]
fn overlong_header_is_content_with_its_opener() {
    let prose = "x".repeat(300);
    let output = format!(
        "<|channel|>analysis {prose}<|end|><|start|>assistant<|channel|>final<|message|>Hi"
    );
    let message = run(&output);
    check_row(
        &message,
        None,
        Some(&format!("<|channel|>analysis {prose}Hi") as &str),
        &[],
    );
    // Just within the limit it is still a header.
    let name = "n".repeat(200);
    let output = format!("<|channel|>commentary to=functions.{name}<|message|>{{}}<|call|>");
    assert_eq!(run(&output).tool_calls[0].name, name);
}

// Preambles and built-in tools, under the default policy and with the switches flipped.
#[rstest]
#[case::preamble_is_content(
    HarmonyPolicy::default(),
    "<|channel|>commentary<|message|>**Action plan**: 1. Do X 2. Do Y<|end|>",
    None, Some("**Action plan**: 1. Do X 2. Do Y"), vec![])]
#[case::preamble_as_reasoning(
    HarmonyPolicy::default().with_preamble(Preamble::Reasoning),
    "<|channel|>commentary<|message|>**Action plan**: 1. Do X 2. Do Y<|end|>",
    Some("**Action plan**: 1. Do X 2. Do Y"), None, vec![])]
#[case::preamble_then_call(
    HarmonyPolicy::default(),
    "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.calc<|constrain|>json<|message|>{\"x\": 5}<|call|>",
    None, Some("Checking."), vec![RowCall::Valid("calc", "{\"x\": 5}")])]
#[case::builtin_browser_is_reasoning(
    HarmonyPolicy::default(),
    "<|channel|>analysis<|message|>Search it.<|end|><|start|>assistant<|channel|>analysis to=browser.search <|constrain|>json<|message|>{\"query\": \"rust\"}<|call|>",
    Some("Search it.{\"query\": \"rust\"}"), None, vec![])]
#[case::builtin_python_is_reasoning(
    HarmonyPolicy::default(),
    "<|channel|>analysis to=python code<|message|>print(1 + 1)<|call|>",
    Some("print(1 + 1)"), None, vec![])]
#[case::builtin_browser_surfaced(
    HarmonyPolicy::default().with_builtin_tools(BuiltinTools::Calls),
    "<|channel|>analysis<|message|>Search it.<|end|><|start|>assistant<|channel|>analysis to=browser.search <|constrain|>json<|message|>{\"query\": \"rust\"}<|call|>",
    Some("Search it."), None, vec![RowCall::Valid("browser.search", "{\"query\": \"rust\"}")])]
#[case::builtin_python_surfaced_is_an_invalid_call(
    HarmonyPolicy::default().with_builtin_tools(BuiltinTools::Calls),
    "<|channel|>analysis to=python code<|message|>print(1 + 1)<|call|>",
    None, None, vec![RowCall::Invalid("python")])]
#[case::empty_function_name_is_not_a_function(
    HarmonyPolicy::default(),
    "<|channel|>commentary to=functions.<|message|>{}<|call|>",
    Some("{}"), None, vec![])]
#[case::functions_are_calls_under_every_policy(
    HarmonyPolicy::default().with_builtin_tools(BuiltinTools::Calls).with_preamble(Preamble::Reasoning),
    "<|channel|>commentary to=functions.f<|message|>{}<|call|>",
    None, None, vec![RowCall::Valid("f", "{}")])]
fn policies(
    #[case] policy: HarmonyPolicy,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    check_row(
        &run_with(policy, ParseOptions::new(), output),
        reasoning,
        content,
        &calls,
    );
}

// Truncated inside the body of each kind of message: the text stays in its message's field.
#[rstest]
#[case::analysis_body("<|channel|>analysis<|message|>I was thinking about", Some("I was thinking about"), None, vec![])]
#[case::final_body(
    "<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>The answer is",
    Some("R"), Some("The answer is"), vec![])]
#[case::preamble_body("<|channel|>commentary<|message|>First I will", None, Some("First I will"), vec![])]
#[case::builtin_body("<|channel|>analysis to=browser.search<|message|>{\"query\": \"ru", Some("{\"query\": \"ru"), None, vec![])]
#[case::call_body("<|channel|>commentary to=functions.f<|message|>{\"query\": \"ru", None, None, vec![RowCall::Invalid("f")])]
#[case::no_header_body("Plain text cut", None, Some("Plain text cut"), vec![])]
fn truncated_bodies(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    check_row(&run(output), reasoning, content, &calls);
}

const SAMPLE: &str = "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|><|start|>assistant<|channel|>final<|message|>Sunny.<|return|>";

/// The headers of `text`: from their first byte to the end of their `<|message|>`.
fn header_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("<|message|>") {
        let end = from + at + "<|message|>".len();
        let start = ["<|end|>", "<|call|>", "<|return|>"]
            .iter()
            .filter_map(|t| text[..from + at].rfind(t).map(|p| p + t.len()))
            .max()
            .unwrap_or(0);
        spans.push((start, end));
        from = end;
    }
    spans
}

// Cut inside a header (DESIGN §4.6: nothing is committed before `<|message|>`): the header is dropped, so
// the message is exactly that of the text before the header, and no fragment of a marker is emitted —
// with reasoning extracted or inline.
#[rstest]
#[case(ReasoningFormat::Extract)]
#[case(ReasoningFormat::Inline)]
fn truncation_inside_a_header_emits_nothing_of_it(#[case] format: ReasoningFormat) {
    let options = ParseOptions::new().with_reasoning_format(format);
    let spans = header_spans(SAMPLE);
    assert_eq!(spans.len(), 3);
    for (start, end) in spans {
        let before = run_with(HarmonyPolicy::default(), options.clone(), &SAMPLE[..start]);
        for cut in start + 1..end {
            let message = run_with(HarmonyPolicy::default(), options.clone(), &SAMPLE[..cut]);
            assert_eq!(message, before, "cut at {cut}: {:?}", &SAMPLE[..cut]);
            for text in [&message.reasoning, &message.content].into_iter().flatten() {
                let fragment = (1..text.len())
                    .filter(|&at| text.is_char_boundary(at))
                    .any(|at| {
                        let tail = &text[at..];
                        SPECIAL_TOKENS
                            .iter()
                            .any(|t| t.len() > tail.len() && t.starts_with(tail))
                    });
                assert!(!fragment, "cut at {cut}: {text:?}");
            }
        }
    }
}

// `reasoning_format: none`: reasoning messages are content, markers included; other messages unchanged.
#[rstest]
#[case::analysis_then_final(
    "<|channel|>analysis<|message|>Hmm.<|end|>\n<|start|>assistant<|channel|>final<|message|>Yes.<|return|>",
    "<|start|>assistant<|channel|>final<|message|>",
    "<|channel|>analysis<|message|>Hmm.<|end|>Yes.",
    0
)]
#[case::analysis_then_call(
    "<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>",
    "",
    "<|channel|>analysis<|message|>Hmm.<|end|>",
    1
)]
#[case::second_analysis_keeps_its_start(
    "<|channel|>final<|message|>A<|end|><|start|>assistant<|channel|>analysis<|message|>B",
    "",
    "A<|start|>assistant<|channel|>analysis<|message|>B",
    0
)]
#[case::builtin_tool_inline(
    "<|channel|>analysis to=python<|message|>x = 1<|call|>",
    "",
    "<|channel|>analysis to=python<|message|>x = 1<|call|>",
    0
)]
fn inline_reasoning(
    #[case] output: &str,
    #[case] _note: &str,
    #[case] content: &str,
    #[case] calls: usize,
) {
    let inline = ParseOptions::new().with_reasoning_format(ReasoningFormat::Inline);
    let message = run_with(HarmonyPolicy::default(), inline, output);
    assert_eq!(message.reasoning, None);
    assert_eq!(message.content_trimmed(), Some(content));
    assert_eq!(message.tool_calls.len(), calls);
}

// Stage and the first byte's state from a prefilled prompt tail.
#[rstest]
#[case::usual_generation_prompt(
    "<|start|>user<|message|>Hi<|end|><|start|>assistant",
    Stage::Content,
    "<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>C",
    Some("R"),
    Some("C"),
    0
)]
#[case::prefilled_analysis(
    "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|>",
    Stage::Reasoning,
    "R<|end|><|start|>assistant<|channel|>final<|message|>C",
    Some("R"),
    Some("C"),
    0
)]
#[case::prefilled_final(
    "<|start|>assistant<|channel|>final<|message|>",
    Stage::Content,
    "C<|return|>",
    None,
    Some("C"),
    0
)]
#[case::prefilled_call_header(
    "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>",
    Stage::Content,
    "{\"a\": 1}<|call|>",
    None,
    None,
    1
)]
#[case::prefilled_partial_header(
    "<|start|>assistant<|channel|>analysis",
    Stage::Content,
    "<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>C",
    Some("R"),
    Some("C"),
    0
)]
#[case::prefilled_partial_call_header(
    "<|start|>assistant<|channel|>commentary to=functions.f",
    Stage::Content,
    " <|constrain|>json<|message|>{}<|call|>",
    None,
    None,
    1
)]
#[case::earlier_prefill_does_not_count(
    "<|start|>assistant<|channel|>analysis<|message|>old<|end|><|start|>user<|message|>Q<|end|><|start|>assistant",
    Stage::Content,
    "<|channel|>final<|message|>C",
    None,
    Some("C"),
    0
)]
fn stage_from_prompt_tail(
    #[case] tail: &str,
    #[case] stage: Stage,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: usize,
) {
    let options = ParseOptions::new().with_prompt_tail(tail);
    let entry = find_by_name("gpt-oss").unwrap();
    assert_eq!(entry.parser(&options).stage(), stage);
    let message = run_with(HarmonyPolicy::default(), options, output);
    assert_eq!(message.reasoning_trimmed(), reasoning, "{message:?}");
    assert_eq!(message.content_trimmed(), content, "{message:?}");
    assert_eq!(message.tool_calls.len(), calls, "{message:?}");
    assert!(message.tool_calls.iter().all(|c| c.valid && c.name == "f"));
}

#[test]
fn prefilled_header_under_inline_does_not_repeat_the_prompt() {
    let options = ParseOptions::new()
        .with_prompt_tail("<|start|>assistant<|channel|>analysis")
        .with_reasoning_format(ReasoningFormat::Inline);
    let message = run_with(HarmonyPolicy::default(), options, "<|message|>R<|end|>");
    assert_eq!(message.content.as_deref(), Some("<|message|>R<|end|>"));
}

#[test]
fn stage_from_prompt_token_ids_and_explicit_stage() {
    let table = Arc::new(SpecialTokens::from_pairs(TOKEN_IDS.iter().copied()));
    let entry = find_by_name("gpt-oss").unwrap();
    // <|start|> assistant <|channel|> analysis <|message|>
    let open = ParseOptions::new().with_prompt_token_ids(
        vec![200_007, 200_006, 173_781, 200_005, 35_644, 200_008],
        table.clone(),
    );
    assert_eq!(entry.parser(&open).stage(), Stage::Reasoning);
    let message = entry
        .parser(&open)
        .parse("R<|end|><|start|>assistant<|channel|>final<|message|>C");
    assert_eq!(message.reasoning.as_deref(), Some("R"));
    let usual = ParseOptions::new().with_prompt_token_ids(vec![200_007, 200_006, 173_781], table);
    assert_eq!(entry.parser(&usual).stage(), Stage::Content);
    let explicit = ParseOptions::new().with_stage(Stage::Reasoning);
    assert_eq!(
        entry
            .parser(&explicit)
            .parse("R<|end|>")
            .reasoning
            .as_deref(),
        Some("R")
    );
    // The text tail wins over the ids.
    let both = open.with_prompt_tail("<|start|>assistant");
    assert_eq!(entry.parser(&both).stage(), Stage::Content);
}

#[test]
fn registry_finds_gpt_oss() {
    for model in [
        "openai/gpt-oss-20b",
        "openai/gpt-oss-120b",
        "unsloth/gpt-oss-20b-GGUF",
        "gpt-oss",
        "lmstudio-community/gpt-oss-120b-MLX-8bit",
    ] {
        let entry = find_for_model(model).unwrap_or_else(|e| panic!("{model}: {e}"));
        assert_eq!((entry.name, entry.family), ("gpt-oss", "gptoss"), "{model}");
    }
    for name in [
        "gpt-oss",
        "openai",
        "gpt_oss",
        "openai_gptoss",
        "harmony",
        "GPT-OSS",
    ] {
        assert_eq!(find_by_name(name).unwrap().name, "gpt-oss", "{name}");
    }
}

/// Streams `output` one character at a time and returns the events.
fn events(output: &str) -> Vec<String> {
    let entry = find_by_name("gpt-oss").unwrap();
    let mut parser = entry.parser(&ParseOptions::new());
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

// Arguments, reasoning and content stream as they arrive: with one character per delta, a long value comes
// in many fragments, not in one piece at the end (painpoints #29, #66); each call starts and ends once.
#[test]
fn everything_streams_as_it_arrives() {
    let output = "<|channel|>analysis<|message|>0123456789012345678901234567890123456789<|end|><|start|>assistant<|channel|>commentary to=functions.write <|constrain|>json<|message|>{\"content\": \"0123456789012345678901234567890123456789\"}<|call|>";
    let seen = events(output);
    let fragments = seen.iter().filter(|e| e.starts_with("A0:")).count();
    assert!(
        fragments >= 40,
        "only {fragments} argument fragments: {seen:?}"
    );
    let reasoning = seen.iter().filter(|e| e.starts_with("R:")).count();
    assert!(
        reasoning >= 40,
        "only {reasoning} reasoning pieces: {seen:?}"
    );
    assert_eq!(seen.iter().filter(|e| e.starts_with("S0:")).count(), 1);
    assert_eq!(seen.iter().filter(|e| e.starts_with("E0:")).count(), 1);
    // The call is announced as soon as its header is complete, before any argument.
    let start = seen.iter().position(|e| e == "S0:write").unwrap();
    assert!(seen[..start].iter().all(|e| e.starts_with("R:")));
    assert!(seen.last().is_some_and(|e| e == "E0:true"), "{seen:?}");
}

// No fragment of a marker ever reaches content or reasoning, at any split (painpoints #4–#6, #23–#26).
#[test]
fn split_markers_never_leak() {
    let entry = find_by_name("gpt-oss").unwrap();
    let options = ParseOptions::new().with_call_id_seed(1);
    let want = entry.parser(&options).parse(SAMPLE);
    assert_eq!(want.reasoning.as_deref(), Some("Need the weather."));
    assert_eq!(want.content.as_deref(), Some("Sunny."));
    for cut in (1..SAMPLE.len()).filter(|&i| SAMPLE.is_char_boundary(i)) {
        let mut parser = entry.parser(&options);
        let mut acc = Accumulator::new();
        for piece in [&SAMPLE[..cut], &SAMPLE[cut..]] {
            let deltas = parser.push(piece);
            for delta in deltas.iter() {
                if let Delta::Reasoning(t) | Delta::Content(t) = delta {
                    assert!(!t.contains('<'), "cut {cut}: {t:?}");
                }
            }
            acc.extend(deltas);
        }
        acc.extend(parser.finish());
        assert_eq!(acc.into_message(), want, "cut {cut}");
    }
}

#[test]
fn pushes_after_finish_do_nothing() {
    let entry = find_by_name("gpt-oss").unwrap();
    // The `<` could have started a marker: it is held until the end.
    check_finish_is_final(
        entry.parser(&ParseOptions::new()),
        "<|channel|>final<|message|>Hello <",
    );
}

#[test]
fn generated_ids_are_stable_within_a_request_and_differ_across_requests() {
    let entry = find_by_name("gpt-oss").unwrap();
    check_generated_ids(&|options| entry.parser(options), SAMPLE);
}

// Every registered parser's sample, cut in two and in three at every character boundary: the same message
// as one-shot. Each sample holds the family's markers in context, so every marker is split at every
// position of it.
#[test]
fn every_sample_split_at_every_position() {
    assert!(check_sample_splits("gptoss") > 0);
    // Beyond the shared check: each GPT-OSS sample has reasoning and exactly one call.
    for entry in parser_core::entries()
        .into_iter()
        .filter(|e| e.family == "gptoss")
    {
        let options = ParseOptions::new()
            .with_prompt_tail(entry.sample_prompt_tail)
            .with_call_id_seed(5);
        let one_shot = entry.parser(&options).parse(entry.sample);
        assert!(one_shot.reasoning.is_some(), "{}", entry.name);
        assert_eq!(one_shot.tool_calls.len(), 1, "{}: {one_shot:?}", entry.name);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, failure_persistence: None, ..Default::default() })]

    // Exact hold-back (DESIGN §4.2): inside a body, after every push, everything has been released except
    // the longest tail that could still become a marker that ends the body — no more, no less.
    #[test]
    fn body_text_is_held_back_exactly(
        pieces in proptest::collection::vec("[<|endcallstartchanelro>x ]{1,4}", 1..40),
        analysis in proptest::bool::ANY,
    ) {
        let markers = ["<|end|>", "<|call|>", "<|return|>", "<|endoftext|>", "<|start|>", "<|channel|>"];
        let text: String = pieces.concat();
        proptest::prop_assume!(!markers.iter().any(|m| text.contains(m)));
        let entry = find_by_name("gpt-oss").unwrap();
        let mut parser = entry.parser(&ParseOptions::new());
        let header = if analysis { "<|channel|>analysis<|message|>" } else { "<|channel|>final<|message|>" };
        let mut released: String = parser.push(header).iter().map(|d| match d { Delta::Content(t) | Delta::Reasoning(t) => t, _ => "" }).collect();
        let mut pushed = String::new();
        for piece in &pieces {
            pushed.push_str(piece);
            for delta in parser.push(piece).iter() {
                match delta {
                    Delta::Content(t) => { proptest::prop_assert!(!analysis); released.push_str(t) }
                    Delta::Reasoning(t) => { proptest::prop_assert!(analysis); released.push_str(t) }
                    other => proptest::prop_assert!(false, "{:?}", other),
                }
            }
            let held = must_hold(&pushed, &markers);
            proptest::prop_assert_eq!(format!("{released}{held}"), pushed.clone());
        }
    }
}

// The harmony switches reach the parser through the request's core `Policy`, so a server that builds
// parsers from the registry (parser-auto) can set them.
#[test]
fn harmony_switches_come_from_the_core_policy() {
    let entry = parser_core::find_by_name("gpt-oss").unwrap();
    let output = "<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant<|channel|>analysis to=browser.search<|message|>{\"query\": \"x\"}<|call|>";
    let default = entry.parser(&ParseOptions::new()).parse(output);
    assert_eq!(default.content.as_deref(), Some("Let me check."));
    assert!(default.tool_calls.is_empty());
    let policy = parser_core::Policy {
        preamble_as_reasoning: true,
        builtin_tools_as_calls: true,
        ..Default::default()
    };
    let switched = entry
        .parser(&ParseOptions::new().with_policy(policy))
        .parse(output);
    assert_eq!(switched.reasoning.as_deref(), Some("Let me check."));
    assert_eq!(switched.tool_calls.len(), 1);
    assert_eq!(switched.tool_calls[0].name, "browser.search");
}

fn declared_tools() -> Arc<parser_core::Tools> {
    let tools = serde_json::json!([{"type": "function", "function": {"name": "lookup_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
    Arc::new(parser_core::Tools::from_json(&tools).unwrap())
}

// Issue 18: a message addressed to a tool the request declares is a call, with or without the
// `functions.` prefix; any other recipient follows the built-in-tools policy as before.
#[rstest]
#[case::declared_without_prefix(
    HarmonyPolicy::default(), true,
    "<|channel|>commentary to=lookup_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
    None, None, vec![RowCall::Valid("lookup_weather", "{\"city\": \"Paris\"}")])]
#[case::declared_with_prefix(
    HarmonyPolicy::default(), true,
    "<|channel|>commentary to=functions.lookup_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
    None, None, vec![RowCall::Valid("lookup_weather", "{\"city\": \"Paris\"}")])]
#[case::declared_in_the_role_part(
    HarmonyPolicy::default(), true,
    "<|start|>assistant to=lookup_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}<|call|>",
    None, None, vec![RowCall::Valid("lookup_weather", "{\"city\": \"Paris\"}")])]
#[case::declared_on_analysis(
    HarmonyPolicy::default(), true,
    "<|channel|>analysis to=lookup_weather<|message|>{\"city\": \"Paris\"}<|call|>",
    None, None, vec![RowCall::Valid("lookup_weather", "{\"city\": \"Paris\"}")])]
#[case::undeclared_without_prefix_is_a_builtin(
    HarmonyPolicy::default(), true,
    "<|channel|>analysis to=browser.search<|message|>{\"query\": \"rust\"}<|call|>",
    Some("{\"query\": \"rust\"}"), None, vec![])]
#[case::undeclared_surfaced_under_the_policy(
    HarmonyPolicy::default().with_builtin_tools(BuiltinTools::Calls), true,
    "<|channel|>analysis to=browser.search<|message|>{\"query\": \"rust\"}<|call|>",
    None, None, vec![RowCall::Valid("browser.search", "{\"query\": \"rust\"}")])]
#[case::no_tools_without_prefix_is_a_builtin(
    HarmonyPolicy::default(), false,
    "<|channel|>commentary to=lookup_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
    Some("{\"city\": \"Paris\"}"), None, vec![])]
fn recipients_declared_as_tools(
    #[case] policy: HarmonyPolicy,
    #[case] with_tools: bool,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: Vec<RowCall>,
) {
    let mut options = ParseOptions::new();
    if with_tools {
        options = options.with_tools(declared_tools());
    }
    check_row(
        &run_with(policy, options, output),
        reasoning,
        content,
        &calls,
    );
}

// A prefilled header addressed to a declared tool (the prompt ends inside it) starts a call.
#[test]
fn prompt_header_to_a_declared_tool_is_a_call() {
    let options = ParseOptions::new()
        .with_tools(declared_tools())
        .with_prompt_tail("<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>commentary to=lookup_weather<|message|>");
    let message = run_with(
        HarmonyPolicy::default(),
        options,
        "{\"city\": \"Paris\"}<|call|>",
    );
    check_row(
        &message,
        None,
        None,
        &[RowCall::Valid("lookup_weather", "{\"city\": \"Paris\"}")],
    );
}

// A message of another role is a new turn the model ran on into (issue 18): the output ends before it,
// so no user, system or tool-result text reaches content or reasoning.
#[rstest]
#[case::user_turn_after_the_answer(
    "<|channel|>final<|message|>Answer.<|return|><|start|>user<|message|>More?<|end|><|start|>assistant<|channel|>final<|message|>Again.",
    None,
    Some("Answer."),
    0
)]
#[case::user_turn_after_end(
    "<|channel|>final<|message|>Answer.<|end|><|start|>user<|message|>More?<|end|>",
    None,
    Some("Answer."),
    0
)]
#[case::tool_result_after_a_call(
    "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|><|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{\"t\": 20}<|end|><|start|>assistant<|channel|>final<|message|>Sunny.",
    Some("Need the weather."),
    None,
    1
)]
#[case::system_turn_inside_the_output(
    "<|channel|>analysis<|message|>Hmm.<|end|><|start|>system<|message|>You are…<|end|>",
    Some("Hmm."),
    None,
    0
)]
#[case::assistant_messages_go_on(
    "<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>final<|message|>Answer.",
    Some("Hmm."),
    Some("Answer."),
    0
)]
fn a_message_of_another_role_ends_the_output(
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
    #[case] calls: usize,
) {
    let message = run(output);
    assert_eq!(message.reasoning_trimmed(), reasoning, "{message:#?}");
    assert_eq!(message.content_trimmed(), content, "{message:#?}");
    assert_eq!(message.tool_calls.len(), calls, "{message:#?}");
    assert!(message.tool_calls.iter().all(|call| call.valid));
}
