//! MiniCPM-V (`minicpmv`): Qwen3's format, read by the generic engine, with the newlines the
//! tokenizer writes out restored in reasoning and content ([`crate::newlines`]).

use parser_core::constraint::{Constraint, ConstraintRequest};
use parser_core::{Deltas, Error, OutputParser, ParseOptions, Parser, Sink, Stage};
use parser_generic::DataParser;
use parser_generic::spec::{Analysis, Capabilities, Markers, ReasoningMode, ToolFormat};

use crate::newlines::Restoring;

/// The format of MiniCPM-V, as data for the generic engine: Qwen3's `<think>` (off unless the request
/// turns `enable_thinking` on) and Qwen3-Coder's XML calls. The newline restoring is not data: it is
/// [`minicpmv`]'s wrapper.
pub fn spec_v() -> Analysis {
    // `<|im_end|>` and the reserved tokens, which are dropped wherever they stand.
    let end_of_turn = SPECIAL_TOKENS_V[DROPPED..]
        .iter()
        .map(|token| token.to_string())
        .collect();
    Analysis {
        reasoning: ReasoningMode::TagBased,
        tools: ToolFormat::TagWithTagged,
        markers: Markers::qwen3_coder_xml(),
        capabilities: Capabilities {
            thinking_variable: Some("enable_thinking".into()),
            thinking_default: Some(false),
            ..Capabilities::default()
        },
        generation_prompt: "<|im_start|>assistant\n".into(),
        generation_prompt_no_thinking: Some(
            "<|im_start|>assistant\n<think>\n\n</think>\n\n".into(),
        ),
        turn_start: vec!["<|im_start|>assistant".into()],
        end_of_turn,
        ..Analysis::default()
    }
}

/// The spec's engine (its parser is wrapped by [`minicpmv`]; its grammar is the family's).
pub static MINICPMV: DataParser = DataParser::new("minicpmv", spec_v);

/// Where [`SPECIAL_TOKENS_V`]'s dropped tokens start: `<|im_end|>`, then the reserved tokens
/// MiniCPM-V writes around its reasoning and calls (ids 12 to 15, in both spellings the tokenizer
/// decodes), dropped wherever they stand as vLLM does.
const DROPPED: usize = 9;

/// Every marker of the MiniCPM-V format, whole (the chunking tests push each one whole).
pub const SPECIAL_TOKENS_V: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<function=",
    ">",
    "</function>",
    "<parameter=",
    "</parameter>",
    "<|im_end|>",
    "<reserved_12>",
    "<reserved_13>",
    "<reserved_14>",
    "<reserved_15>",
    "<|reserved_12|>",
    "<|reserved_13|>",
    "<|reserved_14|>",
    "<|reserved_15|>",
];

/// The generic engine's parser with the written-out newlines restored in what it writes.
struct NewlinesRestored {
    inner: Parser,
    restoring: Restoring,
}

impl OutputParser for NewlinesRestored {
    fn push(&mut self, text: &str, out: &mut dyn Sink) {
        let mut sink = self.restoring.sink(out);
        self.inner.push_into(text, &mut sink);
    }

    /// [`push`](OutputParser::push) with the restoring sink writing into the buffer with static
    /// calls.
    fn push_deltas(&mut self, text: &str, out: &mut Deltas) {
        let mut sink = self.restoring.sink(out);
        self.inner.push_into(text, &mut sink);
    }

    fn finish(&mut self, out: &mut dyn Sink) {
        let mut sink = self.restoring.sink(out);
        self.inner.finish_into(&mut sink);
        sink.finish();
    }

    fn initial_stage(&self) -> Stage {
        self.inner.stage()
    }
}

/// The `minicpmv` parser for one request.
pub fn minicpmv(options: &ParseOptions) -> Parser {
    Parser::new(
        "minicpmv",
        NewlinesRestored {
            inner: MINICPMV.parser(options),
            restoring: Restoring::default(),
        },
    )
}

/// The `minicpmv` grammar for one request (constrained decoding), from the same spec.
pub fn constraint_v(
    options: &ParseOptions,
    request: &ConstraintRequest,
) -> Result<Constraint, Error> {
    MINICPMV.constraint(options, request)
}
