//! Per-request options: what the parser knows about the prompt, the tools and the policies to apply.

use std::collections::HashMap;
use std::sync::Arc;

use crate::message::Stage;
use crate::schema::Tools;

/// How reasoning is reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReasoningFormat {
    /// Reasoning is split out into its own field (the default; llama.cpp's `deepseek`/`auto`).
    #[default]
    Extract,
    /// Reasoning stays inline in the content, markers included (llama.cpp's `reasoning_format: none`).
    /// Tool markup inside reasoning is still not a call.
    Inline,
}

/// Policies where servers disagree. Every switch has a documented default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Policy {
    /// FastDeploy's strict rule set (DeepSeek RFC §3.2.3–3.2.5): once non-whitespace content has been
    /// written outside reasoning (before the first call or between calls), later call markup is content.
    /// Default `false`: every committed call block is a call and the text around it is content.
    pub strict_tool_position: bool,
    /// Harmony (GPT-OSS): a `commentary` message without a recipient (a preamble) is reasoning.
    /// Default `false`: it is content, as ollama and llama.cpp report it (mistral.rs: reasoning).
    pub preamble_as_reasoning: bool,
    /// Harmony (GPT-OSS): messages to built-in tools (recipients outside `functions.`, such as
    /// `browser.search` or `python`) are reported as calls. Default `false`: they are reasoning, since the
    /// server did not declare them as functions.
    pub builtin_tools_as_calls: bool,
}

/// A table of special tokens: token id ⇄ text, as in `tokenizer_config.json`'s `added_tokens_decoder`.
///
/// Used to detect the stage from prompt token ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecialTokens {
    by_id: HashMap<u32, String>,
    by_text: HashMap<String, u32>,
}

impl SpecialTokens {
    /// Builds the table from `(id, text)` pairs.
    pub fn from_pairs<I, S>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (u32, S)>,
        S: Into<String>,
    {
        let mut table = SpecialTokens::default();
        for (id, text) in pairs {
            let text = text.into();
            table.by_text.insert(text.clone(), id);
            table.by_id.insert(id, text);
        }
        table
    }

    /// The text of token `id`, if it is a special token.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.by_id.get(&id).map(String::as_str)
    }

    /// The id of the special token spelled `text`.
    pub fn id(&self, text: &str) -> Option<u32> {
        self.by_text.get(text).copied()
    }

    /// The number of tokens in the table.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when the table is empty.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// What a parser is told about one request.
///
/// Everything is optional; a parser uses what it is given, in this order of trust for the stage:
/// [`stage`](Self::stage), the prompt tail, the prompt token ids, [`enable_thinking`](Self::enable_thinking),
/// then the family's default.
///
/// ```
/// use parser_core::{ParseOptions, Stage};
/// let options = ParseOptions::new()
///     .with_prompt_tail("<｜User｜>Hi<｜Assistant｜><think>\n")
///     .with_enable_thinking(Some(true));
/// assert_eq!(options.enable_thinking, Some(true));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// The end of the rendered prompt (the generation prompt and a little before it).
    pub prompt_tail: Option<String>,
    /// The prompt's token ids (only the last few matter).
    pub prompt_token_ids: Option<Vec<u32>>,
    /// The special-token table for [`prompt_token_ids`](Self::prompt_token_ids).
    pub special_tokens: Option<Arc<SpecialTokens>>,
    /// The request's `enable_thinking` (or `thinking`) template switch, if given.
    pub enable_thinking: Option<bool>,
    /// Where the output starts, when the caller knows it; overrides detection.
    pub stage: Option<Stage>,
    /// The request's tools, for schema-typed parameter values.
    pub tools: Option<Arc<Tools>>,
    /// How reasoning is reported.
    pub reasoning_format: ReasoningFormat,
    /// Policy switches.
    pub policy: Policy,
    /// Seed for generated `call_…` ids; `None` picks a fresh one per parser. Tests set it so that runs
    /// compare equal.
    pub call_id_seed: Option<u64>,
    /// Bounds on what a parser may hold while it waits to decide.
    pub limits: Limits,
}

