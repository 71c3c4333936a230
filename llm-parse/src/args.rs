//! Command-line arguments: a small hand-written parser, and the usage text.
//!
//! Flags take their value either as the next argument (`--model NAME`) or inline (`--model=NAME`). A lone
//! `-` is the standard input, and `--` ends the flags. A flag given twice is an error, as is a flag that
//! does not apply to the chosen mode, so that nothing the user typed is silently ignored.

use std::ffi::OsString;
use std::path::PathBuf;

use parser_auto::{ReasoningFormat, Stage};

/// The usage text printed by `--help`.
pub const HELP: &str = "\
llm-parse: split raw LLM output into reasoning, content and tool calls.

It reads the text a model generated (special tokens included), picks the parser for the
model family, and prints the parsed message as JSON:
  {\"reasoning\": ..., \"content\": ..., \"tool_calls\": [{\"id\", \"name\", \"arguments\", \"valid\"}]}
A call's arguments are printed as JSON when valid; a call whose arguments are broken or cut
off keeps the raw text as a string, with \"valid\": false.

USAGE:
  llm-parse                                  parse the built-in sample of every parser and show it
  llm-parse --model MODEL [OPTIONS] [FILE|-] parse FILE (or stdin) with the parser for MODEL
  llm-parse --parser NAME [OPTIONS] [FILE|-] ... with a parser picked by name (see --list)
  llm-parse --template FILE [OPTIONS] [FILE|-]
                                             ... with the parser the model's chat template calls for
  llm-parse --model-dir DIR [OPTIONS] [FILE|-]
                                             ... with the chat template of a Hugging Face model dir
  llm-parse --analyze TEMPLATE|DIR [--json]  what the template analysis finds, and the route taken
  llm-parse --render CONVERSATION.json --template FILE|--model-dir DIR
                                             print the prompt the model sees for a conversation
  llm-parse --batch CASES.jsonl [--chunk ..] one JSON result line per test case
  llm-parse --list                           the registered parsers, their aliases and models
  llm-parse --grammar (--model M | --parser P | --template T) --tools F [GRAMMAR OPTIONS]
                                             the constrained-decoding grammar of a request

CHOOSING THE PARSER:
  --model MODEL           a model id, e.g. deepseek-ai/DeepSeek-R1 or unsloth/DeepSeek-V3.1-GGUF
                          (organisation prefixes and -GGUF/-AWQ/-FP8... suffixes are ignored)
  --parser NAME           a parser name or alias, e.g. deepseek-r1, deepseek_v31 (wins over
                          --model and the template)
  --template FILE         the model's chat template: a .jinja file, or a tokenizer_config.json
                          or chat_template.json (a directory is read as with --model-dir)
  --model-dir DIR         a Hugging Face model directory: its chat_template.jinja,
                          chat_template.json or tokenizer_config.json, with its special tokens
  --template-name NAME    which of the model's named chat templates to use (a tokenizer_config.json
                          may list several: default, tool_use, rag); without it, as transformers
                          picks: tool_use when the request has tools (--tools) and the model has
                          one, else default
  With a template (--template or --model-dir), a --model that a registered parser knows still
  picks that parser; otherwise the template does: the family parser whose special tokens it
  writes, else a generic parser configured by the template's analysis (see --analyze). The
  route taken is printed on stderr as one line, 'llm-parse: route: ...'.

