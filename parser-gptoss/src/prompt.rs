//! Where the output starts, from the request: normally at a header (the prompt ends with
//! `<|start|>assistant`), or inside a message the prompt already began (prefilled).

use parser_core::{ParseOptions, SpecialTokens, Stage, Tools};

use crate::header::{self, Field, Kind};
use crate::markers::*;
use crate::policy::HarmonyPolicy;

/// The state of the output's first byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Start {
    /// At a header, or text with no header (content).
    Lead,
    /// Inside the body of a text message.
    Body(Field),
    /// Inside the body of a call the prompt began: its arguments.
    Call(String),
    /// Inside a header the prompt began (no `<|message|>` yet): the header text so far.
    Header(String),
}

impl Start {
    /// The stage reported for this start.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Start::Body(Field::Reasoning) => Stage::Reasoning,
            _ => Stage::Content,
        }
    }
}

/// The start for a request: the explicit stage (`Reasoning`: inside an analysis body; `Content`: at a
/// header), else the prompt tail, else the prompt token ids, else at a header.
pub(crate) fn start(options: &ParseOptions, policy: &HarmonyPolicy) -> Start {
    if let Some(stage) = options.stage {
        return match stage {
            Stage::Reasoning => Start::Body(Field::Reasoning),
            Stage::Content => Start::Lead,
        };
    }
    if let Some(start) = options
        .prompt_tail
        .as_deref()
        .and_then(|tail| from_prompt(tail, policy, options.tools.as_deref()))
    {
        return start;
    }
    if let (Some(ids), Some(table)) = (&options.prompt_token_ids, &options.special_tokens)
        && let Some(start) = from_token_ids(ids, table)
    {
        return start;
    }
    Start::Lead
}

/// The start from the end of the rendered prompt: what follows its last `<|start|>`.
///
/// - a terminated message, or a role other than `assistant`: at a header;
/// - `assistant` and a complete header (`<|message|>`): inside that message's body;
/// - `assistant` and the beginning of a header (a channel, a recipient or a content type, bounded): inside
///   that header;
/// - just `assistant` (the usual generation prompt): at a header.
///
/// `None` when the tail holds no `<|start|>`.
pub(crate) fn from_prompt(
    tail: &str,
    policy: &HarmonyPolicy,
    tools: Option<&Tools>,
) -> Option<Start> {
    let at = tail.rfind(START)?;
    let region = &tail[at + START.len()..];
    if TERMINATORS.iter().any(|t| region.contains(t)) || !region.starts_with("assistant") {
        return Some(Start::Lead);
    }
    if let Some(message) = region.find(MESSAGE) {
        if message + START.len() > HEADER_LIMIT {
            return Some(Start::Lead);
        }
        let header = header::parse(&region[..message]);
        return Some(match header::decide(&header, policy, tools) {
            Kind::Text(field) => Start::Body(field),
            Kind::Call(name) => Start::Call(name.to_owned()),
            // The region starts with `assistant` (checked above) and has no `<|start|>`: no other role.
            Kind::NewTurn => Start::Lead,
        });
    }
    let begun = [CHANNEL, CONSTRAIN, RECIPIENT]
        .iter()
        .any(|m| region.contains(m));
    if begun && region.len() <= HEADER_LIMIT {
        Some(Start::Header(region.to_owned()))
    } else {
        Some(Start::Lead)
    }
}

/// The start from the prompt's token ids: after the last `<|start|>`, a `<|message|>` with no terminator
/// after it means the prompt opened a body. The channel name is ordinary text, not a special token, so it
/// cannot be read from the table; the body is taken to be `analysis`, the channel servers prefill.
pub(crate) fn from_token_ids(ids: &[u32], table: &SpecialTokens) -> Option<Start> {
    let is = |id: u32, markers: &[&str]| table.text(id).is_some_and(|t| markers.contains(&t));
    let last_start = ids.iter().rposition(|&id| is(id, &[START]))?;
    let region = &ids[last_start + 1..];
    if region.iter().any(|&id| is(id, TERMINATORS)) {
        return Some(Start::Lead);
    }
    if region.iter().any(|&id| is(id, &[MESSAGE])) {
        return Some(Start::Body(Field::Reasoning));
    }
    Some(Start::Lead)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Preamble;

    #[test]
    fn prompt_tails() {
        let policy = HarmonyPolicy::default();
        let cases = [
            (
                "<|start|>user<|message|>Hi<|end|><|start|>assistant",
                Some(Start::Lead),
            ),
            (
                "<|start|>assistant<|channel|>analysis<|message|>",
                Some(Start::Body(Field::Reasoning)),
            ),
            (
                "<|start|>assistant<|channel|>final<|message|>Sure",
                Some(Start::Body(Field::Content)),
            ),
            (
                "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>",
                Some(Start::Call("f".to_owned())),
            ),
            (
                "<|start|>assistant<|channel|>analysis",
                Some(Start::Header("assistant<|channel|>analysis".to_owned())),
            ),
            (
                "<|start|>assistant<|channel|>analysis<|message|>done<|end|>",
                Some(Start::Lead),
            ),
            ("<|start|>user<|message|>Hi", Some(Start::Lead)),
            ("no harmony here", None),
        ];
        for (tail, want) in cases {
            assert_eq!(from_prompt(tail, &policy, None), want, "{tail:?}");
        }
        let preamble = HarmonyPolicy::default().with_preamble(Preamble::Reasoning);
        assert_eq!(
            from_prompt(
                "<|start|>assistant<|channel|>commentary<|message|>",
                &preamble,
                None
            ),
            Some(Start::Body(Field::Reasoning))
        );
    }

    #[test]
    fn token_ids() {
        let table = SpecialTokens::from_pairs(TOKEN_IDS.iter().copied());
        let open = [200_006, 1, 200_005, 2, 200_008];
        assert_eq!(
            from_token_ids(&open, &table),
            Some(Start::Body(Field::Reasoning))
        );
        assert_eq!(
            from_token_ids(&[200_006, 1, 200_008, 3, 200_007, 200_006, 1], &table),
            Some(Start::Lead)
        );
        assert_eq!(from_token_ids(&[1, 2, 3], &table), None);
    }
}
