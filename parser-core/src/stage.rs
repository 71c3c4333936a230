//! Stage detection: does the output start inside reasoning?
//!
//! Decided from what the prompt ends with, because that is what the model saw: a prompt ending in
//! `<think>` (forced-open thinking) starts in reasoning; one ending in `</think>` (thinking disabled, e.g.
//! DeepSeek-V3.1's `<｜Assistant｜></think>` or Qwen3's `<think>\n\n</think>\n\n`) starts in the answer.

use crate::message::Stage;
use crate::options::{ParseOptions, SpecialTokens};
use crate::scanner::{Found, MarkerSet};

/// The markers a family's prompts use around reasoning, for stage detection.
#[derive(Clone, Copy, Debug)]
pub struct StageDetector {
    /// Reasoning openers (`<think>`).
    pub open: &'static [&'static str],
    /// Reasoning closers (`</think>`).
    pub close: &'static [&'static str],
    /// Markers that start the assistant's turn (`<｜Assistant｜>`, `<|im_start|>assistant`). Only the
    /// prompt after the last of these is looked at, so reasoning markers of earlier turns never count.
    pub turn_start: &'static [&'static str],
}

/// How many trailing prompt tokens are searched when no turn-start token is known.
const TRAILING_TOKENS: usize = 4;

impl StageDetector {
    /// A detector for these markers.
    pub const fn new(
        open: &'static [&'static str],
        close: &'static [&'static str],
        turn_start: &'static [&'static str],
    ) -> Self {
        StageDetector {
            open,
            close,
            turn_start,
        }
    }

    /// The stage the prompt leaves the model in, or `None` when the prompt does not say.
    ///
    /// After the last turn start, an opener not followed by a closer means reasoning, a closer means
    /// content. Without a turn start in the text, only a marker at the very end (before trailing
    /// whitespace) counts.
    ///
    /// ```
    /// use parser_core::{Stage, StageDetector};
    /// static DETECT: StageDetector = StageDetector::new(&["<think>"], &["</think>"], &["<｜Assistant｜>"]);
    /// assert_eq!(DETECT.from_prompt("<｜Assistant｜><think>\n"), Some(Stage::Reasoning));
    /// assert_eq!(DETECT.from_prompt("<｜Assistant｜></think>"), Some(Stage::Content));
    /// // A closed think block of an earlier turn does not count.
    /// assert_eq!(DETECT.from_prompt("</think>Hi<｜end▁of▁sentence｜><｜User｜>Q<｜Assistant｜>"), None);
    /// ```
    pub fn from_prompt(&self, tail: &str) -> Option<Stage> {
        let turn = self
            .turn_start
            .iter()
            .filter_map(|m| tail.rfind(m).map(|at| at + m.len()))
            .max();
        match turn {
            Some(start) => {
                let region = &tail[start..];
                let open = last_of(region, self.open);
                let close = last_of(region, self.close);
                decide(open, close)
            }
            None => {
                let trimmed = tail.trim_end();
                if self.open.iter().any(|m| trimmed.ends_with(m)) {
                    Some(Stage::Reasoning)
                } else if self.close.iter().any(|m| trimmed.ends_with(m)) {
                    Some(Stage::Content)
                } else {
                    None
                }
            }
        }
    }

    /// The same decision from the prompt's token ids, using `table` to know which ids are the markers.
    ///
    /// Only tokens after the last turn-start token count; without one, only the last few tokens.
    pub fn from_token_ids(&self, ids: &[u32], table: &SpecialTokens) -> Option<Stage> {
        let is =
            |markers: &[&str], id: u32| table.text(id).is_some_and(|text| markers.contains(&text));
        let region_start = ids
            .iter()
            .rposition(|&id| is(self.turn_start, id))
            .map(|at| at + 1)
            .unwrap_or(ids.len().saturating_sub(TRAILING_TOKENS));
        let region = &ids[region_start..];
        let open = region.iter().rposition(|&id| is(self.open, id));
        let close = region.iter().rposition(|&id| is(self.close, id));
        decide(open, close)
    }

    /// The stage for a request: the explicit stage, else the prompt tail, else the token ids, else
    /// `enable_thinking`, else `default`.
    pub fn resolve(&self, options: &ParseOptions, default: Stage) -> Stage {
        self.resolve_inner(options, default, true)
    }

    /// Like [`resolve`](Self::resolve), for models whose template has no thinking switch:
    /// `enable_thinking` is ignored.
    pub fn resolve_without_switch(&self, options: &ParseOptions, default: Stage) -> Stage {
        self.resolve_inner(options, default, false)
    }

    /// What the request says about the stage: the explicit stage, else the prompt tail, else the token
    /// ids, else `enable_thinking`; `None` when none of them says anything, and
    /// [`resolve`](Self::resolve) falls back to the family's default. A parser built on that default
    /// may tell its reasoning parser so ([`ThinkTagReasoningParser::stage_from_default`]), which then
    /// warns when the guess shows to be wrong.
    ///
    /// [`ThinkTagReasoningParser::stage_from_default`]: crate::ThinkTagReasoningParser::stage_from_default
    ///
    /// ```
    /// use parser_core::{ParseOptions, Stage, StageDetector};
    /// static DETECT: StageDetector = StageDetector::new(&["<think>"], &["</think>"], &["<｜Assistant｜>"]);
    /// assert_eq!(DETECT.from_request(&ParseOptions::new()), None);
    /// let options = ParseOptions::new().with_prompt_tail("<｜Assistant｜><think>");
    /// assert_eq!(DETECT.from_request(&options), Some(Stage::Reasoning));
    /// ```
    pub fn from_request(&self, options: &ParseOptions) -> Option<Stage> {
        self.decided_by(options, true)
    }

    /// Like [`from_request`](Self::from_request), for models whose template has no thinking switch:
    /// `enable_thinking` is ignored.
    pub fn from_request_without_switch(&self, options: &ParseOptions) -> Option<Stage> {
        self.decided_by(options, false)
    }

    fn resolve_inner(&self, options: &ParseOptions, default: Stage, switch: bool) -> Stage {
        self.decided_by(options, switch).unwrap_or(default)
    }

    fn decided_by(&self, options: &ParseOptions, switch: bool) -> Option<Stage> {
        if let Some(stage) = options.stage {
            return Some(stage);
        }
        if let Some(stage) = options
            .prompt_tail
            .as_deref()
            .and_then(|t| self.from_prompt(t))
        {
            return Some(stage);
        }
        if let (Some(ids), Some(table)) = (&options.prompt_token_ids, &options.special_tokens)
            && let Some(stage) = self.from_token_ids(ids, table)
        {
            return Some(stage);
        }
        match options.enable_thinking.filter(|_| switch) {
            Some(true) => Some(Stage::Reasoning),
            Some(false) => Some(Stage::Content),
            None => None,
        }
    }
}

