//! GPT-OSS's harmony format, parsed from text, for llm-parse.
//!
//! One parser, `gpt-oss` (aliases `openai`, `gpt_oss`, `openai_gptoss`, `harmony`; models `openai/gpt-oss-*`
//! and anything whose name contains `gpt-oss`). It reads the decoded text (special tokens kept,
//! `skip_special_tokens=false`), not token ids, and does not depend on `openai-harmony`.
//!
//! # The wire format
//!
//! The prompt ends with `<|start|>assistant`, so the first message of the output has no `<|start|>` and no
//! role. Each message is a header, `<|message|>`, a body and an end:
//!
//! ```text
//! <|channel|>analysis<|message|>The user wants the weather. Call get_weather.<|end|>
//! <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>
//! ```
//!
//! or, answering:
//!
//! ```text
//! <|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>
//! ```
//!
//! - A header is `<|channel|>CHANNEL`, a recipient `to=NAME` and a content type (`<|constrain|>json`, with or
//!   without a space before it, or a bare `json`), in any order; the recipient may also stand in the role
//!   part: `<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>…`.
//! - A message ends with `<|end|>`, `<|call|>`, `<|return|>` (or `<|endoftext|>`), or at the end of the
//!   output (servers strip stop tokens). The next message starts with `<|start|>assistant`.
//!
//! # Where messages go
//!
//! | message | goes to |
//! |---|---|
//! | `analysis` | reasoning |
//! | `final` | content |
//! | recipient `to=functions.NAME` (on `commentary`, `analysis`, any channel) | a tool call NAME; the body is its arguments, streamed raw |
//! | recipient `to=NAME` where NAME is a tool the request declares ([`ParseOptions::tools`]) | the same: a call NAME (the model left out `functions.`) |
//! | `commentary` without recipient (a preamble) | content; reasoning under [`Preamble::Reasoning`] |
//! | any other recipient (`browser.search`, `python`: built-in tools) | reasoning; calls named after the recipient under [`BuiltinTools::Calls`] |
//! | a message with no channel or an unknown one | content |
//! | a message of another role (`<|start|>user`, `system`, `developer`, a tool result `<|start|>functions.NAME to=assistant`) | nothing: the model ran on into the next turn, so the output ends before it (debug log) |
//!
//! Pieces of one field from several messages are joined verbatim (DESIGN §4.8), with nothing in between.
//!
//! # Decisions for imperfect outputs
//!
//! Every decision depends only on the text seen so far, so streaming equals one-shot for every chunking.
//!
//! - **A call is committed** once its header, with `to=functions.NAME` (or `to=NAME`, NAME a declared tool)
//!   and `<|message|>`, is complete. From
//!   then on it is a call: arguments that are not a JSON object (`foo`, an empty body) or are cut off keep
//!   the call, flagged `valid: false`, with the raw text. A complete JSON body with no `<|call|>` after it
//!   (the server stripped it, or the output ended, also inside `<|call|>`) is a complete, valid call. Braces, quotes and markers
//!   such as `<|call|>` inside JSON strings never end the arguments.
//! - **Text with no header** (the model skipped it, or stray text between messages) is content. Whitespace
//!   between messages belongs to no message and is dropped.
//! - **A missing end**: `<|start|>` or `<|channel|>` inside a body ends that message and starts the next one
//!   (models sometimes omit `<|end|>`; the special tokens never occur inside a real body).
//! - **Truncation** inside a body leaves the text in its message's field (reasoning stays reasoning); a
//!   body that ends in what could have grown into an end marker (`…<|en`) keeps that text, since servers
//!   deliver special tokens whole. Truncation inside a header (before `<|message|>`, including a cut inside
//!   its first marker at a message boundary) drops that header: it is markup, and its message has no body
//!   yet, so no fragment of a marker is emitted. A header ended by a terminator without `<|message|>` is
//!   dropped the same way; one followed by `<|start|>` is abandoned for the new message.
//! - **An overlong header**: a header has at most [`markers::HEADER_LIMIT`] bytes before its `<|message|>`.
//!   Past that it is not a header: its opening marker is content, raw, and the rest is read as message text.
//!
//! # Options
//!
//! - **Stage.** The output normally starts at a header ([`Stage::Content`]). A prompt that already opened a
//!   message (`…<|start|>assistant<|channel|>analysis<|message|>`, prefilled) starts the output inside that
//!   body, [`Stage::Reasoning`] for reasoning; a prefilled call header starts inside the call's arguments,
//!   and a prefilled partial header (`…<|start|>assistant<|channel|>analysis`) inside that header. From
//!   prompt token ids, a `<|message|>` after the last `<|start|>` means an open body, taken to be `analysis`
//!   (the channel name is not a special token). An explicit stage wins: `Reasoning` starts inside an
//!   analysis body, `Content` at a header. `enable_thinking` is ignored: GPT-OSS always has its channels.
//! - **`reasoning_format: none`** ([`ReasoningFormat::Inline`]): every message that would be reasoning is
//!   content instead, as written, markers included: its header (`<|channel|>analysis<|message|>`, from its
//!   `<|start|>` when it has one) and its explicit end (`<|end|>`). Other messages are unchanged: a `final`
//!   message contributes its body, calls are calls. This is what llama.cpp does.
//! - `Policy::strict_tool_position` does not apply: harmony calls are explicitly addressed messages.
//!
//! # Examples
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let output = concat!(
//!     "<|channel|>analysis<|message|>The user wants the weather in Paris.<|end|>",
//!     "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json",
//!     "<|message|>{\"city\": \"Paris\", \"note\": \"<|call|> is just text here\"}<|call|>",
//! );
//! let message = parser_gptoss::gpt_oss(&ParseOptions::new()).parse(output);
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather in Paris."));
//! assert_eq!(message.content, None);
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "note": "<|call|> is just text here"}"#);
//! assert!(message.tool_calls[0].valid);
//! ```
//!
//! Streaming, one character at a time, gives the same message, and arguments arrive as they are written:
//!
//! ```
//! use parser_core::{Accumulator, Delta, ParseOptions};
//!
//! let output = "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>";
//! let options = ParseOptions::new();
//! let mut parser = parser_gptoss::gpt_oss(&options);
//! let mut streamed = Accumulator::new();
//! for (at, c) in output.char_indices() {
//!     let deltas = parser.push(&output[at..at + c.len_utf8()]);
//!     // No fragment of a marker is ever released.
//!     assert!(deltas.iter().all(|d| !matches!(d, Delta::Content(t) | Delta::Reasoning(t) if t.contains('<'))));
//!     streamed.extend(deltas);
//! }
//! streamed.extend(parser.finish());
//! assert_eq!(streamed.into_message(), parser_gptoss::gpt_oss(&options).parse(output));
//! ```
//!
//! Policies, a prefilled prompt, and inline reasoning:
//!
//! ```
//! use parser_core::{ParseOptions, ReasoningFormat, Stage};
//! use parser_gptoss::{BuiltinTools, HarmonyPolicy, Preamble};
//!
//! let output = concat!(
//!     "<|channel|>commentary<|message|>Searching first.<|end|>",
//!     "<|start|>assistant<|channel|>analysis to=browser.search <|constrain|>json<|message|>{\"query\": \"rust\"}<|call|>",
//! );
//! let by_default = parser_gptoss::gpt_oss(&ParseOptions::new()).parse(output);
//! assert_eq!(by_default.content.as_deref(), Some("Searching first."));
//! assert_eq!(by_default.reasoning.as_deref(), Some("{\"query\": \"rust\"}"));
//! assert!(by_default.tool_calls.is_empty());
//!
//! let policy = HarmonyPolicy::default()
//!     .with_preamble(Preamble::Reasoning)
//!     .with_builtin_tools(BuiltinTools::Calls);
//! let surfaced = parser_gptoss::gpt_oss_with(&ParseOptions::new(), policy).parse(output);
//! assert_eq!(surfaced.reasoning.as_deref(), Some("Searching first."));
//! assert_eq!(surfaced.tool_calls[0].name, "browser.search");
//!
//! // The prompt already opened the analysis channel.
//! let options = ParseOptions::new().with_prompt_tail("<|start|>assistant<|channel|>analysis<|message|>");
//! let parser = parser_gptoss::gpt_oss(&options);
//! assert_eq!(parser.stage(), Stage::Reasoning);
//! let message = parser.parse("Thinking.<|end|><|start|>assistant<|channel|>final<|message|>Done.");
//! assert_eq!(message.reasoning.as_deref(), Some("Thinking."));
//! assert_eq!(message.content.as_deref(), Some("Done."));
//!
//! // reasoning_format: none keeps reasoning in the content, markers included.
//! let inline = ParseOptions::new().with_reasoning_format(ReasoningFormat::Inline);
//! let message = parser_gptoss::gpt_oss(&inline)
//!     .parse("<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>final<|message|>Yes.");
//! assert_eq!(message.content.as_deref(), Some("<|channel|>analysis<|message|>Hmm.<|end|>Yes."));
//! ```
//!
//! [`Stage::Content`]: parser_core::Stage::Content
//! [`Stage::Reasoning`]: parser_core::Stage::Reasoning
//! [`ReasoningFormat::Inline`]: parser_core::ReasoningFormat::Inline
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;
mod header;
pub mod markers;
mod parser;
mod policy;
mod prompt;

