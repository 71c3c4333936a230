//! Muse Spark / Glimmer's ATEM format (harmony-like messages), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `muse` | Muse Spark 1.x | messages `to=self` | messages to a tool holding `<atem:invoke name=…><atem:parameter name=…>` calls; values typed by the tool schema |
//! | `muse-glimmer` | Muse Glimmer | as `muse` | as `muse`; a value is JSON when it parses as JSON, else a string |
//!
//! The output is a run of messages, each a header, `<|message|>`, a body, and `<|eom|>` (or `<|eot|>`
//! at the end of the turn). The prompt ends in `<|start|>assistant`, so the first header is only
//! ` to=RECIPIENT`:
//!
//! ```text
//!  to=self<|message|>The user wants the weather.<|eom|>
//! <|start|>assistant to=get_weather<|message|><atem:function_calls>
//! <atem:invoke name="get_weather">
//! <atem:parameter name="city">Paris</atem:parameter>
//! </atem:invoke>
//! </atem:function_calls><|eom|>
//! <|start|>assistant to=user<|message|>It is sunny.<|eot|>
//! ```
//!
//! - The recipient decides the body: `self` is reasoning; `user`, `commentary`, `developer` or none
//!   (a bare `<|message|>`) is content; any other recipient is a tool, and its body holds calls.
//!   Invokes inside reasoning or content are text (channel scoping, as the peers do).
//! - A call is committed at its complete `<atem:invoke name="NAME">`; each parameter's value ends at
//!   `</atem:parameter>` (or, missing, at the next parameter or the invoke's end). A name the model
//!   doubled for a bare registered tool (`get_weather.get_weather`) is read as that tool.
//! - Inside a tool message, `<atem:function_calls>` wrappers and whitespace between invokes are
//!   framing; other text is content. Anything but parameters inside an invoke is kept raw in its
//!   arguments, the call flagged invalid; a call cut off by the end of the output stays, flagged
//!   invalid (DESIGN §4.6). A header that does not parse is content.
//!
//! # Why a state machine
//! Reasoning, content and calls are messages in any order, chosen by the recipient in each header
//! (as harmony's channels, which parser-gptoss reads by hand too); the generic engine has no such
//! framing. The machine runs on parser-core's scanner, call bookkeeping and tagged-value reader.
//!
//! # Grammar
//! [`constraint`] writes the messages as a grammar from the same markers (registered as each
//! parser's `ConstraintEntry`): reasoning to `self`, the answer to `user`, and calls in messages to
//! the called tool; see its docs for what it holds and does not.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let message = parser_muse::muse_glimmer(&ParseOptions::new()).parse(concat!(
//!     " to=self<|message|>The user wants the weather.<|eom|>",
//!     "<|start|>assistant to=get_weather<|message|><atem:function_calls>\n",
//!     "<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n",
//!     "<atem:parameter name=\"days\">3</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris", "days": 3}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod constraint;

use std::sync::Arc;

use parser_core::{
    Boundary, CallEnds, Calls, Carry, Deltas, Found, Head, Literal, MarkerSet, ObjectArgs,
    OutputParser, ParamStep, ParamValue, ParseOptions, Parser, ParserEntry, ReasoningFormat, Sink,
    Stage, Tools, ValueSyntax, ValueType, call_boundary, find_within, leading_ws, literal_at,
};

