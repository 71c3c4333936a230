//! Streaming output: the [`Sink`] parsers write to, the reusable [`Deltas`] buffer and the [`Accumulator`].

use crate::message::{ParsedMessage, ToolCall, non_blank};

/// Where a parser writes what it recognised.
///
/// Parsers never allocate per delta: they hand borrowed slices to a sink. [`Deltas`] stores them in reused
/// buffers, [`Accumulator`] builds the final message, and a server can implement `Sink` to write its wire
/// format directly.
///
/// Contract, for every implementation of the parsers in this workspace:
/// - `tool_call_start` comes once per call, with a fresh `index` (0, 1, 2, … in order), before any of its
///   `tool_call_arguments`; `tool_call_end` comes once per started call, after its last fragment.
/// - The fragments of one call concatenate to exactly its final `arguments` text.
/// - Text pieces are never split inside a UTF-8 code point (they are `&str`).
pub trait Sink {
    /// A piece of reasoning text.
    fn reasoning(&mut self, text: &str);
    /// A piece of answer text.
    fn content(&mut self, text: &str);
    /// A call is committed: its index, id and complete name. Sent once per call.
    fn tool_call_start(&mut self, index: usize, id: &str, name: &str);
    /// A fragment of the call's arguments, as the model wrote it.
    fn tool_call_arguments(&mut self, index: usize, fragment: &str);
    /// The call is complete. `valid` is false when its arguments are not a complete JSON object.
    fn tool_call_end(&mut self, index: usize, valid: bool);
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn reasoning(&mut self, text: &str) {
        (**self).reasoning(text)
    }
    fn content(&mut self, text: &str) {
        (**self).content(text)
    }
    fn tool_call_start(&mut self, index: usize, id: &str, name: &str) {
        (**self).tool_call_start(index, id, name)
    }
    fn tool_call_arguments(&mut self, index: usize, fragment: &str) {
        (**self).tool_call_arguments(index, fragment)
    }
    fn tool_call_end(&mut self, index: usize, valid: bool) {
        (**self).tool_call_end(index, valid)
    }
}

