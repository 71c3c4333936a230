//! The output formats the benchmarks measure, and their workload generators.
//!
//! Every format gets the same two workloads, built from the same prose, the same three calls and the same
//! file text, so that numbers compare across families:
//!
//! - an **output** of about N bytes: long reasoning (95%), some content, three tool calls (`get_weather`,
//!   `search`, `read_file`) with small arguments. Formats whose model does not think (Qwen3-Coder) put the
//!   long prose in content instead;
//! - a **long argument**: one `write_file` call whose `content` argument is about N bytes of code and prose
//!   with quotes, backslashes, newlines, tabs, `<` and non-ASCII text (JSON-escaped where the format writes
//!   JSON, raw where it writes XML parameters).
//!
//! [`FORMATS`] lists them; [`Format`] says which parser to build ([`Format::output_parsers`]: the family
//! parser registered for a model name, or the generic parser built from a chat template's analysis),
//! which prompt tail to pass and what the parse must give (checked by `bench-table` before it measures
//! anything).

use std::fmt;
use std::path::Path;

use parser_auto::template::ChatTemplate;
use parser_auto::{ParseOptions, Parser, ParserEntry, generic};

mod sampled;

pub use sampled::{Sampled, all_formats, sampled_formats};

/// The workspace's `templates/` directory, where [`Format::template`] files are.
pub const TEMPLATES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../templates");

/// Builds the parser of one workload, once per request, from what a server resolves once per model (a
/// registry entry, or a chat template's cached analysis). The measured parsers all come from here, so
/// the table and the divan benchmarks build exactly what they describe.
pub struct ParserFactory {
    /// Which parser this builds and how it was chosen (markdown).
    pub description: String,
    /// The per-request call that builds it (markdown), as the construction benchmarks name it.
    pub construction: &'static str,
    /// The request options the parser is built with.
    pub options: ParseOptions,
    build: Box<dyn Fn(&ParseOptions) -> Parser>,
}

impl fmt::Debug for ParserFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParserFactory")
            .field("description", &self.description)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ParserFactory {
    /// A fresh parser, ready for one output.
    pub fn make(&self) -> Parser {
        (self.build)(&self.options)
    }

    /// The family parser of a registry entry (the route of a model whose name resolves).
    pub fn from_entry(entry: &'static ParserEntry, options: ParseOptions) -> Self {
        ParserFactory {
            description: format!("`{}` (family `{}`)", entry.name, entry.family),
            construction: "`entry.parser(&options)` (model already resolved)",
            options,
            build: Box::new(move |options| entry.parser(options)),
        }
    }

    /// The family parser registered for `model`, or why there is none (its family is not written yet).
    pub fn for_model(model: &str, options: ParseOptions) -> Result<Self, String> {
        let entry = parser_auto::entry_for_model(model)
            .map_err(|e| format!("not registered yet for `{model}` ({e})"))?;
        let mut factory = Self::from_entry(entry, options);
        factory.description.push_str(&format!(" for `{model}`"));
        Ok(factory)
    }

    /// The generic parser built from the analysis of the chat template in `templates/{file}`: what a
    /// model without a family parser gets. Built from the analysis whatever route the template takes
    /// (Qwen's templates reach the Qwen family by signature), so that the numbers are the generic
    /// parser's; an error when the template does not load or its analysis finds nothing.
    pub fn from_template(file: &str, options: ParseOptions) -> Result<Self, String> {
        let path = Path::new(TEMPLATES_DIR).join(file);
        let template = ChatTemplate::from_file(&path)
            .map_err(|e| format!("`templates/{file}` does not load ({e})"))?;
        // Analysed once per template, as a server keeps it (analysis and marker tables cached): only
        // `factory.parser` is per request.
        let analysis = parser_auto::analysis_for(&template);
        if analysis.tools == parser_auto::analyze::ToolFormat::None {
            return Err(format!(
                "`templates/{file}`: the analysis finds no tool calls"
            ));
        }
        let factory = generic::GenericParserFactory::new(analysis);
        Ok(ParserFactory {
            description: format!(
                "generic parser `{}` from the analysis of `templates/{file}`",
                generic::NAME
            ),
            construction: "`GenericParserFactory::new(parser_auto::analysis_for(&template)).parser(&options)` (analysis cached per template)",
            options,
            build: Box::new(move |options| factory.parser(options)),
        })
    }
}

/// One output format: where its parser comes from (a model's family parser or a template's generic
/// parser), the prompt tails, the workload generators and what a correct parse gives.
#[derive(Debug)]
pub struct Format {
    /// Short identifier, used as the divan argument name (`qwen3-hermes`).
    pub key: &'static str,
    /// Human name, used as the table's section title (`Qwen3 Hermes`).
    pub name: &'static str,
    /// Model id of the output workload, resolved with [`parser_auto::entry_for_model`] unless
    /// [`template`](Self::template) is set (then only the model whose outputs the workloads are).
    pub model: &'static str,
    /// Prompt tail of the output workload (`None`: no tail, the family's default stage).
    pub output_tail: Option<&'static str>,
    /// Model id of the long-argument workload (usually [`model`](Self::model)).
    pub long_argument_model: &'static str,
    /// Prompt tail of the long-argument workload.
    pub long_argument_tail: Option<&'static str>,
    /// Whether the output's long prose is reasoning (`true`) or content (`false`, a model that does not
    /// think).
    pub reasoning: bool,
    /// Whether the format writes call arguments as JSON, so that a parser returns them byte for byte as
    /// written. `false` for XML parameters, whose arguments the parser builds as a JSON object.
    pub json_arguments: bool,
    /// The first marker after the long prose (where the reasoning or content phase ends).
    pub prose_end: &'static str,
    /// A chat template file in [`TEMPLATES_DIR`]: when set, both workloads are parsed by the generic
    /// parser built from its analysis ([`ParserFactory::from_template`]) instead of the model's family
    /// parser.
    pub template: Option<&'static str>,
    /// Set for a format measured on its registry entry's own sample ([`all_formats`]): the workloads
    /// and the parser come from it (the fields above only describe it).
    pub sampled: Option<&'static Sampled>,
    output: fn(usize) -> String,
    long_argument: fn(usize) -> LongArgument,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key)
    }
}

impl Format {
    /// An output of about `total_bytes` bytes: long prose, some content, three calls (see
    /// [`expected_calls`](Self::expected_calls)). Deterministic.
    pub fn output(&self, total_bytes: usize) -> String {
        match self.sampled {
            Some(sampled) => sampled.output(total_bytes),
            None => (self.output)(total_bytes),
        }
    }

    /// An output of about `total_bytes` bytes whose long prose is content after a short reasoning, for
    /// the content-phase rows of a format that thinks (`None` for a format that does not: its
    /// [`output`](Self::output) is already content, or whose sample has no content). The prose goes in
    /// front of the content of a small [`output`](Self::output), found by parsing it.
    pub fn content_output(&self, total_bytes: usize) -> Option<String> {
        if let Some(sampled) = self.sampled {
            return sampled.content_output(total_bytes);
        }
        if !self.reasoning {
            return None;
        }
        let small = self.output(2_000);
        let message = self.output_parsers().ok()?.make().parse(&small);
        let content = message.content_trimmed()?;
        let from = self.prose_end_in(&small);
        let at = from + small[from..].find(sampled::prefix(content))?;
        Some(sampled::insert(
            &small,
            at,
            &sampled::inserted_prose(total_bytes.saturating_sub(small.len())),
        ))
    }

    /// One `write_file` call whose `content` argument takes about `arg_bytes` bytes as written.
    /// Deterministic.
    pub fn long_argument(&self, arg_bytes: usize) -> LongArgument {
        match self.sampled {
            Some(sampled) => sampled.long_argument(arg_bytes),
            None => (self.long_argument)(arg_bytes),
        }
    }

    /// The parsers of the output workload: the generic parser of [`template`](Self::template) when set,
    /// else the family parser of [`model`](Self::model) (an error while the family is not registered).
    pub fn output_parsers(&self) -> Result<ParserFactory, String> {
        self.parsers(self.model, self.output_options())
    }

    /// The parsers of the long-argument workload: the generic parser of [`template`](Self::template)
    /// when set, else the family parser of [`long_argument_model`](Self::long_argument_model).
    pub fn long_argument_parsers(&self) -> Result<ParserFactory, String> {
        self.parsers(self.long_argument_model, self.long_argument_options())
    }

    fn parsers(&self, model: &str, options: ParseOptions) -> Result<ParserFactory, String> {
        if let Some(sampled) = self.sampled {
            let mut factory = ParserFactory::from_entry(sampled.entry, options);
            factory.description.push_str(" on its own sample");
            return Ok(factory);
        }
        match self.template {
            Some(file) => ParserFactory::from_template(file, options),
            None => ParserFactory::for_model(model, options),
        }
    }

    /// Request options for the output workload.
    pub fn output_options(&self) -> ParseOptions {
        options_for(self.output_tail)
    }

    /// Request options for the long-argument workload.
    pub fn long_argument_options(&self) -> ParseOptions {
        options_for(self.long_argument_tail)
    }

    /// The three calls of [`output`](Self::output), with their arguments as the parser should return
    /// them: the JSON text as written when [`json_arguments`](Self::json_arguments), else a JSON object of
    /// string values (XML parameters with no tool schema stay strings).
    pub fn expected_calls(&self) -> Vec<ExpectedCall> {
        if let Some(sampled) = self.sampled {
            return sampled
                .calls()
                .map(|(name, arguments)| ExpectedCall {
                    name,
                    arguments: arguments.to_owned(),
                })
                .collect();
        }
        CALLS
            .iter()
            .map(|call| ExpectedCall {
                name: call.name,
                arguments: if self.json_arguments {
                    json_arguments(call)
                } else {
                    string_arguments(call)
                },
            })
            .collect()
    }

    /// The byte offset of [`prose_end`](Self::prose_end) in `output` (its length when absent).
    pub fn prose_end_in(&self, output: &str) -> usize {
        if let Some(sampled) = self.sampled {
            return sampled.prose_end_in(output);
        }
        output.find(self.prose_end).unwrap_or(output.len())
    }
}

fn options_for(tail: Option<&str>) -> ParseOptions {
    match tail {
        Some(tail) => ParseOptions::new().with_prompt_tail(tail),
        None => ParseOptions::new(),
    }
}

/// A call a workload contains: its name and its arguments as the parser should return them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedCall {
    /// The function name.
    pub name: &'static str,
    /// The arguments (JSON text).
    pub arguments: String,
}