/// Starts a message header.
pub const START: &str = "<|start|>";
/// Ends a header, starts the body.
pub const MESSAGE: &str = "<|message|>";
/// Ends a message that is not the last.
pub const EOM: &str = "<|eom|>";
/// Ends the turn.
pub const EOT: &str = "<|eot|>";
/// Wraps the calls of a tool message.
pub const FUNCTION_CALLS: &str = "<atem:function_calls>";
/// Closes the wrapper.
pub const FUNCTION_CALLS_END: &str = "</atem:function_calls>";
/// Opens a call, up to its name.
pub const INVOKE: &str = "<atem:invoke name=\"";
/// Closes a call.
pub const INVOKE_END: &str = "</atem:invoke>";
/// Opens a parameter, up to its name.
pub const PARAMETER: &str = "<atem:parameter name=\"";
/// Closes a parameter.
pub const PARAMETER_END: &str = "</atem:parameter>";
/// Ends a name attribute and its tag.
const NAME_END: &str = "\">";
/// The role in every header after `<|start|>`.
pub const ROLE: &str = "assistant";
/// Before a header's recipient.
pub const TO: &str = "to=";
/// The recipient of reasoning.
pub const REASONING_RECIPIENT: &str = "self";
/// The recipient of the answer (`commentary` and `developer` are content too).
pub const ANSWER_RECIPIENT: &str = "user";

/// The message tokens, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[START, MESSAGE, EOM, EOT];

/// The longest header or name read before the text is taken not to be one.
pub const HEAD_LIMIT: usize = 256;

/// A body ends at the message's end (group 0, consumed) or at the next header (group 1, not).
static BODY_END: MarkerSet = MarkerSet::new(&[&[EOM, EOT], &[START]]);
/// Inside a tool message: the message's end, the next header, an invoke, the wrappers.
static TOOL_BODY: MarkerSet = MarkerSet::new(&[
    &[EOM, EOT],
    &[START],
    &[INVOKE],
    &[FUNCTION_CALLS, FUNCTION_CALLS_END],
]);
/// A value ends at its closer or, when that is missing, at the next parameter, the invoke's end, or the
/// message's.
static VALUE_END: MarkerSet =
    MarkerSet::new(&[&[PARAMETER_END], &[PARAMETER, INVOKE_END, EOM, EOT, START]]);
static VALUE: ValueSyntax = ValueSyntax {
    ends: &VALUE_END,
    closer_followers: None,
    trim_newline: false,
};
/// An invoke ends at its closer or, when that is missing, at the message's end (left to the message).
static INVOKE_ENDS: CallEnds = CallEnds {
    close: INVOKE_END,
    block_close: None,
    next: &[EOM, EOT, START],
};
/// Where an invoke body that is not parameters ends: its closer (consumed) or the message's end.
static RAW_BODY_END: MarkerSet = MarkerSet::new(&[&[INVOKE_END], &[EOM, EOT, START]]);

/// What a message's recipient makes of its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Reasoning,
    Content,
    Tool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between messages: a header is expected (held while it is read).
    Lead,
    /// A message body.
    Body(Body),
    /// Inside a committed invoke, between parameters.
    Invoke,
    /// Inside a parameter value.
    Value,
    /// Something other than parameters inside an invoke.
    RawInvoke,
}

/// How values are typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Typing {
    /// By the tool schema; a string unless it says otherwise (`muse`).
    Schema,
    /// JSON when the text parses as JSON, else a string (`muse-glimmer`).
    Json,
}

/// The Muse parser; see the crate docs.
#[derive(Clone, Debug)]
pub struct MuseParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    typing: Typing,
    inline: bool,
    /// In a tool message, right after a marker: whitespace here is framing.
    tool_lead: bool,
    function: String,
    args: ObjectArgs,
    value: ParamValue,
}

impl MuseParser {
    fn new(options: &ParseOptions, typing: Typing) -> Self {
        MuseParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Lead,
                calls: Calls::new(options),
                tools: options.tools.clone(),
                typing,
                inline: options.reasoning_format == ReasoningFormat::Inline,
                tool_lead: true,
                function: String::new(),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
            },
        }
    }
}

