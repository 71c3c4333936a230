//! Reading call heads: the bounded text from a call opener to the complete function name (and the call
//! id, when the template writes it next to the name), and argument names.
//!
//! Every reader here looks at the text from the opener on, as seen so far, and answers "a call", "not a
//! call" or "need more text"; it is called again from the same start when more text arrives. Each
//! decision depends only on the text seen so far and every piece is bounded by [`HEAD_LIMIT`], so every
//! chunking of the same output decides alike, and a head is never re-read more than a bounded amount.

use parser_core::{Literal, find_within, leading_ws, literal_at};

use super::syntax::Syntax;
use crate::spec::{CallIdPosition, ToolFormat};

/// The longest function name, call id, argument name or run of whitespace between markers that a head
/// may hold.
pub(super) const HEAD_LIMIT: usize = 256;

/// Why a head is not (yet) a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// Not decided: hold the text and read it again with more.
    More,
    /// Not a call: the opener is content.
    Not,
}

pub(super) type Step<T> = Result<T, Stop>;

/// What a call head turned out to be.
#[derive(Debug)]
pub(super) enum Head<'t> {
    /// A JSON call object starts at `at` (after the openers, whitespace and an optional `[`).
    Json { at: usize, array: bool },
    /// A PYTHONIC call: its complete name, whether a `[` opened a list of calls, and where its arguments
    /// start (after the `(`).
    Python {
        name: &'t str,
        list: bool,
        len: usize,
    },
    /// Not a call but the header of content written like one (`>>>all\n`): its length, one newline
    /// included.
    Content { len: usize },
    /// A call written in markup: its complete name, its id, and where its body starts.
    Tag {
        name: &'t str,
        id: Option<&'t str>,
        len: usize,
    },
}

/// A position in a head being read.
struct Cursor<'t> {
    text: &'t str,
    pos: usize,
    eof: bool,
}

impl<'t> Cursor<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    /// Skips whitespace; more than [`HEAD_LIMIT`] bytes of it is not a head.
    fn ws(&mut self) -> Step<()> {
        let n = leading_ws(self.rest());
        if n > HEAD_LIMIT {
            return Err(Stop::Not);
        }
        self.pos += n;
        Ok(())
    }

    /// Consumes `lit` when the text goes on with it (an empty literal is never there).
    fn opt(&mut self, lit: &str) -> Step<bool> {
        if lit.is_empty() {
            return Ok(false);
        }
        match literal_at(self.rest(), &[lit], self.eof) {
            Literal::Whole(n) => {
                self.pos += n;
                Ok(true)
            }
            Literal::Partial => Err(Stop::More),
            Literal::No => Ok(false),
        }
    }

    /// Consumes whichever of `lits` (one marker's spellings) the text goes on with.
    fn opt_any(&mut self, lits: &[&str]) -> Step<bool> {
        if lits.is_empty() {
            return Ok(false);
        }
        match literal_at(self.rest(), lits, self.eof) {
            Literal::Whole(n) => {
                self.pos += n;
                Ok(true)
            }
            Literal::Partial => Err(Stop::More),
            Literal::No => Ok(false),
        }
    }

    /// Whether the text goes on with one of `lits` (not consumed).
    fn peek_any(&self, lits: &[&str]) -> Step<bool> {
        if lits.is_empty() {
            return Ok(false);
        }
        match literal_at(self.rest(), lits, self.eof) {
            Literal::Whole(_) => Ok(true),
            Literal::Partial => Err(Stop::More),
            Literal::No => Ok(false),
        }
    }

    /// A function name: a non-empty run of characters that are neither whitespace nor markup.
    fn name(&mut self, stop: &impl Fn(char) -> bool) -> Step<&'t str> {
        let rest = self.rest();
        let end = rest.find(|c: char| c.is_whitespace() || stop(c));
        match end {
            Some(0) => Err(Stop::Not),
            Some(at) if at <= HEAD_LIMIT => {
                self.pos += at;
                Ok(&rest[..at])
            }
            Some(_) => Err(Stop::Not),
            None if self.eof || rest.len() > HEAD_LIMIT => Err(Stop::Not),
            None => Err(Stop::More),
        }
    }

    /// A call id after its prefix: the text up to the first of `ends` (the suffix is consumed, other
    /// ends are not). An id that cannot be read (cut off, too long) is no id: the call goes on without
    /// it.
    fn id(&mut self, suffix: &str, ends: &[&str]) -> Step<Option<&'t str>> {
        let rest = self.rest();
        let found = std::iter::once(suffix)
            .chain(ends.iter().copied())
            .filter(|e| !e.is_empty())
            .filter_map(|e| find_within(rest, e, HEAD_LIMIT).map(|at| (at, e)))
            .min_by_key(|&(at, _)| at);
        match found {
            Some((at, end)) => {
                let id = rest[..at].trim();
                self.pos += at;
                if end == suffix {
                    self.pos += suffix.len();
                }
                Ok((!id.is_empty()).then_some(id))
            }
            None if self.eof || rest.len() > HEAD_LIMIT + 64 => Ok(None),
            None => Err(Stop::More),
        }
    }
}

