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
    /// The event of a text kind whose text is `text` (an `End` or `Start` never is a whole input).
    #[inline]
    fn whole_view(self, text: &str) -> Delta<'_> {
        match self {
            Kind::Reasoning => Delta::Reasoning(text),
            Kind::Arguments { index } => Delta::ToolCallArguments {
                index,
                fragment: text,
            },
            _ => Delta::Content(text),
        }
    }

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
    /// The text is `start..end` of the pushed text (a [`DeltasView`]'s input), not of the buffer.
    input: bool,
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
    /// While [`crate::Parser::push_view`] runs: the address and length of the pushed text. Text written
    /// from inside it is recorded as a range of it rather than copied (the address is only compared,
    /// never read through). Zero length: every write is copied.
    input_at: usize,
    input_len: usize,
    /// The one event so far is all of the pushed text, of this kind: the common delta, recorded
    /// without touching `events` (it becomes an event when another write comes).
    whole: Option<Kind>,
    /// Two events of the same kind ended up side by side (a range of the input, then copied text, or
    /// two ranges with a gap): [`settle`](Self::settle) merges them.
    unmerged: bool,
    /// Spare buffers for [`settle`](Self::settle), kept for their capacity.
    spare_text: String,
    spare_events: Vec<Event>,
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
        self.input_at = 0;
        self.input_len = 0;
        self.whole = None;
        self.unmerged = false;
    }

    /// Clears the buffer and records text written from inside `input` as ranges of it, until the next
    /// [`clear`](Self::clear). Only [`crate::Parser::push_view`] does this: it owns the buffer and hands
    /// it out as a [`DeltasView`] with `input`, never as `&Deltas` while such ranges are in it.
    #[inline]
    pub(crate) fn begin_view(&mut self, input: &str) {
        self.clear();
        // Offsets are u32: a longer input is copied, as `Parser::push` does.
        if u32::try_from(input.len()).is_ok() {
            self.input_at = input.as_ptr() as usize;
            self.input_len = input.len();
        }
    }

    /// Ends what [`begin_view`](Self::begin_view) began: merges adjacent events of the same kind that
    /// could not be merged as they came (the buffer then reads as `push` would have filled it, the
    /// ranges of `input` copied), and returns the view.
    #[inline]
    pub(crate) fn end_view<'a>(&'a mut self, input: &'a str) -> DeltasView<'a> {
        if self.unmerged {
            self.settle(input);
        }
        DeltasView {
            deltas: self,
            input,
        }
    }

    /// Rebuilds the events with every text copied into the buffer and neighbours of the same kind
    /// merged (rare: a marker dropped between two pieces of content, a held tail before new text).
    #[cold]
    fn settle(&mut self, input: &str) {
        let mut text = std::mem::take(&mut self.spare_text);
        let mut events = std::mem::take(&mut self.spare_events);
        text.clear();
        events.clear();
        for event in &self.events {
            let piece = self.event_text(event, input);
            let start = offset_of(&text);
            text.push_str(piece);
            let end = offset_of(&text);
            let kind = match event.kind {
                Kind::Start { index, name_at } => Kind::Start {
                    index,
                    name_at: start + name_at.saturating_sub(event.start),
                },
                kind => kind,
            };
            match events.last_mut() {
                Some(last) if last.kind.merges_with(kind) => last.end = end,
                _ => events.push(Event {
                    kind,
                    start,
                    end,
                    input: false,
                }),
            }
        }
        self.spare_text = std::mem::replace(&mut self.text, text);
        self.spare_events = std::mem::replace(&mut self.events, events);
        self.unmerged = false;
        self.input_len = 0;
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
            replay_one(delta, sink);
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

    /// The text of `event`: a range of the buffer, or of `input` (the text of a [`DeltasView`]). Never
    /// panics: a range that is not there reads as empty (the buffer's own events always are).
    #[inline]
    fn event_text<'a>(&'a self, event: &Event, input: &'a str) -> &'a str {
        let source = if event.input { input } else { &self.text };
        source
            .get(event.start as usize..event.end as usize)
            .unwrap_or_default()
    }

    fn view(&self, event: &Event) -> Delta<'_> {
        self.view_in(event, "")
    }

    #[inline]
    fn view_in<'a>(&'a self, event: &Event, input: &'a str) -> Delta<'a> {
        let text = self.event_text(event, input);
        match event.kind {
            Kind::Reasoning => Delta::Reasoning(text),
            Kind::Content => Delta::Content(text),
            Kind::Start { index, name_at } => {
                let split = (name_at as usize).saturating_sub(event.start as usize);
                let (id, name) = text.split_at_checked(split).unwrap_or((text, ""));
                Delta::ToolCallStart { index, id, name }
            }
            Kind::Arguments { index } => Delta::ToolCallArguments {
                index,
                fragment: text,
            },
            Kind::End { index, valid } => Delta::ToolCallEnd { index, valid },
        }
    }

    fn offset(&self) -> u32 {
        offset_of(&self.text)
    }

    /// Appends text to the last event when it has the same kind, else opens a new event.
    #[inline]
    fn append(&mut self, kind: Kind, text: &str) {
        // The common write of a view: all of the pushed text, first (nothing to copy, no event).
        // Comparing addresses is enough: `text` is those very bytes.
        if text.len() == self.input_len
            && text.as_ptr() as usize == self.input_at
            && self.whole.is_none()
            && self.events.is_empty()
            && !text.is_empty()
        {
            self.whole = Some(kind);
            return;
        }
        self.append_other(kind, text);
    }

    /// The rest of [`append`](Self::append), out of the common path.
    #[inline(never)]
    fn append_other(&mut self, kind: Kind, text: &str) {
        if text.is_empty() {
            return;
        }
        self.unwhole();
        // Inside the pushed text (a view is being filled): record where, copy nothing.
        let at = (text.as_ptr() as usize).wrapping_sub(self.input_at);
        if at < self.input_len && text.len() <= self.input_len - at {
            return self.append_input(kind, at as u32, (at + text.len()) as u32);
        }
        let start = self.offset();
        self.text.push_str(text);
        let end = self.offset();
        match self.events.last_mut() {
            Some(last) if !last.input && last.kind.merges_with(kind) => last.end = end,
            Some(last) => {
                self.unmerged |= last.kind.merges_with(kind);
                self.push_event(kind, start, end, false);
            }
            None => self.push_event(kind, start, end, false),
        }
    }

    /// Turns the whole-input event into an ordinary one, before another write.
    #[inline]
    fn unwhole(&mut self) {
        if let Some(kind) = self.whole.take() {
            self.push_event(kind, 0, self.input_len as u32, true);
        }
    }

    /// [`append`](Self::append) of `start..end` of the pushed text.
    #[inline]
    fn append_input(&mut self, kind: Kind, start: u32, end: u32) {
        match self.events.last_mut() {
            Some(last) if last.input && last.end == start && last.kind.merges_with(kind) => {
                last.end = end
            }
            Some(last) => {
                self.unmerged |= last.kind.merges_with(kind);
                self.push_event(kind, start, end, true);
            }
            None => self.push_event(kind, start, end, true),
        }
    }

    #[inline]
    fn push_event(&mut self, kind: Kind, start: u32, end: u32, input: bool) {
        self.events.push(Event {
            kind,
            start,
            end,
            input,
        });
    }
}

