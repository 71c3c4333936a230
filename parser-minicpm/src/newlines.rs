//! MiniCPM-V's written-out newlines: its tokenizer decodes a newline as the two characters `\` `n`
//! (one token), so the text a client sees is restored here — outside code and LaTeX, where `\n` is
//! meant as written. vLLM's `minicpmv` parser restores the same way; this is our own reader of the
//! rules, written so that streaming equals one-shot for every split (it holds at most three bytes).
//!
//! The rules, on one text (reasoning or content; call arguments are never touched):
//! - `\n`, `\r` and `\r\n` written out become one newline;
//! - a run of two or more backslashes is kept as written, and the character after it is plain text
//!   (`\\n` stays `\\n`);
//! - nothing changes inside `` `…` ``, ```` ```…``` ````, `$…$`, `$$…$$`, `\(…\)` and `\[…\]`.

use parser_core::{MarkerSet, Sink};

/// The closers of the spans whose text is kept as written.
const CLOSERS: [&str; 6] = ["```", "`", "$$", "$", "\\)", "\\]"];

/// The restoring state of one text (reasoning or content).
#[derive(Debug, Default, Clone)]
pub(crate) struct Restorer {
    /// The span being read (index into [`CLOSERS`]), if inside one.
    closer: Option<usize>,
    /// The text ended inside a run of two or more backslashes: more backslashes continue it.
    in_run: bool,
    /// The undecided tail of the text so far (at most three bytes).
    held: String,
    /// Scratch: the held tail and the new text.
    scratch: String,
}

impl Restorer {
    /// Restores `text` (the next piece of this text) into `out`, piece by piece; with `last`, the
    /// text ends here and nothing is held.
    ///
    /// What is kept as written is given out as pieces of `text` itself, not copied into a buffer
    /// first: the copy cost about one instruction per byte of a one-shot parse, and the caller's
    /// [`Deltas`](parser_core::Deltas) records a piece of the pushed text as a range of it. `out` is
    /// never called with an empty piece.
    pub(crate) fn feed(&mut self, text: &str, last: bool, out: &mut impl FnMut(&str)) {
        if self.held.is_empty() {
            if !self.in_run && self.closer.is_none() {
                // Plain text up to the first byte the rules look at: one search, whose answer the
                // restoring loop starts from (a short delta is tested with a table lookup per
                // byte first: nearly always it has none).
                let plain = if text.len() <= SHORT && !LOOKED_AT.may_contain_marker(text) {
                    text.len()
                } else {
                    next_looked_at(text)
                };
                if plain > 0 {
                    out(&text[..plain]);
                }
                if plain < text.len() {
                    self.restore(&text[plain..], last, out);
                }
                return;
            }
            return self.restore(text, last, out);
        }
        let mut joined = std::mem::take(&mut self.scratch);
        joined.clear();
        joined.push_str(&self.held);
        joined.push_str(text);
        self.held.clear();
        self.restore(&joined, last, out);
        self.scratch = joined;
    }

