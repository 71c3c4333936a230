//! Models that ship several named chat templates (`default`, `tool_use`, `rag`), as Hermes-2-Pro and
//! Command-R do: a request with tools renders with `tool_use` and its reply is parsed by the parser
//! prepared for `tool_use`, as transformers picks per `apply_chat_template` call; a template chosen by
//! name is used for every request. The model directories are in `tests/fixtures/named_templates/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parser_auto::template::{ChatTemplate, Polyfill, RenderInput, TemplateLimits};
use parser_auto::{ErrorKind, Route, SpecialTokens};
use serde_json::{Value, json};

const HERMES: &str = "NousResearch-Hermes-2-Pro-Llama-3-8B";
const COMMAND_R: &str = "CohereForAI-c4ai-command-r-plus";

fn fixture(model: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/named_templates")
        .join(model)
}

fn load(model: &str) -> ChatTemplate {
    ChatTemplate::from_model_dir(&fixture(model)).unwrap()
}

fn tools() -> Vec<Value> {
    vec![json!({"type": "function", "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city's name."}},
            "required": ["city"],
        },
    }})]
}

fn question() -> RenderInput {
    RenderInput::new(vec![
        json!({"role": "user", "content": "Weather in Paris?"}),
    ])
    .with_generation_prompt(true)
}

const HERMES_CALL: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const COMMAND_R_CALL: &str = "Action:\n```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]\n```";

/// The calls of a parsed reply as `(name, arguments)`.
fn calls(message: &parser_auto::ParsedMessage) -> Vec<(&str, &str)> {
    message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str()))
        .collect()
}

