//! The one entry point a server needs: pick the reasoning/tool-call parser for a model, by model name or
//! by parser name, with one cargo feature per family (all on by default).
//!
//! ```
//! use parser_auto::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<｜User｜>Weather in Paris?<｜Assistant｜></think>");
//! let parser = parser_auto::for_model("deepseek-ai/DeepSeek-V3.1", &options).unwrap();
//! let message = parser.parse(
//!     "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
//! );
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
//!
//! Streaming is the same parser, fed delta by delta:
//!
//! ```
//! use parser_auto::{Delta, ParseOptions};
//!
//! let mut parser = parser_auto::for_model("deepseek-ai/DeepSeek-R1", &ParseOptions::new()).unwrap();
//! for token in ["Think", "ing…</th", "ink>", "Answer."] {
//!     // `push_view` is `push` without copying text that is a piece of `token` (the common delta).
//!     for delta in parser.push_view(token) {
//!         match delta {
//!             Delta::Reasoning(text) => print!("[reasoning] {text}"),
//!             Delta::Content(text) => print!("[content] {text}"),
//!             other => print!("{other:?}"),
//!         }
//!     }
//! }
//! parser.finish();
//! ```
//!
//! # Features
//! - `deepseek` (default): DeepSeek R1, V3, V3.1, V3.2 (DSML) and V4, from `parser-deepseek`.
//! - `qwen` (default): Qwen2.5 / Qwen3 / QwQ / Qwen3-2507 (Hermes-style calls) and Qwen3-Coder / Qwen3.5 (XML
//!   calls), from `parser-qwen`.
//! - `kimi` (default): Kimi-K2, K2-Thinking, K2.5 and Kimi K3 (XTML channels), from `parser-kimi`.
//! - `gptoss` (default): GPT-OSS harmony channels, parsed from text, from `parser-gptoss`.
//! - `openai` (off by default): `parser_auto::openai`, OpenAI's chat-completions wire format (parser-core's
//!   `openai` module): each push's deltas as a `chat.completion.chunk` delta object (tool-call `id`,
//!   `type` and `name` once per call, then argument fragments; no `null`s; reasoning under
//!   `reasoning_content` or `reasoning`), `finish_reason` (`tool_calls` when calls were made), the final
//!   message as a `chat.completion` message, and chunks as server-sent events. The examples
//!   (`one_shot`, `sse_stream`, `model_dir`) show it in a server's loop.
//! - `glm` (default): GLM-4.5, 4.5-Air, 4.6, 4.7, 4.7-Flash and GLM-5, from `parser-glm`.
//! - `mistral` (default): Mistral v0.3 / Nemo, v11+ (Small-3.2, Devstral), Magistral and Ministral-3, from
//!   `parser-mistral`.
//! - `llama` (default): Llama 3.1 / 3.2 / 3.3 JSON calls and Llama 4 pythonic calls, from `parser-llama`.
//! - `cohere` (default): Command-R7B / Command-A and Command-R+, from `parser-cohere` (a family as data).
//! - `lfm2` (default): LiquidAI LFM2 / LFM2.5, from `parser-lfm2` (a family as data).
//! - `stepfun` (default): Step-3 and Step-3.5, from `parser-stepfun` (a family as data).
//! - `gigachat` (default): GigaChat3 / 3.1, from `parser-gigachat` (a family as data).
//! - `apriel` (default): ServiceNow Apriel-1.5 / 1.6 Thinker, from `parser-apriel` (a family as data).
//! - `functionary` (default): MeetKai functionary v3.1 / v3.2, from `parser-functionary` (a family as data).
//! - `apertus` (default): Swiss AI Apertus, from `parser-apertus` (a family as data).
//! - `fireworks` (default): firefunction-v2, from `parser-fireworks` (a family as data).
//! - `gemma` (default): Gemma 2 / 3 (`tool_code` calls, a family as data), FunctionGemma and Gemma 4
//!   (their own value syntax, a state machine), from `parser-gemma`.
//! - `nemotron` (default): NVIDIA Nemotron Nano v2 (`<TOOLCALL>` JSON lists) and Nemotron 3 Nano (XML calls), written as data, from `parser-nemotron`.
//! - `granite` (default): IBM Granite 3.x (`<|tool_call|>` JSON lists, `<think>` / `<response>`), Granite 4.x, Granite-20B-FC, written as data, from `parser-granite`.
//! - `seed` (default): ByteDance Seed-OSS (`<seed:think>`, `<seed:tool_call>` XML calls), written as data, from `parser-seed`.
//! - `poolside` (default): Poolside Laguna (GLM-4.5 `<arg_key>` / `<arg_value>` calls), written as data, from `parser-poolside`.
//! - `mimo` (default): Xiaomi MiMo-V2 (Qwen3-Coder `<tool_call><function=…>` calls, `<think>`), written as data, from `parser-mimo`.
//! - `dots` (default): rednote dots.llm (`<dots_function_call><invoke name=…>` calls, `<think>`), written as data, from `parser-dots`.
//! - `minicpm` (default): OpenBMB MiniCPM 5 (bare `<function name=…>` calls, `<think>`) and MiniCPM-V (Qwen3 format, newlines restored), from `parser-minicpm`.
//! - `plamo` (default): PFN PLaMo 3 (`<|plamo:…|>` tagged calls with JSON arguments), written as data, from `parser-plamo`.
//! - `arcee` (default): Arcee Trinity (Hermes `<tool_call>` calls, also inside `<think>`), written as data, from `parser-arcee`.
//! - `iquest` (default): IQuest Q1 (GLM-4.7 `<arg_key>` / `<arg_value>` calls in `<iquest_tool_call>`), written as data, from `parser-iquest`.
//! - `ling` (default): inclusionAI Ling 3 (GLM `<arg_key>` / `<arg_value>` calls), written as data, from `parser-ling`.
//! - `minimax` (default): MiniMax-M2 / M2.1 (`<minimax:tool_call>` / `<invoke>` calls), written as data, and MiniMax-M3
//!   (`]<]minimax[>[`-namespaced nested XML calls, a state machine), from `parser-minimax`.
//! - `hermes` (default): NousResearch Hermes-2-Pro / 3 / 4 (`<tool_call>` JSON calls, Hermes-4's `<think>`), written as data, from `parser-hermes`.
//! - `phi` (default): phi4-mini, from `parser-phi` (a family as data).
//! - `xlam` (default): xlam, from `parser-xlam` (a family as data).
//! - `internlm` (default): internlm2, from `parser-internlm` (a family as data).
//! - `jamba` (default): jamba, from `parser-jamba` (a family as data).
//! - `olmo` (default): olmo3, olmo3-think, from `parser-olmo` (a family as data).
//! - `ernie` (default): Baidu ERNIE-4.5 / 4.5-Thinking / VL (`<think>`, `<response>`, `<tool_call>` JSON calls), written as data, from `parser-ernie`.
//! - `hunyuan` (default): Tencent Hunyuan-A13B (`<think>`, `<answer>`, `<tool_calls>` JSON lists) and Hy3 (`<tool_sep>` tagged calls), written as data, from `parser-hunyuan`.
//! - `longcat` (default): Meituan LongCat-Flash Chat / Thinking (`<longcat_think>`, `<longcat_tool_call>` JSON calls), written as data, from `parser-longcat`.
//! - `upstage` (default): Upstage Solar Open, from `parser-upstage`.
//! - `sarashina` (default): SoftBank Sarashina, from `parser-sarashina`.
//! - `exaone` (default): LG EXAONE 4 / K-EXAONE, from `parser-exaone`.
//! - `horizon` (default): K2 Horizon (MBZUAI IFM `<ifm|…>` tags; XML, typed XML and JSON calls), a state machine, from `parser-horizon`.
//! - `inkling` (default): Inkling (typed blocks: thinking, text and JSON call blocks), a state machine, from `parser-inkling`.
//! - `muse` (default): Muse Spark / Glimmer (harmony-like messages, ATEM calls), a state machine, from `parser-muse`.
//!
//! Each enabled family crate is referenced from here (`pub use parser_deepseek as deepseek`), which also
//! makes sure the linker keeps its registrations: `inventory` silently drops a crate nothing references.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod analyze;
/// The generic parser built from an [`analyze::Analysis`], and its grammar (crate `parser-generic`).
pub use parser_generic as generic;
pub mod response;
pub mod template;

