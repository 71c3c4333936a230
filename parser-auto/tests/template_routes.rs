//! The route every chat template in `templates/` takes when the model name is unknown: a family parser
//! when the template carries a token only that family writes (or, for Qwen, its ChatML `<tool_call>`
//! with Qwen's own tool instructions), plain content when the analysis finds no
//! marker, the analyzer's generic parser otherwise. A new signature, or an analysis that changes its
//! mind, shows up here as a changed row.

use std::path::{Path, PathBuf};

use parser_auto::Route;
use parser_auto::template::ChatTemplate;
use parser_core::ParseOptions;

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates")
}

/// Templates routed to a family by signature.
const BY_SIGNATURE: &[(&str, &str)] = &[
    ("GLM-4.6.jinja", "glm-4.5"),
    ("GLM-4.7-Flash.jinja", "glm-4.7"),
    ("Kimi-K2-Instruct.jinja", "kimi-k2"),
    // Qwen2.5's template with MiMo's default system prompt: the same format.
    ("MiMo-VL.jinja", "qwen2.5"),
    ("Qwen-QwQ-32B.jinja", "qwen3-thinking"),
    ("Qwen-Qwen2.5-7B-Instruct.jinja", "qwen2.5"),
    ("Qwen-Qwen3-0.6B.jinja", "qwen3"),
    ("Qwen3-Coder.jinja", "qwen3-coder"),
    ("Kimi-K2-Thinking.jinja", "kimi-k2-thinking"),
    (
        "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
        "deepseek-r1",
    ),
    (
        "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
        "deepseek-r1",
    ),
    ("deepseek-ai-DeepSeek-V3.1.jinja", "deepseek-v3.1"),
    ("llama-cpp-deepseek-r1.jinja", "deepseek-r1"),
    ("moonshotai-Kimi-K2.jinja", "kimi-k2"),
    ("openai-gpt-oss-120b.jinja", "gpt-oss"),
    ("Mistral-Small-3.2-24B-Instruct-2506.jinja", "mistral"),
    ("unsloth-mistral-Devstral-Small-2507.jinja", "mistral"),
    ("mistralai-Mistral-Nemo-Instruct-2407.jinja", "mistral-v0.3"),
    (
        "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
        "magistral",
    ),
    ("meta-llama-Llama-3.1-8B-Instruct.jinja", "llama3"),
    ("meta-llama-Llama-3.2-3B-Instruct.jinja", "llama3"),
    ("meta-llama-Llama-3.3-70B-Instruct.jinja", "llama3"),
    // Issue 15: the families written as data.
    ("Apertus-8B-Instruct.jinja", "apertus"),
    ("Apriel-1.6-15b-Thinker-fixed.jinja", "apriel"),
    ("unsloth-Apriel-1.5.jinja", "apriel"),
    (
        "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
        "command-r-plus",
    ),
    (
        "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
        "command-a",
    ),
    ("GigaChat3-10B-A1.8B.jinja", "gigachat3"),
    ("GigaChat3.1-10B-A1.8B.jinja", "gigachat3"),
    ("LFM2-8B-A1B.jinja", "lfm2"),
    ("StepFun3.5-Flash.jinja", "step-3.5"),
    ("stepfun-ai-Step-3.5-Flash.jinja", "step-3.5"),
    (
        "fireworks-ai-llama-3-firefunction-v2.jinja",
        "firefunction-v2",
    ),
    ("google-gemma-2-2b-it.jinja", "gemma"),
    ("google-gemma-4-31B-it.jinja", "gemma4"),
    ("vllm-tool_chat_template_phi4_mini.jinja", "phi4-mini"),
    ("vllm-tool_chat_template_xlam_qwen.jinja", "xlam"),
    ("vllm-tool_chat_template_internlm2_tool.jinja", "internlm2"),
    ("ai21labs-AI21-Jamba-Mini-1.7.jinja", "jamba"),
    ("vllm-tool_chat_template_olmo3.jinja", "olmo3"),
    ("meetkai-functionary-medium-v3.1.jinja", "functionary-v3.1"),
    ("meetkai-functionary-medium-v3.2.jinja", "functionary-v3.2"),
    ("ByteDance-Seed-OSS.jinja", "seed-oss"),
    ("MiniMax-M2.jinja", "minimax-m2"),
    (
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
        "nemotron-3-nano",
    ),
    ("NVIDIA-Nemotron-Nano-v2.jinja", "nemotron-nano-v2"),
    (
        "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
        "hermes",
    ),
    (
        "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
        "hermes",
    ),
    ("ibm-granite-granite-3.3-2B-Instruct.jinja", "granite"),
    ("tencent-Hunyuan-A13B-Instruct.jinja", "hunyuan-a13b"),
    ("upstage-Solar-Open-100B.jinja", "solar-open"),
    ("openbmb-MiniCPM5.jinja", "minicpm5"),
    ("MiniMax-M3.jinja", "minimax-m3"),
    ("GigaChat3.5.jinja", "gigachat3.5"),
];

/// Templates whose analysis finds no tool, reasoning or content marker.
const PLAIN: &[&str] = &["microsoft-Phi-3.5-mini-instruct.jinja"];

