//! K2 Horizon's tool calls: `<ifm|tool_call>` elements inside one `<ifm|tool_calls>` group, each in
//! one of the three layouts the chat template writes (its `tool_call_format`: `xml`, the default,
//! `xml_typed` or `json`).
//!
//! ```text
//! xml:        <ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>limit</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! xml_typed:  <ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>limit</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! json:       <ifm|tool_calls><ifm|tool_call>{"name": "lookup", "arguments": {"limit": 3}}</ifm|tool_call></ifm|tool_calls>
//! ```
//!
//! One reader for all three (the layout of each call shows in its first byte after `<ifm|tool_call>`:
//! `{` is JSON), so the request's `tool_call_format` need not be known. Whitespace between tags is
//! framing.
//!
//! - An XML call is committed at its complete name: the text after `<ifm|tool_call>` up to whitespace
//!   or `<`, followed by `<ifm|arg_key>` or `</ifm|tool_call>`, within [`HEAD_LIMIT`]. A JSON call is
//!   committed at its complete `"name"` ([`JsonCall`]); its arguments stream as written.
//! - An XML value is typed by its `<ifm|arg_type>` when it names a JSON type (`integer`, `string`,
//!   `array[…]`: the part before `[`), else by the request's tool schema, else it is a string. A string
//!   streams as it arrives, exactly as written; anything else is collected and written when it closes
//!   (a value that does not fit its type stays a string). A value whose closer is missing ends at the
//!   next argument or the call's end.
//! - A missing `</ifm|tool_call>` before the next call or the group's end is tolerated; so is a missing
//!   `</ifm|tool_calls>`. Anything but arguments inside an XML call is kept raw in its arguments, the
//!   call flagged invalid; a call cut off by the end of the output stays, flagged invalid, with what was
//!   read (DESIGN §4.6). A group whose first element is not a call is content, raw.

use std::sync::Arc;

use parser_core::{
    Boundary, CallEnd, CallEnds, CallMachine, Calls, Carry, ContentStep, Deltas, Found, Head,
    JsonCall, Literal, MarkerSet, ObjectArgs, ParamStep, ParamValue, ParseOptions, Sink,
    ToolParser, Tools, ValueSyntax, ValueType, call_boundary, find_within, leading_ws, literal_at,
};

use crate::markers::*;

/// Content: the group opener.
static CONTENT: MarkerSet = MarkerSet::new(&[&[TOOL_CALLS]]);

/// Where a JSON call whose object broke after it was committed ends (its raw text runs up to here).
static JSON_CALL_END: MarkerSet = MarkerSet::new(&[&[TOOL_CALL_END, TOOL_CALLS_END, TOOL_CALL]]);

/// A value ends at its closer or, when the closer is missing, at the next argument or the call's end.
static VALUE_END: MarkerSet = MarkerSet::new(&[
    &[ARG_VALUE_END],
    &[ARG_KEY, TOOL_CALL_END, TOOL_CALL, TOOL_CALLS_END],
]);
static VALUE: ValueSyntax = ValueSyntax {
    ends: &VALUE_END,
    closer_followers: None,
    trim_newline: false,
};

/// An XML call ends at its closer or, when that is missing, at the next call or the group's end (both
/// left to the group state).
static CALL_ENDS: CallEnds = CallEnds {
    close: TOOL_CALL_END,
    block_close: None,
    next: &[TOOL_CALL, TOOL_CALLS_END],
};

/// Where an XML call body that is not arguments ends: its closer (group 0, consumed), or the next call
/// or the group's end (group 1, left to the group state).
static RAW_BODY_END: MarkerSet = MarkerSet::new(&[&[TOOL_CALL_END], &[TOOL_CALL, TOOL_CALLS_END]]);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Outside the group.
    Content,
    /// Inside the group, between calls (a call head being read is held, in this state).
    Group,
    /// A JSON call, read by [`JsonCall`].
    Json,
    /// After a JSON call's object: whitespace and `</ifm|tool_call>`.
    AfterJson,
    /// Inside a committed XML call, between arguments.
    Body,
    /// Inside an argument value.
    Value,
    /// Something other than arguments inside an XML call: raw, the call flagged invalid.
    RawBody,
}

