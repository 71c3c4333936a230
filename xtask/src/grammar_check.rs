//! `cargo xtask grammar-check`: our GBNF and structural tags through engines other than ours.
//!
//! For every parser with a registered `ConstraintEntry` (the registry is iterated, so a family wired
//! later is covered without a change here), every corpus case whose model resolves to it and whose
//! calls our parser reads as valid gives grammars to check, built with the case's tools (given, or
//! inferred from its calls) by `parser-core/tests-support/family.rs`'s `case_verdict`, the same decision
//! the families' grammar tests make: the `required` grammar on the whole output, else the lazy `auto`
//! grammar on the output from its trigger. The generic parser is checked the same way, over every
//! corpus case that names its template: the parser of that template's analysis and its constraint
//! (`auto:TEMPLATE` in the report), for every template whose analysis finds calls in a format
//! `parser_auto::generic::constraint` describes, whatever route a model with that template takes.
//! From that accepted output come the requests:
//!
//! - the accepting request itself; the same with parallel calls on (one call) or off (several calls:
//!   refused); a named function when every call is of one function; `none` (refused);
//! - refusals of the accepting request: a call of an unknown function, the output cut off one
//!   character early, text after the calls, a required argument removed from the first call (when its
//!   arguments are written as JSON), and, for `required`, text instead of a call.
//!
//! Every expectation is first checked with our Lark form through llguidance (`tests-support/llg.rs`);
//! one the Lark form does not meet is reported and left out. The rest go as JSON lines to
//! `xtask/python/grammar_check.py`, which checks each GBNF with xgrammar and llguidance's GBNF reader:
//! so the GBNF must accept exactly what the Lark form accepts. The structural tags frame calls with
//! exact strings (`<tool_call>\n{"name": …`) where the grammars allow any whitespace, and `triggered_tags`
//! allow text after the calls: each is checked on the accepted output's calls written in its own framing
//! (see [`structural_line`]), or, for element calls (Kimi K3, MiniMax-M3) whose arguments this module
//! does not write, copied from the output ([`copied_call_tag`]). The calls of tagged parameters
//! (Qwen3-Coder, GLM and its kin), whose structural tag holds a grammar of the whole call up to the
//! next one, are copied from the output with the whitespace between them, their section too
//! ([`copied_calls`]): the structural tag must accept the model's own calls as the grammars do (any
//! parameter order, padded or unpadded values, any whitespace between calls).
//!
//! The Python engines live in a venv made once under the target directory
//! (`python3 -m venv`, `pip install --no-deps -r xtask/python/requirements.txt`, ~130 MB), remade
//! when `requirements.txt` changes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use parser_auto::analyze::ToolFormat;
use parser_auto::generic::GenericParserFactory;
use parser_auto::generic::constraint::format_description;
use parser_auto::template::ChatTemplate;
use parser_core::constraint::{Constraint, ConstraintRequest, ReasoningStart, ToolChoice};
use parser_core::testing::{Case, load_cases};
use parser_core::{ParseOptions, ParsedMessage, ToolCall};
use serde_json::{Value, json};

use crate::family::{self, Accepted, Verdict};
use crate::{llg, project_root};

/// The corpus sources, as `cargo xtask conformance` reads them.
const SOURCES: &[&str] = &["vllm", "sglang", "llama_cpp", "ollama", "authored"];

