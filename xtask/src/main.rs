//! `cargo xtask`: the project's development chores, as a plain Rust program (the
//! [xtask](https://github.com/matklad/cargo-xtask) convention, as in rust-analyzer).
//!
//! # How it is wired
//! `.cargo/config.toml` at the workspace root defines the alias
//! `xtask = "run --quiet --package xtask --"`, so `cargo xtask bench --divan` builds this crate and runs it
//! with the arguments `bench --divan`. It is a workspace member but not a default member, so `cargo build`
//! and `cargo test` at the root do not build it; nothing here is published.
//!
//! # Commands
//! - `cargo xtask bench [--quick] [--divan | --peers | --instructions] [-- ARGS…]`: the benchmark table
//!   (or divan's benchmarks, the comparison with SGLang, the table in callgrind instructions); see
//!   [`bench`](mod@bench).
//! - `cargo xtask conformance [--family NAME] [--verbose]`: every corpus case through its parser, one-shot
//!   and streamed; see [`conformance`].
//! - `cargo xtask analyze TEMPLATE...` / `cargo xtask analyze --all DIR`: what the differential analysis
//!   finds in chat templates, the route each takes and its constrained-decoding grammar (`--gbnf`,
//!   `--structural-tag` for the other renderings); see [`analyze`].
//! - `cargo xtask fuzz [--family F] [--minutes N] [--inputs N] [--seed S] [--jobs J]`: adversarial runs of
//!   every family's parsers (the `fuzz` crate, in release mode); see [`fuzz`](mod@fuzz).
//! - `cargo xtask new-family NAME`: a new family crate `parser-NAME`, wired into the workspace, parser-auto,
//!   the corpus and the benchmarks, that builds and passes its tests as generated; see [`new_family`].
//! - `cargo xtask grammar-check`: every registered constraint's GBNF and structural tags through
//!   xgrammar and llguidance (Python, in a venv made once under the target directory), on corpus outputs
//!   and refusals; see [`grammar_check`].
//! - `cargo xtask help`: this list.
//!
//! Each command is a module with a `run` function taking its parsed [`flags`]. Flags are parsed by hand
//! from `std::env::args` (no clap: this crate is built on every `cargo xtask`, so it keeps its dependencies
//! to the workspace's own crates, `serde_json`, and llguidance, which the families' grammar tests build
//! already: `grammar-check` decides what our Lark form accepts with the tests' own helpers,
//! `parser-core/tests-support/{llg,family}.rs`, included as modules).

mod analyze;
mod bench;
mod conformance;
#[path = "../../parser-core/tests-support/family.rs"]
mod family;
mod flags;
mod fuzz;
mod grammar_check;
mod instructions;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;
mod new_family;
#[cfg(test)]
mod outside_crate;
#[cfg(test)]
mod scratch;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use flags::Command;

fn main() -> ExitCode {
    let command = match flags::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("error: {message}\n\n{}", flags::HELP);
            return ExitCode::from(2);
        }
    };
    let result = match command {
        Command::Help => {
            println!("{}", flags::HELP);
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(flags) => bench::run(&flags),
        Command::Conformance(flags) => conformance::run(&flags),
        Command::Analyze(flags) => analyze::run(&flags),
        Command::NewFamily(flags) => new_family::run(&flags),
        Command::Fuzz(flags) => fuzz::run(&flags),
        Command::GrammarCheck => grammar_check::run(),
    };
    result.unwrap_or_else(|message| {
        eprintln!("error: {message}");
        ExitCode::FAILURE
    })
}

/// The workspace root: the parent of this crate's directory.
fn project_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