/// K2 Horizon's tool-call parser; see the module docs.
#[derive(Clone, Debug)]
pub struct HorizonToolParser {
    carry: Carry,
    machine: Machine,
}

#[derive(Clone, Debug)]
struct Machine {
    state: State,
    calls: Calls,
    tools: Option<Arc<Tools>>,
    /// A call of the open group was committed (until then the group opener is content's if the group
    /// turns out to hold no call).
    group_committed: bool,
    json: JsonCall,
    /// The open XML call's name (for schema lookups).
    function: String,
    args: ObjectArgs,
    value: ParamValue,
}

impl HorizonToolParser {
    /// A parser for one request.
    pub fn new(options: &ParseOptions) -> Self {
        HorizonToolParser {
            carry: Carry::new(),
            machine: Machine {
                state: State::Content,
                calls: Calls::new(options),
                tools: options.tools.clone(),
                group_committed: false,
                json: JsonCall::new(),
                function: String::new(),
                args: ObjectArgs::new(),
                value: ParamValue::new(),
            },
        }
    }
}

impl ToolParser for HorizonToolParser {
    #[inline]
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        self.carry.feed_calls(text, &mut self.machine, out);
    }

    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        self.carry.feed_calls_deltas(text, &mut self.machine, out);
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        let m = &mut self.machine;
        self.carry.finish(m, |m, text| m.run(text, true, out));
        if m.state == State::Value {
            m.value.end(&mut m.args, &mut m.calls, out);
        }
        m.calls.end(out, false);
        m.state = State::Content;
    }

    fn block_openers(&self) -> &'static [&'static str] {
        BLOCK_OPENERS
    }

    fn in_block(&self) -> bool {
        self.machine.state != State::Content || self.carry.held().starts_with(TOOL_CALLS)
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
        match self.state {
            State::Value => {
                self.value
                    .take_plain(text, &VALUE, &mut self.args, &mut self.calls, out)
            }
            State::Json if self.json.take_plain(text) => {
                self.calls.args(out, text);
                true
            }
            _ => false,
        }
    }
}