pub use parser_core::{
    Accumulator, Delta, Deltas, DeltasView, Error, ErrorKind, Limits, ParseOptions, ParsedMessage,
    Parser, ParserEntry, Policy, ReasoningFormat, Sink, SpecialTokens, Stage, ToolCall, Tools,
    normalize_name, preview_arguments,
};

#[doc = include_str!("../PEER_NAMES.md")]
pub mod peer_names {}

/// The DeepSeek family (feature `deepseek`).
#[cfg(feature = "deepseek")]
#[cfg_attr(docsrs, doc(cfg(feature = "deepseek")))]
pub use parser_deepseek as deepseek;

/// The Qwen family (feature `qwen`).
#[cfg(feature = "qwen")]
#[cfg_attr(docsrs, doc(cfg(feature = "qwen")))]
pub use parser_qwen as qwen;

/// The Kimi family (feature `kimi`).
#[cfg(feature = "kimi")]
#[cfg_attr(docsrs, doc(cfg(feature = "kimi")))]
pub use parser_kimi as kimi;

/// The GPT-OSS family (feature `gptoss`).
#[cfg(feature = "gptoss")]
#[cfg_attr(docsrs, doc(cfg(feature = "gptoss")))]
pub use parser_gptoss as gptoss;

/// The GLM family (feature `glm`).
#[cfg(feature = "glm")]
#[cfg_attr(docsrs, doc(cfg(feature = "glm")))]
pub use parser_glm as glm;

/// The Mistral family (feature `mistral`).
#[cfg(feature = "mistral")]
#[cfg_attr(docsrs, doc(cfg(feature = "mistral")))]
pub use parser_mistral as mistral;

/// The Cohere family (feature `cohere`).
#[cfg(feature = "cohere")]
#[cfg_attr(docsrs, doc(cfg(feature = "cohere")))]
pub use parser_cohere as cohere;
/// The Llama family (feature `llama`).
#[cfg(feature = "llama")]
#[cfg_attr(docsrs, doc(cfg(feature = "llama")))]
pub use parser_llama as llama;

/// The Lfm2 family (feature `lfm2`).
#[cfg(feature = "lfm2")]
#[cfg_attr(docsrs, doc(cfg(feature = "lfm2")))]
pub use parser_lfm2 as lfm2;

/// The Stepfun family (feature `stepfun`).
#[cfg(feature = "stepfun")]
#[cfg_attr(docsrs, doc(cfg(feature = "stepfun")))]
pub use parser_stepfun as stepfun;

/// The Gigachat family (feature `gigachat`).
#[cfg(feature = "gigachat")]
#[cfg_attr(docsrs, doc(cfg(feature = "gigachat")))]
pub use parser_gigachat as gigachat;

/// The Apriel family (feature `apriel`).
#[cfg(feature = "apriel")]
#[cfg_attr(docsrs, doc(cfg(feature = "apriel")))]
pub use parser_apriel as apriel;

/// The Functionary family (feature `functionary`).
#[cfg(feature = "functionary")]
#[cfg_attr(docsrs, doc(cfg(feature = "functionary")))]
pub use parser_functionary as functionary;

/// The Apertus family (feature `apertus`).
#[cfg(feature = "apertus")]
#[cfg_attr(docsrs, doc(cfg(feature = "apertus")))]
pub use parser_apertus as apertus;