/// The events of one [`crate::Parser::push_view`]: a [`Deltas`] buffer whose text may be ranges of
/// the pushed text itself, which is why it borrows that text too.
///
/// It reads as the `&Deltas` that [`crate::Parser::push`] returns for the same push would: the same
/// events, with adjacent text of the same kind merged. The difference is the cost: the common delta
/// (all of it reasoning, or all of it content) is not copied, just recorded as "all of the input".
/// The events of one [`crate::Parser::push_view`]: a [`Deltas`] buffer whose text may be ranges of
/// the pushed text itself, which is why it borrows that text too.
///
/// It reads as the `&Deltas` that [`crate::Parser::push`] returns for the same push would: the same
/// events, with adjacent text of the same kind merged. The difference is the cost: the common delta
/// (all of it reasoning, all of it content, all of it one call's argument text) is neither copied nor
/// stored as an event, just noted as "all of the input, of this kind".
#[derive(Clone, Copy, Debug)]
pub struct DeltasView<'a> {
    deltas: &'a Deltas,
    input: &'a str,
}

impl<'a> DeltasView<'a> {
    /// The events, in order.
    #[inline]
    pub fn iter(&self) -> DeltasIter<'a> {
        DeltasIter {
            whole: self.deltas.whole,
            events: self.deltas.events.iter(),
            deltas: self.deltas,
            input: self.input,
        }
    }

    /// True when there are no events.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.deltas.whole.is_none() && self.deltas.events.is_empty()
    }

    /// The number of events.
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.deltas.whole.is_some()) + self.deltas.events.len()
    }

    /// True when some event is a tool-call start.
    pub fn has_tool_calls(&self) -> bool {
        self.deltas.has_tool_calls()
    }

    /// Writes every event into `sink`, in order.
    pub fn replay(&self, sink: &mut dyn Sink) {
        for delta in self.iter() {
            replay_one(delta, sink);
        }
    }
}

impl<'a> IntoIterator for DeltasView<'a> {
    type Item = Delta<'a>;
    type IntoIter = DeltasIter<'a>;
    #[inline]
    fn into_iter(self) -> DeltasIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &DeltasView<'a> {
    type Item = Delta<'a>;
    type IntoIter = DeltasIter<'a>;
    #[inline]
    fn into_iter(self) -> DeltasIter<'a> {
        self.iter()
    }
}

/// The iterator of a [`DeltasView`]'s events.
#[derive(Clone, Debug)]
pub struct DeltasIter<'a> {
    /// The whole-input event, not read yet (see `Deltas::whole`).
    whole: Option<Kind>,
    events: std::slice::Iter<'a, Event>,
    deltas: &'a Deltas,
    input: &'a str,
}

