//! `cargo xtask bench --instructions [-- KEY… --jobs N]`: the every-format table in instructions.
//!
//! Wall time on a shared 2-core VM moves by 2–3× with the load; callgrind's instruction counts do not.
//! This builds `benchmarks/examples/profile.rs` in release mode and runs it under
//! `valgrind --tool=callgrind` for every format of `benchmarks::all_formats` (or the keys given), each
//! workload twice: once doing the work once (`1x`) and once three times (`3x`). The difference divided by
//! two is the work without the process's setup (building the workload, the parser factory, valgrind's
//! own start), so a push or a byte is charged only what the parser spends on it.
//!
//! Columns (the targets of issue 16 in parentheses, at ~11.5 instructions per ns on this VM):
//! - one-shot: instructions per byte of a 100 KB output, reasoning-heavy (≤ ~1.1 ⇒ ≥ 10 GB/s);
//! - per push, prose: one 4-char push of a 200 KB output in its reasoning (or prose) phase (≤ ~200 ⇒ 20 ns);
//! - per push, content: the same in the content phase, for a format that thinks;
//! - per push, argument: one 4-char push inside a 20 KB string argument (≤ ~170 ⇒ 100 µs for 20 KB with
//!   reading the deltas);
//! - argument 200 KB / 20 KB: the whole stream's instructions, ≈ 10 when linear;
//! - stream / one-shot: a 100 KB output streamed in 4-char pushes against its one-shot parse.
//!
//! Every push is read through `Parser::push_view` and its events consumed, as a server would
//! (`benchmarks::stream`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One workload of `profile`: its arguments and what its instructions are divided by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Workload {
    /// One-shot parse of a 100 KB output.
    OneShot,
    /// A 100 KB output streamed (for the stream / one-shot ratio).
    Stream100K,
    /// A 200 KB output streamed, reasoning or prose phase.
    Prose,
    /// A 200 KB content-phase output streamed.
    Content,
    /// A 20 KB string argument streamed.
    Argument20K,
    /// A 200 KB string argument streamed.
    Argument200K,
}

impl Workload {
    const ALL: [Workload; 6] = [
        Workload::OneShot,
        Workload::Stream100K,
        Workload::Prose,
        Workload::Content,
        Workload::Argument20K,
        Workload::Argument200K,
    ];

    /// `profile`'s workload and size arguments.
    fn args(self) -> [&'static str; 2] {
        match self {
            Workload::OneShot => ["oneshot", "100000"],
            Workload::Stream100K => ["output", "100000"],
            Workload::Prose => ["output", "200000"],
            Workload::Content => ["content", "200000"],
            Workload::Argument20K => ["long", "20000"],
            Workload::Argument200K => ["long", "200000"],
        }
    }
}

/// What one workload measured: the instructions of one unit of work (a parse or a stream) and the
/// number of pushes of a stream (0 for a one-shot parse).
#[derive(Clone, Copy, Debug)]
struct Measured {
    instructions: f64,
    pushes: u64,
    bytes: u64,
}

/// One workload's result: measured, not applicable (`None`), or why it failed.
type Outcome = Result<Option<Measured>, String>;

