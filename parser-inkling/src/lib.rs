//! Inkling's typed-block output format, for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `inkling` | Inkling | `<\|content_thinking\|>` blocks | `<\|content_invoke_tool_json\|>{"name": …, "args": {…}}` blocks |
//!
//! Every marker is a special token. The model writes a sequence of blocks, each a message header
//! (`<|message_model|>`, then optional metadata such as the called function's name), a content kind,
//! the block's body, and an end (`<|end_message|>`, or `<|content_model_end_sampling|>` where sampling
//! stopped):
//!
//! ```text
//! <|message_model|><|content_thinking|>The user wants the weather.<|end_message|>
//! <|message_model|><|content_text|>Let me check.<|end_message|>
//! <|message_model|>get_weather<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Paris"}}<|end_message|>
//! ```
//!
//! - `<|content_thinking|>` bodies are reasoning, `<|content_text|>` bodies content, as are
//!   `<|content_invoke_tool_text|>` and `<|content_tool_error|>` bodies (a raw or failed invocation is
//!   visible text). Blocks may come in any order and repeat; text outside every block is content.
//! - `<|content_invoke_tool_json|>` bodies are calls: a JSON object whose `"name"` names the function
//!   and whose `"args"` object is the arguments (`"arguments"` is read too), committed at the complete
//!   name ([`JsonCall`]); the arguments stream as written. An object that breaks after the name keeps
//!   the call, flagged invalid; a body that never names a function is content, raw (DESIGN §4.6).
//! - A header's metadata (the text between `<|message_model|>` and the content kind) is dropped, as
//!   the peers drop it: it repeats the function's name. Header text that no content kind follows within
//!   [`HEAD_LIMIT`], or before a block end or the end of the output, is content.
//! - Block ends and the markers themselves are not text; a `<|content_thinking|>` inside a thinking
//!   block is dropped, and a call block opening inside one ends it.
//!
//! # Why a state machine (and not the generic engine)
//! Reasoning is not a prefix here: thinking blocks may follow text and call blocks, so the parser is
//! one machine over all block kinds (an [`OutputParser`], as gpt-oss's harmony parser is) rather than
//! a reasoning parser composed with a tool parser. It runs on parser-core's scanner, call bookkeeping
//! and JSON call reader.
//!
//! # Stage
//! The generation prompt ends in `<|message_model|>` (the model writes a header next). A prompt that
//! ends in `<|content_thinking|>` starts in reasoning, one that ends in `<|content_text|>` in content.
//!
//! # Grammar
//! [`constraint`] writes the blocks as a grammar from the same markers (registered as the parser's
//! `ConstraintEntry`): thinking, text and call blocks in any order, calls naming a request's tools
//! with arguments by their schemas; see its docs for what it holds and does not.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_inkling::inkling(&ParseOptions::new()).parse(concat!(
//!     "<|content_thinking|>The user wants the weather.<|end_message|>",
//!     "<|message_model|><|content_text|>Let me check.<|end_message|>",
//!     "<|message_model|>get_weather<|content_invoke_tool_json|>",
//!     "{\"name\": \"get_weather\", \"args\": {\"city\": \"Paris\"}}<|end_message|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.content.as_deref(), Some("Let me check."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;

use parser_core::{
    CallEnd, Calls, Carry, Deltas, Found, JsonCall, JsonCallFields, MarkerSet, OutputParser,
    ParseOptions, Parser, ParserEntry, ReasoningFormat, Sink, Stage,
};

/// Starts a model message's header.
pub const MESSAGE_MODEL: &str = "<|message_model|>";
/// A text block (content).
pub const CONTENT_TEXT: &str = "<|content_text|>";
/// A thinking block (reasoning).
pub const CONTENT_THINKING: &str = "<|content_thinking|>";
/// A call block: a JSON object `{"name": …, "args": {…}}`.
pub const CONTENT_INVOKE_TOOL_JSON: &str = "<|content_invoke_tool_json|>";
/// A raw-text invocation block (visible text).
pub const CONTENT_INVOKE_TOOL_TEXT: &str = "<|content_invoke_tool_text|>";
/// A tool-error block (visible text).
pub const CONTENT_TOOL_ERROR: &str = "<|content_tool_error|>";
/// Ends a block where sampling stopped.
pub const CONTENT_MODEL_END_SAMPLING: &str = "<|content_model_end_sampling|>";
/// Ends a block.
pub const END_MESSAGE: &str = "<|end_message|>";

/// Every marker, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    MESSAGE_MODEL,
    CONTENT_TEXT,
    CONTENT_THINKING,
    CONTENT_INVOKE_TOOL_JSON,
    CONTENT_INVOKE_TOOL_TEXT,
    CONTENT_TOOL_ERROR,
    CONTENT_MODEL_END_SAMPLING,
    END_MESSAGE,
];

