//! The composed parser: reasoning first, then tool calls on the rest. This is what users get.

use crate::deltas::{Accumulator, Deltas, DeltasView, Sink};
use crate::json::fit_within;
use crate::message::{ParsedMessage, Stage};
use crate::options::Limits;
use crate::reasoning::{ReasoningParser, ReasoningSink, Route};
use crate::tool::ToolParser;

/// A whole-output parser: the object-safe interface behind [`Parser`].
pub trait OutputParser: Send {
    /// Feeds the next piece of output.
    fn push(&mut self, text: &str, out: &mut dyn Sink);
    /// [`push`](Self::push) into the [`Parser`]'s own buffer. A parser may override it to write its
    /// common delta with static calls into [`Deltas`] rather than through `dyn Sink` (it must write
    /// exactly what `push` would). Default: `push`.
    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        self.push(text, out);
    }
    /// Ends the output.
    fn finish(&mut self, out: &mut dyn Sink);
    /// The stage the output started in.
    fn initial_stage(&self) -> Stage;
}

/// A tool-call block seen while reasoning was open, held until we know what it is (see
/// [`crate::BlockInReasoning::Hold`]).
struct Held<T> {
    /// The raw text since the block opener: reasoning text, if the block turns out to be inside reasoning.
    raw: String,
    /// A tool parser fed with the raw text: its output, if the block turns out to be calls.
    spec: T,
    spec_out: Deltas,
    /// How much of `spec_out`'s text has been checked for visible content.
    checked: usize,
    /// Bytes of ignored tokens fed to `spec` but not kept in `raw` (they are dropped from reasoning).
    ignored: usize,
}

impl<T: ToolParser> Held<T> {
    /// Feeds `text` to the speculative tool parser; true if it showed text outside its calls.
    fn speculate(&mut self, text: &str) -> bool {
        self.spec.push(text, &mut self.spec_out);
        let visible = self.spec_out.has_visible_content_after(self.checked);
        self.checked = self.spec_out.text_len();
        visible
    }

    /// Bytes held so far, for [`Limits::call_buffer`].
    fn held_len(&self) -> usize {
        self.raw.len() + self.ignored
    }
}

/// Reasoning parser `R` followed by tool parser `T`.
///
/// Text outside reasoning goes to `T`. A call block that opens while reasoning is still open is held (when
/// `R` is configured so): it becomes calls if it ends the output, and reasoning text if reasoning is closed
/// after it or other text follows it.
pub struct Composed<R, T> {
    reasoning: R,
    tools: T,
    stage: Stage,
    inline: bool,
    held: Option<Box<Held<T>>>,
    buffer_limit: usize,
}

impl<R: ReasoningParser, T: ToolParser + Clone> Composed<R, T> {
    /// Composes `reasoning` and `tools`. `stage` is reported by [`OutputParser::initial_stage`]; with
    /// `inline` reasoning is reported as content (markers included, `reasoning_format: none`).
    pub fn new(reasoning: R, tools: T, stage: Stage, inline: bool) -> Self {
        Composed {
            reasoning,
            tools,
            stage,
            inline,
            held: None,
            buffer_limit: Limits::DEFAULT_CALL_BUFFER,
        }
    }

    /// A delta through the reasoning parser's state machine and the router (out of the common path).
    #[inline(never)]
    fn push_routed(&mut self, text: &str, out: &mut dyn Sink) {
        let mut router = Router {
            tools: &mut self.tools,
            out,
            held: &mut self.held,
            inline: self.inline,
            buffer_limit: self.buffer_limit,
        };
        self.reasoning.push(text, &mut router);
    }

    /// [`OutputParser::push_deltas`] after the route, but for plain reasoning.
    #[inline(never)]
    fn push_deltas_routed(&mut self, route: Route, text: &str, out: &mut Deltas) {
        match route {
            Route::Reasoning if self.inline => out.content(text),
            Route::Reasoning => out.reasoning(text),
            Route::Content => self.tools.push_deltas(text, out),
            Route::Nothing => {}
            Route::Machine => self.push_routed(text, out),
        }
    }

    /// Sets the most text a held call block may reach ([`Limits::call_buffer`]; families pass the
    /// request's). Past it, the block is reasoning text, as if reasoning went on.
    pub fn buffer_limit(mut self, bytes: usize) -> Self {
        self.buffer_limit = bytes;
        self
    }
}

struct Router<'a, T> {
    tools: &'a mut T,
    out: &'a mut dyn Sink,
    held: &'a mut Option<Box<Held<T>>>,
    inline: bool,
    buffer_limit: usize,
}

impl<T: ToolParser + Clone> Router<'_, T> {
    fn emit_reasoning(&mut self, text: &str) {
        if self.inline {
            self.out.content(text);
        } else {
            self.out.reasoning(text);
        }
    }

    /// The held block was reasoning text after all.
    fn release_held(&mut self) {
        if let Some(held) = self.held.take() {
            tracing::debug!("call block inside reasoning kept as reasoning text");
            self.emit_reasoning(&held.raw);
        }
    }
}

