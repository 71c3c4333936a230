//! Splitting reasoning from the rest: the [`ReasoningParser`] trait and the tag-based implementation.

use crate::deltas::{Accumulator, Sink};
use crate::message::{ParsedMessage, Stage};
use crate::scanner::{Carry, Found, MarkerSet};
use crate::stage::{DefaultStageWatch, StageDetector};

/// Where a [`ReasoningParser`] writes: reasoning, and the rest (which goes on to the tool parser).
pub trait ReasoningSink {
    /// Reasoning text.
    fn reasoning(&mut self, text: &str);
    /// Text outside reasoning.
    fn content(&mut self, text: &str);
    /// Reasoning has ended (its closer was seen, or a call block ended it). Sent once.
    fn end_of_reasoning(&mut self) {}
    /// A tool-call block opener seen while reasoning is open, under [`BlockInReasoning::Hold`]. The text
    /// that follows keeps coming as [`reasoning`](Self::reasoning) until the composed parser decides.
    fn block_opener(&mut self, marker: &str) {
        self.reasoning(marker);
    }
    /// A token the syntax ignores (an end-of-sequence token), dropped from reasoning. Inside a held call
    /// block it may be text of a call (in a value), so the composed parser still sees it.
    fn ignored(&mut self, _marker: &str) {}
    /// A token that starts a new turn, seen while reasoning is open: returns whether the output ends
    /// here. The composed parser answers no while a call block held in reasoning is inside a call,
    /// where the token is the call's text (and takes it as [`ignored`](Self::ignored)).
    fn turn_start(&mut self, _marker: &str) -> bool {
        true
    }
}

/// Splits reasoning from the rest of the output, one delta at a time.
///
/// Contract: text is emitted in order; holding text back is never wrong, but no fragment of a marker is
/// ever emitted as text; `finish` flushes everything held.
pub trait ReasoningParser: Send {
    /// Feeds the next piece of output.
    fn push(&mut self, text: &str, out: &mut dyn ReasoningSink);
    /// Ends the output and flushes what was held back.
    fn finish(&mut self, out: &mut dyn ReasoningSink);
    /// True while the output is inside reasoning.
    fn in_reasoning(&self) -> bool;

    /// The common delta, decided without the state machine: when the answer is not
    /// [`Route::Machine`], the parser has taken `text` (as [`push`](Self::push) would, bookkeeping
    /// included) and the caller writes it where the answer says, with no [`ReasoningSink`] in between.
    /// On [`Route::Machine`] nothing happened: call [`push`](Self::push). Default: always the machine.
    #[inline]
    fn route(&mut self, _text: &str) -> Route {
        Route::Machine
    }

    /// One-shot: reasoning and the rest of `text` (the rest as `content`, tool markup included).
    fn parse(&mut self, text: &str) -> ParsedMessage
    where
        Self: Sized,
    {
        struct Collect(Accumulator);
        impl ReasoningSink for Collect {
            fn reasoning(&mut self, text: &str) {
                self.0.reasoning(text);
            }
            fn content(&mut self, text: &str) {
                self.0.content(text);
            }
        }
        let mut collect = Collect(Accumulator::new());
        self.push(text, &mut collect);
        self.finish(&mut collect);
        collect.0.into_message()
    }
}

/// Where a whole delta goes, as [`ReasoningParser::route`] decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// All of it is reasoning text.
    Reasoning,
    /// All of it is text outside reasoning.
    Content,
    /// None of it is written (the output has ended).
    Nothing,
    /// The state machine must look at it: call [`ReasoningParser::push`].
    Machine,
}

/// What a tool-call block opener means while reasoning is still open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockInReasoning {
    /// It is reasoning text, like any other.
    #[default]
    Ignore,
    /// It ends reasoning: the block and everything after it are outside reasoning (Kimi, Qwen3 without
    /// `</think>`).
    EndsReasoning,
    /// Hold the block: if reasoning is closed later, or text follows the block, it was reasoning text; if
    /// the block ends the output, it is a call and reasoning ended before it (DeepSeek, DESIGN §4.8).
    Hold,
}