DESCRIBING THE REQUEST:
  --prompt-tail TEXT      the end of the rendered prompt, e.g. '<｜Assistant｜><think>';
                          it tells whether the output starts inside reasoning
                          (use $'...' in bash to pass newlines: $'<think>\\n')
  --thinking on|off       the request's enable_thinking switch
  --stage reasoning|content
                          force where the output starts (overrides detection)
  --tools FILE            the request's tools: an OpenAI tools JSON array
                          (or an object with a \"tools\" array, such as a request body)
  --reasoning-format none|extract
                          none keeps reasoning inline in the content, markers included
                          (llama.cpp's default); extract (the default) splits it out
  --strict                FastDeploy's rule: once answer text has been written,
                          later tool-call markup is content

STREAMING:
  --stream                print every streaming delta as a JSON line as it is produced,
                          then {\"final\": MESSAGE}; the input is fed 4 characters at a time
                          unless --chunk says otherwise
  --chunk N|random:SEED   feed the parser N characters at a time, or random pieces of
                          1 to 12 characters from SEED, and print the accumulated message
                          (it must equal the one-shot result)

BATCH (conformance runs):
  --batch FILE.jsonl|-    read test cases in the corpus format (corpus/VECTOR_FORMAT.md; the
                          \"expected\" field is ignored) and write one line per case:
                          {\"id\", \"reasoning\", \"content\", \"tool_calls\", \"error\", \"route\"}
                          (\"route\": how the case's parser was chosen). A bad line, an unknown
                          model or a template that cannot be loaded sets \"error\" for that
                          case only. Works with --chunk and --strict.
  --templates DIR         where the cases' \"template\" files live: a case naming one is parsed
                          by its model name when a registered parser knows it, else by its
                          template (as with --template)
  --ignore-model          withhold the cases' \"model\": every parser is picked by the case's
                          template alone

ANALYSIS (when a new model misbehaves):
  --analyze TEMPLATE|DIR  analyse a chat template (.jinja, tokenizer_config.json or
                          chat_template.json) or a model directory's template (its default one,
                          or the one --template-name names), and print the
                          detected reasoning, content and tool-call modes, the markers, the
                          capabilities, the generation prompt (what the template writes
                          after the user's message), the preserved tokens and the route a
                          model with this template takes when its name is unknown; a file
                          that is not a chat template (no Jinja syntax, or no message in
                          its render) is an error
  --json                  with --analyze: print the template's name, the route and the
                          analysis as JSON instead

RENDERING (what does the model actually see?):
  --render FILE|-         render an OpenAI-style conversation with the chat template given by
                          --template or --model-dir and print the prompt, byte for byte as
                          transformers renders it. FILE holds a request body
                          {\"messages\": [...], \"tools\": [...]} (or just the messages array);
                          add_generation_prompt (default true), enable_thinking and any other
                          template keyword arguments (top level, or in chat_template_kwargs)
                          are passed to the template. Where the template lacks a feature
                          (tools, a system role, tool calls or results), the conversation is
                          rewritten to fit, and stderr says so ('llm-parse: polyfill: ...').
                          --thinking and --tools override the file's.

CONSTRAINED DECODING:
  --grammar               print the constraint of a request instead of parsing: the grammar
                          the output must follow, for llguidance (Lark), llama.cpp (GBNF,
                          lazy triggers, preserved tokens) and vLLM / SGLang (xgrammar
                          structural tag); as one JSON object
                          {\"lark\", \"gbnf\", \"structural_tag\", \"lazy\", \"triggers\",
                          \"preserved_tokens\"} unless --format picks one form. The parser
                          comes from --model, --parser or --template/--model-dir as when
                          parsing; --prompt-tail, --thinking and --stage say where the output
                          starts (inside reasoning, or not). Needs --tools.
  --tool-choice auto|required|none|NAME
                          the request's tool_choice (default auto; NAME: that function)
  --no-parallel           parallel_tool_calls: false (at most one call)
  --format lark|gbnf|structural-tag
                          print only this form, as the engine takes it (the structural
                          tag as JSON)

OTHER:
  --list                  list the registered parsers
  -h, --help              this text
  -V, --version           the version

EXAMPLES:
  llm-parse
  llm-parse --list
  llm-parse --model deepseek-ai/DeepSeek-R1 output.txt
  printf 'Hmm.</think>Hi!' | llm-parse --model deepseek-ai/DeepSeek-R1
  llm-parse --model deepseek-ai/DeepSeek-V3.1 --prompt-tail '<｜Assistant｜><think>' out.txt
  llm-parse --parser deepseek_v31 --tools tools.json --stream --chunk 3 out.txt
  llm-parse --batch corpus/vllm/deepseek_v31.jsonl --chunk random:7
  llm-parse --template templates/Qwen3-Coder.jinja --tools tools.json out.txt
  llm-parse --model-dir ~/models/Qwen3-8B --stream out.txt
  llm-parse --analyze templates/Qwen3-Coder.jinja
  llm-parse --render request.json --template templates/google-gemma-2-2b-it.jinja
  llm-parse --batch corpus/llama_cpp/glm.jsonl --templates templates --ignore-model
  llm-parse --grammar --model Qwen/Qwen3-8B --tools tools.json --tool-choice required

Generated call ids come from a fixed seed: the same input always gives the same output.
Errors go to stderr, prefixed 'llm-parse: error:', with exit code 2.
";

/// How the input is cut into pieces for the streaming path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunking {
    /// Pieces of this many characters (at least 1).
    Fixed(usize),
    /// Pieces of 1 to 12 characters, from a xorshift generator with this seed.
    Random(u64),
}

/// Where the model output is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// The standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

/// Where a chat template comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateSource {
    /// `--template FILE`: a `.jinja` file or a tokenizer config (a directory is read as a model dir).
    File(PathBuf),
    /// `--model-dir DIR`: a Hugging Face model directory.
    ModelDir(PathBuf),
}

/// Parsing one output: which parser, what the request said, and how to drive it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunArgs {
    /// `--model`.
    pub model: Option<String>,
    /// `--parser`.
    pub parser: Option<String>,
    /// `--template` or `--model-dir`.
    pub template: Option<TemplateSource>,
    /// `--template-name`: one of the model's named templates, for every request.
    pub template_name: Option<String>,
    /// `--prompt-tail`.
    pub prompt_tail: Option<String>,
    /// `--thinking`.
    pub thinking: Option<bool>,
    /// `--tools`.
    pub tools: Option<PathBuf>,
    /// `--reasoning-format`.
    pub reasoning_format: ReasoningFormat,
    /// `--strict`.
    pub strict: bool,
    /// `--stage`.
    pub stage: Option<Stage>,
    /// `--stream`.
    pub stream: bool,
    /// `--chunk`.
    pub chunk: Option<Chunking>,
    /// The positional FILE, or stdin.
    pub input: Input,
}

/// Running a file of test cases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchArgs {
    /// The cases (`-` is stdin).
    pub file: Input,
    /// `--chunk`: drive the streaming path.
    pub chunk: Option<Chunking>,
    /// `--templates`: where the cases' templates live.
    pub templates: Option<PathBuf>,
    /// `--strict`, for every case.
    pub strict: bool,
    /// `--ignore-model`: withhold the cases' model names.
    pub ignore_model: bool,
}

/// Analysing a chat template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzeArgs {
    /// The template file or model directory.
    pub path: PathBuf,
    /// `--template-name`: one of the model's named templates.
    pub template_name: Option<String>,
    /// `--json`: the analysis as JSON instead of the report.
    pub json: bool,
}

/// Rendering a conversation to a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderArgs {
    /// The conversation (`-` is stdin).
    pub conversation: Input,
    /// `--template` or `--model-dir`.
    pub template: TemplateSource,
    /// `--template-name`: one of the model's named templates, whatever the tools.
    pub template_name: Option<String>,
    /// `--thinking`.
    pub thinking: Option<bool>,
    /// `--tools`.
    pub tools: Option<PathBuf>,
}

/// The form `--grammar --format` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrammarFormat {
    /// llguidance's Lark.
    Lark,
    /// llama.cpp's GBNF.
    Gbnf,
    /// xgrammar's structural tag (JSON).
    StructuralTag,
}

/// The request's `tool_choice`, as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolChoiceArg {
    /// `auto`.
    Auto,
    /// `required`.
    Required,
    /// `none`.
    None,
    /// A function name.
    Function(String),
}

