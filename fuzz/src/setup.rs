//! What a parser is built from ([`Setup`]: parser name or template, request options), and how an input is
//! cut into deltas ([`Cut`]). Both serialise to the header line of a regression file.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use parser_auto::template::ChatTemplate;
use parser_auto::{Limits, ParseOptions, Parser, Policy, Prepared, ReasoningFormat, Tools};
use parser_core::testing::char_pieces;
use serde::{Deserialize, Serialize};

/// A parser and the request options it is built with: everything needed to reproduce a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// A registry name (`deepseek-v3.1`, `qwen3-coder`, …), or `template` with
    /// [`template`](Self::template) set.
    pub parser: String,
    /// A chat template file of `templates/` (for the generic parser, model name withheld).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// The end of the rendered prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tail: Option<String>,
    /// The request's `enable_thinking`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_thinking: Option<bool>,
    /// `reasoning_format: none`: reasoning stays inline in content.
    #[serde(default, skip_serializing_if = "is_false")]
    pub inline: bool,
    /// The request's tools (OpenAI tool definitions), for schema-typed values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<serde_json::Value>,
    /// `Policy::strict_tool_position`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub strict: bool,
    /// `Policy::preamble_as_reasoning` (harmony).
    #[serde(default, skip_serializing_if = "is_false")]
    pub preamble_reasoning: bool,
    /// `Policy::builtin_tools_as_calls` (harmony).
    #[serde(default, skip_serializing_if = "is_false")]
    pub builtin_calls: bool,
    /// `Limits::call_buffer`: the most bytes a parser holds of one undecided construct (default when
    /// absent). Small values make every way out of a buffer run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_buffer: Option<usize>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Setup {
    /// A registered parser with no request options.
    pub fn named(parser: &str) -> Setup {
        Setup {
            parser: parser.to_owned(),
            ..Setup::default()
        }
    }

    /// The generic parser of a template file in `templates/`.
    pub fn template(file: &str) -> Setup {
        Setup {
            parser: "template".to_owned(),
            template: Some(file.to_owned()),
            ..Setup::default()
        }
    }

    /// With a prompt tail.
    pub fn with_tail(mut self, tail: &str) -> Setup {
        self.prompt_tail = Some(tail.to_owned());
        self
    }

    /// The request options (call ids seeded, so that runs compare equal).
    pub fn options(&self) -> ParseOptions {
        let mut options = ParseOptions::new()
            .with_enable_thinking(self.enable_thinking)
            .with_call_id_seed(0x5eed)
            .with_policy(Policy {
                strict_tool_position: self.strict,
                preamble_as_reasoning: self.preamble_reasoning,
                builtin_tools_as_calls: self.builtin_calls,
            });
        if self.inline {
            options = options.with_reasoning_format(ReasoningFormat::Inline);
        }
        options.prompt_tail = self.prompt_tail.clone();
        if let Some(bytes) = self.call_buffer {
            options = options.with_limits(Limits { call_buffer: bytes });
        }
        if let Some(tools) = &self.tools
            && let Ok(tools) = Tools::from_json(tools)
        {
            options = options.with_tools(Arc::new(tools));
        }
        options
    }

    /// Builds the parser. Panics on an unknown parser name or a template that does not load (a setup
    /// comes from a generator or a regression file, so this is a bug in either).
    pub fn build(&self) -> Parser {
        self.build_with(&self.options())
    }

    /// Builds the parser with `options` (from [`options`](Self::options), computed once per input).
    pub fn build_with(&self, options: &ParseOptions) -> Parser {
        match &self.template {
            Some(file) => prepared(file).parser(options),
            None => parser_auto::by_name(&self.parser, options)
                .unwrap_or_else(|e| panic!("fuzz setup names no parser: {e}")),
        }
    }

    /// The special tokens of the parser's format, whole (for [`Cut::Tokens`] and the leak check).
    pub fn tokens(&self) -> &'static [&'static str] {
        match &self.template {
            Some(file) => prepared(file).special_tokens(),
            None => parser_auto::entry_by_name(&self.parser)
                .map(|entry| entry.special_tokens)
                .unwrap_or(&[]),
        }
    }
}

/// The workspace's `templates/` folder.
pub fn templates_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("templates")
}

/// The resolved template (model name withheld), loaded and analysed once per process.
pub fn prepared(file: &str) -> Prepared {
    static CACHE: OnceLock<Mutex<HashMap<String, Prepared>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(file.to_owned())
        .or_insert_with(|| {
            let template = load_template(file);
            parser_auto::prepare(None, Some(&template))
                .unwrap_or_else(|e| panic!("template {file}: {e}"))
        })
        .clone()
}

