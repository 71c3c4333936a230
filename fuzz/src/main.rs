//! `fuzz`: adversarial runs of llm-parse's parsers (see the library's docs).
//!
//! ```text
//! fuzz [--family F|all] [--minutes N] [--inputs N] [--seed S] [--jobs J] [--out DIR | --no-write]
//! fuzz --replay FILE...
//! fuzz --family F --seed S --input N [--out DIR]
//! fuzz --add-regression CASE.json [--out DIR]
//! ```
//!
//! `--minutes` and `--inputs` are per family (whichever comes first; neither: 1 minute). Failures are
//! shrunk and written to `fuzz/regressions/<family>/<hash>.txt`; the exit code is 1 when any check
//! failed (known, reported issues aside). `cargo xtask fuzz` runs this in release mode.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use fuzz::{Budget, Family};

const HELP: &str = "\
fuzz [--family F|all] [--minutes N] [--inputs N] [--seed S] [--jobs J] [--out DIR | --no-write]
fuzz --replay FILE...
fuzz --family F --seed S --input N [--out DIR]
fuzz --add-regression CASE.json [--out DIR]

  --family F    deepseek, qwen, kimi, gptoss, glm, mistral, llama, generic, data, gemma, machines,
                horizon, minimax-m3, inkling, templates (hostile chat templates and response configs
                against the render budget), or all (default all); a registry parser or family name runs the
                grammar that writes it (data or machines: that parser's or family's outputs alone)
  --minutes N   minutes per family (fractions allowed)
  --inputs N    inputs per family (with --minutes: whichever comes first; neither: 1 minute)
  --seed S      the run's seed (default: from the clock; printed)
  --jobs J      worker threads (default: the number of cores)
  --out DIR     where failures are written (default: fuzz/regressions)
  --no-write    do not write failures
  --quiet       no progress lines
  --replay FILE...
                re-run regression files through every check and print their messages
  --input N     make input N of the run with --seed again and time each of its checks; with
                --out DIR, also write it there as a regression file
  --add-regression CASE.json
                write a regression file from {\"header\": {...}, \"input\": \"...\"} (a bug found by
                hand, or one kept with an `open` note)";

