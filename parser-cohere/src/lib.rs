//! Cohere's reasoning and tool-call formats (Command-R7B, Command-A, Command-R / R+), for llm-parse.
//!
//! | parser | models | reasoning | content | calls |
//! |---|---|---|---|---|
//! | `command-a` | Command-R7B, Command-A (03-2025, Reasoning, Vision), the 2026 Command-A / North models | `<|START_THINKING|>…<|END_THINKING|>`, written by the model or opened by the prompt | `<|START_RESPONSE|>…<|END_RESPONSE|>` (or `<|START_TEXT|>…<|END_TEXT|>`), markers removed | `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …, "parameters": {…}}]<|END_ACTION|>` |
//! | `command-r-plus` | Command-R, Command-R+ (04 / 08-2024) | none | the answer as written (`<|CHATBOT_TOKEN|>` and `<|END_OF_TURN_TOKEN|>` removed) | ``Action:\n```json\n[{"tool_name": …, "parameters": {…}}]\n``` `` |
//!
//! The wire formats, as the model writes them after the generation prompt
//! `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>`:
//!
//! ```text
//! Command-R7B / A:  <|START_THINKING|>The user wants the weather.<|END_THINKING|><|START_ACTION|>[
//!                       {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
//!                   ]<|END_ACTION|>
//!                   <|START_THINKING|>…<|END_THINKING|><|START_RESPONSE|>It is sunny.<|END_RESPONSE|>
//! Command-A 2026:   (the prompt ends in <|START_THINKING|>, or <|START_THINKING|><|END_THINKING|> with thinking off)
//!                   The user wants the weather.<|END_THINKING|><|START_TEXT|>Let me check.<|END_TEXT|><|START_ACTION|>[…]<|END_ACTION|>
//! Command-R / R+:   Action:
//!                   ```json
//!                   [{"tool_name": "get_weather", "parameters": {"city": "Paris"}}]
//!                   ```
//! ```
//!
//! Both formats fit the generic engine (`JSON_NATIVE` calls in an array inside section markers), so this
//! crate is data: one [`parser_generic::spec::Analysis`] per parser, run by [`parser_generic`], which also builds the grammar of a request from the same spec.
//!
//! - The action array's `tool_call_id` comes back as the call's id, as written (`"0"`, `"1"`, …).
//!   Each element is read on its own: a malformed element is an invalid call (or content when it
//!   breaks before its name) and its siblings are still calls.
//! - Citation spans of grounded answers (`<co>…</co: 0:[1]>`) are content as written: the message has
//!   no field for the document references they carry.
//! - `<|END_OF_TURN_TOKEN|>` is dropped; the content markers are removed wherever they appear outside a
//!   call.
//!
//! # Stage
//! `command-a`: the output starts inside reasoning when the prompt's tail (after the last
//! `<|CHATBOT_TOKEN|>`) opened `<|START_THINKING|>` without closing it (the 2026 templates); otherwise it
//! starts as content and a `<|START_THINKING|>` at the very start of the output opens reasoning (R7B,
//! Command-A). `command-r-plus` has no reasoning.
//!
//! # Calls while reasoning is open
//! An action block while reasoning is still open is held: if it ends the output it is a call, otherwise
//! reasoning text.
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new()
//!     .with_prompt_tail("<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Weather?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>");
//! let message = parser_cohere::command_a(&options).parse(concat!(
//!     "<|START_THINKING|>The user wants the weather.<|END_THINKING|>",
//!     "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants the weather."));
//! assert_eq!(message.tool_calls[0].id, "0");
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//!
//! let message = parser_cohere::command_r_plus(&ParseOptions::new()).parse(
//!     "Action:\n```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]\n```",
//! );
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, ContentMode, JsonFields, Markers, ReasoningMode, ToolFormat};

/// The end of the generation prompt of every Cohere chat template.
pub const GENERATION_PROMPT: &str = "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
/// The end-of-turn token.
pub const END_OF_TURN: &str = "<|END_OF_TURN_TOKEN|>";

