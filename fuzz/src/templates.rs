//! `--family templates`: hostile chat templates and response configs against the render budget.
//!
//! A model directory is untrusted, so its chat template is code we run. Each input starts from one of the
//! 47 real templates of `templates/` and is mutated: statements spliced in from another template, loops
//! and products of ranges, self-calling and mutually calling macros, huge literals and repetitions,
//! string doubling through `namespace` and `{% set %}` chains, lists that grow or contain themselves,
//! filters and methods given huge sizes or the wrong types, unbalanced blocks, truncations and byte
//! swaps. Now and then a tokenizer config with a mutated `response_template` or `response_schema` comes
//! along (huge and nested regexes, deep schemas, wrong types).
//!
//! Each input is compiled, rendered (`render`, `render_prompt`), sometimes analysed and resolved
//! (`parser_auto::resolve` with the model withheld) and, with a config, its response format is loaded
//! and parses an output. The checks: nothing panics, every input finishes within [`HANG_AFTER`], and
//! every failure is an `Error` (a limit's or the template's own). Memory is bounded by the same limits;
//! `benchmarks/tests/bounded_memory.rs` measures the heap of the hostile shapes (a counting allocator
//! here would need unsafe code in this crate).
//!
//! A panicking input is shrunk (ever smaller slices removed; a hang is kept as found, since every
//! candidate that hangs would leave a thread behind) and written to
//! `fuzz/regressions/templates/<hash>.jinja`, its first line a Jinja comment saying what was found (a
//! config goes beside it as `<hash>.json`); [`replay_dir`] re-runs them (`cargo test -p fuzz`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parser_auto::template::{ChatTemplate, RenderInput};
use parser_auto::{ErrorKind, ParseOptions};
use parser_core::testing::Rng;
use serde_json::json;

use crate::Budget;

/// How long one input may take before it is reported as a hang. The default limits stop the worst
/// hostile template in about 0.3 s a render in a release build (`cargo bench -p benchmarks --bench
/// hostile_templates`); an input spends at most some seven renders' worth of fuel (three renders, the
/// probes' and the analysis' shared budgets), about 2 s, but a loaded machine has stretched that to 9 s;
/// debug builds are some ten times slower, and a debug build at load 20 has taken over 60 s. A real hang
/// runs forever, so the margin costs nothing.
pub const HANG_AFTER: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(240)
} else {
    Duration::from_secs(30)
};

/// One input: a template and maybe a tokenizer config with a response format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The template source.
    pub source: String,
    /// A `tokenizer_config.json` text, sometimes.
    pub config: Option<String>,
}

/// What went wrong with an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FindingKind {
    /// Something panicked.
    Panic,
    /// The input did not finish within [`HANG_AFTER`].
    Hang,
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FindingKind::Panic => "panic",
            FindingKind::Hang => "hang",
        })
    }
}

/// A failing input, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// What went wrong.
    pub kind: FindingKind,
    /// The panic message, or how long it ran.
    pub detail: String,
    /// The shrunk input.
    pub input: Input,
    /// Where it was written.
    pub file: Option<PathBuf>,
}

/// What a run of the templates family did.
#[derive(Debug, Default)]
pub struct TemplateReport {
    /// Inputs tried.
    pub inputs: u64,
    /// Renders that succeeded.
    pub rendered: u64,
    /// Errors by the limit they ran into (`"compile"` and `"render"` for the template's own errors).
    pub errors: BTreeMap<String, u64>,
    /// The slowest input.
    pub slowest: Duration,
    /// Wall time.
    pub elapsed: Duration,
    /// Failing inputs, shrunk.
    pub findings: Vec<Finding>,
    /// The run stopped on an input that would not finish (its thread is left behind).
    pub stalled: bool,
}

