//! The analyzer over every template in `templates/`, against what `templates/MANIFEST.md` says each one
//! does: runs without a panic, and every disagreement with the manifest is listed here with its reason.
//!
//! The manifest describes formats in prose. `MANIFEST_CLASSES` transcribes each row into the
//! analysis's vocabulary; `transcription_follows_the_manifest_text` checks the transcription wherever the
//! prose names a class itself, so the two cannot drift apart silently.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use parser_auto::analyze::{Analysis, analyze};
use parser_auto::template::ChatTemplate;

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates")
}

/// Each manifest row as (file, tool-call format, reasoning mode), in the analysis's serde names.
/// Prose without a class name was read as: a name in markup with JSON arguments (DeepSeek, Kimi, Mistral
/// `[TOOL_CALLS]name[ARGS]`, harmony's `to=functions.NAME`, functionary's `>>>NAME`) is TAG_WITH_JSON;
/// "JSON in/after a marker" is JSON_NATIVE; XML with one element per argument is TAG_WITH_TAGGED; any
/// reasoning style other than "none" (forced open, delimiter, channel) is TAG_BASED.
const MANIFEST_CLASSES: &[(&str, &str, &str)] = &[
    ("Apertus-8B-Instruct.jinja", "JSON_NATIVE", "TAG_BASED"),
    (
        "Apriel-1.6-15b-Thinker-fixed.jinja",
        "JSON_NATIVE",
        "TAG_BASED",
    ),
    ("Bielik-11B-v3.0-Instruct.jinja", "JSON_NATIVE", "TAG_BASED"),
    ("ByteDance-Seed-OSS.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    (
        "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    (
        "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
        "JSON_NATIVE",
        "TAG_BASED",
    ),
    ("GLM-4.6.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    ("GLM-4.7-Flash.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    ("GigaChat3-10B-A1.8B.jinja", "JSON_NATIVE", "NONE"),
    ("GigaChat3.1-10B-A1.8B.jinja", "JSON_NATIVE", "NONE"),
    ("Kimi-K2-Instruct.jinja", "TAG_WITH_JSON", "NONE"),
    ("Kimi-K2-Thinking.jinja", "TAG_WITH_JSON", "TAG_BASED"),
    ("LFM2-8B-A1B.jinja", "PYTHONIC", "NONE"),
    ("MiMo-VL.jinja", "JSON_NATIVE", "TAG_BASED"),
    ("MiniMax-M2.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    (
        "Mistral-Small-3.2-24B-Instruct-2506.jinja",
        "TAG_WITH_JSON",
        "NONE",
    ),
    (
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
        "TAG_WITH_TAGGED",
        "TAG_BASED",
    ),
    ("NVIDIA-Nemotron-Nano-v2.jinja", "JSON_NATIVE", "TAG_BASED"),
    (
        "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    (
        "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    ("Qwen-QwQ-32B.jinja", "JSON_NATIVE", "TAG_BASED"),
    ("Qwen-Qwen2.5-7B-Instruct.jinja", "JSON_NATIVE", "NONE"),
    ("Qwen-Qwen3-0.6B.jinja", "JSON_NATIVE", "TAG_BASED"),
    ("Qwen3-Coder.jinja", "TAG_WITH_TAGGED", "NONE"),
    ("StepFun3.5-Flash.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    ("openbmb-MiniCPM5.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    ("MiniMax-M3.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    ("GigaChat3.5.jinja", "TAG_WITH_TAGGED", "TAG_BASED"),
    (
        "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
        "TAG_WITH_JSON",
        "TAG_BASED",
    ),
    (
        "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
        "TAG_WITH_JSON",
        "TAG_BASED",
    ),
    (
        "deepseek-ai-DeepSeek-V3.1.jinja",
        "TAG_WITH_JSON",
        "TAG_BASED",
    ),
    (
        "fireworks-ai-llama-3-firefunction-v2.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    ("google-gemma-2-2b-it.jinja", "NONE", "NONE"),
    ("google-gemma-4-31B-it.jinja", "NONE", "TAG_BASED"),
    (
        "ibm-granite-granite-3.3-2B-Instruct.jinja",
        "JSON_NATIVE",
        "TAG_BASED",
    ),
    ("llama-cpp-deepseek-r1.jinja", "TAG_WITH_JSON", "TAG_BASED"),
    ("llama-cpp-rwkv-world.jinja", "NONE", "TAG_BASED"),
    (
        "meetkai-functionary-medium-v3.1.jinja",
        "TAG_WITH_JSON",
        "NONE",
    ),
    (
        "meetkai-functionary-medium-v3.2.jinja",
        "TAG_WITH_JSON",
        "NONE",
    ),
    (
        "meta-llama-Llama-3.1-8B-Instruct.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    (
        "meta-llama-Llama-3.2-3B-Instruct.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    (
        "meta-llama-Llama-3.3-70B-Instruct.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    ("microsoft-Phi-3.5-mini-instruct.jinja", "NONE", "NONE"),
    (
        "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
        "TAG_WITH_JSON",
        "TAG_BASED",
    ),
    (
        "mistralai-Mistral-Nemo-Instruct-2407.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    ("moonshotai-Kimi-K2.jinja", "TAG_WITH_JSON", "NONE"),
    ("openai-gpt-oss-120b.jinja", "TAG_WITH_JSON", "TAG_BASED"),
    (
        "stepfun-ai-Step-3.5-Flash.jinja",
        "TAG_WITH_TAGGED",
        "TAG_BASED",
    ),
    ("unsloth-Apriel-1.5.jinja", "JSON_NATIVE", "TAG_BASED"),
    (
        "unsloth-mistral-Devstral-Small-2507.jinja",
        "TAG_WITH_JSON",
        "NONE",
    ),
    ("upstage-Solar-Open-100B.jinja", "JSON_NATIVE", "TAG_BASED"),
    ("ai21labs-AI21-Jamba-Mini-1.7.jinja", "JSON_NATIVE", "NONE"),
    (
        "vllm-tool_chat_template_internlm2_tool.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    ("vllm-tool_chat_template_olmo3.jinja", "PYTHONIC", "NONE"),
    (
        "vllm-tool_chat_template_phi4_mini.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    (
        "vllm-tool_chat_template_xlam_qwen.jinja",
        "JSON_NATIVE",
        "NONE",
    ),
    (
        "tencent-Hunyuan-A13B-Instruct.jinja",
        "JSON_NATIVE",
        "TAG_BASED",
    ),
];

/// Where the analysis disagrees with the manifest: (file, field, what the analysis finds, why).
const DISAGREEMENTS: &[(&str, &str, &str, &str)] = &[
    (
        "google-gemma-4-31B-it.jinja",
        "tools",
        "TAG_WITH_TAGGED",
        "the analyzer reads `call:NAME{key:VALUE}` as a name and tagged arguments, but Gemma 4's values \
         are its own syntax (bare keys, `<|\"|>` strings, nested objects and arrays), which no class of the \
         generic engine reads: the template routes to the gemma4 family by signature",
    ),
    (
        "Kimi-K2-Thinking.jinja",
        "reasoning",
        "TOOLS_ONLY",
        "the template keeps `<think>` text only for the messages after the last assistant answer without \
         tool calls (the running tool loop); earlier turns get an empty `<think></think>`. The model \
         still thinks every turn: the template routes to the kimi-k2-thinking family by signature, which \
         reads `<think>` everywhere",
    ),
    (
        "MiMo-VL.jinja",
        "reasoning",
        "NONE",
        "the manifest notes the model emits `<think>` but the template never renders reasoning, so no \
         render differs; a template-only analysis cannot see it (the two corpus cases have no reasoning)",
    ),
    (
        "unsloth-Apriel-1.5.jinja",
        "reasoning",
        "NONE",
        "`[BEGIN FINAL RESPONSE]` appears only in the system prompt's prose; the only rendered reasoning \
         (`<thinking>` from `message.thought`) is behind an `add_thoughts` switch the template never \
         sets. llama.cpp's corpus runs it with reasoning_format=none, so the cases still pass",
    ),
    (
        "upstage-Solar-Open-100B.jinja",
        "tools",
        "TAG_WITH_JSON",
        "the manifest's `<|tool_calls|>` JSON section is loose: the template writes \
         `<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{json}<|tool_call:end|>`, a name \
         in markup with an id before it (call id PRE_FUNC_NAME)",
    ),
    (
        "vllm-tool_chat_template_olmo3.jinja",
        "tools",
        "TAG_WITH_TAGGED",
        "Olmo 3 writes Python calls one per line inside `<function_calls>`, without a list; the analyzer \
         has no probe for that shape and reads the rendered call as tagged markup. The template routes \
         to the olmo3 family by signature, whose spec is PYTHONIC",
    ),
];

/// The `| \`file\` | model | family | tools | reasoning | …` rows of the manifest's table.
fn manifest_rows() -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(templates_dir().join("MANIFEST.md")).expect("MANIFEST.md");
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        // Cells are separated by ` | `; escaped pipes inside code (`\|`) are not separators.
        let cells: Vec<String> = line
            .replace("\\|", "\u{0}")
            .split('|')
            .map(|c| c.trim().replace('\u{0}', "|"))
            .collect();
        let file = cells[1].trim_matches('`').to_owned();
        rows.insert(file, (cells[4].clone(), cells[5].clone()));
    }
    rows
}

fn class_named_in(tools_prose: &str) -> Option<&'static str> {
    let lower = tools_prose.to_lowercase();
    [
        ("TAG_WITH_TAGGED", "TAG_WITH_TAGGED"),
        ("TAG_WITH_JSON", "TAG_WITH_JSON"),
        ("JSON_NATIVE", "JSON_NATIVE"),
    ]
    .into_iter()
    .find(|(word, _)| tools_prose.contains(word))
    .map(|(_, class)| class)
    .or_else(|| lower.starts_with("pythonic").then_some("PYTHONIC"))
    .or_else(|| lower.starts_with("none").then_some("NONE"))
}

#[test]
fn transcription_follows_the_manifest_text() {
    let rows = manifest_rows();
    let transcribed: BTreeSet<&str> = MANIFEST_CLASSES.iter().map(|(f, _, _)| *f).collect();
    let listed: BTreeSet<&str> = rows.keys().map(String::as_str).collect();
    assert_eq!(
        transcribed, listed,
        "MANIFEST_CLASSES must list exactly the manifest's templates"
    );
    let on_disk: BTreeSet<String> = std::fs::read_dir(templates_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".jinja"))
        .collect();
    assert_eq!(
        on_disk.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        listed
    );

    for (file, tools, reasoning) in MANIFEST_CLASSES {
        let (tools_prose, reasoning_prose) = &rows[*file];
        if let Some(named) = class_named_in(tools_prose) {
            assert_eq!(*tools, named, "{file}: the manifest says {tools_prose:?}");
        }
        let none = reasoning_prose.eq_ignore_ascii_case("none");
        assert_eq!(
            *reasoning == "NONE",
            none,
            "{file}: the manifest says {reasoning_prose:?}"
        );
    }
}

fn class(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn analysis_of(file: &str) -> Analysis {
    let template = ChatTemplate::from_file(&templates_dir().join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    analyze(&template)
}

#[test]
fn every_template_is_analysed_and_every_disagreement_with_the_manifest_is_explained() {
    let mut table = String::from(
        "| template | tools (manifest) | tools (analysis) | reasoning (manifest) | reasoning (analysis) |\n|---|---|---|---|---|\n",
    );
    let mut unexplained = Vec::new();
    let mut seen = BTreeSet::new();
    for (file, want_tools, want_reasoning) in MANIFEST_CLASSES {
        let analysis = analysis_of(file);
        let got_tools = class(analysis.tools);
        let got_reasoning = class(analysis.reasoning);
        table += &format!(
            "| {file} | {want_tools} | {got_tools} | {want_reasoning} | {got_reasoning} |\n"
        );
        for (field, want, got) in [
            ("tools", *want_tools, &got_tools),
            ("reasoning", *want_reasoning, &got_reasoning),
        ] {
            if want == got {
                continue;
            }
            match DISAGREEMENTS
                .iter()
                .find(|(f, d, _, _)| f == file && *d == field)
            {
                Some((_, _, ours, _)) if ours == got => {
                    seen.insert((*file, field));
                }
                _ => unexplained.push(format!(
                    "{file}: {field} is {got}, the manifest says {want}"
                )),
            }
        }
    }
    println!("{table}");
    assert!(
        unexplained.is_empty(),
        "disagreements without a reason:\n{}",
        unexplained.join("\n")
    );
    let stale: Vec<_> = DISAGREEMENTS
        .iter()
        .filter(|(f, d, _, _)| !seen.contains(&(*f, *d)))
        .map(|(f, d, ours, _)| format!("{f}: {d} {ours}"))
        .collect();
    assert!(
        stale.is_empty(),
        "listed disagreements that no longer occur:\n{}",
        stale.join("\n")
    );
}

#[test]
fn analyses_are_deterministic_and_survive_a_serde_round_trip() {
    for (file, _, _) in MANIFEST_CLASSES {
        let analysis = analysis_of(file);
        let json = serde_json::to_string(&analysis).unwrap();
        let back: Analysis = serde_json::from_str(&json).unwrap();
        assert_eq!(back, analysis, "{file}: serde round trip");
        assert_eq!(
            analysis_of(file),
            analysis,
            "{file}: a second analysis differs"
        );
    }
}

#[test]
fn generation_prompts_are_what_follows_the_user_message() {
    // The analysis' user message is `U_USER_MSG Hello END_U`: no part of it, or of any other probe
    // needle, may show in what it reports as the generation prompt.
    for (file, _, _) in MANIFEST_CLASSES {
        let analysis = analysis_of(file);
        let prompts = std::iter::once(&analysis.generation_prompt)
            .chain(analysis.generation_prompt_no_thinking.as_ref());
        for prompt in prompts {
            for needle in ["USER_MSG", "Hello", "END_U", "_U"] {
                assert!(!prompt.contains(needle), "{file}: {prompt:?}");
            }
        }
    }
    let expected = [
        ("mistralai-Mistral-Nemo-Instruct-2407.jinja", "[/INST]"),
        (
            "Qwen-Qwen2.5-7B-Instruct.jinja",
            "<|im_end|>\n<|im_start|>assistant\n",
        ),
        ("GLM-4.7-Flash.jinja", "<|assistant|><think>"),
        (
            "google-gemma-2-2b-it.jinja",
            "<end_of_turn>\n<start_of_turn>model\n",
        ),
    ];
    for (file, prompt) in expected {
        assert_eq!(analysis_of(file).generation_prompt, prompt, "{file}");
    }
}
