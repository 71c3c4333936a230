//! Template capabilities, the polyfills that stand in for missing ones, incremental rendering, and the
//! parse options a rendered prompt hands to the reply's parser.

use std::path::Path;

use parser_auto::template::{Capabilities, ChatTemplate, Increment, Polyfill, RenderInput};
use parser_auto::{Route, Stage};
use rstest::rstest;
use serde_json::{Value, json};

fn template(file: &str) -> ChatTemplate {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(file);
    ChatTemplate::from_file(&path).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn caps(system_role: bool, tools: bool, tool_calls: bool, tool_responses: bool) -> Capabilities {
    Capabilities {
        system_role,
        tools,
        tool_calls,
        tool_responses,
    }
}

#[rstest]
#[case::gemma_2_lacks_everything("google-gemma-2-2b-it.jinja", caps(false, false, false, false))]
#[case::phi_35_has_only_a_system_role(
    "microsoft-Phi-3.5-mini-instruct.jinja",
    caps(true, false, false, false)
)]
#[case::rwkv_world("llama-cpp-rwkv-world.jinja", caps(true, false, false, false))]
#[case::deepseek_v31_renders_calls_not_tools(
    "deepseek-ai-DeepSeek-V3.1.jinja",
    caps(true, false, true, true)
)]
#[case::granite_renders_tools_not_calls(
    "ibm-granite-granite-3.3-2B-Instruct.jinja",
    caps(true, true, false, true)
)]
#[case::qwen3_has_everything("Qwen-Qwen3-0.6B.jinja", caps(true, true, true, true))]
#[case::mistral_with_nine_character_ids(
    "unsloth-mistral-Devstral-Small-2507.jinja",
    caps(true, true, true, true)
)]
#[case::gpt_oss("openai-gpt-oss-120b.jinja", caps(true, true, true, true))]
fn capabilities_are_probed(#[case] file: &str, #[case] expected: Capabilities) {
    assert_eq!(template(file).capabilities(), expected);
}

