//! Rendering the reference chat templates (`templates/*.jinja`, from llama.cpp) as Hugging Face does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parser_auto::ErrorKind;
use parser_auto::template::{ChatTemplate, RenderInput};
use serde_json::{Value, json};

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates")
}

fn template(file: &str) -> ChatTemplate {
    ChatTemplate::from_file(&templates_dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Every `*.jinja` in the templates directory, sorted.
fn all_templates() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(templates_dir())
        .expect("templates directory")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.ends_with(".jinja").then_some(name)
        })
        .collect();
    names.sort();
    // The reference set is what MANIFEST.md lists (a template lost or added unlisted fails here).
    let listed = std::fs::read_to_string(templates_dir().join("MANIFEST.md"))
        .expect("MANIFEST.md")
        .lines()
        .filter(|line| line.starts_with("| `"))
        .count();
    assert_eq!(
        names.len(),
        listed,
        "templates/ holds the manifest's templates"
    );
    names
}

/// MANIFEST.md's rows: (file, tool-call format column).
fn manifest() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(templates_dir().join("MANIFEST.md")).expect("MANIFEST.md");
    let rows: Vec<(String, String)> = text
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let file = cells[0]
                .trim_start_matches("| ")
                .trim_matches('`')
                .to_string();
            (file, cells[3].to_string())
        })
        .collect();
    assert_eq!(rows.len(), all_templates().len());
    rows
}

fn supports_tools(tool_format: &str) -> bool {
    !tool_format.starts_with("none")
}

/// Keyword arguments a template cannot render without (MANIFEST: firefunction expects `functions`
/// and `datetime`).
fn required_kwargs(file: &str, input: RenderInput) -> RenderInput {
    if file.starts_with("fireworks-ai-llama-3-firefunction") {
        input
            .with_kwarg("functions", json!("[]"))
            .with_kwarg("datetime", json!("2024-07-01 12:00:00"))
    } else {
        input
    }
}

fn basic_messages(with_system: bool) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "user", "content": "Hello"}),
        json!({"role": "assistant", "content": "Hi, how can I help?"}),
        json!({"role": "user", "content": "What is 2 + 2?"}),
    ];
    if with_system {
        messages.insert(
            0,
            json!({"role": "system", "content": "You are a helpful assistant."}),
        );
    }
    messages
}

fn weather_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city name."}},
                "required": ["city"],
            },
        },
    })
}

/// system, user, an assistant tool call (`content` as given), the tool's result.
fn tool_messages(content: Value) -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "You are a helpful assistant."}),
        json!({"role": "user", "content": "What is the weather in Lyon?"}),
        json!({
            "role": "assistant",
            "content": content,
            "tool_calls": [{
                "id": "call00001",
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Lyon"}},
            }],
        }),
        json!({"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": "Sunny, 24°C"}),
    ]
}

/// Templates that reject a system message.
const NO_SYSTEM_ROLE: &[&str] = &["google-gemma-2-2b-it.jinja"];

#[test]
fn every_template_renders_a_basic_conversation() {
    for file in all_templates() {
        let t = template(&file).with_tokens("<s>", "</s>");
        let with_system = !NO_SYSTEM_ROLE.contains(&file.as_str());
        let input = required_kwargs(
            &file,
            RenderInput::new(basic_messages(with_system)).with_generation_prompt(true),
        );
        let prompt = t.render(&input).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(prompt.contains("What is 2 + 2?"), "{file}: {prompt}");
        assert!(prompt.contains("Hi, how can I help?"), "{file}: {prompt}");
    }
}

#[test]
fn gemma_rejects_a_system_message_with_its_own_words() {
    let err = template("google-gemma-2-2b-it.jinja")
        .render(&RenderInput::new(basic_messages(true)))
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidOption(_)));
    assert!(
        err.to_string().contains("System role not supported"),
        "{err}"
    );
}

/// Templates that support tools but do not render an assistant message's `tool_calls` (LFM2 expects
/// the calls inside `content`; Granite 3.3's template drops them).
const CALLS_NOT_RENDERED: &[&str] = &[
    "LFM2-8B-A1B.jinja",
    "ibm-granite-granite-3.3-2B-Instruct.jinja",
];