/// Runs the check; exit status 1 on any failure.
pub fn run() -> Result<ExitCode, String> {
    let root = project_root();
    let python = venv(&root)?;
    let mut lines: Vec<Value> = Vec::new();
    let mut lark_disagrees: Vec<String> = Vec::new();
    let mut per_parser: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut strict_skipped = 0;
    let mut unread: Vec<String> = Vec::new();
    let cases = corpus(&root)?;
    for case in &cases {
        let Ok(entry) = parser_core::find_for_model(&case.model) else {
            continue;
        };
        let Some(Ok(probe)) = entry.constraint(&ParseOptions::new(), &ConstraintRequest::default())
        else {
            continue;
        };
        // End tokens: the parser's special tokens that are not the format's own markers.
        let eos: Vec<&str> = (entry.special_tokens.iter().copied())
            .filter(|token| !probe.preserved_tokens.iter().any(|p| p == token))
            .collect();
        let counts = per_parser.entry(entry.name.to_owned()).or_default();
        counts.0 += 1;
        let accepted = match family::case_verdict(entry, case, &eos) {
            Verdict::Whole(accepted) | Verdict::FromTrigger(accepted) => accepted,
            Verdict::Skipped | Verdict::Refused(_) => continue,
        };
        counts.1 += 1;
        let made = case_lines(
            entry,
            case,
            &accepted,
            &mut lark_disagrees,
            &mut strict_skipped,
            &mut unread,
        );
        counts.2 += structural_tags(&made);
        lines.extend(made);
    }
    // The generic parser of every case's template whose format its constraint describes, whatever
    // route a model with that template takes.
    let mut generic: BTreeMap<String, Option<Generic>> = BTreeMap::new();
    for case in &cases {
        let Some(template) = &case.template else {
            continue;
        };
        let parser = generic
            .entry(template.clone())
            .or_insert_with(|| Generic::of(&root, template));
        let Some(parser) = parser else {
            continue;
        };
        let eos: Vec<&str> = parser.end_tokens.iter().map(String::as_str).collect();
        let counts = per_parser.entry(parser.name.clone()).or_default();
        counts.0 += 1;
        let accepted = match family::case_verdict(parser, case, &eos) {
            Verdict::Whole(accepted) | Verdict::FromTrigger(accepted) => accepted,
            Verdict::Skipped | Verdict::Refused(_) => continue,
        };
        counts.1 += 1;
        let made = case_lines(
            parser,
            case,
            &accepted,
            &mut lark_disagrees,
            &mut strict_skipped,
            &mut unread,
        );
        counts.2 += structural_tags(&made);
        lines.extend(made);
    }
    println!(
        "grammar-check: corpus cases per parser (with a constraint; accepted by the grammars; \
         structural tags checked on them):"
    );
    for (parser, (cases, accepted, tags)) in &per_parser {
        println!(
            "  {parser:<22} {cases:>4} cases, {accepted:>4} accepted, {tags:>4} structural tags"
        );
    }
    let strings: usize = lines
        .iter()
        .map(|l| {
            l["accept"].as_array().map_or(0, Vec::len) + l["refuse"].as_array().map_or(0, Vec::len)
        })
        .sum();
    let tags = structural_tags(&lines);
    println!(
        "grammar-check: {} GBNF grammars and {tags} structural tags, {strings} texts, to xgrammar \
         (and the GBNF to llguidance's GBNF reader)",
        lines.len() - tags
    );
    if strict_skipped > 0 {
        println!(
            "grammar-check: {strict_skipped} structural tags left out: their calls have object members \
             the schema does not declare, without `additionalProperties` (allowed by JSON Schema, by \
             our Lark and GBNF; xgrammar's structural tags compile schemas in strict mode, where \
             `additionalProperties` defaults to false)"
        );
    }
    for line in &lark_disagrees {
        println!("lark: {line}");
    }
    for line in &unread {
        println!("structural tag: {line}");
    }
    let mut child = Command::new(&python)
        .arg(root.join("xtask/python/grammar_check.py"))
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    {
        let mut stdin = child.stdin.take().ok_or("no stdin for the checker")?;
        for line in &lines {
            writeln!(stdin, "{line}").map_err(|e| format!("writing to the checker: {e}"))?;
        }
    }
    let status = child.wait().map_err(|e| format!("the checker: {e}"))?;
    if !lark_disagrees.is_empty() {
        println!(
            "grammar-check: {} expectations our Lark form does not meet (left out above)",
            lark_disagrees.len()
        );
    }
    if !unread.is_empty() {
        println!(
            "grammar-check: {} structural tags write calls our parser does not read back (left out above)",
            unread.len()
        );
    }
    Ok(
        if status.success() && lark_disagrees.is_empty() && unread.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    )
}

/// How many of `lines` check a structural tag (the others check a GBNF grammar).
fn structural_tags(lines: &[Value]) -> usize {
    lines.iter().filter(|l| l["gbnf"].is_null()).count()
}

/// The generic parser of one template's analysis (`auto:TEMPLATE` in reports).
struct Generic {
    name: String,
    factory: GenericParserFactory,
    /// The template's end-of-turn markers that are not the format's own: trailing ones are dropped
    /// from the outputs.
    end_tokens: Vec<String>,
}

impl Generic {
    /// The generic parser of `templates/TEMPLATE`, when its analysis finds calls in a format the
    /// constraint describes.
    fn of(root: &Path, template: &str) -> Option<Generic> {
        let loaded = ChatTemplate::from_file(&root.join("templates").join(template)).ok()?;
        let analysis = parser_auto::analysis_for(&loaded);
        if analysis.tools == ToolFormat::None {
            return None;
        }
        let format = format_description(&analysis).ok()?;
        let preserved = format
            .constraint(None, ReasoningStart::Off, &ConstraintRequest::default())
            .ok()?
            .preserved_tokens;
        let end_tokens = (analysis.end_of_turn.iter())
            .map(|token| token.trim().to_owned())
            .filter(|token| !token.is_empty() && !preserved.contains(token))
            .collect();
        Some(Generic {
            name: format!("auto:{template}"),
            factory: GenericParserFactory::new(analysis),
            end_tokens,
        })
    }
}

impl family::Constrained for Generic {
    fn name(&self) -> &str {
        &self.name
    }

    fn parse(&self, options: &ParseOptions, output: &str) -> ParsedMessage {
        self.factory.parser(options).parse(output)
    }