fn weather_tool() -> Value {
    json!({"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}})
}

fn tool_conversation() -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "You are terse."}),
        json!({"role": "user", "content": "Weather in Oslo?"}),
        json!({"role": "assistant", "content": "", "tool_calls": [{"id": "abc123DEF", "type": "function",
            "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}),
        json!({"role": "tool", "tool_call_id": "abc123DEF", "content": "-3 C, snow"}),
        json!({"role": "assistant", "content": "Cold: -3 C with snow."}),
        json!({"role": "user", "content": "Thanks!"}),
    ]
}

#[test]
fn gemma_2_gets_every_polyfill_and_renders() {
    let gemma = template("google-gemma-2-2b-it.jinja").with_tokens("<bos>", "<eos>");
    let input = RenderInput::new(tool_conversation())
        .with_tools(vec![weather_tool()])
        .with_generation_prompt(true);
    // Without polyfills the template refuses the conversation.
    assert!(gemma.render(&input).is_err());
    let prompt = gemma.render_prompt(&input).unwrap();
    assert_eq!(
        prompt.polyfills,
        [
            Polyfill::ToolsInSystem,
            Polyfill::ToolCallsAsText,
            Polyfill::ToolResultsAsUser,
            Polyfill::SystemMergedIntoUser
        ]
    );
    let expected = "<bos><start_of_turn>user\nYou are terse.\n\nYou can call the following tools. \
        Each is described by a JSON schema:\n<tools>\n";
    assert!(prompt.text.starts_with(expected), "{}", prompt.text);
    for needle in [
        "\"name\":\"get_weather\"",
        "<tool_call>\n{\"name\": <tool name>, \"arguments\": <arguments object>}\n</tool_call>\n\nWeather in Oslo?<end_of_turn>\n",
        "<start_of_turn>model\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Oslo\"}}\n</tool_call><end_of_turn>\n",
        "<start_of_turn>user\n<tool_response>\n-3 C, snow\n</tool_response><end_of_turn>\n",
        "<start_of_turn>model\nCold: -3 C with snow.<end_of_turn>\n<start_of_turn>user\nThanks!<end_of_turn>\n",
    ] {
        assert!(
            prompt.text.contains(needle),
            "missing {needle:?} in\n{}",
            prompt.text
        );
    }
    assert!(prompt.text.ends_with("<start_of_turn>model\n"));
}

#[test]
fn a_template_with_every_feature_is_rendered_as_it_is() {
    let qwen = template("Qwen-Qwen3-0.6B.jinja");
    let input = RenderInput::new(tool_conversation())
        .with_tools(vec![weather_tool()])
        .with_generation_prompt(true);
    let prompt = qwen.render_prompt(&input).unwrap();
    assert!(prompt.polyfills.is_empty());
    assert_eq!(prompt.text, qwen.render(&input).unwrap());
}

#[test]
fn a_template_that_renders_calls_is_not_told_another_call_format() {
    let v31 = template("deepseek-ai-DeepSeek-V3.1.jinja");
    let input = RenderInput::new(tool_conversation()).with_tools(vec![weather_tool()]);
    let prompt = v31.render_prompt(&input).unwrap();
    assert_eq!(prompt.polyfills, [Polyfill::ToolsInSystem]);
    assert!(
        prompt
            .text
            .contains("write the call in your tool-call format")
    );
    assert!(!prompt.text.contains("<tool_call>"));
    assert!(
        prompt.text.contains("<｜tool▁calls▁begin｜>"),
        "{}",
        prompt.text
    );
}

#[test]
fn the_rendered_prompt_decides_the_stage_of_the_reply() {
    let qwen = template("Qwen-Qwen3-0.6B.jinja");
    let prepared = parser_auto::prepare(Some("Qwen/Qwen3-0.6B"), Some(&qwen)).unwrap();
    assert_eq!(prepared.route, Route::ModelName("qwen3"));
    let messages = vec![json!({"role": "user", "content": "Hi"})];
    let thinking_off = RenderInput::new(messages.clone())
        .with_generation_prompt(true)
        .with_enable_thinking(Some(false));
    let prompt = qwen.render_prompt(&thinking_off).unwrap();
    assert!(prompt.text.ends_with("<think>\n\n</think>\n\n"));
    let parser = prepared.parser(&prompt.options);
    assert_eq!(parser.stage(), Stage::Content);
    let message = parser.parse("Hello!");
    assert_eq!(message.content.as_deref(), Some("Hello!"));
    assert_eq!(message.reasoning, None);
}

#[test]
fn a_forced_open_think_in_the_prompt_starts_the_reply_in_reasoning() {
    let r1 = template("llama-cpp-deepseek-r1.jinja");
    let input = RenderInput::new(vec![json!({"role": "user", "content": "2+2?"})])
        .with_generation_prompt(true);
    let prompt = r1.render_prompt(&input).unwrap();
    let prepared = parser_auto::prepare(Some("deepseek-ai/DeepSeek-R1"), Some(&r1)).unwrap();
    let parser = prepared.parser(&prompt.options);
    let message = parser.parse("Easy.</think>4");
    assert_eq!(message.reasoning.as_deref(), Some("Easy."));
    assert_eq!(message.content.as_deref(), Some("4"));
}

#[test]
fn the_prompt_options_carry_the_tools_for_typed_arguments() {
    let qwen = template("Qwen3-Coder.jinja");
    let tool = json!({"type": "function", "function": {"name": "add", "parameters": {"type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}});
    let input = RenderInput::new(vec![json!({"role": "user", "content": "1+2"})])
        .with_tools(vec![tool])
        .with_generation_prompt(true);
    let prompt = qwen.render_prompt(&input).unwrap();
    let prepared =
        parser_auto::prepare(Some("Qwen/Qwen3-Coder-30B-A3B-Instruct"), Some(&qwen)).unwrap();
    let message = prepared.parser(&prompt.options).parse(
        "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": 1, "b": 2}"#);
}

#[rstest]
#[case::qwen25("Qwen-Qwen2.5-7B-Instruct.jinja")]
#[case::llama_31("meta-llama-Llama-3.1-8B-Instruct.jinja")]
#[case::gemma_2_with_polyfills("google-gemma-2-2b-it.jinja")]
#[case::mistral_nemo("mistralai-Mistral-Nemo-Instruct-2407.jinja")]
fn the_new_message_is_the_difference_of_two_renders(#[case] file: &str) {
    let t = template(file);
    let mut messages = vec![json!({"role": "user", "content": "Hello"})];
    let mut prompt = String::new();
    for next in [
        json!({"role": "assistant", "content": "Hi!"}),
        json!({"role": "user", "content": "How are you?"}),
        json!({"role": "assistant", "content": "Fine."}),
    ] {
        let before = RenderInput::new(messages.clone());
        prompt = t.render_prompt(&before).unwrap().text;
        messages.push(next);
        let input = RenderInput::new(messages.clone());
        let whole = t.render_prompt(&input).unwrap().text;
        match t.render_new_message(&input).unwrap() {
            Increment::Append(added) => assert_eq!(format!("{prompt}{added}"), whole, "{file}"),
            Increment::Replace(text) => panic!("{file}: prefix rewritten: {text}"),
        }
        prompt = whole;
    }
    assert!(prompt.contains("Fine."));
}

#[test]
fn a_rewritten_past_is_reported_as_a_replacement() {
    // Qwen3 drops the reasoning of assistant turns before the last user message.
    let qwen = template("Qwen-Qwen3-0.6B.jinja");
    let messages = vec![
        json!({"role": "user", "content": "Hi"}),
        json!({"role": "assistant", "content": "Hello!", "reasoning_content": "Greet."}),
        json!({"role": "user", "content": "Bye"}),
    ];
    let increment = qwen
        .render_new_message(&RenderInput::new(messages.clone()))
        .unwrap();
    let whole = qwen
        .render_prompt(&RenderInput::new(messages))
        .unwrap()
        .text;
    assert_eq!(increment, Increment::Replace(whole));
}
