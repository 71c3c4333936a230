//! The parser built from an [`Analysis`]: any chat template's reasoning, content and tool-call markers,
//! parsed by the same streaming engine as the model families.
//!
//! [`parser_for`] turns an analysis (what the differential analyzer found in a template) and a request's
//! [`ParseOptions`] into a [`Parser`] named `"auto"`. It composes a [`ThinkTagReasoningParser`] (or none)
//! with a tool parser for the template's format, both on the core scanner: exact hold-back of partial
//! markers, JSON-aware boundaries, arguments streamed as the raw text the model wrote (PYTHONIC arguments,
//! converted from Python, come whole when each call closes), and one-shot parsing as one push and
//! `finish`, so that streaming equals one-shot for every chunking.
//!
//! The same [`Analysis`] gives the request's grammar for constrained decoding
//! ([`GenericParserFactory::constraint`], [`constraint`]), so that the parser and the grammar cannot
//! disagree. Its types are in [`spec`]: plain, serialisable data, which `parser-auto`'s differential
//! analyzer fills from a chat template, and which a model family may also write by hand.
//!
//! # A family as data
//! A format that fits this engine (`JSON_NATIVE`, `TAG_WITH_JSON`, `TAG_WITH_TAGGED`, `PYTHONIC`, with
//! its reasoning and content markers) needs no parser code: its family crate depends on `parser-core`
//! and this crate, writes the format as a `fn spec() -> Analysis`, and registers it like any family —
//! a [`DataParser`] `static` (built on first use), whose [`DataParser::parser`] is the body of the
//! [`ParserEntry`](parser_core::ParserEntry)'s `build` and whose [`DataParser::constraint`] is the body
//! of the [`ConstraintEntry`](parser_core::constraint::ConstraintEntry)'s, so that the grammar comes
//! from the same spec. Then, as for every family, `parser-auto` gets a feature and a `pub use` of the
//! crate (which keeps its registrations linked).
//!
//! What to write in the spec, beyond the markers of [`Markers`](spec::Markers) (each trimmed; empty is
//! none) and [`ToolFormat`](spec::ToolFormat) / [`JsonFields`](spec::JsonFields) /
//! [`CallIdPosition`](spec::CallIdPosition):
//! - the stage: [`Analysis::generation_prompt`], what the chat template's generation prompt ends with
//!   (`<|im_start|>assistant\n<think>\n` when it opens reasoning; `<|im_start|>assistant\n` when the
//!   model opens it itself); with a thinking switch, [`Analysis::generation_prompt_no_thinking`] and
//!   [`Capabilities::thinking_variable`](spec::Capabilities::thinking_variable) /
//!   [`thinking_default`](spec::Capabilities::thinking_default). When the generation prompt does not
//!   hold the reasoning start marker, name the assistant's turn start in [`Analysis::turn_start`], so
//!   that markers of earlier turns in a prompt tail do not count (see [Stage](#stage));
//! - [`Analysis::end_of_turn`]: tokens the model ends its turn with (dropped from content, kept out of
//!   the grammar's free text).
//!
//! The entry's `special_tokens` is a constant: list the markers there and check it against
//! [`DataParser::tokens`] in the family's tests. A made-up format, registered and parsed one-shot:
//!
//! ```
//! use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
//! use parser_core::{Error, ParseOptions, Parser, ParserEntry, inventory};
//! use parser_generic::DataParser;
//! use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};
//!
//! /// `<reason>…</reason>` reasoning the model opens itself, then `<call>NAME{json}</call>` calls.
//! fn spec() -> Analysis {
//!     Analysis {
//!         reasoning: ReasoningMode::TagBased,
//!         tools: ToolFormat::TagWithJson,
//!         markers: Markers {
//!             reasoning_start: "<reason>".into(),
//!             reasoning_end: "</reason>".into(),
//!             per_call_start: "<call>".into(),
//!             per_call_end: "</call>".into(),
//!             ..Markers::default()
//!         },
//!         generation_prompt: "<|assistant|>".into(),
//!         turn_start: vec!["<|assistant|>".into()],
//!         end_of_turn: vec!["<|end|>".into()],
//!         ..Analysis::default()
//!     }
//! }
//!
//! static MINI: DataParser = DataParser::new("mini", spec);
//! const SPECIAL_TOKENS: &[&str] = &["<reason>", "</reason>", "<call>", "</call>", "<|end|>"];
//!
//! fn build(options: &ParseOptions) -> Parser {
//!     MINI.parser(options)
//! }
//! fn constraint(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
//!     MINI.constraint(options, request)
//! }
//!
//! inventory::submit! {
//!     ParserEntry {
//!         name: "mini",
//!         family: "mini",
//!         aliases: &["mini_tools"],
//!         models: &["mini-1"],
//!         summary: "Mini: <reason> reasoning, <call>NAME{json}</call> calls",
//!         sample: "<reason>Paris.</reason>Checking.<call>get_weather{\"city\": \"Paris\"}</call>",
//!         sample_prompt_tail: "<|user|>Weather in Paris?<|assistant|>",
//!         special_tokens: SPECIAL_TOKENS,
//!         build,
//!     }
//! }
//! inventory::submit! {
//!     ConstraintEntry { parser: "mini", build: constraint }
//! }
//!
//! fn main() {
//!     let mut tokens = MINI.tokens().to_vec();
//!     tokens.sort();
//!     let mut listed = SPECIAL_TOKENS.to_vec();
//!     listed.sort();
//!     assert_eq!(tokens, listed);
//!
//!     let options = ParseOptions::new().with_prompt_tail("<|user|>Weather in Paris?<|assistant|>");
//!     let parser = parser_core::find_by_name("mini_tools").unwrap().parser(&options);
//!     assert_eq!(parser.name(), "mini");
//!     let message = parser.parse(
//!         "<reason>The user wants Paris.</reason>Checking.<call>get_weather{\"city\": \"Paris\"}</call><|end|>",
//!     );
//!     assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//!     assert_eq!(message.content.as_deref(), Some("Checking."));
//!     assert_eq!(message.tool_calls[0].name, "get_weather");
//!     assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! }
//! ```
//!
//! # Reasoning
//! - `NONE`: no reasoning; everything outside calls is content.
//! - `TAG_BASED` / `TOOLS_ONLY`: `reasoning_start … reasoning_end`. The output starts inside reasoning
//!   when the real generation prompt opened it: the prompt's tail, from the reasoning start marker on, is
//!   read as the beginning of the output (see [Stage](#stage)); otherwise a start marker at the very
//!   beginning of the output opens reasoning. Only the first end marker ends it.
//! - A delimiter style (empty start, non-empty end: Apriel's `[BEGIN FINAL RESPONSE]`) starts in reasoning
//!   unless thinking is known to be off.
//!
//! With [`ReasoningFormat::Inline`] reasoning is tracked the same way but reported as content, markers
//! included (llama.cpp's `reasoning_format: none`).
//!
//! # Content
//! `PLAIN`, `ALWAYS_WRAPPED` (`<|START_RESPONSE|>…<|END_RESPONSE|>`) and `WRAPPED_WITH_REASONING`
//! (`<response>…</response>`): the content markers are removed from content wherever they appear outside
//! calls, and so are the template's end-of-turn markers. A content start marker that begins with the
//! per-call start marker names a recipient (functionary v3.2's `>>>all`): `>>>all` and one newline
//! after it are framing wherever a call could open, and the text after them is content; a longer name
//! (`>>>allowed`) is a call.
//!
//! # Tool calls
//! A function name is a run of characters other than whitespace, markup (`<>{}[]"'`) and the first
//! character of what may follow it; when the template writes nothing after the name (GLM), the name must
//! be followed by the next marker of the call (an argument, the call's end). Every decision on a head
//! is bounded and taken on the text seen so far, with longest-match over all markers that may come
//! next, so that every chunking decides alike.
//!
//! A call block opens at the section or per-call start marker (or, for the tag formats, at a markup-like
//! function-name prefix such as `<function=` written without its wrapper). Nothing is committed until the
//! function name is complete (DESIGN §4.6); text that never reaches a complete name is content, raw.
//! Whitespace between markers is tolerated everywhere (models do not respect their template's newlines).
//! - `JSON_NATIVE`: the call is a JSON object read by [`parser_core::JsonCall`] with the analysis' field
//!   names (flat, nested under a `function` key, the name as the key, id fields), one per per-call block
//!   or each element of an array (`[TOOL_CALLS] [{…}, {…}]`). The usual spellings (`name`, `arguments`,
//!   `parameters`) are accepted beside the template's own. Without any section or per-call marker (Llama
//!   3.x) a call opens only on a `{` at the very start of the answer, so JSON in prose is never a call.
//!   With id fields (Mistral-Nemo's `"id"` after the arguments) the commit waits for the id or the end of
//!   the object, and the arguments arrive with it (see [`parser_core::JsonCall`]). In an array each
//!   element is read on its own, up to the `}` that balances its braces (strings skipped, valid JSON or
//!   not): a malformed element (`{"time": 15:30}`) is an invalid call with the text it wrote, or content
//!   when it breaks before its name, and its siblings are read as calls; an element cut off by the
//!   block's end marker ends there, and the marker is framing.
//! - `TAG_WITH_JSON`: `prefix NAME suffix [id] [args_start] {JSON} [args_end] func_close`; the object's
//!   end is found JSON-aware and its text streamed raw (a Markdown fence opened in the name suffix,
//!   DeepSeek-R1's `` ```json ``, may be closed after it). Text after the object that is not framing
//!   ends the block and is content; arguments that are not a JSON object are kept raw, up to the end
//!   of the call, flagged invalid.
//! - `TAG_WITH_TAGGED`: `prefix NAME suffix`, then per argument `arg_name_prefix KEY arg_name_suffix
//!   [arg_value_prefix] VALUE arg_value_suffix`, then `func_close`. Values are typed by the request's tool
//!   schema ([`parser_core::ValueType::coerce`]); string values (and arguments the schema does not
//!   declare) stream as they arrive. One framing newline is removed at each end of a value. A closer only
//!   ends a value when the next argument, the end of the call or the end of the output follows it.
//! - `PYTHONIC`: `[NAME(KEY=VALUE, …), …]`, a Python list of calls with keyword arguments written as
//!   Python literals, inside the section markers (LFM2's `<|tool_call_start|>…<|tool_call_end|>`) or,
//!   without any marker, only at the very start of the answer (like a bare JSON call). A call is
//!   committed at its complete name and `(`; the `[` is optional after a section marker, and inside an
//!   opened section calls may follow each other without a list (Olmo 3's one call per line), up to the
//!   first text that is no call. Its argument
//!   text is read Python-aware (strings in either quote with escapes, nested brackets; markers inside a
//!   string are text) up to the closing `)` and converted to a JSON object by
//!   [`pythonic::kwargs_to_json`] (`True`/`False`/`None`, tuples as arrays, string escapes decoded).
//!   **The arguments do not stream**: they need conversion, so each call's arguments arrive in one
//!   delta when its `)` is read (streaming still equals one-shot). Arguments that do not convert
//!   (positional arguments, expressions), that meet a stray `]`/`}` or a call/section end marker
//!   outside a string, or that are cut off, are kept as the raw Python text written so far, the call
//!   flagged invalid.
//!
//! Call ids the model writes come back byte-exact: JSON id fields, and ids before the name or between the
//! name and the arguments (Mistral's `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`). An id written after the
//! arguments comes too late for the call's first delta; it is skipped and a `call_…` id generated.
//! Names are not checked against the request's tools: an unknown name is still a call (it is logged at
//! debug level). A call block that opens while reasoning is still open is held
//! ([`BlockInReasoning::Hold`], DESIGN §4.8): calls if it ends the output, reasoning text otherwise —
//! or, with [`Analysis::calls_end_reasoning`] (models that write their calls inside `<think>`), it
//! ends reasoning there ([`BlockInReasoning::EndsReasoning`]).
//!
//! # Stage
//! Where the output starts, by the families' rules (core's [`parser_core::StageDetector::resolve`], one
//! code path for every parser):
//! 1. [`ParseOptions::stage`];
//! 2. the request's prompt tail, after the last start of the assistant's turn (the analysis' generation
//!    prompt up to the reasoning start marker): a reasoning start marker (possibly followed by text, a
//!    prefill) with no end marker after it means reasoning; an end marker after it means content.
//!    A spec may name its turn starts itself ([`Analysis::turn_start`]).
//!    Without a turn start in the tail, only a marker at its very end counts — except when the
//!    analysis names no turn start at all (its generation prompt lacks the start marker): then a start
//!    marker with no end marker after it means reasoning;
//! 3. the prompt's token ids, with a special-token table;
//! 4. `enable_thinking`, when the template has a thinking switch
//!    ([`crate::spec::Capabilities::thinking_variable`]): on means reasoning — a bare end marker
//!    splits — and off means content;
//! 5. otherwise what the template's own generation prompt leaves the model in, read as in 2: with thinking
//!    on ([`Analysis::generation_prompt`], or the template's default,
//!    [`crate::spec::Capabilities::thinking_default`]) or off
//!    ([`Analysis::generation_prompt_no_thinking`]); when it opens nothing, content — the model may
//!    still open reasoning at the very start of its output — or, for a delimiter style, reasoning unless
//!    thinking is known to be off.
//!
//! ```
//! use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};
//! use parser_core::ParseOptions;
//!
//! // Qwen3-Coder-style calls, `<think>` reasoning forced open by the prompt.
//! let analysis = Analysis {
//!     reasoning: ReasoningMode::TagBased,
//!     tools: ToolFormat::TagWithTagged,
//!     markers: Markers {
//!         reasoning_start: "<think>".into(),
//!         reasoning_end: "</think>".into(),
//!         per_call_start: "<tool_call>".into(),
//!         per_call_end: "</tool_call>".into(),
//!         func_name_prefix: "<function=".into(),
//!         func_name_suffix: ">".into(),
//!         func_close: "</function>".into(),
//!         arg_name_prefix: "<parameter=".into(),
//!         arg_name_suffix: ">".into(),
//!         arg_value_suffix: "</parameter>".into(),
//!         ..Markers::default()
//!     },
//!     generation_prompt: "<|im_start|>assistant\n<think>\n".into(),
//!     ..Analysis::default()
//! };
//! let options = ParseOptions::new().with_prompt_tail("<|im_start|>assistant\n<think>\n");
//! let message = parser_generic::parser_for(&analysis, &options).parse(concat!(
//!     "The user wants Paris.</think>\n",
//!     "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;
mod family;
mod head;
pub mod pythonic;
pub mod spec;
mod syntax;
mod tools;