/// How many trailing bytes of content a [`DefaultStageWatch`] keeps: closers up to this long are found
/// however the deltas split them.
const WATCH_TAIL: usize = 32;

/// From this length on, [`DefaultStageWatch::warned`] searches each closer as a substring.
const LONG_CONTENT: usize = 256;

/// Watches content that a reasoning parser passes through when its starting stage was a default
/// nothing in the request confirmed: a reasoning closer in it means the output started in reasoning.
/// Keeps the end of the content seen while it may be the start of a closer, so that a closer split
/// across deltas is found too.
#[derive(Clone, Debug, Default)]
pub(crate) struct DefaultStageWatch {
    tail: [u8; WATCH_TAIL],
    len: usize,
}

impl DefaultStageWatch {
    /// True when the content seen so far ends with no part of a closer: then a delta none of whose
    /// bytes can start a marker cannot complete one either (the caller's cheap test).
    pub(crate) fn idle(&self) -> bool {
        self.len == 0
    }

    /// Looks at the next piece of content; when it completes one of `closers`, logs the warning and
    /// returns `true` (the watch is then over).
    ///
    /// `closers` holds one group, the closers: the marker scanner finds a whole one in `text` (one
    /// vectorised pass over a long text, where a substring search per closer cost about twice as
    /// much), the kept tail finds one split across deltas.
    pub(crate) fn warned(&mut self, text: &str, closers: &MarkerSet) -> bool {
        let bytes = text.as_bytes();
        let seen = &self.tail[..self.len];
        let list = closers.groups().first().copied().unwrap_or_default();
        let whole = if bytes.len() >= LONG_CONTENT {
            // A long text (a one-shot parse): a substring search per closer runs near memory
            // speed, where the scanner stops at every byte that starts a closer (each `<` of the
            // prose) — the watch was a second pass at a quarter of the parse's cost.
            list.iter()
                .filter_map(|closer| {
                    memchr::memmem::find(bytes, closer.as_bytes()).map(|at| (at, *closer))
                })
                .min_by_key(|&(at, _)| at)
                .map(|(_, closer)| closer)
        } else {
            match closers.find(text, true) {
                Some(Found::Marker { group, index, .. }) => Some(closers.marker(group, index)),
                _ => None,
            }
        };
        let found = whole.or_else(|| {
            list.iter().copied().find(|closer| {
                let closer = closer.as_bytes();
                (1..closer.len()).any(|split| {
                    seen.ends_with(&closer[..split]) && bytes.starts_with(&closer[split..])
                })
            })
        });
        if let Some(marker) = found {
            tracing::warn!(
                target: "parser_core::stage",
                marker,
                "a reasoning end marker reached the content: nothing in the request said where the \
                 output starts (no stage, prompt tail, prompt token ids or enable_thinking), so it was \
                 read as starting in the answer; pass the prompt tail (or enable_thinking) to parse \
                 the reasoning"
            );
            return true;
        }
        self.remember(bytes, list);
        false
    }

