//! Reading one message header (the text between a message's first byte and `<|message|>`) and deciding
//! where the message goes.
//!
//! A header is only read once it is complete (its `<|message|>` has been seen within
//! [`HEADER_LIMIT`] bytes), so the decision depends on the header alone,
//! never on how the output was chunked.

use parser_core::{Tools, is_ws};

use crate::markers::*;
use crate::policy::{BuiltinTools, HarmonyPolicy, Preamble};

/// The parts of a header that decide where its message goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Header<'t> {
    /// The word after `<|channel|>` (the last one, if the model wrote several).
    pub channel: Option<&'t str>,
    /// The word after `to=` (in the role part or the channel part).
    pub recipient: Option<&'t str>,
    /// The first bare word after `<|start|>`: the author of the message (`assistant`, `user`,
    /// `functions.NAME` for a tool result). None when the header has no `<|start|>`.
    pub role: Option<&'t str>,
}

/// The role of the model's own messages.
const ASSISTANT_ROLE: &str = "assistant";

/// Which field a text message goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Reasoning,
    Content,
}

/// What a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind<'t> {
    /// Text for a field.
    Text(Field),
    /// A tool call with this name; the body is its arguments.
    Call(&'t str),
    /// A message by someone other than the assistant (a user, system or developer turn, a tool result):
    /// the model ran on into the next turn, so the output ends before it.
    NewTurn,
}

/// Reads a header: `[<|start|>] {WS | <|channel|>WORD | to=WORD | <|constrain|>WORD | WORD}`, where a
/// word runs up to whitespace or `<`. After `<|start|>` the first bare word is the role; other bare
/// words (a content type `json`) are skipped.
pub(crate) fn parse(text: &str) -> Header<'_> {
    let mut header = Header::default();
    let mut rest = text.strip_prefix(START).unwrap_or(text);
    if rest.len() < text.len() {
        // The role part: `<|start|>ROLE`, the role a bare word before any marker.
        let role = word(rest.trim_start_matches(|c: char| c.is_ascii() && is_ws(c as u8))).0;
        header.role = Some(role).filter(|role| !role.is_empty());
    }
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii() && is_ws(c as u8));
        if rest.is_empty() {
            return header;
        }
        if let Some(after) = rest.strip_prefix(CHANNEL) {
            let (word, after) = word(after.trim_start_matches(is_space));
            header.channel = Some(word).filter(|w| !w.is_empty());
            rest = after;
        } else if let Some(after) = rest.strip_prefix(CONSTRAIN) {
            rest = word(after.trim_start_matches(is_space)).1;
        } else if let Some(after) = rest.strip_prefix(RECIPIENT) {
            let (word, after) = word(after);
            header.recipient = Some(word).filter(|w| !w.is_empty());
            rest = after;
        } else {
            let (word, after) = word(rest);
            rest = if word.is_empty() {
                // A `<` that starts no known marker, or a non-ASCII space (U+00A0, U+0085, …) that the
                // trim above leaves and `word` stops at: skip that one character.
                &rest[rest.chars().next().map_or(0, char::len_utf8)..]
            } else {
                after
            };
        }
    }
}

fn is_space(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The word at the start of `text` (up to whitespace or `<`), and the rest.
fn word(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(text.len());
    text.split_at(end)
}

/// A function name: non-empty, bounded, no whitespace or markup.
pub(crate) fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= HEADER_LIMIT
        && !name.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '{' | '}' | '"' | '`')
        })
}

