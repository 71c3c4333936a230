//! The special tokens and literals of the harmony format (tokenizer `o200k_harmony`).

/// Starts a message: `<|start|>` ROLE-OR-RECIPIENT HEADER `<|message|>` BODY.
pub const START: &str = "<|start|>";
/// Starts the channel name in a header.
pub const CHANNEL: &str = "<|channel|>";
/// Starts the content type in a header (`<|constrain|>json`).
pub const CONSTRAIN: &str = "<|constrain|>";
/// Separates the header from the body.
pub const MESSAGE: &str = "<|message|>";
/// Ends a message; more messages may follow (not a stop token).
pub const END: &str = "<|end|>";
/// Ends a tool-call message (a stop token).
pub const CALL: &str = "<|call|>";
/// Ends the final answer (a stop token).
pub const RETURN: &str = "<|return|>";
/// End of text; a stop token of some configurations. Ends a message like [`END`].
pub const END_OF_TEXT: &str = "<|endoftext|>";
/// Start of text; never written by the model, listed for completeness.
pub const START_OF_TEXT: &str = "<|startoftext|>";
/// The recipient attribute in a header: `to=functions.NAME`, `to=browser.search`, `to=python`.
pub const RECIPIENT: &str = "to=";
/// The namespace of the request's functions: a recipient under it is a tool call.
pub const FUNCTIONS: &str = "functions.";

/// The channel whose messages are reasoning.
pub const ANALYSIS: &str = "analysis";
/// The channel of tool calls and of preambles (commentary without a recipient).
pub const COMMENTARY: &str = "commentary";
/// The channel of the answer.
pub const FINAL: &str = "final";

/// Markers that end a message explicitly; they are consumed with it.
pub const TERMINATORS: &[&str] = &[END, CALL, RETURN, END_OF_TEXT];

/// Every special token of the format, whole: how a server delivers them (for chunking tests).
pub const SPECIAL_TOKENS: &[&str] = &[
    START,
    CHANNEL,
    CONSTRAIN,
    MESSAGE,
    END,
    CALL,
    RETURN,
    END_OF_TEXT,
    START_OF_TEXT,
];

/// The special tokens' ids in `o200k_harmony`, for stage detection from prompt token ids
/// (`parser_core::SpecialTokens::from_pairs(TOKEN_IDS.iter().copied())`).
pub const TOKEN_IDS: &[(u32, &str)] = &[
    (199_998, START_OF_TEXT),
    (199_999, END_OF_TEXT),
    (200_002, RETURN),
    (200_003, CONSTRAIN),
    (200_005, CHANNEL),
    (200_006, START),
    (200_007, END),
    (200_008, MESSAGE),
    (200_012, CALL),
];

/// The longest header we wait for (from its first byte to `<|message|>`), in bytes. A longer one is not a
/// header: its opener is kept as content, raw, and the text after it is read as message text.
pub const HEADER_LIMIT: usize = 256;
