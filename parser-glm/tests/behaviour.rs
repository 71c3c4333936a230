//! Behaviour tables: DESIGN.md §4's conventions on GLM's formats. Every row runs one-shot and under every
//! chunking (whole, 1/2/3/5/8 characters, eight random splits, the family's tokens whole), and all of
//! them must agree before the row is checked. Then properties: exact hold-back, and no panic and
//! streaming equal to one-shot on random marker soup.

use std::sync::Arc;

use parser_core::testing::{
    Chunking, RowCall, check_chunkings, check_content_held_back_exactly, check_finish_is_final,
    check_generated_ids, check_row, check_sample_splits, prompt_options, run_row,
};
use parser_core::{Delta, ParseOptions, ParsedMessage, Tools, find_by_name, find_for_model};
use parser_glm::markers::{RESERVED, SPECIAL_TOKENS, TOOL_CALL};
use proptest::prelude::*;
use rstest::rstest;

fn run(parser: &str, options: ParseOptions, output: &str) -> ParsedMessage {
    run_row(parser, options, output, SPECIAL_TOKENS)
}

/// GLM-4.5 / 4.6 with thinking on: the generation prompt is `<|assistant|>` alone.
const TAIL_45: &str = "<|user|>\nHi<|assistant|>";
/// GLM-4.5 / 4.6 with thinking off.
const TAIL_45_OFF: &str = "<|user|>\nHi<|assistant|>\n<think></think>";
/// GLM-4.7 with thinking on (the default).
const TAIL_47: &str = "<|user|>Hi<|assistant|><think>";
/// GLM-4.7 with thinking off.
const TAIL_47_OFF: &str = "<|user|>Hi<|assistant|></think>";

// Where reasoning starts and ends (DESIGN §3, §4.8).
#[rstest]
#[case::glm45_model_opens(
    "glm-4.5",
    Some(TAIL_45),
    None,
    "\n<think>I think.</think>\nAnswer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::glm45_no_think_is_content("glm-4.5", Some(TAIL_45), None, "Answer.", None, Some("Answer."))]
#[case::glm45_thinking_off("glm-4.5", Some(TAIL_45_OFF), None, "\nAnswer.", None, Some("Answer."))]
#[case::glm45_flag_not_consulted("glm-4.5", None, Some(true), "Answer.", None, Some("Answer."))]
#[case::glm47_forced_open(
    "glm-4.7",
    Some(TAIL_47),
    None,
    "I think.</think>Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::glm47_thinking_off("glm-4.7", Some(TAIL_47_OFF), None, "Answer.", None, Some("Answer."))]
#[case::glm47_flag_off("glm-4.7", None, Some(false), "Answer.", None, Some("Answer."))]
#[case::glm47_default_is_reasoning(
    "glm-4.7",
    None,
    None,
    "I think.</think>Answer.",
    Some("I think."),
    Some("Answer.")
)]
#[case::glm47_cut_off_reasoning(
    "glm-4.7",
    Some(TAIL_47),
    None,
    "Still thinking",
    Some("Still thinking"),
    None
)]
#[case::end_tokens_dropped(
    "glm-4.7",
    Some(TAIL_47),
    None,
    "I think.</think>Answer.<|user|>",
    Some("I think."),
    Some("Answer.")
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