/// A long-argument workload: the output and what its one call must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongArgument {
    /// The raw model output: one `write_file` call.
    pub output: String,
    /// The decoded value of the `content` argument (the file text, unescaped).
    pub content: String,
    /// The arguments as written, when the format writes JSON (they come back byte for byte).
    pub arguments: Option<String>,
}

/// The value of the `path` argument of every long-argument call.
pub const LONG_ARGUMENT_PATH: &str = "a.txt";

/// DeepSeek V3.1: `<think>` opened by the prompt, `NAME<｜tool▁sep｜>{json}` calls.
pub static DEEPSEEK_V31: Format = Format {
    key: "deepseek-v3.1",
    name: "DeepSeek V3.1",
    model: MODEL,
    output_tail: Some(REASONING_TAIL),
    long_argument_model: MODEL,
    long_argument_tail: Some(CONTENT_TAIL),
    reasoning: true,
    json_arguments: true,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: deepseek_v31_output,
    long_argument: deepseek_v31_long_argument,
};

/// Qwen3 with Hermes-style calls: the model opens `<think>` itself (thinking is on by default).
pub static QWEN3_HERMES: Format = Format {
    key: "qwen3-hermes",
    name: "Qwen3 Hermes",
    model: "Qwen/Qwen3-8B",
    output_tail: None,
    long_argument_model: "Qwen/Qwen3-8B",
    long_argument_tail: Some("<|im_start|>assistant\n<think>\n\n</think>\n\n"),
    reasoning: true,
    json_arguments: true,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: qwen3_hermes_output,
    long_argument: qwen3_hermes_long_argument,
};

/// Qwen3-Coder with XML calls: the model does not think, the long prose is content.
pub static QWEN3_CODER: Format = Format {
    key: "qwen3-coder",
    name: "Qwen3-Coder XML",
    model: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    output_tail: None,
    long_argument_model: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: false,
    prose_end: TOOL_CALL_OPEN,
    template: None,
    sampled: None,
    output: qwen3_coder_output,
    long_argument: qwen3_coder_long_argument,
};

/// Kimi-K2: K2-Thinking opens `<think>` itself; the long argument is parsed as K2-Instruct (no thinking).
pub static KIMI_K2: Format = Format {
    key: "kimi-k2",
    name: "Kimi-K2",
    model: "moonshotai/Kimi-K2-Thinking",
    output_tail: None,
    long_argument_model: "moonshotai/Kimi-K2-Instruct",
    long_argument_tail: None,
    reasoning: true,
    json_arguments: true,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: kimi_k2_output,
    long_argument: kimi_k2_long_argument,
};

/// GPT-OSS harmony: analysis (reasoning), final (content), three commentary calls.
pub static GPT_OSS: Format = Format {
    key: "gpt-oss",
    name: "GPT-OSS harmony",
    model: "openai/gpt-oss-20b",
    output_tail: Some(HARMONY_TAIL),
    long_argument_model: "openai/gpt-oss-20b",
    long_argument_tail: Some(HARMONY_TAIL),
    reasoning: true,
    json_arguments: true,
    prose_end: HARMONY_END,
    template: None,
    sampled: None,
    output: gpt_oss_output,
    long_argument: gpt_oss_long_argument,
};

/// The Qwen3 Hermes workloads (same bytes, same tails, same expected calls), parsed by the generic parser
/// built from Qwen3's chat template: what a Qwen3 fine-tune whose name no family claims gets.
pub static AUTO_QWEN3_HERMES: Format = Format {
    key: "auto-qwen3-hermes",
    name: "Qwen3 Hermes via template analysis",
    template: Some("Qwen-Qwen3-0.6B.jinja"),
    ..QWEN3_HERMES
};

/// The Qwen3-Coder XML workloads, parsed by the generic parser built from Qwen3-Coder's chat template.
pub static AUTO_QWEN3_CODER: Format = Format {
    key: "auto-qwen3-coder",
    name: "Qwen3-Coder via template analysis",
    template: Some("Qwen3-Coder.jinja"),
    ..QWEN3_CODER
};

/// GLM-4.7: `<think>` opened by the prompt, `<tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value>`
/// calls (no schema: every value a string, written raw).
pub static GLM: Format = Format {
    key: "glm",
    name: "GLM-4.7",
    model: "zai-org/GLM-4.7",
    output_tail: Some(GLM_REASONING_TAIL),
    long_argument_model: "zai-org/GLM-4.7",
    long_argument_tail: Some(GLM_CONTENT_TAIL),
    reasoning: true,
    json_arguments: false,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: glm_output,
    long_argument: glm_long_argument,
};

/// Command-R7B / Command-A (`command-a`): `<|START_THINKING|>` reasoning written by the model, then an
/// action array of `{"tool_call_id", "tool_name", "parameters"}`.
pub static COHERE: Format = Format {
    key: "command-a",
    name: "Command-R7B / A",
    model: "CohereForAI/c4ai-command-r7b-12-2024",
    output_tail: Some(COHERE_TAIL),
    long_argument_model: "CohereForAI/c4ai-command-r7b-12-2024",
    long_argument_tail: Some(COHERE_TAIL),
    reasoning: true,
    json_arguments: true,
    prose_end: "<|END_THINKING|>",
    template: None,
    sampled: None,
    output: cohere_output,
    long_argument: cohere_long_argument,
};

/// Step-3.5-Flash (`step-3.5`): `<think>` opened by the prompt, Qwen3-Coder XML calls.
pub static STEPFUN: Format = Format {
    key: "step-3.5",
    name: "Step-3.5-Flash",
    model: "stepfun-ai/Step-3.5-Flash",
    output_tail: Some(STEP35_REASONING_TAIL),
    long_argument_model: "stepfun-ai/Step-3.5-Flash",
    long_argument_tail: Some(STEP35_CONTENT_TAIL),
    reasoning: true,
    json_arguments: false,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: step35_output,
    long_argument: qwen3_coder_long_argument,
};

/// GigaChat3.1 (`gigachat3`): no reasoning, `<|function_call|>{"name", "arguments"}` calls.
pub static GIGACHAT: Format = Format {
    key: "gigachat3",
    name: "GigaChat3.1",
    model: "ai-sage/GigaChat3.1-10B-A1.8B",
    output_tail: None,
    long_argument_model: "ai-sage/GigaChat3.1-10B-A1.8B",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: true,
    prose_end: "<|function_call|>",
    template: None,
    sampled: None,
    output: gigachat_output,
    long_argument: gigachat_long_argument,
};

/// Apriel-1.6 Thinker (`apriel`): reasoning up to `[BEGIN FINAL RESPONSE]`, `<tool_calls>[…]</tool_calls>`.
pub static APRIEL: Format = Format {
    key: "apriel",
    name: "Apriel-1.6 Thinker",
    model: "ServiceNow-AI/Apriel-1.6-15b-Thinker",
    output_tail: Some(APRIEL_TAIL),
    long_argument_model: "ServiceNow-AI/Apriel-1.6-15b-Thinker",
    long_argument_tail: Some(APRIEL_ANSWER_TAIL),
    reasoning: true,
    json_arguments: true,
    prose_end: "[BEGIN FINAL RESPONSE]",
    template: None,
    sampled: None,
    output: apriel_output,
    long_argument: apriel_long_argument,
};

/// functionary v3.1 (`functionary-v3.1`): no reasoning, `<function=NAME>{…}</function>` calls.
pub static FUNCTIONARY: Format = Format {
    key: "functionary-v3.1",
    name: "functionary v3.1",
    model: "meetkai/functionary-medium-v3.1",
    output_tail: None,
    long_argument_model: "meetkai/functionary-medium-v3.1",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: true,
    prose_end: "<function=",
    template: None,
    sampled: None,
    output: functionary_output,
    long_argument: functionary_long_argument,
};

/// Apertus (`apertus`): `<|inner_prefix|>` reasoning, `<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>`.
pub static APERTUS: Format = Format {
    key: "apertus",
    name: "Apertus",
    model: "swiss-ai/Apertus-8B-Instruct-2509",
    output_tail: None,
    long_argument_model: "swiss-ai/Apertus-8B-Instruct-2509",
    long_argument_tail: None,
    reasoning: true,
    json_arguments: true,
    prose_end: "<|inner_suffix|>",
    template: None,
    sampled: None,
    output: apertus_output,
    long_argument: apertus_long_argument,
};

/// firefunction-v2 (`firefunction-v2`): no reasoning, ` functools[{"name", "arguments"}, …]`.
pub static FIREWORKS: Format = Format {
    key: "firefunction-v2",
    name: "firefunction-v2",
    model: "fireworks-ai/llama-3-firefunction-v2",
    output_tail: None,
    long_argument_model: "fireworks-ai/llama-3-firefunction-v2",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: true,
    prose_end: " functools",
    template: None,
    sampled: None,
    output: firefunction_output,
    long_argument: firefunction_long_argument,
};

/// Magistral: `[THINK]…[/THINK]` written by the model, then `[TOOL_CALLS]NAME[ARGS]{…}` calls (a family
/// as data: the generic engine).
pub static MISTRAL: Format = Format {
    key: "mistral",
    name: "Magistral",
    model: "mistralai/Magistral-Small-2509",
    output_tail: Some(MISTRAL_TAIL),
    long_argument_model: "mistralai/Magistral-Small-2509",
    long_argument_tail: Some(MISTRAL_TAIL),
    reasoning: true,
    json_arguments: true,
    prose_end: MISTRAL_THINK_END,
    template: None,
    sampled: None,
    output: mistral_output,
    long_argument: mistral_long_argument,
};

/// Llama 3.x: content, then `<|python_tag|>` and `{"name": …, "parameters": {…}}` calls separated by `;`
/// (a family as data: the generic engine).
pub static LLAMA3: Format = Format {
    key: "llama3",
    name: "Llama 3.x",
    model: "meta-llama/Llama-3.3-70B-Instruct",
    output_tail: Some(LLAMA3_TAIL),
    long_argument_model: "meta-llama/Llama-3.3-70B-Instruct",
    long_argument_tail: Some(LLAMA3_TAIL),
    reasoning: false,
    json_arguments: true,
    prose_end: LLAMA3_PYTHON_TAG,
    template: None,
    sampled: None,
    output: llama3_output,
    long_argument: llama3_long_argument,
};