impl Machine {
    /// Runs the state machine over `text`; returns how much was consumed (the rest is held).
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn Sink) -> usize {
        let mut pos = 0;
        loop {
            let rest = &text[pos..];
            match self.state {
                State::Content => match self.calls.scan_content(out, rest, eof, &CONTENT, None) {
                    ContentStep::Consumed(used) => return pos + used,
                    ContentStep::Opener { at, .. } => {
                        pos += at + TOOL_CALLS.len();
                        self.group_committed = false;
                        self.state = State::Group;
                    }
                },
                State::Group => {
                    let ws = leading_ws(rest);
                    let after = &rest[ws..];
                    if ws > HEAD_LIMIT {
                        // Whitespace past the bound: the group ends (decided alike in every chunking).
                        if !self.group_committed {
                            self.calls.content(out, TOOL_CALLS);
                        }
                        self.state = State::Content;
                        continue;
                    }
                    if after.is_empty() && !eof {
                        return pos;
                    }
                    if let Some(after_call) = after.strip_prefix(TOOL_CALL) {
                        let lead = leading_ws(after_call);
                        let body = &after_call[lead..];
                        if body.starts_with('{') {
                            self.json.reset();
                            pos += ws + TOOL_CALL.len() + lead;
                            self.state = State::Json;
                            continue;
                        }
                        if body.is_empty() && !eof && lead <= HEAD_LIMIT {
                            return pos;
                        }
                        match call_head(body, eof) {
                            Head::NeedMore if lead <= HEAD_LIMIT => return pos,
                            Head::Complete((name, _), len) => {
                                self.start_xml_call(out, name);
                                pos += ws + TOOL_CALL.len() + lead + len;
                                continue;
                            }
                            _ => {}
                        }
                    } else if after.starts_with(TOOL_CALLS_END) && self.group_committed {
                        pos += ws + TOOL_CALLS_END.len();
                        self.state = State::Content;
                        continue;
                    } else if literal_at(after, &[TOOL_CALL, TOOL_CALLS_END], eof)
                        == Literal::Partial
                    {
                        return pos;
                    } else if eof
                        && self.group_committed
                        && literal_at(after, &[TOOL_CALLS_END], false) == Literal::Partial
                    {
                        // Cut off inside the group's closer: the group is complete.
                        return text.len();
                    }
                    // Not a call: the group ends here, and the text is content (with the group's
                    // opener, when no call of it was committed).
                    if !self.group_committed {
                        self.calls.content(out, TOOL_CALLS);
                    }
                    self.state = State::Content;
                }
                State::Json => {
                    let (used, end) =
                        self.json
                            .run(rest, eof, &JSON_CALL_END, &mut self.calls, out);
                    pos += used;
                    match end {
                        CallEnd::Open => return pos,
                        CallEnd::Closed { valid } => {
                            self.calls.end(out, valid);
                            self.group_committed = true;
                            self.state = State::AfterJson;
                        }
                        CallEnd::NotACall => {
                            // Never a call: the openers and what the object reader consumed are content.
                            if !self.group_committed {
                                self.calls.content(out, TOOL_CALLS);
                            }
                            self.calls.content(out, TOOL_CALL);
                            self.calls.content(out, self.json.raw());
                            self.state = State::Content;
                        }
                    }
                }
                State::AfterJson => {
                    // Whitespace after the object is framing.
                    let ws = leading_ws(rest);
                    pos += ws;
                    match literal_at(&rest[ws..], &[TOOL_CALL_END], eof) {
                        Literal::Whole(len) => {
                            pos += len;
                            self.state = State::Group;
                        }
                        Literal::Partial => return pos,
                        // The closer is missing: what follows is the group's.
                        Literal::No => self.state = State::Group,
                    }
                }
                State::Body => match call_boundary(rest, eof, &CALL_ENDS, arg_head) {
                    Boundary::Wait(used) => return pos + used,
                    Boundary::Closed { used, .. } => {
                        pos += used;
                        self.close_call(out);
                    }
                    Boundary::Argument((key, declared), used) => {
                        self.open_value(out, key, declared);
                        pos += used;
                    }
                    Boundary::Raw(used) => {
                        pos += used;
                        self.state = State::RawBody;
                    }
                },
                State::Value => {
                    let (args, calls) = (&mut self.args, &mut self.calls);
                    match self.value.run(rest, eof, &VALUE, args, calls, out) {
                        ParamStep::Pending(used) => return pos + used,
                        ParamStep::Ended(used) => {
                            pos += used;
                            self.value.end(args, calls, out);
                            self.state = State::Body;
                        }
                    }
                }
                State::RawBody => {
                    let found = RAW_BODY_END.find(rest, eof);
                    let stop = found.map_or(rest.len(), |found| found.start());
                    self.calls.args(out, &rest[..stop]);
                    let Some(Found::Marker { end, group, .. }) = found else {
                        return pos + stop;
                    };
                    self.calls.end(out, false);
                    pos += if group == 0 { end } else { stop };
                    self.state = State::Group;
                }
            }
        }
    }

    fn start_xml_call(&mut self, out: &mut dyn Sink, name: &str) {
        self.calls.start(out, name, None);
        self.function.replace_range(.., name);
        self.args.reset();
        self.group_committed = true;
        self.state = State::Body;
    }

    fn close_call(&mut self, out: &mut dyn Sink) {
        self.args.finish(&mut self.calls, out);
        self.calls.end(out, true);
        self.state = State::Group;
    }

    fn open_value(&mut self, out: &mut dyn Sink, key: &str, declared: Option<&str>) {
        let value_type = declared.and_then(declared_type).unwrap_or_else(|| {
            self.tools
                .as_deref()
                .and_then(|tools| tools.param_type(&self.function, key))
                .cloned()
                .unwrap_or_default()
        });
        self.args.key(&mut self.calls, out, key);
        self.value
            .start(value_type, &mut self.args, &mut self.calls, out);
        self.state = State::Value;
    }
}