/// Bounds on the text a parser holds back while it cannot decide yet.
///
/// Reasoning, content and string arguments are streamed, never accumulated, so a parser's memory does not
/// grow with the output. A few constructs must be read whole before they can be written, and these are
/// what the limit bounds; each has a documented way out when it is reached, decided at the same byte
/// whatever the chunking (so streaming still equals one-shot):
///
/// - a tool-call block inside open reasoning, held until we know whether it ends the output
///   ([`crate::BlockInReasoning::Hold`]): past the limit it is reasoning text, as if reasoning went on;
/// - a JSON call object before its name is known (arguments written before `"name"`, or a long unknown
///   field): past the limit it is not a call, and its text is content;
/// - a parameter value typed by the tool schema as a number, boolean, object or array, which is collected
///   to be typed when it ends: past the limit it streams on as a JSON string (the value as written);
/// - family- and catch-all-specific buffers (DeepSeek R1's tools-array fallback, Python-style call
///   arguments, Hugging Face response regions): past the limit the block is content, or, when its call
///   was already announced, the call ends flagged not valid with its raw arguments.
///
/// ```
/// use parser_core::{Limits, ParseOptions};
/// let options = ParseOptions::new().with_limits(Limits { call_buffer: 64 << 10 });
/// assert_eq!(options.limits.call_buffer, 65_536);
/// assert_eq!(Limits::default().call_buffer, Limits::DEFAULT_CALL_BUFFER);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes of one undecided construct (see the type's docs) held at once. Default
    /// [`Limits::DEFAULT_CALL_BUFFER`] (4 MiB, the size SGLang's parsers accept).
    pub call_buffer: usize,
}

impl Limits {
    /// The default [`call_buffer`](Self::call_buffer): 4 MiB.
    pub const DEFAULT_CALL_BUFFER: usize = 4 << 20;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            call_buffer: Self::DEFAULT_CALL_BUFFER,
        }
    }
}

/// The budget of one chat-template render: a template comes from a model directory, so whoever
/// published the model wrote code that the server runs on every request.
///
/// Every render the library makes (`ChatTemplate::render`, `render_prompt`, `render_request`,
/// `render_new_message`, the capability probes and every render of the template analysis) runs under
/// these limits. Going over one is an [`Error`](crate::Error) of kind
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) naming the limit, the template and how
/// far the render got; never a panic, never an abort, and the memory a render can take is bounded by the
/// byte limits below (a few times [`work_bytes`](Self::work_bytes) at most).
///
/// The defaults are at least 100 times the largest use measured over the 280 renders of the render parity
/// fixtures (the 47 reference templates, rendered by transformers) and the 47 template analyses, with
/// room for conversations far longer than those fixtures, and small enough that a hostile template fails
/// in well under a second with its heap under 100 MB (`benchmarks/tests/bounded_memory.rs`,
/// `cargo bench -p benchmarks --bench hostile_templates`). Measured (`parser-auto/tests/template_budget.rs`,
/// which holds the 100 times):
///
/// | limit | largest use seen | default |
/// |---|---|---|
/// | `fuel` | 2,635 instructions (Functionary v3.2, parallel calls) | 4,000,000 |
/// | `output_bytes` | 18,077 bytes written (GigaChat 3.1) | 16 MiB |
/// | `value_bytes` | 5,682 bytes (Devstral) | 16 MiB |
/// | `work_bytes` | 47,423 bytes (GigaChat 3) | 64 MiB |
/// | fuel of one whole analysis | 28,146 (Functionary v3.2) | 2 × `fuel` |
///
/// Recursion is bounded by minijinja at 500 levels at most, and values nest at most
/// [`MAX_NESTING`](Self::MAX_NESTING) deep (a list that contains itself is refused).
///
/// ```
/// use parser_core::TemplateLimits;
/// let tight = TemplateLimits { fuel: 50_000, ..TemplateLimits::default() };
/// assert!(tight.fuel < TemplateLimits::default().fuel);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateLimits {
    /// Template instructions one render may execute (minijinja's fuel: one unit per instruction, most
    /// instructions). Bounds loops, including nested `range` loops that build nothing.
    pub fuel: u64,
    /// Bytes one render may write: the prompt, and text captured by macro calls and `{% set %}` blocks
    /// on its way into it (counted each time it is written).
    pub output_bytes: usize,
    /// Bytes of any one string a template builds (`~`, `+`, `*`, `join`, `replace`, `format`, `center`,
    /// `indent`, `tojson`, string methods, …), checked before the string is allocated.
    pub value_bytes: usize,
    /// Items of any one list a template builds (`*`, `+`, `append`, `extend`, `batch`, `list`, …).
    pub list_items: usize,
    /// Bytes a render may produce in all: output, output captured by macros and `{% set %}` blocks, every
    /// string and list (8 bytes an item) built, and the bytes scanned by operations that read a whole
    /// value. Bounds the time and memory of copying, which instruction fuel does not see (a loop that
    /// doubles a string takes few instructions).
    pub work_bytes: u64,
    /// Depth of nested macro calls and recursive loops. minijinja caps it at 500 whatever is set here.
    pub recursion: usize,
}