/// The markers of a tag-based reasoning format.
#[derive(Debug)]
pub struct ReasoningSyntax {
    /// Prompt markers, for stage detection.
    pub detector: StageDetector,
    /// Tokens dropped wherever they appear in reasoning (end-of-sequence tokens).
    pub ignore: &'static [&'static str],
    /// Tool-call block openers that matter while reasoning is open (see [`BlockInReasoning`]).
    pub block_openers: &'static [&'static str],
    /// Tokens that start a new turn: one ends the output, even inside reasoning (see
    /// [`with_turn_starts`](Self::with_turn_starts)).
    pub turn_starts: &'static [&'static str],
    /// Closers, openers, ignored tokens, block openers, turn starts.
    markers: MarkerSet,
    /// The closers alone: what [`ThinkTagReasoningParser::stage_from_default`]'s watch looks for in
    /// content (fewer candidates than `markers`).
    closers: MarkerSet,
}

const CLOSE: usize = 0;
const OPEN: usize = 1;
const IGNORE: usize = 2;
const BLOCK: usize = 3;
const TURN: usize = 4;

impl ReasoningSyntax {
    /// `<think>`-style syntax. Build it in a `static`.
    pub const fn new(
        detector: StageDetector,
        ignore: &'static [&'static str],
        block_openers: &'static [&'static str],
    ) -> Self {
        let markers = MarkerSet::new(&[detector.close, detector.open, ignore, block_openers]);
        ReasoningSyntax {
            detector,
            ignore,
            block_openers,
            turn_starts: &[],
            markers,
            closers: MarkerSet::new(&[detector.close]),
        }
    }

    /// The same syntax where `turn_starts` (`<|im_start|>`, `<｜User｜>`) end the output: a model that
    /// writes one has run on into the next turn, so what follows is dropped (with a debug log). Pass
    /// the same list to the tool parser's [`Calls::with_turn_starts`](crate::Calls::with_turn_starts).
    ///
    /// ```
    /// use parser_core::{ReasoningParser, ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser};
    /// static THINK: ReasoningSyntax =
    ///     ReasoningSyntax::new(StageDetector::new(&["<think>"], &["</think>"], &[]), &[], &[])
    ///         .with_turn_starts(&["<|im_start|>"]);
    /// let mut parser = ThinkTagReasoningParser::new(&THINK, Stage::Reasoning);
    /// let message = parser.parse("Let me think.<|im_start|>user\nMore?");
    /// assert_eq!(message.reasoning.as_deref(), Some("Let me think."));
    /// assert_eq!(message.content, None);
    /// ```
    pub const fn with_turn_starts(self, turn_starts: &'static [&'static str]) -> Self {
        let detector = self.detector;
        let markers = MarkerSet::new(&[
            detector.close,
            detector.open,
            self.ignore,
            self.block_openers,
            turn_starts,
        ]);
        ReasoningSyntax {
            detector,
            ignore: self.ignore,
            block_openers: self.block_openers,
            turn_starts,
            markers,
            closers: MarkerSet::new(&[detector.close]),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Content stage, nothing but whitespace seen: an opener here starts reasoning.
    ContentStart,
    /// Reasoning stage, nothing but whitespace seen: a redundant opener here is dropped.
    ReasoningStart,
    Reasoning,
    /// Outside reasoning for good: everything is passed through.
    Passthrough,
    /// A new turn started inside reasoning: the rest of the output is dropped.
    Ended,
}

/// The `<think>…</think>` reasoning parser, configured by a [`ReasoningSyntax`].
///
/// Behaviour (DESIGN §4.8): in the reasoning stage everything up to the first closer is reasoning, and a
/// redundant opener at the very start is dropped; in the content stage an opener at the start (after
/// whitespace) opens reasoning, and otherwise nothing is reasoning. Only the first closer ends reasoning;
/// later markers are text. Reasoning cut off by the end of the output stays reasoning.
///
/// ```
/// use parser_core::{ReasoningParser, ReasoningSyntax, Stage, StageDetector, ThinkTagReasoningParser};
/// static THINK: ReasoningSyntax =
///     ReasoningSyntax::new(StageDetector::new(&["<think>"], &["</think>"], &[]), &[], &[]);
/// let mut parser = ThinkTagReasoningParser::new(&THINK, Stage::Reasoning);
/// let message = parser.parse("Let me think.</think>The answer is 4.");
/// assert_eq!(message.reasoning.as_deref(), Some("Let me think."));
/// assert_eq!(message.content.as_deref(), Some("The answer is 4."));
/// ```
#[derive(Clone, Debug)]
pub struct ThinkTagReasoningParser {
    syntax: &'static ReasoningSyntax,
    carry: Carry,
    state: State,
    inline: bool,
    blocks: BlockInReasoning,
    /// Set by [`stage_from_default`](Self::stage_from_default) while content passes through.
    watch: Option<DefaultStageWatch>,
}

impl ThinkTagReasoningParser {
    /// A parser that starts in `stage`.
    pub fn new(syntax: &'static ReasoningSyntax, stage: Stage) -> Self {
        ThinkTagReasoningParser {
            syntax,
            carry: Carry::new(),
            state: match stage {
                Stage::Reasoning => State::ReasoningStart,
                Stage::Content => State::ContentStart,
            },
            inline: false,
            blocks: BlockInReasoning::Ignore,
            watch: None,
        }
    }

    /// Says whether the starting stage is the family's default because nothing in the request said
    /// where the output starts ([`StageDetector::from_request`] gave `None`). When it is and the output
    /// starts in the answer, a reasoning closer (`</think>`) that then reaches the content shows the
    /// guess was wrong: a `tracing` warning (target `parser_core::stage`, field `marker`) says so, once
    /// per parser. Content is passed through unchanged either way.
    pub fn stage_from_default(mut self, from_default: bool) -> Self {
        self.watch =
            (from_default && self.state == State::ContentStart).then(DefaultStageWatch::default);
        self
    }

    /// Keeps markers in the output (for `reasoning_format: none`): reasoning is still tracked, and the
    /// composed parser reports it as content.
    pub fn inline(mut self, inline: bool) -> Self {
        self.inline = inline;
        self
    }

    /// What a call-block opener inside open reasoning means.
    pub fn blocks_in_reasoning(mut self, policy: BlockInReasoning) -> Self {
        self.blocks = policy;
        self
    }

    /// The state machine: consumes from `text`, returns how much.
    fn run(&mut self, text: &str, eof: bool, out: &mut dyn ReasoningSink) -> usize {
        let mut pos = 0;
        loop {
            match self.state {
                State::Passthrough => {
                    self.watch_content(&text[pos..]);
                    out.content(&text[pos..]);
                    return text.len();
                }
                State::Ended => return text.len(),
                State::ContentStart | State::ReasoningStart => {
                    let rest = &text[pos..];
                    let ws = rest.len() - rest.trim_start().len();
                    if ws > 0 {
                        self.emit_plain(&rest[..ws], out);
                        pos += ws;
                    }
                    if pos == text.len() {
                        return pos;
                    }
                    match opener_at(&text[pos..], self.syntax.detector.open, eof) {
                        Opener::Whole(len) => {
                            // The model opened reasoning itself: the starting stage no longer matters.
                            self.watch = None;
                            if self.inline {
                                out.reasoning(&text[pos..pos + len]);
                            }
                            pos += len;
                            self.state = State::Reasoning;
                        }
                        Opener::Partial => return pos,
                        Opener::No => {
                            self.state = if self.state == State::ContentStart {
                                State::Passthrough
                            } else {
                                State::Reasoning
                            };
                        }
                    }
                }
                State::Reasoning => match self.syntax.markers.find(&text[pos..], eof) {
                    None => {
                        out.reasoning(&text[pos..]);
                        return text.len();
                    }
                    Some(Found::Partial { start }) => {
                        out.reasoning(&text[pos..pos + start]);
                        return pos + start;
                    }
                    Some(Found::Marker {
                        start, end, group, ..
                    }) => {
                        out.reasoning(&text[pos..pos + start]);
                        let marker = &text[pos + start..pos + end];
                        match group {
                            CLOSE => {
                                if self.inline {
                                    out.reasoning(marker);
                                }
                                out.end_of_reasoning();
                                self.state = State::Passthrough;
                            }
                            IGNORE => out.ignored(marker),
                            TURN => {
                                if out.turn_start(marker) {
                                    tracing::debug!(
                                        marker,
                                        dropped = text.len() - pos - end,
                                        "the model started a new turn inside reasoning: the output ends here"
                                    );
                                    self.state = State::Ended;
                                    return text.len();
                                }
                            }
                            BLOCK => match self.blocks {
                                BlockInReasoning::Ignore => out.reasoning(marker),
                                BlockInReasoning::EndsReasoning => {
                                    out.end_of_reasoning();
                                    self.state = State::Passthrough;
                                    pos += start;
                                    continue;
                                }
                                BlockInReasoning::Hold => out.block_opener(marker),
                            },
                            // A second opener inside reasoning is just text.
                            OPEN => out.reasoning(marker),
                            _ => unreachable_group(marker, out),
                        }
                        pos += end;
                    }
                },
            }
        }
    }

    /// With [`stage_from_default`](Self::stage_from_default): content passing through is checked for a
    /// reasoning closer. Nothing to do (one branch) for a parser whose stage the request decided.
    #[inline]
    fn watch_content(&mut self, text: &str) {
        let Some(watch) = &self.watch else {
            return;
        };
        // The common delta: nothing pending and no byte that can start a marker (closers included).
        if watch.idle() && !self.syntax.closers.may_match(text) {
            return;
        }
        self.watch_closer(text);
    }

    /// The rest of [`watch_content`](Self::watch_content), out of the common path.
    #[inline(never)]
    fn watch_closer(&mut self, text: &str) {
        if let Some(watch) = &mut self.watch
            && watch.warned(text, &self.syntax.closers)
        {
            self.watch = None;
        }
    }

    fn emit_plain(&self, text: &str, out: &mut dyn ReasoningSink) {
        match self.state {
            State::ContentStart | State::Passthrough => out.content(text),
            State::ReasoningStart | State::Reasoning => out.reasoning(text),
            State::Ended => {}
        }
    }
}

/// Groups are fixed by [`ReasoningSyntax::new`]; should that ever change, keep the text rather than panic.
fn unreachable_group(marker: &str, out: &mut dyn ReasoningSink) {
    debug_assert!(false, "unknown marker group");
    out.reasoning(marker);
}

enum Opener {
    Whole(usize),
    Partial,
    No,
}

/// The longest opener at the start of `text`; undecided while a longer one could still match there
/// (Gemma 4's `<|channel>thought\n` beside `<|channel>`), so that every chunking decides alike.
fn opener_at(text: &str, openers: &[&str], eof: bool) -> Opener {
    let mut whole = 0;
    let mut partial = false;
    for opener in openers {
        if text.starts_with(opener) {
            whole = whole.max(opener.len());
        } else if !eof && text.len() < opener.len() && opener.starts_with(text) {
            partial = true;
        }
    }
    if partial {
        Opener::Partial
    } else if whole > 0 {
        Opener::Whole(whole)
    } else {
        Opener::No
    }
}

impl ReasoningParser for ThinkTagReasoningParser {
    fn push(&mut self, text: &str, out: &mut dyn ReasoningSink) {
        match self.route(text) {
            Route::Reasoning => return out.reasoning(text),
            Route::Content => return out.content(text),
            Route::Nothing => return,
            Route::Machine => {}
        }
        let mut carry = std::mem::take(&mut self.carry);
        carry.feed(text, self, |me, text| me.run(text, false, out));
        self.carry = carry;
    }

    #[inline(always)]
    fn route(&mut self, text: &str) -> Route {
        if !self.carry.held().is_empty() {
            return Route::Machine;
        }
        match self.state {
            // Reasoning is over: nothing to scan or hold.
            State::Passthrough => {
                self.watch_content(text);
                Route::Content
            }
            State::Ended => Route::Nothing,
            // Most deltas inside reasoning are a few plain characters: no byte of theirs can start a
            // marker, so they are reasoning as they are (what `run` would find, without its machinery).
            State::Reasoning if !self.syntax.markers.may_match(text) => Route::Reasoning,
            _ => Route::Machine,
        }
    }

    fn finish(&mut self, out: &mut dyn ReasoningSink) {
        let mut carry = std::mem::take(&mut self.carry);
        carry.finish(self, |me, text| me.run(text, true, out));
        self.carry = carry;
    }

    fn in_reasoning(&self) -> bool {
        matches!(self.state, State::Reasoning | State::ReasoningStart)
    }
}

/// A reasoning parser for formats without reasoning: everything is content.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoReasoning;

impl ReasoningParser for NoReasoning {
    fn push(&mut self, text: &str, out: &mut dyn ReasoningSink) {
        out.content(text);
    }
    #[inline]
    fn route(&mut self, _text: &str) -> Route {
        Route::Content
    }
    fn finish(&mut self, _out: &mut dyn ReasoningSink) {}
    fn in_reasoning(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    static THINK: ReasoningSyntax = ReasoningSyntax::new(
        StageDetector::new(&["<think>"], &["</think>"], &[]),
        &["<eos>"],
        &["<calls>"],
    );

    fn split(stage: Stage, text: &str) -> (Option<String>, Option<String>) {
        let message = ThinkTagReasoningParser::new(&THINK, stage).parse(text);
        (message.reasoning, message.content)
    }

    fn s(text: &str) -> Option<String> {
        Some(text.to_owned())
    }

    #[rstest]
    #[case(Stage::Reasoning, "abc</think>def", s("abc"), s("def"))]
    #[case(Stage::Reasoning, "<think>abc</think>def", s("abc"), s("def"))]
    #[case(Stage::Reasoning, "\n<think>abc</think>\ndef", s("\nabc"), s("\ndef"))]
    #[case(Stage::Reasoning, "abc", s("abc"), None)]
    #[case(Stage::Reasoning, "a</think>b</think>c", s("a"), s("b</think>c"))]
    #[case(Stage::Reasoning, "a<eos>b</think>c", s("ab"), s("c"))]
    #[case(Stage::Content, "<think>abc</think>def", s("abc"), s("def"))]
    #[case(Stage::Content, "  <think>abc", s("abc"), None)]
    #[case(Stage::Content, "abc</think>def", None, s("abc</think>def"))]
    #[case(
        Stage::Content,
        "text <think>x</think>",
        None,
        s("text <think>x</think>")
    )]
    #[case(Stage::Content, "<thinking>", None, s("<thinking>"))]
    #[case(Stage::Content, "<thi", None, s("<thi"))]
    fn splits_reasoning(
        #[case] stage: Stage,
        #[case] text: &str,
        #[case] reasoning: Option<String>,
        #[case] content: Option<String>,
    ) {
        assert_eq!(
            split(stage, text),
            (reasoning.clone(), content.clone()),
            "one-shot"
        );
        // Every two-way split gives the same result.
        for (cut, _) in text.char_indices() {
            let mut parser = ThinkTagReasoningParser::new(&THINK, stage);
            struct Collect(Accumulator);
            impl ReasoningSink for Collect {
                fn reasoning(&mut self, text: &str) {
                    self.0.reasoning(text);
                }
                fn content(&mut self, text: &str) {
                    self.0.content(text);
                }
            }
            let mut out = Collect(Accumulator::new());
            parser.push(&text[..cut], &mut out);
            parser.push(&text[cut..], &mut out);
            parser.finish(&mut out);
            let message = out.0.into_message();
            assert_eq!(
                (message.reasoning, message.content),
                (reasoning.clone(), content.clone()),
                "cut {cut}"
            );
        }
    }
}