use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ReasoningStart};
use parser_core::intern::reasoning_syntax;
use parser_core::{
    BlockInReasoning, Composed, Error, ErrorKind, NoReasoning, ParseOptions, Parser,
    ReasoningFormat, ReasoningSyntax, Stage, ThinkTagReasoningParser,
};

use crate::spec::{Analysis, ReasoningMode};
use syntax::Syntax;
use tools::GenericToolParser;

pub use family::DataParser;

/// The name of every parser built here.
pub const NAME: &str = "auto";

/// The parser for outputs of a template with this analysis, for one request.
///
/// Never fails: an analysis with no usable markers gives a parser that reports everything as content.
/// This builds the marker tables each time; a server that parses many outputs of one template keeps a
/// [`GenericParserFactory`] instead (or uses `parser_auto::prepare`, which caches one per template).
pub fn parser_for(analysis: &Analysis, options: &ParseOptions) -> Parser {
    GenericParserFactory::new(Arc::new(analysis.clone())).parser(options)
}

/// Everything a generic parser needs that depends on the analysis only — its markers, interned and
/// sorted into tables — built once, so that a parser per request costs a few small allocations.
#[derive(Clone, Debug)]
pub struct GenericParserFactory {
    name: &'static str,
    analysis: Arc<Analysis>,
    syntax: Arc<Syntax>,
    reasoning: Option<&'static ReasoningSyntax>,
}

