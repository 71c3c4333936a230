//! The generic parser's grammars (`GenericParserFactory::constraint`, from the template's analysis) over
//! every template in `templates/` whose analysis finds tool calls, run through llguidance with a byte
//! vocabulary: which templates are covered (the others on a list, with the reason), the llama.cpp corpus
//! outputs of the covered ones accepted, wrong outputs refused, and sampled outputs parsed by the
//! generic parser of the same analysis into valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parser_auto::analyze::{Analysis, ToolFormat};
use parser_auto::constraint::{
    CallName, Constraint, ConstraintRequest, FormatDescription, ReasoningStart, ResponseFormat,
    ToolChoice,
};
use parser_auto::generic::GenericParserFactory;
use parser_auto::generic::constraint::format_description;
use parser_auto::template::ChatTemplate;
use parser_auto::{ParseOptions, ParsedMessage, Tools};
use parser_core::testing::{Chunking, load_cases, run_chunked};
use serde_json::{Value, json};

use family::{check_both, sampled_tools, schema_of};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Templates whose analysis finds tool calls in a format the generic parser's constraint does not
/// describe yet, with the reason ([`parser_auto::generic::constraint::NotDescribed`]).
const NOT_COVERED: &[(&str, &str)] = &[
    // MiniMax-M3's namespace token before every tag, read by the analyzer as the call opener with
    // `<` / `>` around each parameter name and no value closer; the template routes to the
    // minimax-m3 family by signature (a state machine, whose grammar is still to come).
    (
        "MiniMax-M3.jinja",
        "TAG_WITH_TAGGED arguments without an argument name marker or a value closer",
    ),
    // Gemma 4's `call:NAME{key:<|"|>value<|"|>}`, read by the analyzer as tagged markup; the template
    // routes to the gemma4 family by signature, whose grammar writes Gemma's value syntax.
    (
        "google-gemma-4-31B-it.jinja",
        "TAG_WITH_TAGGED arguments without an argument name marker or a value closer",
    ),
    // The analysis finds no opener before the name (`NAME<|channel|>commentary json`); a model with
    // this template takes the gpt-oss family's parser and constraint.
    (
        "openai-gpt-oss-120b.jinja",
        "calls without a section or per-call marker (other than bare JSON objects)",
    ),
    // Olmo 3's Python calls one per line, read by the analyzer as tagged markup without an argument
    // marker; the template routes to the olmo family by signature (whose PYTHONIC spec has no grammar
    // yet either).
    (
        "vllm-tool_chat_template_olmo3.jinja",
        "TAG_WITH_TAGGED arguments without an argument name marker or a value closer",
    ),
    // xLAM's bare call array: no marker to open the grammar with; the template routes to the xlam
    // family by signature, whose constraint writes the `<tool_call>` form.
    (
        "vllm-tool_chat_template_xlam_qwen.jinja",
        "calls without a section or per-call marker (other than bare JSON objects)",
    ),
];

/// Every template's analysis, by file name.
fn analyses() -> BTreeMap<String, Arc<Analysis>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("templates")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jinja") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let template = ChatTemplate::from_file(&path).unwrap();
        out.insert(name, parser_auto::analysis_for(&template));
    }
    out
}

/// The templates whose analysis finds calls and whose format is described.
fn covered() -> Vec<(String, Arc<Analysis>, FormatDescription)> {
    analyses()
        .into_iter()
        .filter(|(_, a)| a.tools != ToolFormat::None)
        .filter_map(|(name, a)| format_description(&a).ok().map(|f| (name, a, f)))
        .collect()
}