/// Command-R7B / Command-A: `<|START_THINKING|>` reasoning, `<|START_RESPONSE|>` content and
/// `<|START_ACTION|>` arrays of `{"tool_call_id", "tool_name", "parameters"}`.
pub fn command_a_spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        content: ContentMode::AlwaysWrapped,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            reasoning_start: "<|START_THINKING|>".into(),
            reasoning_end: "<|END_THINKING|>".into(),
            content_start: "<|START_RESPONSE|>".into(),
            content_end: "<|END_RESPONSE|>".into(),
            tool_section_start: "<|START_ACTION|>".into(),
            tool_section_end: "<|END_ACTION|>".into(),
            call_separator: ",\n    ".into(),
            ..Markers::default()
        },
        json: JsonFields {
            name_field: "tool_name".into(),
            args_field: "parameters".into(),
            gen_id_field: "tool_call_id".into(),
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: GENERATION_PROMPT.into(),
        turn_start: vec![GENERATION_PROMPT.into()],
        // The 2026 templates' content markers, dropped like the end of the turn.
        end_of_turn: vec![
            END_OF_TURN.into(),
            "<|START_TEXT|>".into(),
            "<|END_TEXT|>".into(),
        ],
        ..Analysis::default()
    }
}

/// Command-R / R+: ``Action:\n```json\n[{"tool_name", "parameters"}]\n``` `` calls, no reasoning.
pub fn command_r_plus_spec() -> Analysis {
    Analysis {
        content: ContentMode::AlwaysWrapped,
        tools: ToolFormat::JsonNative,
        markers: Markers {
            content_start: "<|CHATBOT_TOKEN|>".into(),
            content_end: END_OF_TURN.into(),
            tool_section_start: "Action:\n```json\n".into(),
            tool_section_end: "\n```".into(),
            ..Markers::default()
        },
        json: JsonFields {
            name_field: "tool_name".into(),
            args_field: "parameters".into(),
            array_wrapped: true,
            ..JsonFields::default()
        },
        generation_prompt: GENERATION_PROMPT.into(),
        end_of_turn: vec![END_OF_TURN.into()],
        ..Analysis::default()
    }
}

static COMMAND_A: DataParser = DataParser::new("command-a", command_a_spec);
static COMMAND_R_PLUS: DataParser = DataParser::new("command-r-plus", command_r_plus_spec);

/// Every marker of `command-a`, whole (the chunking tests push each one whole).
pub const COMMAND_A_TOKENS: &[&str] = &[
    "<|START_THINKING|>",
    "<|END_THINKING|>",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
    "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
];

/// Every marker of `command-r-plus`, whole.
pub const COMMAND_R_PLUS_TOKENS: &[&str] = &[
    "<|CHATBOT_TOKEN|>",
    "<|END_OF_TURN_TOKEN|>",
    "Action:\n```json",
    "```",
    "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
];

/// The `command-a` parser for one request.
pub fn command_a(options: &ParseOptions) -> Parser {
    COMMAND_A.parser(options)
}

/// The `command-r-plus` parser for one request.
pub fn command_r_plus(options: &ParseOptions) -> Parser {
    COMMAND_R_PLUS.parser(options)
}

/// The grammar of one request for `command-a`, from the same spec.
pub fn command_a_constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    COMMAND_A.constraint(options, request)
}

/// The grammar of one request for `command-r-plus`, from the same spec.
pub fn command_r_plus_constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    COMMAND_R_PLUS.constraint(options, request)
}

/// The data parsers, for tests that compare their specs and tokens with the entries.
pub fn data_parsers() -> [&'static DataParser; 2] {
    [&COMMAND_A, &COMMAND_R_PLUS]
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "command-a",
        family: "cohere",
        aliases: &["cohere_command3", "cohere_command4", "command_r7b", "cohere", "cohere_cmd", "command-r7b", "command-a-reasoning", "cohere2moe"],
        models: &["command-r7b", "command-a", "c4ai-command-a"],
        summary: "Command-R7B / Command-A: <|START_THINKING|> reasoning, <|START_RESPONSE|> content, <|START_ACTION|>[{tool_call_id, tool_name, parameters}] calls",
        sample: "<|START_THINKING|>The user wants the weather in Paris.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>",
        sample_prompt_tail: "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Weather in Paris?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        special_tokens: COMMAND_A_TOKENS,
        build: command_a,
    }
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "command-r-plus",
        family: "cohere",
        aliases: &["command_r_plus", "command-r", "command_r"],
        models: &["command-r", "command-r-plus"],
        summary: "Command-R / R+: Action: ```json [{tool_name, parameters}] ``` calls, no reasoning",
        sample: "Action:\n```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]\n```",
        sample_prompt_tail: "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Weather in Paris?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        special_tokens: COMMAND_R_PLUS_TOKENS,
        build: command_r_plus,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "command-a", build: command_a_constraint }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "command-r-plus", build: command_r_plus_constraint }
}