/// Hermes-4 (`parser-hermes`, a spec run by the generic engine): the Qwen3 Hermes workloads, whose wire
/// format it shares (`<think>` opened by the model, `<tool_call>` JSON calls).
pub static HERMES: Format = Format {
    key: "hermes",
    name: "Hermes-4 (data)",
    model: "NousResearch/Hermes-4-70B",
    long_argument_model: "NousResearch/Hermes-4-70B",
    ..QWEN3_HERMES
};

/// Nemotron 3 Nano (`parser-nemotron`, a spec run by the generic engine) with thinking off: the
/// Qwen3-Coder XML workloads, whose call format it shares.
pub static NEMOTRON_3_NANO: Format = Format {
    key: "nemotron-3-nano",
    name: "Nemotron 3 Nano XML (data)",
    model: "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    output_tail: Some("<|im_start|>assistant\n<think></think>"),
    long_argument_model: "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    long_argument_tail: Some("<|im_start|>assistant\n<think></think>"),
    ..QWEN3_CODER
};

/// ERNIE-4.5-21B-A3B-Thinking (`parser-ernie`, a spec run by the generic engine): reasoning opened by
/// the prompt, closed by `</think>`, then Hermes-style `<tool_call>` JSON calls; the long argument goes
/// through the model without thinking (`ernie-4.5-instruct`).
pub static ERNIE: Format = Format {
    key: "ernie-4.5",
    name: "ERNIE-4.5 Thinking (data)",
    model: "baidu/ERNIE-4.5-21B-A3B-Thinking",
    output_tail: Some("User: Hi\nAssistant: <think>\n"),
    long_argument_model: "baidu/ERNIE-4.5-21B-A3B-PT",
    long_argument_tail: Some("User: Hi\nAssistant: "),
    reasoning: true,
    json_arguments: true,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: ernie_output,
    long_argument: qwen3_hermes_long_argument,
};

/// Hunyuan-A13B (`parser-hunyuan`, a spec run by the generic engine): `<think>` by the model, then
/// `<answer>` with a `<tool_calls>[…]</tool_calls>` JSON list; the long argument with thinking off.
pub static HUNYUAN: Format = Format {
    key: "hunyuan-a13b",
    name: "Hunyuan-A13B (data)",
    model: "tencent/Hunyuan-A13B-Instruct",
    output_tail: Some("用户：Hi<|extra_0|>"),
    long_argument_model: "tencent/Hunyuan-A13B-Instruct",
    long_argument_tail: Some("用户：Hi<|extra_0|><think>\n\n</think>\n"),
    reasoning: true,
    json_arguments: true,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: hunyuan_output,
    long_argument: hunyuan_long_argument,
};

/// LongCat-Flash-Thinking (`parser-longcat`, a spec run by the generic engine): `<longcat_think>` opened
/// by the prompt, then `<longcat_tool_call>` JSON calls; the long argument through LongCat-Flash-Chat.
pub static LONGCAT: Format = Format {
    key: "longcat",
    name: "LongCat-Flash (data)",
    model: "meituan-longcat/LongCat-Flash-Thinking",
    output_tail: Some("<longcat_user>Hi /think_on <longcat_assistant><longcat_think>\n"),
    long_argument_model: "meituan-longcat/LongCat-Flash-Chat",
    long_argument_tail: Some("[Round 0] USER:Hi ASSISTANT:"),
    reasoning: true,
    json_arguments: true,
    prose_end: LONGCAT_THINK_END,
    template: None,
    sampled: None,
    output: longcat_output,
    long_argument: longcat_long_argument,
};

/// Phi-4-mini (`phi4-mini`): no reasoning, `functools[{"name", "arguments"}, …]` (a family as data).
pub static PHI4_MINI: Format = Format {
    key: "phi4-mini",
    name: "Phi-4-mini (data)",
    model: "microsoft/Phi-4-mini-instruct",
    output_tail: None,
    long_argument_model: "microsoft/Phi-4-mini-instruct",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: true,
    prose_end: "functools",
    template: None,
    sampled: None,
    output: phi4_mini_output,
    long_argument: phi4_mini_long_argument,
};

/// xLAM (`xlam`): no reasoning here, the call array in `<tool_call>` after content (a family as data).
pub static XLAM: Format = Format {
    key: "xlam",
    name: "xLAM (data)",
    model: "Salesforce/xLAM-2-3b-fc-r",
    output_tail: Some(CHATML_TAIL),
    long_argument_model: "Salesforce/xLAM-2-3b-fc-r",
    long_argument_tail: Some(CHATML_TAIL),
    reasoning: false,
    json_arguments: true,
    prose_end: TOOL_CALL_OPEN,
    template: None,
    sampled: None,
    output: xlam_output,
    long_argument: xlam_long_argument,
};

/// InternLM2.5 (`internlm2`): no reasoning, one `<|action_start|><|plugin|>` block per call (a family
/// as data).
pub static INTERNLM: Format = Format {
    key: "internlm2",
    name: "InternLM2.5 (data)",
    model: "internlm/internlm2_5-7b-chat",
    output_tail: Some(CHATML_TAIL),
    long_argument_model: "internlm/internlm2_5-7b-chat",
    long_argument_tail: Some(CHATML_TAIL),
    reasoning: false,
    json_arguments: true,
    prose_end: INTERNLM_ACTION,
    template: None,
    sampled: None,
    output: internlm_output,
    long_argument: internlm_long_argument,
};

/// Jamba (`jamba`): no reasoning, `<tool_calls>[…]</tool_calls>` (a family as data).
pub static JAMBA: Format = Format {
    key: "jamba",
    name: "Jamba (data)",
    model: "ai21labs/AI21-Jamba-Mini-1.7",
    output_tail: None,
    long_argument_model: "ai21labs/AI21-Jamba-Mini-1.7",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: true,
    prose_end: "<tool_calls>",
    template: None,
    sampled: None,
    output: jamba_output,
    long_argument: jamba_long_argument,
};

/// Olmo 3 Think (`olmo3-think`): `<think>` opened by the prompt, then `<function_calls>` with one
/// Python call per line (a family as data). The calls write every value as a string, so the arguments
/// the parser converts are the string arguments; the long argument goes to Olmo 3 Instruct.
pub static OLMO: Format = Format {
    key: "olmo3-think",
    name: "Olmo 3 Think (data)",
    model: "allenai/Olmo-3-7B-Think",
    output_tail: Some(OLMO_THINK_TAIL),
    long_argument_model: "allenai/Olmo-3-7B-Instruct",
    long_argument_tail: Some(CHATML_TAIL),
    reasoning: true,
    json_arguments: false,
    prose_end: THINK_END,
    template: None,
    sampled: None,
    output: olmo_output,
    long_argument: olmo_long_argument,
};

/// Upstage Solar Open (`solar-open`): `<|think|>…<|end|>`, then role-headed content and id-first calls.
pub static UPSTAGE: Format = Format {
    key: "solar-open",
    name: "Solar Open (data)",
    model: "upstage/Solar-Open-100B",
    output_tail: None,
    long_argument_model: "upstage/Solar-Open-100B",
    long_argument_tail: None,
    reasoning: true,
    json_arguments: true,
    prose_end: "<|end|>",
    template: None,
    sampled: None,
    output: solar_output,
    long_argument: solar_long_argument,
};

/// SoftBank Sarashina (`sarashina`): no reasoning, `<|tool_calls|>[{'name': …, 'arguments': {…}}]`.
pub static SARASHINA: Format = Format {
    key: "sarashina",
    name: "Sarashina",
    model: "sbintuitions/sarashina2.2-3b-instruct-v0.1",
    output_tail: None,
    long_argument_model: "sbintuitions/sarashina2.2-3b-instruct-v0.1",
    long_argument_tail: None,
    reasoning: false,
    json_arguments: false,
    prose_end: "<|tool_calls|>",
    template: None,
    sampled: None,
    output: sarashina_output,
    long_argument: sarashina_long_argument,
};

/// LG EXAONE 4 (`exaone4`): `<think>` and Hermes-style `<tool_call>{json}</tool_call>` calls, the
/// Qwen3 Hermes workloads (the same shapes) on the EXAONE parser.
pub static EXAONE: Format = Format {
    key: "exaone4",
    name: "EXAONE 4 (data)",
    model: "LGAI-EXAONE/EXAONE-4.0-32B",
    output_tail: None,
    long_argument_model: "LGAI-EXAONE/EXAONE-4.0-32B",
    long_argument_tail: Some("[|user|]Write it.[|endofturn|]\n[|assistant|]"),
    ..QWEN3_HERMES
};

/// Gemma 4 (`gemma4`): the model opens the thought channel itself (`<|channel>thought\n…<channel|>`),
/// then `<|tool_call>call:NAME{…}<tool_call|>` calls in Gemma's value syntax, converted to JSON by a
/// state machine. The calls write every value as a `<|"|>` string, so the arguments are the string
/// arguments.
pub static GEMMA4: Format = Format {
    key: "gemma4",
    name: "Gemma 4",
    model: "google/gemma-4-31B-it",
    output_tail: Some(GEMMA4_TAIL),
    long_argument_model: "google/gemma-4-31B-it",
    long_argument_tail: Some(GEMMA4_TAIL),
    reasoning: true,
    json_arguments: false,
    prose_end: GEMMA4_CHANNEL_END,
    template: None,
    sampled: None,
    output: gemma4_output,
    long_argument: gemma4_long_argument,
};

// `cargo xtask new-family` inserts a family's `Format` above this line.

/// Every format, DeepSeek V3.1 (the reference) first, the generic parsers last.
pub static FORMATS: &[&Format] = &[
    &DEEPSEEK_V31,
    &QWEN3_HERMES,
    &QWEN3_CODER,
    &KIMI_K2,
    &GPT_OSS,
    &GLM,
    &MISTRAL,
    &LLAMA3,
    &COHERE,
    &STEPFUN,
    &GIGACHAT,
    &APRIEL,
    &FUNCTIONARY,
    &APERTUS,
    &FIREWORKS,
    &HERMES,
    &NEMOTRON_3_NANO,
    &ERNIE,
    &HUNYUAN,
    &LONGCAT,
    &PHI4_MINI,
    &XLAM,
    &INTERNLM,
    &JAMBA,
    &OLMO,
    &UPSTAGE,
    &SARASHINA,
    &EXAONE,
    &GEMMA4,
    // `cargo xtask new-family` inserts a family's entry above this line.
    &AUTO_QWEN3_HERMES,
    &AUTO_QWEN3_CODER,
];

