//! Choosing a parser from a model directory, as a server does at startup, and deciding where a reply
//! starts (reasoning or answer) from the prompt's token ids, as a server does per request.
//!
//! ```sh
//! cargo run -p parser-auto --example model_dir --features openai                    # two demo directories
//! cargo run -p parser-auto --example model_dir --features openai -- DIR [MODEL]     # a Hugging Face snapshot
//! ```
//!
//! A model directory holds `chat_template.jinja` and/or `tokenizer_config.json` (its `chat_template`,
//! its tokens, and `added_tokens_decoder`, the special-token table). `parser_auto::prepare` picks the
//! parser once per model: a family by model name, else by the template's signature, else the response
//! format the config declares, else the template analyzer. Without arguments, two temporary
//! directories are built: Qwen3's template as `chat_template.jinja`, and DeepSeek-V3.1's inside
//! `tokenizer_config.json`. Those two templates are embedded from the repository's `templates/`
//! (`include_str!` paths relative to this file): copied into another crate, this example needs them
//! at the same relative place, or the two paths pointed at copies.
//!
//! A parser that starts in `Content` still reads a `<think>` block the model opens itself (Qwen3 with
//! thinking on); one that starts in `Reasoning` reads the output as reasoning until `</think>`.
//!
//! Everything used here comes from `parser-auto` (with its `openai` feature): the wire types are
//! `parser_auto::openai`, and JSON is `parser_auto::serde_json`. In a server's own crate it builds
//! with `parser-auto = { version = "0.1", features = ["openai"] }` as the only dependency.
use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parser_auto::openai::{Config, Message};
use parser_auto::serde_json::{self, json};
use parser_auto::template::{ChatTemplate, RenderInput};
use parser_auto::{ParseOptions, SpecialTokens};

/// Qwen3's chat template (from `templates/`).
const QWEN3_TEMPLATE: &str = include_str!("../../templates/Qwen-Qwen3-0.6B.jinja");
/// DeepSeek-V3.1's chat template (from `templates/`).
const DEEPSEEK_V31_TEMPLATE: &str = include_str!("../../templates/deepseek-ai-DeepSeek-V3.1.jinja");

/// Qwen3's added tokens, as its `tokenizer_config.json` lists them (the ones that matter here).
const QWEN3_TOKENS: &[(u32, &str)] = &[
    (151643, "<|endoftext|>"),
    (151644, "<|im_start|>"),
    (151645, "<|im_end|>"),
    (151657, "<tool_call>"),
    (151658, "</tool_call>"),
    (151667, "<think>"),
    (151668, "</think>"),
];
/// Ordinary Qwen3 tokens of the generation prompt.
const ASSISTANT: u32 = 77091;
const NEWLINE: u32 = 198;
const TWO_NEWLINES: u32 = 271;

/// A small DeepSeek-style table for the second demo directory (ids illustrative).
const DEEPSEEK_TOKENS: &[(u32, &str)] = &[
    (0, "<｜begin▁of▁sentence｜>"),
    (1, "<｜end▁of▁sentence｜>"),
    (128798, "<think>"),
    (128799, "</think>"),
    (128803, "<｜User｜>"),
    (128804, "<｜Assistant｜>"),
];

/// Writes a demo model directory: `tokenizer_config.json` (tokens, and the template when `jinja` is
/// false) and `chat_template.jinja` (when `jinja` is true).
pub fn write_model_dir(
    dir: &Path,
    template: &str,
    tokens: &[(u32, &str)],
    eos: &str,
    jinja: bool,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let decoder: serde_json::Map<String, serde_json::Value> = tokens
        .iter()
        .map(|(id, text)| {
            let token = json!({"content": text, "special": true, "lstrip": false, "rstrip": false,
                "normalized": false, "single_word": false});
            (id.to_string(), token)
        })
        .collect();
    let mut config = json!({"eos_token": eos, "added_tokens_decoder": decoder});
    if jinja {
        std::fs::write(dir.join("chat_template.jinja"), template)?;
    } else {
        config["chat_template"] = json!(template);
    }
    std::fs::write(
        dir.join("tokenizer_config.json"),
        serde_json::to_string_pretty(&config)?,
    )
}

