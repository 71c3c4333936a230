//! `cargo xtask analyze TEMPLATE...` and `cargo xtask analyze --all DIR`.
//!
//! With templates (`.jinja` files, `tokenizer_config.json` / `chat_template.json` files or model
//! directories): prints `parser_auto::analyze::report` for each — the detected reasoning, content and
//! tool-call modes, the markers, the capabilities, the preserved tokens and the route a model with that
//! template takes when its name is unknown. This is what to run when a new model misbehaves.
//!
//! Each report ends with a grammar section ([`grammar_section`]): the constrained-decoding grammar of
//! the route a model with that template takes (its family's, or the generic parser's, built from the
//! analysis by `parser_auto::Prepared::constraint`) for `tool_choice: auto` with a sample tool and the
//! template's generation prompt as the prompt tail: the Lark grammar, whether it is lazy, its triggers
//! and preserved tokens, and with `--gbnf` / `--structural-tag` the other renderings; or why the
//! format has none.
//!
//! With `--all DIR`: analyses every `*.jinja` file of `DIR` and prints one markdown table, a row per
//! template (route, reasoning mode, tool-call format and the key markers), then the count per route.
//!
//! A relative path that does not exist from the current directory is also tried from the workspace
//! root, so `cargo xtask analyze --all templates` works from anywhere in the workspace. A template that
//! cannot be loaded (or whose analysis panics) is reported and the rest go on; the exit code is then 1.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use parser_auto::analyze::{Analysis, report};
use parser_auto::constraint::ConstraintRequest;
use parser_auto::template::ChatTemplate;
use parser_auto::{ParseOptions, Route, Tools};

use crate::flags;

/// Runs the analysis.
pub fn run(flags: &flags::Analyze) -> Result<ExitCode, String> {
    match &flags.all {
        Some(dir) => table(&locate(dir)),
        None => reports(flags),
    }
}

/// A path as given, or from the workspace root when it is relative and not found from here.
fn locate(path: &Path) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    let from_root = crate::project_root().join(path);
    if from_root.exists() {
        from_root
    } else {
        path.to_path_buf()
    }
}

/// Loads a template file or a model directory's template.
fn load(path: &Path) -> Result<ChatTemplate, String> {
    let loaded = if path.is_dir() {
        ChatTemplate::from_model_dir(path)
    } else {
        ChatTemplate::from_file(path)
    };
    loaded.map_err(|error| match error.kind() {
        parser_auto::ErrorKind::InvalidOption(why) => why.clone(),
        _ => error.to_string(),
    })
}

/// The template's analysis (cached by `parser_auto`), with a panic turned into an error.
fn analysis(template: &ChatTemplate) -> Result<std::sync::Arc<Analysis>, String> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(|| parser_auto::analysis_for(template)));
    panic::set_hook(previous);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        format!("the analysis panicked: {message}")
    })
}

/// `analyze TEMPLATE...`: the report of each, with its grammar section.
fn reports(flags: &flags::Analyze) -> Result<ExitCode, String> {
    let paths = &flags.templates;
    let mut failed = false;
    for (at, path) in paths.iter().enumerate() {
        let path = locate(path);
        // A model directory's template is named after its config entry, so say which directory.
        if paths.len() > 1 || path.is_dir() {
            if at > 0 {
                println!();
            }
            println!("== {} ==", path.display());
        }
        match load(&path).and_then(|template| Ok((analysis(&template)?, template))) {
            Ok((analysis, template)) => {
                print!("{}", report(&template, &analysis));
                print!("{}", grammar_section(&template, &analysis, flags));
            }
            Err(why) => {
                failed = true;
                eprintln!("error: {}: {why}", path.display());
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The tool the grammar section's grammar is built for.
fn sample_tools() -> Tools {
    let tools = serde_json::json!([{"type": "function", "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"}
            },
            "required": ["city"]
        }
    }}]);
    Tools::from_json(&tools).expect("the sample tool is valid")
}

