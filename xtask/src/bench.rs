//! `cargo xtask bench [--quick] [--divan] [-- ARGS…]`.
//!
//! Without `--divan`: `cargo run --release -p benchmarks --bin bench-table`, which measures the performance
//! targets and prints a markdown table with PASS/MISS (see `benchmarks/src/bin/bench-table.rs`). With
//! `--divan`: `cargo bench -p benchmarks`, divan's benchmarks with allocation counts
//! (`benchmarks/benches/parsers.rs`). Output is streamed as it comes; the exit code is the program's.

use std::ffi::OsString;
use std::process::{Command, ExitCode};

use crate::flags;

/// Runs the benchmarks.
pub fn run(flags: &flags::Bench) -> Result<ExitCode, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(&cargo);
    command.current_dir(crate::project_root());
    if flags.divan {
        command.args(["bench", "-p", "benchmarks", "--bench", "parsers"]);
        if flags.quick || !flags.rest.is_empty() {
            command.arg("--");
        }
        if flags.quick {
            command.args(["--sample-count", "10"]);
        }
    } else {
        command.args([
            "run",
            "--release",
            "-p",
            "benchmarks",
            "--bin",
            "bench-table",
            "--",
        ]);
        if flags.quick {
            command.arg("--quick");
        }
    }
    command.args(&flags.rest);
    eprintln!("$ {} {}", cargo.to_string_lossy(), shown_args(&command));
    let status = command
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cargo.to_string_lossy()))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

fn shown_args(command: &Command) -> String {
    command
        .get_args()
        .map(|arg| arg.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
