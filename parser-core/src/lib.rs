//! The core of llm-parse: turn a model's raw decoded output into reasoning, content and tool calls, one
//! delta at a time or in one go, with the same answer either way.
//!
//! This crate holds what every model family shares; the families (`parser-deepseek`, …) describe their
//! formats on top of it, and `parser-auto` picks one by model name.
//!
//! - Vocabulary: [`ParsedMessage`], [`ToolCall`], [`Stage`], the streaming [`Delta`]s in a reusable
//!   [`Deltas`] buffer, the [`Sink`] parsers write to, and the per-request [`ParseOptions`].
//! - The two traits: [`ReasoningParser`] splits reasoning from the rest, [`ToolParser`] finds calls in
//!   the rest; [`Composed`] runs them in that order and [`Parser`] is what users hold.
//! - The streaming engine: [`MarkerSet`] and [`Carry`] (the one incremental scanner: exact hold-back of
//!   partial markers, no re-scan of emitted text), [`JsonScanner`] (JSON boundaries, incremental),
//!   [`JsonArgs`] and [`Calls`] (raw argument streaming, call bookkeeping), [`JsonCall`] (calls written
//!   as `{"name": …, "arguments": …}`), [`ObjectArgs`] and [`TaggedValue`] (arguments written as tagged
//!   parameters, built as append-only JSON).
//! - Stage detection ([`StageDetector`]), schema typing ([`Tools`], [`ValueType`]), the argument preview
//!   ([`preview_arguments`]) and the registry ([`ParserEntry`], [`find_for_model`]).
//!
//! # Guarantees
//! Every parser built on this crate keeps these, and the tests of each family check them on its corpus:
//! - Streaming equals one-shot for every chunking ([`Parser::parse`] *is* one push and `finish`).
//! - Only text that could still become a marker is held back, and it is released as soon as it cannot.
//! - Argument fragments are the raw text the model wrote; they concatenate to the final arguments.
//! - The cost of a push does not grow with the output so far.
//! - Parsing never fails and never panics: a committed call with bad arguments is kept with
//!   `valid: false`, anything else that does not parse is content.
//!
//! ```
//! use parser_core::{Accumulator, Composed, Parser, ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser};
//! # use parser_core::{Sink, ToolParser};
//! # #[derive(Clone)] struct NoTools;
//! # impl ToolParser for NoTools {
//! #     fn push(&mut self, text: &str, out: &mut dyn Sink) { out.content(text) }
//! #     fn finish(&mut self, _: &mut dyn Sink) {}
//! #     fn in_block(&self) -> bool { false }
//! # }
//! static THINK: ReasoningSyntax =
//!     ReasoningSyntax::new(StageDetector::new(&["<think>"], &["</think>"], &[]), &[], &[]);
//! let make = || {
//!     let reasoning = ThinkTagReasoningParser::new(&THINK, Stage::Reasoning);
//!     Parser::new("demo", Composed::new(reasoning, NoTools, Stage::Reasoning, false))
//! };
//! let output = "The user greets me.</think>Hello!";
//!
//! // One-shot.
//! let message = make().parse(output);
//! assert_eq!(message.reasoning.as_deref(), Some("The user greets me."));
//! assert_eq!(message.content.as_deref(), Some("Hello!"));
//!
//! // Streaming, three characters at a time: the same message.
//! let mut parser = make();
//! let mut streamed = Accumulator::new();
//! let chars: Vec<char> = output.chars().collect();
//! for piece in chars.chunks(3) {
//!     streamed.extend(parser.push(&piece.iter().collect::<String>()));
//! }
//! streamed.extend(parser.finish());
//! assert_eq!(streamed.into_message(), message);
//! ```
//!
//! # Features
//! - `serde`: `Serialize`/`Deserialize` for the data types ([`ParsedMessage`], [`ToolCall`], [`Stage`]).
//! - `openai`: the `openai` module, OpenAI's chat-completions wire format: each push's [`Deltas`] as a
//!   `chat.completion.chunk` delta object (tool-call `id`, `type` and `name` once per call, argument
//!   fragments after, no `null`s, reasoning under `reasoning_content` or `reasoning`), the final message
//!   as a `chat.completion` message, chunks as server-sent events. The only place wire field names live.
//! - `testing`: the conformance runner and the behaviour/property helpers the families' tests share.
//!
//! ```
//! # #[cfg(feature = "openai")] {
//! use parser_core::openai::{Config, FinishReason, ReasoningField, StreamConverter};
//! # use parser_core::{Composed, Parser, ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser};
//! # use parser_core::{Sink, ToolParser};
//! # #[derive(Clone)] struct NoTools;
//! # impl ToolParser for NoTools {
//! #     fn push(&mut self, text: &str, out: &mut dyn Sink) { out.content(text) }
//! #     fn finish(&mut self, _: &mut dyn Sink) {}
//! #     fn in_block(&self) -> bool { false }
//! # }
//! # static THINK: ReasoningSyntax =
//! #     ReasoningSyntax::new(StageDetector::new(&["<think>"], &["</think>"], &[]), &[], &[]);
//! # let reasoning = ThinkTagReasoningParser::new(&THINK, Stage::Reasoning);
//! # let mut parser = Parser::new("demo", Composed::new(reasoning, NoTools, Stage::Reasoning, false));
//! // vLLM's spelling of the reasoning field.
//! let mut stream = StreamConverter::new(Config::new().with_reasoning_field(ReasoningField::Reasoning));
//! let mut sent = Vec::new();
//! for token in ["The user greets me.", "</think>", "Hello!"] {
//!     if let Some(delta) = stream.delta(parser.push(token)) {
//!         sent.push(serde_json::to_string(&delta).unwrap());
//!     }
//! }
//! if let Some(delta) = stream.delta(parser.finish()) {
//!     sent.push(serde_json::to_string(&delta).unwrap());
//! }
//! assert_eq!(sent, [
//!     r#"{"role":"assistant","reasoning":"The user greets me."}"#,
//!     r#"{"content":"Hello!"}"#,
//! ]);
//! assert_eq!(stream.finish_reason(FinishReason::Stop), FinishReason::Stop);
//! # }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod boundary;
mod compose;
pub mod constraint;
mod deltas;
mod error;
pub mod intern;
mod json;
mod json_call;
mod message;
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub mod openai;
mod options;
mod preview;
mod reasoning;
mod registry;
mod scanner;
mod schema;
mod stage;
mod tagged;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
mod tool;