impl MuseParser {
    /// Writes the common delta as [`Machine::run`] would and returns `true`; `false` when the machine
    /// must read it. Inside a message body, a delta with no byte that can begin the body's end (the
    /// scan's own pair filter, [`MarkerSet::may_match`]) is that body's text; inside a string value, a
    /// run of it, streamed or collected ([`ParamValue::take_plain`],
    /// [`ParamValue::take_plain_collected`]). Generic over the sink, so that
    /// [`OutputParser::push_deltas`] writes with static calls.
    #[inline(always)]
    fn push_plain<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        if !self.carry.held().is_empty() || text.is_empty() {
            return false;
        }
        let m = &mut self.machine;
        match m.state {
            State::Body(Body::Reasoning) if !m.inline => {
                let plain = !BODY_END.may_match(text);
                if plain {
                    out.reasoning(text);
                }
                plain
            }
            // Content, and reasoning kept inline: the content bookkeeping `Calls::content` does.
            State::Body(Body::Reasoning | Body::Content) => {
                let plain = m.calls.take_plain_content(&BODY_END, text);
                if plain {
                    out.content(text);
                }
                plain
            }
            // Text of a tool message past its framing lead (no invoke or wrapper in it).
            State::Body(Body::Tool) if !m.tool_lead => {
                let plain = m.calls.take_plain_content(&TOOL_BODY, text);
                if plain {
                    out.content(text);
                }
                plain
            }
            // A run of a value: streamed when a string, collected when typed.
            State::Value => {
                m.value
                    .take_plain(text, &VALUE, &mut m.args, &mut m.calls, out)
                    || m.value.take_plain_collected(text, &VALUE, &m.calls)
            }
            _ => false,
        }
    }

    /// Runs the machine over the held text and `text` (kept out of the common path).
    #[inline(never)]
    fn push_machine(&mut self, text: &str, out: &mut dyn Sink) {
        self.carry
            .feed(text, &mut self.machine, |m, text| m.run(text, false, out));
    }
}

impl OutputParser for MuseParser {
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
        let m = &mut self.machine;
        self.carry.finish(m, |m, text| m.run(text, true, out));
        if m.state == State::Value {
            m.value.end(&mut m.args, &mut m.calls, out);
        }
        m.calls.end(out, false);
    }

    fn initial_stage(&self) -> Stage {
        Stage::Content
    }
}