impl TemplateReport {
    /// Whether every input passed.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

impl fmt::Display for TemplateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        writeln!(
            f,
            "templates: {} inputs in {:.1} s ({:.0}/s), {} renders succeeded, slowest input {:.0} ms",
            self.inputs,
            secs,
            self.inputs as f64 / secs,
            self.rendered,
            self.slowest.as_secs_f64() * 1000.0
        )?;
        let errors: Vec<String> = self
            .errors
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(f, "  errors: {}", errors.join(", "))?;
        for finding in &self.findings {
            writeln!(
                f,
                "  FAILED ({}): {} — {}",
                finding.kind,
                finding.detail,
                finding
                    .file
                    .as_ref()
                    .map_or_else(|| "not written".to_string(), |p| p.display().to_string())
            )?;
        }
        if self.findings.is_empty() {
            writeln!(f, "  no failures")?;
        }
        Ok(())
    }
}

/// The `*.jinja` files of `dir`, sorted (none when it cannot be read).
fn jinja_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jinja"))
        .collect();
    paths.sort();
    paths
}

/// The reference templates, read once from `templates/` at the repository root.
fn templates() -> &'static [String] {
    static TEMPLATES: OnceLock<Vec<String>> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates");
        let sources: Vec<String> = jinja_files(&dir)
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect();
        if sources.is_empty() {
            vec!["{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}".to_string()]
        } else {
            sources
        }
    })
}

/// Hostile statements, spliced in anywhere.
const HOSTILE: &[&str] = &[
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{% for i in range(100000) %}{% for j in range(100000) %}{{ i * j }}{% endfor %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    "{% set a = 'xy' * 1000 %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}",
    "{{ 'x' * 10**9 }}",
    "{% set n = 10**8 %}{{ 'x' * n }}",
    "{{ ([1] * 10**8)|length }}",
    "{% set n = 10**8 %}{{ ([messages] * n)|list|length }}",
    "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
    "{% macro f(n) %}{{ g(n) }}{% endmacro %}{% macro g(n) %}{{ f(n) }}{% endmacro %}{{ f(0) }}",
    "{% macro d(n) %}{% if n > 0 %}{% set x = d(n - 1) %}{{ x }}{{ x }}{% else %}xxxxxxxx{% endif %}{% endmacro %}{% set y = d(60) %}",
    "{% set x %}{% for i in range(100000) %}{% for j in range(1000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}{% endset %}",
    "{{ 'x'.center(10**9) }}{{ 'x'.ljust(10**9) }}{{ 'x'.zfill(10**9) }}",
    "{{ 'a\\nb'|indent(10**9) }}",
    "{{ [1]|batch(10**9, 'x')|list }}",
    "{{ [1]|slice(10**9, 'x')|list }}",
    "{% set s = 'x' * 5000 %}{{ s|replace('', s) }}{{ s.replace('', s) }}",
    "{% set s = 'x' * 1000000 %}{{ ([s] * 100000)|join }}",
    "{{ messages|tojson(indent=10**9) }}",
    "{{ '%1000000000s'|format('x') }}{{ '{:>1000000000}'.format('x') }}",
    "{{ ('\\t' * 1000)|string }}{{ ('\\t' * 100000).expandtabs(100000) }}",
    "{% set ns = namespace(l=[]) %}{% for i in range(200) %}{% set _ = ns.l.append(ns.l) %}{% endfor %}{{ ns.l }}",
    "{% set ns = namespace(a=[], b=[]) %}{% set _ = ns.a.append(ns.b) %}{% set _ = ns.b.append(ns.a) %}{{ ns.a }}{{ ns.a == ns.b }}",
    "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns) %}{{ ns.l }}{{ ns.l|pprint }}",
    "{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}",
    "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}",
    "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set _ = ns.l.extend(ns.l) %}{% endfor %}",
    "{% set ns = namespace(l=[]) %}{% set s = 'x' * 1000000 %}{% for i in range(100000) %}{% set _ = ns.l.append(s ~ i) %}{% endfor %}",
    "{{ ('x' * 10000000)|list|length }}{{ ('x ' * 5000000).split()|length }}",
    "{{ raise_exception('refused') }}",
    "{% include 'chat_template' %}{% import 'chat_template' as t %}{% extends 'chat_template' %}",
    "{{ messages|map('upper')|list }}{{ messages|sum }}{{ tools|dictsort }}{{ 5|join }}{{ none|items }}",
    "{{ messages[::-1][0].content * 3 }}{{ (messages|first).content|title }}",
    "{% for m in messages recursive %}{{ loop(messages) }}{% endfor %}",
    "{% filter upper %}{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}{% endfilter %}",
    "{% call f() %}{% endcall %}{% macro f() %}{{ caller() }}{{ caller() }}{% endmacro %}",
];

/// Pieces that unbalance or damage a template.
const DAMAGE: &[&str] = &[
    "{% if true %}",
    "{% endif %}",
    "{% for x in messages %}",
    "{% endfor %}",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "{% macro m() %}",
    "{% endmacro %}",
    "{% set x = %}",
    "{{ x | }}",
    "{{ 1/0 }}",
    "{{ 10**10**10 }}",
    "{{ -(2**127) * 2 }}",
    "\u{0}",
    "é",
];

/// Builds input `index` of a run with `seed`.
pub fn make_input(seed: u64, index: u64) -> Input {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x7e3a_71a7);
    let all = templates();
    let mut source = all[rng.below(all.len())].clone();
    for _ in 0..1 + rng.below(3) {
        mutate(&mut rng, &mut source, all);
    }
    let config = rng.chance(20).then(|| response_config(&mut rng, &source));
    Input { source, config }
}