impl<T: ToolParser + Clone> ReasoningSink for Router<'_, T> {
    #[inline]
    fn reasoning(&mut self, text: &str) {
        if self.held.is_none() {
            self.emit_reasoning(text);
        } else {
            self.reasoning_held(text);
        }
    }

    fn content(&mut self, text: &str) {
        self.tools.push(text, self.out);
    }

    fn end_of_reasoning(&mut self) {
        self.release_held();
    }

    fn ignored(&mut self, marker: &str) {
        // Dropped from reasoning, but inside a held call it is the call's text, as it would be after
        // `</think>` (Qwen3-Coder: `a<|im_end|>b` in a value). Outside a call the tool parser would
        // drop it too, so it is not fed there.
        let Some(held) = self.held.as_deref_mut() else {
            return;
        };
        if !held.spec.in_block() {
            return;
        }
        if held.held_len() + marker.len() > self.buffer_limit {
            tracing::debug!("call block inside reasoning over the buffer limit: reasoning text");
            self.release_held();
            return;
        }
        held.ignored += marker.len();
        if held.speculate(marker) {
            self.release_held();
        }
    }

    fn turn_start(&mut self, marker: &str) -> bool {
        // Inside a call of a held block the token is the call's text, as it would be after `</think>`.
        if self
            .held
            .as_deref()
            .is_some_and(|held| held.spec.in_block())
        {
            self.ignored(marker);
            return false;
        }
        true
    }

    fn block_opener(&mut self, marker: &str) {
        if let Some(held) = self.held.as_deref_mut() {
            // A second opener inside a held block: part of the block, unless the block already showed
            // text outside its calls (then it was reasoning, and this opener starts a new hold).
            if !held.speculate(marker) {
                held.raw.push_str(marker);
                return;
            }
            self.release_held();
        }
        if self.held.is_none() {
            *self.held = Some(Box::new(Held {
                raw: String::new(),
                spec: self.tools.clone(),
                spec_out: Deltas::new(),
                checked: 0,
                ignored: 0,
            }));
        }
        self.reasoning(marker);
    }
}

impl<T: ToolParser + Clone> Router<'_, T> {
    /// Reasoning text while a call block is held: it goes to the block, up to the buffer limit.
    #[inline(never)]
    fn reasoning_held(&mut self, text: &str) {
        let Some(held) = self.held.as_deref_mut() else {
            self.emit_reasoning(text);
            return;
        };
        let room = fit_within(text, held.held_len(), self.buffer_limit);
        if room < text.len() {
            // The block reaches the buffer limit: stop holding it. Whatever the text after it, the
            // answer is the same (reasoning), so deciding at the limit agrees with every chunking.
            self.hold(&text[..room]);
            if self.held.is_some() {
                tracing::debug!(
                    "call block inside reasoning over the buffer limit: reasoning text"
                );
                self.release_held();
            }
            self.emit_reasoning(&text[room..]);
            return;
        }
        self.hold(text);
    }

    /// Adds `text` to the held block; releases the block as reasoning once text shows outside its calls.
    fn hold(&mut self, text: &str) {
        let Some(held) = self.held.as_deref_mut() else {
            self.emit_reasoning(text);
            return;
        };
        held.raw.push_str(text);
        if held.speculate(text) {
            // Text after (or inside) the block: the model is still reasoning.
            self.release_held();
        }
    }
}

impl<R: ReasoningParser, T: ToolParser + Clone> OutputParser for Composed<R, T> {
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        // The common delta (plain reasoning, or text after reasoning) goes straight where the router
        // would send it; a held call block needs the router for every delta.
        if self.held.is_none() {
            match self.reasoning.route(text) {
                Route::Reasoning if self.inline => return out.content(text),
                Route::Reasoning => return out.reasoning(text),
                Route::Content => return self.tools.push(text, out),
                Route::Nothing => return,
                Route::Machine => {}
            }
        }
        self.push_routed(text, out);
    }

    /// As [`push`](OutputParser::push), the common delta written into `out` directly (no dynamic call
    /// per delta inside reasoning).
    #[inline]
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        if self.held.is_some() {
            return self.push_routed(text, out);
        }
        // Plain reasoning and the content route are written here; the rest is one tail call away.
        match self.reasoning.route(text) {
            Route::Reasoning if !self.inline => out.reasoning(text),
            Route::Content => self.tools.push_deltas(text, out),
            route => self.push_deltas_routed(route, text, out),
        }
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        let mut router = Router {
            tools: &mut self.tools,
            out,
            held: &mut self.held,
            inline: self.inline,
            buffer_limit: self.buffer_limit,
        };
        self.reasoning.finish(&mut router);
        match self.held.take() {
            Some(mut held) => {
                held.spec.finish(&mut held.spec_out);
                self.tools.finish(out);
                if held.spec_out.has_tool_calls() {
                    tracing::debug!("call block ended the output inside reasoning: kept as calls");
                    held.spec_out.replay(out);
                } else if self.inline {
                    out.content(&held.raw);
                } else {
                    out.reasoning(&held.raw);
                }
            }
            None => self.tools.finish(out),
        }
    }

    fn initial_stage(&self) -> Stage {
        self.stage
    }
}