/// The formats whose parsers can be built for both workloads (family registered, or template analysed
/// to the generic parser).
pub fn registered_formats() -> Vec<&'static Format> {
    all_formats()
        .iter()
        .copied()
        .filter(|format| format.output_parsers().is_ok() && format.long_argument_parsers().is_ok())
        .collect()
}

/// The model of the DeepSeek V3.1 workloads.
pub const MODEL: &str = "deepseek-ai/DeepSeek-V3.1";

/// DeepSeek prompt tail of a request with thinking on: the output starts in reasoning.
pub const REASONING_TAIL: &str = "<｜Assistant｜><think>";

/// DeepSeek prompt tail of a request with thinking off: the output starts in content.
pub const CONTENT_TAIL: &str = "<｜Assistant｜></think>";

const THINK_END: &str = "</think>";

// DeepSeek V3.1.
const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";

// Qwen3 (Hermes and XML).
const TOOL_CALL_OPEN: &str = "<tool_call>";
const TOOL_CALL_CLOSE: &str = "</tool_call>";

// Kimi-K2.
const KIMI_SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
const KIMI_SECTION_END: &str = "<|tool_calls_section_end|>";
const KIMI_CALL_BEGIN: &str = "<|tool_call_begin|>";
const KIMI_ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
const KIMI_CALL_END: &str = "<|tool_call_end|>";

// Mistral (Magistral).
const MISTRAL_TAIL: &str = "[INST]Weather?[/INST]";
const MISTRAL_THINK: &str = "[THINK]";
const MISTRAL_THINK_END: &str = "[/THINK]";
const MISTRAL_TOOL_CALLS: &str = "[TOOL_CALLS]";
const MISTRAL_ARGS: &str = "[ARGS]";

// Llama 3.x.
const LLAMA3_TAIL: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n";
const LLAMA3_PYTHON_TAG: &str = "<|python_tag|>";

// GPT-OSS harmony.
const HARMONY_TAIL: &str = "<|start|>assistant";
const HARMONY_END: &str = "<|end|>";
const HARMONY_ANALYSIS: &str = "<|channel|>analysis<|message|>";
const HARMONY_FINAL: &str = "<|start|>assistant<|channel|>final<|message|>";

// GLM-4.7.
const GLM_REASONING_TAIL: &str = "<|assistant|><think>";
const GLM_CONTENT_TAIL: &str = "<|assistant|></think>";

/// Reasoning prose: plain sentences, some non-ASCII text, and `<` characters that are not markers.
const REASONING_SENTENCES: &[&str] = &[
    "The user wants to know how the weather in Paris compares with the weather in 北京 this week.",
    "First I should check which tools are available and which arguments they take.",
    "If a < b and b < c, then a < c, so the order of the results is preserved.",
    "The café on the corner is a good example: its name has an é that must survive intact.",
    "Let me reconsider the edge cases before answering, because the last attempt missed one.",
    "The forecast service returns temperatures in celsius, so I may need to convert them.",
    "A quick sanity check: 3 < 5 and 10 > 7, so the comparison above holds.",
    "Cities to compare: Paris, 北京, São Paulo and Zürich.",
    "I will call the search tool first and then summarise what it returns.",
    "There is no need to repeat the question; the answer should be short and precise.",
    "When i < n the loop continues, otherwise it stops and returns the total.",
    "The résumé mentions three projects, and only one of them is relevant here.",
];

/// Answer prose, after the reasoning.
const CONTENT_SENTENCES: &[&str] = &[
    "Here is what I found for the two cities.",
    "I will look up the current weather and a few prices for you.",
    "Let me check the forecast and the notes file first.",
    "Both cities are expected to be mild this week, with rain in 北京 on Thursday.",
];

/// Lines of the file written by the long-argument call (raw text; JSON-escaped where the format writes
/// JSON).
const FILE_LINES: &[&str] = &[
    "fn main() {\n",
    "    let name = \"world\";\n",
    "    println!(\"hello, {name}\");\n",
    "}\n",
    "He said \"the café in 北京 opens at 9\" and left.\n",
    "if a < b { return \"less\"; }\n",
    "\tA tab-indented line, a backslash \\ and a \"quoted\" word.\n",
    "Plain prose makes up the rest of the file, one sentence after another.\n",
];

/// Seed of the output prose (every format: the same prose).
const OUTPUT_SEED: u64 = 0x0005_eed0_0031;
/// Seed of the long argument's file text (every format: the same text).
const FILE_SEED: u64 = 0x0a4c_0031;

/// An argument value of one of the three calls.
#[derive(Clone, Copy, Debug)]
enum Value {
    /// A string (no character in it needs a JSON escape).
    Str(&'static str),
    /// A number, as written.
    Num(&'static str),
}

/// One of the three calls of every output.
#[derive(Debug)]
struct CallSpec {
    name: &'static str,
    params: &'static [(&'static str, Value)],
}

const CALLS: &[CallSpec] = &[
    CallSpec {
        name: "get_weather",
        params: &[
            ("city", Value::Str("北京")),
            ("unit", Value::Str("celsius")),
        ],
    },
    CallSpec {
        name: "search",
        params: &[
            ("query", Value::Str("café prices in Paris")),
            ("limit", Value::Num("5")),
        ],
    },
    CallSpec {
        name: "read_file",
        params: &[
            ("path", Value::Str("notes/a < b.txt")),
            ("line", Value::Num("12")),
        ],
    },
];

/// The arguments as JSON: `{"city": "北京", "unit": "celsius"}`.
fn json_arguments(call: &CallSpec) -> String {
    object(call, |value| match value {
        Value::Str(s) => format!("\"{s}\""),
        Value::Num(n) => n.to_owned(),
    })
}

/// The arguments as JSON with every value a string: `{"query": "café prices in Paris", "limit": "5"}`.
fn string_arguments(call: &CallSpec) -> String {
    object(call, |value| match value {
        Value::Str(s) | Value::Num(s) => format!("\"{s}\""),
    })
}

fn object(call: &CallSpec, value: impl Fn(Value) -> String) -> String {
    let fields: Vec<String> = call
        .params
        .iter()
        .map(|&(key, v)| format!("\"{key}\": {}", value(v)))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// A Qwen3-Coder XML call: `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…`.
fn xml_call(name: &str, params: &[(&str, &str)]) -> String {
    let mut out = format!("{TOOL_CALL_OPEN}\n<function={name}>\n");
    for (key, value) in params {
        out.push_str("<parameter=");
        out.push_str(key);
        out.push_str(">\n");
        out.push_str(value);
        out.push_str("\n</parameter>\n");
    }
    out.push_str("</function>\n");
    out.push_str(TOOL_CALL_CLOSE);
    out
}

/// A Hermes call: `<tool_call>\n{"name": "NAME", "arguments": ARGS}\n</tool_call>`.
fn hermes_call(name: &str, arguments: &str) -> String {
    format!(
        "{TOOL_CALL_OPEN}\n{{\"name\": \"{name}\", \"arguments\": {arguments}}}\n{TOOL_CALL_CLOSE}"
    )
}

/// A Kimi-K2 call: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>ARGS<|tool_call_end|>`.
fn kimi_call(name: &str, index: usize, arguments: &str) -> String {
    format!(
        "{KIMI_CALL_BEGIN}functions.{name}:{index}{KIMI_ARGUMENT_BEGIN}{arguments}{KIMI_CALL_END}"
    )
}

/// A harmony call, without the `<|start|>assistant` that begins a message after the first.
fn harmony_call(name: &str, arguments: &str) -> String {
    format!(
        "<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{arguments}<|call|>"
    )
}

/// A GLM-4.7 call: `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>…</tool_call>`.
fn glm_call(name: &str, params: &[(&str, &str)]) -> String {
    let mut out = format!("{TOOL_CALL_OPEN}{name}");
    for (key, value) in params {
        out.push_str(&format!(
            "<arg_key>{key}</arg_key><arg_value>{value}</arg_value>"
        ));
    }
    out.push_str(TOOL_CALL_CLOSE);
    out
}

/// A tiny xorshift64 generator: deterministic, dependency-free, good enough to vary prose.
#[derive(Clone, Debug)]
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Appends sentences picked from `sentences` to `out`, separated by a space or (one time in six) a blank
/// line, until at least `target` bytes were added. Adds nothing when `target` is 0.
fn prose(rng: &mut XorShift, sentences: &[&str], target: usize, out: &mut String) {
    let start = out.len();
    while out.len() - start < target {
        if out.len() > start {
            out.push_str(if rng.below(6) == 0 { "\n\n" } else { " " });
        }
        out.push_str(sentences[rng.below(sentences.len())]);
    }
}

/// Writes `text` as the inside of a JSON string: `"`, `\`, newline and tab escaped.
fn json_escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
}

fn json_escaped_len(text: &str) -> usize {
    text.len()
        + text
            .chars()
            .filter(|c| matches!(c, '"' | '\\' | '\n' | '\t'))
            .count()
}

/// How an output is framed around the shared prose and calls.
struct Layout<'a> {
    /// `Some((opener, closer))`: the long prose is reasoning between them (the opener may be empty when
    /// the prompt opened reasoning). `None`: the long prose is content, followed by `"\n\n"`.
    reasoning: Option<(&'a str, &'a str)>,
    /// Written after the content.
    content_end: &'a str,
    /// The three calls, as the format writes them.
    calls: &'a str,
}

/// Long prose (95% of `total_bytes`), the framing, a little content, the calls.
fn build_output(total_bytes: usize, layout: &Layout<'_>) -> String {
    const CONTENT_ONLY_BREAK: &str = "\n\n";
    let mut rng = XorShift::new(OUTPUT_SEED);
    let prose_target = total_bytes * 95 / 100;
    let frame = match layout.reasoning {
        Some((open, close)) => open.len() + close.len(),
        None => CONTENT_ONLY_BREAK.len(),
    } + layout.content_end.len()
        + layout.calls.len();
    let content_target = total_bytes.saturating_sub(prose_target + frame).max(1);
    let mut out = String::with_capacity(total_bytes + frame + 256);
    match layout.reasoning {
        Some((open, close)) => {
            out.push_str(open);
            prose(&mut rng, REASONING_SENTENCES, prose_target, &mut out);
            out.push_str(close);
        }
        None => {
            prose(&mut rng, REASONING_SENTENCES, prose_target, &mut out);
            out.push_str(CONTENT_ONLY_BREAK);
        }
    }
    prose(&mut rng, CONTENT_SENTENCES, content_target, &mut out);
    out.push_str(layout.content_end);
    out.push_str(layout.calls);
    out
}