/// Loads `dir`, says which parser it gets (with and without `model`), renders a one-message request
/// and says where the reply starts.
pub fn describe(
    dir: &Path,
    model: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Box<dyn Error>> {
    let template = ChatTemplate::from_model_dir(dir)?;
    writeln!(
        out,
        "{}: template `{}`, eos {:?}, {} added tokens",
        dir.display(),
        template.name(),
        template.eos_token(),
        template.special_tokens().map_or(0, |t| t.len())
    )?;
    // Once per model. A server keeps `prepared` and builds a parser per request from it.
    let by_template = parser_auto::prepare(None, Some(&template))?;
    writeln!(out, "  without a model name: {}", by_template.route)?;
    if let Some(model) = model {
        let by_name = parser_auto::prepare(Some(model), Some(&template))?;
        writeln!(out, "  as {model}: {}", by_name.route)?;
    }
    // Per request: the rendered prompt comes with the options of its reply (the prompt's end, tools,
    // `enable_thinking`, the special-token table).
    for thinking in [Some(true), Some(false)] {
        let input = RenderInput::new(vec![json!({"role": "user", "content": "Hi!"})])
            .with_generation_prompt(true)
            .with_enable_thinking(thinking);
        let prompt = template.render_prompt(&input)?;
        let parser = by_template.parser(&prompt.options);
        let tail: String = {
            let chars: Vec<char> = prompt.text.chars().collect();
            chars[chars.len().saturating_sub(40)..].iter().collect()
        };
        writeln!(
            out,
            "  enable_thinking={thinking:?}: prompt ends {tail:?}, parser starts in {:?}",
            parser.stage()
        )?;
    }
    Ok(())
}

/// The stage from prompt token ids: for each `(label, prompt ids, output)`, the parser's starting stage
/// and the output parsed, as an OpenAI message.
pub fn token_ids_demo(
    dir: &Path,
    model: Option<&str>,
    tokens: &[(u32, &str)],
    prompts: &[(&str, Vec<u32>, &str)],
    out: &mut dyn Write,
) -> Result<(), Box<dyn Error>> {
    let template = ChatTemplate::from_model_dir(dir)?;
    let prepared = parser_auto::prepare(model, Some(&template))?;
    // The table comes from `added_tokens_decoder`; a server without a template builds it from pairs.
    let table = template
        .special_tokens()
        .cloned()
        .unwrap_or_else(|| Arc::new(SpecialTokens::from_pairs(tokens.iter().copied())));
    for (label, ids, output) in prompts {
        let options = ParseOptions::new().with_prompt_token_ids(ids.clone(), table.clone());
        let parser = prepared.parser(&options);
        let stage = parser.stage();
        let message = parser.parse(output);
        writeln!(
            out,
            "  prompt ids ending {:?} ({label}): starts in {stage:?}\n    {output:?}\n    → {}",
            &ids[ids.len().saturating_sub(5)..],
            serde_json::to_string(&Message::new(&message, Config::new()))?
        )?;
    }
    Ok(())
}

/// The demo: two temporary model directories, described, and the stage from token ids in each.
pub fn demo(root: &Path, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let qwen = root.join("Qwen3-8B");
    write_model_dir(&qwen, QWEN3_TEMPLATE, QWEN3_TOKENS, "<|im_end|>", true)?;
    let deepseek = root.join("DeepSeek-V3.1");
    write_model_dir(
        &deepseek,
        DEEPSEEK_V31_TEMPLATE,
        DEEPSEEK_TOKENS,
        "<｜end▁of▁sentence｜>",
        false,
    )?;

    describe(&qwen, Some("Qwen/Qwen3-8B"), out)?;
    // `<|im_start|>assistant\n` then, thinking off, `<think>\n\n</think>\n\n`; forced open, `<think>\n`.
    let [im_start, think, end_think] = [151644, 151667, 151668];
    token_ids_demo(
        &qwen,
        None,
        QWEN3_TOKENS,
        &[
            (
                "thinking off",
                vec![
                    im_start,
                    ASSISTANT,
                    NEWLINE,
                    think,
                    TWO_NEWLINES,
                    end_think,
                    TWO_NEWLINES,
                ],
                "It is 42.",
            ),
            (
                "thinking forced open",
                vec![im_start, ASSISTANT, NEWLINE, think, NEWLINE],
                "Six times seven.\n</think>\n\nIt is 42.",
            ),
        ],
        out,
    )?;

    writeln!(out)?;
    describe(&deepseek, Some("deepseek-ai/DeepSeek-V3.1"), out)?;
    let [assistant, think, end_think] = [128804, 128798, 128799];
    token_ids_demo(
        &deepseek,
        None,
        DEEPSEEK_TOKENS,
        &[
            (
                "thinking off",
                vec![128803, 100, assistant, end_think],
                "It is sunny in Paris.",
            ),
            (
                "thinking on",
                vec![128803, 100, assistant, think],
                "The forecast says sun.</think>It is sunny in Paris.",
            ),
        ],
        out,
    )?;
    Ok(())
}

/// A fresh directory under the system's temporary directory.
pub fn temp_root(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!("llm-parse-{tag}-{}-{nanos}", std::process::id()))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = &mut std::io::stdout();
    let result = match args.as_slice() {
        [] => {
            let root = temp_root("model-dir-example");
            let result = demo(&root, out);
            let _ = std::fs::remove_dir_all(&root);
            result
        }
        [dir] => describe(Path::new(dir), None, out),
        [dir, model] => describe(Path::new(dir), Some(model), out),
        _ => Err("usage: model_dir [DIR [MODEL]]".into()),
    };
    if let Err(e) = result {
        eprintln!("model_dir: {e}");
        std::process::exit(1);
    }
}