#[test]
fn every_tool_template_renders_tools_a_call_and_its_result() {
    for (file, tool_format) in manifest() {
        if !supports_tools(&tool_format) {
            continue;
        }
        let t = template(&file);
        // OpenAI sends `content: null` with tool calls, many templates need a string; try both (the
        // R1-Distill-Llama template renders calls only for `null`).
        let attempts: Vec<Result<String, String>> = [json!(""), Value::Null]
            .into_iter()
            .map(|content| {
                let input = required_kwargs(
                    &file,
                    RenderInput::new(tool_messages(content))
                        .with_tools(vec![weather_tool()])
                        .with_generation_prompt(true),
                );
                t.render(&input).map_err(|e| e.to_string())
            })
            .collect();
        let rendered: Vec<&String> = attempts.iter().filter_map(|a| a.as_ref().ok()).collect();
        assert!(!rendered.is_empty(), "{file}: {attempts:?}");
        assert!(
            rendered.iter().any(|p| p.contains("get_weather")),
            "{file}: {rendered:?}"
        );
        assert!(
            rendered.iter().any(|p| p.contains("Sunny, 24°C")),
            "{file}: {rendered:?}"
        );
        if !CALLS_NOT_RENDERED.contains(&file.as_str()) {
            assert!(
                rendered
                    .iter()
                    // JSON, markup, or a Python literal (Olmo 3's `get_weather(city='Lyon')`), or
                    // MiniMax-M3's namespace token before the closing tag (`Lyon]<]minimax[>[</city>`).
                    .any(|p| ["Lyon\"", "Lyon\n", "Lyon<", "Lyon'", "Lyon]<]"]
                        .iter()
                        .any(|a| p.contains(a))),
                "{file}: the call's arguments are missing: {rendered:?}"
            );
        }
    }
}

#[test]
fn arguments_as_strings_exactly_where_templates_concatenate_them() {
    let expected = [
        "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
        "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
        "deepseek-ai-DeepSeek-V3.1.jinja",
        "llama-cpp-deepseek-r1.jinja",
        "meetkai-functionary-medium-v3.1.jinja",
        "meetkai-functionary-medium-v3.2.jinja",
        "vllm-tool_chat_template_internlm2_tool.jinja",
        "vllm-tool_chat_template_phi4_mini.jinja",
    ];
    let probed: Vec<String> = all_templates()
        .into_iter()
        .filter(|file| template(file).arguments_as_string())
        .collect();
    assert_eq!(probed, expected);
}

#[test]
fn arguments_are_converted_to_the_form_the_template_wants() {
    let call = |arguments: Value, content: Value| {
        RenderInput::new(vec![
            json!({"role": "user", "content": "Weather in Lyon?"}),
            json!({"role": "assistant", "content": content, "tool_calls": [{
                "id": "call00001", "type": "function",
                "function": {"name": "get_weather", "arguments": arguments},
            }]}),
        ])
    };
    // DeepSeek-V3.1 concatenates the arguments: an object is printed as Python's json.dumps would.
    let v31 = template("deepseek-ai-DeepSeek-V3.1.jinja");
    for arguments in [
        json!({"city": "Lyon", "days": [1, 2]}),
        json!(r#"{"city": "Lyon", "days": [1, 2]}"#),
    ] {
        let prompt = v31.render(&call(arguments, Value::Null)).unwrap();
        assert!(
            prompt.contains(
                r#"get_weather<｜tool▁sep｜>{"city": "Lyon", "days": [1, 2]}<｜tool▁call▁end｜>"#
            ),
            "{prompt}"
        );
    }
    // Qwen3 writes `arguments|tojson`: a string is parsed back into an object first. (Its template
    // fails on `content: null`, as it does in Python: `'</think>' in None`.)
    let qwen3 = template("Qwen-Qwen3-0.6B.jinja");
    for arguments in [json!({"city": "Lyon"}), json!(r#"{"city":"Lyon"}"#)] {
        let prompt = qwen3
            .render(&call(arguments, json!("")))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            prompt.contains("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}}\n</tool_call>"),
            "{prompt}"
        );
    }
}

// ---- prompt shapes, byte for byte -------------------------------------------------------------

fn user_prompt(t: &ChatTemplate, enable_thinking: Option<bool>) -> String {
    let input = RenderInput::new(vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "Hi"}),
    ])
    .with_generation_prompt(true)
    .with_enable_thinking(enable_thinking);
    t.render(&input)
        .unwrap_or_else(|e| panic!("{}: {e}", t.name()))
}

#[test]
fn qwen3_prompt_shapes() {
    let t = template("Qwen-Qwen3-0.6B.jinja");
    let prefix = "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n";
    assert_eq!(
        user_prompt(&t, None),
        format!("{prefix}<|im_start|>assistant\n")
    );
    assert_eq!(
        user_prompt(&t, Some(true)),
        format!("{prefix}<|im_start|>assistant\n")
    );
    assert_eq!(
        user_prompt(&t, Some(false)),
        format!("{prefix}<|im_start|>assistant\n<think>\n\n</think>\n\n")
    );
    let no_prompt = t
        .render(&RenderInput::new(vec![
            json!({"role": "user", "content": "Hi"}),
        ]))
        .unwrap();
    assert_eq!(no_prompt, "<|im_start|>user\nHi<|im_end|>\n");
}