    /// Keeps the longest end of the content seen (the kept tail, then `bytes`) that is a proper
    /// prefix of a closer: nothing when the content cannot be inside one.
    fn remember(&mut self, bytes: &[u8], closers: &[&str]) {
        let mut joined = [0u8; 2 * WATCH_TAIL];
        let from_bytes = bytes.len().min(WATCH_TAIL);
        let from_tail = self.len.min(WATCH_TAIL);
        joined[..from_tail].copy_from_slice(&self.tail[self.len - from_tail..self.len]);
        joined[from_tail..from_tail + from_bytes]
            .copy_from_slice(&bytes[bytes.len() - from_bytes..]);
        let joined = &joined[..from_tail + from_bytes];
        // A proper prefix is shorter than its closer: only ends up to the longest closer less one
        // byte need a look (7 for `</think>`, where every end up to the whole tail was tried).
        let longest = closers.iter().map(|closer| closer.len()).max().unwrap_or(0);
        let keep = (1..joined.len().min(WATCH_TAIL).min(longest.saturating_sub(1)) + 1)
            .rev()
            .find(|&keep| {
                let end = &joined[joined.len() - keep..];
                closers
                    .iter()
                    .any(|closer| closer.len() > keep && closer.as_bytes().starts_with(end))
            })
            .unwrap_or(0);
        let start = joined.len() - keep;
        self.tail[..keep].copy_from_slice(&joined[start..]);
        self.len = keep;
    }
}

fn last_of(text: &str, markers: &[&str]) -> Option<usize> {
    markers.iter().filter_map(|m| text.rfind(m)).max()
}