/// The longest header metadata read before it is taken to be text.
pub const HEAD_LIMIT: usize = 256;

/// Marker groups, as [`MarkerSet`] reports them.
const HEADER: usize = 0;
const TEXT: usize = 1;
const THINKING: usize = 2;
const TOOL: usize = 3;
const END: usize = 4;
static MARKERS: MarkerSet = MarkerSet::new(&[
    &[MESSAGE_MODEL],
    &[CONTENT_TEXT, CONTENT_INVOKE_TOOL_TEXT, CONTENT_TOOL_ERROR],
    &[CONTENT_THINKING],
    &[CONTENT_INVOKE_TOOL_JSON],
    &[END_MESSAGE, CONTENT_MODEL_END_SAMPLING],
]);

/// Where a broken call object's raw text ends.
static CALL_END: MarkerSet =
    MarkerSet::new(&[&[END_MESSAGE, CONTENT_MODEL_END_SAMPLING, MESSAGE_MODEL]]);

/// `{"name": …, "args": {…}}` (`"arguments"` read too).
const FIELDS: JsonCallFields = JsonCallFields {
    name: &["name"],
    arguments: &["args", "arguments"],
    function: &[],
    id: &[],
    name_is_key: false,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// After `<|message_model|>`: metadata up to the content kind (held).
    Header,
    /// Visible text: a text block's body, or text between blocks.
    Content,
    /// A thinking block's body.
    Reasoning,
    /// A call block's body, read by [`JsonCall`].
    Call,
}

/// Inkling's parser: one machine over every block kind; see the crate docs.
#[derive(Clone, Debug)]
pub struct InklingParser {
    carry: Carry,
    machine: Machine,
    stage: Stage,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    call: JsonCall,
    /// `reasoning_format: none`: thinking blocks are content, markers kept.
    inline: bool,
}

/// Where the prompt leaves the model: the last block marker at its end.
fn start_state(options: &ParseOptions) -> State {
    let tail = options.prompt_tail.as_deref().unwrap_or("").trim_end();
    if tail.ends_with(CONTENT_THINKING) {
        State::Reasoning
    } else if tail.ends_with(CONTENT_TEXT) {
        State::Content
    } else {
        // The generation prompt ends in `<|message_model|>`: a header comes first.
        State::Header
    }
}

impl InklingParser {
    /// A parser for one request.
    pub fn new(options: &ParseOptions) -> Self {
        let state = start_state(options);
        let inline = options.reasoning_format == ReasoningFormat::Inline;
        InklingParser {
            carry: Carry::new(),
            stage: if state == State::Reasoning && !inline {
                Stage::Reasoning
            } else {
                Stage::Content
            },
            machine: Machine {
                state,
                calls: Calls::new(options),
                call: JsonCall::with_fields(FIELDS),
                inline,
            },
        }
    }
}

impl InklingParser {
    /// The common delta, written without the state machine: inside a body, nothing held and no byte
    /// that can start a marker; inside a call's arguments, a run of a string that `text` does not
    /// close ([`JsonCall::take_plain`]: the call reader reads the object without looking for
    /// markers, so this is what it would write). Returns whether `text` was written. Generic over the
    /// sink so that [`OutputParser::push_deltas`] writes into [`Deltas`] with static calls.
    #[inline(always)]
    fn push_plain<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        if !self.carry.held().is_empty() {
            return false;
        }
        let m = &mut self.machine;
        match m.state {
            State::Call => {
                let took = m.call.take_plain(text);
                if took {
                    m.calls.args(out, text);
                }
                took
            }
            State::Content if !MARKERS.may_contain_marker(text) => {
                out.content(text);
                true
            }
            State::Reasoning if !m.inline && !MARKERS.may_contain_marker(text) => {
                out.reasoning(text);
                true
            }
            _ => false,
        }
    }

    /// The rest of a push, out of the common path.
    #[inline(never)]
    fn push_machine(&mut self, text: &str, out: &mut dyn Sink) {
        self.carry
            .feed(text, &mut self.machine, |m, text| m.run(text, false, out));
    }
}

impl OutputParser for InklingParser {
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        if !self.push_plain(text, out) {
            self.push_machine(text, out);
        }
    }

    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        if !self.push_plain(text, out) {
            self.push_machine(text, out);
        }
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        self.carry
            .finish(&mut self.machine, |m, text| m.run(text, true, out));
        // `JsonCall` always ends at the end of the output; this only guards the Sink contract.
        self.machine.calls.end(out, false);
    }

    fn initial_stage(&self) -> Stage {
        self.stage
    }
}

impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed (the rest is held).
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Header => {
                    // Metadata up to the next marker, bounded.
                    let Some(found) = MARKERS
                        .find(rest, eof)
                        .filter(|found| found.start() <= HEAD_LIMIT)
                    else {
                        if !eof && rest.len() <= HEAD_LIMIT {
                            return pos;
                        }
                        // Too long, or the output ended: it was text.
                        self.state = State::Content;
                        continue;
                    };
                    let Found::Marker {
                        start, end, group, ..
                    } = found
                    else {
                        // A marker may be forming: wait (within the bound).
                        return pos;
                    };
                    match group {
                        TEXT | THINKING | TOOL => {
                            // The content kind: the metadata before it is dropped.
                            pos += start;
                            self.open_block(group, &text[pos..pos + (end - start)], out);
                            pos += end - start;
                        }
                        // A header ended without a content kind: its text is content.
                        _ => self.state = State::Content,
                    }
                }
                State::Content | State::Reasoning => {
                    let reasoning = self.state == State::Reasoning;
                    let Some(found) = MARKERS.find(rest, eof) else {
                        self.text(reasoning, rest, out);
                        return text.len();
                    };
                    let Found::Marker {
                        start, end, group, ..
                    } = found
                    else {
                        let start = found.start();
                        self.text(reasoning, &rest[..start], out);
                        return pos + start;
                    };
                    self.text(reasoning, &rest[..start], out);
                    let marker = &rest[start..end];
                    pos += end;
                    match (reasoning, group) {
                        // Inside a thinking block only its end and a call block count.
                        (true, END) => {
                            self.marker(true, marker, out);
                            self.state = State::Content;
                        }
                        (true, TOOL) => {
                            self.open_block(TOOL, marker, out);
                        }
                        (true, THINKING) => {}
                        (true, _) => self.text(true, marker, out),
                        (false, HEADER) => self.state = State::Header,
                        (false, END) => {}
                        (false, group) => self.open_block(group, marker, out),
                    }
                }
                State::Call => {
                    let (used, end) = self.call.run(rest, eof, &CALL_END, &mut self.calls, out);
                    pos += used;
                    match end {
                        CallEnd::Open => return pos,
                        CallEnd::Closed { valid } => {
                            self.calls.end(out, valid);
                            // What follows the object up to the block's end is the block's; the end
                            // itself is dropped by the content state.
                            self.state = State::Content;
                        }
                        CallEnd::NotACall => {
                            // Never a call: what the object reader consumed is content.
                            self.calls.content(out, self.call.raw());
                            self.state = State::Content;
                        }
                    }
                }
            }
        }
    }

    /// Opens a block of `group`'s kind after its `marker`.
    fn open_block(&mut self, group: usize, marker: &str, out: &mut dyn Sink) {
        match group {
            THINKING => {
                self.marker(true, marker, out);
                self.state = State::Reasoning;
            }
            TOOL => {
                self.call.reset();
                self.state = State::Call;
            }
            _ => self.state = State::Content,
        }
    }

    /// Writes block text: reasoning (content with its markers under `reasoning_format: none`) or content.
    fn text(&mut self, reasoning: bool, text: &str, out: &mut dyn Sink) {
        if text.is_empty() {
            return;
        }
        if reasoning && !self.inline {
            out.reasoning(text);
        } else {
            self.calls.content(out, text);
        }
    }

    /// A thinking block's own marker: kept in the content only under `reasoning_format: none`.
    fn marker(&mut self, reasoning: bool, marker: &str, out: &mut dyn Sink) {
        if reasoning && self.inline {
            self.calls.content(out, marker);
        }
    }
}

/// The `inkling` parser for one request.
pub fn inkling(options: &ParseOptions) -> Parser {
    Parser::new("inkling", InklingParser::new(options))
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "inkling",
        family: "inkling",
        // vLLM, SGLang and smg `inkling` (tool and reasoning).
        aliases: &[],
        models: &["inkling"],
        summary: "Inkling: typed blocks <|message_model|>…<|content_thinking|> (reasoning) / <|content_text|> (content) / <|content_invoke_tool_json|>{\"name\", \"args\"} (calls), ended by <|end_message|>",
        sample: "<|content_thinking|>The user wants the weather in Paris for three days.<|end_message|><|message_model|><|content_text|>Let me check.<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>{\"name\": \"get_weather\", \"args\": {\"city\": \"Paris\", \"days\": 3}}<|end_message|>",
        sample_prompt_tail: "<|message_model|>",
        special_tokens: SPECIAL_TOKENS,
        build: inkling,
    }
}