/// The file text of the long argument: whole [`FILE_LINES`] until it takes at least `target` bytes as
/// written (JSON-escaped when `escaped`).
fn file_text(target: usize, escaped: bool) -> String {
    let mut rng = XorShift::new(FILE_SEED);
    let mut text = String::with_capacity(target + 128);
    let mut written = 0;
    while written < target {
        let line = FILE_LINES[rng.below(FILE_LINES.len())];
        text.push_str(line);
        written += if escaped {
            json_escaped_len(line)
        } else {
            line.len()
        };
    }
    text
}

/// The JSON arguments of the long-argument call, with `content` holding `text` escaped.
fn long_json_arguments(text: &str) -> String {
    let mut arguments = String::with_capacity(text.len() * 9 / 8 + 64);
    arguments.push_str("{\"path\": \"");
    arguments.push_str(LONG_ARGUMENT_PATH);
    arguments.push_str("\", \"content\": \"");
    json_escape_into(text, &mut arguments);
    arguments.push_str("\"}");
    arguments
}

/// A long-argument workload of a format that writes JSON arguments: `wrap` frames them.
fn json_long_argument(arg_bytes: usize, wrap: impl FnOnce(&str) -> String) -> LongArgument {
    let content = file_text(arg_bytes, true);
    let arguments = long_json_arguments(&content);
    LongArgument {
        output: wrap(&arguments),
        content,
        arguments: Some(arguments),
    }
}

/// A DeepSeek V3.1 output of about `total_bytes` bytes, for a request with thinking on (prompt tail
/// [`REASONING_TAIL`]).
///
/// Layout: reasoning prose (95% of `total_bytes`: English sentences with `é`, `北京` and `<` characters
/// that are not markers, such as `a < b`), `</think>`, a little content, then a tool-call block with three
/// calls (`get_weather`, `search`, `read_file`) whose arguments are small JSON objects:
///
/// ```text
/// …reasoning…</think>Here is what I found…<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "北京", "unit": "celsius"}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
/// ```
///
/// The length is a little over `total_bytes` (whole sentences; at least one content sentence and the call
/// block, about 300 bytes, even for tiny sizes). The same `total_bytes` always gives the same text.
///
/// ```
/// let output = benchmarks::deepseek_v31_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert_eq!(output.matches("<｜tool▁call▁begin｜>").count(), 3);
/// ```
pub fn deepseek_v31_output(total_bytes: usize) -> String {
    let mut calls = String::from(CALLS_BEGIN);
    for call in CALLS {
        calls.push_str(CALL_BEGIN);
        calls.push_str(call.name);
        calls.push_str(SEP);
        calls.push_str(&json_arguments(call));
        calls.push_str(CALL_END);
    }
    calls.push_str(CALLS_END);
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", THINK_END)),
            content_end: "",
            calls: &calls,
        },
    )
}

/// A DeepSeek V3.1 output made of one `write_file` call whose `content` argument is a JSON string of about
/// `arg_bytes` bytes (as written, escapes included), for a request with thinking off (prompt tail
/// [`CONTENT_TAIL`]).
///
/// ```text
/// <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{"path": "a.txt", "content": "fn main() {\n    let name = \"world\";\n…"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
/// ```
///
/// The string holds code and prose lines with escaped quotes (`\"`), newlines (`\n`), tabs, backslashes,
/// `<` and non-ASCII text: the worst case for a parser that must find where the JSON ends.
///
/// ```
/// let long = benchmarks::deepseek_v31_long_argument(20_000);
/// assert!((20_000..20_300).contains(&long.output.len()));
/// assert!(long.output.contains(r#"\"world\""#));
/// assert!(long.content.contains("\"world\""));
/// ```
pub fn deepseek_v31_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("{CALLS_BEGIN}{CALL_BEGIN}write_file{SEP}{arguments}{CALL_END}{CALLS_END}")
    })
}

/// A Qwen3 output with Hermes-style calls, for a request with thinking on (no prompt tail: the model
/// opens `<think>` itself).
///
/// ```text
/// <think>\n…reasoning…\n</think>\n\nHere is what I found…\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "北京", "unit": "celsius"}}\n</tool_call>\n<tool_call>…</tool_call>
/// ```
///
/// ```
/// let output = benchmarks::qwen3_hermes_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert_eq!(output.matches("<tool_call>").count(), 3);
/// ```
pub fn qwen3_hermes_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| hermes_call(call.name, &json_arguments(call)))
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<think>\n", "\n</think>\n\n")),
            content_end: "\n",
            calls: &calls.join("\n"),
        },
    )
}

/// One Hermes-style `write_file` call with a long JSON string argument, for a request with thinking off
/// (prompt tail `<|im_start|>assistant\n<think>\n\n</think>\n\n`).
///
/// ```text
/// <tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "fn main() {\n…"}}\n</tool_call>
/// ```
pub fn qwen3_hermes_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| hermes_call("write_file", arguments))
}

/// A Qwen3-Coder output with XML calls. The model does not think: the long prose is content.
///
/// ```text
/// …content…\n\nHere is what I found…\n<tool_call>\n<function=get_weather>\n<parameter=city>\n北京\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>\n<tool_call>…</tool_call>
/// ```
///
/// ```
/// let output = benchmarks::qwen3_coder_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert_eq!(output.matches("<function=").count(), 3);
/// ```
pub fn qwen3_coder_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            let params: Vec<(&str, &str)> = call
                .params
                .iter()
                .map(|&(key, value)| match value {
                    Value::Str(v) | Value::Num(v) => (key, v),
                })
                .collect();
            xml_call(call.name, &params)
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "\n",
            calls: &calls.join("\n"),
        },
    )
}

/// One Qwen3-Coder `write_file` call whose `content` parameter is about `arg_bytes` bytes of raw text
/// (not escaped: quotes, backslashes, `<`, tabs and non-ASCII as they are), one framing newline at each
/// end.
///
/// ```text
/// <tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nfn main() {\n    let name = "world";\n…\n</parameter>\n</function>\n</tool_call>
/// ```
///
/// ```
/// let long = benchmarks::qwen3_coder_long_argument(20_000);
/// assert!(long.output.contains(&long.content));
/// assert!(long.content.contains("\"world\"") && long.arguments.is_none());
/// ```
pub fn qwen3_coder_long_argument(arg_bytes: usize) -> LongArgument {
    let content = file_text(arg_bytes, false);
    let output = xml_call(
        "write_file",
        &[("path", LONG_ARGUMENT_PATH), ("content", &content)],
    );
    LongArgument {
        output,
        content,
        arguments: None,
    }
}

/// A Kimi-K2-Thinking output: `<think>` written by the model, reasoning, `</think>`, content, a tool-call
/// section with three calls whose ids are `functions.NAME:IDX`.
///
/// ```text
/// <think>…reasoning…</think>Here is what I found…<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "北京", "unit": "celsius"}<|tool_call_end|>…<|tool_calls_section_end|>
/// ```
///
/// ```
/// let output = benchmarks::kimi_k2_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert!(output.contains("functions.read_file:2<|tool_call_argument_begin|>"));
/// ```
pub fn kimi_k2_output(total_bytes: usize) -> String {
    let mut calls = String::from(KIMI_SECTION_BEGIN);
    for (index, call) in CALLS.iter().enumerate() {
        calls.push_str(&kimi_call(call.name, index, &json_arguments(call)));
    }
    calls.push_str(KIMI_SECTION_END);
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<think>", THINK_END)),
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Kimi-K2 `write_file` call (id `functions.write_file:0`) with a long JSON string argument.
///
/// ```text
/// <|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>{"path": "a.txt", "content": "…"}<|tool_call_end|><|tool_calls_section_end|>
/// ```
pub fn kimi_k2_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "{KIMI_SECTION_BEGIN}{}{KIMI_SECTION_END}",
            kimi_call("write_file", 0, arguments)
        )
    })
}

/// A GPT-OSS harmony output, after the prompt tail `<|start|>assistant`: the analysis channel
/// (reasoning), the final channel (content), then three commentary calls, the last ending the output at
/// `<|call|>`.
///
/// ```text
/// <|channel|>analysis<|message|>…reasoning…<|end|><|start|>assistant<|channel|>final<|message|>Here is what I found…<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "北京", "unit": "celsius"}<|call|>…
/// ```
///
/// ```
/// let output = benchmarks::gpt_oss_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert_eq!(output.matches("<|call|>").count(), 3);
/// ```
pub fn gpt_oss_output(total_bytes: usize) -> String {
    let mut calls = String::new();
    for call in CALLS {
        calls.push_str(HARMONY_TAIL);
        calls.push_str(&harmony_call(call.name, &json_arguments(call)));
    }
    let close = format!("{HARMONY_END}{HARMONY_FINAL}");
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some((HARMONY_ANALYSIS, &close)),
            content_end: HARMONY_END,
            calls: &calls,
        },
    )
}

/// One GPT-OSS commentary `write_file` call with a long JSON string argument, after the prompt tail
/// `<|start|>assistant`.
///
/// ```text
/// <|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{"path": "a.txt", "content": "…"}<|call|>
/// ```
pub fn gpt_oss_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| harmony_call("write_file", arguments))
}

/// A GLM-4.7 output, after the prompt tail `<|assistant|><think>`: reasoning, `</think>`, content, three
/// calls whose values are written raw (numbers too: without a tool schema they are strings).
///
/// ```text
/// …reasoning…</think>Here is what I found…<tool_call>get_weather<arg_key>city</arg_key><arg_value>北京</arg_value><arg_key>unit</arg_key><arg_value>celsius</arg_value></tool_call>…
/// ```
///
/// ```
/// let output = benchmarks::glm_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert_eq!(output.matches("<arg_key>").count(), 6);
/// ```
pub fn glm_output(total_bytes: usize) -> String {
    let calls: String = CALLS
        .iter()
        .map(|call| {
            let params: Vec<(&str, &str)> = call
                .params
                .iter()
                .map(|&(key, value)| match value {
                    Value::Str(v) | Value::Num(v) => (key, v),
                })
                .collect();
            glm_call(call.name, &params)
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", THINK_END)),
            content_end: "",
            calls: &calls,
        },
    )
}

