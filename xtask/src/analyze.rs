//! `cargo xtask analyze TEMPLATE...` and `cargo xtask analyze --all DIR`.
//!
//! With templates (`.jinja` files, `tokenizer_config.json` / `chat_template.json` files or model
//! directories): prints `parser_auto::analyze::report` for each — the detected reasoning, content and
//! tool-call modes, the markers, the capabilities, the preserved tokens and the route a model with that
//! template takes when its name is unknown. This is what to run when a new model misbehaves.
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

use parser_auto::Route;
use parser_auto::analyze::{Analysis, report};
use parser_auto::template::ChatTemplate;

use crate::flags;

/// Runs the analysis.
pub fn run(flags: &flags::Analyze) -> Result<ExitCode, String> {
    match &flags.all {
        Some(dir) => table(&locate(dir)),
        None => reports(&flags.templates),
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

/// `analyze TEMPLATE...`: the report of each.
fn reports(paths: &[PathBuf]) -> Result<ExitCode, String> {
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
            Ok((analysis, template)) => print!("{}", report(&template, &analysis)),
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
}