impl Machine {
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            if rest.is_empty() && !eof {
                return pos;
            }
            match self.state {
                State::Lead => match header(rest, eof) {
                    Header::NeedMore => return pos,
                    Header::Message(body, len) => {
                        pos += len;
                        self.tool_lead = true;
                        self.state = State::Body(body);
                    }
                    // Not a header: the text is content, up to the message's end (a `<|start|>` that
                    // opened no header is content too, so the scan moves on).
                    Header::Not => {
                        if rest.starts_with(START) {
                            self.calls.content(out, START);
                            pos += START.len();
                        }
                        self.state = State::Body(Body::Content);
                    }
                },
                State::Body(Body::Tool) => {
                    // Whitespace right after a marker (or the header) is framing; text from the first
                    // other character on is content, up to the next marker.
                    if self.tool_lead {
                        let ws = leading_ws(rest);
                        pos += ws;
                        if ws == rest.len() {
                            return pos;
                        }
                        continue_from_lead(&mut self.tool_lead, &rest[ws..]);
                        continue;
                    }
                    let found = TOOL_BODY.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.calls.content(out, &rest[..stop]);
                    let Some(Found::Marker {
                        start, end, group, ..
                    }) = found
                    else {
                        return pos + stop;
                    };
                    self.tool_lead = true;
                    match group {
                        0 => {
                            pos += end;
                            self.state = State::Lead;
                        }
                        1 => {
                            pos += start;
                            self.state = State::Lead;
                        }
                        2 => match invoke_head(&rest[start..], eof) {
                            Head::NeedMore => return pos + start,
                            Head::Complete(name, len) => {
                                let name = self.normalize(name);
                                self.calls.start(out, &name, None);
                                self.function = name;
                                self.args.reset();
                                pos += start + len;
                                self.state = State::Invoke;
                            }
                            Head::Not => {
                                self.calls.content(out, &rest[start..end]);
                                pos += end;
                            }
                        },
                        _ => pos += end,
                    }
                }
                State::Body(body) => {
                    let found = BODY_END.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.text(body, &rest[..stop], out);
                    let Some(Found::Marker { end, group, .. }) = found else {
                        return pos + stop;
                    };
                    pos += if group == 0 { end } else { stop };
                    self.state = State::Lead;
                }
                State::Invoke => match call_boundary(rest, eof, &INVOKE_ENDS, parameter_head) {
                    Boundary::Wait(used) => return pos + used,
                    // The invoke's closer, or the message's end with the closer missing.
                    Boundary::Closed { used, .. } => {
                        pos += used;
                        self.close_call(out);
                    }
                    Boundary::Argument(key, used) => {
                        self.open_value(out, key);
                        pos += used;
                    }
                    Boundary::Raw(used) => {
                        pos += used;
                        self.state = State::RawInvoke;
                    }
                },
                State::Value => {
                    let (args, calls) = (&mut self.args, &mut self.calls);
                    match self.value.run(rest, eof, &VALUE, args, calls, out) {
                        ParamStep::Pending(used) => return pos + used,
                        ParamStep::Ended(used) => {
                            pos += used;
                            self.value.end(args, calls, out);
                            self.state = State::Invoke;
                        }
                    }
                }
                State::RawInvoke => {
                    let found = RAW_BODY_END.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.calls.args(out, &rest[..stop]);
                    let Some(Found::Marker { end, group, .. }) = found else {
                        return pos + stop;
                    };
                    self.calls.end(out, false);
                    pos += if group == 0 { end } else { stop };
                    self.tool_lead = true;
                    self.state = State::Body(Body::Tool);
                }
            }
        }
    }

    fn text(&mut self, body: Body, text: &str, out: &mut dyn Sink) {
        if text.is_empty() {
            return;
        }
        if body == Body::Reasoning && !self.inline {
            out.reasoning(text);
        } else {
            self.calls.content(out, text);
        }
    }

    fn close_call(&mut self, out: &mut dyn Sink) {
        self.args.finish(&mut self.calls, out);
        self.calls.end(out, true);
        self.tool_lead = true;
        self.state = State::Body(Body::Tool);
    }

    fn open_value(&mut self, out: &mut dyn Sink, key: &str) {
        let value_type = match self.typing {
            Typing::Json => ValueType::Any,
            Typing::Schema => self
                .tools
                .as_deref()
                .and_then(|tools| tools.param_type(&self.function, key))
                .cloned()
                .unwrap_or_default(),
        };
        self.args.key(&mut self.calls, out, key);
        self.value
            .start(value_type, &mut self.args, &mut self.calls, out);
        self.state = State::Value;
    }

    /// A doubled name for a bare registered tool (`get_weather.get_weather`) is that tool.
    fn normalize(&self, name: &str) -> String {
        if let Some(tools) = self.tools.as_deref()
            && tools.get(name).is_none()
            && let Some((head, tail)) = name.split_once('.')
            && head == tail
            && tools.get(head).is_some()
        {
            return head.to_owned();
        }
        name.to_owned()
    }
}

/// Leaves the framing lead of a tool message once something other than whitespace comes.
fn continue_from_lead(lead: &mut bool, after: &str) {
    if !after.is_empty() {
        *lead = false;
    }
}

/// What a header turned out to be.
enum Header {
    NeedMore,
    /// A header: the body kind its recipient gives, and its length up to and with `<|message|>`.
    Message(Body, usize),
    Not,
}