    fn constraint(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Option<Result<Constraint, parser_core::Error>> {
        Some(self.factory.constraint(options, request))
    }

    fn reasoning_closers(&self) -> Vec<String> {
        vec![
            self.factory
                .analysis()
                .markers
                .reasoning_end
                .trim()
                .to_owned(),
        ]
    }
}

/// Every corpus case, file by file in name order.
fn corpus(root: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for source in SOURCES {
        let dir = root.join("corpus").join(source);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        for file in files {
            cases.extend(load_cases(&file));
        }
    }
    Ok(cases)
}

/// The grammars one accepted output gives, each with what it must accept and refuse.
fn case_lines(
    entry: &dyn family::Constrained,
    case: &Case,
    accepted: &Accepted,
    lark_disagrees: &mut Vec<String>,
    strict_skipped: &mut usize,
    unread: &mut Vec<String>,
) -> Vec<Value> {
    let text = accepted.text.as_str();
    let calls = &accepted.calls;
    let base = &accepted.request;
    let required = base.tool_choice == ToolChoice::Required;
    let build = |choice: ToolChoice, parallel: bool| {
        let request = ConstraintRequest {
            tool_choice: choice,
            parallel_tool_calls: parallel,
            ..base.clone()
        };
        entry
            .constraint(&accepted.options, &request)
            .and_then(Result::ok)
    };
    // (request label, constraint, accept, refuse)
    let mut grammars: Vec<(String, Constraint, Vec<String>, Vec<String>)> = Vec::new();
    let label = |choice: &ToolChoice, parallel: bool| {
        let choice = match choice {
            ToolChoice::None => "none".to_owned(),
            ToolChoice::Auto => "auto".to_owned(),
            ToolChoice::Required => "required".to_owned(),
            ToolChoice::Function(name) => format!("function {name}"),
        };
        if parallel {
            choice
        } else {
            format!("{choice}, no parallel calls")
        }
    };
    grammars.push((
        label(&base.tool_choice, base.parallel_tool_calls),
        accepted.constraint.clone(),
        vec![text.to_owned()],
        refusals(accepted, required),
    ));
    let other_parallel = !base.parallel_tool_calls;
    if let Some(constraint) = build(base.tool_choice.clone(), other_parallel) {
        let (accept, refuse) = if calls.len() > 1 {
            (vec![], vec![text.to_owned()])
        } else {
            (vec![text.to_owned()], vec![])
        };
        grammars.push((
            label(&base.tool_choice, other_parallel),
            constraint,
            accept,
            refuse,
        ));
    }
    let first = calls[0].name.clone();
    if required && calls.iter().all(|call| call.name == first) {
        let choice = ToolChoice::Function(first);
        if let Some(constraint) = build(choice.clone(), base.parallel_tool_calls) {
            grammars.push((
                label(&choice, base.parallel_tool_calls),
                constraint,
                vec![text.to_owned()],
                vec![],
            ));
        }
    }
    if let Some(constraint) = build(ToolChoice::None, true) {
        grammars.push((
            label(&ToolChoice::None, true),
            constraint,
            vec![],
            vec![text.to_owned()],
        ));
    }
    grammars
        .into_iter()
        .flat_map(|(request, constraint, accept, refuse)| {
            let name = format!("{} {} [{request}]", entry.name(), case.id);
            let mut keep = |texts: Vec<String>, expected: bool| -> Vec<String> {
                texts
                    .into_iter()
                    .filter(|text| {
                        let lark = llg::accepts(constraint.lark(), text).is_ok();
                        if lark != expected {
                            let verb = if expected { "refuses" } else { "accepts" };
                            lark_disagrees.push(format!("{name}: lark {verb} {text:?}"));
                        }
                        lark == expected
                    })
                    .collect()
            };
            let accept = keep(accept, true);
            let refuse = keep(refuse, false);
            let mut lines = vec![json!({
                "name": name,
                "gbnf": constraint.gbnf(),
                "structural_tag": Value::Null,
                "accept": accept,
                "refuse": refuse,
            })];
            if !accept.is_empty() {
                if calls.iter().any(|call| undeclared_members(accepted, call)) {
                    *strict_skipped += 1;
                } else {
                    let read = |written: &str| entry.parse(&accepted.options, written).tool_calls;
                    lines.extend(structural_line(
                        &name,
                        &constraint,
                        calls,
                        text,
                        read,
                        unread,
                    ));
                }
            }
            lines
        })
        .collect()
}

/// True when `call`'s arguments have, at any depth, an object member its tool's schema does not
/// declare where the schema says nothing of `additionalProperties`: JSON Schema allows it, xgrammar's
/// strict mode (which its structural tags use) does not.
fn undeclared_members(accepted: &Accepted, call: &ToolCall) -> bool {
    fn undeclared(schema: &Value, value: &Value) -> bool {
        match value {
            Value::Object(members) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                members
                    .iter()
                    .any(|(key, member)| match properties.and_then(|p| p.get(key)) {
                        Some(member_schema) => undeclared(member_schema, member),
                        None => schema.get("additionalProperties").is_none(),
                    })
            }
            Value::Array(items) => {
                let items_schema = schema.get("items").cloned().unwrap_or(Value::Null);
                items.iter().any(|item| undeclared(&items_schema, item))
            }
            _ => false,
        }
    }
    let Some(tools) = &accepted.options.tools else {
        return false;
    };
    let Some(tool) = tools.iter().find(|tool| tool.name == call.name) else {
        return false;
    };
    let arguments: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    undeclared(tool.parameters(), &arguments)
}