/// The Fireworks family (feature `fireworks`).
#[cfg(feature = "fireworks")]
#[cfg_attr(docsrs, doc(cfg(feature = "fireworks")))]
pub use parser_fireworks as fireworks;

/// The Gemma family (feature `gemma`).
#[cfg(feature = "gemma")]
#[cfg_attr(docsrs, doc(cfg(feature = "gemma")))]
pub use parser_gemma as gemma;
/// The Hermes family (feature `hermes`).
#[cfg(feature = "hermes")]
#[cfg_attr(docsrs, doc(cfg(feature = "hermes")))]
pub use parser_hermes as hermes;

/// The arcee family (feature `arcee`).
#[cfg(feature = "arcee")]
#[cfg_attr(docsrs, doc(cfg(feature = "arcee")))]
pub use parser_arcee as arcee;
/// The dots family (feature `dots`).
#[cfg(feature = "dots")]
#[cfg_attr(docsrs, doc(cfg(feature = "dots")))]
pub use parser_dots as dots;
/// The iquest family (feature `iquest`).
#[cfg(feature = "iquest")]
#[cfg_attr(docsrs, doc(cfg(feature = "iquest")))]
pub use parser_iquest as iquest;
/// The ling family (feature `ling`).
#[cfg(feature = "ling")]
#[cfg_attr(docsrs, doc(cfg(feature = "ling")))]
pub use parser_ling as ling;
/// The mimo family (feature `mimo`).
#[cfg(feature = "mimo")]
#[cfg_attr(docsrs, doc(cfg(feature = "mimo")))]
pub use parser_mimo as mimo;
/// The minicpm family (feature `minicpm`).
#[cfg(feature = "minicpm")]
#[cfg_attr(docsrs, doc(cfg(feature = "minicpm")))]
pub use parser_minicpm as minicpm;
/// The Minimax family (feature `minimax`).
#[cfg(feature = "minimax")]
#[cfg_attr(docsrs, doc(cfg(feature = "minimax")))]
pub use parser_minimax as minimax;
/// The plamo family (feature `plamo`).
#[cfg(feature = "plamo")]
#[cfg_attr(docsrs, doc(cfg(feature = "plamo")))]
pub use parser_plamo as plamo;
/// The poolside family (feature `poolside`).
#[cfg(feature = "poolside")]
#[cfg_attr(docsrs, doc(cfg(feature = "poolside")))]
pub use parser_poolside as poolside;

/// The Seed family (feature `seed`).
#[cfg(feature = "seed")]
#[cfg_attr(docsrs, doc(cfg(feature = "seed")))]
pub use parser_seed as seed;

/// The Granite family (feature `granite`).
#[cfg(feature = "granite")]
#[cfg_attr(docsrs, doc(cfg(feature = "granite")))]
pub use parser_granite as granite;

/// The Nemotron family (feature `nemotron`).
#[cfg(feature = "nemotron")]
#[cfg_attr(docsrs, doc(cfg(feature = "nemotron")))]
pub use parser_nemotron as nemotron;

/// The Phi family (feature `phi`).
#[cfg(feature = "phi")]
pub use parser_phi as phi;

/// The xLAM family (feature `xlam`).
#[cfg(feature = "xlam")]
pub use parser_xlam as xlam;

/// The InternLM family (feature `internlm`).
#[cfg(feature = "internlm")]
pub use parser_internlm as internlm;

/// The Jamba family (feature `jamba`).
#[cfg(feature = "jamba")]
pub use parser_jamba as jamba;

/// The Baidu ERNIE-4.5 family (feature `ernie`).
#[cfg(feature = "ernie")]
pub use parser_ernie as ernie;
/// The Olmo family (feature `olmo`).
#[cfg(feature = "olmo")]
pub use parser_olmo as olmo;

/// The Tencent Hunyuan-A13B family (feature `hunyuan`).
#[cfg(feature = "hunyuan")]
pub use parser_hunyuan as hunyuan;

/// The Meituan LongCat-Flash family (feature `longcat`).
#[cfg(feature = "longcat")]
pub use parser_longcat as longcat;

/// The Upstage family (feature `upstage`).
#[cfg(feature = "upstage")]
pub use parser_upstage as upstage;

/// The Sarashina family (feature `sarashina`).
#[cfg(feature = "sarashina")]
pub use parser_sarashina as sarashina;

/// The Exaone family (feature `exaone`).
#[cfg(feature = "exaone")]
pub use parser_exaone as exaone;
/// The K2 Horizon family (feature `horizon`).
#[cfg(feature = "horizon")]
pub use parser_horizon as horizon;

/// The Inkling family (feature `inkling`).
#[cfg(feature = "inkling")]
pub use parser_inkling as inkling;

/// The Muse family (feature `muse`).
#[cfg(feature = "muse")]
pub use parser_muse as muse;

/// OpenAI's wire format (feature `openai`): chunk deltas, final messages, server-sent events.
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use parser_core::openai;

/// Constrained decoding (parser-core's [`parser_core::constraint`]): the request
/// ([`ConstraintRequest`](struct@constraint::ConstraintRequest)) and the grammars
/// ([`Constraint`](struct@constraint::Constraint)) that [`fn@constraint`] and [`Prepared::constraint`]
/// build for a resolved model.
pub mod constraint {
    pub use parser_core::constraint::*;
}

/// The `serde_json` this crate's API is written in ([`template::RenderInput`]'s messages and tools,
/// the serialisable [`analyze::Analysis`]), re-exported so that a server needs no dependency of its
/// own to build those values: `use parser_auto::serde_json::json;`.
pub use serde_json;