/// Characters that end a function name: markup, quotes, and the first character of whatever may follow
/// a name (unless it is a character names are made of).
fn name_stop(syntax: &Syntax) -> impl Fn(char) -> bool + '_ {
    move |c| {
        matches!(c, '<' | '>' | '{' | '}' | '[' | ']' | '"' | '\'')
            || (!(c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
                && (syntax.func_name_suffix.starts_with(c)
                    || syntax.name_followers.iter().any(|f| f.starts_with(c))))
    }
}

/// Reads the head of a call block at the start of `text`, which starts with a call opener (or, for a
/// bare JSON call, with `{` / `[`).
pub(super) fn head<'t>(syntax: &Syntax, text: &'t str, eof: bool) -> Step<Head<'t>> {
    let mut c = Cursor { text, pos: 0, eof };
    if c.opt_any(syntax.section_starts)? {
        c.ws()?;
    }
    let per_call = c.opt_any(syntax.per_call_starts)?;
    if per_call {
        c.ws()?;
    }
    if syntax.format == ToolFormat::JsonNative {
        let array = c.opt("[")?;
        if array {
            c.ws()?;
        }
        return match c.rest().as_bytes().first() {
            Some(b'{') => Ok(Head::Json { at: c.pos, array }),
            None if !eof => Err(Stop::More),
            _ => Err(Stop::Not),
        };
    }
    if syntax.format == ToolFormat::Pythonic {
        let list = c.opt("[")?;
        if list {
            c.ws()?;
        }
        let (name, len) = py_call_name(&text[c.pos..], eof)?;
        return Ok(Head::Python {
            name,
            list,
            len: c.pos + len,
        });
    }
    if syntax.format == ToolFormat::TagWithJson && syntax.array {
        // JSON call objects behind the same opener (Mistral v0.3's `[TOOL_CALLS] [{…}]`): a name never
        // starts with `[` or `{`.
        let array = c.opt("[")?;
        if array {
            c.ws()?;
        }
        match c.rest().as_bytes().first() {
            Some(b'{') => return Ok(Head::Json { at: c.pos, array }),
            None if !eof => return Err(Stop::More),
            _ if array => return Err(Stop::Not),
            _ => {}
        }
    }
    let mut id = None;
    // The id's prefix may be the call opener itself, already read (Solar's
    // `<|tool_call:begin|>ID<|tool_call:name|>NAME`).
    if syntax.call_id == CallIdPosition::PreFuncName
        && ((per_call && syntax.call_id_prefix == syntax.per_call_start)
            || c.opt(syntax.call_id_prefix)?)
    {
        id = c.id(syntax.call_id_suffix, &[syntax.func_name_prefix])?;
        c.ws()?;
    }
    if !syntax.func_name_prefix.is_empty() && !c.opt_any(syntax.func_name_prefixes)? {
        return Err(Stop::Not);
    }
    let name = c.name(&name_stop(syntax))?;
    if !syntax.content_recipient.is_empty() && name == syntax.content_recipient {
        let rest = c.rest();
        if rest == "\r" && !eof {
            // The framing newline may be `\r\n`: decide when its second byte is here, as one-shot
            // parsing does (found by the fuzzer: `>>>all\r` then `\n` kept the newline as content).
            return Err(Stop::More);
        }
        let newline = if rest.starts_with("\r\n") {
            2
        } else {
            usize::from(rest.starts_with('\n'))
        };
        return Ok(Head::Content {
            len: c.pos + newline,
        });
    }
    let after_name = c.pos;
    c.ws()?;
    if syntax.func_name_suffix.is_empty() {
        // Nothing is written after the name: what follows it must be markup the call goes on with.
        if !c.peek_any(syntax.name_followers)? {
            return Err(Stop::Not);
        }
        c.pos = after_name;
    } else if !c.opt(syntax.func_name_suffix)? {
        return Err(Stop::Not);
    }
    if syntax.call_id == CallIdPosition::BetweenFuncAndArgs {
        let before = c.pos;
        if c.ws().is_err() {
            c.pos = before;
        } else if c.opt(syntax.call_id_prefix)? {
            id = c.id(
                syntax.call_id_suffix,
                &[syntax.args_openers, &["{"]].concat(),
            )?;
        } else {
            c.pos = before;
        }
    }
    Ok(Head::Tag {
        name,
        id,
        len: c.pos,
    })
}