/// The structural tag of a grammar that accepts `calls`: it must accept those calls written in its own
/// framing ([`render`]), and refuse them with an unknown function, cut off, or (when calls are required)
/// with text instead.
/// `output` is the corpus output the calls came from (see [`copied_call_tag`]). What is written must
/// read back, through `parser`, as the same calls: a structural tag whose framing our parser does not
/// read would make a server's constrained output lose its calls; that goes to `unread`.
fn structural_line(
    name: &str,
    constraint: &Constraint,
    calls: &[ToolCall],
    output: &str,
    read: impl Fn(&str) -> Vec<ToolCall>,
    unread: &mut Vec<String>,
) -> Option<Value> {
    let format = constraint.structural_tag().get("format")?;
    let written = render(format, &Calls { calls, output })?;
    let back = read(&written);
    let same = |a: &ToolCall, b: &ToolCall| {
        a.name == b.name
            && serde_json::from_str::<Value>(&a.arguments).ok()
                == serde_json::from_str::<Value>(&b.arguments).ok()
    };
    if back.len() != calls.len() || !back.iter().zip(calls).all(|(a, b)| same(a, b)) {
        unread.push(format!(
            "{name}: our parser reads {:?} in the structural tag's {written:?}",
            back.iter()
                .map(|c| format!("{}({})", c.name, c.arguments))
                .collect::<Vec<_>>()
        ));
        return None;
    }
    let required = !constraint.lazy;
    let mut refuse = Vec::new();
    let first = &calls[0].name;
    // The name as a word (a one-letter name also occurs inside the framing's words).
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let named = written.match_indices(first.as_str()).find(|&(at, _)| {
        !written[..at].ends_with(word) && !written[at + first.len()..].starts_with(word)
    });
    if let Some((at, _)) = named {
        let at = at + first.len();
        refuse.push(format!("{}_unknown{}", &written[..at], &written[at..]));
    }
    if let Some((last, _)) = written.char_indices().next_back() {
        refuse.push(written[..last].to_owned());
    }
    if required {
        refuse.push("I will not call a function.".to_owned());
    }
    Some(json!({
        "name": format!("{name} (structural tag)"),
        "gbnf": Value::Null,
        "structural_tag": constraint.structural_tag(),
        "accept": [written],
        "refuse": refuse,
    }))
}

/// The calls a structural tag must accept, and the corpus output they were parsed from.
#[derive(Clone, Copy)]
struct Calls<'a> {
    calls: &'a [ToolCall],
    output: &'a str,
}

/// `calls` written as the structural tag `format` frames them: reasoning and free text as short
/// sentences, each call with the tag of its function, calls joined by the tags' separator (one section
/// holding them all, where a section tag wraps them); the calls of tagged parameters copied from the
/// output as the model wrote them ([`copied_calls`]). `None` when the format has no tag for a call.
fn render(format: &Value, calls: &Calls) -> Option<String> {
    let kind = format.get("type")?.as_str()?;
    let tags = |format: &Value| format.get("tags").and_then(Value::as_array).cloned();
    Some(match kind {
        "sequence" => (format.get("elements")?.as_array()?.iter())
            .map(|element| render(element, calls))
            .collect::<Option<Vec<_>>>()?
            .concat(),
        "optional" => render(format.get("content")?, calls)?,
        // Tagged-parameter calls in a section or without it: the way the output took.
        "or" if (format.get("elements")?.as_array()?.iter()).any(holds_copied_calls) => {
            (format.get("elements")?.as_array()?.iter())
                .find_map(|element| render(element, calls))?
        }
        "or" => render(format.get("elements")?.get(0)?, calls)?,
        "any_text" => "Let me see.".to_owned(),
        "const_string" => format.get("value")?.as_str()?.to_owned(),
        // Optional whitespace (around the calls of tagged parameters): none.
        "regex" if format.get("pattern")? == WHITESPACE => String::new(),
        // A section of tagged-parameter calls: copied whole, the whitespace in it included.
        "tag" if holds_copied_calls(format.get("content")?) => {
            copied_section(format, calls.output)?
        }
        "tag" => {
            // A reasoning block or a section: its content holds no call of its own.
            let begin = format.get("begin")?.as_str()?;
            let end = format.get("end")?.as_str()?;
            format!("{begin}{}{end}", render(format.get("content")?, calls)?)
        }
        "tags_with_separator" if holds_copied_calls(format) => {
            copied_calls(&tags(format)?, calls.output)?
        }
        "tags_with_separator" => {
            let tags = tags(format)?;
            let separator = format.get("separator")?.as_str()?;
            (calls.calls.iter().enumerate())
                .map(|(at, call)| call_tag(&tags, call, at, calls.output))
                .collect::<Option<Vec<_>>>()?
                .join(separator)
        }
        "triggered_tags" => {
            let tags = tags(format)?;
            // A section tag (its content holds the calls' tags) takes them all.
            let section = tags.iter().find(|tag| {
                tag.get("content").is_some_and(|content| {
                    content
                        .get("type")
                        .is_some_and(|t| t == "tags_with_separator")
                        || holds_copied_calls(content)
                })
            });
            let written = match section {
                // Tagged-parameter calls may also stand without their section.
                Some(section) if holds_copied_calls(section.get("content")?) => {
                    render(section, calls).or_else(|| copied_calls(&tags, calls.output))?
                }
                Some(section) => render(section, calls)?,
                None if tags.iter().all(copied_whole) => copied_calls(&tags, calls.output)?,
                None => (calls.calls.iter().enumerate())
                    .map(|(at, call)| call_tag(&tags, call, at, calls.output))
                    .collect::<Option<Vec<_>>>()?
                    .join("\n"),
            };
            format!("Let me check. {written}")
        }
        _ => return None,
    })
}