/// A character boundary of `s` near a random byte.
fn boundary(rng: &mut Rng, s: &str) -> usize {
    let mut at = rng.below(s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A tag boundary of `s` (just after a `%}` or `}}`), or a character boundary.
fn tag_boundary(rng: &mut Rng, s: &str) -> usize {
    let ends: Vec<usize> = s
        .match_indices("%}")
        .chain(s.match_indices("}}"))
        .map(|(i, _)| i + 2)
        .collect();
    if ends.is_empty() || rng.chance(20) {
        boundary(rng, s)
    } else {
        ends[rng.below(ends.len())]
    }
}

fn mutate(rng: &mut Rng, source: &mut String, all: &[String]) {
    match rng.below(8) {
        0..=2 => {
            let at = tag_boundary(rng, source);
            source.insert_str(at, HOSTILE[rng.below(HOSTILE.len())]);
        }
        3 => {
            // A statement spliced in from another template.
            let other = &all[rng.below(all.len())];
            let tags: Vec<(usize, usize)> = other
                .match_indices("{%")
                .filter_map(|(start, _)| {
                    other[start..]
                        .find("%}")
                        .map(|end| (start, start + end + 2))
                })
                .collect();
            if let Some(&(start, end)) = tags.get(rng.below(tags.len().max(1))) {
                let at = tag_boundary(rng, source);
                let piece = other[start..end].to_string();
                source.insert_str(at, &piece);
            }
        }
        4 => {
            let at = tag_boundary(rng, source);
            source.insert_str(at, DAMAGE[rng.below(DAMAGE.len())]);
        }
        5 => {
            let at = boundary(rng, source);
            source.truncate(at);
        }
        6 => {
            // Numbers made huge.
            let digits: Vec<usize> = source
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            if let Some(&at) = digits.get(rng.below(digits.len().max(1))) {
                source.insert_str(at, rng.pick(&["99999999", "1000000", "10**9*", "-"]));
            }
        }
        _ => {
            // Two slices swapped.
            let (a, b) = (boundary(rng, source), boundary(rng, source));
            let (a, b) = (a.min(b), a.max(b));
            let mid = boundary(rng, &source[a..b]) + a;
            let swapped = format!(
                "{}{}{}{}",
                &source[..a],
                &source[mid..b],
                &source[a..mid],
                &source[b..]
            );
            *source = swapped;
        }
    }
}

/// A tokenizer config around `source` with a mutated response format.
fn response_config(rng: &mut Rng, source: &str) -> String {
    let pattern = rng.pick(&[
        r"<tool_call>(?P<name>\w+)",
        r"(\w{1000}){1000}",
        r"((a+)+)+$",
        r"(?P<x>a)(?P=x)",
        r"[",
        r"(.*?)*",
        r"\p{L}{65535}",
        "",
    ]);
    let format = if rng.chance(50) {
        json!({"fields": {
            "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {"open_pattern": pattern, "close": "</tool_call>", "repeats": true,
                           "content": rng.pick(&["json", "text", "yaml", "bogus"])},
            "content": {"content": "text"},
        }})
    } else {
        let mut schema = json!({"type": "string", "x-regex": pattern});
        for _ in 0..rng.below(200) {
            schema = if rng.chance(50) {
                json!({"type": "array", "items": schema, "x-regex-iterator": pattern})
            } else {
                json!({"type": "object", "properties": {"a": schema}})
            };
        }
        schema
    };
    let key = if format.get("fields").is_some() {
        "response_template"
    } else {
        "response_schema"
    };
    let mut config = json!({"chat_template": source, "eos_token": "</s>"});
    config[key] = format;
    if rng.chance(10) {
        config[key] = json!(rng.pick(&["x", "[]", "{}"]));
    }
    config.to_string()
}

/// What one input did (everything but panics and hangs, which are findings).
#[derive(Debug, Default)]
struct Outcome {
    rendered: u64,
    errors: Vec<String>,
}

fn note_error(outcome: &mut Outcome, stage: &str, err: &parser_auto::Error) {
    outcome.errors.push(match err.kind() {
        ErrorKind::LimitExceeded { limit, .. } => (*limit).to_string(),
        _ => stage.to_string(),
    });
}

/// Runs everything an input can go through.
fn exercise(input: &Input, heavy: bool) -> Outcome {
    let mut outcome = Outcome::default();
    let template = match &input.config {
        Some(config) => ChatTemplate::from_tokenizer_config(config, None),
        None => ChatTemplate::from_source(input.source.clone()),
    };
    let template = match template {
        Ok(template) => template,
        Err(err) => {
            note_error(&mut outcome, "compile", &err);
            return outcome;
        }
    };
    let tools = vec![
        json!({"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}),
    ];
    let conversation = vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "Weather in Paris?"}),
        json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "sunny"}),
    ];
    let inputs = [
        // Thinking off here and on below: templates branch on the switch.
        RenderInput::new(conversation[..2].to_vec())
            .with_generation_prompt(true)
            .with_enable_thinking(Some(false)),
        RenderInput::new(conversation.clone())
            .with_tools(tools)
            .with_generation_prompt(true)
            .with_enable_thinking(Some(true)),
    ];
    for input in &inputs {
        match template.render(input) {
            Ok(_) => outcome.rendered += 1,
            Err(err) => note_error(&mut outcome, "render", &err),
        }
    }
    match template.render_prompt(&inputs[1]) {
        Ok(_) => outcome.rendered += 1,
        Err(err) => note_error(&mut outcome, "render", &err),
    }
    if heavy {
        // `resolve` analyses the template too (and caches the analysis for the life of the process).
        if let Ok(resolved) = parser_auto::resolve(None, Some(&template), &ParseOptions::new()) {
            let parser = resolved.parser;
            let _ = parser
                .parse("<think>x</think>Hi <tool_call>{\"name\": \"get_weather\"}</tool_call>");
        }
    }
    if let Some(format) = template.response_format() {
        let parser = format.parser(&ParseOptions::new());
        let _ = parser.parse("<think>a</think>b<tool_call>c</tool_call>");
    }
    outcome
}