/// Reads `[<|start|>][assistant][ to=RECIPIENT]<|message|>` at the start of `text`, within
/// [`HEAD_LIMIT`].
fn header(text: &str, eof: bool) -> Header {
    let Some(at) = find_within(text, MESSAGE, HEAD_LIMIT) else {
        let undecided = !eof
            && text.len() < HEAD_LIMIT + MESSAGE.len()
            && !text.contains(EOM)
            && !text.contains(EOT);
        return if undecided {
            Header::NeedMore
        } else {
            Header::Not
        };
    };
    let mut head = text[..at].trim_start();
    head = head.strip_prefix(START).unwrap_or(head).trim_start();
    head = head.strip_prefix(ROLE).unwrap_or(head).trim();
    let body = if head.is_empty() {
        Body::Content
    } else if let Some(recipient) = head.strip_prefix(TO) {
        let valid = !recipient.is_empty()
            && recipient
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if !valid {
            return Header::Not;
        }
        match recipient {
            REASONING_RECIPIENT => Body::Reasoning,
            ANSWER_RECIPIENT | "commentary" | "developer" => Body::Content,
            _ => Body::Tool,
        }
    } else {
        return Header::Not;
    };
    Header::Message(body, at + MESSAGE.len())
}

/// Reads `<atem:invoke name="NAME">`.
fn invoke_head(text: &str, eof: bool) -> Head<&str> {
    name_head(text, INVOKE, eof)
}

/// Reads `<atem:parameter name="KEY">`.
fn parameter_head(text: &str, eof: bool) -> Head<&str> {
    name_head(text, PARAMETER, eof)
}

/// Reads `OPENER NAME">` at the start of `text`: a non-empty name without `"`, `<` or a line break.
fn name_head<'t>(text: &'t str, opener: &str, eof: bool) -> Head<&'t str> {
    let len = match literal_at(text, &[opener], eof) {
        Literal::Whole(len) => len,
        Literal::Partial => return Head::NeedMore,
        Literal::No => return Head::Not,
    };
    let after = &text[len..];
    let Some(at) = find_within(after, NAME_END, HEAD_LIMIT) else {
        let undecided =
            !eof && after.len() <= HEAD_LIMIT + NAME_END.len() && !after.contains(['<', '\n']);
        return if undecided { Head::NeedMore } else { Head::Not };
    };
    let name = &after[..at];
    if name.is_empty() || name.contains(['"', '<', '\n']) {
        return Head::Not;
    }
    Head::Complete(name, len + at + NAME_END.len())
}

/// The `muse` parser (Muse Spark 1.x): values typed by the tool schema.
pub fn muse(options: &ParseOptions) -> Parser {
    Parser::new("muse", MuseParser::new(options, Typing::Schema))
}

/// The `muse-glimmer` parser (Muse Glimmer): values JSON when they parse as JSON.
pub fn muse_glimmer(options: &ParseOptions) -> Parser {
    Parser::new("muse-glimmer", MuseParser::new(options, Typing::Json))
}

const SAMPLE: &str = " to=self<|message|>The user wants the weather in Paris for three days.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n<atem:parameter name=\"days\">3</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>";

parser_core::inventory::submit! {
    ParserEntry {
        name: "muse",
        family: "muse",
        // vLLM `muse` and `musespark1x`, SGLang `muse`.
        aliases: &["musespark1x"],
        models: &["muse-spark"],
        summary: "Muse Spark: harmony-like <|start|>assistant to=RECIPIENT<|message|> messages (to=self reasoning), ATEM <atem:invoke>/<atem:parameter> calls typed by the tool schema",
        sample: SAMPLE,
        sample_prompt_tail: "<|start|>assistant",
        special_tokens: SPECIAL_TOKENS,
        build: muse,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "muse-glimmer",
        family: "muse",
        // vLLM `muse_glimmer`, llama.cpp's `muse_glimmer` handler, Ollama `glimmer`.
        aliases: &["muse_glimmer", "glimmer"],
        models: &["muse-glimmer", "glimmer"],
        summary: "Muse Glimmer: as muse, parameter values JSON when they parse as JSON",
        sample: SAMPLE,
        sample_prompt_tail: "<|start|>assistant",
        special_tokens: SPECIAL_TOKENS,
        build: muse_glimmer,
    }
}
