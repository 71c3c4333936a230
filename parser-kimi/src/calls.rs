//! Kimi-K2's special-token calls.
//!
//! ```text
//! <|tool_calls_section_begin|>                      (or <|tool_call_section_begin|>)
//!   <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{ARGS}<|tool_call_end|>
//!   …
//! <|tool_calls_section_end|>                        (or <|tool_call_section_end|>)
//! ```
//!
//! The text between `<|tool_call_begin|>` and `<|tool_call_argument_begin|>` is the call's id, returned
//! byte-exact (whitespace around it trimmed): the next turn's template echoes it. The function name is read
//! from the id:
//!
//! | id | name |
//! |---|---|
//! | `functions.get_weather:0` | `get_weather` |
//! | `functions.api.search:1` | `api.search` (only the leading `functions.` is stripped) |
//! | `get_weather:0` | `get_weather` |
//! | `0` (a bare counter) | the request's only tool; with none or several tools, not a call |
//! | anything else (`functions.get_weather`, `functions.x.0`, text with spaces or markup) | not a call |
//!
//! A call is committed when its id is complete, that is at `<|tool_call_argument_begin|>` (DESIGN §4.6);
//! an id is read for at most [`HEAD_LIMIT`] bytes, and every decision about it is taken on the text seen
//! so far only, so that every chunking decides alike. Text that never reaches a complete id is content,
//! raw. Arguments stream as the raw text the model wrote; where they end is found JSON-aware (braces,
//! quotes and special tokens inside strings never end them); invalid or truncated arguments keep the call,
//! flagged `valid: false`. Whitespace and newlines between the markers are accepted, and a call may also
//! stand without a section around it, or follow the previous call without `<|tool_call_end|>`. At the end
//! of the output, a call with complete arguments is complete without its `<|tool_call_end|>` (and without
//! the section's end), also when the output ends inside one of them: the fragment is dropped, never
//! content or arguments (issue 18).

use parser_core::{
    ArgsEnd, ArgsSyntax, CallMachine, Calls, Carry, ContentStep, Deltas, JsonArgs, LeadCall,
    Literal, MarkerSet, ParseOptions, Sink, ToolParser, find_within, leading_ws, literal_at,
    section_lead,
};

use crate::markers::*;

// Content: call openers, and the end-of-turn token (dropped).
const SECTION: usize = 0;
const DROP: usize = 2;
static CONTENT: MarkerSet = MarkerSet::new(&[SECTION_BEGINS, &[CALL_BEGIN], RESERVED]);

/// What may follow a call's arguments.
static ARGS_END: MarkerSet = MarkerSet::new(&[&[CALL_END], SECTION_ENDS, &[CALL_BEGIN], &[IM_END]]);
static ARGS: ArgsSyntax = ArgsSyntax {
    fenced: false,
    end: &ARGS_END,
};

/// What may come next inside a section, between calls.
const IN_SECTION: &[&str] = &[CALL_BEGIN, SECTION_END, "<|tool_call_section_end|>", IM_END];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Content,
    /// The text starts with a section opener; nothing is committed until a call's id is complete.
    SectionLead,
    /// The text starts with `<|tool_call_begin|>`, outside a section or between calls.
    CallHead,
    /// Inside a committed section, between calls.
    InSection,
    Args,
    AfterArgs,
}

/// The Kimi-K2 tool-call parser; see the module docs.
///
/// ```
/// use parser_core::{ParseOptions, ToolParser};
/// use parser_kimi::KimiToolParser;
///
/// let mut tools = KimiToolParser::new(&ParseOptions::new());
/// let message = tools.parse(concat!(
///     "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.api.search:0",
///     "<|tool_call_argument_begin|>{\"q\": \"rust\"}<|tool_call_end|><|tool_calls_section_end|>",
/// ));
/// assert_eq!(message.content.as_deref(), Some("Sure."));
/// assert_eq!(message.tool_calls[0].id, "functions.api.search:0");
/// assert_eq!(message.tool_calls[0].name, "api.search");
/// assert_eq!(message.tool_calls[0].arguments, r#"{"q": "rust"}"#);
/// ```
#[derive(Clone, Debug)]
pub struct KimiToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    args: JsonArgs,
    /// The name of the request's only tool, for ids that are a bare counter.
    only_tool: Option<String>,
}