/// Runs the instruction table.
pub fn run(rest: &[String]) -> Result<std::process::ExitCode, String> {
    let (keys, jobs) = parse_rest(rest)?;
    let valgrind = which("valgrind").ok_or(
        "valgrind not found: `--instructions` counts instructions with callgrind (apt install valgrind)",
    )?;
    let profile = build_profile()?;
    let listed = list_formats(&profile)?;
    let formats: Vec<(String, String)> = if keys.is_empty() {
        listed
    } else {
        let mut chosen = Vec::new();
        for key in &keys {
            match listed.iter().find(|(k, _)| k == key) {
                Some(format) => chosen.push(format.clone()),
                None => return Err(format!("unknown format key `{key}`")),
            }
        }
        chosen
    };
    let jobs_total = formats.len() * Workload::ALL.len();
    eprintln!(
        "measuring {} formats × {} workloads under callgrind, {jobs} at a time",
        formats.len(),
        Workload::ALL.len()
    );
    let queue: Mutex<Vec<(String, Workload)>> = Mutex::new(
        formats
            .iter()
            .rev()
            .flat_map(|(key, _)| Workload::ALL.iter().rev().map(|&w| (key.clone(), w)))
            .collect(),
    );
    let results: Mutex<BTreeMap<(String, Workload), Outcome>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let Some((key, workload)) = queue.lock().map(|mut q| q.pop()).ok().flatten()
                    else {
                        return;
                    };
                    let result = measure(&valgrind, &profile, &key, workload);
                    if let Ok(mut results) = results.lock() {
                        results.insert((key, workload), result);
                        eprint!("\r{} / {jobs_total}", results.len());
                    }
                }
            });
        }
    });
    eprintln!();
    let results = results.into_inner().map_err(|e| e.to_string())?;
    let mut failed = false;
    println!("{}", table_header());
    for (key, name) in &formats {
        let get = |w: Workload| match results.get(&(key.clone(), w)) {
            Some(Ok(m)) => *m,
            Some(Err(e)) => {
                eprintln!("{key} {:?}: {e}", w);
                None
            }
            None => None,
        };
        if Workload::ALL
            .iter()
            .any(|&w| matches!(results.get(&(key.clone(), w)), Some(Err(_))))
        {
            failed = true;
        }
        println!(
            "{}",
            table_row(
                name,
                key,
                &Workload::ALL.map(get).into_iter().collect::<Vec<_>>()
            )
        );
    }
    Ok(if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    })
}

/// Splits `ARGS` into format keys and `--jobs N`.
fn parse_rest(rest: &[String]) -> Result<(Vec<String>, usize), String> {
    let mut keys = Vec::new();
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        if arg == "--jobs" {
            jobs = args
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0)
                .ok_or("--jobs takes a positive number")?;
        } else if arg.starts_with('-') {
            return Err(format!("bench --instructions: unknown argument `{arg}`"));
        } else {
            keys.push(arg.clone());
        }
    }
    Ok((keys, jobs))
}

/// The first `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// Builds the `profile` example in release mode and returns its path.
fn build_profile() -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let root = crate::project_root();
    eprintln!("$ cargo build --release -p benchmarks --example profile");
    let status = Command::new(&cargo)
        .current_dir(&root)
        .args([
            "build",
            "--release",
            "-p",
            "benchmarks",
            "--example",
            "profile",
        ])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building the profile example failed".to_owned());
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let profile = target.join("release").join("examples").join("profile");
    if profile.is_file() {
        Ok(profile)
    } else {
        Err(format!("{} was not built", profile.display()))
    }
}

/// Every format's key and name, as `profile --list` prints them.
fn list_formats(profile: &Path) -> Result<Vec<(String, String)>, String> {
    let output = Command::new(profile)
        .arg("--list")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", profile.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(text
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(key, name)| (key.to_owned(), name.to_owned()))
        .collect())
}

/// Runs one workload at `1x` and `3x` and takes the difference. `Ok(None)`: the format has no such
/// workload (a format that does not think has no content phase).
fn measure(
    valgrind: &Path,
    profile: &Path,
    key: &str,
    workload: Workload,
) -> Result<Option<Measured>, String> {
    let once = run_callgrind(valgrind, profile, key, workload, "1x")?;
    let Some((once, pushes, bytes)) = once else {
        return Ok(None);
    };
    let thrice = run_callgrind(valgrind, profile, key, workload, "3x")?
        .ok_or("the workload disappeared between runs")?;
    Ok(Some(Measured {
        instructions: (thrice.0 as f64 - once as f64) / 2.0,
        pushes,
        bytes,
    }))
}

