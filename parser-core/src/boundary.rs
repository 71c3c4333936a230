//! The step a hand-written tagged machine takes inside a committed call, between two arguments: does
//! the call end here (its closer, the enclosing block's closer, or the next call with the closer
//! missing), does an argument start, or is the body something else?
//!
//! Kimi K3, MiniMax-M3, K2 Horizon's XML calls and Muse's invokes all read their call bodies with the
//! same control flow and differ only in their literals and head readers, so the flow lives here once:
//! a family names its literals in a [`CallEnds`], reads its argument head with its own bounded reader
//! (returning a [`Head`]), and maps the [`Boundary`] onto its states.

use crate::json::leading_ws;

/// What a bounded head reader (a call's or an argument's opening tag, read within a length bound so
/// that every chunking decides alike) made of the text at its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head<T> {
    /// Not decided yet: hold the text and wait for more.
    NeedMore,
    /// A complete head: what it says (a name, a key…) and its length.
    Complete(T, usize),
    /// Not such a head.
    Not,
}

impl<T> Head<T> {
    /// The head is not complete in the text seen: [`Head::Not`] when the reader gives up (the output
    /// ended, or the bound is passed), else [`Head::NeedMore`].
    #[inline]
    pub fn unfinished(give_up: bool) -> Self {
        if give_up { Head::Not } else { Head::NeedMore }
    }
}

/// The literals that end a call's body; see [`call_boundary`].
#[derive(Clone, Copy, Debug)]
pub struct CallEnds {
    /// The call's own closer (consumed): [`Closer::Call`].
    pub close: &'static str,
    /// The enclosing block's closer, which also ends a call whose closer is missing (consumed):
    /// [`Closer::Block`]. `None` when the block's end is left to the caller (put it in `next`).
    pub block_close: Option<&'static str>,
    /// What ends a call whose closer is missing and belongs to what follows (the next call, the
    /// message's end; not consumed): [`Closer::Next`].
    pub next: &'static [&'static str],
}

/// Which of a [`CallEnds`]' literals ended the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closer {
    /// The call's closer.
    Call,
    /// The block's closer (the call's was missing).
    Block,
    /// One of the `next` literals (the call's closer was missing); not consumed.
    Next,
}

/// Where a call's body stands between two arguments; see [`call_boundary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary<T> {
    /// Consume this much (framing whitespace; at the end of the output, a cut-off argument head
    /// too, so that no fragment of a tag reaches the arguments) and wait for more text.
    Wait(usize),
    /// The call ends, valid: consume `used` (whitespace, and the closer unless it is
    /// [`Closer::Next`]).
    Closed {
        /// How much is consumed.
        used: usize,
        /// What ended the call.
        by: Closer,
    },
    /// An argument starts: what its head says, and how much is consumed (whitespace and the head).
    Argument(T, usize),
    /// Neither: consume this much (whitespace); the body from there on is not arguments (a format
    /// keeps it raw in the arguments and flags the call invalid).
    Raw(usize),
}

/// Reads the start of `rest`, inside a committed call between two arguments: whitespace (framing),
/// then one of `ends` or an argument head, which `head` reads (bounded). A prefix of one of the
/// literals at the end of `rest` waits for more (unless `eof`); so does an undecided head.
///
/// ```
/// use parser_core::{Boundary, CallEnds, Closer, Head, literal_at, Literal};
///
/// static ENDS: CallEnds = CallEnds {
///     close: "</invoke>",
///     block_close: Some("</calls>"),
///     next: &["<invoke "],
/// };
/// // A toy argument head: `<arg>` (no key).
/// let arg = |text: &str, eof: bool| match literal_at(text, &["<arg>"], eof) {
///     Literal::Whole(len) => Head::Complete((), len),
///     Literal::Partial => Head::NeedMore,
///     Literal::No => Head::Not,
/// };
/// assert_eq!(call_boundary_demo("\n</invoke>x", arg), Boundary::Closed { used: 10, by: Closer::Call });
/// assert_eq!(call_boundary_demo(" </calls>", arg), Boundary::Closed { used: 9, by: Closer::Block });
/// assert_eq!(call_boundary_demo(" <invoke name", arg), Boundary::Closed { used: 1, by: Closer::Next });
/// assert_eq!(call_boundary_demo(" <arg>1", arg), Boundary::Argument((), 6));
/// assert_eq!(call_boundary_demo(" </inv", arg), Boundary::Wait(1));
/// assert_eq!(call_boundary_demo(" hello", arg), Boundary::Raw(1));
///
/// fn call_boundary_demo(
///     rest: &str,
///     head: impl FnMut(&str, bool) -> Head<()>,
/// ) -> Boundary<()> {
///     parser_core::call_boundary(rest, false, &ENDS, head)
/// }
/// ```
#[inline]
pub fn call_boundary<'t, T>(
    rest: &'t str,
    eof: bool,
    ends: &CallEnds,
    mut head: impl FnMut(&'t str, bool) -> Head<T>,
) -> Boundary<T> {
    let ws = leading_ws(rest);
    let after = &rest[ws..];
    if after.is_empty() {
        return Boundary::Wait(ws);
    }
    match ends.at(after, eof) {
        EndAt::Whole(len, by) => {
            let used = if by == Closer::Next { ws } else { ws + len };
            return Boundary::Closed { used, by };
        }
        EndAt::Partial => return Boundary::Wait(ws),
        EndAt::No => {}
    }
    match head(after, eof) {
        Head::NeedMore => Boundary::Wait(ws),
        Head::Complete(value, len) => Boundary::Argument(value, ws + len),
        // Cut off inside the next argument's head: all of it is consumed, no fragment written.
        Head::Not if eof && matches!(head(after, false), Head::NeedMore) => {
            Boundary::Wait(rest.len())
        }
        Head::Not => Boundary::Raw(ws),
    }
}