impl<'a> Iterator for DeltasIter<'a> {
    type Item = Delta<'a>;
    #[inline]
    fn next(&mut self) -> Option<Delta<'a>> {
        if let Some(kind) = self.whole.take() {
            return Some(kind.whole_view(self.input));
        }
        let event = self.events.next()?;
        Some(self.deltas.view_in(event, self.input))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = usize::from(self.whole.is_some()) + self.events.len();
        (len, Some(len))
    }
}

impl ExactSizeIterator for DeltasIter<'_> {}

/// Writes one event into `sink`.
fn replay_one(delta: Delta<'_>, sink: &mut dyn Sink) {
    match delta {
        Delta::Reasoning(text) => sink.reasoning(text),
        Delta::Content(text) => sink.content(text),
        Delta::ToolCallStart { index, id, name } => sink.tool_call_start(index, id, name),
        Delta::ToolCallArguments { index, fragment } => sink.tool_call_arguments(index, fragment),
        Delta::ToolCallEnd { index, valid } => sink.tool_call_end(index, valid),
    }
}

/// The length of `text` as an event offset. Streams longer than 4 GiB in one delta buffer are not a
/// thing; saturate rather than wrap.
#[inline]
fn offset_of(text: &str) -> u32 {
    u32::try_from(text.len()).unwrap_or(u32::MAX)
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
        self.unwhole();
        let start = self.offset();
        self.text.push_str(id);
        let name_at = self.offset();
        self.text.push_str(name);
        let end = self.offset();
        self.push_event(Kind::Start { index, name_at }, start, end, false);
    }
    // The common write of a long argument: a few compares, then the same write as `content`.
    #[inline(always)]
    fn tool_call_arguments(&mut self, index: usize, fragment: &str) {
        self.append(Kind::Arguments { index }, fragment);
    }
    fn tool_call_end(&mut self, index: usize, valid: bool) {
        self.unwhole();
        let at = self.offset();
        self.push_event(Kind::End { index, valid }, at, at, false);
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

    /// Adds every event of one [`crate::Parser::push_view`].
    pub fn extend_view(&mut self, deltas: DeltasView<'_>) {
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
///
/// A long piece is copied in pieces of at most [`COPY_PIECE`] bytes: glibc copies a large block with
/// `rep movsb`, which a profiler counts as one instruction per byte (callgrind: half of a one-shot
/// parse's count), while below its threshold it copies with vector moves, as fast, a few per 128 bytes.
#[inline]
fn append_to(field: &mut String, text: &str) {
    let spare = field.capacity() - field.len();
    if text.len() > spare {
        if !field.is_empty() {
            field.reserve_exact(text.len().max(field.len() / 8 + 64));
        } else if text.len() > COPY_PIECE {
            // A long first piece gets the eighth now: a few more bytes after it (MiniCPM-V's
            // restored newline, content after a dropped token) then fit, where growing would copy
            // the whole field (`realloc`, about one instruction per byte under callgrind).
            field.reserve_exact(text.len() + text.len() / 8);
        }
    }
    if text.len() <= COPY_PIECE {
        field.push_str(text);
    } else {
        append_in_pieces(field, text);
    }
}

/// Below glibc's `rep movsb` threshold for AVX2 (4096 bytes).
const COPY_PIECE: usize = 2048;

/// [`append_to`] of a long text: room made once, then copies of at most [`COPY_PIECE`] bytes, each
/// ending on a character boundary.
#[inline(never)]
fn append_in_pieces(field: &mut String, mut text: &str) {
    field.reserve(text.len());
    while text.len() > COPY_PIECE {
        // A boundary is at most 3 bytes back from any position.
        let mut at = COPY_PIECE;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let (piece, rest) = text.split_at(at);
        field.push_str(piece);
        text = rest;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A long first piece is kept with room for a few more bytes (no copy of the field when they
    /// come), and every mix of long and short pieces, on character boundaries, reads back whole.
    #[test]
    fn fields_read_back_whole_and_a_long_first_piece_has_room() {
        let long = "é prose, ".repeat(COPY_PIECE / 4);
        let mut field = String::new();
        append_to(&mut field, &long);
        let room = field.capacity();
        assert!(room >= long.len() + long.len() / 8, "{room}");
        append_to(&mut field, "\n");
        append_to(&mut field, "more");
        assert_eq!(field.capacity(), room, "a few bytes after a long piece fit");
        assert_eq!(field, format!("{long}\nmore"));
        for pieces in [
            vec!["a", long.as_str(), "b"],
            vec![long.as_str(), long.as_str()],
            vec!["", long.as_str(), ""],
            vec!["short", "pieces"],
        ] {
            let mut field = String::new();
            for piece in &pieces {
                append_to(&mut field, piece);
            }
            assert_eq!(field, pieces.concat());
        }
    }
}
