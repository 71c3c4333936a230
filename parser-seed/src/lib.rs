//! ByteDance Seed-OSS's reasoning and tool-call format (Seed-OSS-36B-Instruct / -Base), for llm-parse.
//!
//! | parser | models | reasoning | calls |
//! |---|---|---|---|
//! | `seed-oss` | Seed-OSS-36B | `<seed:think>` written by the model, with budget reflections (`<seed:cot_budget_reflect>…</seed:cot_budget_reflect>`) inside; a thinking budget of 0 renders a closed block into the prompt | `<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter>…</function></seed:tool_call>`, one block per call, values typed by the tool schema |
//!
//! The wire format, as the model writes it after the generation prompt `<seed:bos>assistant\n`:
//!
//! ```text
//! <seed:think>The user wants the weather.
//! <seed:cot_budget_reflect>I have used 131 tokens, and there are 381 tokens remaining for use.</seed:cot_budget_reflect>
//! One call will do.</seed:think>
//! <seed:tool_call>
//! <function=get_weather>
//! <parameter=city>Paris</parameter>
//! <parameter=days>3</parameter>
//! </function>
//! </seed:tool_call><seed:eos>
//! ```
//!
//! Budget reflections are part of the reasoning: they stay in the reasoning text, tags included (as
//! vLLM's `seed_oss` reasoning parser leaves them). Values are strings unless the request's tool schema
//! types their parameter; one framing newline at each end of a value is removed. `<seed:eos>` is
//! dropped.
//!
//! The format is **data**: a hand-written [`spec`] run by the generic engine of `parser-generic`
//! (`TAG_WITH_TAGGED`, Qwen3-Coder's XML in `<seed:…>` wrappers), which also gives its grammar
//! ([`constraint`]).
//!
//! # Stage
//! The generation prompt leaves the model in the answer; a `<seed:think>` at the very start of the
//! output opens reasoning. With `thinking_budget = 0` the template writes
//! `<seed:think>\n<seed:cot_budget_reflect>…</seed:cot_budget_reflect>\n</seed:think>` into the prompt:
//! a prompt tail with the closed block starts in the answer, one ending in `<seed:think>` in reasoning.
//! A call block while reasoning is open is held: calls if it ends the output, reasoning text otherwise
//! (the model quoting the format while it thinks).
//!
//! ```
//! use parser_core::ParseOptions;
//!
//! let options = ParseOptions::new().with_prompt_tail("<seed:bos>user\nWeather in Paris?<seed:eos><seed:bos>assistant\n");
//! let message = parser_seed::seed_oss(&options).parse(concat!(
//!     "<seed:think>The user wants Paris.</seed:think>\n",
//!     "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
//! ));
//! assert_eq!(message.reasoning.as_deref(), Some("The user wants Paris."));
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use parser_core::constraint::{Constraint, ConstraintEntry, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser, ParserEntry};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};

/// The format, as data for the generic engine.
pub fn spec() -> Analysis {
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers {
            reasoning_start: "<seed:think>".into(),
            reasoning_end: "</seed:think>".into(),
            per_call_start: "<seed:tool_call>".into(),
            per_call_end: "</seed:tool_call>".into(),
            ..Markers::qwen3_coder_xml()
        },
        generation_prompt: "<seed:bos>assistant\n".into(),
        turn_start: vec!["<seed:bos>assistant".into()],
        end_of_turn: vec!["<seed:eos>".into()],
        ..Analysis::default()
    }
}

/// The registered parser, built from [`spec`] on first use.
pub static SEED_OSS: DataParser = DataParser::new("seed-oss", spec);

/// Every marker of the format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS: &[&str] = &[
    "<seed:think>",
    "</seed:think>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<function=",
    ">",
    "</function>",
    "<parameter=",
    "</parameter>",
    "<seed:eos>",
];

/// The `seed-oss` parser for one request.
pub fn seed_oss(options: &ParseOptions) -> Parser {
    SEED_OSS.parser(options)
}

/// The `seed-oss` grammar for one request (constrained decoding), from the same spec.
pub fn constraint(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    SEED_OSS.constraint(options, request)
}

parser_core::inventory::submit! {
    ParserEntry {
        name: "seed-oss",
        family: "seed",
        // vLLM `seed_oss` (tool and reasoning), llama.cpp's `seed_oss` handler.
        aliases: &["seed_oss", "seed-oss-36b", "bytedance-seed"],
        models: &["seed-oss"],
        summary: "Seed-OSS: <seed:think> by the model (budget reflections inside), <seed:tool_call><function=NAME><parameter=KEY> calls typed by the tool schema",
        sample: "<seed:think>The user wants the weather in Paris.\n<seed:cot_budget_reflect>I have used 12 tokens, and there are 500 tokens remaining for use.</seed:cot_budget_reflect>\nOne call.</seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>",
        sample_prompt_tail: "<seed:bos>user\nWeather in Paris for three days?<seed:eos><seed:bos>assistant\n",
        special_tokens: SPECIAL_TOKENS,
        build: seed_oss,
    }
}

parser_core::inventory::submit! {
    ConstraintEntry { parser: "seed-oss", build: constraint }
}