/// What a call head turned out to be.
enum Head<'t> {
    /// Not decided yet: hold the text.
    NeedMore,
    /// A call: its id, its name, and where its arguments start.
    Call {
        id: &'t str,
        name: Name<'t>,
        args_at: usize,
    },
    /// Not a call: the opener is content.
    NotACall,
}

/// Where a call's name comes from.
enum Name<'t> {
    /// Read from the id.
    Written(&'t str),
    /// The id is a bare counter: the request's only tool.
    OnlyTool,
}

impl KimiToolParser {
    /// A parser for one output of a request.
    pub fn new(options: &ParseOptions) -> Self {
        let only_tool = options.tools.as_deref().and_then(|tools| {
            let mut all = tools.iter();
            match (all.next(), all.next()) {
                (Some(tool), None) => Some(tool.name.clone()),
                _ => None,
            }
        });
        KimiToolParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Content,
                calls: Calls::new(options).with_turn_starts(TURN_STARTS),
                args: JsonArgs::new(),
                only_tool,
            },
        }
    }
}

impl ToolParser for KimiToolParser {
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
        m.calls.end(out, false);
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        BLOCK_OPENERS
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
        (self.state == State::Content).then_some((&mut self.calls, &CONTENT))
    }

    #[inline]
    fn plain_arguments<S: Sink + ?Sized>(&mut self, text: &str, out: &mut S) -> bool {
        let took = self.state == State::Args && self.args.take_plain(text);
        if took {
            self.calls.args(out, text);
        }
        took
    }
}
impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed.
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => {
                    match self
                        .calls
                        .scan_content(out, rest, eof, &CONTENT, Some(DROP))
                    {
                        ContentStep::Consumed(used) => return pos + used,
                        ContentStep::Opener { at, group } => {
                            pos += at;
                            self.state = if group == SECTION {
                                State::SectionLead
                            } else {
                                State::CallHead
                            };
                        }
                    }
                }
                State::SectionLead => {
                    let lead = section_lead(rest, SECTION_BEGINS, CALL_BEGIN, HEAD_LIMIT, eof);
                    let is_call = match lead.call {
                        LeadCall::More => return pos,
                        LeadCall::Not => false,
                        LeadCall::At(at) => match self.call_head(&rest[at..], eof) {
                            Head::NeedMore => return pos,
                            Head::Call { id, name, args_at } => {
                                self.commit(out, id, name);
                                pos += at + args_at;
                                true
                            }
                            Head::NotACall => false,
                        },
                    };
                    if !is_call {
                        // Not a section after all: its opener is content, and so is what follows.
                        self.calls.content(out, &rest[..lead.opener]);
                        pos += lead.opener;
                        self.state = State::Content;
                    }
                }
                State::CallHead => match self.call_head(rest, eof) {
                    Head::NeedMore => return pos,
                    Head::Call { id, name, args_at } => {
                        self.commit(out, id, name);
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
                    } else if let Some(end) = SECTION_ENDS.iter().find(|e| rest.starts_with(**e)) {
                        pos += end.len();
                        self.state = State::Content;
                    } else if rest.starts_with(IM_END) {
                        pos += IM_END.len();
                    } else if literal_at(rest, IN_SECTION, false) == Literal::Partial {
                        // Cut off inside a marker at the end of the output: dropped, never content.
                        return pos + if eof { rest.len() } else { 0 };
                    } else {
                        // Text after the calls without a section end: the section is over.
                        self.state = State::Content;
                    }
                }
                State::Args => {
                    let (used, end) = self.args.run(rest, eof, &ARGS, &mut self.calls, out);
                    pos += used;
                    match end {
                        ArgsEnd::Open => return pos,
                        ArgsEnd::Closed { valid } => {
                            self.calls.end(out, valid);
                            self.state = State::AfterArgs;
                        }
                    }
                }
                State::AfterArgs => {
                    if rest.starts_with(CALL_END) {
                        pos += CALL_END.len();
                    }
                    self.state = State::InSection;
                    if rest.is_empty() {
                        return pos;
                    }
                }
            }
        }
    }

    fn commit(&mut self, out: &mut dyn Sink, id: &str, name: Name<'_>) {
        let name = match name {
            Name::Written(name) => name,
            Name::OnlyTool => self.only_tool.as_deref().unwrap_or_default(),
        };
        tracing::debug!(id, name, "Kimi call committed");
        self.calls.start(out, name, Some(id));
        self.args.reset();
        self.state = State::Args;
    }

    /// Reads `<|tool_call_begin|>ID<|tool_call_argument_begin|>` at the start of `text`.
    fn call_head<'t>(&self, text: &'t str, eof: bool) -> Head<'t> {
        let after = &text[CALL_BEGIN.len()..];
        let Some(arg_at) = find_within(after, ARGUMENT_BEGIN, HEAD_LIMIT) else {
            return if eof || !could_still_be_id(after) {
                Head::NotACall
            } else {
                Head::NeedMore
            };
        };
        let id = after[..arg_at].trim();
        let name = match id_name(id) {
            Some(IdName::Written(name)) => Name::Written(name),
            Some(IdName::Counter) if self.only_tool.is_some() => Name::OnlyTool,
            _ => return Head::NotACall,
        };
        Head::Call {
            id,
            name,
            args_at: CALL_BEGIN.len() + arg_at + ARGUMENT_BEGIN.len(),
        }
    }
}