thread_local! {
    /// The first panic on this thread since it was last taken, caught or not: the library catches
    /// panics of the template engine and turns them into errors, which must still be reported here.
    static PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Installs (once) a panic hook that records panics per thread instead of printing them.
fn record_panics() {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let recorded = PANIC.try_with(|slot| {
                slot.borrow_mut().get_or_insert_with(|| info.to_string());
            });
            if recorded.is_err() {
                previous(info);
            }
        }));
    });
}

/// Runs `input` on its own thread, with a panic caught and a time limit.
fn run_one(
    input: &Input,
    heavy: bool,
    hang_after: Duration,
) -> Result<(Outcome, Duration), (FindingKind, String)> {
    let (send, receive) = mpsc::channel();
    let owned = input.clone();
    let started = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("fuzz-template".into())
        .stack_size(8 << 20)
        .spawn(move || {
            record_panics();
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exercise(&owned, heavy)));
            let caught = PANIC.with(|slot| slot.borrow_mut().take());
            let _ = send.send(match (result, caught) {
                (Ok(_), Some(message)) | (Err(_), Some(message)) => Err(message),
                (Ok(outcome), None) => Ok(outcome),
                (Err(_), None) => Err("a panic".to_string()),
            });
        });
    if spawned.is_err() {
        return Ok((Outcome::default(), Duration::ZERO));
    }
    match receive.recv_timeout(hang_after) {
        Ok(Ok(outcome)) => Ok((outcome, started.elapsed())),
        Ok(Err(message)) => Err((FindingKind::Panic, message)),
        Err(_) => Err((
            FindingKind::Hang,
            format!("still running after {hang_after:?}"),
        )),
    }
}