/// The optional whitespace of a structural tag's `regex` (around the calls of tagged parameters).
const WHITESPACE: &str = r"[ \t\n\r]*";

/// True for the tag of a call with tagged parameters (Qwen3-Coder, GLM and its kin): it begins at
/// the call's opener and its `grammar` holds the rest of the call, its closer and the whitespace
/// after it (its `end` is empty). Such a call cannot be cut out of an output by its `begin` and
/// `end`, and writing its parameters here would be a third implementation of their syntax: the
/// model's own calls are copied instead ([`copied_calls`]).
fn copied_whole(tag: &Value) -> bool {
    tag.get("end").and_then(Value::as_str) == Some("")
        && tag
            .get("content")
            .and_then(|c| c.get("type"))
            .is_some_and(|t| t == "grammar")
}

/// True when `format` is the calls of tagged parameters: a `tags_with_separator` of tags
/// [`copied_whole`], alone, after whitespace in a `sequence`, or in a section's `tag`.
fn holds_copied_calls(format: &Value) -> bool {
    match format.get("type").and_then(Value::as_str) {
        Some("tags_with_separator") => format
            .get("tags")
            .and_then(Value::as_array)
            .is_some_and(|tags| !tags.is_empty() && tags.iter().all(copied_whole)),
        Some("sequence") => (format.get("elements").and_then(Value::as_array))
            .is_some_and(|elements| elements.iter().any(holds_copied_calls)),
        // Their section.
        Some("tag") => format.get("content").is_some_and(holds_copied_calls),
        _ => false,
    }
}

/// The calls of tagged parameters as the output holds them: from the first call's opener (a tag's
/// `begin`) to the end of the output, the whitespace between the calls as the model wrote it. The
/// output the grammars accepted has no opener before its first call (free text, reasoning and
/// values exclude the markers) and nothing after its last but whitespace.
fn copied_calls(tags: &[Value], output: &str) -> Option<String> {
    let start = (tags.iter())
        .filter_map(|tag| tag.get("begin")?.as_str())
        .filter(|begin| !begin.is_empty())
        .filter_map(|begin| output.find(begin))
        .min()?;
    Some(output[start..].trim_end().to_owned())
}

/// A section of tagged-parameter calls as the output holds it: from its opener to its last closer.
fn copied_section(section: &Value, output: &str) -> Option<String> {
    let begin = section.get("begin")?.as_str()?;
    let end = section.get("end")?.as_str()?;
    let start = output.find(begin).filter(|_| !begin.is_empty())?;
    let stop = if end.is_empty() {
        output.trim_end().len()
    } else {
        start + output[start..].rfind(end)? + end.len()
    };
    Some(output[start..stop].to_owned())
}

/// One call through the tag of its function, written here ([`written_call_tag`]) or, for a tag whose
/// arguments this module does not write, copied from the output ([`copied_call_tag`]).
fn call_tag(tags: &[Value], call: &ToolCall, at: usize, output: &str) -> Option<String> {
    written_call_tag(tags, call, at).or_else(|| copied_call_tag(tags, call, at, output))
}

