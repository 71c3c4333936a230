//! The tags and special tokens of the Qwen formats (ChatML turns, `<think>` reasoning, Hermes-style and
//! Qwen3-Coder XML calls).

/// Opens reasoning.
pub const THINK_OPEN: &str = "<think>";
/// Closes reasoning.
pub const THINK_CLOSE: &str = "</think>";
/// Starts a ChatML turn.
pub const IM_START: &str = "<|im_start|>";
/// Starts the assistant's turn in the prompt.
pub const ASSISTANT: &str = "<|im_start|>assistant";
/// Ends a ChatML turn; dropped wherever it shows up in the output.
pub const IM_END: &str = "<|im_end|>";
/// End of text; dropped wherever it shows up in the output.
pub const ENDOFTEXT: &str = "<|endoftext|>";
/// The end-of-sequence tokens, dropped from reasoning, content and call blocks.
pub const EOS: &[&str] = &[IM_END, ENDOFTEXT];

/// Opens a tool result in the prompt (a user turn); a special token the template writes, never the model.
pub const TOOL_RESPONSE: &str = "<tool_response>";
/// Closes a tool result in the prompt.
pub const TOOL_RESPONSE_END: &str = "</tool_response>";
/// Tokens that start a new turn: the reply ends before one (what follows is dropped).
pub const TURN_STARTS: &[&str] = &[IM_START];
/// Dropped from reasoning and content: the end-of-sequence tokens and the template's tool-result tags
/// (the text between them stays).
pub const DROPPED: &[&str] = &[IM_END, ENDOFTEXT, TOOL_RESPONSE, TOOL_RESPONSE_END];
/// The content scan's reserved tokens: [`DROPPED`] and [`TURN_STARTS`].
pub const RESERVED: &[&str] = &[
    IM_END,
    ENDOFTEXT,
    TOOL_RESPONSE,
    TOOL_RESPONSE_END,
    IM_START,
];

/// Opens a call block (both shapes).
pub const TOOL_CALL: &str = "<tool_call>";
/// Closes a call block.
pub const TOOL_CALL_END: &str = "</tool_call>";
/// Qwen3-Coder: opens a call, `<function=NAME>`.
pub const FUNCTION: &str = "<function=";
/// Qwen3-Coder: closes a call.
pub const FUNCTION_END: &str = "</function>";
/// Qwen3-Coder: opens a parameter, `<parameter=KEY>`.
pub const PARAMETER: &str = "<parameter=";
/// Qwen3-Coder: closes a parameter.
pub const PARAMETER_END: &str = "</parameter>";

/// The call-block openers that matter while reasoning is open, for the Hermes-style parsers.
pub const HERMES_BLOCK_OPENERS: &[&str] = &[TOOL_CALL];
/// The call-block openers that matter while reasoning is open, for the XML parsers (which also accept a
/// `<function=NAME>` without the `<tool_call>` wrapper).
pub const XML_BLOCK_OPENERS: &[&str] = &[TOOL_CALL, FUNCTION];

/// The family's markers, whole: how a server delivers its special tokens (for chunking tests). The XML
/// tags are not single tokens in Qwen's vocabulary; they are listed so that tests also cut the text
/// right around them.
pub const SPECIAL_TOKENS: &[&str] = &[
    THINK_OPEN,
    THINK_CLOSE,
    IM_START,
    IM_END,
    ENDOFTEXT,
    TOOL_RESPONSE,
    TOOL_RESPONSE_END,
    TOOL_CALL,
    TOOL_CALL_END,
    FUNCTION,
    FUNCTION_END,
    PARAMETER,
    PARAMETER_END,
];

/// The longest call head (whitespace after `<tool_call>`, a function name, a parameter key) read before
/// the text is taken not to be one. Every head is decided on the text seen so far, within this bound, so
/// that every chunking decides alike.
pub const HEAD_LIMIT: usize = 256;