impl GenericParserFactory {
    /// Builds the tables for this analysis.
    pub fn new(analysis: Arc<Analysis>) -> GenericParserFactory {
        let syntax = Arc::new(Syntax::new(&analysis));
        let reasoning = reasoning_of(&analysis, syntax.openers);
        GenericParserFactory {
            name: NAME,
            analysis,
            syntax,
            reasoning,
        }
    }

    /// The same tables, for parsers named `name` ([`Parser::name`]) rather than [`NAME`]: a family
    /// written as data names its parsers after its registry entry (see [`DataParser`]).
    pub fn named(mut self, name: &'static str) -> GenericParserFactory {
        self.name = name;
        self
    }

    /// Every marker of the analysis, whole (see [`markers`]).
    pub fn tokens(&self) -> &'static [&'static str] {
        self.syntax.tokens
    }

    /// The analysis the parsers follow.
    pub fn analysis(&self) -> &Arc<Analysis> {
        &self.analysis
    }

    /// A parser for one output; the request's options decide the starting stage (see the module docs).
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        let tools = GenericToolParser::new(self.syntax.clone(), options);
        let Some(reasoning) = self.reasoning else {
            return Parser::new(
                self.name,
                Composed::new(NoReasoning, tools, Stage::Content, false),
            );
        };
        let stage = stage_for(&self.analysis, reasoning, options, Stage::Content);
        let inline = options.reasoning_format == ReasoningFormat::Inline;
        let parser = ThinkTagReasoningParser::new(reasoning, stage)
            .inline(inline)
            .blocks_in_reasoning(if self.analysis.calls_end_reasoning {
                BlockInReasoning::EndsReasoning
            } else {
                BlockInReasoning::Hold
            });
        let composed = Composed::new(parser, tools, stage, inline);
        Parser::new(self.name, composed.buffer_limit(options.limits.call_buffer))
    }

    /// Where a request's output starts, for the reasoning part of its grammar, by the parser's own stage
    /// rules (see [Stage](self#stage)): inside reasoning when the parser starts there; without reasoning
    /// when something says thinking is off (the parser would start in the answer even if the template's
    /// prompt left the model free), or when the template has no reasoning start marker to open it with;
    /// otherwise the output may open reasoning itself.
    pub fn reasoning_start(&self, options: &ParseOptions) -> ReasoningStart {
        let Some(reasoning) = self.reasoning else {
            return ReasoningStart::Off;
        };
        if stage_for(&self.analysis, reasoning, options, Stage::Content) == Stage::Reasoning {
            ReasoningStart::Inside
        } else if reasoning.detector.open.iter().all(|m| m.is_empty())
            || stage_for(&self.analysis, reasoning, options, Stage::Reasoning) == Stage::Content
        {
            ReasoningStart::Off
        } else {
            ReasoningStart::Optional
        }
    }

    /// The constraint of one request for this parser's format (see [`constraint`]): the grammar of
    /// what the parser built for the same `options` reads as the request's calls.
    ///
    /// Errors: the analysis' format is not described yet ([`constraint::NotDescribed`], as an
    /// [`ErrorKind::InvalidOption`] naming the reason), or the request is not satisfiable (a named
    /// function not among the tools, `required` without tools).
    ///
    /// ```
    /// use parser_generic::spec::{Analysis, Markers, ToolFormat};
    /// use parser_generic::GenericParserFactory;
    /// use parser_core::{ParseOptions, Tools};
    /// use parser_core::constraint::{ConstraintRequest, ToolChoice};
    /// use std::sync::Arc;
    ///
    /// // Devstral-style calls: `[TOOL_CALLS]NAME[ARGS]{…}`.
    /// let analysis = Analysis {
    ///     tools: ToolFormat::TagWithJson,
    ///     markers: Markers {
    ///         per_call_start: "[TOOL_CALLS]".into(),
    ///         func_name_suffix: "[ARGS]".into(),
    ///         ..Markers::default()
    ///     },
    ///     ..Analysis::default()
    /// };
    /// let factory = GenericParserFactory::new(Arc::new(analysis));
    /// let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
    ///     "name": "now", "parameters": {"type": "object", "properties": {}}
    /// }}]))
    /// .unwrap();
    /// let options = ParseOptions::new().with_tools(Arc::new(tools));
    /// let constraint = factory.constraint(&options, &ConstraintRequest::default()).unwrap();
    /// assert!(constraint.lazy);
    /// assert_eq!(constraint.triggers.words, ["[TOOL_CALLS]"]);
    /// assert!(constraint.lark().contains(r#""now""#));
    /// ```
    pub fn constraint(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        let format = constraint::format_description(&self.analysis).map_err(|why| {
            Error::new(ErrorKind::InvalidOption(format!(
                "the generic parser's format cannot be constrained yet: {why}"
            )))
        })?;
        format.constraint(
            options.tools.as_deref(),
            self.reasoning_start(options),
            request,
        )
    }
}