/// One call copied from the output it was parsed from: the `at`-th call tag the output holds, from its
/// `begin` to its `end`, when that tag names `call`'s function. For the element calls of Kimi K3
/// (`<|open|>call tool="NAME" index="…`) and MiniMax-M3 (`<invoke name="NAME">` holding one element per
/// argument, nested for objects, typed): writing their arguments here would be a third implementation
/// of their syntax beside the parser's and the grammar's, while the corpus output is the model's own.
fn copied_call_tag(tags: &[Value], call: &ToolCall, at: usize, output: &str) -> Option<String> {
    let framings: Vec<(&str, &str)> = (tags.iter())
        // Only a tag whose content is one of our own grammars: those accept what the Lark and GBNF
        // forms accept, checked on the same outputs. A tag of tagged parameters is copied with the
        // calls around it ([`copied_calls`]).
        .filter(|tag| !copied_whole(tag))
        .filter(|tag| {
            tag.get("content")
                .and_then(|c| c.get("type"))
                .is_some_and(|t| t == "grammar")
        })
        .filter_map(|tag| Some((tag.get("begin")?.as_str()?, tag.get("end")?.as_str()?)))
        .filter(|(begin, _)| !begin.is_empty())
        .collect();
    let mut starts: Vec<(usize, &str, &str)> = (framings.iter())
        .flat_map(|&(begin, end)| {
            output
                .match_indices(begin)
                .map(move |(i, _)| (i, begin, end))
        })
        .collect();
    // One call per position: the longest begin there (a shorter one may be its prefix).
    starts.sort_by_key(|&(i, begin, _)| (i, std::cmp::Reverse(begin.len())));
    starts.dedup_by_key(|start| start.0);
    let &(start, begin, end) = starts.get(at)?;
    if !begin.contains(call.name.as_str()) {
        return None;
    }
    let body = start + begin.len();
    let stop = body + output[body..].find(end)? + end.len();
    Some(output[start..stop].to_owned())
}

/// One call written through the tag of its function: the tag whose `begin` ends with the name, or
/// with it quoted and followed by more framing (`{"name": "NAME", "arguments": `).
fn written_call_tag(tags: &[Value], call: &ToolCall, at: usize) -> Option<String> {
    let quoted = serde_json::to_string(&call.name).ok()?;
    let tag = tags.iter().filter(|tag| !copied_whole(tag)).find(|tag| {
        tag.get("begin")
            .and_then(Value::as_str)
            .is_some_and(|begin| {
                begin.ends_with(call.name.as_str())
                    || begin.contains(&format!("{quoted},"))
                    // The name as the key of the arguments: `{"NAME": ` (Apertus).
                    || begin.ends_with(&format!("{{{quoted}: "))
                    // A Python dict call: `{'name': 'NAME', 'arguments': `.
                    || begin.contains(&format!("'{}',", call.name))
                    // An XML invoke (`<NS:invoke name="NAME">`) whose parameters are
                    // `<NS:parameter name="KEY">` elements.
                    || (begin.ends_with(&format!("invoke name=\"{}\">", call.name))
                        && invoke_parameters(tag).is_some())
                    || begin.ends_with(&format!("{}(", call.name))
            })
            || python_calls(tag, call)
            || constants(tag).iter().any(|constant| {
                // An id-first call names its function after the id: `", "tool_name": "NAME", …`
                // (JSON), `<|tool_call:name|>NAME` (tagged).
                constant.contains(&format!("{quoted},"))
                    || constant
                        .strip_suffix(call.name.as_str())
                        .is_some_and(|before| {
                            !before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                        })
            })
    })?;
    let begin = tag.get("begin")?.as_str()?;
    let end = tag.get("end")?.as_str()?;
    // The Python calls of every tool: the name and `(` stand in the grammar, before the arguments.
    let open = if python_calls(tag, call) {
        format!("{}(", call.name)
    } else {
        String::new()
    };
    Some(format!(
        "{begin}{open}{}{end}",
        content(
            tag.get("content")?,
            call,
            at,
            begin.ends_with(&format!("call:{}", call.name)),
            begin.ends_with(": "),
            invoke_parameters(tag)
        )?
    ))
}

/// True for the one tag of every tool's Python calls (`NAME(` and the keyword arguments in its
/// grammar, `)` its `end`) when its grammar opens a call of `call`'s function.
fn python_calls(tag: &Value, call: &ToolCall) -> bool {
    tag.get("end")
        .and_then(Value::as_str)
        .is_some_and(|end| end.starts_with(')'))
        && tag
            .get("content")
            .and_then(|c| c.get("grammar"))
            .and_then(Value::as_str)
            .is_some_and(|grammar| grammar.contains(&format!("\"{}(\"", call.name)))
}

/// The namespace of an XML invoke a tag's `begin` ends with (`<atem:invoke name="…">` → `atem:`),
/// when the tag's content grammar writes its parameters as `<NS:parameter name="…">` elements.
fn invoke_parameters(tag: &Value) -> Option<&str> {
    let begin = tag.get("begin")?.as_str()?;
    let open = &begin[begin.rfind('<')?..];
    let at = open.find("invoke name=\"")?;
    let namespace = &open[1..at];
    let grammar = tag.get("content")?.get("grammar")?.as_str()?;
    grammar
        .contains(&format!("<{namespace}parameter name="))
        .then_some(namespace)
}

/// The `const_string` values of a tag's content sequence (where an id-first call names its function).
fn constants(tag: &Value) -> Vec<&str> {
    (tag.get("content")
        .and_then(|c| c.get("elements"))
        .and_then(Value::as_array))
    .into_iter()
    .flatten()
    .filter_map(|element| element.get("value").and_then(Value::as_str))
    .collect()
}