#[test]
fn deepseek_v31_prompt_shapes() {
    let t = template("deepseek-ai-DeepSeek-V3.1.jinja")
        .with_tokens("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>");
    assert_eq!(
        user_prompt(&t, Some(true)),
        "<｜begin▁of▁sentence｜>Be brief.<｜User｜>Hi<｜Assistant｜><think>"
    );
    assert_eq!(
        user_prompt(&t, Some(false)),
        "<｜begin▁of▁sentence｜>Be brief.<｜User｜>Hi<｜Assistant｜></think>"
    );
    assert!(user_prompt(&t, None).ends_with("<｜Assistant｜></think>"));
    let context = r#"{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true, "enable_thinking": true}"#;
    assert!(
        t.render_json(context)
            .unwrap()
            .ends_with("<｜User｜>Hi<｜Assistant｜><think>")
    );
}

#[test]
fn glm_47_flash_prompt_shapes() {
    let t = template("GLM-4.7-Flash.jinja");
    assert_eq!(
        user_prompt(&t, Some(true)),
        "[gMASK]<sop><|system|>Be brief.<|user|>Hi<|assistant|><think>"
    );
    assert_eq!(
        user_prompt(&t, Some(false)),
        "[gMASK]<sop><|system|>Be brief.<|user|>Hi<|assistant|></think>"
    );
}

#[test]
fn gpt_oss_prompt_shape() {
    let prompt = user_prompt(&template("openai-gpt-oss-120b.jinja"), None);
    assert!(prompt.starts_with(
        "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: "
    ), "{prompt}");
    // strftime_now("%Y-%m-%d")
    let date = &prompt[prompt.find("Current date: ").unwrap() + 14..][..10];
    assert!(
        date.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 {
            b == b'-'
        } else {
            b.is_ascii_digit()
        }),
        "{date}"
    );
    assert!(prompt.ends_with(
        "<|start|>developer<|message|># Instructions\n\nBe brief.\n\n<|end|><|start|>user<|message|>Hi<|end|><|start|>assistant"
    ), "{prompt}");
}

#[test]
fn kimi_k2_thinking_prompt_and_tool_ids() {
    let t = template("Kimi-K2-Thinking.jinja");
    assert_eq!(
        user_prompt(&t, None),
        "<|im_system|>system<|im_middle|>Be brief.<|im_end|><|im_user|>user<|im_middle|>Hi<|im_end|>\
         <|im_assistant|>assistant<|im_middle|>"
    );
    // The call ids are queued with `ns.ids.append(…)` and taken back with `.pop(0)` for the results.
    let input = RenderInput::new(vec![
        json!({"role": "user", "content": "Weather in Lyon and Paris?"}),
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lyon"}}},
            {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
        ]}),
        json!({"role": "tool", "tool_call_id": "a", "content": "sunny"}),
        json!({"role": "tool", "tool_call_id": "b", "content": "rainy"}),
    ])
    .with_generation_prompt(true);
    let prompt = t.render(&input).unwrap();
    assert!(prompt.contains(
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Lyon\"}<|tool_call_end|>\
         <|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>"
    ), "{prompt}");
    assert!(
        prompt.contains("## Return of functions.get_weather:0\nsunny<|im_end|>"),
        "{prompt}"
    );
    assert!(
        prompt.contains("## Return of functions.get_weather:1\nrainy<|im_end|>"),
        "{prompt}"
    );
    assert!(
        prompt.ends_with("<|im_assistant|>assistant<|im_middle|>"),
        "{prompt}"
    );
}

#[test]
fn qwen3_tools_json_as_hugging_face_prints_it() {
    // The context as JSON text keeps the tool's key order, as Python dicts do.
    let context = r#"{
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather",
            "description": "Weather <now> & 'here', in °C", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
        "add_generation_prompt": true
    }"#;
    let prompt = template("Qwen-Qwen3-0.6B.jinja")
        .render_json(context)
        .unwrap();
    assert_eq!(
        prompt,
        "<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n\
         {\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather <now> & 'here', in °C\", \
         \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}\n\
         </tools>\n\nFor each function call, return a json object with function name and arguments within \
         <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n\
         </tool_call><|im_end|>\n<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
    );
}

