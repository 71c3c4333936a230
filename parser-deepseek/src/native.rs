//! DeepSeek's native special-token calls (R1, V3, V3.1), and R1's fallback shapes.
//!
//! ```text
//! <｜tool▁calls▁begin｜>
//!   <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{ARGS}\n```<｜tool▁call▁end｜>   R1, V3, V3-0324
//!   <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{ARGS}<｜tool▁call▁end｜>                       V3.1, V3.2-Exp
//! <｜tool▁calls▁end｜>
//! ```
//!
//! Both call shapes are accepted by every generation: after the separator, `{` or a fence means the head
//! was the name; otherwise a `function` head is followed by the name on its own line. A V3.1 call is
//! committed at the separator (DESIGN §4.6); an R1 call when its name line ends. A section or call that
//! never reaches a complete name is content, raw. A call whose arguments are complete but whose
//! `<｜tool▁call▁end｜>` (or the section's end) is missing at the end of the output is complete and valid,
//! also when the output ends inside that marker: the fragment is dropped, never content or arguments
//! (issue 18).
//!
//! R1's fallback shapes (enabled for R1 only, never inside reasoning), in the order they are tried at a
//! position — the native section first, then:
//! 1. tools array: ``function\n```json\n{"tools": [{"name": …, "arguments": {…}}, …]}\n``` ``
//! 2. XML-wrapped: ``<tool_call>function</think>NAME\n```json\n{…}\n```</tool_call>``
//! 3. simplified: ``function<NAME>\n```json\n{…}\n``` ``

use parser_core::{
    ArgsEnd, ArgsSyntax, CallMachine, Calls, Carry, ContentStep, Deltas, JsonArgs, JsonScanner,
    JsonStatus, LeadCall, Literal, MarkerSet, ParseOptions, Sink, ToolParser, find_within,
    fit_within, leading_ws, literal_at, section_lead,
};

use crate::markers::*;

/// Which generation's shape to expect first (both are accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// R1, V3, V3-0324: `function<｜tool▁sep｜>NAME` and fenced arguments. A head other than
    /// `function` must be followed by `{` to count as a V3.1-style name.
    V3,
    /// V3.1, V3.2-Exp: `NAME<｜tool▁sep｜>{…}`, committed at the separator.
    V31,
}

// Content: call openers, the end token, and (R1 only) the fallback openers.
const SECTION: usize = 0;
const BARE_CALL: usize = 1;
const DROP: usize = 2;
const TOOLS_ARRAY: usize = 3;
const XML_WRAPPED: usize = 4;

static CONTENT: MarkerSet = MarkerSet::new(&[CALLS_BEGIN_SPELLINGS, &[CALL_BEGIN], RESERVED]);
static CONTENT_WITH_FALLBACKS: MarkerSet = MarkerSet::new(&[
    CALLS_BEGIN_SPELLINGS,
    &[CALL_BEGIN],
    RESERVED,
    &[TOOLS_ARRAY_OPEN],
    &[XML_WRAPPED_OPEN],
    &[SIMPLIFIED_OPEN],
]);

/// What may follow a native call's arguments.
static NATIVE_ARGS_END: MarkerSet =
    MarkerSet::new(&[&[CALL_END], &[CALLS_END], &[CALL_BEGIN], &[EOS]]);
static NATIVE_ARGS: ArgsSyntax = ArgsSyntax {
    fenced: true,
    end: &NATIVE_ARGS_END,
};
static XML_ARGS_END: MarkerSet = MarkerSet::new(&[&[XML_WRAPPED_CLOSE]]);
static XML_ARGS: ArgsSyntax = ArgsSyntax {
    fenced: true,
    end: &XML_ARGS_END,
};
static SIMPLIFIED_ARGS_END: MarkerSet = MarkerSet::new(&[&[FENCE]]);
static SIMPLIFIED_ARGS: ArgsSyntax = ArgsSyntax {
    fenced: false,
    end: &SIMPLIFIED_ARGS_END,
};

/// The call shapes, for what ends their arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Native,
    XmlWrapped,
    Simplified,
}