/// One GLM-4.7 `write_file` call whose `content` value is about `arg_bytes` bytes of raw text, after the
/// prompt tail `<|assistant|></think>`.
///
/// ```text
/// <tool_call>write_file<arg_key>path</arg_key><arg_value>a.txt</arg_value><arg_key>content</arg_key><arg_value>fn main() {\n…</arg_value></tool_call>
/// ```
pub fn glm_long_argument(arg_bytes: usize) -> LongArgument {
    let content = file_text(arg_bytes, false);
    let output = glm_call(
        "write_file",
        &[("path", LONG_ARGUMENT_PATH), ("content", &content)],
    );
    LongArgument {
        output,
        content,
        arguments: None,
    }
}

/// The end of a Cohere prompt (the model opens `<|START_THINKING|>` itself).
const COHERE_TAIL: &str = "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hi<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
/// Step-3.5's prompt opens `<think>`.
const STEP35_REASONING_TAIL: &str =
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";
/// A Step-3.5 prompt whose think block is closed (the long-argument call is the answer).
const STEP35_CONTENT_TAIL: &str =
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n</think>\n";
/// Apriel-1.6's prompt starts the reasoning.
const APRIEL_TAIL: &str = "<|begin_user|>\nHi\n<|begin_assistant|>\nHere are my reasoning steps:\n";
/// An Apriel prompt whose reasoning already ended (the long-argument call is the answer).
const APRIEL_ANSWER_TAIL: &str = "<|begin_user|>\nHi\n<|begin_assistant|>\nHere are my reasoning steps:\nWrite it.\n[BEGIN FINAL RESPONSE]\n";

/// One element of a Cohere action array.
fn cohere_element(index: usize, name: &str, arguments: &str) -> String {
    format!(
        "{{\"tool_call_id\": \"{index}\", \"tool_name\": \"{name}\", \"parameters\": {arguments}}}"
    )
}

/// A Command-R7B output: `<|START_THINKING|>…<|END_THINKING|>`, content in `<|START_RESPONSE|>`, an
/// action array of three calls.
///
/// ```
/// let output = benchmarks::FORMATS.iter().find(|f| f.key == "command-a").unwrap().output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert!(output.ends_with("]<|END_ACTION|>"));
/// ```
pub fn cohere_output(total_bytes: usize) -> String {
    let elements: Vec<String> = CALLS
        .iter()
        .enumerate()
        .map(|(i, call)| cohere_element(i, call.name, &json_arguments(call)))
        .collect();
    let calls = format!(
        "<|START_ACTION|>[\n    {}\n]<|END_ACTION|>",
        elements.join(",\n    ")
    );
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<|START_THINKING|>", "<|END_THINKING|><|START_RESPONSE|>")),
            content_end: "<|END_RESPONSE|>",
            calls: &calls,
        },
    )
}

/// One Cohere `write_file` action with a long JSON string argument.
pub fn cohere_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "<|START_ACTION|>[{}]<|END_ACTION|>",
            cohere_element(0, "write_file", arguments)
        )
    })
}

/// A Step-3.5 output: reasoning (the prompt opened `<think>`), content, three XML calls.
pub fn step35_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            let params: Vec<(&str, &str)> = call
                .params
                .iter()
                .map(|&(key, value)| match value {
                    Value::Str(v) | Value::Num(v) => (key, v),
                })
                .collect();
            xml_call(call.name, &params)
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", "\n</think>\n")),
            content_end: "\n",
            calls: &calls.join("\n"),
        },
    )
}

/// A GigaChat3.1 output: content, then three `<|function_call|>{json}` calls.
pub fn gigachat_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            format!(
                "<|function_call|>{{\"name\": \"{}\", \"arguments\": {}}}",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls.join(""),
        },
    )
}

/// One GigaChat3.1 `write_file` call with a long JSON string argument.
pub fn gigachat_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("<|function_call|>{{\"name\": \"write_file\", \"arguments\": {arguments}}}")
    })
}

/// A JSON array of `{"name", "arguments"}` calls.
fn name_arguments_array(calls: &[CallSpec]) -> String {
    let elements: Vec<String> = calls
        .iter()
        .map(|call| {
            format!(
                "{{\"name\": \"{}\", \"arguments\": {}}}",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    format!("[{}]", elements.join(", "))
}

/// An Apriel output: reasoning, `[BEGIN FINAL RESPONSE]`, content, a `<tool_calls>` array.
pub fn apriel_output(total_bytes: usize) -> String {
    let calls = format!("<tool_calls>{}</tool_calls>", name_arguments_array(CALLS));
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", "\n[BEGIN FINAL RESPONSE]\n")),
            content_end: "\n",
            calls: &calls,
        },
    )
}

/// One Apriel `write_file` call with a long JSON string argument (the prompt ended the reasoning).
pub fn apriel_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "<tool_calls>[{{\"name\": \"write_file\", \"arguments\": {arguments}}}]</tool_calls>"
        )
    })
}

/// A functionary v3.1 output: content, three `<function=NAME>{json}</function>` calls.
pub fn functionary_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            format!(
                "<function={}>{}</function>",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls.join(""),
        },
    )
}

/// One functionary v3.1 `write_file` call with a long JSON string argument.
pub fn functionary_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("<function=write_file>{arguments}</function>")
    })
}

/// An Apertus output: `<|inner_prefix|>` reasoning, content, a `<|tools_prefix|>` array keyed by name.
pub fn apertus_output(total_bytes: usize) -> String {
    let elements: Vec<String> = CALLS
        .iter()
        .map(|call| format!("{{\"{}\": {}}}", call.name, json_arguments(call)))
        .collect();
    let calls = format!("<|tools_prefix|>[{}]<|tools_suffix|>", elements.join(", "));
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<|inner_prefix|>", "<|inner_suffix|>")),
            content_end: "",
            calls: &calls,
        },
    )
}

/// Solar Open: a reasoning message, a content message and a calls message, each after the role header.
pub fn solar_output(total_bytes: usize) -> String {
    let mut calls = String::from("<|end|><|begin|>assistant<|tool_calls|>");
    for (i, call) in CALLS.iter().enumerate() {
        calls.push_str(&format!(
            "<|tool_call:begin|>{i:010}<|tool_call:name|>{}<|tool_call:args|>{}<|tool_call:end|>",
            call.name,
            json_arguments(call)
        ));
    }
    calls.push_str("<|calls|>");
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<|think|>", "<|end|><|begin|>assistant<|content|>")),
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Solar Open `write_file` call with a long JSON string argument.
pub fn solar_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "<|tool_calls|><|tool_call:begin|>0000000001<|tool_call:name|>write_file<|tool_call:args|>{arguments}<|tool_call:end|><|calls|>"
        )
    })
}

/// One Apertus `write_file` call with a long JSON string argument.
pub fn apertus_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("<|tools_prefix|>[{{\"write_file\": {arguments}}}]<|tools_suffix|>")
    })
}

/// A firefunction-v2 output: content, ` functools[…]` with three calls.
pub fn firefunction_output(total_bytes: usize) -> String {
    let calls = format!(" functools{}", name_arguments_array(CALLS));
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One firefunction-v2 `write_file` call with a long JSON string argument.
pub fn firefunction_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(" functools[{{\"name\": \"write_file\", \"arguments\": {arguments}}}]")
    })
}

/// A Magistral output: `[THINK]`, reasoning, `[/THINK]`, content, three v11 calls.
///
/// ```text
/// [THINK]…reasoning…[/THINK]Here is what I found…[TOOL_CALLS]get_weather[ARGS]{"city": "北京", "unit": "celsius"}…
/// ```
pub fn mistral_output(total_bytes: usize) -> String {
    let calls: String = CALLS
        .iter()
        .map(|call| {
            format!(
                "{MISTRAL_TOOL_CALLS}{}{MISTRAL_ARGS}{}",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some((MISTRAL_THINK, MISTRAL_THINK_END)),
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Magistral `write_file` call with a long JSON argument: `[TOOL_CALLS]write_file[ARGS]{…}`.
pub fn mistral_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("{MISTRAL_TOOL_CALLS}write_file{MISTRAL_ARGS}{arguments}")
    })
}

/// A Llama 3.x output: content, then `<|python_tag|>` and three JSON calls separated by `; `.
///
/// ```text
/// …content…<|python_tag|>{"name": "get_weather", "parameters": {"city": "北京", "unit": "celsius"}}; {"name": "search", …}
/// ```
pub fn llama3_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            format!(
                "{{\"name\": \"{}\", \"parameters\": {}}}",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    let calls = format!("{LLAMA3_PYTHON_TAG}{}", calls.join("; "));
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Llama 3.x `write_file` call with a long JSON argument, as the whole answer.
pub fn llama3_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("{{\"name\": \"write_file\", \"parameters\": {arguments}}}")
    })
}

/// An ERNIE-4.5-Thinking output: reasoning (the prompt opened `<think>`), `\n</think>\n\n`, a little
/// content, three Hermes-style calls.
///
/// ```text
/// …reasoning…\n</think>\n\nHere is what I found…\n<tool_call>\n{"name": "get_weather", "arguments": {…}}\n</tool_call>\n…
/// ```
pub fn ernie_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| hermes_call(call.name, &json_arguments(call)))
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", "\n</think>\n\n")),
            content_end: "\n",
            calls: &calls.join("\n"),
        },
    )
}

/// A Hunyuan-A13B output: `<think>` reasoning, `<answer>`, a little content, one `<tool_calls>` list of
/// three JSON calls, `</answer>`.
///
/// ```text
/// <think>\n…reasoning…\n</think>\n<answer>\nHere is what I found…\n<tool_calls>[{"name": "get_weather", "arguments": {…}}, …]</tool_calls>\n</answer>
/// ```
pub fn hunyuan_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            format!(
                "{{\"name\": \"{}\", \"arguments\": {}}}",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<think>\n", "\n</think>\n<answer>\n")),
            content_end: "\n",
            calls: &format!("<tool_calls>[{}]</tool_calls>\n</answer>", calls.join(", ")),
        },
    )
}

/// One Hunyuan-A13B `write_file` call with a long JSON argument, thinking off:
/// `<answer>\n<tool_calls>[{"name": "write_file", "arguments": {…}}]</tool_calls>`.
pub fn hunyuan_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "<answer>\n<tool_calls>[{{\"name\": \"write_file\", \"arguments\": {arguments}}}]</tool_calls>"
        )
    })
}

/// The end of LongCat's reasoning.
const LONGCAT_THINK_END: &str = "</longcat_think>";