/// Every marker of the analysis, whole (trimmed, interned): how a server delivers special tokens, for
/// chunking tests and for tokenizers that must keep them.
pub fn markers(analysis: &Analysis) -> &'static [&'static str] {
    Syntax::new(analysis).tokens
}

/// The reasoning syntax of the analysis, or `None` when it has no reasoning (or no end marker, which
/// leaves nothing to split on).
fn reasoning_of(
    analysis: &Analysis,
    block_openers: &'static [&'static str],
) -> Option<&'static ReasoningSyntax> {
    let start = analysis.markers.reasoning_start.trim();
    let end = analysis.markers.reasoning_end.trim();
    if analysis.reasoning == ReasoningMode::None || end.is_empty() {
        return None;
    }
    let turn_start = turn_starts(analysis, start);
    let turn_start: Vec<&str> = turn_start.iter().map(String::as_str).collect();
    let ignore: Vec<&str> = analysis.end_of_turn.iter().map(|t| t.trim()).collect();
    let ignore = syntax::spelled(analysis, &ignore);
    Some(reasoning_syntax(
        &syntax::spelled(analysis, &[start]),
        &syntax::spelled(analysis, &[end]),
        &turn_start,
        &ignore,
        block_openers,
    ))
}

/// Where the assistant's turn starts in a prompt, so that reasoning markers of earlier turns never count:
/// the spec's own ([`Analysis::turn_start`]), then
/// each generation prompt up to the reasoning start marker, trimmed — only from prompts that hold the
/// marker, since the part of a prompt without it may stand after the marker in a real prompt — or, for a
/// delimiter style, the whole generation prompt.
fn turn_starts(analysis: &Analysis, start: &str) -> Vec<String> {
    let prompts = std::iter::once(analysis.generation_prompt.as_str())
        .chain(analysis.generation_prompt_no_thinking.as_deref());
    let mut turns: Vec<String> = analysis
        .turn_start
        .iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect();
    for prompt in prompts {
        let head = match (start.is_empty(), prompt.find(start)) {
            (false, Some(at)) => &prompt[..at],
            (false, None) => continue,
            (true, _) => prompt,
        };
        let head = head.trim();
        if !head.is_empty() && !turns.iter().any(|t| t == head) {
            turns.push(head.to_owned());
        }
    }
    turns
}