impl Shape {
    fn args(self) -> &'static ArgsSyntax {
        match self {
            Shape::Native => &NATIVE_ARGS,
            Shape::XmlWrapped => &XML_ARGS,
            Shape::Simplified => &SIMPLIFIED_ARGS,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Content,
    /// The text starts with a section opener; nothing is committed until a call's name is complete.
    SectionLead,
    /// The text starts with `<｜tool▁call▁begin｜>`, outside a section or between calls.
    CallHead,
    /// Inside a committed section, between calls.
    InSection,
    Args(Shape),
    AfterArgs(Shape),
    /// The text starts with `<tool_call>` (R1 fallback).
    XmlWrappedHead,
    /// The text starts with `function<` (R1 fallback).
    SimplifiedHead,
    /// The text starts with the tools-array opener (R1 fallback); checking its first key.
    ToolsArrayHead,
    /// Reading the tools-array JSON into the block buffer.
    ToolsArrayBody,
    /// After the tools-array JSON: whitespace and the closing fence belong to the block.
    ToolsArrayTail,
}

/// The DeepSeek native tool-call parser; see the module docs.
#[derive(Clone, Debug)]
pub struct NativeToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    generation: Generation,
    fallbacks: bool,
    state: State,
    calls: Calls,
    args: JsonArgs,
    /// The tools-array fallback: the raw block so far, and its JSON scanner.
    block: String,
    block_json: JsonScanner,
}

/// What a call head turned out to be.
enum Head<'t> {
    /// Not decided yet: hold the text.
    NeedMore,
    /// A call: its name, and where its arguments start.
    Call { name: &'t str, args_at: usize },
    /// Not a call: the opener is content.
    NotACall,
}

impl NativeToolParser {
    /// A parser expecting `generation`'s shape, with R1's fallback shapes when `fallbacks`.
    pub fn new(generation: Generation, fallbacks: bool, options: &ParseOptions) -> Self {
        NativeToolParser {
            carry: Carry::new(),
            machine: Machine {
                generation,
                fallbacks,
                state: State::Content,
                calls: Calls::new(options).with_turn_starts(TURN_STARTS),
                args: JsonArgs::new(),
                block: String::new(),
                block_json: JsonScanner::object(),
            },
        }
    }
}

impl ToolParser for NativeToolParser {
    #[inline]
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        self.carry.feed_calls(text, &mut self.machine, out);
    }

    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        self.carry.feed_calls_deltas(text, &mut self.machine, out);
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        self.carry
            .finish(&mut self.machine, |m, text| m.run(text, true, out));
        let m = &mut self.machine;
        if m.state == State::ToolsArrayBody {
            // The array never completed: nothing was committed, so it is content.
            let block = std::mem::take(&mut m.block);
            m.calls.content(out, &block);
        }
        m.calls.end(out, false);
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        NATIVE_BLOCK_OPENERS
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content
    }
}

impl CallMachine for Machine {
    fn step(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        self.run(text, eof, out)
    }