#[test]
fn llama_31_tools_with_indent_4() {
    let input = RenderInput::new(vec![json!({"role": "user", "content": "Weather?"})])
        .with_tools(vec![json!({"function": {"description": "d", "name": "f", "parameters": {"type": "object"}}, "type": "function"})])
        .with_generation_prompt(true);
    let prompt = template("meta-llama-Llama-3.1-8B-Instruct.jinja")
        .render(&input)
        .unwrap();
    assert!(prompt.contains(
        "{\n    \"function\": {\n        \"description\": \"d\",\n        \"name\": \"f\",\n        \"parameters\": {\n            \"type\": \"object\"\n        }\n    },\n    \"type\": \"function\"\n}\n\n"
    ), "{prompt}");
}

#[test]
fn command_r_plus_indent_keeps_trailing_newlines() {
    let input = RenderInput::new(tool_messages(json!(""))).with_tools(vec![weather_tool()]);
    let prompt = template("CohereForAI-c4ai-command-r-plus-tool_use.jinja")
        .render(&input)
        .unwrap();
    assert!(prompt.contains(
        "<|CHATBOT_TOKEN|>\nAction:\n```json\n[\n    {\n        \"tool_name\": \"get_weather\",\n        \"parameters\": {\n            \"city\": \"Lyon\"\n        }\n    }\n]```\n"
    ), "{prompt}");
}

// ---- the Python behaviour, on small templates -------------------------------------------------

fn render_src(source: &str, context: &str) -> Result<String, parser_auto::Error> {
    ChatTemplate::from_source(source)?.render_json(context)
}

#[test]
fn tojson_is_json_dumps_byte_for_byte() {
    let x = r#"{"x": {"a": 1, "b": [1, 2], "c": "<é>"}}"#;
    assert_eq!(
        render_src("{{ x|tojson }}", x).unwrap(),
        r#"{"a": 1, "b": [1, 2], "c": "<é>"}"#
    );
    assert_eq!(
        render_src("{{ x|tojson(ensure_ascii=True) }}", x).unwrap(),
        r#"{"a": 1, "b": [1, 2], "c": "<\u00e9>"}"#
    );
    assert_eq!(
        render_src("{{ x|tojson(ensure_ascii=False) }}", x).unwrap(),
        r#"{"a": 1, "b": [1, 2], "c": "<é>"}"#
    );
    assert_eq!(
        render_src("{{ x|tojson(indent=2) }}", x).unwrap(),
        "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ],\n  \"c\": \"<é>\"\n}"
    );
    assert_eq!(
        render_src("{{ x|tojson(separators=(',', ':')) }}", x).unwrap(),
        r#"{"a":1,"b":[1,2],"c":"<é>"}"#
    );
    // Key order is the input's; sort_keys sorts.
    let y = r#"{"y": {"b": 1, "a": {"z": null, "y": true}, "c": 2.5}}"#;
    assert_eq!(
        render_src("{{ y|tojson }}", y).unwrap(),
        r#"{"b": 1, "a": {"z": null, "y": true}, "c": 2.5}"#
    );
    assert_eq!(
        render_src("{{ y|tojson(sort_keys=True) }}", y).unwrap(),
        r#"{"a": {"y": true, "z": null}, "b": 1, "c": 2.5}"#
    );
    // The same through RenderInput (whose serde_json maps iterate sorted unless preserve_order is on).
    let t = ChatTemplate::from_source("{{ x|tojson }}").unwrap();
    let input = RenderInput::default().with_kwarg(
        "x",
        json!({"a": 1, "b": [1, 2], "c": "<é>", "d": 1.0, "e": "\"\n"}),
    );
    assert_eq!(
        t.render(&input).unwrap(),
        r#"{"a": 1, "b": [1, 2], "c": "<é>", "d": 1.0, "e": "\"\n"}"#
    );
}