#[test]
fn every_template_takes_its_route() {
    let mut files: Vec<String> = std::fs::read_dir(templates_dir())
        .expect("templates/")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".jinja"))
        .collect();
    files.sort();
    assert!(files.len() >= 47, "{} templates", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        let template = ChatTemplate::from_file(&templates_dir().join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let expected = match BY_SIGNATURE.iter().find(|(name, _)| name == file) {
            Some((_, family)) => Route::TemplateSignature(family),
            None if PLAIN.contains(&file.as_str()) => Route::PlainContent,
            None => Route::Analyzer,
        };
        let route = parser_auto::route_for_template(&template);
        let prepared = parser_auto::prepare(None, Some(&template)).expect("a template resolves");
        if route != expected || prepared.route != expected {
            wrong.push(format!(
                "{file}: {route} (prepare: {}), expected {expected}",
                prepared.route
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// GLM's templates reach the GLM family, which reads both call layouts and takes its stage from the
/// rendered prompt.
#[test]
fn glm_templates_parse_with_the_glm_family() {
    for (file, tail, output, reasoning) in [
        (
            "GLM-4.6.jinja",
            "<|user|>\nWeather?<|assistant|>",
            "\n<think>Look it up.</think>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            "Look it up.",
        ),
        (
            "GLM-4.7-Flash.jinja",
            "<|user|>Weather?<|assistant|><think>",
            "Look it up.</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
            "Look it up.",
        ),
    ] {
        let template = ChatTemplate::from_file(&templates_dir().join(file)).expect("template");
        let options = ParseOptions::new().with_prompt_tail(tail);
        let resolved = parser_auto::for_template(&template, &options);
        let message = resolved.parser.parse(output);
        assert_eq!(message.reasoning.as_deref(), Some(reasoning), "{file}");
        assert_eq!(message.tool_calls.len(), 1, "{file}: {message:?}");
        assert_eq!(message.tool_calls[0].name, "get_weather");
        assert_eq!(
            message.tool_calls[0].arguments, r#"{"city": "Paris"}"#,
            "{file}"
        );
    }
}

/// Other vendors' templates with GLM's `<arg_key>` / `<arg_value>` calls reach their own families, told
/// apart by their turn markup (the generation prompts of Poolside Laguna XS-2.1 and Ling-3.0-flash,
/// with their call instructions); GLM's keep theirs (`every_template_takes_its_route`).
#[rstest::rstest]
#[case::laguna(
    "{{- '<tool_call>function-name\\n<arg_key>argument-key</arg_key>\\n<arg_value>value</arg_value>\\n</tool_call>' -}}{%- for m in messages -%}{{- '<user>\\n' + m.content + '\\n</user>\\n' -}}{%- endfor -%}{%- if add_generation_prompt -%}{{- '<assistant>\\n' -}}{%- if enable_thinking -%}{{- '<think>' -}}{%- else -%}{{- '</think>' -}}{%- endif -%}{%- endif -%}{{- '</assistant>' if false else '' -}}",
    "laguna"
)]
#[case::ling3(
    "{{- '<tool_call>{function-name}\\n<arg_key>{arg-key-1}</arg_key>\\n<arg_value>{arg-value-1}</arg_value>\\n</tool_call>' -}}{%- for m in messages -%}{{- '<role>HUMAN</role>' + m.content + '<|role_end|>' -}}{%- endfor -%}{%- if add_generation_prompt -%}{{- '<role>ASSISTANT</role>\\n<think>' -}}{%- endif -%}",
    "ling-3"
)]
fn glm_layout_templates_of_other_vendors_reach_their_family(
    #[case] source: &str,
    #[case] family: &'static str,
) {
    let template = ChatTemplate::from_source(source).unwrap();
    assert_eq!(
        parser_auto::route_for_template(&template),
        Route::TemplateSignature(family)
    );
}

/// Gemma 4's template: the prompt it renders decides where the output starts (thinking off closes an
/// empty thought channel; after a tool result with thinking on, the channel is open), and the parser
/// it routes to reads Gemma's value syntax.
#[rstest::rstest]
#[case::thinking_off(false, false, "Sunny.", None, Some("Sunny."))]
#[case::thinking_on(
    true,
    false,
    "<|channel>thought\nHmm.<channel|>Sunny.",
    Some("Hmm."),
    Some("Sunny.")
)]
#[case::after_a_tool_result(
    true,
    true,
    "It is sunny.<channel|>Sunny.",
    Some("It is sunny."),
    Some("Sunny.")
)]
fn gemma4_template_prompts_decide_the_stage(
    #[case] thinking: bool,
    #[case] after_tool: bool,
    #[case] output: &str,
    #[case] reasoning: Option<&str>,
    #[case] content: Option<&str>,
) {
    use parser_auto::template::RenderInput;
    use serde_json::json;
    let template = ChatTemplate::from_file(&templates_dir().join("google-gemma-4-31B-it.jinja"))
        .expect("template");
    let mut messages = vec![json!({"role": "user", "content": "Weather in Paris?"})];
    if after_tool {
        messages.push(json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1",
            "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"}));
    }
    let input = RenderInput {
        add_generation_prompt: true,
        enable_thinking: Some(thinking),
        ..RenderInput::new(messages)
    };
    let prompt = template.render(&input).expect("render");
    let options = ParseOptions::new().with_prompt_tail(&prompt);
    let resolved = parser_auto::for_template(&template, &options);
    assert_eq!(resolved.parser.name(), "gemma4");
    let message = resolved.parser.parse(output);
    assert_eq!(message.reasoning.as_deref(), reasoning, "{prompt:?}");
    assert_eq!(message.content.as_deref(), content, "{prompt:?}");
    let call = r#"<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>"#;
    let message = parser_auto::for_template(&template, &options)
        .parser
        .parse(&format!(
            "{}{call}",
            if after_tool && thinking {
                "Done.<channel|>"
            } else {
                ""
            }
        ));
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"city": "Paris", "days": 3}"#
    );
}