    fn content_state(&mut self) -> Option<(&mut Calls, &MarkerSet)> {
        let markers = self.content_markers();
        (self.state == State::Content).then_some((&mut self.calls, markers))
    }

    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        let took = matches!(self.state, State::Args(_)) && self.args.take_plain(text);
        if took {
            self.calls.args(out, text);
        }
        took
    }
}
impl Machine {
    fn content_markers(&self) -> &'static MarkerSet {
        if self.fallbacks {
            &CONTENT_WITH_FALLBACKS
        } else {
            &CONTENT
        }
    }

    /// Runs the state machine over `text`; returns how much was consumed.
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    match self.calls.scan_content(
                        out,
                        rest,
                        eof,
                        self.content_markers(),
                        Some(DROP),
                    ) {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, group } => {
                            pos += at;
                            self.state = match group {
                                SECTION => State::SectionLead,
                                BARE_CALL => State::CallHead,
                                TOOLS_ARRAY => State::ToolsArrayHead,
                                XML_WRAPPED => State::XmlWrappedHead,
                                _ => State::SimplifiedHead,
                            };
                        }
                    }
                }
                State::SectionLead => {
                    let lead =
                        section_lead(rest, CALLS_BEGIN_SPELLINGS, CALL_BEGIN, HEAD_LIMIT, eof);
                    let is_call = match lead.call {
                        LeadCall::More => return pos,
                        LeadCall::Not => false,
                        LeadCall::At(at) => match self.call_head(&rest[at..], eof) {
                            Head::NeedMore => return pos,
                            Head::Call { name, args_at } => {
                                self.commit(out, name, Shape::Native);
                                pos += at + args_at;
                                true
                            }
                            Head::NotACall => false,
                        },
                    };
                    if !is_call {
                        self.calls.content(out, &rest[..lead.opener]);
                        pos += lead.opener;
                        self.state = State::Content;
                    }
                }
                State::CallHead => match self.call_head(rest, eof) {
                    Head::NeedMore => return pos,
                    Head::Call { name, args_at } => {
                        self.commit(out, name, Shape::Native);
                        pos += args_at;
                    }
                    Head::NotACall => {
                        self.calls.content(out, CALL_BEGIN);
                        pos += CALL_BEGIN.len();
                        self.state = State::Content;
                    }
                },
                State::InSection => {
                    let ws = leading_ws(rest);
                    pos += ws;
                    let rest = &rest[ws..];
                    if rest.is_empty() {
                        return pos;
                    }
                    if rest.starts_with(CALL_BEGIN) {
                        self.state = State::CallHead;
                    } else if rest.starts_with(CALLS_END) {
                        pos += CALLS_END.len();
                        self.state = State::Content;
                    } else if rest.starts_with(EOS) {
                        pos += EOS.len();
                    } else if literal_at(rest, &[CALL_BEGIN, CALLS_END, EOS], false)
                        == Literal::Partial
                    {
                        // Cut off inside a marker at the end of the output: dropped, never content.
                        return pos + if eof { rest.len() } else { 0 };
                    } else {
                        // Text after the calls without a section end: the section is over.
                        self.state = State::Content;
                    }
                }
                State::Args(shape) => {
                    let (used, end) = self.args.run(rest, eof, shape.args(), &mut self.calls, out);
                    pos += used;
                    match end {
                        ArgsEnd::Open => return pos,
                        ArgsEnd::Closed { valid } => {
                            self.calls.end(out, valid);
                            self.state = State::AfterArgs(shape);
                        }
                    }
                }
                State::AfterArgs(shape) => {
                    let closer = match shape {
                        Shape::Native => CALL_END,
                        Shape::XmlWrapped => XML_WRAPPED_CLOSE,
                        Shape::Simplified => FENCE,
                    };
                    if rest.starts_with(closer) {
                        pos += closer.len();
                    }
                    self.state = if shape == Shape::Native {
                        State::InSection
                    } else {
                        State::Content
                    };
                    if rest.is_empty() {
                        return pos;
                    }
                }
                State::XmlWrappedHead => match xml_wrapped_head(rest, eof) {
                    Head::NeedMore => return pos,
                    Head::Call { name, args_at } => {
                        tracing::debug!(name, "DeepSeek R1 fallback shape: XML-wrapped call");
                        self.commit(out, name, Shape::XmlWrapped);
                        pos += args_at;
                    }
                    Head::NotACall => self.not_a_call(out, &mut pos, XML_WRAPPED_OPEN),
                },
                State::SimplifiedHead => match simplified_head(rest, eof) {
                    Head::NeedMore => return pos,
                    Head::Call { name, args_at } => {
                        tracing::debug!(name, "DeepSeek R1 fallback shape: function<NAME> call");
                        self.commit(out, name, Shape::Simplified);
                        pos += args_at;
                    }
                    Head::NotACall => self.not_a_call(out, &mut pos, SIMPLIFIED_OPEN),
                },
                State::ToolsArrayHead => match tools_array_head(rest, eof) {
                    None => return pos,
                    Some(false) => self.not_a_call(out, &mut pos, TOOLS_ARRAY_OPEN),
                    Some(true) => {
                        self.block.clear();
                        self.block.push_str(TOOLS_ARRAY_OPEN);
                        self.block_json.reset();
                        pos += TOOLS_ARRAY_OPEN.len();
                        self.state = State::ToolsArrayBody;
                    }
                },
                State::ToolsArrayBody => {
                    // The block is read whole before any call is written; past the buffer limit it
                    // is content (at the same byte for every chunking).
                    let room = fit_within(rest, self.block.len(), self.calls.buffer_limit());
                    let (used, status) = self.block_json.feed(&rest[..room]);
                    self.block.push_str(&rest[..used]);
                    pos += used;
                    match status {
                        JsonStatus::Partial if used < rest.len() && used == room => {
                            tracing::debug!(
                                "DeepSeek R1 tools array over the buffer limit: content"
                            );
                            let block = std::mem::take(&mut self.block);
                            self.calls.content(out, &block);
                            self.state = State::Content;
                        }
                        JsonStatus::Partial => return pos,
                        JsonStatus::Invalid => {
                            let block = std::mem::take(&mut self.block);
                            self.calls.content(out, &block);
                            self.state = State::Content;
                        }
                        JsonStatus::Complete => {
                            let block = std::mem::take(&mut self.block);
                            let json = &block[TOOLS_ARRAY_OPEN.len()..];
                            if !self.emit_tools_array(out, json) {
                                self.calls.content(out, &block);
                            }
                            self.state = State::ToolsArrayTail;
                        }
                    }
                }
                State::ToolsArrayTail => {
                    let ws = leading_ws(rest);
                    match literal_at(&rest[ws..], &[FENCE], eof) {
                        Literal::Whole(len) => {
                            pos += ws + len;
                            self.state = State::Content;
                        }
                        Literal::Partial if ws <= HEAD_LIMIT => return pos,
                        _ => self.state = State::Content,
                    }
                }
            }
        }
    }

    fn commit(&mut self, out: &mut dyn Sink, name: &str, shape: Shape) {
        self.calls.start(out, name, None);
        self.args.reset();
        self.state = State::Args(shape);
    }

    fn not_a_call(&mut self, out: &mut dyn Sink, pos: &mut usize, opener: &str) {
        self.calls.content(out, opener);
        *pos += opener.len();
        self.state = State::Content;
    }

    /// Parses `<｜tool▁call▁begin｜>HEAD<｜tool▁sep｜>…` at the start of `text`.
    fn call_head<'t>(&self, text: &'t str, eof: bool) -> Head<'t> {
        let after = &text[CALL_BEGIN.len()..];
        let Some(sep_at) = find_within(after, SEP, HEAD_LIMIT) else {
            return if eof || !could_still_be_head(after) {
                Head::NotACall
            } else {
                Head::NeedMore
            };
        };
        let head = after[..sep_at].trim();
        if !is_name(head) {
            return Head::NotACall;
        }
        let name_from = CALL_BEGIN.len() + sep_at + SEP.len();
        let tail = &text[name_from..];
        // V3.1 shape: the head is the name, committed at the separator.
        if self.generation == Generation::V31 && head != FUNCTION {
            return Head::Call {
                name: head,
                args_at: name_from,
            };
        }
        let ws = leading_ws(tail);
        let first = &tail[ws..];
        if first.is_empty() {
            if !eof {
                return Head::NeedMore;
            }
            return if self.generation == Generation::V31 {
                Head::Call {
                    name: head,
                    args_at: name_from,
                }
            } else {
                Head::NotACall
            };
        }
        if first.starts_with('{') || first.starts_with(FENCE) {
            return Head::Call {
                name: head,
                args_at: name_from,
            };
        }
        if literal_at(first, &[FENCE], eof) == Literal::Partial {
            return Head::NeedMore;
        }
        if head != FUNCTION {
            return Head::NotACall;
        }
        // R1 shape: the name runs to the end of its line (or a fence, or the next marker).
        match name_line(tail, eof) {
            Head::Call { name, args_at } => Head::Call {
                name,
                args_at: name_from + args_at,
            },
            other => other,
        }
    }

    /// Emits the calls of a complete tools-array block; false when it is not one.
    fn emit_tools_array(&mut self, out: &mut dyn Sink, json: &str) -> bool {
        let calls = tools_array_calls(json);
        if calls.is_empty() {
            return false;
        }
        tracing::debug!(
            count = calls.len(),
            "DeepSeek R1 fallback shape: tools array"
        );
        for (name, arguments) in calls {
            self.calls.start(out, name, None);
            self.calls.args(out, arguments);
            let valid = parser_core::is_json_object(arguments);
            self.calls.end(out, valid);
        }
        true
    }
}