    /// [`feed`](Self::feed) once the held tail and the new text are one text.
    fn restore(&mut self, text: &str, last: bool, out: &mut impl FnMut(&str)) {
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let rest = &text[at..];
            if let Some(closer) = self.closer {
                let marker = CLOSERS[closer];
                if rest.starts_with(marker) {
                    out(marker);
                    at += marker.len();
                    self.closer = None;
                } else if !last && marker.starts_with(rest) {
                    self.held.push_str(rest);
                    break;
                } else {
                    // Every closer starts with a byte the rules look at: the text before the next
                    // one is the span's.
                    let step = plain_run(rest);
                    out(&rest[..step]);
                    at += step;
                }
                continue;
            }
            if self.in_run {
                if bytes[at] == b'\\' {
                    out("\\");
                    at += 1;
                    continue;
                }
                self.in_run = false;
            }
            match bytes[at] {
                b'`' | b'$' => {
                    // Indices into CLOSERS: "```" 0, "`" 1, "$$" 2, "$" 3.
                    let (long, first) = if bytes[at] == b'`' {
                        ("```", 0)
                    } else {
                        ("$$", 2)
                    };
                    if !last && long.starts_with(rest) && rest.len() < long.len() {
                        self.held.push_str(rest);
                        break;
                    }
                    let (opener, closer) = if rest.starts_with(long) {
                        (long, first)
                    } else {
                        (&long[..1], first + 1)
                    };
                    out(opener);
                    at += opener.len();
                    self.closer = Some(closer);
                }
                b'\\' => {
                    let run = rest.bytes().take_while(|&b| b == b'\\').count();
                    if run >= 2 {
                        out(&rest[..run]);
                        at += run;
                        self.in_run = true;
                        continue;
                    }
                    if !last && matches!(rest, "\\" | "\\r" | "\\r\\") {
                        self.held.push_str(rest);
                        break;
                    }
                    let (written, taken, closer) = if rest.starts_with("\\r\\n") {
                        ("\n", 4, None)
                    } else if rest.starts_with("\\n") || rest.starts_with("\\r") {
                        ("\n", 2, None)
                    } else if rest.starts_with("\\(") {
                        ("\\(", 2, Some(4))
                    } else if rest.starts_with("\\[") {
                        ("\\[", 2, Some(5))
                    } else {
                        ("\\", 1, None)
                    };
                    out(written);
                    at += taken;
                    if closer.is_some() {
                        self.closer = closer;
                    }
                }
                _ => {
                    let step = plain_run(rest);
                    out(&rest[..step]);
                    at += step;
                }
            }
        }
        if last {
            self.in_run = false;
        }
    }
}

/// The bytes the rules look at, as one-byte markers: core's scanner finds the next one with a
/// vectorised search (a byte-at-a-time loop cost ~8 instructions a byte of a one-shot parse).
static LOOKED_AT: MarkerSet = MarkerSet::new(&[&["\\", "`", "$"]]);

/// Up to this length a delta is first tested for a byte the rules look at (a streamed token or a
/// few), rather than searched.
const SHORT: usize = 16;

/// The offset of the next byte the rules look at, or the length of `text`.
fn next_looked_at(text: &str) -> usize {
    LOOKED_AT
        .find(text, true)
        .map_or(text.len(), |found| found.start())
}

/// The length of the text before the next byte the rules look at (at least one character).
fn plain_run(text: &str) -> usize {
    next_looked_at(text).max(char_len(text))
}

fn char_len(text: &str) -> usize {
    text.chars().next().map_or(1, char::len_utf8)
}

/// Which text the sink wrote last: a text's held tail is given out when another kind follows, so
/// the events keep their order.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Last {
    #[default]
    Nothing,
    Reasoning,
    Content,
    Call,
}

/// The restoring of both texts, between the inner parser and the caller's sink.
#[derive(Debug, Default, Clone)]
pub(crate) struct Restoring {
    reasoning: Restorer,
    content: Restorer,
    last: Last,
}

impl Restoring {
    /// A sink that restores the texts the inner parser writes into `out`.
    pub(crate) fn sink<'a, S: Sink + ?Sized>(&'a mut self, out: &'a mut S) -> RestoringSink<'a, S> {
        RestoringSink { state: self, out }
    }
}

/// See [`Restoring::sink`]. Generic over the caller's sink, so that writing into the
/// [`Parser`](parser_core::Parser)'s own buffer is a static call.
pub(crate) struct RestoringSink<'a, S: Sink + ?Sized> {
    state: &'a mut Restoring,
    out: &'a mut S,
}

impl<S: Sink + ?Sized> RestoringSink<'_, S> {
    /// Gives out the held tail of the text written last, if `next` is another kind.
    #[inline(always)]
    fn switch(&mut self, next: Last) {
        if self.state.last != next {
            self.switch_to(next);
        }
    }

    /// [`switch`](Self::switch) to another kind (out of the common path).
    #[inline(never)]
    fn switch_to(&mut self, next: Last) {
        let state = &mut *self.state;
        let out = &mut *self.out;
        match state.last {
            Last::Reasoning => state
                .reasoning
                .feed("", true, &mut |piece| out.reasoning(piece)),
            Last::Content => state
                .content
                .feed("", true, &mut |piece| out.content(piece)),
            Last::Nothing | Last::Call => {}
        }
        state.last = next;
    }

    /// The end of the output: every held tail is given out.
    pub(crate) fn finish(&mut self) {
        self.switch(Last::Nothing);
    }
}

