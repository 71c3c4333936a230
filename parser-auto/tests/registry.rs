//! The registry as a server sees it through parser-auto: every enabled family is linked and found, names
//! in every engine's spelling resolve, and real model ids resolve to the right parser.

use parser_auto::{ErrorKind, ParseOptions};
use rstest::rstest;

// `inventory` silently drops a crate nothing references; this proves each enabled family is linked.
#[test]
fn every_enabled_family_is_registered() {
    for family in parser_auto::enabled_families() {
        assert!(
            parser_auto::entries()
                .iter()
                .any(|entry| entry.family == *family),
            "family {family} has no registered parser: is it referenced from parser-auto?"
        );
    }
    assert!(!parser_auto::entries().is_empty());
}

#[test]
fn every_entry_parses_its_own_sample() {
    for entry in parser_auto::entries() {
        let options = ParseOptions::new().with_prompt_tail(entry.sample_prompt_tail);
        let message = entry.parser(&options).parse(entry.sample);
        assert!(
            !message.tool_calls.is_empty() && message.tool_calls.iter().all(|c| c.valid),
            "{}: {message:?}",
            entry.name
        );
    }
}

#[test]
fn names_and_aliases_are_unique() {
    let mut seen = std::collections::HashMap::new();
    for entry in parser_auto::entries() {
        for name in std::iter::once(&entry.name).chain(entry.aliases) {
            let key = parser_core::normalize_name(name);
            if let Some(other) = seen.insert(key.clone(), entry.name)
                && other != entry.name
            {
                panic!("{key} is registered by both {other} and {}", entry.name);
            }
        }
    }
}