/// A function name: non-empty, no whitespace, no markup, not absurdly long.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= HEAD_LIMIT
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '｜' | '`' | '{' | '}'))
}

/// Whether text after `<｜tool▁call▁begin｜>` with no separator yet may still become a call head.
fn could_still_be_head(text: &str) -> bool {
    if text.len() > HEAD_LIMIT + SEP.len() {
        return false;
    }
    // A `<` may only start the separator, at the very end.
    match text.find('<') {
        None => true,
        Some(at) => SEP.starts_with(&text[at..]),
    }
}

/// The R1 name line at the start of `text` (after the separator): the name, and where arguments start.
fn name_line(text: &str, eof: bool) -> Head<'_> {
    let end = text.find(['\n', '<', '`']);
    let Some(end) = end else {
        return if eof || text.len() > HEAD_LIMIT {
            Head::NotACall
        } else {
            Head::NeedMore
        };
    };
    let name = text[..end].trim();
    if is_name(name) {
        Head::Call { name, args_at: end }
    } else {
        Head::NotACall
    }
}

/// `<tool_call>` whitespace `function</think>` NAME (to the end of its line or a fence).
///
/// Like every head here, it is decided on the text seen so far only (whitespace is bounded), so that
/// every chunking decides alike.
fn xml_wrapped_head(text: &str, eof: bool) -> Head<'_> {
    let after = &text[XML_WRAPPED_OPEN.len()..];
    let ws = leading_ws(after);
    if ws > HEAD_LIMIT {
        return Head::NotACall;
    }
    let body = &after[ws..];
    if !body.starts_with(XML_WRAPPED_TYPE) {
        return match literal_at(body, &[XML_WRAPPED_TYPE], eof) {
            Literal::Partial => Head::NeedMore,
            _ => Head::NotACall,
        };
    }
    let name_from = XML_WRAPPED_OPEN.len() + ws + XML_WRAPPED_TYPE.len();
    match name_line(&text[name_from..], eof) {
        Head::Call { name, args_at } => Head::Call {
            name,
            args_at: name_from + args_at,
        },
        other => other,
    }
}