/// The JSON type an `<ifm|arg_type>` names: the part before `[` (`array[string]` is an array); `None`
/// for a name that is not a JSON type (the schema decides then).
fn declared_type(declared: &str) -> Option<ValueType> {
    let base = declared.split('[').next().unwrap_or("").trim();
    Some(match base.to_ascii_lowercase().as_str() {
        "string" | "str" | "text" => ValueType::String,
        "integer" | "int" => ValueType::Integer,
        "number" | "float" => ValueType::Number,
        "boolean" | "bool" => ValueType::Boolean,
        "object" | "dict" => ValueType::Object,
        "array" | "list" => ValueType::Array,
        "null" => ValueType::Null,
        _ => return None,
    })
}

/// A head's name (or key) and the type it declares, if any.
type NameHead<'t> = Head<(&'t str, Option<&'t str>)>;

/// Reads an XML call's name (at the start of `text`, right after `<ifm|tool_call>` and whitespace):
/// the name runs up to whitespace or `<`, and `<ifm|arg_key>` or `</ifm|tool_call>` must follow (after
/// whitespace; not consumed). Decided within [`HEAD_LIMIT`].
fn call_head(text: &str, eof: bool) -> NameHead<'_> {
    let Some(at) = text.find(|c: char| c == '<' || c.is_ascii_whitespace()) else {
        return Head::unfinished(eof || text.len() > HEAD_LIMIT);
    };
    let next = &text[at..];
    let ws = leading_ws(next);
    if at == 0 || at + ws > HEAD_LIMIT {
        return Head::Not;
    }
    match literal_at(&next[ws..], &[ARG_KEY, TOOL_CALL_END], eof) {
        Literal::Whole(_) => Head::Complete((&text[..at], None), at + ws),
        Literal::Partial => Head::NeedMore,
        Literal::No if next[ws..].is_empty() && !eof => Head::NeedMore,
        Literal::No => Head::Not,
    }
}

/// Reads `<ifm|arg_key>KEY</ifm|arg_key>`, optionally `<ifm|arg_type>T</ifm|arg_type>`, and
/// `<ifm|arg_value>` at the start of `text` (whitespace allowed between them); the key (trimmed) is
/// non-empty and holds no `<ifm|` tag. Decided within [`HEAD_LIMIT`].
fn arg_head(text: &str, eof: bool) -> NameHead<'_> {
    let Some(after) = text.strip_prefix(ARG_KEY) else {
        return match literal_at(text, &[ARG_KEY], eof) {
            Literal::Partial => Head::NeedMore,
            _ => Head::Not,
        };
    };
    let Some(at) = find_within(after, ARG_KEY_END, HEAD_LIMIT) else {
        return Head::unfinished(eof || after.len() >= HEAD_LIMIT + ARG_KEY_END.len());
    };
    let key = after[..at].trim();
    if key.is_empty() || key.contains("<ifm|") || key.contains("</ifm|") {
        return Head::Not;
    }
    let mut len = ARG_KEY.len() + at + ARG_KEY_END.len();
    let mut rest = &after[at + ARG_KEY_END.len()..];
    let ws = leading_ws(rest);
    if ws > HEAD_LIMIT {
        return Head::Not;
    }
    len += ws;
    rest = &rest[ws..];
    let mut declared = None;
    if let Some(typed) = rest.strip_prefix(ARG_TYPE) {
        let Some(end) = find_within(typed, ARG_TYPE_END, HEAD_LIMIT) else {
            return Head::unfinished(eof || typed.len() >= HEAD_LIMIT + ARG_TYPE_END.len());
        };
        declared = Some(typed[..end].trim());
        let after_type = &typed[end + ARG_TYPE_END.len()..];
        let ws = leading_ws(after_type);
        if ws > HEAD_LIMIT {
            return Head::Not;
        }
        len += ARG_TYPE.len() + end + ARG_TYPE_END.len() + ws;
        rest = &after_type[ws..];
    }
    match literal_at(rest, &[ARG_VALUE, ARG_TYPE], eof) {
        Literal::Whole(n) if rest.starts_with(ARG_VALUE) => {
            Head::Complete((key, declared), len + n)
        }
        Literal::Partial => Head::NeedMore,
        Literal::No if rest.is_empty() && !eof => Head::NeedMore,
        _ => Head::Not,
    }
}
