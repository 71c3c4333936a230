//! `cargo xtask new-family NAME`: a new family crate, `parser-NAME`, that builds and passes its tests the
//! moment it is generated, wired into everything that lists the families.
//!
//! The crate describes a simple but real starter format — `<think>` reasoning and calls written as
//! `<tool_call>{"name": …, "arguments": …}</tool_call>` — on core's `Carry`, `MarkerSet`, `Calls` and
//! `JsonCall`, with `TODO(new-family)` comments where the contributor makes it the model's format
//! (CONTRIBUTING.md walks through it). What the generator does:
//!
//! - creates `parser-NAME/` (`Cargo.toml`, `src/{lib,markers,tool}.rs`, `tests/{tests,corpus,behaviour}.rs`)
//!   and `corpus/authored/NAME.jsonl` (three cases in the corpus format, which `tests/corpus.rs` and
//!   `cargo xtask conformance` run) from the files in `xtask/templates/new-family/`, with `{{name}}`
//!   (`glm`), `{{Name}}` (`Glm`) and `{{NAME}}` (`GLM`) substituted, then runs rustfmt on the new Rust
//!   files;
//! - inserts (never rewrites) a few lines in the shared files: the root `Cargo.toml` (`members`,
//!   `default-members`, `[workspace.dependencies]`), `parser-auto/Cargo.toml` (an optional dependency
//!   and a feature `NAME`, **on by default** like every family's: `cargo test --workspace` and
//!   `cargo xtask conformance` then cover it, and the registry test checks it is linked),
//!   `parser-auto/src/lib.rs` (the re-export `pub use parser_NAME as NAME`, `enabled_families`, the
//!   feature list in the docs) and `benchmarks/src/formats.rs` (a `Format` on the Qwen3 Hermes
//!   workloads, which the starter format shares, in `FORMATS`, so `cargo xtask bench` measures it).
//!
//! Every edit is planned before anything is written: an existing family, a name already registered
//! (as a parser name, alias, model pattern or family) or a missing anchor in a shared file stops the
//! generator with a message and no file changed.
//!
//! NAME is lowercase ASCII letters and digits, starting with a letter (at most 24 characters): it is the
//! crate suffix, the cargo feature, the module of the re-export and the registry family all at once.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::flags;

/// The generated files: where each goes (with `{{name}}` substituted) and its template.
const FILES: &[(&str, &str)] = &[
    (
        "parser-{{name}}/Cargo.toml",
        include_str!("../templates/new-family/Cargo.toml.tmpl"),
    ),
    (
        "parser-{{name}}/src/lib.rs",
        include_str!("../templates/new-family/src/lib.rs.tmpl"),
    ),
    (
        "parser-{{name}}/src/markers.rs",
        include_str!("../templates/new-family/src/markers.rs.tmpl"),
    ),
    (
        "parser-{{name}}/src/tool.rs",
        include_str!("../templates/new-family/src/tool.rs.tmpl"),
    ),
    (
        "parser-{{name}}/tests/tests.rs",
        include_str!("../templates/new-family/tests/tests.rs.tmpl"),
    ),
    (
        "parser-{{name}}/tests/corpus.rs",
        include_str!("../templates/new-family/tests/corpus.rs.tmpl"),
    ),
    (
        "parser-{{name}}/tests/behaviour.rs",
        include_str!("../templates/new-family/tests/behaviour.rs.tmpl"),
    ),
    (
        "corpus/authored/{{name}}.jsonl",
        include_str!("../templates/new-family/corpus.jsonl.tmpl"),
    ),
];

/// The family's `Format` in `benchmarks/src/formats.rs`.
const BENCH_FORMAT: &str = include_str!("../templates/new-family/bench-format.rs.tmpl");

/// The lines of `benchmarks/src/formats.rs` the generator inserts above.
const FORMAT_ANCHOR: &str =
    "// `cargo xtask new-family` inserts a family's `Format` above this line.";