/// Shrinks a panicking input while it still panics: ever smaller slices removed. A hang is not shrunk:
/// each candidate that hung would leave a thread that cannot be stopped burning a core.
fn shrink(input: &Input, kind: FindingKind, heavy: bool, deadline: Instant) -> Input {
    if kind == FindingKind::Hang {
        return input.clone();
    }
    let fails = |candidate: &Input| matches!(run_one(candidate, heavy, HANG_AFTER), Err((k, _)) if k == kind);
    let mut best = input.clone();
    let mut chunk = best.source.len() / 2;
    while chunk > 0 && Instant::now() < deadline {
        let mut at = 0;
        let mut progressed = false;
        while at < best.source.len() && Instant::now() < deadline {
            let mut end = (at + chunk).min(best.source.len());
            while !best.source.is_char_boundary(end) {
                end += 1;
            }
            let mut candidate = best.clone();
            candidate.source.replace_range(at..end, "");
            if candidate.config.is_some() {
                // The config embeds the template: keep the two together by dropping the config when the
                // template alone still fails.
                let alone = Input {
                    source: candidate.source.clone(),
                    config: None,
                };
                if fails(&alone) {
                    best = alone;
                    progressed = true;
                    continue;
                }
            }
            if fails(&candidate) {
                best = candidate;
                progressed = true;
            } else {
                at = end;
                while !best.source.is_char_boundary(at) {
                    at += 1;
                }
            }
        }
        if !progressed {
            chunk /= 2;
        }
    }
    best
}

/// A stable name for an input's file: FNV-1a of the source and the config (std's hasher may change
/// between Rust releases, and a re-found input should land on the same file).
fn hash(input: &Input) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let config = input.config.as_deref().unwrap_or_default();
    for byte in input.source.bytes().chain([0xff]).chain(config.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Writes a finding under `dir/templates/`.
fn write(dir: &Path, finding: &Finding) -> std::io::Result<PathBuf> {
    let dir = dir.join("templates");
    std::fs::create_dir_all(&dir)?;
    let name = hash(&finding.input);
    let path = dir.join(format!("{name}.jinja"));
    let header = format!(
        "{{# fuzz: {} — {} #}}\n",
        finding.kind,
        finding.detail.replace("#}", "# }")
    );
    std::fs::write(&path, format!("{header}{}", finding.input.source))?;
    if let Some(config) = &finding.input.config {
        std::fs::write(dir.join(format!("{name}.json")), config)?;
    }
    Ok(path)
}

/// Reads a regression file written by [`write`] (the header comment dropped).
pub fn read(path: &Path) -> Result<Input, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let source = match text.split_once("#}\n") {
        Some((header, rest)) if header.starts_with("{# fuzz:") => rest.to_string(),
        _ => text,
    };
    let config = std::fs::read_to_string(path.with_extension("json")).ok();
    Ok(Input { source, config })
}