#[rstest]
#[case("deepseek-ai/DeepSeek-R1", "deepseek-r1")]
#[case("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1")]
#[case("unsloth/DeepSeek-R1-0528-GGUF", "deepseek-r1")]
#[case("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1")]
#[case("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "deepseek-r1")]
#[case("bartowski/DeepSeek-R1-Distill-Qwen-7B-Q4_K_M", "deepseek-r1")]
#[case("deepseek-ai/DeepSeek-V3", "deepseek-v3")]
#[case("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3")]
#[case("unsloth/DeepSeek-V3-0324-BF16", "deepseek-v3")]
#[case("deepseek-ai/DeepSeek-V3.1", "deepseek-v3.1")]
#[case("unsloth/DeepSeek-V3.1-GGUF", "deepseek-v3.1")]
#[case("unsloth/DeepSeek-V3.1-BF16", "deepseek-v3.1")]
#[case("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek-v3.1")]
#[case("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v3.1")]
#[case("deepseek-ai/DeepSeek-V3.2", "deepseek-v3.2")]
#[case("deepseek-ai/DeepSeek-V3.2-Speciale", "deepseek-v3.2")]
#[case("deepseek-ai/DeepSeek-V4-Flash", "deepseek-v4")]
#[case("deepseek-ai/DeepSeek-V4.1", "deepseek-v4.1")]
#[case("ai-sage/GigaChat3.5-432B-A28B", "gigachat3.5")]
#[case("upstage/Solar-Open-100B", "solar-open")]
#[case("LGAI-EXAONE/EXAONE-4.0-32B", "exaone4")]
#[case("LGAI-EXAONE/K-EXAONE-236B-A23B", "exaone4")]
#[case("sbintuitions/sarashina2.2-3b-instruct-v0.1", "sarashina")]
#[case("ai-sage/GigaChat3.5-432B-A28B-Reasoning", "gigachat3.5-reasoning")]
#[case("unsloth/DeepSeek-V4.1-Flash-GGUF", "deepseek-v4.1")]
#[case("DeepSeek-V3.1-FP8", "deepseek-v3.1")]
#[case("zai-org/GLM-4.5-Air", "glm-4.5")]
#[case("zai-org/GLM-4.6-FP8", "glm-4.5")]
#[case("zai-org/GLM-4.7", "glm-4.7")]
#[case("unsloth/GLM-4.7-Flash-GGUF", "glm-4.7")]
// Issue 18: Qwen3's Instruct and Thinking variants, across the families' patterns.
#[case("Qwen/Qwen3-8B", "qwen3")]
#[case("Qwen/Qwen3-VL-8B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-235B-A22B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-VL-8B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-VL-30B-A3B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3-thinking")]
#[case("Qwen/Qwen3-30B-A3B-Instruct-2507", "qwen3-instruct-2507")]
#[case("Qwen/Qwen3-30B-A3B-Thinking-2507", "qwen3-thinking")]
#[case("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder")]
#[case("Qwen/Qwen3.5-397B-A17B", "qwen3.5")]
#[case("Qwen/Qwen3.6-35B-A3B", "qwen3.5")]
#[case("mistralai/Mistral-7B-Instruct-v0.3", "mistral-v0.3")]
#[case("mistralai/Mistral-Nemo-Instruct-2407", "mistral-v0.3")]
#[case("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral")]
#[case("unsloth/Devstral-Small-2507-GGUF", "mistral")]
#[case("mistralai/Magistral-Small-2509", "magistral")]
#[case("mistralai/Ministral-3-14B-Reasoning-2512", "magistral")]
#[case("meta-llama/Llama-3.1-8B-Instruct", "llama3")]
#[case("meta-llama/Llama-3.3-70B-Instruct", "llama3")]
#[case("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4")]
// Issue 15: the families written as data.
#[case("XiaomiMiMo/MiMo-VL-7B-RL", "qwen2.5")]
#[case("CohereForAI/c4ai-command-r7b-12-2024", "command-a")]
#[case("CohereLabs/c4ai-command-a-03-2025", "command-a")]
#[case("CohereForAI/c4ai-command-r-plus-08-2024", "command-r-plus")]
#[case("LiquidAI/LFM2-8B-A1B", "lfm2")]
#[case("LiquidAI/LFM2.5-1.2B-Thinking", "lfm2")]
#[case("stepfun-ai/Step-3.5-Flash", "step-3.5")]
#[case("stepfun-ai/step3", "step-3")]
#[case("ai-sage/GigaChat3-10B-A1.8B", "gigachat3")]
#[case("ai-sage/GigaChat3.1-10B-A1.8B", "gigachat3")]
#[case("ServiceNow-AI/Apriel-1.6-15b-Thinker", "apriel")]
#[case("meetkai/functionary-medium-v3.1", "functionary-v3.1")]
#[case("meetkai/functionary-small-v3.2", "functionary-v3.2")]
#[case("swiss-ai/Apertus-8B-Instruct-2509", "apertus")]
#[case("fireworks-ai/llama-3-firefunction-v2", "firefunction-v2")]
#[case("google/gemma-2-2b-it", "gemma")]
#[case("google/gemma-3-27b-it", "gemma")]
#[case("google/functiongemma-270m-it", "functiongemma")]
#[case("google/gemma-4-31B-it", "gemma4")]
#[case("google/gemma-4-E4B-it", "gemma4")]
#[case("google/gemma-4-26B-A4B-it", "gemma4")]
#[case("unsloth/gemma-4-E2B-it-GGUF", "gemma4")]
#[case("NousResearch/Hermes-2-Pro-Llama-3-8B", "hermes")]
#[case("NousResearch/Hermes-3-Llama-3.1-8B", "hermes")]
#[case("NousResearch/Hermes-4-70B-FP8", "hermes")]
#[case("MiniMaxAI/MiniMax-M2", "minimax-m2")]
#[case("MiniMaxAI/MiniMax-M2.1", "minimax-m2")]
#[case("MiniMaxAI/MiniMax-M3", "minimax-m3")]
#[case("nvidia/MiniMax-M3-NVFP4", "minimax-m3")]
#[case("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed-oss")]
#[case("poolside/Laguna-XS.2", "laguna")]
#[case("poolside/Laguna-S-2.1", "laguna")]
#[case("inclusionAI/Ling-3.0-flash", "ling-3")]
#[case("IQuestLab/IQuest-Q1", "iquest-q1")]
#[case("XiaomiMiMo/MiMo-V2-Flash", "mimo")]
#[case("rednote-hilab/dots.llm1.inst", "dots")]
#[case("openbmb/MiniCPM5-8B", "minicpm5")]
#[case("openbmb/MiniCPM-V-4_5", "minicpmv")]
#[case("tencent/Hy4", "hy-v4")]
#[case("internlm/Intern-S1", "intern-s1")]
#[case("pfnet/plamo-3-nict-31b", "plamo3")]
#[case("arcee-ai/Trinity-Mini", "trinity")]
#[case("ibm-granite/granite-3.3-8b-instruct", "granite")]
#[case("ibm-granite/granite-4.0-h-small", "granite-4")]
#[case("ibm-granite/granite-20b-functioncalling", "granite-20b-fc")]
#[case("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron-nano-v2")]
#[case("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron-3-nano")]
#[case("baidu/ERNIE-4.5-21B-A3B-Thinking", "ernie-4.5")]
#[case("baidu/ERNIE-4.5-VL-28B-A3B-Thinking", "ernie-4.5")]
#[case("baidu/ERNIE-4.5-21B-A3B-PT", "ernie-4.5-instruct")]
#[case("baidu/ERNIE-4.5-300B-A47B-PT", "ernie-4.5-instruct")]
#[case("tencent/Hunyuan-A13B-Instruct", "hunyuan-a13b")]
#[case("tencent/Hunyuan-A13B-Instruct-FP8", "hunyuan-a13b")]
#[case("tencent/Hy3-preview", "hy-v3")]
#[case("meituan-longcat/LongCat-Flash-Chat", "longcat")]
#[case("meituan-longcat/LongCat-Flash-Thinking", "longcat")]
#[case("moonshotai/Kimi-K2-Instruct-0905", "kimi-k2")]
#[case("moonshotai/Kimi-K3", "kimi-k3")]
#[case("MBZUAI-IFM/K2-Horizon", "k2-horizon")]
#[case("thinkingmachines/Inkling", "inkling")]
#[case("meta-muse/Muse-Glimmer", "muse-glimmer")]
#[case("moonshotai/Kimi-K2-Thinking", "kimi-k2-thinking")]
#[case("moonshotai/Kimi-K2.5", "kimi-k2.5")]
#[case("moonshotai/Kimi-VL-A3B-Thinking-2506", "kimi-vl")]
#[case("openai/gpt-oss-120b", "gpt-oss")]
#[case("unsloth/gpt-oss-20b-GGUF", "gpt-oss")]
// Issue 15: Ollama's library names, `name:tag` (the quantisation after the last `-` is dropped as for
// GGUF files; the `:` is kept, so a pattern ending in `:` is for Ollama's names only).
#[case("deepseek-r1:8b", "deepseek-r1")]
#[case("deepseek-r1:1.5b-qwen-distill-q4_K_M", "deepseek-r1")]
#[case("deepseek-v3.1:671b", "deepseek-v3.1")]
#[case("qwen3:8b", "qwen3")]
#[case("qwen3:30b-a3b-thinking-2507-q4_K_M", "qwen3-thinking")]
#[case("qwen3:30b-a3b-instruct-2507-q4_K_M", "qwen3-instruct-2507")]
#[case("qwen3-coder:30b", "qwen3-coder")]
#[case("qwq:32b", "qwen3-thinking")]
#[case("qwen2.5:7b", "qwen2.5")]
#[case("qwen3.5:27b", "qwen3.5")]
#[case("kimi-k2:1t-cloud", "kimi-k2")]
#[case("kimi-k2-thinking:cloud", "kimi-k2-thinking")]
#[case("gpt-oss:20b", "gpt-oss")]
#[case("glm-4.7-flash:q4_K_M", "glm-4.7")]
#[case("glm-4.6:cloud", "glm-4.5")]
#[case("mistral:7b", "mistral-v0.3")]
#[case("mistral-nemo:12b", "mistral-v0.3")]
#[case("mistral-small:24b", "mistral-v0.3")]
#[case("mistral-small3.2:24b", "mistral")]
#[case("mixtral:8x22b", "mistral-v0.3")]
#[case("magistral:24b", "magistral")]
#[case("ministral-3:8b", "magistral")]
#[case("llama3.1:8b", "llama3")]
#[case("llama3.2:3b", "llama3")]
#[case("llama3.3:70b-instruct-q4_K_M", "llama3")]
#[case("llama4:scout", "llama4")]
// Without a tag, as Ollama reads it: `:latest`.
#[case("llama3.1", "llama3")]
#[case("mistral", "mistral-v0.3")]
#[case("command-r7b:7b", "command-a")]
#[case("command-a:111b", "command-a")]
#[case("command-r-plus:104b", "command-r-plus")]
#[case("lfm2.5-thinking:1.2b", "lfm2")]
#[case("firefunction-v2:70b", "firefunction-v2")]
#[case("gemma3:27b", "gemma")]
#[case("gemma4:31b", "gemma4")]
#[case("gemma4:e2b", "gemma4")]
#[case("functiongemma:270m", "functiongemma")]
#[case("hermes3:8b", "hermes")]
#[case("minimax-m2:cloud", "minimax-m2")]
#[case("granite3.3:8b", "granite")]
#[case("granite4:micro-h", "granite-4")]
#[case("nemotron-3-nano:30b", "nemotron-3-nano")]
#[case("microsoft/Phi-4-mini-instruct", "phi4-mini")]
#[case("Salesforce/Llama-xLAM-2-8B-fc-r", "xlam")]
#[case("Salesforce/xLAM-2-32b-fc-r", "xlam")]
#[case("internlm/internlm2_5-7b-chat", "internlm2")]
#[case("ai21labs/AI21-Jamba-Mini-1.7", "jamba")]
#[case("allenai/Olmo-3-7B-Instruct", "olmo3")]
#[case("allenai/Olmo-3-32B-Think", "olmo3-think")]
#[case("phi4-mini:3.8b", "phi4-mini")]
#[case("internlm2:7b", "internlm2")]
fn models_resolve_to_the_most_specific_parser(#[case] model: &str, #[case] parser: &str) {
    let entry = parser_auto::entry_for_model(model).unwrap();
    assert_eq!(entry.name, parser, "{model}");
    assert_eq!(
        parser_auto::for_model(model, &ParseOptions::new())
            .unwrap()
            .name(),
        parser
    );
}

