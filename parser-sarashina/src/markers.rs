//! The special tokens of SoftBank Sarashina's output.

/// Starts the assistant's turn in the prompt.
pub const ASSISTANT: &str = "<|assistant|>";
/// Starts a user turn: the reply ends before one.
pub const USER: &str = "<|user|>";
/// End of sequence; dropped wherever it shows up in the output.
pub const EOS_TOKEN: &str = "</s>";
/// The end-of-sequence tokens, dropped from content.
pub const EOS: &[&str] = &[EOS_TOKEN];
/// The turn starts among the dropped tokens: the reply ends at one.
pub const TURN_STARTS: &[&str] = &[USER];
/// What the content scan drops (`</s>`) or ends the reply at (`<|user|>`).
pub const RESERVED: &[&str] = &[EOS_TOKEN, USER];
/// Opens the calls: a special token, often stripped by the server's detokenizer.
pub const TOOL_CALLS: &str = "<|tool_calls|>";
/// The call-block openers.
pub const BLOCK_OPENERS: &[&str] = &[TOOL_CALLS];
/// The family's markers, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[ASSISTANT, USER, EOS_TOKEN, TOOL_CALLS];
/// The most whitespace read before deciding whether a list of calls follows.
pub const HEAD_LIMIT: usize = 256;
/// The key of a call's function name in its dict (the parser's `Call::name`).
pub const NAME_KEY: &str = "name";
/// The key of a call's arguments in its dict (the parser's `Call::arguments`).
pub const ARGUMENTS_KEY: &str = "arguments";
/// Between two calls of the list, as Python's `repr` writes it.
pub const CALL_SEPARATOR: &str = ", ";