const CITY: RowCall = RowCall::Valid("get_weather", r#"{"city": "Paris"}"#);

// Calls, without a schema (every value a string), in both layouts and what is not a call.
#[rstest]
#[case::glm46_layout("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>", None, vec![CITY])]
#[case::glm47_layout("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>", None, vec![CITY])]
#[case::spaces_around_tags("<tool_call> get_weather <arg_key> city </arg_key> <arg_value>Paris</arg_value> </tool_call>", None, vec![CITY])]
#[case::values_keep_whitespace("<tool_call>f<arg_key>s</arg_key><arg_value> a\nb </arg_value></tool_call>", None, vec![RowCall::Valid("f", r#"{"s": " a\nb "}"#)])]
#[case::no_arguments("<tool_call>list_files</tool_call>", None, vec![RowCall::Valid("list_files", "{}")])]
#[case::no_arguments_newline("<tool_call>list_files\n</tool_call>", None, vec![RowCall::Valid("list_files", "{}")])]
#[case::content_before_and_between("Checking.<tool_call>a</tool_call>\n<tool_call>b</tool_call>", Some("Checking."), vec![RowCall::Valid("a", "{}"), RowCall::Valid("b", "{}")])]
#[case::missing_call_end_before_next("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value><tool_call>b</tool_call>", None, vec![RowCall::Valid("a", r#"{"x": "1"}"#), RowCall::Valid("b", "{}")])]
#[case::missing_value_end("<tool_call>a<arg_key>x</arg_key><arg_value>1<arg_key>y</arg_key><arg_value>2</tool_call>", None, vec![RowCall::Valid("a", r#"{"x": "1", "y": "2"}"#)])]
#[case::literal_closer_in_value("<tool_call>a<arg_key>x</arg_key><arg_value>p</arg_value>q</arg_value></tool_call>", None, vec![RowCall::Valid("a", r#"{"x": "p</arg_value>q"}"#)])]
#[case::end_token_after_call("<tool_call>a</tool_call><|observation|>", None, vec![RowCall::Valid("a", "{}")])]
#[case::opener_in_prose("Write <tool_call> then the name.", Some("Write <tool_call> then the name."), vec![])]
#[case::json_is_not_this_format(r#"<tool_call>{"name": "a"}</tool_call>"#, Some(r#"<tool_call>{"name": "a"}</tool_call>"#), vec![])]
#[case::name_without_argument_is_content("<tool_call>a b</tool_call>", Some("<tool_call>a b</tool_call>"), vec![])]
#[case::cut_off_before_the_name_ends("<tool_call>get_wea", Some("<tool_call>get_wea"), vec![])]
#[case::cut_off_after_the_name("<tool_call>get_weather\n", None, vec![RowCall::Invalid("get_weather")])]
#[case::cut_off_in_a_value("<tool_call>a<arg_key>x</arg_key><arg_value>1", None, vec![RowCall::Invalid("a")])]
// Issue 18: a call missing only its final `</tool_call>` at the end of the output is complete (its
// arguments are); a cut-off prefix of the closer after `</arg_value>` closes the value and never reaches
// the arguments.
#[case::missing_only_call_end("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>", None, vec![CITY])]
#[case::missing_only_call_end_glm46("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n", None, vec![CITY])]
#[case::cut_inside_call_end("<tool_call>grep<arg_key>pattern</arg_key><arg_value>needle</arg_value><arg_key>path</arg_key>\n<arg_value>.</arg_value></tool_", None, vec![RowCall::Valid("grep", r#"{"pattern": "needle", "path": "."}"#)])]
#[case::cut_inside_call_end_after_newline("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call", None, vec![CITY])]
#[case::cut_at_call_end_start("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><", None, vec![CITY])]
#[case::cut_inside_next_call_opener("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value><tool_ca", Some("<tool_ca"), vec![RowCall::Valid("a", r#"{"x": "1"}"#)])]
#[case::cut_inside_next_key("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value><arg_k", None, vec![RowCall::Invalid("a")])]
#[case::cut_inside_value_closer("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_val", None, vec![RowCall::Invalid("a")])]
// Issue 18: a key ends only at `</arg_key>`: `<`, `>` and `&` are part of it.
#[case::key_with_angle_brackets("<tool_call>f<arg_key>param<1></arg_key><arg_value>v</arg_value></tool_call>", None, vec![RowCall::Valid("f", r#"{"param<1>": "v"}"#)])]
#[case::key_with_greater_than("<tool_call>f<arg_key>x>y</arg_key><arg_value>v</arg_value></tool_call>", None, vec![RowCall::Valid("f", r#"{"x>y": "v"}"#)])]
#[case::key_with_ampersand("<tool_call>f<arg_key>a&b</arg_key><arg_value>v</arg_value></tool_call>", None, vec![RowCall::Valid("f", r#"{"a&b": "v"}"#)])]
#[case::key_with_less_than_glm46("<tool_call>f\n<arg_key>a < b</arg_key>\n<arg_value>v</arg_value>\n</tool_call>", None, vec![RowCall::Valid("f", r#"{"a < b": "v"}"#)])]
#[case::key_without_closer_is_invalid("<tool_call>f<arg_key>x<arg_value>1</arg_value><arg_key>y</arg_key><arg_value>2</arg_value></tool_call>Done.", Some("Done."), vec![RowCall::Invalid("f")])]
#[case::junk_in_body_is_invalid("<tool_call>a<arg_key>x</arg_key>oops</tool_call>Done.", Some("Done."), vec![RowCall::Invalid("a")])]
fn tool_calls(#[case] output: &str, #[case] content: Option<&str>, #[case] calls: Vec<RowCall>) {
    for parser in ["glm-4.5", "glm-4.7"] {
        let message = run(parser, prompt_options(Some(TAIL_47_OFF), None), output);
        check_row(&message, None, content, &calls);
    }
}

fn schema() -> Arc<Tools> {
    let tools = serde_json::json!([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {
            "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"},
            "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array"},
            "u": {"type": ["integer", "null"]}, "any": {}}}}}]);
    Arc::new(Tools::from_json(&tools).unwrap())
}