/// Where a message with this header goes, under `policy`.
///
/// - `to=functions.NAME` (any channel): a call to NAME.
/// - `to=NAME` where the request's `tools` declare NAME: a call to NAME (issue 18: the model sometimes
///   leaves out the `functions.` namespace; a declared name is the request's tool whatever the prefix).
/// - any other recipient (`browser.search`, `python`, …): a built-in tool, reasoning by default, or a call
///   named after the whole recipient under [`BuiltinTools::Calls`].
/// - `analysis`: reasoning; `commentary` (a preamble): content by default, reasoning under
///   [`Preamble::Reasoning`]; `final`, an unknown channel or none: content.
pub(crate) fn decide<'t>(
    header: &Header<'t>,
    policy: &HarmonyPolicy,
    tools: Option<&Tools>,
) -> Kind<'t> {
    if header.role.is_some_and(|role| role != ASSISTANT_ROLE) {
        return Kind::NewTurn;
    }
    if let Some(recipient) = header.recipient {
        if let Some(name) = recipient.strip_prefix(FUNCTIONS)
            && is_name(name)
        {
            return Kind::Call(name);
        }
        if is_name(recipient) && tools.is_some_and(|tools| tools.get(recipient).is_some()) {
            return Kind::Call(recipient);
        }
        return match policy.builtin_tools {
            BuiltinTools::Calls if is_name(recipient) => Kind::Call(recipient),
            _ => Kind::Text(Field::Reasoning),
        };
    }
    match header.channel {
        Some(ANALYSIS) => Kind::Text(Field::Reasoning),
        Some(COMMENTARY) if policy.preamble == Preamble::Reasoning => Kind::Text(Field::Reasoning),
        _ => Kind::Text(Field::Content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'t>(channel: Option<&'t str>, recipient: Option<&'t str>) -> Header<'t> {
        Header {
            channel,
            recipient,
            role: None,
        }
    }

    #[test]
    fn reads_every_header_shape() {
        let cases = [
            ("<|channel|>analysis", header(Some("analysis"), None)),
            (
                "<|channel|>commentary to=functions.get_weather <|constrain|>json",
                header(Some("commentary"), Some("functions.get_weather")),
            ),
            (
                "<|channel|>commentary to=functions.f<|constrain|>json",
                header(Some("commentary"), Some("functions.f")),
            ),
            (
                "<|start|>assistant to=functions.f<|channel|>commentary json",
                Header {
                    role: Some("assistant"),
                    ..header(Some("commentary"), Some("functions.f"))
                },
            ),
            (
                "<|start|>user",
                Header {
                    role: Some("user"),
                    ..header(None, None)
                },
            ),
            (
                "<|start|>functions.lookup to=assistant<|channel|>commentary",
                Header {
                    role: Some("functions.lookup"),
                    ..header(Some("commentary"), Some("assistant"))
                },
            ),
            ("<|start|><|channel|>final", header(Some("final"), None)),
            (
                " to=functions.f<|channel|>analysis",
                header(Some("analysis"), Some("functions.f")),
            ),
            (
                "<|channel|>analysis to=browser.search",
                header(Some("analysis"), Some("browser.search")),
            ),
            ("assistant", header(None, None)),
            ("", header(None, None)),
            ("<|channel|>", header(None, None)),
            ("<weird> to=", header(None, None)),
            ("<|channel|>final ", header(Some("final"), None)),
            // Non-ASCII spaces (found by the fuzzer: they used to panic on a char boundary).
            ("\u{a0}", header(None, None)),
            ("<|channel|>\u{85}analysis", header(None, None)),
            (
                "<|channel|>final\u{2028}to=functions.f",
                header(Some("final"), Some("functions.f")),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), want, "{text:?}");
        }
    }

    #[test]
    fn decides_by_recipient_then_channel() {
        let default = HarmonyPolicy::default();
        let surfaced = HarmonyPolicy::default()
            .with_builtin_tools(BuiltinTools::Calls)
            .with_preamble(Preamble::Reasoning);
        let call = header(Some("commentary"), Some("functions.get_weather"));
        assert_eq!(decide(&call, &default, None), Kind::Call("get_weather"));
        let browser = header(Some("analysis"), Some("browser.search"));
        assert_eq!(
            decide(&browser, &default, None),
            Kind::Text(Field::Reasoning)
        );
        assert_eq!(
            decide(&browser, &surfaced, None),
            Kind::Call("browser.search")
        );
        let preamble = header(Some("commentary"), None);
        assert_eq!(
            decide(&preamble, &default, None),
            Kind::Text(Field::Content)
        );
        assert_eq!(
            decide(&preamble, &surfaced, None),
            Kind::Text(Field::Reasoning)
        );
        let empty_name = header(Some("commentary"), Some("functions."));
        assert_eq!(
            decide(&empty_name, &default, None),
            Kind::Text(Field::Reasoning)
        );
        assert_eq!(
            decide(&header(None, None), &default, None),
            Kind::Text(Field::Content)
        );
    }
}