/// One streaming event, borrowed from a [`Deltas`] buffer.
///
/// The tool-call variants mirror OpenAI's streaming shape: `index`, then `id` and `name` once in the first
/// delta of each call, then argument fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delta<'a> {
    /// Reasoning text.
    Reasoning(&'a str),
    /// Answer text.
    Content(&'a str),
    /// A new call, with its complete name.
    ToolCallStart {
        /// Position of the call in the message (0-based).
        index: usize,
        /// The call id (model-written or generated).
        id: &'a str,
        /// The function name.
        name: &'a str,
    },
    /// A fragment of the arguments of call `index`.
    ToolCallArguments {
        /// Position of the call in the message.
        index: usize,
        /// Raw argument text.
        fragment: &'a str,
    },
    /// Call `index` is complete.
    ToolCallEnd {
        /// Position of the call in the message.
        index: usize,
        /// Whether the arguments are a complete JSON object.
        valid: bool,
    },
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Reasoning,
    Content,
    Start { index: usize, name_at: u32 },
    Arguments { index: usize },
    End { index: usize, valid: bool },
}

impl Kind {
    /// Whether text of kind `next` right after an event of this kind extends it.
    #[inline]
    fn merges_with(self, next: Kind) -> bool {
        match (self, next) {
            (Kind::Reasoning, Kind::Reasoning) | (Kind::Content, Kind::Content) => true,
            (Kind::Arguments { index: a }, Kind::Arguments { index: b }) => a == b,
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Event {
    kind: Kind,
    start: u32,
    end: u32,
}

/// A reusable buffer of streaming events.
///
/// [`crate::Parser::push`] clears it and fills it with the events of one delta; the buffers keep their
/// capacity, so a stream allocates nothing once they have grown. Adjacent text of the same kind (and adjacent
/// fragments of the same call) is merged into one event.
///
/// ```
/// use parser_core::{Delta, Deltas, Sink};
/// let mut deltas = Deltas::new();
/// deltas.content("Hello");
/// deltas.content(", world");
/// deltas.tool_call_start(0, "call_1", "get_weather");
/// deltas.tool_call_arguments(0, "{\"city\":");
/// deltas.tool_call_arguments(0, "\"Paris\"}");
/// let events: Vec<Delta> = deltas.iter().collect();
/// assert_eq!(events[0], Delta::Content("Hello, world"));
/// assert_eq!(events[2], Delta::ToolCallArguments { index: 0, fragment: "{\"city\":\"Paris\"}" });
/// ```
#[derive(Clone, Debug, Default)]
pub struct Deltas {
    text: String,
    events: Vec<Event>,
}

impl Deltas {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets all events, keeping the capacity.
    pub fn clear(&mut self) {
        self.text.clear();
        self.events.clear();
    }

    /// True when there are no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// The events, in order.
    pub fn iter(&self) -> impl Iterator<Item = Delta<'_>> + '_ {
        self.events.iter().map(move |event| self.view(event))
    }

    /// Writes every event into `sink`, in order.
    pub fn replay(&self, sink: &mut dyn Sink) {
        for delta in self.iter() {
            match delta {
                Delta::Reasoning(text) => sink.reasoning(text),
                Delta::Content(text) => sink.content(text),
                Delta::ToolCallStart { index, id, name } => sink.tool_call_start(index, id, name),
                Delta::ToolCallArguments { index, fragment } => {
                    sink.tool_call_arguments(index, fragment)
                }
                Delta::ToolCallEnd { index, valid } => sink.tool_call_end(index, valid),
            }
        }
    }

    /// True when some event is a tool-call start.
    pub fn has_tool_calls(&self) -> bool {
        self.events
            .iter()
            .any(|event| matches!(event.kind, Kind::Start { .. }))
    }

    /// True when some content event has non-whitespace text.
    pub fn has_visible_content(&self) -> bool {
        self.has_visible_content_after(0)
    }

    /// True when content written after byte `offset` of the buffer (see [`text_len`](Self::text_len))
    /// has non-whitespace text. Adjacent content is merged into one event, so this looks at bytes, not
    /// at events.
    pub fn has_visible_content_after(&self, offset: usize) -> bool {
        self.events
            .iter()
            .rev()
            .take_while(|event| event.end as usize > offset)
            .any(|event| {
                matches!(event.kind, Kind::Content)
                    && !self.text[(event.start as usize).max(offset)..event.end as usize]
                        .trim()
                        .is_empty()
            })
    }

    /// The number of text bytes written so far (a position for
    /// [`has_visible_content_after`](Self::has_visible_content_after)).
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    fn view(&self, event: &Event) -> Delta<'_> {
        let text = &self.text[event.start as usize..event.end as usize];
        match event.kind {
            Kind::Reasoning => Delta::Reasoning(text),
            Kind::Content => Delta::Content(text),
            Kind::Start { index, name_at } => {
                let split = name_at as usize - event.start as usize;
                Delta::ToolCallStart {
                    index,
                    id: &text[..split],
                    name: &text[split..],
                }
            }
            Kind::Arguments { index } => Delta::ToolCallArguments {
                index,
                fragment: text,
            },
            Kind::End { index, valid } => Delta::ToolCallEnd { index, valid },
        }
    }

    fn offset(&self) -> u32 {
        // Streams longer than 4 GiB in one delta buffer are not a thing; saturate rather than wrap.
        u32::try_from(self.text.len()).unwrap_or(u32::MAX)
    }

    /// Appends text to the last event when it has the same kind, else opens a new event.
    #[inline]
    fn append(&mut self, kind: Kind, text: &str) {
        if text.is_empty() {
            return;
        }
        let start = self.offset();
        self.text.push_str(text);
        let end = self.offset();
        match self.events.last_mut() {
            Some(last) if last.kind.merges_with(kind) => last.end = end,
            _ => self.events.push(Event { kind, start, end }),
        }
    }
}

impl Sink for Deltas {
    #[inline]
    fn reasoning(&mut self, text: &str) {
        self.append(Kind::Reasoning, text);
    }
    #[inline]
    fn content(&mut self, text: &str) {
        self.append(Kind::Content, text);
    }
    fn tool_call_start(&mut self, index: usize, id: &str, name: &str) {
        let start = self.offset();
        self.text.push_str(id);
        let name_at = self.offset();
        self.text.push_str(name);
        let end = self.offset();
        self.events.push(Event {
            kind: Kind::Start { index, name_at },
            start,
            end,
        });
    }
    #[inline]
    fn tool_call_arguments(&mut self, index: usize, fragment: &str) {
        self.append(Kind::Arguments { index }, fragment);
    }
    fn tool_call_end(&mut self, index: usize, valid: bool) {
        let at = self.offset();
        self.events.push(Event {
            kind: Kind::End { index, valid },
            start: at,
            end: at,
        });
    }
}

/// Builds a [`ParsedMessage`] from streaming events.
///
/// This is how one-shot parsing works: one push of the whole text, `finish()`, and an accumulator. Streaming
/// clients get the same message by feeding every delta to an accumulator.
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    reasoning: String,
    content: String,
    calls: Vec<ToolCall>,
}

impl Accumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every event of `deltas`.
    pub fn extend(&mut self, deltas: &Deltas) {
        deltas.replay(self);
    }

    /// The message so far, without consuming the accumulator.
    pub fn snapshot(&self) -> ParsedMessage {
        self.clone().into_message()
    }

    /// The finished message.
    pub fn into_message(self) -> ParsedMessage {
        ParsedMessage {
            reasoning: non_blank(self.reasoning),
            content: non_blank(self.content),
            tool_calls: self.calls,
        }
    }

    fn call(&mut self, index: usize) -> Option<&mut ToolCall> {
        self.calls.get_mut(index)
    }
}

/// Appends `text` to a message field. A field that must grow grows by an eighth (still amortised O(1))
/// rather than doubling: a one-shot parse writes the bulk of a field in one piece, and doubling it for a
/// few more bytes would leave a large output with twice its size allocated (past the allocator's mmap and
/// trim thresholds: page faults and `brk` calls on every parse).
#[inline]
fn append_to(field: &mut String, text: &str) {
    let spare = field.capacity() - field.len();
    if text.len() > spare && !field.is_empty() {
        field.reserve_exact(text.len().max(field.len() / 8 + 64));
    }
    field.push_str(text);
}

impl Sink for Accumulator {
    fn reasoning(&mut self, text: &str) {
        append_to(&mut self.reasoning, text);
    }
    fn content(&mut self, text: &str) {
        append_to(&mut self.content, text);
    }
    fn tool_call_start(&mut self, index: usize, id: &str, name: &str) {
        // Indices come in order; tolerate a gap rather than panic on a misbehaving parser.
        while self.calls.len() <= index {
            self.calls.push(ToolCall {
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
                valid: false,
            });
        }
        if let Some(call) = self.call(index) {
            call.id = id.to_owned();
            call.name = name.to_owned();
        }
    }
    fn tool_call_arguments(&mut self, index: usize, fragment: &str) {
        if let Some(call) = self.call(index) {
            append_to(&mut call.arguments, fragment);
        }
    }
    fn tool_call_end(&mut self, index: usize, valid: bool) {
        if let Some(call) = self.call(index) {
            call.valid = valid;
        }
    }
}