use parser_core::{ParseOptions, Parser, ParserEntry};

pub use parser::HarmonyParser;
pub use policy::{BuiltinTools, HarmonyPolicy, Preamble};

/// The registered name.
pub const NAME: &str = "gpt-oss";

/// GPT-OSS (harmony) with the harmony switches of `options.policy`
/// ([`parser_core::Policy::preamble_as_reasoning`], [`parser_core::Policy::builtin_tools_as_calls`]; by
/// default preambles are content and built-in tool messages are reasoning). This is what the registry
/// builds.
pub fn gpt_oss(options: &ParseOptions) -> Parser {
    gpt_oss_with(options, HarmonyPolicy::from(options.policy))
}

/// GPT-OSS (harmony) under `policy`.
pub fn gpt_oss_with(options: &ParseOptions, policy: HarmonyPolicy) -> Parser {
    Parser::new(NAME, HarmonyParser::new(options, policy))
}

parser_core::inventory::submit! {
    ParserEntry {
        name: NAME,
        family: "gptoss",
        aliases: &["openai", "gpt_oss", "gpt-oss", "openai_gptoss", "harmony"],
        models: &["gpt-oss"],
        summary: "GPT-OSS harmony channels from text: analysis → reasoning, final → content, to=functions.NAME → calls",
        sample: "<|channel|>analysis<|message|>The user asks for the weather in Paris. I should call get_weather with the city.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"Paris\", \"unit\": \"celsius\"}<|call|>",
        sample_prompt_tail: "<|start|>user<|message|>What is the weather in Paris?<|end|><|start|>assistant",
        special_tokens: markers::SPECIAL_TOKENS,
        build: gpt_oss,
    }
}
