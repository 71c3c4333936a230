//! The markers of GLM-4.5 / 4.6 / 4.7: each is a single token of the vocabulary (`added_tokens_decoder` of
//! the models' `tokenizer_config.json`).

/// Opens reasoning.
pub const THINK_OPEN: &str = "<think>";
/// Closes reasoning.
pub const THINK_CLOSE: &str = "</think>";
/// Starts the assistant's turn in the prompt (stage detection looks at the prompt after the last one).
pub const ASSISTANT: &str = "<|assistant|>";
/// Starts a user turn; one of the model's end-of-turn tokens.
pub const USER: &str = "<|user|>";
/// Starts a tool-result turn; the end-of-turn token after calls.
pub const OBSERVATION: &str = "<|observation|>";
/// End of text.
pub const ENDOFTEXT: &str = "<|endoftext|>";
/// The end-of-sequence tokens (`generation_config.json`'s `eos_token_id`), dropped wherever they show up
/// in the output.
pub const EOS: &[&str] = &[ENDOFTEXT, USER, OBSERVATION];

/// Starts a system turn in the prompt.
pub const SYSTEM: &str = "<|system|>";
/// Opens a tool result, which the template writes inside an observation turn.
pub const TOOL_RESPONSE: &str = "<tool_response>";
/// Closes a tool result.
pub const TOOL_RESPONSE_END: &str = "</tool_response>";
/// Tokens that start a new turn: the reply ends before one and what follows is dropped (`<|user|>` and
/// `<|observation|>` are also the model's end-of-turn tokens).
pub const TURN_STARTS: &[&str] = &[USER, OBSERVATION, SYSTEM, ASSISTANT];
/// Dropped from reasoning and content: end of text and the template's tool-result tags (the text
/// between them stays).
pub const DROPPED: &[&str] = &[ENDOFTEXT, TOOL_RESPONSE, TOOL_RESPONSE_END];
/// The content scan's reserved tokens: [`DROPPED`] and [`TURN_STARTS`].
pub const RESERVED: &[&str] = &[
    ENDOFTEXT,
    TOOL_RESPONSE,
    TOOL_RESPONSE_END,
    USER,
    OBSERVATION,
    SYSTEM,
    ASSISTANT,
];

/// Opens a call: `<tool_call>NAME`.
pub const TOOL_CALL: &str = "<tool_call>";
/// Closes a call.
pub const TOOL_CALL_END: &str = "</tool_call>";
/// Opens an argument's name.
pub const ARG_KEY: &str = "<arg_key>";
/// Closes an argument's name.
pub const ARG_KEY_END: &str = "</arg_key>";
/// Opens an argument's value.
pub const ARG_VALUE: &str = "<arg_value>";
/// Closes an argument's value.
pub const ARG_VALUE_END: &str = "</arg_value>";

/// The call-block openers that matter while reasoning is open (see `BlockInReasoning`).
pub const BLOCK_OPENERS: &[&str] = &[TOOL_CALL];

/// The family's special tokens, whole: how a server delivers them (the chunking tests push each one
/// whole, and cut the text right around it).
pub const SPECIAL_TOKENS: &[&str] = &[
    THINK_OPEN,
    THINK_CLOSE,
    ASSISTANT,
    USER,
    OBSERVATION,
    SYSTEM,
    ENDOFTEXT,
    TOOL_RESPONSE,
    TOOL_RESPONSE_END,
    TOOL_CALL,
    TOOL_CALL_END,
    ARG_KEY,
    ARG_KEY_END,
    ARG_VALUE,
    ARG_VALUE_END,
];

/// The longest function name or argument name (and the whitespace around it) read before the text is
/// taken not to be one. Every head is decided on the text seen so far, within this bound, so that every
/// chunking decides alike.
pub const HEAD_LIMIT: usize = 256;