#[test]
fn hermes_renders_and_parses_a_request_with_tools_with_its_tool_use_template() {
    let template = load(HERMES);
    assert_eq!(template.name(), "default");
    assert_eq!(template.template_names(), ["default", "tool_use"]);
    assert_eq!(template.for_request(false).name(), "default");
    assert_eq!(template.for_request(true).name(), "tool_use");
    // The tool_use template has the model's tokens.
    assert_eq!(template.for_request(true).bos_token(), "<|begin_of_text|>");
    assert_eq!(template.for_request(true).eos_token(), "<|im_end|>");
    let prepared = parser_auto::prepare(None, Some(&template)).unwrap();

    // With tools: the tool_use template's system prompt, and its parser.
    let prompt = template
        .render_prompt(&question().with_tools(tools()))
        .unwrap();
    assert!(
        prompt.text.starts_with(
            "<|begin_of_text|><|im_start|>system\nYou are a function calling AI model."
        ),
        "{}",
        prompt.text
    );
    assert!(prompt.text.contains("\"name\": \"get_weather\""));
    assert!(prompt.text.ends_with("<|im_start|>assistant\n"));
    assert_eq!(prompt.polyfills, []);
    // Its tool instructions are Hermes': the family by signature.
    assert_eq!(
        prepared.for_request(&prompt.options).route,
        Route::TemplateSignature("hermes")
    );
    let message = prepared.parser(&prompt.options).parse(HERMES_CALL);
    assert_eq!(calls(&message), [("get_weather", r#"{"city": "Paris"}"#)]);
    assert_eq!(message.content, None);
    // Streamed, the same.
    let resolved = parser_auto::resolve(None, Some(&template), &prompt.options).unwrap();
    assert_eq!(resolved.route, Route::TemplateSignature("hermes"));
    let mut parser = resolved.parser;
    let mut accumulated = parser_auto::Accumulator::default();
    for piece in HERMES_CALL.split_inclusive(['\n', '"']) {
        accumulated.extend(parser.push(piece));
    }
    accumulated.extend(parser.finish());
    assert_eq!(calls(&accumulated.into_message()), calls(&message));

    // Without tools: the default template (ChatML), which writes no calls, so nothing is a call.
    let prompt = template.render_prompt(&question()).unwrap();
    assert_eq!(
        prompt.text,
        "<|begin_of_text|><|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
    );
    assert_eq!(prompt.options.tools, None);
    assert_eq!(
        prepared.for_request(&prompt.options).route,
        Route::PlainContent
    );
    assert_eq!(prepared.route, Route::PlainContent);
    let message = prepared.parser(&prompt.options).parse("Sunny, 21 °C.");
    assert_eq!(message.content.as_deref(), Some("Sunny, 21 °C."));
}

#[test]
fn a_request_body_with_tools_renders_with_tool_use_even_an_empty_list() {
    let template = load(HERMES);
    let prepared = parser_auto::prepare(None, Some(&template)).unwrap();
    let messages = json!([{"role": "user", "content": "Hi"}]);
    for (tools, tool_use) in [
        (json!(tools()), true),
        // transformers tests `tools is not None`: an empty list still picks tool_use.
        (json!([]), true),
        (Value::Null, false),
    ] {
        let body = json!({"model": "m", "messages": messages, "tools": tools}).to_string();
        let prompt = template.render_request(&body).unwrap();
        assert_eq!(
            prompt.text.contains("You are a function calling AI model."),
            tool_use,
            "{body}"
        );
        assert_eq!(prompt.options.tools.is_some(), tool_use, "{body}");
        let route = &prepared.for_request(&prompt.options).route;
        assert_eq!(
            *route == Route::TemplateSignature("hermes"),
            tool_use,
            "{body}: {route}"
        );
    }
}

#[test]
fn command_r_with_tools_gets_tool_use_and_rag_only_by_name() {
    let template = load(COMMAND_R);
    assert_eq!(template.template_names(), ["default", "tool_use", "rag"]);
    assert_eq!(template.for_request(true).name(), "tool_use");
    assert_eq!(template.for_request(false).name(), "default");
    let prepared = parser_auto::prepare(None, Some(&template)).unwrap();

    let prompt = template
        .render_prompt(&question().with_tools(tools()))
        .unwrap();
    assert!(
        prompt
            .text
            .contains("Write 'Action:' followed by a json-formatted list")
    );
    assert!(
        prompt.text.contains("def get_weather(city: str)"),
        "{}",
        prompt.text
    );
    assert_eq!(prompt.polyfills, []);
    assert!(
        prompt
            .text
            .ends_with("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>")
    );
    assert_eq!(
        prepared.for_request(&prompt.options).route,
        Route::TemplateSignature("command-r-plus")
    );
    let message = prepared.parser(&prompt.options).parse(COMMAND_R_CALL);
    assert_eq!(calls(&message), [("get_weather", r#"{"city": "Paris"}"#)]);

    // Without tools: the default template, which has no `Action:` calls.
    let prompt = template.render_prompt(&question()).unwrap();
    assert_eq!(
        prompt.text,
        "<BOS_TOKEN><|START_OF_TURN_TOKEN|><|USER_TOKEN|>Weather in Paris?<|END_OF_TURN_TOKEN|>\
         <|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"
    );
    let message = prepared.parser(&prompt.options).parse(COMMAND_R_CALL);
    assert_eq!(calls(&message), []);

    // `rag` is never picked by itself; chosen by name, it renders the request's documents.
    let rag = template.select("rag").unwrap();
    assert_eq!(rag.name(), "rag");
    assert_eq!(rag.for_request(true).name(), "rag");
    assert_eq!(rag.bos_token(), "<BOS_TOKEN>");
    let input = question().with_kwarg(
        "documents",
        json!([{"title": "Paris", "text": "Sunny, 21 °C."}]),
    );
    let prompt = rag.render_prompt(&input).unwrap();
    assert!(
        prompt.text.contains("<results>\nDocument: 0\n"),
        "{}",
        prompt.text
    );
    assert!(
        prompt.text.contains("text: Sunny, 21 °C.\n"),
        "{}",
        prompt.text
    );
}

#[test]
fn a_template_chosen_by_name_serves_every_request() {
    let dir = fixture(HERMES);
    // `default` by name: tools do not switch it; the template ignores them, so they are described in
    // the system message, and the default template's parser is used.
    let default = ChatTemplate::from_model_dir_named(&dir, Some("default")).unwrap();
    assert_eq!(default.name(), "default");
    assert_eq!(default.for_request(true).name(), "default");
    let prompt = default
        .render_prompt(&question().with_tools(tools()))
        .unwrap();
    assert_eq!(prompt.polyfills, [Polyfill::ToolsInSystem]);
    let prepared = parser_auto::prepare(None, Some(&default)).unwrap();
    assert_eq!(
        prepared.for_request(&prompt.options).route,
        Route::PlainContent
    );

    // `tool_use` by name: also without tools.
    let tool_use = ChatTemplate::from_model_dir_named(&dir, Some("tool_use")).unwrap();
    assert_eq!(tool_use.name(), "tool_use");
    let prompt = tool_use.render_prompt(&question()).unwrap();
    assert!(prompt.text.contains("You are a function calling AI model."));
    let prepared = parser_auto::prepare(None, Some(&tool_use)).unwrap();
    assert_eq!(prepared.route, Route::TemplateSignature("hermes"));
    let message = prepared.parser(&prompt.options).parse(HERMES_CALL);
    assert_eq!(calls(&message), [("get_weather", r#"{"city": "Paris"}"#)]);

    // The same three ways: the config's text, a loaded template, the directory.
    let config = std::fs::read_to_string(dir.join("tokenizer_config.json")).unwrap();
    let from_config = ChatTemplate::from_tokenizer_config(&config, Some("tool_use")).unwrap();
    let selected = load(HERMES).select("tool_use").unwrap();
    for template in [&from_config, &selected] {
        assert_eq!(template.source(), tool_use.source());
        assert_eq!(template.for_request(false).name(), "tool_use");
        assert_eq!(template.bos_token(), "<|begin_of_text|>");
    }

    // A name the model does not have.
    let err = ChatTemplate::from_model_dir_named(&dir, Some("rag")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidOption(_)));
    assert!(err.to_string().contains("default, tool_use"), "{err}");
    let err = ChatTemplate::from_source("{{ 1 }}")
        .unwrap()
        .select("default")
        .unwrap_err();
    assert!(err.to_string().contains("none"), "{err}");
}

#[test]
fn a_family_by_model_name_reads_the_calls_of_either_template() {
    let template = load(HERMES);
    // Hermes-style calls are Qwen's: a model name that picks the family needs no second parser.
    let prepared = parser_auto::prepare(Some("Qwen/Qwen2.5-7B-Instruct"), Some(&template)).unwrap();
    let options = template
        .render_prompt(&question().with_tools(tools()))
        .unwrap()
        .options;
    assert_eq!(
        prepared.for_request(&options).route,
        Route::ModelName("qwen2.5")
    );
    let message = prepared.parser(&options).parse(HERMES_CALL);
    assert_eq!(calls(&message), [("get_weather", r#"{"city": "Paris"}"#)]);
}

#[test]
fn transformers_additional_chat_templates_directory() {
    // transformers 4.54+ saves named templates as chat_template.jinja plus
    // additional_chat_templates/NAME.jinja.
    let dir = std::env::temp_dir().join(format!(
        "llm-parse-additional-templates-{}",
        std::process::id()
    ));
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(HERMES).join("tokenizer_config.json")).unwrap(),
    )
    .unwrap();
    let [default, tool_use] = ["default", "tool_use"].map(|name| {
        config["chat_template"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["template"]
            .as_str()
            .unwrap()
            .to_owned()
    });
    let mut tokens = config.clone();
    tokens.as_object_mut().unwrap().remove("chat_template");
    std::fs::create_dir_all(dir.join("additional_chat_templates")).unwrap();
    std::fs::write(dir.join("tokenizer_config.json"), tokens.to_string()).unwrap();
    std::fs::write(dir.join("chat_template.jinja"), &default).unwrap();
    std::fs::write(
        dir.join("additional_chat_templates/tool_use.jinja"),
        &tool_use,
    )
    .unwrap();
    let template = ChatTemplate::from_model_dir(&dir);
    let by_name = ChatTemplate::from_model_dir_named(&dir, Some("default"));
    std::fs::remove_dir_all(&dir).unwrap();
    let template = template.unwrap();
    assert_eq!(template.name(), "chat_template.jinja");
    assert_eq!(template.template_names(), ["default", "tool_use"]);
    assert_eq!(template.for_request(true).source(), tool_use);
    assert_eq!(template.for_request(true).eos_token(), "<|im_end|>");
    let by_name = by_name.unwrap();
    assert_eq!(by_name.name(), "default");
    assert_eq!(by_name.for_request(true).source(), default);
}

#[test]
fn tokens_limits_and_special_tokens_follow_to_the_tool_use_template() {
    let limits = TemplateLimits {
        fuel: 12_345_678,
        ..TemplateLimits::default()
    };
    let table = Arc::new(SpecialTokens::from_pairs([(7, "<x>".to_owned())]));
    let template = load(HERMES)
        .with_tokens("<s>", "</s>")
        .with_limits(limits)
        .unwrap()
        .with_special_tokens(table.clone());
    let tool_use = template.for_request(true);
    assert_eq!(tool_use.name(), "tool_use");
    assert_eq!(
        (tool_use.bos_token(), tool_use.eos_token()),
        ("<s>", "</s>")
    );
    assert_eq!(tool_use.limits(), limits);
    assert!(Arc::ptr_eq(tool_use.special_tokens().unwrap(), &table));
    let selected = template.select("tool_use").unwrap();
    assert_eq!((selected.bos_token(), selected.limits()), ("<s>", limits));
}