/// The parser for a model id (`deepseek-ai/DeepSeek-V3.1`, `unsloth/DeepSeek-R1-GGUF`, …).
///
/// The most specific registered model pattern wins; organisation prefixes and packaging suffixes
/// (`-GGUF`, `-AWQ`, `-FP8`, …) are ignored. An unknown model is an [`ErrorKind::UnknownModel`] error.
pub fn for_model(model: &str, options: &ParseOptions) -> Result<Parser, Error> {
    Ok(entry_for_model(model)?.parser(options))
}

/// The parser registered under `name` or one of its aliases, in any spelling (`deepseek_r1`,
/// `deepseek-r1`, `DeepSeekR1`).
pub fn by_name(name: &str, options: &ParseOptions) -> Result<Parser, Error> {
    Ok(entry_by_name(name)?.parser(options))
}

/// The registry entry a model id resolves to.
pub fn entry_for_model(model: &str) -> Result<&'static ParserEntry, Error> {
    parser_core::find_for_model(model)
}

/// The registry entry for a parser name or alias.
pub fn entry_by_name(name: &str) -> Result<&'static ParserEntry, Error> {
    parser_core::find_by_name(name)
}

/// Every registered parser of the enabled families, sorted by family and name.
pub fn entries() -> Vec<&'static ParserEntry> {
    parser_core::entries()
}

/// How a parser was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// A family parser, found by the model name.
    ModelName(&'static str),
    /// A family parser, whose marker signature the chat template matches.
    TemplateSignature(&'static str),
    /// The response format the model's tokenizer config declares (`response_template` or
    /// `response_schema`), read as transformers' `parse_response` reads it.
    ResponseFormat,
    /// The generic parser built from the template's differential analysis.
    Analyzer,
    /// Nothing matched: everything is content.
    PlainContent,
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::ModelName(name) => write!(f, "family parser `{name}` (by model name)"),
            Route::TemplateSignature(name) => {
                write!(f, "family parser `{name}` (by template signature)")
            }
            Route::ResponseFormat => f.write_str(
                "the tokenizer config's response format (Hugging Face response parsing)",
            ),
            Route::Analyzer => f.write_str("generic parser from the template's analysis"),
            Route::PlainContent => f.write_str("plain content (no parser matched)"),
        }
    }
}

/// A parser and how it was chosen.
#[derive(Debug)]
pub struct Resolved {
    /// The parser, ready for one output.
    pub parser: Parser,
    /// The route taken.
    pub route: Route,
}

/// Family signatures: special tokens only one family writes, checked in the template source.
fn signature_entry(source: &str) -> Option<&'static str> {
    if let Some(name) = data_family_signature(source) {
        return Some(name);
    }
    if source.contains("<|channel|>") && source.contains("<|message|>") {
        return Some("gpt-oss");
    }
    if source.contains("<|tool_calls_section_begin|>")
        || source.contains("<|tool_call_section_begin|>")
    {
        return Some(if source.contains("<think>") {
            "kimi-k2-thinking"
        } else {
            "kimi-k2"
        });
    }
    if source.contains("<｜DSML｜") {
        return Some("deepseek-v3.2");
    }
    if source.contains("<arg_key>") && source.contains("<arg_value>") {
        if let Some(name) = glm_layout_signature(source) {
            return Some(name);
        }
        // GLM-4.7 and later open `<think>` in the generation prompt (after the last `<|assistant|>`);
        // GLM-4.5/4.6 leave it to the model (and render `<think></think>` only with thinking off).
        let generation_prompt = source.rsplit("<|assistant|>").next().unwrap_or_default();
        return Some(if generation_prompt.contains("'<think>'") {
            "glm-4.7"
        } else {
            "glm-4.5"
        });
    }
    if source.contains("<｜tool▁calls▁begin｜>") || source.contains("<｜tool▁sep｜>") {
        // R1 and V3 write `function<｜tool▁sep｜>NAME` and a ```json fence; V3.1 writes `NAME<｜tool▁sep｜>`.
        return Some(if source.contains("```json") {
            "deepseek-r1"
        } else {
            "deepseek-v3.1"
        });
    }
    if source.contains("[TOOL_CALLS]") {
        // Mistral: Magistral / Ministral-3 think in `[THINK]`; the v11+ templates write `NAME[ARGS]{…}`,
        // the v0.3 / Nemo ones a JSON array (every Mistral parser reads both; the grammar differs).
        return Some(if source.contains("[THINK]") {
            "magistral"
        } else if source.contains("[ARGS]") {
            "mistral"
        } else {
            "mistral-v0.3"
        });
    }
    if source.contains("<|start_header_id|>")
        && source.contains("\"parameters\": dictionary of argument name and its value")
    {
        // Llama 3.1 / 3.2 / 3.3: Meta's JSON tool-call instructions.
        return Some("llama3");
    }
    if let Some(name) = tag_family_signature(source) {
        return Some(name);
    }
    qwen_signature(source)
}