/// Printing the constraint of one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarArgs {
    /// Which parser, and what the request said (its input and driving fields are unused).
    pub run: RunArgs,
    /// `--tool-choice`.
    pub tool_choice: ToolChoiceArg,
    /// False with `--no-parallel`.
    pub parallel: bool,
    /// `--format`: one form, or all of them as JSON.
    pub format: Option<GrammarFormat>,
}

/// What the user asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// No arguments: show every parser on its sample.
    Samples,
    /// `--help`.
    Help,
    /// `--version`.
    Version,
    /// `--list`.
    List,
    /// Parse one output.
    Run(RunArgs),
    /// `--batch`.
    Batch(BatchArgs),
    /// `--analyze`.
    Analyze(AnalyzeArgs),
    /// `--render`.
    Render(RenderArgs),
    /// `--grammar`.
    Grammar(GrammarArgs),
}

/// Every flag as typed, before the mode is decided.
#[derive(Default)]
struct Raw {
    help: bool,
    version: bool,
    list: bool,
    strict: bool,
    stream: bool,
    json: bool,
    ignore_model: bool,
    grammar: bool,
    no_parallel: bool,
    tool_choice: Option<String>,
    format: Option<String>,
    model: Option<String>,
    parser: Option<String>,
    template: Option<String>,
    model_dir: Option<String>,
    template_name: Option<String>,
    analyze: Option<String>,
    render: Option<String>,
    templates: Option<String>,
    prompt_tail: Option<String>,
    thinking: Option<String>,
    tools: Option<String>,
    reasoning_format: Option<String>,
    stage: Option<String>,
    chunk: Option<String>,
    batch: Option<String>,
    positional: Vec<String>,
}