/// Loads a template of `templates/` (panics when it does not load: the fuzzer only names templates that
/// do).
pub fn load_template(file: &str) -> ChatTemplate {
    ChatTemplate::from_file(&templates_dir().join(file))
        .unwrap_or_else(|e| panic!("template {file}: {e}"))
}

/// A way to cut an input into deltas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cut {
    /// The whole input in one push (one-shot).
    Whole,
    /// Pushes of `n` characters.
    Chars(usize),
    /// Pushes of 1 to 12 characters, from a seeded generator.
    Random(u64),
    /// The setup's special tokens whole, other text in pushes of 3 characters.
    Tokens,
    /// The setup's special tokens whole, other text in pushes of 1 to 12 characters from a seed (how a
    /// server delivers tokens).
    RandomTokens(u64),
    /// Pushes of 1 to 4096 characters, from a seed (for long inputs).
    Coarse(u64),
}

impl Cut {
    /// Cuts `text` into pieces; `tokens` are the special tokens kept whole by the token cuts.
    pub fn split<'t>(&self, text: &'t str, tokens: &[&str]) -> Vec<&'t str> {
        match *self {
            Cut::Whole => vec![text],
            Cut::Chars(n) => char_pieces(text, |_| n.max(1)),
            Cut::Random(seed) => {
                let mut state = Xorshift::new(seed);
                char_pieces(text, move |_| state.below(12) + 1)
            }
            Cut::Coarse(seed) => {
                let mut state = Xorshift::new(seed);
                char_pieces(text, move |_| state.below(4096) + 1)
            }
            Cut::Tokens => token_pieces(text, tokens, &mut |_| 3),
            Cut::RandomTokens(seed) => {
                let mut state = Xorshift::new(seed);
                token_pieces(text, tokens, &mut move |_| state.below(12) + 1)
            }
        }
    }
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cut::Whole => f.write_str("one-shot"),
            Cut::Chars(n) => write!(f, "{n} char(s) at a time"),
            Cut::Random(seed) => write!(f, "random 1-12 chars (seed {seed})"),
            Cut::Tokens => f.write_str("special tokens whole, 3 chars otherwise"),
            Cut::RandomTokens(seed) => write!(f, "special tokens whole, random 1-12 (seed {seed})"),
            Cut::Coarse(seed) => write!(f, "random 1-4096 chars (seed {seed})"),
        }
    }
}

/// xorshift64, for chunk sizes.
struct Xorshift(u64);

impl Xorshift {
    fn new(seed: u64) -> Self {
        Xorshift(seed | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn token_pieces<'t>(
    text: &'t str,
    tokens: &[&str],
    size: &mut dyn FnMut(usize) -> usize,
) -> Vec<&'t str> {
    // Tokens by first byte, longest first: one pass over the text (a `find` per token per piece
    // would be quadratic in long texts full of tokens).
    let mut by_first: Vec<Vec<&str>> = vec![Vec::new(); 256];
    for token in tokens.iter().filter(|t| !t.is_empty()) {
        by_first[token.as_bytes()[0] as usize].push(token);
    }
    for list in &mut by_first {
        list.sort_by_key(|t| std::cmp::Reverse(t.len()));
    }
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut plain_from = 0;
    let mut at = 0;
    while at < bytes.len() {
        let token = by_first[bytes[at] as usize]
            .iter()
            .find(|t| bytes[at..].starts_with(t.as_bytes()));
        match token {
            Some(token) => {
                pieces.extend(char_pieces(&text[plain_from..at], &mut *size));
                pieces.push(&text[at..at + token.len()]);
                at += token.len();
                plain_from = at;
            }
            None => at += 1,
        }
    }
    pieces.extend(char_pieces(&text[plain_from..], &mut *size));
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_cover_the_text() {
        let text = "a<think>é😀b</think>ccc<think>";
        for cut in [
            Cut::Whole,
            Cut::Chars(1),
            Cut::Chars(3),
            Cut::Random(5),
            Cut::Tokens,
            Cut::RandomTokens(9),
            Cut::Coarse(3),
        ] {
            let pieces = cut.split(text, &["<think>", "</think>"]);
            assert_eq!(pieces.concat(), text, "{cut}");
            assert!(pieces.iter().all(|p| !p.is_empty()), "{cut}");
        }
        assert!(Cut::Tokens.split(text, &["<think>"]).contains(&"<think>"));
    }
}