#[test]
fn every_template_with_calls_is_covered_or_listed() {
    let analyses = analyses();
    // Every template of the reference set (templates/MANIFEST.md lists them).
    let listed = std::fs::read_to_string(root().join("templates/MANIFEST.md"))
        .unwrap()
        .lines()
        .filter(|line| line.starts_with("| `"))
        .count();
    assert_eq!(analyses.len(), listed);
    let mut not_covered = Vec::new();
    let mut covered = Vec::new();
    for (name, analysis) in &analyses {
        if analysis.tools == ToolFormat::None {
            continue;
        }
        let factory = GenericParserFactory::new(analysis.clone());
        let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
        let options = ParseOptions::new().with_tools(tools);
        let built = factory.constraint(&options, &ConstraintRequest::default());
        match format_description(analysis) {
            Ok(_) => {
                let constraint = built.unwrap_or_else(|e| panic!("{name}: {e}"));
                // Both grammars compile.
                llg::matcher(constraint.lark());
                llg::matcher(&llg::gbnf_to_lark(constraint.gbnf()));
                covered.push(name.clone());
            }
            Err(why) => {
                let error = built.unwrap_err().to_string();
                assert!(error.contains(&why.to_string()), "{name}: {error}");
                not_covered.push((name.as_str(), why.to_string()));
            }
        }
    }
    println!("covered: {covered:#?}\nnot covered: {not_covered:#?}");
    let expected: Vec<(&str, String)> = NOT_COVERED
        .iter()
        .map(|(name, why)| (*name, why.to_string()))
        .collect();
    assert_eq!(not_covered, expected);
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

/// Corpus cases of covered templates the grammar refuses, each with the reason.
const REFUSED: &[&str] = &[
    // The model reasons although the request leaves thinking at the template's default, off: the
    // grammar follows `reasoning_start` (no reasoning), the parser still reads a reasoning block at
    // the very start.
    "llama_cpp/command_r/CohereForAI-c4ai-command-r7b-12-2024-tool-use-L1434",
    "llama_cpp/command_r/CohereForAI-c4ai-command-r7b-12-2024-tool-use-L1454",
    "llama_cpp/command_r/CohereForAI-c4ai-command-r7b-12-2024-tool-use-L2246",
    // The GBNF only, through the test's GBNF-to-Lark rewrite: the prompt opened `<think>` and the
    // output starts with `<tool_call>`; the rewritten grammar offers the redundant opener `"<think>"`
    // as one lexeme beside text's `"<"`, and llguidance's lexer cannot back off two bytes at `<to`
    // (llama.cpp reads GBNF by character; the Lark grammar accepts the output).
    "llama_cpp/glm/GLM-4.7-Flash-L1901",
    // An id field after the arguments (`"id": "123456789"`): the grammar writes calls without their
    // optional id fields, which the parser reads alike.
    "llama_cpp/mistral/mistralai-Mistral-Nemo-Instruct-2407-L2275",
];

/// Every llama.cpp corpus case of a covered template whose calls the generic parser (of the template's
/// analysis) reads, all valid: the `required` grammar (parallel calls when there are several) accepts
/// the whole output, or — when it has content before the calls — the lazy `auto` grammar accepts it
/// from the first trigger after reasoning. Both the Lark and the GBNF grammar.
#[test]
fn corpus_outputs_of_covered_templates_are_accepted() {
    let covered: BTreeMap<String, Arc<Analysis>> =
        covered().into_iter().map(|(n, a, _)| (n, a)).collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("corpus/llama_cpp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let (mut whole, mut from_trigger, mut skipped) = (0, 0, 0);
    let mut refused: Vec<(String, String)> = Vec::new();
    for file in files {
        for case in load_cases(&file) {
            let Some(analysis) = case.template.as_ref().and_then(|t| covered.get(t)) else {
                continue;
            };
            let factory = GenericParserFactory::new(analysis.clone());
            let mut options = case.options();
            let message = factory.parser(&options).parse(&case.output);
            // Only cases whose expected calls the generic parser reads, all valid, of the case's tools.
            let expected: Vec<&str> = case
                .expected
                .tool_calls
                .iter()
                .flatten()
                .map(|c| c.name.as_str())
                .collect();
            let read: Vec<&str> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
            let known = |name: &str| {
                options
                    .tools
                    .as_ref()
                    .is_none_or(|tools| tools.iter().any(|t| t.name == name))
            };
            if expected.is_empty()
                || read != expected
                || message.tool_calls.iter().any(|c| !c.valid)
                || !expected.iter().all(|name| known(name))
            {
                skipped += 1;
                continue;
            }
            options.tools = Some(tools_for(&options, &message));
            let mut output = case.output.as_str();
            loop {
                let trimmed = output.trim_end();
                match analysis
                    .end_of_turn
                    .iter()
                    .map(|t| t.trim())
                    .find(|t| !t.is_empty() && trimmed.ends_with(t))
                {
                    Some(token) => output = &trimmed[..trimmed.len() - token.len()],
                    None => break,
                }
            }
            let request = ConstraintRequest {
                tool_choice: ToolChoice::Required,
                parallel_tool_calls: message.tool_calls.len() > 1,
                response_format: ResponseFormat::Text,
            };
            let constraint = factory.constraint(&options, &request).unwrap();
            let all = check_both(constraint.lark(), constraint.gbnf(), output);
            if all.is_ok() {
                whole += 1;
                continue;
            }
            let auto = ConstraintRequest {
                tool_choice: ToolChoice::Auto,
                ..request
            };
            let lazy = factory.constraint(&options, &auto).unwrap();
            let close = analysis.markers.reasoning_end.trim();
            let after_reasoning = match (&message.reasoning, close.is_empty()) {
                (Some(_), false) => output.find(close).map_or(0, |at| at + close.len()),
                _ => 0,
            };
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
                Some(at) if content_first => {
                    match check_both(lazy.lark(), lazy.gbnf(), &output[at..]) {
                        Ok(()) => from_trigger += 1,
                        Err(why) => refused.push((case.id.clone(), why)),
                    }
                }
                _ => refused.push((case.id.clone(), all.unwrap_err())),
            }
        }
    }
    println!("whole {whole}, from the trigger {from_trigger}, skipped {skipped}");
    let ids: Vec<&str> = refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, REFUSED, "{refused:#?}");
    assert_eq!((whole, from_trigger), (57, 7));
}