/// Parses the arguments (without the program name).
pub fn parse(args: Vec<OsString>) -> Result<Command, String> {
    if args.is_empty() {
        return Ok(Command::Samples);
    }
    let mut strings = Vec::with_capacity(args.len());
    for arg in args {
        match arg.into_string() {
            Ok(arg) => strings.push(arg),
            Err(arg) => return Err(format!("argument {arg:?} is not valid UTF-8")),
        }
    }
    let raw = read_flags(strings)?;
    if raw.help {
        return Ok(Command::Help);
    }
    if raw.version {
        return Ok(Command::Version);
    }
    if raw.list {
        return Ok(Command::List);
    }
    if raw.json && raw.analyze.is_none() {
        return Err("`--json` only applies to --analyze".to_owned());
    }
    if raw.ignore_model && raw.batch.is_none() {
        return Err("`--ignore-model` only applies to --batch".to_owned());
    }
    if raw.grammar {
        return grammar_command(raw);
    }
    let grammar_only = [
        ("--tool-choice", raw.tool_choice.is_some()),
        ("--no-parallel", raw.no_parallel),
        ("--format", raw.format.is_some()),
    ];
    if let Some((flag, _)) = grammar_only.iter().find(|(_, given)| *given) {
        return Err(format!("`{flag}` only applies to --grammar"));
    }
    if let Some(path) = raw.analyze.clone() {
        return analyze_command(raw, path);
    }
    if let Some(file) = raw.render.clone() {
        return render_command(raw, file);
    }
    match raw.batch.clone() {
        Some(file) => batch_command(raw, file),
        None => run_command(raw),
    }
}

/// Sorts the arguments into flags and positionals.
fn read_flags(args: Vec<String>) -> Result<Raw, String> {
    let mut raw = Raw::default();
    let mut args = args.into_iter();
    let mut flags_ended = false;
    while let Some(arg) = args.next() {
        if flags_ended || arg == "-" || !arg.starts_with('-') {
            raw.positional.push(arg);
            continue;
        }
        if arg == "--" {
            flags_ended = true;
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg, None),
        };
        let switch = match flag.as_str() {
            "-h" | "--help" => Some(&mut raw.help),
            "-V" | "--version" => Some(&mut raw.version),
            "--list" => Some(&mut raw.list),
            "--strict" => Some(&mut raw.strict),
            "--stream" => Some(&mut raw.stream),
            "--json" => Some(&mut raw.json),
            "--ignore-model" => Some(&mut raw.ignore_model),
            "--grammar" => Some(&mut raw.grammar),
            "--no-parallel" => Some(&mut raw.no_parallel),
            _ => None,
        };
        if let Some(switch) = switch {
            if inline.is_some() {
                return Err(format!("`{flag}` takes no value"));
            }
            if *switch {
                return Err(format!("`{flag}` is given twice"));
            }
            *switch = true;
            continue;
        }
        let slot = match flag.as_str() {
            "--model" => &mut raw.model,
            "--parser" => &mut raw.parser,
            "--template" => &mut raw.template,
            "--model-dir" => &mut raw.model_dir,
            "--template-name" => &mut raw.template_name,
            "--analyze" => &mut raw.analyze,
            "--render" => &mut raw.render,
            "--templates" => &mut raw.templates,
            "--prompt-tail" => &mut raw.prompt_tail,
            "--thinking" => &mut raw.thinking,
            "--tools" => &mut raw.tools,
            "--reasoning-format" => &mut raw.reasoning_format,
            "--stage" => &mut raw.stage,
            "--chunk" => &mut raw.chunk,
            "--batch" => &mut raw.batch,
            "--tool-choice" => &mut raw.tool_choice,
            "--format" => &mut raw.format,
            _ => return Err(format!("unknown flag `{flag}` (see `llm-parse --help`)")),
        };
        if slot.is_some() {
            return Err(format!("`{flag}` is given twice"));
        }
        let value = match inline {
            Some(value) => value,
            // A prompt tail is free text; any other value that looks like a flag means the value is missing.
            None => match args.next() {
                Some(value) if flag == "--prompt-tail" || !value.starts_with("--") => value,
                _ => return Err(format!("`{flag}` needs a value (see `llm-parse --help`)")),
            },
        };
        *slot = Some(value);
    }
    Ok(raw)
}