/// A call tag's content: constants, the call's index for a number, its arguments for the schema.
/// `gemma`: the tag is a Gemma call's (`…call:NAME`), whose arguments are in Gemma's syntax;
/// `dict_call`: a Python dict call's (`…'arguments': `), whose arguments are a Python dict;
/// `invoke`: an XML invoke's (`<NS:invoke name="NAME">`, its namespace given), whose arguments are
/// `<NS:parameter name="KEY">VALUE</NS:parameter>` elements.
fn content(
    format: &Value,
    call: &ToolCall,
    at: usize,
    gemma_call: bool,
    dict_call: bool,
    invoke: Option<&str>,
) -> Option<String> {
    Some(match format.get("type")?.as_str()? {
        "json_schema" => call.arguments.clone(),
        // A Gemma call's arguments (`{KEY:VALUE,…}`, strings between delimiter tokens): the
        // grammar names its delimiter, FunctionGemma's `<escape>` or Gemma 4's `<|"|>`.
        "grammar" if gemma_call => {
            let arguments: Value = serde_json::from_str(&call.arguments).ok()?;
            // A tool without string values has no delimiter in its grammar; any will do then.
            gemma(&arguments, gemma_delimiter(format).unwrap_or("<escape>"))
        }
        // A Python dict call's arguments: the dict.
        "grammar" if dict_call => python(&serde_json::from_str(&call.arguments).ok()?),
        // An XML invoke's parameters: strings raw, other values JSON.
        "grammar" if invoke.is_some() => {
            let ns = invoke?;
            let arguments: Value = serde_json::from_str(&call.arguments).ok()?;
            (arguments.as_object()?.iter())
                .map(|(key, value)| {
                    let value = match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    format!("\n<{ns}parameter name=\"{key}\">{value}</{ns}parameter>")
                })
                .collect()
        }
        // A Python call's keyword arguments (their grammar is GBNF): the arguments as Python.
        "grammar" => {
            let arguments: Value = serde_json::from_str(&call.arguments).ok()?;
            (arguments.as_object()?.iter())
                .map(|(key, value)| format!("{key}={}", python(value)))
                .collect::<Vec<_>>()
                .join(", ")
        }
        "const_string" => format.get("value")?.as_str()?.to_owned(),
        "regex" if format.get("pattern")? == "[0-9]+" => at.to_string(),
        "sequence" => (format.get("elements")?.as_array()?.iter())
            .map(|element| content(element, call, at, gemma_call, dict_call, invoke))
            .collect::<Option<Vec<_>>>()?
            .concat(),
        _ => return None,
    })
}

/// The string delimiter a Gemma call's argument grammar names (in GBNF Gemma 4's `<|"|>` is
/// written `<|\"|>`), if it names one.
fn gemma_delimiter(format: &Value) -> Option<&'static str> {
    let grammar = format.get("grammar")?.as_str()?;
    if grammar.contains("<escape>") {
        Some("<escape>")
    } else if grammar.contains(r#"<|\"|>"#) {
        Some(r#"<|"|>"#)
    } else {
        None
    }
}

