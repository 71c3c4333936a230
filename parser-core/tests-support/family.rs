//! The families' grammar tests, shared: acceptance of corpus outputs and soundness of sampled outputs.
//! Included next to `llg.rs` (`#[path = "../../parser-core/tests-support/family.rs"] mod family;`).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::testing::{Case, Chunking, load_cases, run_chunked};
use parser_core::{
    ParseOptions, ParsedMessage, ParserEntry, ToolCall, Tools, find_by_name, find_for_model,
};
use serde_json::{Map, Value, json};

use super::llg;

/// A JSON schema that `value` satisfies, as tight as a schema from one example gets: its type, and for
/// an object its members' schemas, all required, no others.
pub fn schema_of(value: &Value) -> Value {
    match value {
        Value::Null => json!({"type": "null"}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({"type": "integer"}),
        Value::Number(_) => json!({"type": "number"}),
        Value::String(_) => json!({"type": "string"}),
        Value::Array(_) => json!({"type": "array"}),
        Value::Object(members) => {
            let properties: Map<String, Value> = members
                .iter()
                .map(|(key, member)| (key.clone(), schema_of(member)))
                .collect();
            let required: Vec<&String> = members.keys().collect();
            json!({"type": "object", "properties": properties, "required": required,
                   "additionalProperties": false})
        }
    }
}

/// The request's tools when the case gives them, else tools inferred from the calls (one per name,
/// the schema of its first call's arguments).
fn tools_for(options: &ParseOptions, message: &ParsedMessage) -> Arc<Tools> {
    if let Some(tools) = &options.tools {
        return tools.clone();
    }
    let mut by_name: BTreeMap<&str, Value> = BTreeMap::new();
    for call in &message.tool_calls {
        let arguments: Value = serde_json::from_str(&call.arguments).unwrap_or(json!({}));
        by_name
            .entry(call.name.as_str())
            .or_insert_with(|| schema_of(&arguments));
    }
    let tools: Vec<Value> = by_name
        .into_iter()
        .map(|(name, parameters)| json!({"type": "function", "function": {"name": name, "parameters": parameters}}))
        .collect();
    Arc::new(Tools::from_json(&Value::Array(tools)).unwrap())
}

/// What a corpus acceptance run found.
#[derive(Debug, Default)]
pub struct Acceptance {
    /// Cases whose whole output the `required` grammar accepts.
    pub whole: usize,
    /// Cases with content before the calls whose calls the lazy `auto` grammar accepts from the trigger.
    pub from_trigger: usize,
    /// Cases skipped: no call, an invalid call, or a parser without a constraint.
    pub skipped: usize,
    /// `(case id, why)` of every case refused.
    pub refused: Vec<(String, String)>,
}

/// One corpus output the grammars of its parser accept, as [`case_verdict`] found it.
#[derive(Debug)]
pub struct Accepted {
    /// The case's options, with its tools (given, or inferred from its calls).
    pub options: ParseOptions,
    /// The request whose grammar accepts `text`: `required` (parallel calls only when the output has
    /// several) for a whole output, lazy `auto` for an output from its trigger.
    pub request: ConstraintRequest,
    /// That request's constraint.
    pub constraint: Constraint,
    /// The text accepted: the whole output without trailing end tokens, or the output from the first
    /// trigger after reasoning.
    pub text: String,
    /// The calls our parser reads in the output.
    pub calls: Vec<ToolCall>,
    /// The trigger words of the lazy `auto` grammar (where calls open).
    pub openers: Vec<String>,
}

/// What the grammars of a case's parser make of its output.
#[derive(Debug)]
pub enum Verdict {
    /// Not a grammar case: no call, an invalid call, or a parser without a constraint.
    Skipped,
    /// The `required` grammar accepts the whole output.
    Whole(Accepted),
    /// The output has content before its calls, and the lazy `auto` grammar accepts it from the trigger.
    FromTrigger(Accepted),
    /// Neither accepts it: why.
    Refused(String),
}

/// What a case's parser and grammars come from: a registered parser ([`ParserEntry`]), or — in
/// `cargo xtask grammar-check` — the generic parser of a template's analysis.
pub trait Constrained {
    /// The parser's name, for reports.
    fn name(&self) -> &str;
    /// The message the parser reads in `output`.
    fn parse(&self, options: &ParseOptions, output: &str) -> ParsedMessage;
    /// The constraint of one request, or `None` when the format has none.
    fn constraint(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Option<Result<Constraint, parser_core::Error>>;
    /// The markers that close reasoning, to find the first trigger after it.
    fn reasoning_closers(&self) -> Vec<String> {
        vec!["</think>".to_owned(), "◁/think▷".to_owned()]
    }
}

impl Constrained for ParserEntry {
    fn name(&self) -> &str {
        self.name
    }

    fn parse(&self, options: &ParseOptions, output: &str) -> ParsedMessage {
        self.parser(options).parse(output)
    }

    fn constraint(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Option<Result<Constraint, parser_core::Error>> {
        ParserEntry::constraint(self, options, request)
    }
}

/// Runs one case with at least one call, all valid as `entry`'s parser reads them, through the grammar
/// of that parser: `required` (parallel calls only when it has several) on the whole output, trailing
/// `eos` tokens dropped; when that refuses and the output has content before its first call, the lazy
/// `auto` grammar on the output from the first trigger after reasoning. Both the Lark and the GBNF
/// grammar must accept.
pub fn case_verdict(entry: &dyn Constrained, case: &Case, eos: &[&str]) -> Verdict {
    let mut options = case.options();
    let message = entry.parse(&options, &case.output);
    if message.tool_calls.is_empty() || message.tool_calls.iter().any(|c| !c.valid) {
        return Verdict::Skipped;
    }
    options.tools = Some(tools_for(&options, &message));
    let mut output = case.output.as_str();
    loop {
        let trimmed = output.trim_end();
        match eos.iter().find(|token| trimmed.ends_with(*token)) {
            Some(token) => output = &trimmed[..trimmed.len() - token.len()],
            None => break,
        }
    }
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        parallel_tool_calls: message.tool_calls.len() > 1,
        response_format: ResponseFormat::Text,
    };
    let Some(constraint) = entry.constraint(&options, &request) else {
        return Verdict::Skipped;
    };
    let constraint = constraint.unwrap_or_else(|e| panic!("{}: {e}", case.id));
    let auto = ConstraintRequest {
        tool_choice: ToolChoice::Auto,
        ..request.clone()
    };
    let lazy = entry.constraint(&options, &auto).unwrap().unwrap();
    let accepted = |request, constraint, text: &str| Accepted {
        options: options.clone(),
        request,
        constraint,
        text: text.to_owned(),
        calls: message.tool_calls.clone(),
        openers: lazy.triggers.words.clone(),
    };
    let whole = check_both(constraint.lark(), constraint.gbnf(), output);
    if whole.is_ok() {
        return Verdict::Whole(accepted(request, constraint, output));
    }
    let after_reasoning = message
        .reasoning
        .as_ref()
        .and_then(|_| {
            entry
                .reasoning_closers()
                .iter()
                .filter(|close| !close.is_empty())
                .filter_map(|close| output.find(close.as_str()).map(|at| at + close.len()))
                .min()
        })
        .unwrap_or(0);
    let trigger = lazy
        .triggers
        .words
        .iter()
        .filter_map(|word| output[after_reasoning..].find(word.as_str()))
        .min()
        .map(|at| at + after_reasoning);
    let content_first = message
        .content
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty());
    match trigger {
        Some(at) if content_first => match check_both(lazy.lark(), lazy.gbnf(), &output[at..]) {
            Ok(()) => Verdict::FromTrigger(accepted(auto, lazy.clone(), &output[at..])),
            Err(why) => Verdict::Refused(why),
        },
        _ => Verdict::Refused(whole.unwrap_err()),
    }
}

/// Runs every case of `files` (under `corpus_dir`) through [`case_verdict`] with its model's parser.
pub fn corpus_acceptance(corpus_dir: &Path, files: &[&str], eos: &[&str]) -> Acceptance {
    corpus_acceptance_of(corpus_dir, files, eos, &[])
}

/// [`corpus_acceptance`] for the cases whose parser is one of `parsers` (every case when empty; the
/// others are skipped), for a file that mixes formats wired by different modules.
pub fn corpus_acceptance_of(
    corpus_dir: &Path,
    files: &[&str],
    eos: &[&str],
    parsers: &[&str],
) -> Acceptance {
    let mut run = Acceptance::default();
    for file in files {
        for case in load_cases(&corpus_dir.join(file)) {
            let Ok(entry) = find_for_model(&case.model) else {
                run.skipped += 1;
                continue;
            };
            if !parsers.is_empty() && !parsers.contains(&entry.name) {
                run.skipped += 1;
                continue;
            }
            match case_verdict(entry, &case, eos) {
                Verdict::Skipped => run.skipped += 1,
                Verdict::Whole(_) => run.whole += 1,
                Verdict::FromTrigger(_) => run.from_trigger += 1,
                Verdict::Refused(why) => run.refused.push((case.id.clone(), why)),
            }
        }
    }
    run
}

/// Both grammars accept `text` (GBNF rewritten to Lark for llguidance).
pub fn check_both(lark: &str, gbnf: &str, text: &str) -> Result<(), String> {
    llg::accepts(lark, text).map_err(|e| format!("lark: {e}"))?;
    llg::accepts(&llg::gbnf_to_lark(gbnf), text).map_err(|e| format!("gbnf: {e}"))
}

/// The tools the soundness runs sample calls of.
pub fn sampled_tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1, "maxLength": 24},
                "days": {"type": "integer"},
                "unit": {"enum": ["celsius", "fahrenheit"]}
            },
            "required": ["city"],
            "additionalProperties": false
        }}},
        {"type": "function", "function": {"name": "search", "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "maxLength": 40},
                "limit": {"type": ["integer", "null"]},
                "exact": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
                "filters": {"type": "object", "properties": {"lang": {"type": "string"}},
                            "additionalProperties": false}
            },
            "required": ["query", "exact"],
            "additionalProperties": false
        }}},
        {"type": "function", "function": {"name": "now", "parameters": {
            "type": "object", "properties": {}, "additionalProperties": false
        }}}
    ])
}