// Values typed by the request's schema (DESIGN §4.8): what the template's `tojson` wrote comes back typed;
// a value that does not fit its type, or a parameter the schema does not declare, stays a string.
#[rstest]
#[case::string_that_looks_like_a_number("s", "007", r#"{"s": "007"}"#)]
#[case::integer("i", "42", r#"{"i": 42}"#)]
#[case::integer_not_fitting("i", "many", r#"{"i": "many"}"#)]
#[case::number("n", "-1.5e3", r#"{"n": -1.5e3}"#)]
#[case::boolean("b", "true", r#"{"b": true}"#)]
#[case::python_boolean("b", "True", r#"{"b": true}"#)]
#[case::object("o", r#"{"k": [1, "x"]}"#, r#"{"o": {"k": [1, "x"]}}"#)]
#[case::array("a", r#"["x", "y"]"#, r#"{"a": ["x", "y"]}"#)]
#[case::nullable("u", "null", r#"{"u": null}"#)]
#[case::untyped_json("any", "[1]", r#"{"any": [1]}"#)]
#[case::undeclared("zzz", "1", r#"{"zzz": "1"}"#)]
fn values_typed_by_schema(#[case] key: &str, #[case] value: &str, #[case] arguments: &str) {
    let output =
        format!("<tool_call>f<arg_key>{key}</arg_key><arg_value>{value}</arg_value></tool_call>");
    let options = prompt_options(Some(TAIL_47_OFF), None).with_tools(schema());
    let message = run("glm-4.7", options, &output);
    assert_eq!(message.tool_calls[0].arguments, arguments, "{output}");
}

// Calls and open reasoning: after `</think>` a call; inside open reasoning, a call when the block ends
// the output, reasoning text when `</think>` follows it.
#[test]
fn calls_and_reasoning() {
    const CALL: &str =
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>";
    let forced_open = || prompt_options(Some(TAIL_47), None);
    let message = run("glm-4.7", forced_open(), &format!("Weather.</think>{CALL}"));
    check_row(&message, Some("Weather."), None, &[CITY]);
    let message = run("glm-4.7", forced_open(), &format!("Weather.{CALL}"));
    check_row(&message, Some("Weather."), None, &[CITY]);
    let message = run(
        "glm-4.7",
        forced_open(),
        &format!("Weather.{CALL}</think>Answer."),
    );
    check_row(
        &message,
        Some(&*format!("Weather.{CALL}")),
        Some("Answer."),
        &[],
    );
    let message = run(
        "glm-4.5",
        prompt_options(Some(TAIL_45), None),
        &format!("\n<think>Weather.</think>\n{CALL}"),
    );
    check_row(&message, Some("Weather."), None, &[CITY]);
}