/// Templates of the families written as data (Cohere, LFM2, StepFun, GigaChat, Apriel, functionary,
/// Apertus, firefunction, Gemma (2 / 3, FunctionGemma, Gemma 4), Phi-4-mini, xLAM, InternLM2, Jamba, Olmo 3, Hunyuan-A13B, LongCat,
/// MiniCPM 5) and GigaChat 3.5's GCML, each
/// by markers no other family's template writes. Only the families
/// compiled in are named (the caller falls back to the analyzer otherwise).
fn data_family_signature(source: &str) -> Option<&'static str> {
    let has = |marker: &str| source.contains(marker);
    let llama3 = has("<|start_header_id|>");
    let name = if has("<|START_ACTION|>") {
        "command-a"
    } else if has("<|CHATBOT_TOKEN|>") && has("Action:") {
        "command-r-plus"
    } else if has("<|tool_call_start|>") || has("<|tool_list_start|>") {
        "lfm2"
    } else if has("<|im_start|>tool_response") && has("<function=") {
        "step-3.5"
    } else if has("<｜GCML｜tool_calls>") {
        // GigaChat 3.5's GCML calls (its template also has GigaChat3's `function call` role, so
        // it is told apart first); the Reasoning model's template is reached by model name.
        "gigachat3.5"
    } else if has("<|role_sep|>") && has("function call") {
        "gigachat3"
    } else if has("[BEGIN FINAL RESPONSE]") && has("<tool_calls>") {
        "apriel"
    } else if llama3 && has("<function=") && !has("<tool_call>") {
        "functionary-v3.1"
    } else if llama3 && has(">>>") {
        "functionary-v3.2"
    } else if has("<|tools_prefix|>") {
        "apertus"
    } else if has("<|tool_call:begin|>") && has("<|tool_response:result|>") {
        // Solar Open's id-first calls and its tool results (llama.cpp's solar_open detection).
        "solar-open"
    } else if has("functools[") && has("<|assistant|>") && !llama3 {
        // Phi-4-mini's turns (`<|assistant|>`), not firefunction's Llama 3 headers.
        "phi4-mini"
    } else if has("functools[") {
        "firefunction-v2"
    } else if has("<|tool_call>call:") {
        // Gemma 4: `<|tool_call>call:NAME{…}` in `<|turn>` turns.
        "gemma4"
    } else if has("<start_function_call>") {
        "functiongemma"
    } else if has("<start_of_turn>") && !has("function_call") && !has("tool_call") {
        "gemma"
    } else if has("Salesforce xLAM") {
        "xlam"
    } else if has("<|action_start|><|plugin|>") {
        "internlm2"
    } else if has("<|bom|>") && has("<tool_calls>") {
        "jamba"
    } else if has("<function_calls>") && has("pythonic function call") {
        // Olmo 3 Instruct's template (the Think models' prompt opens <think>: by model name).
        "olmo3"
    } else if has("<tool_calls>") && has("<|extra_0|>") {
        // Hunyuan-A13B: a `<tool_calls>` list in turns that end in `<|extra_0|>`.
        "hunyuan-a13b"
    } else if has("<longcat_tool_call>") {
        "longcat"
    } else if has("<function name=\"") && has("<param name=\"") {
        // MiniCPM 5's bare `<function name="…"><param name="…">` calls.
        "minicpm5"
    } else {
        return None;
    };
    parser_core::find_by_name(name).ok().map(|entry| entry.name)
}

/// Templates of other vendors that write GLM's `<arg_key>` / `<arg_value>` calls, told apart by their
/// turn markup: Poolside Laguna's `<assistant>` … `</assistant>` turns, Ling 3's `<role>ASSISTANT</role>`.
/// `None` when the template is not one of them (or its family is not compiled in): GLM's own route.
fn glm_layout_signature(source: &str) -> Option<&'static str> {
    let name = if source.contains("<role>ASSISTANT</role>") {
        "ling-3"
    } else if source.contains("<assistant>") && source.contains("</assistant>") {
        "laguna"
    } else {
        return None;
    };
    parser_core::find_by_name(name).ok().map(|entry| entry.name)
}

/// Hermes, MiniMax, Seed-OSS, Granite and Nemotron templates: a token only that family writes
/// (`<minimax:tool_call>`, `<seed:tool_call>`, Granite's `<|tool_call|>` in `<|start_of_role|>` turns,
/// Nano v2's `<TOOLCALL>` in `<SPECIAL_11>` turns), or, for the ChatML ones, their own tool
/// instructions: Hermes-2-Pro / 3's "You are a function calling AI model", Nemotron 3's
/// `truncate_history_thinking` switch beside Qwen3-Coder-style `<function=` calls.
fn tag_family_signature(source: &str) -> Option<&'static str> {
    if source.contains("<minimax:tool_call>") {
        return Some("minimax-m2");
    }
    // MiniMax-M3 writes its namespace token in front of every call tag, and `<mm:think>` reasoning.
    if source.contains("]<]minimax[>[") || source.contains("<mm:think>") {
        return Some("minimax-m3");
    }
    if source.contains("<seed:tool_call>") || source.contains("<seed:think>") {
        return Some("seed-oss");
    }
    if source.contains("<TOOLCALL>") && source.contains("<SPECIAL_11>") {
        return Some("nemotron-nano-v2");
    }
    if source.contains("<|tool_call|>") && source.contains("<|start_of_role|>") {
        return Some("granite");
    }
    let chatml_calls = source.contains("<|im_start|>") && source.contains("<tool_call>");
    if chatml_calls && source.contains("truncate_history_thinking") && source.contains("<function=")
    {
        return Some("nemotron-3-nano");
    }
    if chatml_calls && source.contains("You are a function calling AI model") {
        return Some("hermes");
    }
    None
}

/// Qwen's ChatML templates: `<|im_start|>` turns and `<tool_call>` blocks, with Qwen's own tool
/// instructions — Hermes JSON calls ("For each function call, return a json object … within
/// <tool_call></tool_call> XML tags", Qwen2.5 / QwQ / Qwen3) or XML calls ("If you choose to call a tool
/// ONLY reply in the following format", Qwen3-Coder / Qwen3.5). Other ChatML templates with
/// `<tool_call>` word their instructions otherwise: Hermes-2-Pro/3 and Nemotron 3 reach their own
/// families (`tag_family_signature`, checked first), Bielik stays with the analyzer (no Qwen model
/// pattern claims them either); MiMo-VL's template is Qwen2.5's with another default system prompt, and is read as Qwen2.5.
///
/// The parser follows what the generation prompt (after the last `<|im_start|>assistant`) does: opens
/// `<think>` unconditionally (QwQ, Thinking-2507, Qwen3.5) → reasoning forced open; writes `<think>`
/// only under a condition (Qwen3's `<think>\n\n</think>` with thinking off) → hybrid; never → none.
fn qwen_signature(source: &str) -> Option<&'static str> {
    // Hermes-2-Pro/3 write "For each function call return a json object …" (no comma).
    const HERMES: &str = "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags";
    const XML: &str = "If you choose to call a tool ONLY reply in the following format";
    if !source.contains("<|im_start|>") || !source.contains("<tool_call>") {
        return None;
    }
    let xml = source.contains(XML) && source.contains("<function=");
    if !xml && !source.contains(HERMES) {
        return None;
    }
    let (_, generation_prompt) = source.rsplit_once("<|im_start|>assistant")?;
    // The string literal the generation prompt starts with, up to its closing quote.
    let opened = generation_prompt
        .split(['\'', '"'])
        .next()
        .unwrap_or_default();
    let forced_open = opened.contains("<think>");
    let hybrid = generation_prompt.contains("<think>");
    Some(match (xml, forced_open, hybrid) {
        (true, true, _) => "qwen3.5",
        (true, false, _) => "qwen3-coder",
        (false, true, _) => "qwen3-thinking",
        (false, false, true) => "qwen3",
        (false, false, false) => "qwen2.5",
    })
}

