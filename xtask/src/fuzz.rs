//! `cargo xtask fuzz [--family F] [--minutes N] [--inputs N] [--seed S] [--jobs J] [-- ARGS…]`.
//!
//! Runs `cargo run --release -p fuzz -- …` (the `fuzz` crate: generators of each family's output shapes,
//! mutators, and the checks of DESIGN §4 on every input, one-shot and in random chunkings). Failures are
//! shrunk and written to `fuzz/regressions/<family>/<hash>.txt`, which `cargo test -p fuzz` re-runs. Output
//! is streamed as it comes; the exit code is the program's (1 when a check failed).

use std::ffi::OsString;
use std::process::{Command, ExitCode};

use crate::flags;

/// Runs the fuzzer.
pub fn run(flags: &flags::Fuzz) -> Result<ExitCode, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(&cargo);
    command
        .current_dir(crate::project_root())
        .args(["run", "--release", "-p", "fuzz", "--"]);
    if let Some(family) = &flags.family {
        command.args(["--family", family]);
    }
    if let Some(minutes) = &flags.minutes {
        command.args(["--minutes", minutes]);
    }
    if let Some(inputs) = flags.inputs {
        command.args(["--inputs", &inputs.to_string()]);
    }
    if let Some(seed) = flags.seed {
        command.args(["--seed", &seed.to_string()]);
    }
    if let Some(jobs) = flags.jobs {
        command.args(["--jobs", &jobs.to_string()]);
    }
    command.args(&flags.rest);
    let shown: Vec<_> = command.get_args().map(|a| a.to_string_lossy()).collect();
    eprintln!("$ {} {}", cargo.to_string_lossy(), shown.join(" "));
    let status = command
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cargo.to_string_lossy()))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