/// The grammar section of a template's report: the constraint of the route a model with this template
/// takes, for `tool_choice: auto` with [`sample_tools`], the template's generation prompt as the
/// prompt tail. The Lark grammar, laziness, triggers and preserved tokens; with the flags, the GBNF and
/// the structural tag. A format without a constraint says why.
pub fn grammar_section(
    template: &ChatTemplate,
    analysis: &Analysis,
    flags: &flags::Analyze,
) -> String {
    let mut out = String::from(
        "\nGrammar (tool_choice auto, a sample `get_weather` tool, the generation prompt as the tail):\n",
    );
    let prepared = match parser_auto::prepare(None, Some(template)) {
        Ok(prepared) => prepared,
        Err(error) => return out + &format!("  none: the template is not prepared: {error}\n"),
    };
    let options = ParseOptions::new()
        .with_prompt_tail(analysis.generation_prompt.clone())
        .with_tools(Arc::new(sample_tools()));
    let constraint = match prepared.constraint(&options, &ConstraintRequest::default()) {
        None => return out + "  none: this route's format has no constraint\n",
        Some(Err(error)) => return out + &format!("  none: {error}\n"),
        Some(Ok(constraint)) => constraint,
    };
    let indent =
        |text: &str| -> String { text.lines().map(|line| format!("    {line}\n")).collect() };
    out += &format!(
        "  route: {}\n",
        route_cell(&prepared.route).replace('`', "")
    );
    out += &format!("  lazy: {}\n", constraint.lazy);
    out += &format!("  trigger words: {:?}\n", constraint.triggers.words);
    out += &format!("  trigger patterns: {:?}\n", constraint.triggers.patterns);
    out += &format!("  preserved tokens: {:?}\n", constraint.preserved_tokens);
    out += "  Lark:\n";
    out += &indent(&constraint.lark);
    if flags.gbnf {
        out += "  GBNF:\n";
        out += &indent(&constraint.gbnf);
    }
    if flags.structural_tag {
        let tag = serde_json::to_string_pretty(&constraint.structural_tag).unwrap_or_default();
        out += "  structural tag:\n";
        out += &indent(&tag);
    }
    out
}

/// `analyze --all DIR`: one markdown row per `*.jinja` file.
fn table(dir: &Path) -> Result<ExitCode, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|error| format!("cannot read {}: {error}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jinja"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no *.jinja files in {}", dir.display()));
    }
    println!("| template | route | reasoning | tools | key markers |");
    println!("|---|---|---|---|---|");
    let mut routes: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = 0;
    for path in &files {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let analysed = load(path).and_then(|template| Ok((analysis(&template)?, template)));
        match analysed {
            Ok((analysis, template)) => {
                let route = route_cell(&parser_auto::route_for_template(&template));
                *routes.entry(route_kind(&route)).or_default() += 1;
                println!(
                    "| {} | {route} | {} | {} | {} |",
                    cell(&name),
                    reasoning_cell(&analysis),
                    tools_cell(&analysis),
                    markers_cell(&analysis)
                );
            }
            Err(why) => {
                failed += 1;
                println!("| {} | **error** | | | {} |", cell(&name), cell(&why));
            }
        }
    }
    let counts: Vec<String> = routes
        .iter()
        .map(|(route, count)| format!("{count} {route}"))
        .collect();
    println!();
    print!("{} templates: {}", files.len(), counts.join(", "));
    if failed > 0 {
        print!(", {failed} not analysed");
    }
    println!(".");
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The route, compact: `analyzer`, or `signature: NAME`.
fn route_cell(route: &Route) -> String {
    match route {
        Route::ModelName(name) => format!("model name: `{name}`"),
        Route::TemplateSignature(name) => format!("signature: `{name}`"),
        Route::ResponseFormat => "response format".to_owned(),
        Route::Analyzer => "analyzer".to_owned(),
        Route::PlainContent => "plain content".to_owned(),
    }
}

/// The route's kind, for the summary.
fn route_kind(cell: &str) -> String {
    match cell.split_once(':') {
        Some((kind, _)) => format!("by {kind}"),
        None => format!("by {cell}"),
    }
}

/// The reasoning mode, with the thinking switch when there is one, and the content mode when the
/// answer is wrapped.
fn reasoning_cell(analysis: &Analysis) -> String {
    use parser_auto::analyze::ContentMode;
    let mut text = format!("{:?}", analysis.reasoning);
    if let Some(variable) = &analysis.capabilities.thinking_variable {
        text.push_str(&format!(" (`{variable}`)"));
    }
    if analysis.content != ContentMode::Plain {
        text.push_str(&format!(", content {:?}", analysis.content));
    }
    text
}