/// The parser for a chat template (model name withheld): a family whose signature the template matches,
/// else the generic parser built from the template's differential analysis. See [`resolve`].
pub fn for_template(template: &template::ChatTemplate, options: &ParseOptions) -> Resolved {
    resolve(None, Some(template), options).unwrap_or_else(|_| Resolved {
        parser: plain_content(options),
        route: Route::PlainContent,
    })
}

/// Picks a parser from what is known: a family by model name first; else a family whose signature the
/// template matches (GPT-OSS's `<|channel|>`, Kimi's section tokens, DeepSeek's special tokens, GLM's
/// `<arg_key>`, Qwen's ChatML `<tool_call>` instructions); else
/// the response format the tokenizer config declares (`response_template` / `response_schema`); else
/// the analyzer on the template; else plain content, with a `tracing` warning. Says which route was taken.
///
/// For a model with a `tool_use` template beside its default (Hermes-2-Pro, Command-R), the template is
/// the one a request with `options` renders with: `tool_use` when [`ParseOptions::tools`] is set (see
/// [`Prepared::for_request`]).
///
/// The same as [`prepare`] followed by [`Prepared::parser`]; a server resolves once per model with
/// `prepare` and builds a parser per request.
///
/// An error only when neither a model name that resolves nor a template was given.
pub fn resolve(
    model: Option<&str>,
    template: Option<&template::ChatTemplate>,
    options: &ParseOptions,
) -> Result<Resolved, Error> {
    // Only the template this request renders with: the other's analysis is not needed.
    let prepared = prepare_one(
        model,
        template.map(|t| t.for_request(options.tools.is_some())),
    )?;
    Ok(Resolved {
        parser: prepared.parser(options),
        route: prepared.route,
    })
}

/// A resolved model: how its parsers are built, and the route that chose them. Cheap to clone; build
/// one parser per request with [`Prepared::parser`].
///
/// A model whose template keeps a `tool_use` template for requests with tools (see
/// [`template::ChatTemplate`], "Models with several named templates") is prepared for both: requests
/// without tools get the default template's parser ([`route`](Self::route) is its route), requests
/// with tools the `tool_use` template's ([`for_request`](Self::for_request) says which).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The route taken (for a request without tools, when the model has a `tool_use` template).
    pub route: Route,
    source: ParserSource,
    /// The template's special-token table, used when a request brings none.
    special_tokens: Option<std::sync::Arc<SpecialTokens>>,
    /// The preparation of the model's `tool_use` template, for requests with tools.
    with_tools: Option<Box<Prepared>>,
}

#[derive(Clone, Debug)]
enum ParserSource {
    Family(&'static ParserEntry),
    Response(response::ResponseFormat),
    Generic(generic::GenericParserFactory),
}

impl Prepared {
    /// A parser for one output. When the model has a `tool_use` template, a request whose
    /// [`ParseOptions::tools`] are set (as [`template::ChatTemplate::render_prompt`] sets them, even to
    /// an empty list) gets that template's parser.
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        self.for_request(options).build(options)
    }

    /// What a request with `options` is parsed by: the preparation of the model's `tool_use` template
    /// when the request has tools and the model has one, else this one. Its [`route`](Self::route),
    /// [`special_tokens`](Self::special_tokens) and [`analysis`](Self::analysis) are the request's.
    pub fn for_request(&self, options: &ParseOptions) -> &Prepared {
        match &self.with_tools {
            Some(with_tools) if options.tools.is_some() => with_tools,
            _ => self,
        }
    }

    fn build(&self, options: &ParseOptions) -> Parser {
        let with_tokens;
        let options = match &self.special_tokens {
            Some(tokens) if options.special_tokens.is_none() => {
                with_tokens = ParseOptions {
                    special_tokens: Some(tokens.clone()),
                    ..options.clone()
                };
                &with_tokens
            }
            _ => options,
        };
        match &self.source {
            ParserSource::Family(entry) => entry.parser(options),
            ParserSource::Response(format) => format.parser(options),
            ParserSource::Generic(factory) => factory.parser(options),
        }
    }

