//! Stage detection: does the output start inside reasoning?
//!
//! Decided from what the prompt ends with, because that is what the model saw: a prompt ending in
//! `<think>` (forced-open thinking) starts in reasoning; one ending in `</think>` (thinking disabled, e.g.
//! DeepSeek-V3.1's `<｜Assistant｜></think>` or Qwen3's `<think>\n\n</think>\n\n`) starts in the answer.

use crate::message::Stage;
use crate::options::{ParseOptions, SpecialTokens};

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

    fn resolve_inner(&self, options: &ParseOptions, default: Stage, switch: bool) -> Stage {
        if let Some(stage) = options.stage {
            return stage;
        }
        if let Some(stage) = options
            .prompt_tail
            .as_deref()
            .and_then(|t| self.from_prompt(t))
        {
            return stage;
        }
        if let (Some(ids), Some(table)) = (&options.prompt_token_ids, &options.special_tokens)
            && let Some(stage) = self.from_token_ids(ids, table)
        {
            return stage;
        }
        match options.enable_thinking.filter(|_| switch) {
            Some(true) => Stage::Reasoning,
            Some(false) => Stage::Content,
            None => default,
        }
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
}