impl<S: Sink + ?Sized> Sink for RestoringSink<'_, S> {
    fn reasoning(&mut self, text: &str) {
        self.switch(Last::Reasoning);
        let out = &mut *self.out;
        self.state
            .reasoning
            .feed(text, false, &mut |piece| out.reasoning(piece));
    }

    fn content(&mut self, text: &str) {
        self.switch(Last::Content);
        let out = &mut *self.out;
        self.state
            .content
            .feed(text, false, &mut |piece| out.content(piece));
    }

    fn tool_call_start(&mut self, index: usize, id: &str, name: &str) {
        self.switch(Last::Call);
        self.out.tool_call_start(index, id, name);
    }

    fn tool_call_arguments(&mut self, index: usize, fragment: &str) {
        self.switch(Last::Call);
        self.out.tool_call_arguments(index, fragment);
    }

    fn tool_call_end(&mut self, index: usize, valid: bool) {
        self.switch(Last::Call);
        self.out.tool_call_end(index, valid);
    }

    // Arguments are never restored: a string value's delta goes to the caller's sink to escape
    // (`Deltas` escapes straight into its buffer), not through the default's scratch and a copy.
    fn tool_call_string_arguments(
        &mut self,
        index: usize,
        newline: bool,
        text: &str,
        scratch: &mut String,
    ) {
        self.switch(Last::Call);
        self.out
            .tool_call_string_arguments(index, newline, text, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::Restorer;

    fn restore(text: &str) -> String {
        let mut out = String::new();
        Restorer::default().feed(text, true, &mut |piece| out.push_str(piece));
        out
    }

    /// What the rules leave alone is given out as pieces of the fed text itself, not copies: a
    /// plain text whole, and the plain run before a written-out newline.
    #[test]
    fn plain_text_is_given_out_in_place() {
        fn pieces(text: &str, last: bool) -> Vec<(*const u8, usize)> {
            let mut pieces = Vec::new();
            Restorer::default().feed(text, last, &mut |piece| {
                pieces.push((piece.as_ptr(), piece.len()))
            });
            pieces
        }
        let plain = "nothing to restore in this prose, é";
        assert_eq!(pieces(plain, false), [(plain.as_ptr(), plain.len())]);
        assert_eq!(pieces(&plain[..3], false), [(plain.as_ptr(), 3)]);
        let text = "a plain run first\\nthen a newline written out";
        let run = text.find('\\').unwrap_or(0);
        assert_eq!(pieces(text, true)[0], (text.as_ptr(), run));
        assert_eq!(restore(text), text.replacen("\\n", "\n", 1));
    }

    #[test]
    fn every_split_restores_alike() {
        let texts = [
            "first\\nsecond\\rthird\\r\\nfourth `code\\nvalue` ```python\\nv = '\\\\n'\\n``` $x\\ny$ $$x\\ny$$ \\(x\\ny\\) \\[x\\ny\\] escaped \\\\n",
            "\\\\\\n \\\\\\\\n \\n\\\\ `` ``` $$$ \\r\\r\\n é\\nü",
        ];
        for text in texts {
            let whole = restore(text);
            for split in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let mut restorer = Restorer::default();
                let mut out = String::new();
                restorer.feed(&text[..split], false, &mut |piece| out.push_str(piece));
                restorer.feed(&text[split..], false, &mut |piece| out.push_str(piece));
                restorer.feed("", true, &mut |piece| out.push_str(piece));
                assert_eq!(out, whole, "split at {split}");
            }
            let mut restorer = Restorer::default();
            let mut out = String::new();
            for c in text.chars() {
                restorer.feed(c.encode_utf8(&mut [0; 4]), false, &mut |piece| {
                    out.push_str(piece)
                });
            }
            restorer.feed("", true, &mut |piece| out.push_str(piece));
            assert_eq!(out, whole, "char by char");
        }
    }
}