/// A ready-to-use parser for one output: push deltas, then finish.
///
/// `push` and `finish` return the events of that call in a buffer that is reused, so a stream allocates
/// nothing once it is warm. [`parse`](Self::parse) is the one-shot form: one push of the whole text and
/// `finish`, so one-shot and streaming agree by construction.
///
/// ```
/// # use parser_core::{Composed, NoReasoning, Parser, Stage, ToolParser, Sink};
/// # #[derive(Clone)] struct Plain;
/// # impl ToolParser for Plain {
/// #     fn push(&mut self, text: &str, out: &mut dyn Sink) { out.content(text) }
/// #     fn finish(&mut self, _: &mut dyn Sink) {}
/// #     fn in_block(&self) -> bool { false }
/// # }
/// let mut parser = Parser::new("plain", Composed::new(NoReasoning, Plain, Stage::Content, false));
/// for delta in parser.push("Hello").iter() {
///     println!("{delta:?}");
/// }
/// parser.finish();
/// ```
pub struct Parser {
    name: &'static str,
    inner: Box<dyn OutputParser>,
    deltas: Deltas,
    finished: bool,
}

impl std::fmt::Debug for Parser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parser")
            .field("name", &self.name)
            .field("stage", &self.inner.initial_stage())
            .field("finished", &self.finished)
            .finish()
    }
}

impl Parser {
    /// Wraps a composed parser under a registry name.
    pub fn new(name: &'static str, inner: impl OutputParser + 'static) -> Self {
        Parser {
            name,
            inner: Box::new(inner),
            deltas: Deltas::new(),
            finished: false,
        }
    }

    /// The registered name of the parser.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The stage the output starts in, as decided from the request.
    pub fn stage(&self) -> Stage {
        self.inner.initial_stage()
    }

    /// Feeds the next piece of output and returns its events. After [`finish`](Self::finish) this does
    /// nothing.
    pub fn push(&mut self, text: &str) -> &Deltas {
        self.deltas.clear();
        if !self.finished {
            self.inner.push_deltas(text, &mut self.deltas);
        }
        &self.deltas
    }

    /// [`push`](Self::push), the fast way: the events borrow `text` as well as the parser, so text that
    /// is a piece of `text` (the common delta is all of it: plain reasoning or plain content) is not
    /// copied into the buffer. The events are exactly those `push` would return. After
    /// [`finish`](Self::finish) this does nothing.
    ///
    /// ```
    /// # use parser_core::{Composed, Delta, NoReasoning, Parser, Stage, ToolParser, Sink};
    /// # #[derive(Clone)] struct Plain;
    /// # impl ToolParser for Plain {
    /// #     fn push(&mut self, text: &str, out: &mut dyn Sink) { out.content(text) }
    /// #     fn finish(&mut self, _: &mut dyn Sink) {}
    /// #     fn in_block(&self) -> bool { false }
    /// # }
    /// let mut parser = Parser::new("plain", Composed::new(NoReasoning, Plain, Stage::Content, false));
    /// let mut answer = String::new();
    /// for token_text in ["Hel", "lo"] {
    ///     for delta in parser.push_view(token_text) {
    ///         if let Delta::Content(text) = delta {
    ///             answer.push_str(text);
    ///         }
    ///     }
    /// }
    /// assert!(parser.finish().is_empty());
    /// assert_eq!(answer, "Hello");
    /// ```
    #[inline]
    pub fn push_view<'a>(&'a mut self, text: &'a str) -> DeltasView<'a> {
        self.deltas.begin_view(text);
        if !self.finished {
            self.inner.push_deltas(text, &mut self.deltas);
        }
        self.deltas.end_view(text)
    }

    /// Ends the output and returns the last events. Only the first call does anything.
    pub fn finish(&mut self) -> &Deltas {
        self.deltas.clear();
        if !self.finished {
            self.finished = true;
            self.inner.finish(&mut self.deltas);
        }
        &self.deltas
    }

    /// [`finish`](Self::finish) as a [`DeltasView`], the type [`push_view`](Self::push_view) returns
    /// (one loop body reads both).
    pub fn finish_view(&mut self) -> DeltasView<'_> {
        self.finish();
        self.deltas.end_view("")
    }

    /// Like [`push`](Self::push), writing into a sink of your own.
    pub fn push_into(&mut self, text: &str, sink: &mut dyn Sink) {
        if !self.finished {
            self.inner.push(text, sink);
        }
    }

    /// Like [`finish`](Self::finish), writing into a sink of your own.
    pub fn finish_into(&mut self, sink: &mut dyn Sink) {
        if !self.finished {
            self.finished = true;
            self.inner.finish(sink);
        }
    }

    /// One-shot: the message of a whole output.
    pub fn parse(mut self, text: &str) -> ParsedMessage {
        let mut out = Accumulator::new();
        self.push_into(text, &mut out);
        self.finish_into(&mut out);
        out.into_message()
    }
}