// A string value streams as it arrives: a fragment per push, escaped, before the value closes.
#[test]
fn string_values_stream_as_they_arrive() {
    let entry = find_by_name("glm-4.7").unwrap();
    let mut parser = entry.parser(&prompt_options(Some(TAIL_47_OFF), None));
    parser.push("<tool_call>write<arg_key>content</arg_key><arg_value>");
    let mut fragments = Vec::new();
    for piece in ["line one\n", "line \"two\"\n", "北京"] {
        for delta in parser.push(piece).iter() {
            if let Delta::ToolCallArguments { fragment, .. } = delta {
                fragments.push(fragment.to_owned());
            }
        }
    }
    assert_eq!(fragments, [r#"line one\n"#, r#"line \"two\"\n"#, "北京"]);
}

#[test]
fn every_sample_split_at_every_position() {
    assert_eq!(check_sample_splits("glm"), 2);
}

#[test]
fn pushes_after_finish_do_nothing() {
    let entry = find_by_name("glm-4.7").unwrap();
    check_finish_is_final(
        entry.parser(&prompt_options(Some(TAIL_47_OFF), None)),
        "Hello <tool",
    );
}

#[test]
fn generated_ids_are_stable_within_a_request_and_differ_across_requests() {
    let entry = find_by_name("glm-4.5").unwrap();
    check_generated_ids(&|options| entry.parser(options), "<tool_call>a</tool_call>");
}

#[rstest]
#[case("zai-org/GLM-4.5", "glm-4.5")]
#[case("zai-org/GLM-4.5-Air", "glm-4.5")]
#[case("zai-org/GLM-4.5-Air-FP8", "glm-4.5")]
#[case("zai-org/GLM-4.6", "glm-4.5")]
#[case("unsloth/GLM-4.6-GGUF", "glm-4.5")]
#[case("zai-org/GLM-4.7", "glm-4.7")]
#[case("zai-org/GLM-4.7-Flash", "glm-4.7")]
#[case("unsloth/GLM-4.7-Flash-GGUF", "glm-4.7")]
#[case("zai-org/GLM-5", "glm-4.7")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    assert_eq!(find_for_model(model).unwrap().name, parser, "{model}");
}

// vLLM's and SGLang's names: `--tool-call-parser glm45 | glm47`, `--reasoning-parser glm45`, SGLang's
// `glm`, vLLM's module `glm4_moe`.
#[rstest]
#[case("glm45", "glm-4.5")]
#[case("glm", "glm-4.5")]
#[case("glm4_moe", "glm-4.5")]
#[case("glm-4.6", "glm-4.5")]
#[case("glm47", "glm-4.7")]
#[case("GLM-4.7", "glm-4.7")]
#[case("glm5", "glm-4.7")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(find_by_name(name).unwrap().name, parser);
}

/// Pieces of GLM-shaped text: whole tokens, their fragments, names, values and prose.
const SOUP: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|observation|>",
    "<|user|>",
    "<|assistant|>",
    "<tool",
    "</arg",
    "<arg_",
    "<",
    "</",
    "get_weather",
    "f",
    "i",
    "o",
    "city",
    "Paris",
    "北京",
    "{\"a\": 1}",
    "42",
    " ",
    "\n",
    "text",
    "é",
];

/// Pieces of string values: markup that is not an argument's end, quotes, backslashes, unicode.
const VALUES: &[&str] = &[
    "plain",
    " ",
    "\n",
    "a < b",
    "</arg",
    "<arg",
    "<tool_call>",
    "</tool",
    "<think>",
    "</think>",
    "x>y",
    "say \"hi\"",
    "back\\slash",
    "北京",
    "😀",
    "{\"json\": [1]}",
    "</arg_value>!",
    "\t",
];