/// The tool-call format (and where a call id goes, when not JSON).
fn tools_cell(analysis: &Analysis) -> String {
    use parser_auto::analyze::CallIdPosition;
    let mut text = format!("{:?}", analysis.tools);
    if analysis.call_id != CallIdPosition::None {
        text.push_str(&format!(", id {:?}", analysis.call_id));
    }
    text
}

/// Reasoning start/end, section start, per-call start, function-name prefix and argument-name prefix,
/// those that are set.
fn markers_cell(analysis: &Analysis) -> String {
    let m = &analysis.markers;
    let mut parts = Vec::new();
    if !m.reasoning_start.is_empty() || !m.reasoning_end.is_empty() {
        parts.push(format!(
            "think {}…{}",
            code(&m.reasoning_start),
            code(&m.reasoning_end)
        ));
    }
    for (label, marker) in [
        ("section", &m.tool_section_start),
        ("call", &m.per_call_start),
        ("name", &m.func_name_prefix),
        ("arg", &m.arg_name_prefix),
    ] {
        if !marker.is_empty() {
            parts.push(format!("{label} {}", code(marker)));
        }
    }
    parts.join(" · ")
}

/// Text for a table cell: no newlines, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// A marker as inline code, newlines and tabs shown as `\n` and `\t` (`∅` when empty).
fn code(marker: &str) -> String {
    if marker.is_empty() {
        return "∅".to_owned();
    }
    let text = marker
        .replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
        .replace('|', "\\|");
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_table_safe() {
        assert_eq!(code("<|im_start|>\n"), "`<\\|im_start\\|>\\n`");
        assert_eq!(code("```json"), "`` ```json ``");
        assert_eq!(code(""), "∅");
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }

    #[test]
    fn a_template_row() {
        let dir = crate::project_root().join("templates");
        let template = load(&dir.join("Qwen3-Coder.jinja")).unwrap();
        let analysis = analysis(&template).unwrap();
        let markers = markers_cell(&analysis);
        assert!(markers.contains("name `<function=`"), "{markers}");
        assert!(markers.contains("arg `<parameter=`"), "{markers}");
        assert_eq!(tools_cell(&analysis), "TagWithTagged");
        assert!(load(&dir.join("no-such-template.jinja")).is_err());
    }

    /// The grammar section of a template of each kind: a family's route, a family written as data (the
    /// generic engine's grammar: JSON calls in an array), and a template without calls.
    #[test]
    fn grammar_sections() {
        let dir = crate::project_root().join("templates");
        let section = |name: &str, flags: &flags::Analyze| {
            let template = load(&dir.join(name)).unwrap();
            grammar_section(&template, &analysis(&template).unwrap(), flags)
        };
        let plain = flags::Analyze::default();
        let all = flags::Analyze {
            gbnf: true,
            structural_tag: true,
            ..flags::Analyze::default()
        };

        let coder = section("Qwen3-Coder.jinja", &plain);
        assert!(coder.contains("  lazy: true\n"), "{coder}");
        assert!(
            coder.contains(r#"trigger words: ["<tool_call>"]"#),
            "{coder}"
        );
        assert!(coder.contains("    start: "), "{coder}");
        assert!(coder.contains(r#""<parameter=city>""#), "{coder}");
        assert!(!coder.contains("GBNF:") && !coder.contains("structural tag:"));

        let nemotron = section("NVIDIA-Nemotron-Nano-v2.jinja", &all);
        assert!(
            nemotron.contains("route: signature: nemotron-nano-v2"),
            "{nemotron}"
        );
        assert!(
            nemotron.contains(r#"trigger words: ["<TOOLCALL>"]"#),
            "{nemotron}"
        );
        assert!(nemotron.contains("  GBNF:\n    root ::= "), "{nemotron}");
        assert!(nemotron.contains(r#""begin": "<TOOLCALL>[""#), "{nemotron}");

        // Gemma's template renders no calls; its family writes Google's `tool_code` calls.
        let gemma = section("google-gemma-2-2b-it.jinja", &plain);
        assert!(gemma.contains("route: signature: gemma"), "{gemma}");
        assert!(gemma.contains("```tool_code"), "{gemma}");

        let phi = section("microsoft-Phi-3.5-mini-instruct.jinja", &plain);
        assert!(phi.contains("  none: "), "{phi}");
    }
}