/// Which end literal `text` starts with.
enum EndAt {
    Whole(usize, Closer),
    Partial,
    No,
}

impl CallEnds {
    /// [`literal_at`](crate::literal_at) over the end literals, saying which one matched: a prefix of
    /// any of them (not at `eof`) waits; of two whole matches the call's closer wins, then the block's.
    fn at(&self, text: &str, eof: bool) -> EndAt {
        let mut whole = None;
        let mut partial = false;
        let literals = std::iter::once((self.close, Closer::Call))
            .chain(self.block_close.map(|close| (close, Closer::Block)))
            .chain(self.next.iter().map(|next| (*next, Closer::Next)));
        for (literal, by) in literals {
            if text.starts_with(literal) {
                whole = whole.or(Some((literal.len(), by)));
            } else if !eof && text.len() < literal.len() && literal.starts_with(text) {
                partial = true;
            }
        }
        match whole {
            _ if partial => EndAt::Partial,
            Some((len, by)) => EndAt::Whole(len, by),
            None => EndAt::No,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{Literal, literal_at};

    static ENDS: CallEnds = CallEnds {
        close: "<|close|>call<|sep|>",
        block_close: Some("<|close|>tools<|sep|>"),
        next: &["<|open|>call "],
    };
    static NO_BLOCK: CallEnds = CallEnds {
        close: "</invoke>",
        block_close: None,
        next: &["<|eom|>", "<|eot|>", "<|start|>"],
    };

    /// `<a k="KEY">`: a toy argument head with a key, bounded by the text seen.
    fn arg(text: &str, eof: bool) -> Head<&str> {
        match literal_at(text, &["<a k=\""], eof) {
            Literal::Partial => return Head::NeedMore,
            Literal::No => return Head::Not,
            Literal::Whole(_) => {}
        }
        let after = &text[6..];
        match after.find("\">") {
            Some(at) => Head::Complete(&after[..at], 6 + at + 2),
            None => Head::unfinished(eof || after.len() > 16),
        }
    }

    fn run<'t>(ends: &CallEnds, rest: &'t str, eof: bool) -> Boundary<&'t str> {
        call_boundary(rest, eof, ends, arg)
    }

    fn closed(used: usize, by: Closer) -> Boundary<&'static str> {
        Boundary::Closed { used, by }
    }

    /// Each case: the literals, the text, whether the output ended there, and the boundary.
    fn check(cases: &[(&CallEnds, &str, bool, Boundary<&str>)]) {
        for &(ends, rest, eof, want) in cases {
            assert_eq!(run(ends, rest, eof), want, "{rest:?} eof {eof}");
        }
    }

    #[test]
    fn whitespace_is_framing_and_waits() {
        check(&[
            (&ENDS, "", false, Boundary::Wait(0)),
            (&ENDS, " \n\t", false, Boundary::Wait(3)),
            (&ENDS, " \n", true, Boundary::Wait(2)),
        ]);
    }

    #[test]
    fn closers_consume_and_next_does_not() {
        check(&[
            (
                &ENDS,
                "\n<|close|>call<|sep|>rest",
                false,
                closed(21, Closer::Call),
            ),
            (
                &ENDS,
                "<|close|>tools<|sep|>",
                false,
                closed(21, Closer::Block),
            ),
            (
                &ENDS,
                "  <|open|>call tool=",
                false,
                closed(2, Closer::Next),
            ),
            (&NO_BLOCK, " <|eot|>", false, closed(1, Closer::Next)),
        ]);
    }

    #[test]
    fn a_cut_literal_waits_unless_the_output_ended() {
        check(&[
            (&ENDS, " <|close|>ca", false, Boundary::Wait(1)),
            // The shared prefix of the call's and the block's closer waits too.
            (&ENDS, "<|close|>", false, Boundary::Wait(0)),
            // At the end it is no closer and no argument: raw.
            (&ENDS, " <|close|>ca", true, Boundary::Raw(1)),
        ]);
    }

    #[test]
    fn arguments_are_read_by_the_head_reader() {
        check(&[
            (
                &ENDS,
                "\n<a k=\"city\">Paris",
                false,
                Boundary::Argument("city", 13),
            ),
            (&ENDS, "\n<a k=\"ci", false, Boundary::Wait(1)),
            (&ENDS, "\n<a", false, Boundary::Wait(1)),
            (&ENDS, "\nnot an argument", false, Boundary::Raw(1)),
            (
                &ENDS,
                "<a k=\"far too long to be a key at all",
                false,
                Boundary::Raw(0),
            ),
        ]);
    }

    #[test]
    fn a_head_cut_off_by_the_end_is_consumed_whole() {
        check(&[
            (&ENDS, "\n<a k=\"ci", true, Boundary::Wait(9)),
            (&NO_BLOCK, " <a", true, Boundary::Wait(3)),
        ]);
    }

    #[test]
    fn unfinished_gives_up_or_waits() {
        assert_eq!(Head::<()>::unfinished(true), Head::Not);
        assert_eq!(Head::<()>::unfinished(false), Head::NeedMore);
    }
}
