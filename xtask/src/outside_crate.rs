//! The README sends server authors to its Rust snippets and to `parser-auto/examples/`; they copy them
//! into a crate of their own. Inside this workspace they would also see `parser-core`, `serde_json` and
//! the other dependencies of the workspace, so the doctests and `cargo test` cannot tell whether they
//! build where they are copied to. The ignored test here builds them in a new crate whose one
//! dependency is `parser-auto` (with `openai`), as a server's would be.

use std::path::{Component, Path, PathBuf};

/// The features of `parser-auto` the crate turns on: the one the README tells servers to turn on.
const FEATURES: &str = r#"["openai"]"#;

/// A Rust snippet of a Markdown file.
#[derive(Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The line of its opening fence (1-based).
    pub line: usize,
    /// Its code as rustdoc compiles it: hidden lines (`# …`) shown.
    pub code: String,
}

/// The Rust code blocks of a Markdown text (fences whose info string starts with `rust`), except
/// `compile_fail` ones, with rustdoc's hidden lines made visible.
pub fn rust_snippets(markdown: &str) -> Vec<Snippet> {
    let mut snippets = Vec::new();
    let mut open: Option<Snippet> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```")
                    && info.starts_with("rust")
                    && !info.contains("compile_fail")
                {
                    open = Some(Snippet {
                        line: n + 1,
                        code: String::new(),
                    });
                }
            }
            Some(_) if trimmed.starts_with("```") => snippets.extend(open.take()),
            Some(snippet) => {
                snippet.code.push_str(unhide(line));
                snippet.code.push('\n');
            }
        }
    }
    snippets
}

/// A line as rustdoc compiles it: `# code` is `code`, a lone `#` is empty, `##` starts a line with `#`.
fn unhide(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed == "#" {
        ""
    } else if let Some(code) = trimmed.strip_prefix("# ") {
        code
    } else if trimmed.starts_with("##") {
        &trimmed[1..]
    } else {
        line
    }
}

/// A snippet as a program, wrapped as rustdoc wraps it: as it is when it has a `fn main`, else in one,
/// returning a `Result` when it ends in `Ok::<(), E>(())` (so that `?` works), and with warnings
/// denied, so that what a newcomer copies is clean.
pub fn program(source: &str, snippet: &Snippet) -> String {
    let header = format!(
        "// {source}, the snippet at line {}.\n#![deny(warnings)]\n",
        snippet.line
    );
    let code = &snippet.code;
    if code.contains("fn main") {
        return format!("{header}{code}");
    }
    let last = code.lines().rev().find(|l| !l.trim().is_empty());
    if last.is_some_and(|l| l.trim_start().starts_with("Ok::<")) {
        format!(
            "{header}fn main() {{\n    fn run() -> Result<(), impl core::fmt::Debug> {{\n{code}    }}\n    run().unwrap();\n}}\n"
        )
    } else {
        format!("{header}fn main() {{\n{code}}}\n")
    }
}

/// The paths an example embeds with `include_str!("…")` / `include_bytes!("…")`, as written.
pub fn included_files(source: &str) -> Vec<&str> {
    let mut paths = Vec::new();
    for marker in ["include_str!(\"", "include_bytes!(\""] {
        for (at, _) in source.match_indices(marker) {
            let rest = &source[at + marker.len()..];
            if let Some(end) = rest.find('"') {
                paths.push(&rest[..end]);
            }
        }
    }
    paths
}