#[rstest]
#[case("meta-llama/Llama-2-7b-chat-hf")]
#[case("gpt2")]
#[case("")]
#[case("deepseek-ai/Janus-Pro-7B")]
#[case("THUDM/GLM-4-9B-0414")]
// Ollama's Llama 3.2 Vision has no tool format; the `llama3.2:` pattern must not catch it.
#[case("llama3.2-vision:11b")]
fn unknown_models_are_a_clear_error(#[case] model: &str) {
    let error = parser_auto::for_model(model, &ParseOptions::new()).unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::UnknownModel(m) if m == model));
    assert!(error.to_string().contains("no parser for model"), "{error}");
}

#[rstest]
#[case("deepseek_r1", "deepseek-r1")]
#[case("deepseek-r1", "deepseek-r1")]
#[case("DeepSeekR1", "deepseek-r1")]
#[case("deepseek_v3", "deepseek-v3")]
#[case("deepseekv3", "deepseek-v3")]
#[case("deepseek_v31", "deepseek-v3.1")]
#[case("deepseekv31", "deepseek-v3.1")]
#[case("deepseek-v3.1", "deepseek-v3.1")]
#[case("deepseek_v32", "deepseek-v3.2")]
#[case("deepseekv32", "deepseek-v3.2")]
#[case("deepseek_v4", "deepseek-v4")]
#[case("deepseek_v41", "deepseek-v4.1")]
#[case("gigachat35", "gigachat3.5")]
#[case("solar_open", "solar-open")]
#[case("exaone_moe", "exaone4")]
#[case("sarashina", "sarashina")]
#[case("deepseekv41", "deepseek-v4.1")]
#[case("glm45", "glm-4.5")]
#[case("glm4_moe", "glm-4.5")]
#[case("glm47", "glm-4.7")]
#[case("mistral", "mistral")]
#[case("mistral_nemo", "mistral-v0.3")]
#[case("ministral_3", "magistral")]
#[case("ministral", "magistral")]
#[case("llama3_json", "llama3")]
#[case("llama4_json", "llama3")]
#[case("llama", "llama3")]
#[case("llama_3_x", "llama3")]
#[case("llama4_pythonic", "llama4")]
#[case("pythonic", "llama4")]
#[case("cohere_command3", "command-a")]
#[case("cohere_command4", "command-a")]
#[case("command_r7b", "command-a")]
#[case("lfm2", "lfm2")]
#[case("lfm2-thinking", "lfm2")]
#[case("step3p5", "step-3.5")]
#[case("step3", "step-3")]
#[case("gigachat3", "gigachat3")]
#[case("gigachat_v3", "gigachat3")]
#[case("apertus", "apertus")]
#[case("hermes", "hermes")]
#[case("hermes_2_pro", "hermes")]
#[case("qwen3_json", "qwen3")]
#[case("minimax_m2", "minimax-m2")]
#[case("minimax_m2_append_think", "minimax-m2")]
#[case("minimax_m3", "minimax-m3")]
#[case("kimi_k3", "kimi-k3")]
#[case("k2_horizon", "k2-horizon")]
#[case("minimax-m3", "minimax-m3")]
#[case("seed_oss", "seed-oss")]
#[case("poolside_v1", "laguna")]
#[case("poolside-v1", "laguna")]
#[case("laguna", "laguna")]
#[case("ling3", "ling-3")]
#[case("iquest_q1", "iquest-q1")]
#[case("mimo", "mimo")]
#[case("dots", "dots")]
#[case("minicpm5", "minicpm5")]
#[case("minicpmv", "minicpmv")]
#[case("hy_v4", "hy-v4")]
#[case("interns1", "intern-s1")]
#[case("lfm2_with_json_tools", "lfm2-json")]
#[case("plamo3", "plamo3")]
#[case("trinity", "trinity")]
#[case("granite", "granite")]
#[case("granite4", "granite-4")]
#[case("granite-20b-fc", "granite-20b-fc")]
#[case("granite_thinking_parser", "granite")]
#[case("nemotron_v3", "nemotron-3-nano")]
#[case("nemotron-3-nano", "nemotron-3-nano")]
#[case("nemotron_nano_v2", "nemotron-nano-v2")]
#[case("phi4_mini_json", "phi4-mini")]
#[case("xlam", "xlam")]
#[case("internlm", "internlm2")]
#[case("jamba", "jamba")]
#[case("olmo3", "olmo3")]
#[case("olmo3-think", "olmo3-think")]
#[case("ernie45", "ernie-4.5")]
#[case("ernie-x1", "ernie-4.5")]
#[case("hunyuan_a13b", "hunyuan-a13b")]
#[case("hy_v3", "hy-v3")]
#[case("longcat", "longcat")]
fn engine_names_resolve(#[case] name: &str, #[case] parser: &str) {
    assert_eq!(parser_auto::entry_by_name(name).unwrap().name, parser);
}

#[test]
fn unknown_parser_names_are_a_clear_error() {
    let error = parser_auto::by_name("pythonic-deepseek", &ParseOptions::new()).unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::UnknownParser(_)));
    assert!(error.to_string().contains("--list"));
}
