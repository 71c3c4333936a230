//! The special tokens and literals of Moonshot's Kimi formats.

/// Opens reasoning (K2-Thinking, K2.5).
pub const THINK_OPEN: &str = "<think>";
/// Closes reasoning (K2-Thinking, K2.5).
pub const THINK_CLOSE: &str = "</think>";
/// Opens reasoning in Kimi-VL-Thinking's legacy spelling (U+25C1 and U+25B7).
pub const VL_THINK_OPEN: &str = "◁think▷";
/// Closes reasoning in Kimi-VL-Thinking's legacy spelling.
pub const VL_THINK_CLOSE: &str = "◁/think▷";

/// Starts the assistant's turn in the prompt (`<|im_assistant|>assistant<|im_middle|>`).
pub const ASSISTANT: &str = "<|im_assistant|>";
/// Separates a turn's role name from its body in the prompt.
pub const MIDDLE: &str = "<|im_middle|>";
/// Starts a user turn in the prompt.
pub const USER: &str = "<|im_user|>";
/// Starts a system or tool turn in the prompt.
pub const SYSTEM: &str = "<|im_system|>";
/// Ends a turn; the end-of-sequence token the model writes. Dropped wherever it shows up in the output.
pub const IM_END: &str = "<|im_end|>";

/// Tokens that start a new turn: the reply ends before one (what follows is dropped).
pub const TURN_STARTS: &[&str] = &[USER, SYSTEM, ASSISTANT];
/// Dropped from reasoning and content: end of turn, and `<|im_middle|>`, which only the template writes.
pub const DROPPED: &[&str] = &[IM_END, MIDDLE];
/// The content scan's reserved tokens: [`DROPPED`] and [`TURN_STARTS`].
pub const RESERVED: &[&str] = &[IM_END, MIDDLE, USER, SYSTEM, ASSISTANT];

/// Opens the call section, as the chat templates write it.
pub const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
/// The section opener in both spellings (the singular one is accepted by vLLM too).
pub const SECTION_BEGINS: &[&str] = &[SECTION_BEGIN, "<|tool_call_section_begin|>"];
/// Closes the call section.
pub const SECTION_END: &str = "<|tool_calls_section_end|>";
/// The section closer in both spellings.
pub const SECTION_ENDS: &[&str] = &[SECTION_END, "<|tool_call_section_end|>"];
/// Opens one call; the call's id follows.
pub const CALL_BEGIN: &str = "<|tool_call_begin|>";
/// Ends the id and starts the call's JSON arguments.
pub const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
/// Closes one call.
pub const CALL_END: &str = "<|tool_call_end|>";
/// The prefix of a call id before the function name: `functions.NAME:IDX`.
pub const ID_PREFIX: &str = "functions.";
/// Separates the function name from the call counter in an id: `functions.NAME:IDX`.
pub const ID_INDEX_SEPARATOR: &str = ":";

/// Every marker that opens a call block: while reasoning is still open, one of these ends it.
pub const BLOCK_OPENERS: &[&str] = &[SECTION_BEGIN, "<|tool_call_section_begin|>", CALL_BEGIN];

/// Special tokens of the family, whole: how a server delivers them (for chunking tests).
pub const SPECIAL_TOKENS: &[&str] = &[
    THINK_OPEN,
    THINK_CLOSE,
    VL_THINK_OPEN,
    VL_THINK_CLOSE,
    ASSISTANT,
    MIDDLE,
    USER,
    SYSTEM,
    IM_END,
    SECTION_BEGIN,
    "<|tool_call_section_begin|>",
    SECTION_END,
    "<|tool_call_section_end|>",
    CALL_BEGIN,
    ARGUMENT_BEGIN,
    CALL_END,
];

/// The longest call id (with the whitespace around it) we wait for before deciding the text is not a
/// call; also the most whitespace allowed between a section opener and its first call.
pub const HEAD_LIMIT: usize = 256;