fn batch_command(raw: Raw, file: String) -> Result<Command, String> {
    let not_for_batch = [
        ("--model", raw.model.is_some()),
        ("--parser", raw.parser.is_some()),
        ("--template", raw.template.is_some()),
        ("--model-dir", raw.model_dir.is_some()),
        ("--template-name", raw.template_name.is_some()),
        ("--prompt-tail", raw.prompt_tail.is_some()),
        ("--thinking", raw.thinking.is_some()),
        ("--tools", raw.tools.is_some()),
        ("--reasoning-format", raw.reasoning_format.is_some()),
        ("--stage", raw.stage.is_some()),
        ("--stream", raw.stream),
    ];
    if let Some((flag, _)) = not_for_batch.iter().find(|(_, given)| *given) {
        return Err(format!(
            "`{flag}` does not apply to --batch: each case carries its own request fields"
        ));
    }
    if let Some(extra) = raw.positional.first() {
        return Err(format!("unexpected argument `{extra}` with --batch"));
    }
    Ok(Command::Batch(BatchArgs {
        file: input_from(&file),
        chunk: raw.chunk.as_deref().map(parse_chunk).transpose()?,
        templates: raw.templates.map(PathBuf::from),
        strict: raw.strict,
        ignore_model: raw.ignore_model,
    }))
}

fn render_command(raw: Raw, file: String) -> Result<Command, String> {
    let not_for_render = [
        ("--batch", raw.batch.is_some()),
        ("--model", raw.model.is_some()),
        ("--parser", raw.parser.is_some()),
        ("--templates", raw.templates.is_some()),
        ("--prompt-tail", raw.prompt_tail.is_some()),
        ("--reasoning-format", raw.reasoning_format.is_some()),
        ("--stage", raw.stage.is_some()),
        ("--chunk", raw.chunk.is_some()),
        ("--stream", raw.stream),
        ("--strict", raw.strict),
    ];
    if let Some((flag, _)) = not_for_render.iter().find(|(_, given)| *given) {
        return Err(format!(
            "`{flag}` does not apply to --render, which only builds the prompt"
        ));
    }
    if let Some(extra) = raw.positional.first() {
        return Err(format!("unexpected argument `{extra}` with --render"));
    }
    let template = match (raw.template, raw.model_dir) {
        (Some(file), None) => TemplateSource::File(PathBuf::from(file)),
        (None, Some(dir)) => TemplateSource::ModelDir(PathBuf::from(dir)),
        _ => {
            return Err(
                "--render needs the chat template: --template FILE or --model-dir DIR (one of them)"
                    .to_owned(),
            );
        }
    };
    Ok(Command::Render(RenderArgs {
        conversation: input_from(&file),
        template,
        template_name: raw.template_name,
        thinking: raw.thinking.as_deref().map(parse_thinking).transpose()?,
        tools: raw.tools.map(PathBuf::from),
    }))
}

