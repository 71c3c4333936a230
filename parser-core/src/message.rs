//! The parsed message and its parts: what a whole output turns into.

/// Where the model's output starts: inside reasoning or in the answer.
///
/// Decided once per request, before the first delta, from the end of the rendered prompt, the prompt's
/// token ids, `enable_thinking`, or the family's default (see [`crate::StageDetector`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Stage {
    /// The output starts inside reasoning (the prompt opened `<think>`, or the model always thinks).
    Reasoning,
    /// The output starts in the answer (thinking is off, or the model opens reasoning itself).
    Content,
}

/// One tool call, as the model wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ToolCall {
    /// The call id: byte-exact when the model wrote one, otherwise a generated `call_…` id.
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments as JSON text, exactly as the model wrote them (never re-serialised) when the model
    /// writes JSON. Formats that write arguments another way build the JSON: one member per XML parameter
    /// (Qwen3-Coder, GLM), Python keyword arguments converted (pythonic calls). When
    /// [`valid`](Self::valid) is false this is the raw text written so far, which may not be JSON.
    pub arguments: String,
    /// False when the call was committed (its name was complete) but its arguments turned out invalid or
    /// truncated. Such a call is kept so that nothing is silently dropped; the caller decides what to do.
    pub valid: bool,
}

/// The result of parsing a whole output: reasoning, content and tool calls.
///
/// `reasoning` and `content` are `None` when they are empty or whitespace only; otherwise they hold the text
/// exactly as written (compare them after trimming).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ParsedMessage {
    /// The model's reasoning ("thinking"), if any.
    pub reasoning: Option<String>,
    /// The answer for the user, with every committed call block removed.
    pub content: Option<String>,
    /// The tool calls, in the order they were written.
    pub tool_calls: Vec<ToolCall>,
}

impl ParsedMessage {
    /// The reasoning with surrounding whitespace trimmed, as tests compare it.
    pub fn reasoning_trimmed(&self) -> Option<&str> {
        self.reasoning.as_deref().map(str::trim)
    }

    /// The content with surrounding whitespace trimmed, as tests compare it.
    pub fn content_trimmed(&self) -> Option<&str> {
        self.content.as_deref().map(str::trim)
    }
}

/// Turns accumulated text into the message convention: `None` when empty after trimming.
pub(crate) fn non_blank(text: String) -> Option<String> {
    if text.trim().is_empty() {
        None
    } else {
        Some(text)
    }
}