/// The stage the output starts in; see the module docs. The rules are the families': core's
/// [`StageDetector::resolve`](parser_core::StageDetector::resolve) (the explicit stage, the prompt tail,
/// the token ids, `enable_thinking` when the template has a thinking switch), with the template's own
/// generation prompt as the default. `unmarked` is where a prompt that says nothing leaves the output
/// (the parser's rule is [`Stage::Content`]; [`Stage::Reasoning`] asks whether anything says
/// otherwise).
fn stage_for(
    analysis: &Analysis,
    syntax: &ReasoningSyntax,
    options: &ParseOptions,
    unmarked: Stage,
) -> Stage {
    let detector = &syntax.detector;
    let thinking = options
        .enable_thinking
        .or(analysis.capabilities.thinking_default);
    // Nothing in the generation prompt: a delimiter style starts in reasoning unless thinking is off.
    let unmarked = if detector.open.is_empty() && thinking != Some(false) {
        Stage::Reasoning
    } else {
        unmarked
    };
    // What the template's generation prompt, for this request's thinking, leaves the model in.
    let prompt = match thinking {
        Some(false) => analysis.generation_prompt_no_thinking.as_deref(),
        _ => Some(analysis.generation_prompt.as_str()),
    };
    let default = prompt
        .and_then(|prompt| detector.from_prompt(prompt))
        .unwrap_or(unmarked);
    if options.stage.is_none()
        && detector.turn_start.is_empty()
        && let Some(tail) = options.prompt_tail.as_deref()
        && opened_without_turn(detector, tail)
    {
        return Stage::Reasoning;
    }
    if analysis.capabilities.thinking_variable.is_some() {
        detector.resolve(options, default)
    } else {
        detector.resolve_without_switch(options, default)
    }
}

/// For an analysis that names no turn start (its generation prompt lacks the reasoning start marker, as
/// the analysis of Apriel's `<|begin_assistant|>` … `Here are my reasoning steps:` finds), the tail cannot
/// be cut at the assistant's turn; a start marker with no end marker after it, followed by text (a
/// prefill), still means reasoning. Where the tail does not end in a marker, core's rule
/// ([`parser_core::StageDetector::from_prompt`]) would not say.
fn opened_without_turn(detector: &parser_core::StageDetector, tail: &str) -> bool {
    let last = |markers: &[&str]| markers.iter().filter_map(|m| tail.rfind(m)).max();
    match (last(detector.open), last(detector.close)) {
        (Some(open), close) => close.is_none_or(|close| close < open),
        (None, _) => false,
    }
}