/// Re-runs every template regression under `dir/templates/`; returns what still fails.
pub fn replay_dir(dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for path in jinja_files(&dir.join("templates")) {
        match read(&path) {
            Ok(input) => {
                if let Err((kind, detail)) = run_one(&input, true, HANG_AFTER) {
                    problems.push(format!("{}: {kind}: {detail}", path.display()));
                }
            }
            Err(why) => problems.push(why),
        }
    }
    problems
}

/// Makes input `index` of a run with `seed` again, prints it and runs it on this thread (a panic or a
/// stack overflow shows as it happens).
pub fn explain(seed: u64, index: u64) -> String {
    let input = make_input(seed, index);
    // Printed before it runs: a stack overflow aborts the process.
    eprintln!(
        "template input {index} (seed {seed}), before running:\n{}",
        input.source
    );
    let started = Instant::now();
    let outcome = exercise(&input, index.is_multiple_of(8));
    format!(
        "template input {index} (seed {seed}):\n{}\nconfig: {:?}\n{} renders, errors {:?}, {:?}\n",
        input.source,
        input.config,
        outcome.rendered,
        outcome.errors,
        started.elapsed()
    )
}

/// Runs the templates family under `budget` (its duration, inputs, seed, threads and regression dir).
pub fn run(budget: &Budget) -> TemplateReport {
    let started = Instant::now();
    let report = Arc::new(std::sync::Mutex::new(TemplateReport::default()));
    let next = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let threads = budget.threads.max(1);
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (shared, next, stop, budget) =
                (report.clone(), next.clone(), stop.clone(), budget.clone());
            std::thread::spawn(move || {
                use std::sync::atomic::Ordering;
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let out_of_inputs = budget.inputs.is_some_and(|n| index >= n);
                    let out_of_time = budget.duration.is_some_and(|d| started.elapsed() >= d);
                    if out_of_inputs || out_of_time || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let input = make_input(budget.seed, index);
                    // The analysis is the slowest part: one input in eight goes through it.
                    let heavy = index.is_multiple_of(8);
                    let result = run_one(&input, heavy, HANG_AFTER);
                    let mut report = shared.lock().unwrap_or_else(|p| p.into_inner());
                    report.inputs += 1;
                    match result {
                        Ok((outcome, took)) => {
                            report.rendered += outcome.rendered;
                            for error in outcome.errors {
                                *report.errors.entry(error).or_default() += 1;
                            }
                            report.slowest = report.slowest.max(took);
                        }
                        Err((kind, detail)) => {
                            drop(report);
                            let shrunk =
                                shrink(&input, kind, heavy, Instant::now() + budget.shrink_time);
                            let mut finding = Finding {
                                kind,
                                detail,
                                input: shrunk,
                                file: None,
                            };
                            if let Some(dir) = &budget.regressions {
                                finding.file = write(dir, &finding).ok();
                            }
                            let mut report = shared.lock().unwrap_or_else(|p| p.into_inner());
                            report.findings.push(finding);
                            if kind == FindingKind::Hang {
                                // The hung thread cannot be stopped: end the run.
                                report.stalled = true;
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                }
            })
        })
        .collect();
    let mut last_progress = Instant::now();
    while !workers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(Duration::from_millis(50));
        if let Some(every) = budget.progress
            && last_progress.elapsed() >= every
        {
            last_progress = Instant::now();
            let inputs = report.lock().map(|r| r.inputs).unwrap_or(0);
            eprintln!(
                "  templates: {:.0} s, {inputs} inputs",
                started.elapsed().as_secs_f64()
            );
        }
    }
    for worker in workers {
        let _ = worker.join();
    }
    let mut report = std::mem::take(&mut *report.lock().unwrap_or_else(|p| p.into_inner()));
    report.elapsed = started.elapsed();
    report
}