/// A JSON value in Gemma's syntax: strings between `delimiter`s, bare keys, everything else as JSON.
fn gemma(value: &Value, delimiter: &str) -> String {
    match value {
        Value::String(text) => format!("{delimiter}{text}{delimiter}"),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|item| gemma(item, delimiter)).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(members) => {
            let members: Vec<String> = (members.iter())
                .map(|(k, v)| format!("{k}:{}", gemma(v, delimiter)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

/// A JSON value as a Python literal (strings in `"`, JSON's escapes, which Python reads alike for
/// the characters a corpus call holds).
fn python(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(_) => value.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(python).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            let members: Vec<String> = (members.iter())
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), python(v)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

/// What the grammar that accepts `accepted.text` must refuse: the same output broken in one way each.
fn refusals(accepted: &Accepted, required: bool) -> Vec<String> {
    let text = accepted.text.as_str();
    let mut out = Vec::new();
    // Where the first call opens (the whole text, for a whole output written without its opener).
    let opened = (accepted.openers.iter())
        .filter_map(|word| text.find(word.as_str()))
        .min()
        .unwrap_or(0);
    let call = &accepted.calls[0];
    // A call of a function that is not among the tools.
    if let Some(at) = text[opened..].find(call.name.as_str()) {
        let at = opened + at + call.name.len();
        out.push(format!("{}_unknown{}", &text[..at], &text[at..]));
    }
    // Cut off one character before the end.
    let trimmed = text.trim_end();
    if let Some((last, _)) = trimmed.char_indices().next_back() {
        out.push(trimmed[..last].to_owned());
    }
    // Text after the calls.
    out.push(format!("{trimmed}\nThat is all."));
    // The first call without one of its required arguments, where its arguments are written as JSON.
    if let Some(without) = missing_required(accepted, opened) {
        out.push(without);
    }
    // Text instead of a call.
    if required {
        out.push("I will not call a function.".to_owned());
    }
    out
}

/// The text with the first call's first required argument removed, when the call's arguments are
/// written in the text as the JSON our parser returns.
fn missing_required(accepted: &Accepted, opened: usize) -> Option<String> {
    let text = accepted.text.as_str();
    let call = &accepted.calls[0];
    let at = opened + text[opened..].find(call.arguments.as_str())?;
    let tools = accepted.options.tools.as_ref()?;
    let schema = tools
        .iter()
        .find(|tool| tool.name == call.name)?
        .parameters();
    let mut arguments: serde_json::Map<String, Value> =
        serde_json::from_str(&call.arguments).ok()?;
    let key = (schema.get("required")?.as_array()?.iter())
        .filter_map(Value::as_str)
        .find(|key| arguments.contains_key(*key))?
        .to_owned();
    arguments.remove(&key);
    let without = Value::Object(arguments).to_string();
    Some(format!(
        "{}{without}{}",
        &text[..at],
        &text[at + call.arguments.len()..]
    ))
}

/// The venv's python, made (once) under the target directory.
fn venv(root: &Path) -> Result<PathBuf, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let target = if target.is_relative() {
        root.join(target)
    } else {
        target
    };
    let dir = target.join("grammar-check-venv");
    let python = dir.join("bin/python");
    let requirements = root.join("xtask/python/requirements.txt");
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    let stamp = dir.join("installed-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|done| done == wanted) {
        return Ok(python);
    }
    let found = Command::new("python3").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        return Err(
            "grammar-check needs python3 (3.9 or later) with its venv module and pip, to \
             install xgrammar and llguidance from PyPI (xtask/python/requirements.txt)"
                .to_owned(),
        );
    }
    eprintln!(
        "grammar-check: making the venv {} (once; ~130 MB from PyPI)",
        dir.display()
    );
    let started = std::time::Instant::now();
    let _ = std::fs::remove_dir_all(&dir);
    run_quiet(
        Command::new("python3").args(["-m", "venv"]).arg(&dir),
        "python3 -m venv (on Debian and Ubuntu the venv module is the package python3-venv)",
    )?;
    run_quiet(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "-r",
            ])
            .arg(&requirements),
        "pip install -r xtask/python/requirements.txt (needs PyPI)",
    )?;
    std::fs::write(&stamp, &wanted).map_err(|e| format!("{}: {e}", stamp.display()))?;
    eprintln!(
        "grammar-check: venv ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(python)
}

fn run_quiet(command: &mut Command, what: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: String::new(),
            name: name.to_owned(),
            arguments: arguments.to_owned(),
            valid: true,
        }
    }

    #[test]
    fn calls_are_written_in_the_structural_tags_framing() {
        let tag = |name: &str| {
            json!({"type": "tag", "begin": format!("<tool_call>\n{{\"name\": \"{name}\", \"arguments\": "),
                   "content": {"type": "json_schema", "json_schema": {}}, "end": "}\n</tool_call>"})
        };
        let format = json!({"type": "sequence", "elements": [
            {"type": "tag", "begin": "", "content": {"type": "any_text"}, "end": "</think>"},
            {"type": "tags_with_separator", "tags": [tag("get"), tag("get_weather")], "separator": "\n"},
        ]});
        let calls = [
            call("get_weather", r#"{"city": "Paris"}"#),
            call("get", "{}"),
        ];
        let calls = Calls {
            calls: &calls,
            output: "",
        };
        assert_eq!(
            render(&format, &calls).as_deref(),
            Some(
                "Let me see.</think><tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n\
                 <tool_call>\n{\"name\": \"get\", \"arguments\": {}}\n</tool_call>"
            )
        );
        // A call of a function the tag does not know cannot be written.
        let unknown = Calls {
            calls: &[call("now", "{}")],
            output: "",
        };
        assert_eq!(render(&format, &unknown), None);
    }

    #[test]
    fn element_calls_are_copied_from_the_output() {
        // Kimi K3's framing: the tag names the function, its content (a grammar) is not written here.
        let tag = |name: &str| {
            json!({"type": "tag", "begin": format!("<|open|>call tool=\"{name}\" index=\""),
                   "content": {"type": "grammar", "grammar": "root ::= [0-9]+"}, "end": "<|close|>call<|sep|>"})
        };
        let format = json!({"type": "tag", "begin": "<|open|>tools<|sep|>", "end": "<|close|>tools<|sep|>",
            "content": {"type": "tags_with_separator", "tags": [tag("get"), tag("get_weather")], "separator": ""}});
        let output = "thinking<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"0\"<|sep|>A\
                      <|close|>call<|sep|><|open|>call tool=\"get\" index=\"1\"<|sep|><|close|>call<|sep|>\
                      <|close|>tools<|sep|>";
        let calls = [call("get_weather", r#"{"a": 1}"#), call("get", "{}")];
        let expected = &output["thinking".len()..];
        let both = Calls {
            calls: &calls,
            output,
        };
        assert_eq!(render(&format, &both).as_deref(), Some(expected));
        // The output's second call is not `get_weather`'s: nothing is copied.
        let wrong = [call("get_weather", "{}"), call("get_weather", "{}")];
        let wrong = Calls {
            calls: &wrong,
            output,
        };
        assert_eq!(render(&format, &wrong), None);
    }
}