const FORMATS_ANCHOR: &str =
    "    // `cargo xtask new-family` inserts a family's entry above this line.";

/// The files the generator edits, relative to the workspace root.
const WORKSPACE_MANIFEST: &str = "Cargo.toml";
const AUTO_MANIFEST: &str = "parser-auto/Cargo.toml";
const AUTO_LIB: &str = "parser-auto/src/lib.rs";
const BENCH_FORMATS: &str = "benchmarks/src/formats.rs";

/// Names that cannot be a family: Rust keywords and names the re-export `pub use parser_NAME as NAME`
/// would shadow or clash with in parser-auto (its modules, the standard crates).
const RESERVED: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match",
    "mod", "move", "mut", "priv", "pub", "ref", "return", "self", "static", "struct", "super",
    "trait", "true", "try", "type", "typeof", "union", "unsafe", "unsized", "use", "virtual",
    "where", "while", "yield", "abstract", "become", "do", "final", "override", "alloc", "core",
    "std", "test", "auto", "analyze", "generic", "response", "template", "testing", "default",
];

/// Runs the generator in this workspace.
pub fn run(flags: &flags::NewFamily) -> Result<ExitCode, String> {
    let root = crate::project_root();
    let family = Family::new(&flags.name)?;
    let plan = plan(&root, &family)?;
    plan.write(&root)?;
    let name = &family.name;
    println!(
        "Created the family `{name}` (starter format: <think> reasoning, JSON calls in <tool_call>):"
    );
    for (path, _) in &plan.create {
        println!("  {path}");
    }
    println!("Edited (lines inserted):");
    for (path, what, _) in &plan.edit {
        println!("  {path}: {what}");
    }
    println!(
        "\nNext:\n  cargo test -p parser-{name}        # passes as generated\n  \
         grep -rn 'TODO(new-family)' parser-{name} corpus/authored/{name}.jsonl benchmarks/src/formats.rs \
         parser-auto\n  \
         then make it the model's real format: CONTRIBUTING.md, \"Adding a model family\"."
    );
    Ok(ExitCode::SUCCESS)
}

/// A checked family name in its three spellings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    /// `glm`: crate suffix, feature, module, registry family.
    pub name: String,
    /// `Glm`: type names.
    pub title: String,
    /// `GLM`: statics.
    pub upper: String,
}

impl Family {
    /// Checks `name` (see the module docs) and spells it.
    pub fn new(name: &str) -> Result<Family, String> {
        let valid = name.len() <= 24
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        if !valid {
            return Err(format!(
                "`{name}` is not a valid family name: use lowercase ASCII letters and digits, starting \
                 with a letter, at most 24 characters (it becomes the crate `parser-{name}`, the cargo \
                 feature and the module `parser_auto::{name}`)"
            ));
        }
        if RESERVED.contains(&name) {
            return Err(format!(
                "`{name}` is reserved: a Rust keyword, or a name parser-auto already uses"
            ));
        }
        let mut title = name.to_owned();
        title[..1].make_ascii_uppercase();
        Ok(Family {
            name: name.to_owned(),
            title,
            upper: name.to_ascii_uppercase(),
        })
    }