    /// The special tokens of the chosen format, whole: what a tokenizer must keep and a server delivers
    /// as single deltas (the family's table, or every marker of the analysis).
    pub fn special_tokens(&self) -> &'static [&'static str] {
        match &self.source {
            ParserSource::Family(entry) => entry.special_tokens,
            // Anchors are found in text, whole or split; no token list is needed.
            ParserSource::Response(_) => &[],
            ParserSource::Generic(factory) => factory.tokens(),
        }
    }

    /// The constraint of one request (grammars, triggers, preserved tokens) for the format a request with
    /// `options` is parsed in ([`for_request`](Self::for_request)), derived from the same description as
    /// its parser:
    /// - a family parser (by model name or template signature): the family's registered constraint
    ///   ([`ParserEntry::constraint`]), `None` when the family describes none;
    /// - the generic parser: its analysis ([`generic::GenericParserFactory::constraint`]); `None` when the
    ///   analysis found no tool calls, an error naming the reason when its call format is not described
    ///   for constrained decoding yet ([`generic::constraint::NotDescribed`]);
    /// - a tokenizer config's response format: `None`.
    ///
    /// Errors also when the request cannot be met (a named function that is not among the tools,
    /// `required` without tools).
    ///
    /// ```
    /// use parser_auto::constraint::{ConstraintRequest, ToolChoice};
    /// use parser_auto::template::ChatTemplate;
    /// use parser_auto::{ParseOptions, Tools};
    /// use std::sync::Arc;
    ///
    /// // A ChatML template with Hermes-style calls the analyzer reads (no family claims it).
    /// let source = concat!(
    ///     "{%- for m in messages %}<|im_start|>{{ m.role }}\n",
    ///     "{%- if m.content %}{{ m.content }}{% endif %}",
    ///     "{%- for c in m.tool_calls or [] %}<tool_call>\n",
    ///     "{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}\n</tool_call>",
    ///     "{%- endfor %}<|im_end|>\n{% endfor %}",
    ///     "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    /// );
    /// let template = ChatTemplate::from_source(source).unwrap();
    /// let prepared = parser_auto::prepare(None, Some(&template)).unwrap();
    /// let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
    ///     "name": "now", "parameters": {"type": "object", "properties": {}}
    /// }}]))
    /// .unwrap();
    /// let options = ParseOptions::new().with_tools(Arc::new(tools));
    /// let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..Default::default() };
    /// let constraint = prepared.constraint(&options, &request).unwrap().unwrap();
    /// assert!(constraint.gbnf().contains(r#""<tool_call>""#));
    /// assert!(constraint.preserved_tokens.contains(&"</tool_call>".to_owned()));
    /// ```
    pub fn constraint(
        &self,
        options: &ParseOptions,
        request: &constraint::ConstraintRequest,
    ) -> Option<Result<constraint::Constraint, Error>> {
        let prepared = self.for_request(options);
        let with_tokens;
        let options = match &prepared.special_tokens {
            Some(tokens) if options.special_tokens.is_none() => {
                with_tokens = ParseOptions {
                    special_tokens: Some(tokens.clone()),
                    ..options.clone()
                };
                &with_tokens
            }
            _ => options,
        };
        match &prepared.source {
            ParserSource::Family(entry) => entry.constraint(options, request),
            ParserSource::Response(_) => None,
            ParserSource::Generic(factory) => {
                if factory.analysis().tools == analyze::ToolFormat::None {
                    return None;
                }
                Some(factory.constraint(options, request))
            }
        }
    }

    /// The template's analysis, when the analyzer was the route (or found nothing).
    pub fn analysis(&self) -> Option<&std::sync::Arc<analyze::Analysis>> {
        match &self.source {
            ParserSource::Generic(factory) => Some(factory.analysis()),
            ParserSource::Family(_) | ParserSource::Response(_) => None,
        }
    }
}

/// The constraint of one request for the format `prepared` parses it in: see
/// [`Prepared::constraint`]. `None` when that format has no constraint (a family that describes none,
/// an analysis without tool calls, a tokenizer config's response format).
pub fn constraint(
    prepared: &Prepared,
    options: &ParseOptions,
    request: &constraint::ConstraintRequest,
) -> Option<Result<constraint::Constraint, Error>> {
    prepared.constraint(options, request)
}

/// Resolves a model once, in [`resolve`]'s order, without building a parser. The analysis of a template
/// is computed once per distinct template and cached. A template that keeps the model's `tool_use`
/// template is resolved twice, once for each (see [`Prepared::for_request`]), unless the model name
/// picks a family parser, which reads the calls of either.
///
/// An error only when neither a model name that resolves nor a template was given.
pub fn prepare(
    model: Option<&str>,
    template: Option<&template::ChatTemplate>,
) -> Result<Prepared, Error> {
    let mut prepared = prepare_one(model, template)?;
    if !matches!(prepared.route, Route::ModelName(_))
        && let Some(template) = template
        && let tool_use = template.for_request(true)
        && !std::ptr::eq(tool_use, template)
    {
        prepared.with_tools = Some(Box::new(prepare_one(model, Some(tool_use))?));
    }
    Ok(prepared)
}

/// [`prepare`] for one template.
fn prepare_one(
    model: Option<&str>,
    template: Option<&template::ChatTemplate>,
) -> Result<Prepared, Error> {
    if let Some(model) = model
        && let Ok(entry) = entry_for_model(model)
    {
        return Ok(Prepared {
            route: Route::ModelName(entry.name),
            source: ParserSource::Family(entry),
            special_tokens: template.and_then(|t| t.special_tokens().cloned()),
            with_tools: None,
        });
    }
    let Some(template) = template else {
        return Err(Error::new(ErrorKind::UnknownModel(
            model.unwrap_or("").to_owned(),
        )));
    };
    let special_tokens = template.special_tokens().cloned();
    if let Some(name) = signature_entry(template.source())
        && let Ok(entry) = entry_by_name(name)
    {
        return Ok(Prepared {
            route: Route::TemplateSignature(entry.name),
            source: ParserSource::Family(entry),
            special_tokens,
            with_tools: None,
        });
    }
    if let Some(format) = template.response_format() {
        return Ok(Prepared {
            route: Route::ResponseFormat,
            source: ParserSource::Response(format.clone()),
            special_tokens,
            with_tools: None,
        });
    }
    let factory = factory_for(template);
    let found_nothing = found_nothing(factory.analysis());
    if found_nothing {
        tracing::warn!(
            template = template.name(),
            "no tool, reasoning or content markers found in the chat template: plain content"
        );
    }
    Ok(Prepared {
        route: if found_nothing {
            Route::PlainContent
        } else {
            Route::Analyzer
        },
        // Even with nothing found, the analysis knows the end-of-turn tokens to keep out of content.
        source: ParserSource::Generic(factory),
        special_tokens,
        with_tools: None,
    })
}

