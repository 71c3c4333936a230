//! Streams one workload over and over, for a profiler to sample (`perf record`, `valgrind --tool=callgrind`).
//!
//! ```sh
//! CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release -p benchmarks --example profile
//! perf record -g target/release/examples/profile qwen3-coder long 20000 3
//! ```
//!
//! Arguments: a format key (`deepseek-v3.1`, `qwen3-hermes`, …, or a sampled format's entry name: every
//! key of `benchmarks::all_formats`), the workload (`output`, `oneshot`: one `parse` of the whole output,
//! `content`: the content-phase output of a format that thinks, or `long`; or `unclosed:PARSER oneshot N`
//! (or `stream`): a call block repeated N times, never closed, `benchmarks::hostile_outputs`), its size in bytes (default 20000) and the seconds to run (default 3). It
//! prints the time per push, so it also times sub-steps when the parser code is changed locally.
//!
//! `profile --list` prints every format key and name, one per line (what `cargo xtask bench --instructions` measures).
//!
//! A count ending in `x` (`3x`) runs exactly that many streams (or parses) instead of a time: under
//! callgrind, the instructions of `3x` minus those of `1x`, divided by twice the pushes, are the cost of
//! one push with the setup taken out.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::{Duration, Instant};

use benchmarks::hostile_outputs::UNCLOSED_BLOCKS;
use benchmarks::{all_formats, chunks, stream};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let key = args.first().map_or("deepseek-v3.1", String::as_str);
    if key == "--list" {
        for format in all_formats() {
            println!("{}\t{}", format.key, format.name);
        }
        return ExitCode::SUCCESS;
    }
    let workload = args.get(1).map_or("output", String::as_str);
    let size: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let count = args
        .get(3)
        .and_then(|s| s.strip_suffix('x')?.parse::<u64>().ok());
    let seconds: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    if let Some(parser) = key.strip_prefix("unclosed:") {
        return unclosed(parser, workload == "stream", size, seconds);
    }
    let Some(format) = all_formats().iter().find(|f| f.key == key) else {
        eprintln!(
            "profile: unknown format {key}; one of {:?}",
            all_formats().iter().map(|f| f.key).collect::<Vec<_>>()
        );
        return ExitCode::from(2);
    };
    let (text, parsers) = match workload {
        "output" | "oneshot" => (format.output(size), format.output_parsers()),
        "long" => (
            format.long_argument(size).output,
            format.long_argument_parsers(),
        ),
        "content" => match format.content_output(size) {
            Some(text) => (text, format.output_parsers()),
            None => {
                eprintln!("profile: {key} has no content-phase workload (its `output` is content)");
                return ExitCode::from(2);
            }
        },
        other => {
            eprintln!(
                "profile: unknown workload {other}; `output`, `oneshot`, `content` or `long`"
            );
            return ExitCode::from(2);
        }
    };
    let parsers = match parsers {
        Ok(parsers) => parsers,
        Err(e) => {
            eprintln!("profile: {e}");
            return ExitCode::from(2);
        }
    };
    let deadline = Duration::from_secs_f64(seconds);
    if workload == "oneshot" {
        let start = Instant::now();
        let mut runs = 0u64;
        while count.map_or(start.elapsed() < deadline, |count| runs < count) {
            std::hint::black_box(parsers.make().parse(&text));
            runs += 1;
        }
        let ns = start.elapsed().as_secs_f64() * 1e9 / runs as f64;
        println!(
            "{key} oneshot {} B: {runs} parses, {ns:.0} ns each, {:.2} GB/s (construction included)",
            text.len(),
            text.len() as f64 / ns
        );
        return ExitCode::SUCCESS;
    }
    let pieces = chunks(&text, 4);
    let start = Instant::now();
    let mut streams = 0u64;
    while count.map_or(start.elapsed() < deadline, |count| streams < count) {
        stream(&mut parsers.make(), &pieces);
        streams += 1;
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / (streams * pieces.len() as u64) as f64;
    println!(
        "{key} {workload} {size} B: {streams} streams of {} pushes, {ns:.1} ns per push (construction included)",
        pieces.len()
    );
    ExitCode::SUCCESS
}

/// `unclosed:PARSER oneshot REPETITIONS`: one-shot parses of a call block repeated and never closed
/// (`benchmarks::hostile_outputs`), at least once; `stream` instead of `oneshot`: streamed in 4-char
/// pushes.
fn unclosed(parser: &str, streamed: bool, repetitions: usize, seconds: f64) -> ExitCode {
    let Some(case) = UNCLOSED_BLOCKS.iter().find(|c| c.parser == parser) else {
        eprintln!(
            "profile: no unclosed-block workload for {parser}; one of {:?}",
            UNCLOSED_BLOCKS.iter().map(|c| c.parser).collect::<Vec<_>>()
        );
        return ExitCode::from(2);
    };
    let text = case.output(repetitions);
    let start = Instant::now();
    let mut runs = 0u64;
    while runs == 0 || start.elapsed() < Duration::from_secs_f64(seconds) {
        let parser = match case.parser() {
            Ok(parser) => parser,
            Err(e) => {
                eprintln!("profile: {e}");
                return ExitCode::from(2);
            }
        };
        if streamed {
            stream(&mut { parser }, &chunks(&text, 4));
        } else {
            std::hint::black_box(parser.parse(&text));
        }
        runs += 1;
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / runs as f64;
    println!(
        "unclosed:{parser} {} B ({repetitions} blocks): {runs} parses, {ns:.0} ns each",
        text.len()
    );
    ExitCode::SUCCESS
}
