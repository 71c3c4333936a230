//! `cargo xtask bench [--quick] [--divan | --peers | --instructions] [-- ARGS…]`.
//!
//! Without `--divan`: `cargo run --release -p benchmarks --bin bench-table`, which measures the performance
//! targets and prints a markdown table with PASS/MISS (see `benchmarks/src/bin/bench-table.rs`). With
//! `--divan`: `cargo bench -p benchmarks`, divan's benchmarks with allocation counts
//! (`benchmarks/benches/parsers.rs`). With `--peers`: `cargo run --release --manifest-path
//! peers/Cargo.toml` with `CARGO_TARGET_DIR=<root>/target/peers`, the side-by-side comparison with SGLang's
//! `tool-parser` and `reasoning-parser` crates (see `peers/src/main.rs`; `peers/` is its own workspace, so
//! the project's builds never compile the peer crates, and its first build takes about 5 minutes). With
//! `--instructions`: the every-format table in callgrind instructions (see [`instructions`](crate::instructions)). Output is
//! streamed as it comes; the exit code is the program's.

use std::ffi::OsString;
use std::process::{Command, ExitCode};

use crate::flags;

/// Runs the benchmarks.
pub fn run(flags: &flags::Bench) -> Result<ExitCode, String> {
    if flags.instructions {
        return crate::instructions::run(&flags.rest);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let root = crate::project_root();
    let mut command = Command::new(&cargo);
    command.current_dir(&root);
    let mut shown_env = String::new();
    if flags.peers {
        let target = root.join("target").join("peers");
        shown_env = format!("CARGO_TARGET_DIR={} ", target.display());
        command.env("CARGO_TARGET_DIR", target);
        command.args([
            "run",
            "--release",
            "--manifest-path",
            "peers/Cargo.toml",
            "--",
        ]);
        if flags.quick {
            command.arg("--quick");
        }
    } else if flags.divan {
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
    eprintln!(
        "$ {shown_env}{} {}",
        cargo.to_string_lossy(),
        shown_args(&command)
    );
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