/// `function<NAME>` whitespace and an opening fence: committed at the fence.
fn simplified_head(text: &str, eof: bool) -> Head<'_> {
    let after = &text[SIMPLIFIED_OPEN.len()..];
    let Some(close) = after.find('>') else {
        let plausible = after.len() <= HEAD_LIMIT && (after.is_empty() || is_name(after));
        return if eof || !plausible {
            Head::NotACall
        } else {
            Head::NeedMore
        };
    };
    let name = &after[..close];
    if !is_name(name) {
        return Head::NotACall;
    }
    let tail = &after[close + 1..];
    let ws = leading_ws(tail);
    if ws > HEAD_LIMIT {
        return Head::NotACall;
    }
    match literal_at(&tail[ws..], &["```json", FENCE], eof) {
        Literal::Whole(fence) => Head::Call {
            name,
            args_at: SIMPLIFIED_OPEN.len() + close + 1 + ws + fence,
        },
        Literal::Partial => Head::NeedMore,
        Literal::No => Head::NotACall,
    }
}

/// After the tools-array opener: `Some(true)` once `{"tools"` is there, `Some(false)` when it cannot be,
/// `None` while undecided. Whitespace is bounded so that every chunking decides alike.
fn tools_array_head(text: &str, eof: bool) -> Option<bool> {
    const KEY: &str = "\"tools\"";
    let after = &text[TOOLS_ARRAY_OPEN.len()..];
    let mut rest = after.trim_start();
    if after.len() - rest.len() > HEAD_LIMIT {
        return Some(false);
    }
    if rest.is_empty() {
        return if eof { Some(false) } else { None };
    }
    if !rest.starts_with('{') {
        return Some(false);
    }
    rest = rest[1..].trim_start();
    if after.len() - rest.len() > HEAD_LIMIT {
        return Some(false);
    }
    if rest.starts_with(KEY) {
        Some(true)
    } else if !eof && rest.len() < KEY.len() && KEY.starts_with(rest) {
        None
    } else {
        Some(false)
    }
}

/// The `(name, raw arguments)` of each well-formed element of `{"tools": [...]}`.
fn tools_array_calls(json: &str) -> Vec<(&str, &str)> {
    #[derive(serde::Deserialize)]
    struct Block<'a> {
        #[serde(borrow)]
        tools: Vec<Element<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Element<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
        #[serde(borrow, alias = "parameters")]
        arguments: Option<&'a serde_json::value::RawValue>,
    }
    let Ok(block) = serde_json::from_str::<Block<'_>>(json) else {
        return Vec::new();
    };
    // Names borrowed from the text only when they hold no escapes; others are skipped rather than
    // re-serialised.
    block
        .tools
        .into_iter()
        .filter_map(|element| match (element.name, element.arguments) {
            (std::borrow::Cow::Borrowed(name), Some(arguments)) if is_name(name) => {
                Some((name, arguments.get()))
            }
            _ => None,
        })
        .collect()
}