proptest! {
    // Exact hold-back (DESIGN §4.2): content is released as soon as it cannot start a marker.
    #[test]
    fn content_is_held_back_exactly(pieces in proptest::collection::vec("[<|/_toolcaendxbsrv>]{1,4}", 1..40)) {
        let markers = [&[TOOL_CALL][..], RESERVED].concat();
        let text: String = pieces.concat();
        prop_assume!(!markers.iter().any(|m| text.contains(m)));
        for parser in ["glm-4.5", "glm-4.7"] {
            let entry = find_by_name(parser).unwrap();
            let options = prompt_options(Some(TAIL_47_OFF), None);
            let held_back = check_content_held_back_exactly(entry.parser(&options), "x", &pieces, &markers);
            prop_assert!(held_back.is_ok(), "{}", held_back.unwrap_err());
        }
    }

    // Well-formed outputs in either layout, with reasoning, content and calls whose string values hold
    // markup, quotes, backslashes and unicode: exactly what was generated, under every chunking.
    #[test]
    fn generated_outputs_parse_exactly(
        calls in proptest::collection::vec(
            (0..3usize, proptest::collection::vec((0..3usize, proptest::collection::vec(0..VALUES.len(), 0..4)), 0..3)),
            1..4,
        ),
        newlines in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let sep = if newlines { "\n" } else { "" };
        let mut output = format!("Let me think.</think>{sep}Checking.{sep}");
        let mut expected = Vec::new();
        for (name, args) in &calls {
            let name = ["get_weather", "search", "f"][*name];
            output.push_str(&format!("<tool_call>{name}{sep}"));
            let mut object = serde_json::Map::new();
            for (key, picks) in args {
                let key = ["city", "query", "note"][*key];
                let value: String = picks.iter().map(|&i| VALUES[i]).collect();
                output.push_str(&format!("<arg_key>{key}</arg_key>{sep}<arg_value>{value}</arg_value>{sep}"));
                object.insert(key.to_owned(), serde_json::Value::String(value));
            }
            output.push_str(&format!("</tool_call>{sep}"));
            expected.push((name, serde_json::Value::Object(object)));
        }
        let entry = find_by_name(if newlines { "glm-4.5" } else { "glm-4.7" }).unwrap();
        let options = prompt_options(Some(TAIL_47), None).with_call_id_seed(1);
        let chunkings = Chunking::property(seed, SPECIAL_TOKENS);
        let message = check_chunkings(&|| entry.parser(&options), &output, &chunkings);
        prop_assert!(message.is_ok(), "{}", message.unwrap_err());
        let message = message.unwrap();
        prop_assert_eq!(message.reasoning_trimmed(), Some("Let me think."));
        prop_assert_eq!(message.content_trimmed(), Some("Checking."));
        prop_assert_eq!(message.tool_calls.len(), expected.len());
        for (call, (name, arguments)) in message.tool_calls.iter().zip(&expected) {
            prop_assert!(call.valid, "{call:?}");
            prop_assert_eq!(call.name.as_str(), *name);
            let parsed: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
            prop_assert_eq!(&parsed, arguments, "{}", output);
        }
    }

    // Any mix of tokens and text, with and without a schema: no panic, and every chunking gives the
    // one-shot message.
    #[test]
    fn marker_soup_streams_like_one_shot(
        picks in proptest::collection::vec(0..SOUP.len(), 0..48),
        seed in any::<u64>(),
        typed in any::<bool>(),
    ) {
        let text: String = picks.iter().map(|&i| SOUP[i]).collect();
        for parser in ["glm-4.5", "glm-4.7"] {
            let entry = find_by_name(parser).unwrap();
            let mut options = ParseOptions::new().with_call_id_seed(1);
            if typed {
                options = options.with_tools(schema());
            }
            let chunkings = Chunking::property(seed, SPECIAL_TOKENS);
            let streamed = check_chunkings(&|| entry.parser(&options), &text, &chunkings);
            prop_assert!(streamed.is_ok(), "{}", streamed.unwrap_err());
        }
    }
}

// The template's own tokens never reach the reply (issue 18): tool-result tags are dropped (the text
// between them stays), and a new turn (`<|user|>`, `<|observation|>`, which are also the model's
// end-of-turn tokens) ends the output there, unless it is inside a call, where it is the call's text.
#[rstest]
#[case::user_turn_ends_the_output("glm-4.7", TAIL_47_OFF, "Answer.<|user|>More?", None, Some("Answer."), &[])]
#[case::observation_ends_the_output(
    "glm-4.5",
    TAIL_45,
    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>x</arg_value>\n</tool_call><|observation|><tool_response>\n{}\n</tool_response><|assistant|>Done.",
    None,
    None,
    &[RowCall::Valid("f", "{\"a\": \"x\"}")]
)]
#[case::new_turn_inside_reasoning("glm-4.7", TAIL_47, "Hmm<|system|>x</think>Answer.", Some("Hmm"), None, &[])]
#[case::tool_response_tags_dropped(
    "glm-4.7",
    TAIL_47_OFF,
    "It said <tool_response>20</tool_response>.",
    None,
    Some("It said 20."),
    &[]
)]
#[case::new_turn_inside_a_value_is_text(
    "glm-4.7",
    TAIL_47_OFF,
    "<tool_call>f<arg_key>a</arg_key><arg_value>x<|system|>y</arg_value></tool_call>",
    None,
    None,
    &[RowCall::Valid("f", "{\"a\": \"x<|system|>y\"}")]
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

// Issue 18: no fragment of markup ever reaches the arguments of a call cut off near its end.
#[rstest]
#[case("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value><arg_k")]
#[case("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_val")]
#[case("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value></tool_")]
#[case("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value>\n<|us")]
#[case("<tool_call>a<arg_key>x</arg_k")]
fn cut_off_calls_carry_no_markup(#[case] output: &str) {
    for parser in ["glm-4.5", "glm-4.7"] {
        let message = run(parser, prompt_options(Some(TAIL_47_OFF), None), output);
        assert_eq!(message.tool_calls.len(), 1, "{message:#?}");
        let arguments = &message.tool_calls[0].arguments;
        assert!(!arguments.contains('<'), "{output:?}: {arguments}");
        assert_eq!(message.content_trimmed(), None, "{message:#?}");
    }
}