/// Reads a PYTHONIC call's name and its `(` at the start of `text` (whitespace before the `(` allowed);
/// returns the name and the length read. A name is made of letters, digits, `_`, `.`, `-` and `:`.
pub(super) fn py_call_name(text: &str, eof: bool) -> Step<(&str, usize)> {
    let mut c = Cursor { text, pos: 0, eof };
    let name =
        c.name(&|ch: char| !(ch.is_alphanumeric() || matches!(ch, '_' | '.' | '-' | ':')))?;
    c.ws()?;
    if !c.opt("(")? {
        return Err(Stop::Not);
    }
    Ok((name, c.pos))
}

/// Reads an argument name at the start of `text` (which starts with `arg_name_prefix`, in any of its
/// spellings) and the value
/// prefix after it; returns the name and where the value starts.
pub(super) fn param_head<'t>(syntax: &Syntax, text: &'t str, eof: bool) -> Step<(&'t str, usize)> {
    let mut c = Cursor { text, pos: 0, eof };
    if !c.opt_any(syntax.arg_name_prefixes)? {
        return Err(Stop::Not);
    }
    let key = if syntax.arg_name_suffix.is_empty() {
        c.name(&|ch| matches!(ch, '<' | '>'))?
    } else {
        let suffix = syntax.arg_name_suffix;
        let rest = c.rest();
        match find_within(rest, suffix, HEAD_LIMIT) {
            Some(at) => {
                // A `<` before the suffix is markup, not a name (the same rule as below, so that
                // every chunking decides alike).
                let key = rest[..at].trim();
                if key.is_empty() || rest[..at].contains('<') || key.contains('\n') {
                    return Err(Stop::Not);
                }
                c.pos += at + suffix.len();
                key
            }
            None if eof || rest.len() > HEAD_LIMIT + suffix.len() => return Err(Stop::Not),
            None => {
                // Markup other than the start of the suffix means this is no argument name.
                let foreign = rest
                    .match_indices('<')
                    .any(|(at, _)| !suffix.starts_with(&rest[at..]));
                return Err(if foreign { Stop::Not } else { Stop::More });
            }
        }
    };
    if !syntax.arg_value_prefix.is_empty() {
        let before = c.pos;
        if c.ws().is_err() || !c.opt(syntax.arg_value_prefix)? {
            // No value prefix: the value starts right after the name.
            c.pos = before;
        }
    }
    Ok((key, c.pos))
}