/// A LongCat call: `<longcat_tool_call>{"name": …, "arguments": …}</longcat_tool_call>`.
fn longcat_call(name: &str, arguments: &str) -> String {
    format!(
        "<longcat_tool_call>{{\"name\": \"{name}\", \"arguments\": {arguments}}}</longcat_tool_call>"
    )
}

/// A LongCat-Flash-Thinking output: reasoning (the prompt opened `<longcat_think>`),
/// `\n</longcat_think>\n`, a little content, three `<longcat_tool_call>` JSON calls.
pub fn longcat_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| longcat_call(call.name, &json_arguments(call)))
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", "\n</longcat_think>\n")),
            content_end: "\n",
            calls: &calls.join("\n"),
        },
    )
}

/// One LongCat `write_file` call with a long JSON argument.
pub fn longcat_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| longcat_call("write_file", arguments))
}

const CHATML_TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
const GEMMA4_TAIL: &str = "<|turn>user\nHi<turn|>\n<|turn>model\n";
const GEMMA4_CHANNEL_END: &str = "<channel|>";

/// A Gemma 4 call: `<|tool_call>call:NAME{KEY:<|"|>VALUE<|"|>,…}<tool_call|>`.
fn gemma4_call(name: &str, params: &[(&str, &str)]) -> String {
    let members: Vec<String> = params
        .iter()
        .map(|(key, value)| format!("{key}:<|\"|>{value}<|\"|>"))
        .collect();
    format!(
        "<|tool_call>call:{name}{{{}}}<tool_call|>",
        members.join(",")
    )
}

/// A Gemma 4 output: the thought channel, content, three calls with every value a string.
///
/// ```
/// let output = benchmarks::gemma4_output(2_000);
/// assert!(output.starts_with("<|channel>thought\n"));
/// assert!(output.contains("<|tool_call>call:search{query:<|\"|>café prices in Paris<|\"|>,limit:<|\"|>5<|\"|>}<tool_call|>"));
/// ```
pub fn gemma4_output(total_bytes: usize) -> String {
    let calls: Vec<String> = CALLS
        .iter()
        .map(|call| {
            let params: Vec<(&str, &str)> = call
                .params
                .iter()
                .map(|(key, value)| match value {
                    Value::Str(s) | Value::Num(s) => (*key, *s),
                })
                .collect();
            gemma4_call(call.name, &params)
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("<|channel>thought\n", GEMMA4_CHANNEL_END)),
            content_end: "",
            calls: &calls.concat(),
        },
    )
}

/// One Gemma 4 `write_file` call whose `content` is about `arg_bytes` bytes of raw text between
/// `<|"|>` tokens (nothing escaped).
pub fn gemma4_long_argument(arg_bytes: usize) -> LongArgument {
    let content = file_text(arg_bytes, false);
    let output = gemma4_call(
        "write_file",
        &[("path", LONG_ARGUMENT_PATH), ("content", &content)],
    );
    LongArgument {
        output,
        content,
        arguments: None,
    }
}

const OLMO_THINK_TAIL: &str = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>";
const INTERNLM_ACTION: &str = "<|action_start|><|plugin|>";

/// A Phi-4-mini output: content, then `functools[…]` with three calls.
pub fn phi4_mini_output(total_bytes: usize) -> String {
    let calls = format!("functools{}", name_arguments_array(CALLS));
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Phi-4-mini `write_file` call with a long JSON string argument.
pub fn phi4_mini_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("functools[{{\"name\": \"write_file\", \"arguments\": {arguments}}}]")
    })
}

/// An xLAM output: content, then the call array inside `<tool_call>…</tool_call>`.
pub fn xlam_output(total_bytes: usize) -> String {
    let calls = format!(
        "{TOOL_CALL_OPEN}{}{TOOL_CALL_CLOSE}",
        name_arguments_array(CALLS)
    );
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One xLAM `write_file` call with a long JSON string argument: the bare array the template asks for.
pub fn xlam_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!("[{{\"name\": \"write_file\", \"arguments\": {arguments}}}]")
    })
}

/// An InternLM2.5 output: content, then three `<|action_start|><|plugin|>\n{…}<|action_end|>` blocks.
pub fn internlm_output(total_bytes: usize) -> String {
    let calls: String = CALLS
        .iter()
        .map(|call| {
            format!(
                "{INTERNLM_ACTION}\n{{\"name\": \"{}\", \"parameters\": {}}}<|action_end|>",
                call.name,
                json_arguments(call)
            )
        })
        .collect();
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One InternLM2.5 `write_file` call with a long JSON string argument.
pub fn internlm_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "{INTERNLM_ACTION}\n{{\"name\": \"write_file\", \"parameters\": {arguments}}}<|action_end|>"
        )
    })
}