fn decide(open: Option<usize>, close: Option<usize>) -> Option<Stage> {
    match (open, close) {
        (Some(open), Some(close)) if open > close => Some(Stage::Reasoning),
        (_, Some(_)) => Some(Stage::Content),
        (Some(_), None) => Some(Stage::Reasoning),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use std::sync::Arc;

    static DETECT: StageDetector = StageDetector::new(
        &["<think>"],
        &["</think>"],
        &["<｜Assistant｜>", "<|im_start|>assistant"],
    );

    #[rstest]
    #[case("<｜User｜>Hi<｜Assistant｜><think>\n", Some(Stage::Reasoning))]
    #[case("<｜User｜>Hi<｜Assistant｜><think>", Some(Stage::Reasoning))]
    #[case("<｜User｜>Hi<｜Assistant｜></think>", Some(Stage::Content))]
    #[case("<|im_start|>assistant\n<think>\n\n</think>\n\n", Some(Stage::Content))]
    #[case("<｜Assistant｜><think>\nLet me", Some(Stage::Reasoning))]
    #[case(
        "<｜Assistant｜></think>old<｜end▁of▁sentence｜><｜User｜>Q<｜Assistant｜>",
        None
    )]
    #[case("no markers at all", None)]
    #[case("prefix <think>\n", Some(Stage::Reasoning))]
    #[case("prefix <think> then text", None)]
    fn detects_stage_from_the_prompt(#[case] tail: &str, #[case] expected: Option<Stage>) {
        assert_eq!(DETECT.from_prompt(tail), expected);
    }

    #[test]
    fn detects_stage_from_token_ids() {
        let table =
            SpecialTokens::from_pairs([(10, "<｜Assistant｜>"), (20, "<think>"), (21, "</think>")]);
        assert_eq!(
            DETECT.from_token_ids(&[1, 2, 10, 20, 99], &table),
            Some(Stage::Reasoning)
        );
        assert_eq!(
            DETECT.from_token_ids(&[1, 2, 10, 21], &table),
            Some(Stage::Content)
        );
        // A closer from an earlier turn, before the last assistant marker, does not count.
        assert_eq!(DETECT.from_token_ids(&[10, 21, 5, 6, 10], &table), None);
        // Without a turn marker only the last few tokens count.
        assert_eq!(DETECT.from_token_ids(&[20, 1, 2, 3, 4, 5], &table), None);
        assert_eq!(
            DETECT.from_token_ids(&[1, 2, 20, 7], &table),
            Some(Stage::Reasoning)
        );
    }

    #[test]
    fn resolution_order_is_explicit_prompt_ids_flag_default() {
        let table = Arc::new(SpecialTokens::from_pairs([
            (20, "<think>"),
            (21, "</think>"),
        ]));
        let base = ParseOptions::new().with_enable_thinking(Some(false));
        assert_eq!(DETECT.resolve(&base, Stage::Reasoning), Stage::Content);
        let ids = base.clone().with_prompt_token_ids(vec![1, 20], table);
        assert_eq!(DETECT.resolve(&ids, Stage::Content), Stage::Reasoning);
        let prompt = ids.clone().with_prompt_tail("x</think>");
        assert_eq!(DETECT.resolve(&prompt, Stage::Reasoning), Stage::Content);
        let explicit = prompt.with_stage(Stage::Reasoning);
        assert_eq!(DETECT.resolve(&explicit, Stage::Content), Stage::Reasoning);
        assert_eq!(
            DETECT.resolve(&ParseOptions::new(), Stage::Reasoning),
            Stage::Reasoning
        );
    }

    /// The warning of a parser whose starting stage was a default nothing in the request decided.
    mod default_stage_warning {
        use super::*;
        use crate::reasoning::{
            ReasoningParser, ReasoningSink, ReasoningSyntax, ThinkTagReasoningParser,
        };
        use std::sync::Mutex;
        use tracing::field::{Field, Visit};
        use tracing::span::{Attributes, Id, Record};
        use tracing::{Event, Metadata, Subscriber};

        static THINK: ReasoningSyntax = ReasoningSyntax::new(DETECT, &[], &[]);

        /// A minimal subscriber: keeps each event's target, level and `marker` field.
        #[derive(Default)]
        struct Capture(Arc<Mutex<Vec<String>>>);

        struct MarkerField(String);

        impl Visit for MarkerField {
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                if field.name() == "marker" {
                    self.0 = format!("{value:?}");
                }
            }
        }

        impl Subscriber for Capture {
            fn enabled(&self, _: &Metadata<'_>) -> bool {
                true
            }
            fn new_span(&self, _: &Attributes<'_>) -> Id {
                Id::from_u64(1)
            }
            fn record(&self, _: &Id, _: &Record<'_>) {}
            fn record_follows_from(&self, _: &Id, _: &Id) {}
            fn event(&self, event: &Event<'_>) {
                let mut marker = MarkerField(String::new());
                event.record(&mut marker);
                let meta = event.metadata();
                let line = format!("{} {} {}", meta.level(), meta.target(), marker.0);
                self.0.lock().unwrap().push(line);
            }
            fn enter(&self, _: &Id) {}
            fn exit(&self, _: &Id) {}
        }

        struct Text(String, String);

        impl ReasoningSink for Text {
            fn reasoning(&mut self, text: &str) {
                self.0.push_str(text);
            }
            fn content(&mut self, text: &str) {
                self.1.push_str(text);
            }
        }

        /// The events logged while `output` is pushed in pieces of `piece` characters, and the
        /// content.
        fn events(
            stage: Stage,
            from_default: bool,
            output: &str,
            piece: usize,
        ) -> (Vec<String>, String) {
            let capture = Capture::default();
            let events = Arc::clone(&capture.0);
            let content = tracing::subscriber::with_default(capture, || {
                let mut parser =
                    ThinkTagReasoningParser::new(&THINK, stage).stage_from_default(from_default);
                let mut out = Text(String::new(), String::new());
                let chars: Vec<char> = output.chars().collect();
                for chunk in chars.chunks(piece) {
                    parser.push(&chunk.iter().collect::<String>(), &mut out);
                }
                parser.finish(&mut out);
                out.1
            });
            let events = events.lock().unwrap().clone();
            (events, content)
        }

        const WARNING: &str = "WARN parser_core::stage \"</think>\"";

        #[test]
        fn a_closer_in_content_is_logged_once_per_parser_however_cut() {
            let output = "Let me see.</think>The answer.</think> And </think> again.";
            for piece in [1, 2, 3, 5, 7, output.len()] {
                let (events, content) = events(Stage::Content, true, output, piece);
                assert_eq!(events, [WARNING], "pieces of {piece}");
                // Content is passed through unchanged.
                assert_eq!(content, output, "pieces of {piece}");
            }
            // A closer at the very start, and one cut across three pushes.
            assert_eq!(events(Stage::Content, true, "</think>Hi", 1).0, [WARNING]);
            assert_eq!(events(Stage::Content, true, "a</think>", 4).0, [WARNING]);
            // Near misses before the closer, cut at every size: only the real closer counts.
            for piece in 1..=9 {
                let tricky = "x <</thi<</think>y";
                assert_eq!(
                    events(Stage::Content, true, tricky, piece).0,
                    [WARNING],
                    "{piece}"
                );
                let missed = "x <</thi<</thinky </think";
                assert!(
                    events(Stage::Content, true, missed, piece).0.is_empty(),
                    "{piece}"
                );
            }
            // A second parser warns again.
            assert_eq!(events(Stage::Content, true, output, 4).0, [WARNING]);
            // Long content (a one-shot parse is one long push): the closer found in it, near
            // misses passed over, at the start, in the middle and at the end.
            let prose = "a < b and </thin k <</th ".repeat(40);
            for long in [
                format!("</think>{prose}"),
                format!("{prose}</think>{prose}"),
                format!("{prose}</think>"),
            ] {
                for piece in [long.len(), 300, 7] {
                    assert_eq!(
                        events(Stage::Content, true, &long, piece).0,
                        [WARNING],
                        "{piece}"
                    );
                }
            }
            assert!(
                events(Stage::Content, true, &prose, prose.len())
                    .0
                    .is_empty()
            );
        }

        #[test]
        fn nothing_is_logged_when_the_request_decided_or_the_model_opened_reasoning() {
            let output = "Let me see.</think>The answer.";
            // The request decided the stage (content): the closer is the model's, no warning.
            assert!(events(Stage::Content, false, output, 3).0.is_empty());
            // The default was reasoning: the closer ends it.
            assert!(events(Stage::Reasoning, true, output, 3).0.is_empty());
            // The model opened reasoning itself.
            let opened = "<think>Let me see.</think>The answer.</think>";
            assert!(events(Stage::Content, true, opened, 2).0.is_empty());
            // No closer at all.
            assert!(
                events(Stage::Content, true, "The answer </think", 2)
                    .0
                    .is_empty()
            );
        }

        #[test]
        fn the_request_decides_or_says_nothing() {
            let nothing = ParseOptions::new();
            assert_eq!(DETECT.from_request(&nothing), None);
            assert_eq!(DETECT.from_request_without_switch(&nothing), None);
            let thinking = ParseOptions::new().with_enable_thinking(Some(true));
            assert_eq!(DETECT.from_request(&thinking), Some(Stage::Reasoning));
            assert_eq!(DETECT.from_request_without_switch(&thinking), None);
            // A prompt tail that says nothing leaves it to the default.
            let silent = ParseOptions::new().with_prompt_tail("no markers");
            assert_eq!(DETECT.from_request(&silent), None);
        }
    }
}