fn analyze_command(raw: Raw, path: String) -> Result<Command, String> {
    let not_for_analyze = [
        ("--batch", raw.batch.is_some()),
        ("--model", raw.model.is_some()),
        ("--parser", raw.parser.is_some()),
        ("--template", raw.template.is_some()),
        ("--model-dir", raw.model_dir.is_some()),
        ("--templates", raw.templates.is_some()),
        ("--prompt-tail", raw.prompt_tail.is_some()),
        ("--thinking", raw.thinking.is_some()),
        ("--tools", raw.tools.is_some()),
        ("--reasoning-format", raw.reasoning_format.is_some()),
        ("--stage", raw.stage.is_some()),
        ("--chunk", raw.chunk.is_some()),
        ("--stream", raw.stream),
        ("--strict", raw.strict),
    ];
    if let Some((flag, _)) = not_for_analyze.iter().find(|(_, given)| *given) {
        return Err(format!(
            "`{flag}` does not apply to --analyze, which only reads the template"
        ));
    }
    if let Some(extra) = raw.positional.first() {
        return Err(format!("unexpected argument `{extra}` with --analyze"));
    }
    Ok(Command::Analyze(AnalyzeArgs {
        path: PathBuf::from(path),
        template_name: raw.template_name,
        json: raw.json,
    }))
}

fn run_command(raw: Raw) -> Result<Command, String> {
    run_args(raw).map(Command::Run)
}

/// The parser choice and request fields shared by parsing and `--grammar`.
fn run_args(raw: Raw) -> Result<RunArgs, String> {
    if raw.model.is_none()
        && raw.parser.is_none()
        && raw.template.is_none()
        && raw.model_dir.is_none()
    {
        return Err(
            "say which parser to use: --model MODEL, --parser NAME, --template FILE or --model-dir DIR \
             (see `llm-parse --help`)"
                .to_owned(),
        );
    }
    let template = match (raw.template, raw.model_dir) {
        (Some(_), Some(_)) => {
            return Err(
                "give the chat template once: --template FILE or --model-dir DIR, not both"
                    .to_owned(),
            );
        }
        (Some(file), None) => Some(TemplateSource::File(PathBuf::from(file))),
        (None, Some(dir)) => Some(TemplateSource::ModelDir(PathBuf::from(dir))),
        (None, None) => None,
    };
    if raw.templates.is_some() {
        return Err("`--templates` only applies to --batch; use --template FILE".to_owned());
    }
    if raw.template_name.is_some() && template.is_none() {
        return Err(
            "`--template-name` names one of the templates of --template FILE or --model-dir DIR"
                .to_owned(),
        );
    }
    if raw.positional.len() > 1 {
        return Err(format!(
            "one input at a time: got `{}` and `{}`",
            raw.positional[0], raw.positional[1]
        ));
    }
    Ok(RunArgs {
        model: raw.model,
        parser: raw.parser,
        template,
        template_name: raw.template_name,
        prompt_tail: raw.prompt_tail,
        thinking: raw.thinking.as_deref().map(parse_thinking).transpose()?,
        tools: raw.tools.map(PathBuf::from),
        reasoning_format: match raw.reasoning_format.as_deref() {
            None => ReasoningFormat::Extract,
            Some(value) => parse_reasoning_format(value)?,
        },
        strict: raw.strict,
        stage: raw.stage.as_deref().map(parse_stage).transpose()?,
        stream: raw.stream,
        chunk: raw.chunk.as_deref().map(parse_chunk).transpose()?,
        input: raw
            .positional
            .first()
            .map_or(Input::Stdin, |file| input_from(file)),
    })
}