/// The route a template takes when no model name is known: a family by signature, the analyzer, or
/// plain content when the analysis finds nothing.
pub fn route_for_template(template: &template::ChatTemplate) -> Route {
    if let Some(entry) =
        signature_entry(template.source()).and_then(|name| entry_by_name(name).ok())
    {
        return Route::TemplateSignature(entry.name);
    }
    if template.response_format().is_some() {
        return Route::ResponseFormat;
    }
    if found_nothing(&analysis_for(template)) {
        Route::PlainContent
    } else {
        Route::Analyzer
    }
}

/// An analysis without tool, reasoning or content markers: the template's output is plain content.
fn found_nothing(analysis: &analyze::Analysis) -> bool {
    analysis.tools == analyze::ToolFormat::None
        && analysis.reasoning == analyze::ReasoningMode::None
        && analysis.content == analyze::ContentMode::Plain
}

/// The analysis of a template, computed once per distinct template and cached.
pub fn analysis_for(template: &template::ChatTemplate) -> std::sync::Arc<analyze::Analysis> {
    factory_for(template).analysis().clone()
}

/// The generic parser factory of a template (its analysis and marker tables), built once per distinct
/// template (source, BOS and EOS) and cached for the life of the process.
fn factory_for(template: &template::ChatTemplate) -> generic::GenericParserFactory {
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    use std::sync::{Arc, Mutex, OnceLock};
    /// Template source, BOS, EOS.
    type Key = (String, String, String);
    /// Keyed by a hash so a lookup copies nothing; each bucket keeps the full keys to compare.
    type Buckets = HashMap<u64, Vec<(Key, generic::GenericParserFactory)>>;
    static CACHE: OnceLock<Mutex<Buckets>> = OnceLock::new();
    let parts = (
        template.source(),
        template.bos_token(),
        template.eos_token(),
    );
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut hasher);
    let hash = hasher.finish();
    let same = |key: &Key| (key.0.as_str(), key.1.as_str(), key.2.as_str()) == parts;
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().ok().and_then(|c| {
        c.get(&hash)?
            .iter()
            .find(|(key, _)| same(key))
            .map(|(_, factory)| factory.clone())
    }) {
        return found;
    }
    // Analysed outside the lock: another thread may analyse the same template meanwhile; both results
    // are equal, the first stored wins.
    let factory = generic::GenericParserFactory::new(Arc::new(analyze::analyze(template)));
    if let Ok(mut c) = cache.lock() {
        let bucket = c.entry(hash).or_default();
        if let Some((_, stored)) = bucket.iter().find(|(key, _)| same(key)) {
            return stored.clone();
        }
        let key = (parts.0.to_owned(), parts.1.to_owned(), parts.2.to_owned());
        bucket.push((key, factory.clone()));
    }
    factory
}

/// A parser that reports everything as content.
fn plain_content(options: &ParseOptions) -> Parser {
    generic::parser_for(&analyze::Analysis::default(), options)
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The families compiled in, by feature.
pub fn enabled_families() -> &'static [&'static str] {
    &[
        #[cfg(feature = "deepseek")]
        "deepseek",
        #[cfg(feature = "qwen")]
        "qwen",
        #[cfg(feature = "kimi")]
        "kimi",
        #[cfg(feature = "gptoss")]
        "gptoss",
        #[cfg(feature = "glm")]
        "glm",
        #[cfg(feature = "mistral")]
        "mistral",
        #[cfg(feature = "llama")]
        "llama",
        #[cfg(feature = "cohere")]
        "cohere",
        #[cfg(feature = "lfm2")]
        "lfm2",
        #[cfg(feature = "stepfun")]
        "stepfun",
        #[cfg(feature = "gigachat")]
        "gigachat",
        #[cfg(feature = "apriel")]
        "apriel",
        #[cfg(feature = "functionary")]
        "functionary",
        #[cfg(feature = "apertus")]
        "apertus",
        #[cfg(feature = "fireworks")]
        "fireworks",
        #[cfg(feature = "gemma")]
        "gemma",
        #[cfg(feature = "nemotron")]
        "nemotron",
        #[cfg(feature = "granite")]
        "granite",
        #[cfg(feature = "seed")]
        "seed",
        #[cfg(feature = "minimax")]
        "minimax",
        #[cfg(feature = "hermes")]
        "hermes",
        #[cfg(feature = "phi")]
        "phi",
        #[cfg(feature = "xlam")]
        "xlam",
        #[cfg(feature = "internlm")]
        "internlm",
        #[cfg(feature = "jamba")]
        "jamba",
        #[cfg(feature = "olmo")]
        "olmo",
        #[cfg(feature = "poolside")]
        "poolside",
        #[cfg(feature = "ling")]
        "ling",
        #[cfg(feature = "iquest")]
        "iquest",
        #[cfg(feature = "arcee")]
        "arcee",
        #[cfg(feature = "plamo")]
        "plamo",
        #[cfg(feature = "minicpm")]
        "minicpm",
        #[cfg(feature = "dots")]
        "dots",
        #[cfg(feature = "mimo")]
        "mimo",
        #[cfg(feature = "ernie")]
        "ernie",
        #[cfg(feature = "hunyuan")]
        "hunyuan",
        #[cfg(feature = "longcat")]
        "longcat",
        #[cfg(feature = "upstage")]
        "upstage",
        #[cfg(feature = "sarashina")]
        "sarashina",
        #[cfg(feature = "exaone")]
        "exaone",
        #[cfg(feature = "horizon")]
        "horizon",
        #[cfg(feature = "inkling")]
        "inkling",
        #[cfg(feature = "muse")]
        "muse",
    ]
}