#[test]
fn namespace_lists_support_append_pop_and_extend() {
    let src = "{%- set ns = namespace(ids=[], n=0) -%}\
               {%- for m in messages %}{% set _ = ns.ids.append(m) %}{% endfor -%}\
               {%- set _ = ns.ids.extend(['x', 'y']) -%}\
               {{ ns.ids|length }} {{ ns.ids.pop(0) }} {{ ns.ids.pop() }} {{ ns.ids|tojson }} {{ ns.ids[-1] }} \
               {%- for i in ns.ids %} {{ loop.index }}={{ i }}{% endfor %} {{ 'x' in ns.ids }} {{ ns.ids.index('x') }}";
    assert_eq!(
        render_src(src, r#"{"messages": ["a", "b"]}"#).unwrap(),
        r#"4 a y ["b", "x"] x 1=b 2=x True 1"#
    );
    // Lists given to the template are mutable too.
    assert_eq!(
        render_src("{% set _ = xs.append(3) %}{{ xs }}", r#"{"xs": [1, 2]}"#).unwrap(),
        "[1, 2, 3]"
    );
    let err = render_src(
        "{{ ns.ids.pop() }}{% set ns = namespace(ids=[]) %}{{ ns.ids.pop() }}",
        r#"{"ns": {"ids": []}}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("pop from empty list"), "{err}");
}

#[test]
fn iterable_and_length_as_in_python() {
    let src = "{{ tools is iterable and tools|length > 0 }} {{ missing is iterable }} {{ missing|length }}";
    assert_eq!(
        render_src(src, r#"{"tools": null}"#).unwrap(),
        "False True 0"
    );
    assert_eq!(render_src(src, r#"{"tools": [1]}"#).unwrap(), "True True 0");
    // Qwen3-Coder and Nemotron-3-Nano test `tools is iterable and tools|length > 0` with tools = none.
    for file in [
        "Qwen3-Coder.jinja",
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
    ] {
        template(file)
            .render(&RenderInput::new(basic_messages(true)))
            .unwrap();
    }
}

#[test]
fn raise_exception_is_an_error_with_the_message() {
    let t = ChatTemplate::from_source(
        "{% if messages|length == 0 %}{{ raise_exception('No messages, sorry!') }}{% endif %}ok",
    )
    .unwrap();
    let err = t.render(&RenderInput::default()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidOption(_)));
    assert!(err.to_string().contains("No messages, sorry!"), "{err}");
    assert_eq!(
        t.render(&RenderInput::new(vec![
            json!({"role": "user", "content": "x"})
        ]))
        .unwrap(),
        "ok"
    );
}

#[test]
fn template_errors_are_errors_not_panics() {
    assert!(ChatTemplate::from_source("{% for x in %}").is_err());
    let t = ChatTemplate::from_source("{{ messages[0].content.nope() }}").unwrap();
    assert!(
        t.render(&RenderInput::new(vec![
            json!({"role": "user", "content": "x"})
        ]))
        .is_err()
    );
    assert!(t.render_json("[1, 2]").is_err());
    assert!(t.render_json("{").is_err());
}

#[test]
fn context_variables() {
    let t = ChatTemplate::from_source(
        "{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}|{{ enable_thinking }}|{{ thinking }}|\
         {{ tools }}|{{ documents }}|{{ reasoning_effort }}|{{ strftime_now('%Y')|length }}|{{ messages|length }}",
    )
    .unwrap()
    .with_tokens("<s>", "</s>");
    let input = RenderInput::default()
        .with_generation_prompt(true)
        .with_enable_thinking(Some(false))
        .with_kwarg("reasoning_effort", json!("high"));
    assert_eq!(
        t.render(&input).unwrap(),
        "<s>|</s>|True|False|False|None|None|high|4|0"
    );
    // Extra keyword arguments override.
    let input = RenderInput::default()
        .with_enable_thinking(Some(true))
        .with_kwarg("thinking", json!(false));
    assert!(t.render(&input).unwrap().contains("|True|False|"));
    assert_eq!(
        t.render(&RenderInput::default()).unwrap(),
        "<s>|</s>|False|||None|None||4|0"
    );
}

/// Rendering cost: 40 variants per template (debug builds are what the analyzer's tests run).
/// `cargo test -p parser-auto --test template_render -- --ignored --nocapture render_timing`
#[test]
#[ignore = "timing report, not a check"]
fn render_timing() {
    let mut total = Duration::ZERO;
    for file in all_templates() {
        let start = Instant::now();
        let t = template(&file);
        let compile = start.elapsed();
        let start = Instant::now();
        let _ = t.arguments_as_string();
        let probe = start.elapsed();
        let with_system = !NO_SYSTEM_ROLE.contains(&file.as_str());
        let start = Instant::now();
        let mut renders = 0;
        for i in 0..40 {
            let mut messages = basic_messages(with_system);
            messages.push(json!({"role": "assistant", "content": format!("answer {i}")}));
            messages.push(json!({"role": "user", "content": format!("question {i}")}));
            let input = required_kwargs(
                &file,
                RenderInput::new(messages)
                    .with_generation_prompt(i % 2 == 0)
                    .with_enable_thinking([None, Some(true), Some(false)][i % 3]),
            );
            if t.render(&input).is_ok() {
                renders += 1;
            }
        }
        let elapsed = start.elapsed();
        total += elapsed;
        println!(
            "{file:55} compile {compile:>9.2?} probe {probe:>9.2?} | {renders} renders {elapsed:>9.2?} ({:.2?} each)",
            elapsed / 40
        );
    }
    println!("total {total:.2?}");
}