fn grammar_command(mut raw: Raw) -> Result<Command, String> {
    let not_for_grammar = [
        ("--analyze", raw.analyze.is_some()),
        ("--render", raw.render.is_some()),
        ("--batch", raw.batch.is_some()),
        ("--reasoning-format", raw.reasoning_format.is_some()),
        ("--chunk", raw.chunk.is_some()),
        ("--stream", raw.stream),
        ("--strict", raw.strict),
    ];
    if let Some((flag, _)) = not_for_grammar.iter().find(|(_, given)| *given) {
        return Err(format!(
            "`{flag}` does not apply to --grammar, which prints a request's constraint"
        ));
    }
    if let Some(extra) = raw.positional.first() {
        return Err(format!(
            "unexpected argument `{extra}` with --grammar (it reads no model output)"
        ));
    }
    if raw.tools.is_none() {
        return Err("--grammar needs the request's tools: --tools FILE".to_owned());
    }
    let tool_choice = match raw.tool_choice.take().as_deref() {
        None | Some("auto") => ToolChoiceArg::Auto,
        Some("required") => ToolChoiceArg::Required,
        Some("none") => ToolChoiceArg::None,
        Some("") => return Err("`--tool-choice` needs a value".to_owned()),
        Some(name) => ToolChoiceArg::Function(name.to_owned()),
    };
    let format = match raw.format.take().as_deref() {
        None => None,
        Some("lark") => Some(GrammarFormat::Lark),
        Some("gbnf") => Some(GrammarFormat::Gbnf),
        Some("structural-tag") => Some(GrammarFormat::StructuralTag),
        Some(other) => {
            return Err(format!(
                "`--format` is `lark`, `gbnf` or `structural-tag`, not `{other}`"
            ));
        }
    };
    let parallel = !raw.no_parallel;
    Ok(Command::Grammar(GrammarArgs {
        run: run_args(raw)?,
        tool_choice,
        parallel,
        format,
    }))
}

fn input_from(name: &str) -> Input {
    if name == "-" {
        Input::Stdin
    } else {
        Input::File(PathBuf::from(name))
    }
}

fn parse_thinking(value: &str) -> Result<bool, String> {
    match value {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("`--thinking` is `on` or `off`, not `{value}`")),
    }
}

fn parse_reasoning_format(value: &str) -> Result<ReasoningFormat, String> {
    match value {
        "none" => Ok(ReasoningFormat::Inline),
        "extract" => Ok(ReasoningFormat::Extract),
        _ => Err(format!(
            "`--reasoning-format` is `none` or `extract`, not `{value}`"
        )),
    }
}

fn parse_stage(value: &str) -> Result<Stage, String> {
    match value {
        "reasoning" => Ok(Stage::Reasoning),
        "content" => Ok(Stage::Content),
        _ => Err(format!(
            "`--stage` is `reasoning` or `content`, not `{value}`"
        )),
    }
}