/// The text of one call of `name` with `arguments`, as the format writes it.
fn call_text(format: &FormatDescription, name: &str, arguments: &str) -> String {
    let calls = &format.calls;
    let body = match &calls.name {
        CallName::JsonFields {
            name: key,
            arguments: args,
        } => format!(r#"{{"{key}": "{name}", "{args}": {arguments}}}"#),
        CallName::JsonFieldsIdFirst {
            id,
            name: key,
            arguments: args,
        } => format!(r#"{{"{id}": "0", "{key}": "{name}", "{args}": {arguments}}}"#),
        CallName::Python => {
            let arguments: Value = serde_json::from_str(arguments).unwrap();
            let python = |value: &Value| match value {
                Value::Null => "None".to_owned(),
                Value::Bool(true) => "True".to_owned(),
                Value::Bool(false) => "False".to_owned(),
                other => other.to_string(),
            };
            let kwargs: Vec<String> = (arguments.as_object().unwrap().iter())
                .map(|(key, value)| format!("{key}={}", python(value)))
                .collect();
            format!("{name}({})", kwargs.join(", "))
        }
        CallName::Tagged {
            prefix,
            index_separator,
            suffix,
            id_first,
            ..
        } => {
            let index = index_separator
                .as_ref()
                .map_or(String::new(), |s| format!("{s}0"));
            let id = id_first
                .as_ref()
                .map_or(String::new(), |end| format!("7{end}"));
            format!("{id}{prefix}{name}{index}{suffix}{arguments}")
        }
        CallName::NameAsKey => format!(r#"{{"{name}": {arguments}}}"#),
        CallName::Parameters {
            prefix,
            suffix,
            parameters: tags,
            end,
        } => {
            let arguments: Value = serde_json::from_str(arguments).unwrap();
            let mut body = format!("{prefix}{name}{suffix}");
            for (key, value) in arguments.as_object().unwrap() {
                let (open, value) = match value {
                    Value::String(text) => (&tags.string_open, text.clone()),
                    other => (&tags.json_open, other.to_string()),
                };
                let (key_open, key_close, close) =
                    (&tags.key_open, &tags.key_close, &tags.value_close);
                body += &format!("\n{key_open}{key}{key_close}{open}{value}{close}");
            }
            body + "\n" + end
        }
        CallName::Enclosed { .. } | CallName::Gemma { .. } | CallName::Elements { .. } => {
            panic!("{name}: the analysis describes no such calls")
        }
    };
    format!(
        "{}{}{body}{}{}",
        calls.call_begin, calls.padding, calls.padding, calls.call_end
    )
}

/// A whole output with these calls (inside the section when the format has one), after what the
/// reasoning start needs.
fn output(format: &FormatDescription, start: ReasoningStart, calls: &[String]) -> String {
    let lead = match (&format.reasoning, start) {
        (Some(reasoning), ReasoningStart::Inside) => format!("Let me see.{}\n", reasoning.close),
        _ => String::new(),
    };
    let separator = if format.calls.separator.is_empty() {
        "\n"
    } else {
        &format.calls.separator
    };
    let mut calls = calls.join(separator.as_ref());
    if format.calls.array {
        calls = format!("[{calls}]");
    }
    match &format.calls.section {
        Some((begin, end)) => format!("{lead}{begin}{calls}{end}"),
        None => format!("{lead}{calls}"),
    }
}

/// Per covered template, with the sampled tools: a valid output is accepted (so that the refusals
/// below are the grammar's), and the grammar refuses an unknown function, a missing required
/// argument, text where `required` demands a call, and two calls when parallel calls are off; `none`
/// refuses a call.
#[test]
fn wrong_outputs_are_refused() {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let mut checked = 0;
    for (name, analysis, format) in covered() {
        let factory = GenericParserFactory::new(analysis.clone());
        let options = ParseOptions::new()
            .with_prompt_tail(analysis.generation_prompt.clone())
            .with_tools(tools.clone());
        let start = factory.reasoning_start(&options);
        let build = |choice: ToolChoice, parallel: bool| -> Constraint {
            let request = ConstraintRequest {
                tool_choice: choice,
                parallel_tool_calls: parallel,
                response_format: ResponseFormat::Text,
            };
            factory.constraint(&options, &request).unwrap()
        };
        let paris = call_text(&format, "get_weather", r#"{"city": "Paris"}"#);
        let now = call_text(&format, "now", "{}");
        let check = |c: &Constraint, text: &str, accepted: bool, what: &str| {
            let result = check_both(c.lark(), c.gbnf(), text);
            assert_eq!(
                result.is_ok(),
                accepted,
                "{name}: {what}: {text:?}: {result:?}"
            );
        };
        let required = build(ToolChoice::Required, true);
        let single = build(ToolChoice::Required, false);
        let one = output(&format, start, std::slice::from_ref(&paris));
        let two = output(&format, start, &[paris.clone(), now.clone()]);
        check(&required, &one, true, "valid");
        check(&required, &two, true, "two calls");
        // The parser reads the valid outputs as the calls they were written as.
        let message = factory.parser(&options).parse(&two);
        let names: Vec<&str> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["get_weather", "now"], "{name}: {two:?}");
        assert!(message.tool_calls.iter().all(|c| c.valid), "{name}");
        check(&single, &one, true, "one call, parallel off");
        check(&single, &two, false, "two calls, parallel off");
        let unknown = output(&format, start, &[call_text(&format, "get_time", "{}")]);
        check(&required, &unknown, false, "unknown function");
        let missing = output(
            &format,
            start,
            &[call_text(&format, "get_weather", r#"{"days": 3}"#)],
        );
        check(&required, &missing, false, "missing required argument");
        let text = output(&format, start, &[]) + "The weather in Paris is sunny.";
        check(&required, &text, false, "text instead of a call");
        let named = build(ToolChoice::Function("now".into()), true);
        check(
            &named,
            &output(&format, start, std::slice::from_ref(&now)),
            true,
            "named",
        );
        check(&named, &one, false, "another function than the named one");
        let none = build(ToolChoice::None, true);
        check(&none, &one, false, "a call with tool_choice none");
        checked += 1;
    }
    assert_eq!(checked, 49);
}

/// Samples 200 outputs per covered template, over its generation prompts (thinking on and, with a
/// switch, off) × tool choices (required, a named function, auto, parallel calls on and off), half from
/// the Lark grammar and half from the GBNF one, and checks each with the generic parser of the same
/// analysis: one-shot and under every standard chunking it gives the same message, whose calls are at
/// least one (at most one without parallel calls), all valid, of a requested tool, with arguments that
/// validate against its schema, and no content beside required calls.
#[test]
fn sampled_outputs_parse_into_valid_calls() {
    const PER_TEMPLATE: usize = 200;
    let tools_json = sampled_tools();
    let tools = Arc::new(Tools::from_json(&tools_json).unwrap());
    let schemas: BTreeMap<String, Value> = tools_json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t["function"]["name"].as_str().unwrap().to_owned();
            (name, t["function"]["parameters"].clone())
        })
        .collect();
    let choices = [
        (ToolChoice::Required, true),
        (ToolChoice::Required, false),
        (ToolChoice::Function("search".into()), true),
        (ToolChoice::Auto, true),
        (ToolChoice::Auto, false),
    ];
    let mut rng = llg::Rng::new(0x14a7);
    let (mut checked, mut too_long, mut texts) = (0, 0, 0);
    let covered = covered();
    for (name, analysis, format) in &covered {
        let factory = GenericParserFactory::new(analysis.clone());
        let mut tails = vec![analysis.generation_prompt.clone()];
        tails.extend(analysis.generation_prompt_no_thinking.clone());
        let mut hints: Vec<&str> = vec!["\"", "}", "]", "1", "null"];
        match &format.calls.name {
            // The core leaves the strings of a JSON parameter value free (`ParameterTags`, "Not
            // held"): a value stop in one ends the value in the parser. The hinted call end (GLM's
            // `</tool_call>`, a stop) would be written there far more often than a model does; the
            // walk ends calls through the mask instead, and raw values at their closer.
            CallName::Parameters { parameters, .. } => hints.push(&parameters.value_close),
            _ => hints.push(&format.calls.call_end),
        }
        if let Some(reasoning) = &format.reasoning {
            hints.push(&reasoning.close);
        }
        let mut grammars: BTreeMap<(usize, usize, bool), Constraint> = BTreeMap::new();
        for sample in 0..PER_TEMPLATE {
            let t = sample % tails.len();
            let c = (sample / tails.len()) % choices.len();
            let use_gbnf = (sample / (tails.len() * choices.len())) % 2 == 1;
            let options = ParseOptions::new()
                .with_prompt_tail(tails[t].clone())
                .with_tools(tools.clone())
                .with_call_id_seed(7);
            let (choice, parallel) = &choices[c];
            let constraint = grammars.entry((t, c, use_gbnf)).or_insert_with(|| {
                let request = ConstraintRequest {
                    tool_choice: choice.clone(),
                    parallel_tool_calls: *parallel,
                    response_format: ResponseFormat::Text,
                };
                factory.constraint(&options, &request).unwrap()
            });
            let grammar = if use_gbnf {
                llg::gbnf_to_lark(constraint.gbnf())
            } else {
                constraint.lark().to_owned()
            };
            let Some(text) = llg::sample(&grammar, &mut rng, &hints, 6000) else {
                too_long += 1;
                continue;
            };
            // A lazy grammar covers the output from its trigger: free text before it.
            let output = if constraint.lazy {
                let lead = match (&format.reasoning, factory.reasoning_start(&options)) {
                    (Some(r), ReasoningStart::Inside) => format!("The user asks.{}\n", r.close),
                    _ => String::new(),
                };
                format!("{lead}Let me check. {text}")
            } else {
                text
            };
            let make = || factory.parser(&options);
            let message = make().parse(&output);
            for chunking in Chunking::standard(factory.tokens()) {
                assert_eq!(
                    run_chunked(&make, &output, chunking),
                    message,
                    "{name}: streamed with {chunking:?}: {output:?}"
                );
            }
            let context = || {
                format!(
                    "{name} {choice:?} parallel={parallel} gbnf={use_gbnf}: {output:?}\n{message:?}"
                )
            };
            // A bare format's `auto` grammar covers the whole output: calls, or text instead.
            let text_instead = !constraint.lazy && *choice == ToolChoice::Auto;
            if text_instead && message.tool_calls.is_empty() {
                texts += 1;
                checked += 1;
                continue;
            }
            assert!(!message.tool_calls.is_empty(), "no call: {}", context());
            if !parallel {
                assert_eq!(message.tool_calls.len(), 1, "{}", context());
            }
            for call in &message.tool_calls {
                assert!(call.valid, "{}", context());
                if let ToolChoice::Function(function) = choice {
                    assert_eq!(&call.name, function, "{}", context());
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
            if !constraint.lazy {
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
    }
    let samples = PER_TEMPLATE * covered.len();
    assert!(
        too_long * 20 <= samples,
        "{too_long} of {samples} walks ran too long"
    );
    assert!(checked >= 3000, "{checked} of {samples}");
    // The bare formats' `auto` samples are mostly calls.
    assert!(texts * 10 <= checked, "{texts} texts instead of calls");
}

/// `parser_auto::constraint` follows the route `prepare` took: the family's registered constraint (by
/// model name or template signature), the analysis for the generic parser (an error naming the reason
/// when its format is not described), none without calls.
#[test]
fn the_constraint_follows_the_route() {
    use parser_auto::Route;
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let options = ParseOptions::new()
        .with_prompt_tail("<|im_start|>assistant\n")
        .with_tools(tools);
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        ..ConstraintRequest::default()
    };
    let template =
        |name: &str| ChatTemplate::from_file(&root().join("templates").join(name)).unwrap();

    let by_model = parser_auto::prepare(Some("Qwen/Qwen3-8B"), None).unwrap();
    assert_eq!(by_model.route, Route::ModelName("qwen3"));
    let family = parser_auto::qwen::constraint::qwen3(&options, &request).unwrap();
    let got = parser_auto::constraint(&by_model, &options, &request);
    assert_eq!(got.unwrap().unwrap(), family);

    let kimi = template("Kimi-K2-Thinking.jinja");
    let by_signature = parser_auto::prepare(None, Some(&kimi)).unwrap();
    assert_eq!(
        by_signature.route,
        Route::TemplateSignature("kimi-k2-thinking")
    );
    let family = parser_auto::kimi::constraint::k2_thinking(&options, &request).unwrap();
    let got = parser_auto::constraint(&by_signature, &options, &request);
    assert_eq!(got.unwrap().unwrap(), family);

    let bielik = template("Bielik-11B-v3.0-Instruct.jinja");
    let generic = parser_auto::prepare(None, Some(&bielik)).unwrap();
    assert_eq!(generic.route, Route::Analyzer);
    let factory = GenericParserFactory::new(parser_auto::analysis_for(&bielik));
    let expected = factory.constraint(&options, &request).unwrap();
    let got = parser_auto::constraint(&generic, &options, &request);
    assert_eq!(got.unwrap().unwrap(), expected);
    assert!(
        expected.lark().contains(r#""<tool_call>""#),
        "{}",
        expected.lark()
    );

    let gpt_oss = template("openai-gpt-oss-120b.jinja");
    let not_described = parser_auto::prepare(None, Some(&gpt_oss)).unwrap();
    assert_ne!(not_described.route, Route::Analyzer);

    // Llama 3.x's template routes to its family, whose grammar is the family's.
    let llama = template("meta-llama-Llama-3.1-8B-Instruct.jinja");
    let family = parser_auto::prepare(None, Some(&llama)).unwrap();
    assert_eq!(family.route, Route::TemplateSignature("llama3"));
    let expected = parser_auto::llama::constraint::llama3(&options, &request).unwrap();
    let got = parser_auto::constraint(&family, &options, &request);
    assert_eq!(got.unwrap().unwrap(), expected);

    // Gemma's template renders no calls; its signature routes to the family, whose grammar (the
    // `tool_code` calls of Google's guide) is the family's.
    let gemma = template("google-gemma-2-2b-it.jinja");
    let family = parser_auto::prepare(None, Some(&gemma)).unwrap();
    assert_eq!(family.route, Route::TemplateSignature("gemma"));
    let expected = parser_auto::gemma::constraint(&options, &request).unwrap();
    let got = parser_auto::constraint(&family, &options, &request);
    assert_eq!(got.unwrap().unwrap(), expected);
}

/// One grammar, shown: `cargo test -p parser-auto --test constraint -- --nocapture example`.
#[test]
fn example_grammar_of_a_covered_template() {
    let hermes = ChatTemplate::from_file(
        &root().join("templates/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"),
    )
    .unwrap();
    let prepared = parser_auto::prepare(None, Some(&hermes)).unwrap();
    let tools = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]);
    let options = ParseOptions::new().with_tools(Arc::new(Tools::from_json(&tools).unwrap()));
    let constraint = prepared
        .constraint(&options, &ConstraintRequest::default())
        .unwrap()
        .unwrap();
    println!(
        "{}\n{}\n{:?}",
        constraint.lark(),
        constraint.gbnf(),
        constraint.triggers
    );
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, ["<tool_call>"]);
    assert!(check_both(
        constraint.lark(),
        constraint.gbnf(),
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
    )
    .is_ok());
}