    /// `template` with the placeholders substituted; an error if an unknown `{{…}}` placeholder is left.
    pub fn fill(&self, template: &str) -> Result<String, String> {
        let text = template
            .replace("{{name}}", &self.name)
            .replace("{{Name}}", &self.title)
            .replace("{{NAME}}", &self.upper);
        if let Some(at) = text.find("{{") {
            let rest = &text[at + 2..];
            let word = rest
                .find("}}")
                .map(|end| &rest[..end])
                .filter(|word| word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
            if let Some(word) = word {
                return Err(format!("unknown template placeholder `{{{{{word}}}}}`"));
            }
        }
        Ok(text)
    }
}

/// Everything the generator writes, computed before anything is written.
#[derive(Debug)]
pub struct Plan {
    /// New files: path relative to the root, contents.
    pub create: Vec<(String, String)>,
    /// Edited files: path relative to the root, what was inserted, the new contents.
    pub edit: Vec<(String, &'static str, String)>,
}

impl Plan {
    /// Writes the plan under `root` and formats the new Rust files with rustfmt (a warning when rustfmt
    /// is not there: the files are valid Rust, only their layout differs).
    pub fn write(&self, root: &Path) -> Result<(), String> {
        for (path, text) in &self.create {
            let path = root.join(path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        for (path, _, text) in &self.edit {
            let path = root.join(path);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        let rust: Vec<PathBuf> = self
            .create
            .iter()
            .filter(|(path, _)| path.ends_with(".rs"))
            .map(|(path, _)| root.join(path))
            .collect();
        let formatted = std::process::Command::new("rustfmt")
            .args(["--edition", "2024"])
            .args(&rust)
            .status();
        match formatted {
            Ok(status) if status.success() => {}
            Ok(status) => eprintln!("warning: rustfmt on the new files failed ({status})"),
            Err(e) => eprintln!("warning: rustfmt did not run ({e}); run `cargo fmt` yourself"),
        }
        Ok(())
    }
}

/// Plans the generation of `family` in the workspace at `root`: refuses a family that exists (its
/// directory, corpus file, feature, or any registered parser name, alias, model pattern or family with
/// its name) and fails when a shared file lacks the anchor an insertion needs.
pub fn plan(root: &Path, family: &Family) -> Result<Plan, String> {
    let name = &family.name;
    for existing in [
        format!("parser-{name}"),
        format!("corpus/authored/{name}.jsonl"),
    ] {
        if root.join(&existing).exists() {
            return Err(format!(
                "`{existing}` already exists: the family `{name}` is there already"
            ));
        }
    }
    let normalized = parser_core::normalize_name(name);
    for entry in parser_auto::entries() {
        let taken = entry.family == name
            || std::iter::once(&entry.name)
                .chain(entry.aliases)
                .chain(entry.models)
                .any(|known| parser_core::normalize_name(known) == normalized);
        if taken {
            return Err(format!(
                "`{name}` is already taken by the parser `{}` (family `{}`): as its name, an alias or a \
                 model pattern. Add a model pattern or an alias to that family instead (CONTRIBUTING.md).",
                entry.name, entry.family
            ));
        }
    }

    let mut create = Vec::new();
    for (path, template) in FILES {
        create.push((family.fill(path)?, family.fill(template)?));
    }
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).map_err(|e| format!("cannot read {path}: {e}"))
    };
    let edit = vec![
        (
            WORKSPACE_MANIFEST.to_owned(),
            "members, default-members, [workspace.dependencies]",
            edit_workspace_manifest(&read(WORKSPACE_MANIFEST)?, family)
                .map_err(|e| format!("{WORKSPACE_MANIFEST}: {e}"))?,
        ),
        (
            AUTO_MANIFEST.to_owned(),
            "optional dependency, feature (on by default)",
            edit_auto_manifest(&read(AUTO_MANIFEST)?, family)
                .map_err(|e| format!("{AUTO_MANIFEST}: {e}"))?,
        ),
        (
            AUTO_LIB.to_owned(),
            "re-export, enabled_families, feature docs",
            edit_auto_lib(&read(AUTO_LIB)?, family).map_err(|e| format!("{AUTO_LIB}: {e}"))?,
        ),
        (
            BENCH_FORMATS.to_owned(),
            "bench format in FORMATS",
            edit_bench_formats(&read(BENCH_FORMATS)?, family)
                .map_err(|e| format!("{BENCH_FORMATS}: {e}"))?,
        ),
    ];
    Ok(Plan { create, edit })
}

/// Inserts `insert` at byte `at` of `text`.
fn insert_at(text: &str, at: usize, insert: &str) -> String {
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(insert);
    out.push_str(&text[at..]);
    out
}

/// The byte range of the TOML array that starts at the line `header` (`members = [`), up to its `]`.
fn toml_array(text: &str, header: &str) -> Result<(usize, usize), String> {
    let start = text
        .match_indices(header)
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text[..at].ends_with('\n'))
        .ok_or_else(|| format!("no `{header}` line"))?;
    let end = text[start..]
        .find("\n]")
        .map(|at| start + at + 1)
        .ok_or_else(|| format!("`{header}` has no closing `]` line"))?;
    Ok((start, end))
}

/// Root `Cargo.toml`: the crate in `members` and `default-members` (before `parser-auto`, after the
/// other families), and in `[workspace.dependencies]`.
fn edit_workspace_manifest(text: &str, family: &Family) -> Result<String, String> {
    let name = &family.name;
    let member = format!("    \"parser-{name}\",\n");
    if text.contains(&format!("\"parser-{name}\"")) {
        return Err(format!("`parser-{name}` is already a member"));
    }
    let mut text = text.to_owned();
    for header in ["members = [", "default-members = ["] {
        let (start, end) = toml_array(&text, header)?;
        let at = text[start..end]
            .find("    \"parser-auto\",\n")
            .ok_or_else(|| format!("`{header}` does not list \"parser-auto\""))?;
        text = insert_at(&text, start + at, &member);
    }
    let auto = text
        .find("\nparser-auto = {")
        .ok_or("[workspace.dependencies] has no `parser-auto = {` line")?
        + 1;
    let line = &text[auto..auto + text[auto..].find('\n').unwrap_or(text.len() - auto)];
    let version = line
        .split("version = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .ok_or("the `parser-auto` dependency line has no version")?;
    let dependency =
        format!("parser-{name} = {{ version = \"{version}\", path = \"parser-{name}\" }}\n");
    Ok(insert_at(&text, auto, &dependency))
}

/// `parser-auto/Cargo.toml`: the feature (on by default, as every family's) and the optional dependency.
fn edit_auto_manifest(text: &str, family: &Family) -> Result<String, String> {
    let name = &family.name;
    let features = text.find("\n[features]\n").ok_or("no [features] section")?;
    let section_end = text[features + 1..]
        .find("\n[")
        .map_or(text.len(), |at| features + 1 + at);
    let section = &text[features..section_end];
    if section
        .lines()
        .any(|line| line.starts_with(&format!("{name} =")))
    {
        return Err(format!("the feature `{name}` exists already"));
    }
    // `default = [...]`, on one line: the family goes at its end.
    let default = section
        .find("\ndefault = [")
        .map(|at| features + at + 1)
        .ok_or("[features] has no `default = [` line")?;
    let default_end = default + text[default..].find('\n').unwrap_or(text.len() - default);
    let close = text[default..default_end]
        .rfind(']')
        .map(|at| default + at)
        .ok_or("the `default = [` feature list is not on one line")?;
    let empty = text[default..close].trim_end().ends_with('[');
    let entry = if empty {
        format!("\"{name}\"")
    } else {
        format!(", \"{name}\"")
    };
    let text = insert_at(text, close, &entry);
    // The feature, at the end of [features] (before the blank line that ends it).
    let section_end = section_end + entry.len();
    let feature_at = text[..section_end].trim_end_matches('\n').len() + 1;
    let feature = format!(
        "## {title} (TODO(new-family): the models).\n{name} = [\"dep:parser-{name}\"]\n",
        title = family.title
    );
    let text = insert_at(&text, feature_at, &feature);
    // The optional dependency, after the other families'.
    let optional = |line: &str| {
        line.starts_with("parser-") && line.ends_with("= { workspace = true, optional = true }")
    };
    let mut offset = 0;
    let mut after = None;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        if optional(line.trim_end()) {
            after = Some(offset);
        }
    }
    let after = after.ok_or("no `parser-… = { workspace = true, optional = true }` dependency")?;
    Ok(insert_at(
        &text,
        after,
        &format!("parser-{name} = {{ workspace = true, optional = true }}\n"),
    ))
}

/// `parser-auto/src/lib.rs`: the feature in the crate docs, the re-export (which also keeps the crate
/// linked, so that its registrations exist) and `enabled_families`.
fn edit_auto_lib(text: &str, family: &Family) -> Result<String, String> {
    let (name, title) = (&family.name, &family.title);
    const DOCS_ANCHOR: &str = "//!\n//! Each enabled family crate is referenced from here";
    let docs = text
        .find(DOCS_ANCHOR)
        .ok_or("no `//! Each enabled family crate is referenced from here` paragraph")?;
    let text = insert_at(
        text,
        docs,
        &format!(
            "//! - `{name}` (default): {title} (TODO(new-family): the models), from `parser-{name}`.\n"
        ),
    );
    let reexport_end = text
        .match_indices("\npub use parser_")
        .filter_map(|(at, _)| {
            let line_end = at + 1 + text[at + 1..].find('\n')?;
            text[at + 1..line_end]
                .contains(" as ")
                .then_some(line_end + 1)
        })
        .last()
        .ok_or("no `pub use parser_… as …;` re-export")?;
    let text = insert_at(
        &text,
        reexport_end,
        &format!(
            "\n/// The {title} family (feature `{name}`).\n#[cfg(feature = \"{name}\")]\npub use parser_{name} as {name};\n"
        ),
    );
    let function = text
        .find("pub fn enabled_families()")
        .ok_or("no `pub fn enabled_families()`")?;
    let close = text[function..]
        .find("\n    ]\n")
        .map(|at| function + at + 1)
        .ok_or("`enabled_families` has no `    ]` line closing its list")?;
    Ok(insert_at(
        &text,
        close,
        &format!("        #[cfg(feature = \"{name}\")]\n        \"{name}\",\n"),
    ))
}

/// `benchmarks/src/formats.rs`: the family's `Format`, and its entry in `FORMATS` (before the generic
/// parsers' formats).
fn edit_bench_formats(text: &str, family: &Family) -> Result<String, String> {
    let upper = &family.upper;
    if text.contains(&format!("static {upper}:")) || text.contains(&format!("const {upper}:")) {
        return Err(format!("`{upper}` is already defined"));
    }
    let format_at = text
        .find(FORMAT_ANCHOR)
        .ok_or_else(|| format!("no `{FORMAT_ANCHOR}` line"))?;
    let text = insert_at(text, format_at, &family.fill(BENCH_FORMAT)?);
    let entry_at = text
        .find(FORMATS_ANCHOR)
        .ok_or_else(|| format!("no `{FORMATS_ANCHOR}` line"))?;
    Ok(insert_at(&text, entry_at, &format!("    &{upper},\n")))
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;
    use crate::scratch::{copy_dir, copy_file, run_in};

    /// `edited` is `original` with lines inserted, none removed or changed: the generator never
    /// rewrites what others wrote.
    fn only_inserted(original: &str, edited: &str) -> Vec<String> {
        let mut original = original.lines().peekable();
        let mut inserted = Vec::new();
        for line in edited.lines() {
            if original.peek() == Some(&line) {
                original.next();
            } else {
                inserted.push(line.to_owned());
            }
        }
        assert_eq!(original.next(), None, "a line of the original is missing");
        inserted
    }

    // Valid names are spelled three ways; invalid, reserved and existing names are refused with a reason.
    #[test]
    fn names_are_checked() {
        let family = Family::new("glm4x").unwrap();
        assert_eq!(
            (family.title.as_str(), family.upper.as_str()),
            ("Glm4x", "GLM4X")
        );
        for bad in [
            "",
            "Glm",
            "4glm",
            "glm-4",
            "glm_4",
            "glé",
            "a".repeat(25).as_str(),
        ] {
            let error = Family::new(bad).unwrap_err();
            assert!(error.contains("not a valid family name"), "{bad}: {error}");
        }
        for reserved in ["type", "template", "core", "std"] {
            assert!(Family::new(reserved).unwrap_err().contains("reserved"));
        }
        let root = crate::project_root();
        for taken in ["qwen", "deepseek", "kimi", "gptoss", "glm", "hermes", "qwq"] {
            let error = plan(&root, &Family::new(taken).unwrap()).unwrap_err();
            assert!(error.contains("already"), "{taken}: {error}");
        }
    }

    // Placeholders are substituted everywhere; an unknown one is an error, not silently kept.
    #[test]
    fn templates_are_filled() {
        let family = Family::new("demo").unwrap();
        for (path, template) in FILES {
            let text = family.fill(template).unwrap();
            assert!(!text.contains("{{"), "{path}");
        }
        assert!(family.fill("a {{nmae}} b").is_err());
        assert_eq!(family.fill("{{").unwrap(), "{{");
    }

    // The generated files as they are written: the Rust files parse (rustfmt formats them, which it
    // only does for valid Rust), and the corpus file holds cases in the corpus format whose models the
    // family's model pattern claims.
    #[test]
    fn generated_files_parse() {
        let family = Family::new("zzdemo").unwrap();
        let plan = plan(&crate::project_root(), &family).unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-new-family-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let plan = Plan {
            create: plan.create,
            edit: Vec::new(),
        };
        plan.write(&dir).unwrap();
        let rust: Vec<PathBuf> = plan
            .create
            .iter()
            .filter(|(path, _)| path.ends_with(".rs"))
            .map(|(path, _)| dir.join(path))
            .collect();
        assert_eq!(rust.len(), 6);
        let status = Command::new("rustfmt")
            .args(["--edition", "2024", "--check"])
            .args(&rust)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let cases = parser_core::testing::load_cases(&dir.join("corpus/authored/zzdemo.jsonl"));
        assert_eq!(cases.len(), 3);
        for case in &cases {
            assert!(case.id.starts_with("authored/zzdemo/"), "{}", case.id);
            assert!(parser_core::normalize_model(&case.model).contains("zzdemo"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // The plan against this workspace: the new files, and the shared files edited by insertions only,
    // each line where it belongs.
    #[test]
    fn plan_inserts_the_family_everywhere() {
        let root = crate::project_root();
        let family = Family::new("zzdemo").unwrap();
        let plan = plan(&root, &family).unwrap();
        let paths: Vec<&str> = plan.create.iter().map(|(p, _)| p.as_str()).collect();
        assert!(paths.contains(&"parser-zzdemo/src/lib.rs"), "{paths:?}");
        assert!(paths.contains(&"corpus/authored/zzdemo.jsonl"), "{paths:?}");
        let expected: &[(&str, &[&str])] = &[
            (
                WORKSPACE_MANIFEST,
                &[
                    "    \"parser-zzdemo\",",
                    "    \"parser-zzdemo\",",
                    "parser-zzdemo = { version = \"0.1.0\", path = \"parser-zzdemo\" }",
                ],
            ),
            (
                AUTO_MANIFEST,
                &[
                    "## Zzdemo (TODO(new-family): the models).",
                    "zzdemo = [\"dep:parser-zzdemo\"]",
                    "parser-zzdemo = { workspace = true, optional = true }",
                ],
            ),
            (
                AUTO_LIB,
                &[
                    "//! - `zzdemo` (default): Zzdemo (TODO(new-family): the models), from `parser-zzdemo`.",
                    "/// The Zzdemo family (feature `zzdemo`).",
                    "#[cfg(feature = \"zzdemo\")]",
                    "pub use parser_zzdemo as zzdemo;",
                    "",
                    "        #[cfg(feature = \"zzdemo\")]",
                    "        \"zzdemo\",",
                ],
            ),
        ];
        for (path, want) in expected {
            let original = std::fs::read_to_string(root.join(path)).unwrap();
            let (_, _, edited) = plan.edit.iter().find(|(p, _, _)| p == path).unwrap();
            // The default feature list is the one line changed (the family appended to it).
            let edited = edited.replace(", \"zzdemo\"]", "]");
            assert_eq!(&only_inserted(&original, &edited), want, "{path}");
        }
        let (_, _, manifest) = plan
            .edit
            .iter()
            .find(|(p, _, _)| p == AUTO_MANIFEST)
            .unwrap();
        let default = manifest
            .lines()
            .find(|line| line.starts_with("default = ["))
            .unwrap();
        assert!(default.ends_with(", \"zzdemo\"]"), "{default}");
        let original = std::fs::read_to_string(root.join(BENCH_FORMATS)).unwrap();
        let (_, _, edited) = plan
            .edit
            .iter()
            .find(|(p, _, _)| p == BENCH_FORMATS)
            .unwrap();
        let inserted = only_inserted(&original, edited);
        assert!(inserted.contains(&"pub static ZZDEMO: Format = Format {".to_owned()));
        assert_eq!(inserted.last().map(String::as_str), Some("    &ZZDEMO,"));
    }

    /// Copies what a build of the workspace needs (the manifests, the lock file, every member crate, the
    /// corpus and the chat templates; no `target/`, no `.git`) from `root` to `to`, keeping modification
    /// times so that cargo reuses what it compiled in an earlier run.
    fn copy_workspace(root: &Path, to: &Path) {
        let manifest = std::fs::read_to_string(root.join(WORKSPACE_MANIFEST)).unwrap();
        let (start, end) = toml_array(&manifest, "members = [").unwrap();
        let members = manifest[start..end].lines().skip(1).filter_map(|line| {
            let line = line.trim().trim_end_matches(',');
            line.strip_prefix('"')?.strip_suffix('"')
        });
        for dir in members.chain(["corpus", "templates"]) {
            copy_dir(&root.join(dir), &to.join(dir));
        }
        for file in [WORKSPACE_MANIFEST, "Cargo.lock", "README.md"] {
            copy_file(&root.join(file), &to.join(file));
        }
    }

    // The generator's promise, end to end: in a copy of this workspace (under
    // `target/new-family-test/`, with its own target directory there, so that compiled dependencies are
    // reused from one run to the next), a generated family builds offline, passes its own tests, is
    // found by parser-auto's registry test, its bench format passes the benchmark crate's tests, and
    // the shared files it edited are still formatted.
    //
    // Ignored by default: about 45 s with the scratch target directory warm, about 5 min the first time
    // (every dependency compiled there once). Run it with `cargo test -p xtask -- --ignored` after
    // changing the templates or the generator.
    #[test]
    #[ignore = "builds a copy of the workspace (~45 s warm, ~5 min cold): cargo test -p xtask -- --ignored"]
    fn generated_family_builds_and_passes_its_tests() {
        let root = crate::project_root();
        let scratch = root.join("target/new-family-test");
        let workspace = scratch.join("workspace");
        let target = scratch.join("target");
        if workspace.exists() {
            std::fs::remove_dir_all(&workspace).unwrap();
        }
        copy_workspace(&root, &workspace);
        let family = Family::new("starter").unwrap();
        let plan = plan(&workspace, &family).unwrap();
        plan.write(&workspace).unwrap();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        for args in [
            &["build", "--offline"][..],
            &["test", "--offline", "-p", "parser-starter"],
            &[
                "test",
                "--offline",
                "-p",
                "parser-auto",
                "--test",
                "registry",
            ],
            &["test", "--offline", "-p", "benchmarks", "--lib"],
        ] {
            run_in(&workspace, &target, &cargo, args);
        }
        let edited: Vec<&str> = plan
            .edit
            .iter()
            .map(|(path, _, _)| path.as_str())
            .filter(|path| path.ends_with(".rs"))
            .collect();
        let mut check = vec!["--edition", "2024", "--check"];
        check.extend(&edited);
        run_in(&workspace, &target, "rustfmt", &check);
        let _ = std::fs::remove_dir_all(&workspace);
    }
}