/// `N` (a positive number of characters) or `random:SEED`.
fn parse_chunk(value: &str) -> Result<Chunking, String> {
    let bad = || {
        format!("`--chunk` is a number of characters (1 or more) or `random:SEED`, not `{value}`")
    };
    match value.strip_prefix("random:") {
        Some(seed) => seed.parse::<u64>().map(Chunking::Random).map_err(|_| bad()),
        None => match value.parse::<usize>() {
            Ok(size) if size > 0 => Ok(Chunking::Fixed(size)),
            _ => Err(bad()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from).collect())
    }

    #[test]
    fn no_arguments_is_samples() {
        assert_eq!(parse_strs(&[]), Ok(Command::Samples));
    }

    #[test]
    fn a_run_with_every_flag() {
        let Ok(Command::Run(run)) = parse_strs(&[
            "--model",
            "deepseek-ai/DeepSeek-R1",
            "--prompt-tail=<think>",
            "--thinking",
            "off",
            "--strict",
            "--stage",
            "reasoning",
            "--reasoning-format",
            "none",
            "--chunk",
            "random:7",
            "out.txt",
        ]) else {
            panic!("not a run");
        };
        assert_eq!(run.model.as_deref(), Some("deepseek-ai/DeepSeek-R1"));
        assert_eq!(run.prompt_tail.as_deref(), Some("<think>"));
        assert_eq!(run.thinking, Some(false));
        assert!(run.strict);
        assert_eq!(run.stage, Some(Stage::Reasoning));
        assert_eq!(run.reasoning_format, ReasoningFormat::Inline);
        assert_eq!(run.chunk, Some(Chunking::Random(7)));
        assert_eq!(run.input, Input::File(PathBuf::from("out.txt")));
    }

    #[test]
    fn a_prompt_tail_may_look_like_a_flag() {
        let Ok(Command::Run(run)) = parse_strs(&["--parser", "x", "--prompt-tail", "--x"]) else {
            panic!("not a run");
        };
        assert_eq!(run.prompt_tail.as_deref(), Some("--x"));
        assert_eq!(run.input, Input::Stdin);
    }

    #[test]
    fn mistakes_are_errors() {
        for args in [
            &["--model"][..],
            &["--model", "--stream"],
            &["--bogus"],
            &["--model", "a", "--model", "b"],
            &["--model", "a", "--chunk", "0"],
            &["--model", "a", "--chunk", "random:x"],
            &["--model", "a", "--thinking", "maybe"],
            &["--model", "a", "--stream=yes"],
            &["--model", "a", "one", "two"],
            &["--batch", "cases.jsonl", "--model", "a"],
            &["--batch", "cases.jsonl", "extra"],
            &["--model", "a", "--templates", "dir"],
            &["file.txt"],
            &["--template", "t.jinja", "--model-dir", "dir"],
            &["--batch", "cases.jsonl", "--model-dir", "dir"],
            &["--model", "a", "--ignore-model"],
            &["--model", "a", "--json"],
            &["--analyze", "t.jinja", "--model", "a"],
            &["--analyze", "t.jinja", "--batch", "cases.jsonl"],
            &["--analyze", "t.jinja", "extra"],
            &["--analyze", "t.jinja", "--json", "--json"],
            &["--analyze"],
        ] {
            assert!(parse_strs(args).is_err(), "{args:?} should be an error");
        }
    }

    #[test]
    fn templates_model_dirs_and_analysis() {
        let Ok(Command::Run(run)) = parse_strs(&["--template", "t.jinja", "out.txt"]) else {
            panic!("not a run");
        };
        assert_eq!(
            run.template,
            Some(TemplateSource::File(PathBuf::from("t.jinja")))
        );
        assert_eq!(run.model, None);
        let Ok(Command::Run(run)) = parse_strs(&["--model-dir=models/m", "--model", "m"]) else {
            panic!("not a run");
        };
        assert_eq!(
            run.template,
            Some(TemplateSource::ModelDir(PathBuf::from("models/m")))
        );
        assert_eq!(run.model.as_deref(), Some("m"));
        assert_eq!(
            parse_strs(&["--analyze", "models/m", "--json"]),
            Ok(Command::Analyze(AnalyzeArgs {
                path: PathBuf::from("models/m"),
                template_name: None,
                json: true,
            }))
        );
        assert_eq!(
            parse_strs(&["--batch", "c.jsonl", "--templates", "t", "--ignore-model"]),
            Ok(Command::Batch(BatchArgs {
                file: Input::File(PathBuf::from("c.jsonl")),
                chunk: None,
                templates: Some(PathBuf::from("t")),
                strict: false,
                ignore_model: true,
            }))
        );
    }

    #[test]
    fn batch_and_info_flags() {
        assert_eq!(parse_strs(&["--list"]), Ok(Command::List));
        assert_eq!(parse_strs(&["--model", "a", "-h"]), Ok(Command::Help));
        assert_eq!(parse_strs(&["-V"]), Ok(Command::Version));
        assert_eq!(
            parse_strs(&["--batch", "-", "--chunk", "3", "--strict"]),
            Ok(Command::Batch(BatchArgs {
                file: Input::Stdin,
                chunk: Some(Chunking::Fixed(3)),
                templates: None,
                strict: true,
                ignore_model: false,
            }))
        );
    }

    #[test]
    fn template_name_goes_with_a_template() {
        let Ok(Command::Run(run)) =
            parse_strs(&["--model-dir", "models/m", "--template-name", "tool_use"])
        else {
            panic!("not a run");
        };
        assert_eq!(run.template_name.as_deref(), Some("tool_use"));
        let Ok(Command::Render(render)) = parse_strs(&[
            "--render",
            "r.json",
            "--template",
            "tokenizer_config.json",
            "--template-name=rag",
        ]) else {
            panic!("not a render");
        };
        assert_eq!(render.template_name.as_deref(), Some("rag"));
        let Ok(Command::Analyze(analyze)) =
            parse_strs(&["--analyze", "models/m", "--template-name", "default"])
        else {
            panic!("not an analysis");
        };
        assert_eq!(analyze.template_name.as_deref(), Some("default"));
        for args in [
            &["--model", "m", "--template-name", "tool_use"][..],
            &["--batch", "c.jsonl", "--template-name", "tool_use"],
            &["--model-dir", "m", "--template-name"],
        ] {
            let err = parse_strs(args).unwrap_err();
            assert!(err.contains("--template-name"), "{args:?}: {err}");
        }
    }
}