/// One soundness setting: a parser, a prompt tail, and where that leaves the output.
pub struct Setting {
    /// The parser's registered name.
    pub parser: &'static str,
    /// The prompt tail (stage detection).
    pub prompt_tail: &'static str,
    /// Text put before a lazy grammar's sample (the free part: reasoning end, content).
    pub lazy_prefix: &'static str,
}

/// Samples `samples` outputs over `settings` × tool choices (required, a named function, auto, parallel
/// calls on and off), half from the Lark grammar and half from the GBNF one, and checks each: one-shot
/// and under every standard chunking the parser gives the same message, whose calls are at least one
/// (at most one without parallel calls), all valid, of a requested tool, with arguments that validate
/// against its schema. Returns how many outputs were checked.
pub fn soundness(settings: &[Setting], samples: usize, hints: &[&str]) -> usize {
    let choices = [
        (ToolChoice::Required, true),
        (ToolChoice::Required, false),
        (ToolChoice::Function("search".into()), true),
        (ToolChoice::Auto, true),
        (ToolChoice::Auto, false),
    ];
    soundness_of(settings, &choices, samples, hints)
}

/// [`soundness`] over these `(tool choice, parallel calls)` only: a bare format's `auto` grammar
/// (not lazy: calls, or text) admits outputs without a call, which this check counts as wrong.
pub fn soundness_of(
    settings: &[Setting],
    choices: &[(ToolChoice, bool)],
    samples: usize,
    hints: &[&str],
) -> usize {
    let tools_json = sampled_tools();
    let tools = Arc::new(Tools::from_json(&tools_json).unwrap());
    let schemas: BTreeMap<String, Value> = tools_json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["function"]["name"].as_str().unwrap().to_owned(),
                t["function"]["parameters"].clone(),
            )
        })
        .collect();
    let mut rng = llg::Rng::new(0x5a3e);
    let mut checked = 0;
    let mut too_long = 0;
    let mut grammars: BTreeMap<(usize, usize, bool), (String, bool)> = BTreeMap::new();
    for sample in 0..samples {
        let s = sample % settings.len();
        let c = (sample / settings.len()) % choices.len();
        let use_gbnf = (sample / (settings.len() * choices.len())) % 2 == 1;
        let setting = &settings[s];
        let entry: &ParserEntry = find_by_name(setting.parser).unwrap();
        let options = ParseOptions::new()
            .with_prompt_tail(setting.prompt_tail)
            .with_tools(tools.clone())
            .with_call_id_seed(7);
        let (choice, parallel) = &choices[c];
        let (grammar, lazy) = grammars
            .entry((s, c, use_gbnf))
            .or_insert_with(|| {
                let request = ConstraintRequest {
                    tool_choice: choice.clone(),
                    parallel_tool_calls: *parallel,
                    response_format: ResponseFormat::Text,
                };
                let constraint = entry.constraint(&options, &request).unwrap().unwrap();
                let grammar = if use_gbnf {
                    llg::gbnf_to_lark(constraint.gbnf())
                } else {
                    constraint.lark().to_owned()
                };
                (grammar, constraint.lazy)
            })
            .clone();
        let Some(text) = llg::sample(&grammar, &mut rng, hints, 6000) else {
            too_long += 1;
            if too_long <= 2 {
                eprintln!(
                    "walk too long: {} {choice:?} parallel={parallel} gbnf={use_gbnf}",
                    setting.parser
                );
            }
            continue;
        };
        let output = if lazy {
            format!("{}{text}", setting.lazy_prefix)
        } else {
            text
        };
        let make = || entry.parser(&options);
        let message = make().parse(&output);
        for chunking in Chunking::standard(entry.special_tokens) {
            assert_eq!(
                run_chunked(&make, &output, chunking),
                message,
                "{}: streamed with {chunking:?}: {output:?}",
                setting.parser
            );
        }
        let context = || {
            format!(
                "{} {choice:?} parallel={parallel} gbnf={use_gbnf}: {output:?}\n{message:?}",
                setting.parser
            )
        };
        assert!(!message.tool_calls.is_empty(), "no call: {}", context());
        if !parallel {
            assert_eq!(message.tool_calls.len(), 1, "{}", context());
        }
        for call in &message.tool_calls {
            assert!(call.valid, "{}", context());
            if let ToolChoice::Function(name) = choice {
                assert_eq!(&call.name, name, "{}", context());
            }
            let schema = schemas
                .get(&call.name)
                .unwrap_or_else(|| panic!("unknown tool: {}", context()));
            let arguments: Value = serde_json::from_str(&call.arguments)
                .unwrap_or_else(|e| panic!("arguments: {e}: {}", context()));
            if let Err(why) = llg::validate(&arguments, schema) {
                panic!("{why}: {}", context());
            }
        }
        if !lazy && matches!(choice, ToolChoice::Required | ToolChoice::Function(_)) {
            assert!(
                message
                    .content
                    .as_deref()
                    .is_none_or(|c| c.trim().is_empty()),
                "content beside required calls: {}",
                context()
            );
        }
        checked += 1;
    }
    assert!(
        too_long * 20 <= samples,
        "{too_long} of {samples} walks ran too long"
    );
    checked
}

/// The constraint `build` (a family's constraint builder) gives for [`sampled_tools`], a prompt tail,
/// a tool choice and whether parallel calls are allowed.
pub fn sampled_constraint(
    build: fn(&ParseOptions, &ConstraintRequest) -> Result<Constraint, parser_core::Error>,
    prompt_tail: &str,
    tool_choice: ToolChoice,
    parallel_tool_calls: bool,
) -> Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new()
        .with_prompt_tail(prompt_tail)
        .with_tools(tools);
    let request = ConstraintRequest {
        tool_choice,
        parallel_tool_calls,
        response_format: ResponseFormat::Text,
    };
    build(&options, &request).unwrap()
}