struct Flags {
    families: Vec<Family>,
    /// A data or state-machine parser or family named by `--family` (kept to in seeded runs).
    only: Option<String>,
    minutes: Option<f64>,
    inputs: Option<u64>,
    seed: Option<u64>,
    jobs: Option<usize>,
    out: Option<PathBuf>,
    write: bool,
    quiet: bool,
    replay: Vec<PathBuf>,
    input: Option<u64>,
    add: Option<PathBuf>,
    /// Run the `templates` family (hostile chat templates against the render budget).
    templates: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Flags, String> {
    let mut flags = Flags {
        families: Family::ALL.to_vec(),
        only: None,
        minutes: None,
        inputs: None,
        seed: None,
        jobs: None,
        out: None,
        write: true,
        quiet: false,
        replay: Vec::new(),
        input: None,
        add: None,
        templates: true,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                (name.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |what: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs {what}"))
        };
        match name.as_str() {
            "--family" => {
                let family = value("a family")?;
                flags.templates = family == "all" || family == "templates";
                flags.families = if family == "all" {
                    Family::ALL.to_vec()
                } else if family == "templates" {
                    Vec::new()
                } else {
                    let found = Family::from_name(&family)
                        .ok_or_else(|| format!("unknown family `{family}`"))?;
                    if matches!(found, Family::Data | Family::Machines) && found.name() != family {
                        flags.only = Some(family.clone());
                    }
                    vec![found]
                };
            }
            "--minutes" => {
                let minutes: f64 = value("a number")?
                    .parse()
                    .map_err(|e| format!("--minutes: {e}"))?;
                if minutes.is_nan() || minutes <= 0.0 {
                    return Err("--minutes must be positive".to_owned());
                }
                flags.minutes = Some(minutes);
            }
            "--inputs" => {
                flags.inputs = Some(
                    value("a count")?
                        .parse()
                        .map_err(|e| format!("--inputs: {e}"))?,
                )
            }
            "--seed" => {
                flags.seed = Some(
                    value("a number")?
                        .parse()
                        .map_err(|e| format!("--seed: {e}"))?,
                )
            }
            "--jobs" | "-j" => {
                flags.jobs = Some(
                    value("a count")?
                        .parse()
                        .map_err(|e| format!("--jobs: {e}"))?,
                )
            }
            "--out" => flags.out = Some(PathBuf::from(value("a directory")?)),
            "--no-write" => flags.write = false,
            "--quiet" | "-q" => flags.quiet = true,
            "--add-regression" => flags.add = Some(PathBuf::from(value("a file")?)),
            "--input" => {
                flags.input = Some(
                    value("a number")?
                        .parse()
                        .map_err(|e| format!("--input: {e}"))?,
                )
            }
            "--replay" => {
                flags.replay.push(PathBuf::from(value("a file")?));
                flags.replay.extend(args.by_ref().map(PathBuf::from));
            }
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown flag `{other}`")),
        }
    }
    Ok(flags)
}

fn main() -> ExitCode {
    let flags = match parse(std::env::args().skip(1)) {
        Ok(flags) => flags,
        Err(message) if message.is_empty() => {
            println!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}\n\n{HELP}");
            return ExitCode::from(2);
        }
    };
    if !flags.replay.is_empty() {
        return replay(&flags.replay);
    }
    if let Some(case) = &flags.add {
        let dir = flags.out.clone().unwrap_or_else(fuzz::regress::default_dir);
        return match add_regression(case, &dir) {
            Ok(path) => {
                println!("{}", path.display());
                ExitCode::SUCCESS
            }
            Err(why) => {
                eprintln!("error: {why}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(index) = flags.input {
        if flags.templates {
            let seed = flags.seed.unwrap_or(1);
            print!("{}", fuzz::templates::explain(seed, index));
        }
        for family in &flags.families {
            let seed = flags.seed.unwrap_or(1);
            print!(
                "{}",
                fuzz::explain_only(
                    *family,
                    seed,
                    index,
                    flags.out.as_deref(),
                    flags.only.as_deref()
                )
            );
        }
        return ExitCode::SUCCESS;
    }
    let seed = flags.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let jobs = flags.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let mut budget = match (flags.minutes, flags.inputs) {
        (Some(minutes), inputs) => Budget {
            inputs,
            ..Budget::minutes(minutes)
        },
        (None, Some(inputs)) => Budget::inputs(inputs),
        (None, None) => Budget::minutes(1.0),
    }
    .with_seed(seed)
    .with_threads(jobs);
    budget.only = flags.only.clone();
    if flags.write {
        budget = budget.with_regressions(flags.out.unwrap_or_else(fuzz::regress::default_dir));
    }
    if !flags.quiet {
        budget.progress = Some(Duration::from_secs(30));
    }
    if let Some(only) = &flags.only {
        println!("fuzz: only the outputs of `{only}`");
    }
    println!(
        "fuzz: seed {seed}, {jobs} thread(s), {} per family",
        match (budget.duration, budget.inputs) {
            (Some(d), Some(n)) => format!("{:.1} min or {n} inputs", d.as_secs_f64() / 60.0),
            (Some(d), None) => format!("{:.1} min", d.as_secs_f64() / 60.0),
            (None, Some(n)) => format!("{n} inputs"),
            (None, None) => String::new(),
        }
    );
    let mut clean = true;
    for family in flags.families {
        let report = fuzz::run(family, &budget);
        print!("{report}");
        clean &= report.is_clean();
        if report.stalled {
            // A worker is stuck in a parser; it cannot be stopped, so end the process.
            break;
        }
    }
    if flags.templates {
        let report = fuzz::templates::run(&budget);
        print!("{report}");
        clean &= report.is_clean();
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Re-runs regression files: each one's header, one-shot message and check result.
fn replay(files: &[PathBuf]) -> ExitCode {
    let mut failed = 0;
    for path in files {
        let (header, input) = match fuzz::regress::read(path) {
            Ok(file) => file,
            Err(why) => {
                eprintln!("{why}");
                failed += 1;
                continue;
            }
        };
        println!("{}", path.display());
        println!(
            "  setup: {}",
            serde_json::to_string(&header.setup).unwrap_or_default()
        );
        println!(
            "  found: {} ({}): {}",
            header.check, header.cut, header.detail
        );
        if let Some(open) = &header.open {
            println!("  open issue: {open}");
        }
        println!("  input: {input:?}");
        match fuzz::check::guarded(|| header.setup.build().parse(&input)) {
            Ok(message) => println!("  one-shot: {message:?}"),
            Err(why) => println!("  one-shot panics: {why}"),
        }
        match fuzz::regress::replay(&header, &input) {
            Ok(()) => println!("  every check passes"),
            Err(failure) => {
                failed += 1;
                println!("  FAILS: {failure}");
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes a regression file from `{"header": {...}, "input": "..."}`.
fn add_regression(case: &std::path::Path, dir: &std::path::Path) -> Result<PathBuf, String> {
    #[derive(serde::Deserialize)]
    struct Case {
        header: fuzz::regress::Header,
        input: String,
    }
    let text = std::fs::read_to_string(case).map_err(|e| format!("{}: {e}", case.display()))?;
    let mut case: Case =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", case.display()))?;
    // An `open` note given as a bare issue id gets the issue's summary.
    if let Some(id) = case.header.open.clone() {
        let issue = fuzz::check::KNOWN_ISSUES
            .iter()
            .find(|issue| issue.id == id.split(':').next().unwrap_or(""))
            .ok_or_else(|| format!("`{id}` is not in fuzz::check::KNOWN_ISSUES"))?;
        case.header.open = Some(format!("{}: {}", issue.id, issue.summary));
    }
    fuzz::regress::write(dir, &case.header, &case.input).map_err(|e| e.to_string())
}