pub use boundary::{Boundary, CallEnds, Closer, Head, call_boundary};
pub use compose::{Composed, OutputParser, Parser};
pub use deltas::{Accumulator, Delta, Deltas, DeltasIter, DeltasView, Sink};
pub use error::{Error, ErrorKind};
pub use json::{
    JsonScanner, JsonStatus, MAX_JSON_DEPTH, escape_json_each, escape_json_into, find_within,
    fit_within, is_json_object, is_ws, leading_ws, needs_escape, partial_suffix,
};
pub use json_call::{CallEnd, JsonCall, JsonCallFields};
pub use message::{ParsedMessage, Stage, ToolCall};
pub use options::{Limits, ParseOptions, Policy, ReasoningFormat, SpecialTokens, TemplateLimits};
pub use preview::preview_arguments;
pub use reasoning::{
    BlockInReasoning, NoReasoning, ReasoningParser, ReasoningSink, ReasoningSyntax, Route,
    ThinkTagReasoningParser,
};
pub use registry::{
    ParserEntry, entries, find_by_name, find_for_model, normalize_model, normalize_name,
};
pub use scanner::{Carry, Found, MarkerSet};
pub use schema::{ToolSchema, Tools, ValueType};
pub use stage::StageDetector;
pub use tagged::{ObjectArgs, ParamStep, ParamValue, TaggedValue, ValueEnd, ValueSyntax};
pub use tool::{
    ArgsEnd, ArgsSyntax, CallIds, CallMachine, Calls, ContentStep, JsonArgs, LeadCall, Literal,
    SectionLead, ToolParser, literal_at, section_lead,
};

/// Re-exported so that family crates register with the same `inventory` as the registry.
pub use inventory;