/// One callgrind run: the instructions collected, the pushes of one stream and the workload's size in
/// bytes, or `None` when `profile` says the format has no such workload (exit status 2).
fn run_callgrind(
    valgrind: &Path,
    profile: &Path,
    key: &str,
    workload: Workload,
    count: &str,
) -> Result<Option<(u64, u64, u64)>, String> {
    let [kind, size] = workload.args();
    let output = Command::new(valgrind)
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(profile)
        .args([key, kind, size, count])
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(2) && stderr.contains("no content-phase workload") {
        return Ok(None);
    }
    if !output.status.success() {
        return Err(format!(
            "profile {key} {kind} {size} {count} failed: {stderr}"
        ));
    }
    let collected = stderr
        .lines()
        .find_map(|line| line.split_once("Collected :").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or_else(|| format!("no `Collected :` line from callgrind: {stderr}"))?;
    // `KEY output 200000 B: 3 streams of 50000 pushes, …` or `KEY oneshot 100123 B: 3 parses, …`.
    let pushes = number_before(&stdout, " pushes").unwrap_or(0);
    let bytes = number_before(&stdout, " B:").unwrap_or(0);
    Ok(Some((collected, pushes, bytes)))
}

/// The decimal number that ends right before `marker` in `text`.
fn number_before(text: &str, marker: &str) -> Option<u64> {
    let end = text.find(marker)?;
    let digits = text[..end]
        .bytes()
        .rev()
        .take_while(u8::is_ascii_digit)
        .count();
    text[end - digits..end].parse().ok()
}

fn table_header() -> String {
    "| format (`key`) | one-shot 100 KB: instr/byte | per push, prose | per push, content | \
     per push, 20 KB argument | argument 200 KB / 20 KB | 100 KB stream / one-shot |\n\
     |---|---|---|---|---|---|---|"
        .to_owned()
}

/// One table row from the workloads' measurements, in [`Workload::ALL`]'s order.
fn table_row(name: &str, key: &str, measured: &[Option<Measured>]) -> String {
    let [one_shot, stream, prose, content, arg20, arg200] = [0, 1, 2, 3, 4, 5].map(|i| measured[i]);
    let per_byte = |m: Option<Measured>| {
        m.filter(|m| m.bytes > 0).map_or("—".to_owned(), |m| {
            format!("{:.2}", m.instructions / m.bytes as f64)
        })
    };
    let per_push = |m: Option<Measured>| {
        m.filter(|m| m.pushes > 0).map_or("—".to_owned(), |m| {
            format!("{:.0}", m.instructions / m.pushes as f64)
        })
    };
    let ratio = |a: Option<Measured>, b: Option<Measured>| match (a, b) {
        (Some(a), Some(b)) if b.instructions > 0.0 => {
            format!("{:.1}", a.instructions / b.instructions)
        }
        _ => "—".to_owned(),
    };
    format!(
        "| {name} (`{key}`) | {} | {} | {} | {} | {} | {}× |",
        per_byte(one_shot),
        per_push(prose),
        per_push(content),
        per_push(arg20),
        ratio(arg200, arg20),
        ratio(stream, one_shot),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_profile_lines() {
        let line = "qwen3 output 200000 B: 3 streams of 50000 pushes, 12.5 ns per push";
        assert_eq!(number_before(line, " pushes"), Some(50000));
        assert_eq!(number_before(line, " B:"), Some(200000));
        let oneshot = "qwen3 oneshot 100123 B: 3 parses, 9000 ns each";
        assert_eq!(number_before(oneshot, " pushes"), None);
        assert_eq!(number_before(oneshot, " B:"), Some(100123));
    }

    #[test]
    fn rows_divide_by_pushes_and_bytes() {
        let m = |instructions: f64, pushes, bytes| {
            Some(Measured {
                instructions,
                pushes,
                bytes,
            })
        };
        let row = table_row(
            "Qwen3",
            "qwen3",
            &[
                m(100_000.0, 0, 100_000),
                m(3_000_000.0, 25_000, 100_000),
                m(6_500_000.0, 50_000, 200_000),
                None,
                m(800_000.0, 5_000, 20_000),
                m(8_000_000.0, 50_000, 200_000),
            ],
        );
        assert_eq!(
            row,
            "| Qwen3 (`qwen3`) | 1.00 | 130 | — | 160 | 10.0 | 30.0× |"
        );
    }

    #[test]
    fn rest_takes_keys_and_jobs() {
        let rest = ["qwen3".to_owned(), "--jobs".to_owned(), "3".to_owned()];
        assert_eq!(parse_rest(&rest), Ok((vec!["qwen3".to_owned()], 3)));
        assert!(parse_rest(&["--jobs".to_owned(), "0".to_owned()]).is_err());
        assert!(parse_rest(&["--fast".to_owned()]).is_err());
    }
}