/// A Jamba output: content, then `<tool_calls>[…]</tool_calls><|eom|>`.
pub fn jamba_output(total_bytes: usize) -> String {
    let calls = format!(
        "<tool_calls>{}</tool_calls><|eom|>",
        name_arguments_array(CALLS)
    );
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Jamba `write_file` call with a long JSON string argument.
pub fn jamba_long_argument(arg_bytes: usize) -> LongArgument {
    json_long_argument(arg_bytes, |arguments| {
        format!(
            "<tool_calls>[{{\"name\": \"write_file\", \"arguments\": {arguments}}}]</tool_calls>"
        )
    })
}

/// One Python call with every value a double-quoted string (JSON's escapes are Python's).
fn python_call(name: &str, params: &[(&str, &str)]) -> String {
    let args: Vec<String> = params
        .iter()
        .map(|(key, value)| {
            let mut quoted = String::from("\"");
            json_escape_into(value, &mut quoted);
            quoted.push('"');
            format!("{key}={quoted}")
        })
        .collect();
    format!("{name}({})", args.join(", "))
}

/// An Olmo 3 Think output: reasoning (the prompt opened `<think>`), content, then `<function_calls>`
/// with one Python call per line.
pub fn olmo_output(total_bytes: usize) -> String {
    let lines: Vec<String> = CALLS
        .iter()
        .map(|call| {
            let params: Vec<(&str, &str)> = call
                .params
                .iter()
                .map(|(key, value)| match value {
                    Value::Str(s) | Value::Num(s) => (*key, *s),
                })
                .collect();
            python_call(call.name, &params)
        })
        .collect();
    let calls = format!("<function_calls>\n{}\n</function_calls>", lines.join("\n"));
    build_output(
        total_bytes,
        &Layout {
            reasoning: Some(("", THINK_END)),
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Sarashina call, a Python dict: `{'name': 'NAME', 'arguments': {'KEY': "VALUE"}}`.
fn python_dict_call(name: &str, params: &[(&str, &str)]) -> String {
    let args: Vec<String> = params
        .iter()
        .map(|(key, value)| {
            let mut quoted = String::from("\"");
            json_escape_into(value, &mut quoted);
            quoted.push('"');
            format!("'{key}': {quoted}")
        })
        .collect();
    format!("{{'name': '{name}', 'arguments': {{{}}}}}", args.join(", "))
}

/// A Sarashina output: content, then `<|tool_calls|>` and a Python-literal list of the calls.
pub fn sarashina_output(total_bytes: usize) -> String {
    let dicts: Vec<String> = CALLS
        .iter()
        .map(|call| {
            let params: Vec<(&str, &str)> = call
                .params
                .iter()
                .map(|(key, value)| match value {
                    Value::Str(s) | Value::Num(s) => (*key, *s),
                })
                .collect();
            python_dict_call(call.name, &params)
        })
        .collect();
    let calls = format!("<|tool_calls|>[{}]", dicts.join(", "));
    build_output(
        total_bytes,
        &Layout {
            reasoning: None,
            content_end: "",
            calls: &calls,
        },
    )
}

/// One Sarashina `write_file` call with a long string argument, a Python string literal.
pub fn sarashina_long_argument(arg_bytes: usize) -> LongArgument {
    let content = file_text(arg_bytes, true);
    let call = python_dict_call(
        "write_file",
        &[("path", LONG_ARGUMENT_PATH), ("content", &content)],
    );
    LongArgument {
        output: format!("<|tool_calls|>[{call}]"),
        content,
        arguments: None,
    }
}

/// One Olmo 3 `write_file` call with a long string argument, a Python string literal.
pub fn olmo_long_argument(arg_bytes: usize) -> LongArgument {
    let content = file_text(arg_bytes, true);
    let call = python_call(
        "write_file",
        &[("path", LONG_ARGUMENT_PATH), ("content", &content)],
    );
    LongArgument {
        output: format!("<function_calls>\n{call}\n</function_calls>"),
        content,
        arguments: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many times each marker of a format's output appears (openers and closers balanced).
    fn markers(format: &Format) -> &'static [(&'static str, usize)] {
        // A format parsed through its template has the workloads of the family format it names.
        match format.key.strip_prefix("auto-").unwrap_or(format.key) {
            // The prompt opened `<think>`.
            "deepseek-v3.1" => &[
                ("<think>", 0),
                (THINK_END, 1),
                (CALLS_BEGIN, 1),
                (CALLS_END, 1),
                (CALL_BEGIN, 3),
                (SEP, 3),
                (CALL_END, 3),
            ],
            "qwen3-hermes" => &[
                ("<think>", 1),
                (THINK_END, 1),
                (TOOL_CALL_OPEN, 3),
                (TOOL_CALL_CLOSE, 3),
                ("{\"name\": ", 3),
            ],
            "qwen3-coder" => &[
                ("<think>", 0),
                (THINK_END, 0),
                (TOOL_CALL_OPEN, 3),
                (TOOL_CALL_CLOSE, 3),
                ("<function=", 3),
                ("</function>", 3),
                ("<parameter=", 6),
                ("</parameter>", 6),
            ],
            "kimi-k2" => &[
                ("<think>", 1),
                (THINK_END, 1),
                (KIMI_SECTION_BEGIN, 1),
                (KIMI_SECTION_END, 1),
                (KIMI_CALL_BEGIN, 3),
                (KIMI_ARGUMENT_BEGIN, 3),
                (KIMI_CALL_END, 3),
            ],
            // The prompt wrote the first `<|start|>assistant`; four messages, four headers.
            "gpt-oss" => &[
                ("<|start|>assistant", 4),
                ("<|channel|>", 5),
                ("<|message|>", 5),
                (HARMONY_END, 2),
                ("<|constrain|>json", 3),
                ("<|call|>", 3),
                ("<|return|>", 0),
            ],
            // The prompt opened `<think>`.
            "glm" => &[
                ("<think>", 0),
                (THINK_END, 1),
                (TOOL_CALL_OPEN, 3),
                (TOOL_CALL_CLOSE, 3),
                ("<arg_key>", 6),
                ("</arg_key>", 6),
                ("<arg_value>", 6),
                ("</arg_value>", 6),
            ],
            "mistral" => &[
                (MISTRAL_THINK, 1),
                (MISTRAL_THINK_END, 1),
                (MISTRAL_TOOL_CALLS, 3),
                (MISTRAL_ARGS, 3),
            ],
            "llama3" => &[(LLAMA3_PYTHON_TAG, 1), ("\"parameters\": ", 3), ("; {", 2)],
            "command-a" => &[
                ("<|START_THINKING|>", 1),
                ("<|END_THINKING|>", 1),
                ("<|START_ACTION|>", 1),
                ("\"tool_call_id\"", 3),
            ],
            "step-3.5" => &[
                ("<think>", 0),
                (THINK_END, 1),
                (TOOL_CALL_OPEN, 3),
                ("<parameter=", 6),
            ],
            "gigachat3" => &[("<|function_call|>", 3)],
            "apriel" => &[
                ("[BEGIN FINAL RESPONSE]", 1),
                ("<tool_calls>", 1),
                ("\"name\"", 3),
            ],
            "functionary-v3.1" => &[("<function=", 3), ("</function>", 3)],
            "exaone4" => &[
                ("<think>", 1),
                (THINK_END, 1),
                (TOOL_CALL_OPEN, 3),
                (TOOL_CALL_CLOSE, 3),
                ("{\"name\": ", 3),
            ],
            "sarashina" => &[("<|tool_calls|>", 1), ("'name': ", 3)],
            "solar-open" => &[("<|think|>", 1), ("<|end|>", 2), ("<|tool_call:begin|>", 3)],
            "apertus" => &[
                ("<|inner_prefix|>", 1),
                ("<|inner_suffix|>", 1),
                ("<|tools_prefix|>", 1),
            ],
            "firefunction-v2" => &[(" functools[", 1), ("\"name\"", 3)],
            // The prompt opened `<think>`.
            "ernie-4.5" => &[
                ("<think>", 0),
                (THINK_END, 1),
                (TOOL_CALL_OPEN, 3),
                (TOOL_CALL_CLOSE, 3),
            ],
            "hunyuan-a13b" => &[
                ("<think>", 1),
                (THINK_END, 1),
                ("<answer>", 1),
                ("</answer>", 1),
                ("<tool_calls>", 1),
                ("</tool_calls>", 1),
                ("{\"name\": ", 3),
            ],
            // The prompt opened `<longcat_think>`.
            "longcat" => &[
                ("<longcat_think>", 0),
                (LONGCAT_THINK_END, 1),
                ("<longcat_tool_call>", 3),
                ("</longcat_tool_call>", 3),
            ],
            "phi4-mini" => &[("functools[", 1), ("\"name\"", 3)],
            "xlam" => &[(TOOL_CALL_OPEN, 1), (TOOL_CALL_CLOSE, 1), ("\"name\"", 3)],
            "internlm2" => &[
                (INTERNLM_ACTION, 3),
                ("<|action_end|>", 3),
                ("\"parameters\"", 3),
            ],
            "jamba" => &[("<tool_calls>", 1), ("</tool_calls>", 1), ("\"name\"", 3)],
            "olmo3-think" => &[
                ("<think>", 0),
                (THINK_END, 1),
                ("<function_calls>", 1),
                ("</function_calls>", 1),
            ],
            "gemma4" => &[
                ("<|channel>thought\n", 1),
                (GEMMA4_CHANNEL_END, 1),
                ("<|tool_call>call:", 3),
                ("<tool_call|>", 3),
            ],
            // A `cargo xtask new-family` starter runs on the Qwen3 Hermes workloads (`..QWEN3_HERMES`);
            // a family with generators of its own adds an arm above.
            _ if format.output(2_000) == QWEN3_HERMES.output(2_000) => markers(&QWEN3_HERMES),
            // Families written as data that share Qwen3-Coder's XML calls (`..QWEN3_CODER`).
            _ if format.output(2_000) == QWEN3_CODER.output(2_000) => markers(&QWEN3_CODER),
            other => panic!("no markers for {other}"),
        }
    }

    /// Same bytes for the same size; sizes a little over the request; the prose ends where expected.
    #[test]
    fn outputs_are_deterministic_sized_and_balanced() {
        for format in FORMATS {
            for size in [2_000, 20_000, 200_000] {
                let output = format.output(size);
                assert_eq!(output, format.output(size), "{format}");
                assert!(
                    output.len() >= size && output.len() < size + 700,
                    "{format} {size}: {}",
                    output.len()
                );
                let end = format.prose_end_in(&output);
                assert!(end >= size * 95 / 100, "{format}: prose ends at {end}");
                assert!(end < output.len(), "{format}: no {}", format.prose_end);
                for (marker, count) in markers(format) {
                    assert_eq!(output.matches(marker).count(), *count, "{format} {marker}");
                }
                let names: Vec<usize> = format
                    .expected_calls()
                    .iter()
                    .map(|call| output.rfind(call.name).unwrap())
                    .collect();
                assert!(
                    names.is_sorted() && names[0] > end,
                    "{format}: calls after the prose"
                );
            }
        }
    }

    /// Long arguments: deterministic, sized, the file text in the output (escaped or raw).
    #[test]
    fn long_arguments_are_deterministic_sized_and_intact() {
        for format in FORMATS {
            for size in [2_000, 20_000, 200_000] {
                let long = format.long_argument(size);
                assert_eq!(long, format.long_argument(size), "{format}");
                assert!(
                    long.output.len() >= size && long.output.len() < size + 300,
                    "{format} {size}: {}",
                    long.output.len()
                );
                assert_eq!(long.output.matches("write_file").count(), 1);
                for needle in ["\"world\"", "\\", "<", "北京", "\t", "\n"] {
                    assert!(long.content.contains(needle), "{format}: {needle:?}");
                }
                match &long.arguments {
                    Some(arguments) => {
                        assert!(format.json_arguments);
                        assert!(long.output.contains(arguments.as_str()));
                        let mut escaped = String::new();
                        json_escape_into(&long.content, &mut escaped);
                        assert!(arguments.contains(&escaped));
                        assert!(!arguments.contains('\n'));
                    }
                    None => {
                        assert!(!format.json_arguments);
                        let framed = match format.key {
                            "glm" => format!("<arg_value>{}</arg_value>", long.content),
                            "olmo3-think" => {
                                let mut quoted = String::from("content=\"");
                                json_escape_into(&long.content, &mut quoted);
                                quoted + "\")"
                            }
                            "sarashina" => {
                                let mut quoted = String::from("'content': \"");
                                json_escape_into(&long.content, &mut quoted);
                                quoted + "\"}}]"
                            }
                            "gemma4" => format!("content:<|\"|>{}<|\"|>}}", long.content),
                            _ => format!("<parameter=content>\n{}\n</parameter>", long.content),
                        };
                        assert!(long.output.contains(&framed));
                        assert!(!long.content.contains("</parameter"));
                        assert!(!long.content.contains("</arg_value"));
                    }
                }
            }
        }
    }

    /// FNV-1a, to pin workloads without storing them.
    fn fnv1a(text: &str) -> u64 {
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// The DeepSeek workloads are byte for byte the ones the README's numbers were measured on (before
    /// the other formats were added).
    #[test]
    fn deepseek_workloads_are_unchanged() {
        for (size, output, long) in [
            (
                2_000,
                (2_371, 0x3d75_8ee8_72f8_0ac0),
                (2_236, 0x7093_195e_9a10_d51d),
            ),
            (
                20_000,
                (20_045, 0xff5a_224d_da70_146d),
                (20_194, 0x804c_2e0f_3bd1_ec11),
            ),
            (
                200_000,
                (200_113, 0x2544_4e3c_47ad_c6fb),
                (200_174, 0x4188_6e1d_4e7e_e36c),
            ),
        ] {
            let text = deepseek_v31_output(size);
            assert_eq!((text.len(), fnv1a(&text)), output, "output {size}");
            let text = deepseek_v31_long_argument(size).output;
            assert_eq!((text.len(), fnv1a(&text)), long, "long argument {size}");
        }
    }

    /// JSON arguments are valid JSON strings inside: every quote escaped, no raw newline.
    #[test]
    fn long_json_argument_is_valid_json() {
        let long = deepseek_v31_long_argument(2_000);
        let args = long.arguments.unwrap();
        let inner = args
            .strip_prefix(r#"{"path": "a.txt", "content": ""#)
            .unwrap();
        let inner = inner.strip_suffix(r#""}"#).unwrap();
        let mut escaped = false;
        for c in inner.chars() {
            assert!(escaped || c != '"', "unescaped quote");
            assert!(c != '\n');
            escaped = !escaped && c == '\\';
        }
        assert!(!escaped);
    }

    /// Expected arguments: JSON as written, or every value a string for XML parameters.
    #[test]
    fn expected_calls() {
        let calls = DEEPSEEK_V31.expected_calls();
        assert_eq!(calls[1].name, "search");
        assert_eq!(
            calls[1].arguments,
            r#"{"query": "café prices in Paris", "limit": 5}"#
        );
        let calls = QWEN3_CODER.expected_calls();
        assert_eq!(
            calls[2].arguments,
            r#"{"path": "notes/a < b.txt", "line": "12"}"#
        );
        let output = qwen3_coder_output(2_000);
        assert!(output.contains("<parameter=line>\n12\n</parameter>\n</function>\n</tool_call>"));
    }

    /// The template formats measure the generic parser: their templates load and their analyses find
    /// the calls.
    #[test]
    fn template_formats_build_generic_parsers() {
        for format in [&AUTO_QWEN3_HERMES, &AUTO_QWEN3_CODER] {
            for factory in [format.output_parsers(), format.long_argument_parsers()] {
                let factory = factory.unwrap_or_else(|e| panic!("{format}: {e}"));
                assert_eq!(factory.make().name(), generic::NAME, "{format}");
            }
        }
    }

    /// Keys are unique (they name divan benchmarks); models resolve to themselves in the table.
    #[test]
    fn keys_are_unique() {
        let mut keys: Vec<&str> = FORMATS.iter().map(|f| f.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), FORMATS.len());
    }
}
