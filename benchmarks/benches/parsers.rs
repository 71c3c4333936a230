//! Divan benchmarks of every registered output format (`cargo bench -p benchmarks`, or
//! `cargo xtask bench --divan`).
//!
//! Workloads come from the `benchmarks` library ([`benchmarks::all_formats`], deterministic): the
//! hand-written formats, then one format per other registered entry, made from the entry's own sample.
//! Every benchmark takes the format as its divan argument (`deepseek-v3.1`, `qwen3-hermes`, …, the
//! template formats `auto-qwen3-hermes`, `auto-qwen3-coder`, and the sampled ones under their entry's
//! name: `deepseek-r1`, `minimax-m2`, …); formats whose family is not registered yet are left out. The global allocator is divan's
//! [`AllocProfiler`], so each benchmark also reports allocation counts and bytes per iteration.
//!
//! - `one_shot`: `Parser::parse` on the ~100 KB output, with parser construction timed
//!   (`construction_counted`) and not (`construction_not_counted`: parsers are built by `with_inputs`).
//! - `streaming_4_chars`: the ~2 KB / 20 KB / 200 KB outputs pushed 4 characters at a time, plus `finish`,
//!   every delta read; a fresh parser per iteration, built outside the timing. The item counter is the
//!   number of pushes, so divan's item throughput is pushes per second.
//! - `long_argument_4_chars`: one call with a 2 KB / 20 KB / 200 KB string argument, streamed the same way.
//! - `construction`: building a parser per request from what is resolved once (`per_request`: a registry
//!   entry, or a template's cached analysis), and through `for_model` (registry lookup included; family
//!   formats only).
//!
//! Filter by format with divan's name filter, e.g. `cargo bench -p benchmarks -- qwen3-coder`.
#![forbid(unsafe_code)]

use std::fmt;

use benchmarks::{Format, ParserFactory, chunks, registered_formats, stream};
use divan::counter::{BytesCount, ItemsCount};
use divan::{AllocProfiler, Bencher, black_box};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

/// Sizes of the streaming workloads, in bytes.
const SIZES: [usize; 3] = [2_000, 20_000, 200_000];

/// A format and a workload size: the argument of the streaming benchmarks (`qwen3-hermes/20000`).
#[derive(Clone, Copy, Debug)]
struct Case {
    format: &'static Format,
    size: usize,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.format.key, self.size)
    }
}

/// Every registered format at every size.
fn cases() -> Vec<Case> {
    registered_formats()
        .into_iter()
        .flat_map(|format| SIZES.map(|size| Case { format, size }))
        .collect()
}

/// The parsers of `format`'s output workload (the entry or the template analysis is resolved once).
fn output_parsers(format: &Format) -> ParserFactory {
    format
        .output_parsers()
        .unwrap_or_else(|e| panic!("no parser for {format}: {e}"))
}

/// The parsers of `format`'s long-argument workload.
fn long_argument_parsers(format: &Format) -> ParserFactory {
    format
        .long_argument_parsers()
        .unwrap_or_else(|e| panic!("no parser for {format}: {e}"))
}

/// The formats whose parser is a family's, found by model name (those `for_model` can build; a sampled
/// format has an entry, not a model name).
fn family_formats() -> Vec<&'static Format> {
    registered_formats()
        .into_iter()
        .filter(|format| format.template.is_none() && format.sampled.is_none())
        .collect()
}

mod one_shot {
    use super::*;

    const SIZE: usize = 100_000;

    /// Construction (entry already resolved) plus `parse`.
    #[divan::bench(args = registered_formats())]
    fn construction_counted(bencher: Bencher, format: &Format) {
        let text = format.output(SIZE);
        let parsers = output_parsers(format);
        bencher
            .counter(BytesCount::of_str(&text))
            .bench_local(|| parsers.make().parse(black_box(&text)));
    }

    /// `parse` only: parsers are built outside the timed closure.
    #[divan::bench(args = registered_formats())]
    fn construction_not_counted(bencher: Bencher, format: &Format) {
        let text = format.output(SIZE);
        let parsers = output_parsers(format);
        bencher
            .counter(BytesCount::of_str(&text))
            .with_inputs(|| parsers.make())
            .bench_local_values(|parser| parser.parse(black_box(&text)));
    }
}

/// Reasoning, content and three calls, pushed 4 characters at a time.
#[divan::bench(args = cases())]
fn streaming_4_chars(bencher: Bencher, case: Case) {
    let text = case.format.output(case.size);
    let pieces = chunks(&text, 4);
    let parsers = output_parsers(case.format);
    bencher
        .counter(ItemsCount::new(pieces.len()))
        .counter(BytesCount::of_str(&text))
        .with_inputs(|| parsers.make())
        .bench_local_refs(|parser| stream(parser, black_box(&pieces)));
}

/// One call with a long string argument, pushed 4 characters at a time.
#[divan::bench(args = cases())]
fn long_argument_4_chars(bencher: Bencher, case: Case) {
    let text = case.format.long_argument(case.size).output;
    let pieces = chunks(&text, 4);
    let parsers = long_argument_parsers(case.format);
    bencher
        .counter(ItemsCount::new(pieces.len()))
        .counter(BytesCount::of_str(&text))
        .with_inputs(|| parsers.make())
        .bench_local_refs(|parser| stream(parser, black_box(&pieces)));
}

mod construction {
    use super::*;

    /// What a server does per request once the model is resolved: `entry.parser(&options)`, or
    /// `prepared.parser(&options)` on the template resolved once with `parser_auto::prepare`.
    #[divan::bench(args = registered_formats())]
    fn per_request(bencher: Bencher, format: &Format) {
        let parsers = output_parsers(format);
        bencher.bench_local(|| black_box(&parsers).make());
    }

    /// `parser_auto::for_model`: registry lookup and construction.
    #[divan::bench(args = family_formats())]
    fn for_model(bencher: Bencher, format: &Format) {
        let options = format.output_options();
        bencher
            .bench_local(|| parser_auto::for_model(black_box(format.model), black_box(&options)));
    }
}