/// What an id says about the name.
#[derive(Debug, PartialEq, Eq)]
enum IdName<'t> {
    /// `functions.NAME:IDX` or `NAME:IDX`.
    Written(&'t str),
    /// A bare counter (`0`): the id names no function.
    Counter,
}

/// The name an id gives, or `None` when it is not an id.
fn id_name(id: &str) -> Option<IdName<'_>> {
    if id.is_empty() || id.len() > HEAD_LIMIT || !id.chars().all(id_char) {
        return None;
    }
    if is_index(id) {
        return Some(IdName::Counter);
    }
    let (head, index) = id.rsplit_once(ID_INDEX_SEPARATOR)?;
    if !is_index(index) {
        return None;
    }
    let name = head.strip_prefix(ID_PREFIX).unwrap_or(head);
    (!name.is_empty()).then_some(IdName::Written(name))
}

fn is_index(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Characters an id may hold: no whitespace, no markup or JSON punctuation.
fn id_char(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            '<' | '>'
                | '|'
                | '{'
                | '}'
                | '['
                | ']'
                | '('
                | ')'
                | '"'
                | '\''
                | '`'
                | ','
                | ';'
                | '='
        )
}

/// Whether text after `<|tool_call_begin|>`, with no `<|tool_call_argument_begin|>` yet, may still grow
/// into an id. Only ever false when no continuation can make it one (so every chunking decides alike).
fn could_still_be_id(text: &str) -> bool {
    if text.len() > HEAD_LIMIT + ARGUMENT_BEGIN.len() {
        return false;
    }
    // A `<` may only start the argument marker, at the very end.
    let head = match text.find('<') {
        None => text,
        Some(at) if ARGUMENT_BEGIN.starts_with(&text[at..]) => &text[..at],
        Some(_) => return false,
    };
    // Whitespace may surround the id, never split it.
    let id = head.trim();
    id.len() <= HEAD_LIMIT && id.chars().all(id_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_ids() {
        assert_eq!(
            id_name("functions.get_weather:0"),
            Some(IdName::Written("get_weather"))
        );
        assert_eq!(
            id_name("functions.api.search:12"),
            Some(IdName::Written("api.search"))
        );
        assert_eq!(
            id_name("get_weather:0"),
            Some(IdName::Written("get_weather"))
        );
        assert_eq!(
            id_name("api.tools.search:0"),
            Some(IdName::Written("api.tools.search"))
        );
        assert_eq!(id_name("7"), Some(IdName::Counter));
        for bad in [
            "",
            "functions.get_weather",
            "functions.invalid.0",
            "functions.:0",
            ":0",
            "functions.x:",
            "functions.x:a",
            "functions.get weather:0",
            "functions.x<y:0",
        ] {
            assert_eq!(id_name(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_id_is_given_up_only_when_nothing_can_save_it() {
        assert!(could_still_be_id(""));
        assert!(could_still_be_id(" functions.get_wea"));
        assert!(could_still_be_id("functions.get_weather:0 \n"));
        assert!(could_still_be_id("functions.get_weather:0 <|tool_call_arg"));
        assert!(!could_still_be_id(
            "functions.get_weather:0 <|tool_call_end|>"
        ));
        assert!(!could_still_be_id("I want to"));
        assert!(!could_still_be_id(&"x".repeat(HEAD_LIMIT + 1)));
    }
}