/// `path` with its `.` and `..` components resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Writes the crate under `dir`: the README's snippets as binaries `src/bin/readme_line_N.rs`, every
/// example of parser-auto as itself in `examples/`, the files the examples embed at the same place
/// relative to them as in the repository, and the workspace's lock file (the same dependency versions,
/// already fetched, so that it builds offline). Returns the targets written.
pub fn write_crate(root: &Path, dir: &Path) -> Vec<String> {
    use crate::scratch::copy_file;
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let parser_auto = root.join("parser-auto");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"outside-server\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nparser-auto = {{ path = {:?}, features = {FEATURES} }}\n\n\
             # Not a member of the llm-parse workspace it sits in.\n[workspace]\n",
            parser_auto.display().to_string()
        ),
    );
    copy_file(&root.join("Cargo.lock"), &dir.join("Cargo.lock"));
    let mut targets = Vec::new();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for snippet in rust_snippets(&readme) {
        let name = format!("readme_line_{}", snippet.line);
        write(
            &dir.join(format!("src/bin/{name}.rs")),
            &program("README.md", &snippet),
        );
        targets.push(name);
    }
    let examples = parser_auto.join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.file_name().unwrap();
        write(&dir.join("examples").join(name), &text);
        for included in included_files(&text) {
            let from = normalize(&examples.join(included));
            let to = normalize(&dir.join("examples").join(included));
            copy_file(&from, &to);
        }
        targets.push(file.file_stem().unwrap().to_string_lossy().into_owned());
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::run_in;

    #[test]
    fn snippets_are_read_as_rustdoc_reads_them() {
        let markdown = "text\n```rust\nlet a = 1;\n# let b = 2;\n#\n## not hidden\n```\n\
                        ```sh\nls\n```\n```rust,ignore\nf()?;\nOk::<(), E>(())\n```\n\
                        ```rust,compile_fail\nnope\n```\n";
        let snippets = rust_snippets(markdown);
        assert_eq!(
            snippets,
            [
                Snippet {
                    line: 2,
                    code: "let a = 1;\nlet b = 2;\n\n# not hidden\n".to_owned()
                },
                Snippet {
                    line: 11,
                    code: "f()?;\nOk::<(), E>(())\n".to_owned()
                },
            ]
        );
        let plain = program("README.md", &snippets[0]);
        assert!(plain.contains("fn main() {\nlet a = 1;"), "{plain}");
        let fallible = program("README.md", &snippets[1]);
        assert!(
            fallible.contains("-> Result<(), impl core::fmt::Debug>"),
            "{fallible}"
        );
        assert!(fallible.contains("run().unwrap();"), "{fallible}");
    }

    #[test]
    fn the_readme_has_snippets_and_the_examples_are_found() {
        let root = crate::project_root();
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        assert!(rust_snippets(&readme).len() >= 4);
        let model_dir =
            std::fs::read_to_string(root.join("parser-auto/examples/model_dir.rs")).unwrap();
        for path in included_files(&model_dir) {
            assert!(path.starts_with("../../templates/"), "{path}");
        }
        assert_eq!(
            normalize(Path::new("/a/b/examples/../../templates/t.jinja")),
            Path::new("/a/templates/t.jinja")
        );
    }

    // What a newcomer does: a new crate depending on parser-auto (features `openai`) alone, with the
    // README's snippets (each wrapped in `main` as rustdoc wraps it) and every file of
    // `parser-auto/examples/` in it. It must build, offline, without warnings: a snippet or example
    // that reaches for `parser_core` or `serde_json` directly fails here (rustc's hint would send the
    // user to an unrelated crates.io crate named `parser_core`).
    //
    // In `target/outside-crate-test/`, with its own target directory kept between runs. Ignored by
    // default (it compiles parser-auto and its dependencies once more: about 45 s cold on two idle
    // cores, 10 s warm); `.ci/run` runs it.
    #[test]
    #[ignore = "builds a new crate against parser-auto (~45 s cold, ~10 s warm): cargo test -p xtask -- --ignored outside_crate"]
    fn readme_and_examples_build_in_an_outside_crate() {
        let root = crate::project_root();
        let scratch = root.join("target/outside-crate-test");
        let dir = scratch.join("server");
        let target = scratch.join("target");
        if scratch.join("templates").exists() {
            std::fs::remove_dir_all(scratch.join("templates")).unwrap();
        }
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        let targets = write_crate(&root, &dir);
        assert!(
            targets.iter().any(|t| t == "sse_stream") && targets.iter().any(|t| t == "one_shot"),
            "{targets:?}"
        );
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        run_in(
            &dir,
            &target,
            &cargo,
            &["build", "--offline", "--bins", "--examples"],
        );
        println!("built as an outside crate: {}", targets.join(", "));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