impl TemplateLimits {
    /// The default [`fuel`](Self::fuel).
    pub const DEFAULT_FUEL: u64 = 4_000_000;
    /// The default [`output_bytes`](Self::output_bytes): 16 MiB.
    pub const DEFAULT_OUTPUT_BYTES: usize = 16 << 20;
    /// The default [`value_bytes`](Self::value_bytes): 16 MiB.
    pub const DEFAULT_VALUE_BYTES: usize = 16 << 20;
    /// The default [`list_items`](Self::list_items).
    pub const DEFAULT_LIST_ITEMS: usize = 1 << 20;
    /// The default [`work_bytes`](Self::work_bytes): 64 MiB.
    pub const DEFAULT_WORK_BYTES: u64 = 64 << 20;
    /// The default [`recursion`](Self::recursion).
    pub const DEFAULT_RECURSION: usize = 500;
    /// Depth to which template values (lists and dicts) may nest: printing, comparing and dropping a
    /// value recurse once a level, so a deeper value could overflow the stack.
    pub const MAX_NESTING: usize = 128;
}

impl Default for TemplateLimits {
    fn default() -> Self {
        TemplateLimits {
            fuel: Self::DEFAULT_FUEL,
            output_bytes: Self::DEFAULT_OUTPUT_BYTES,
            value_bytes: Self::DEFAULT_VALUE_BYTES,
            list_items: Self::DEFAULT_LIST_ITEMS,
            work_bytes: Self::DEFAULT_WORK_BYTES,
            recursion: Self::DEFAULT_RECURSION,
        }
    }
}

impl ParseOptions {
    /// No information: the family defaults apply.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the prompt tail.
    pub fn with_prompt_tail(mut self, tail: impl Into<String>) -> Self {
        self.prompt_tail = Some(tail.into());
        self
    }

    /// Sets the prompt token ids and their special-token table.
    pub fn with_prompt_token_ids(mut self, ids: Vec<u32>, table: Arc<SpecialTokens>) -> Self {
        self.prompt_token_ids = Some(ids);
        self.special_tokens = Some(table);
        self
    }

    /// Sets `enable_thinking`.
    pub fn with_enable_thinking(mut self, on: Option<bool>) -> Self {
        self.enable_thinking = on;
        self
    }

    /// Forces the stage.
    pub fn with_stage(mut self, stage: Stage) -> Self {
        self.stage = Some(stage);
        self
    }

    /// Sets the request's tools.
    pub fn with_tools(mut self, tools: Arc<Tools>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Sets the reasoning format.
    pub fn with_reasoning_format(mut self, format: ReasoningFormat) -> Self {
        self.reasoning_format = format;
        self
    }

    /// Sets the policies.
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the buffering limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Fixes the seed of generated call ids.
    pub fn with_call_id_seed(mut self, seed: u64) -> Self {
        self.call_id_seed = Some(seed);
        self
    }
}
