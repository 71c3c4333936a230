//! Divan benchmarks of the DeepSeek V3.1 parser (`cargo bench -p benchmarks`, or `cargo xtask bench --divan`).
//!
//! Workloads come from the `benchmarks` library (deterministic). The global allocator is divan's
//! [`AllocProfiler`], so each benchmark also reports allocation counts and bytes per iteration.
//!
//! - `one_shot`: `Parser::parse` on the ~100 KB output, with parser construction timed
//!   (`construction_counted`) and not (`construction_not_counted`: parsers are built by `with_inputs`).
//! - `streaming_4_chars`: the ~2 KB / 20 KB / 200 KB outputs pushed 4 characters at a time, plus `finish`,
//!   every delta read; a fresh parser per iteration, built outside the timing. The item counter is the
//!   number of pushes, so divan's item throughput is pushes per second.
//! - `long_argument_4_chars`: one call with a 2 KB / 20 KB / 200 KB string argument, streamed the same way.
//! - `construction`: building a parser from a resolved registry entry, and through `for_model` (registry
//!   lookup included).
#![forbid(unsafe_code)]

use divan::counter::{BytesCount, ItemsCount};
use divan::{AllocProfiler, Bencher, black_box};
use parser_auto::Parser;

use benchmarks::{
    CONTENT_TAIL, MODEL, REASONING_TAIL, chunks, deepseek_v31_long_argument, deepseek_v31_output,
    entry, options, stream,
};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

/// Sizes of the streaming workloads, in bytes.
const SIZES: &[usize] = &[2_000, 20_000, 200_000];

/// A parser builder for `prompt_tail`, resolved once.
fn maker(prompt_tail: &str) -> impl Fn() -> Parser + use<> {
    let entry = entry().unwrap_or_else(|e| panic!("no parser for {MODEL}: {e}"));
    let options = options(prompt_tail);
    move || entry.parser(&options)
}

mod one_shot {
    use super::*;

    const SIZE: usize = 100_000;

    /// Construction (entry already resolved) plus `parse`.
    #[divan::bench]
    fn construction_counted(bencher: Bencher) {
        let text = deepseek_v31_output(SIZE);
        let make = maker(REASONING_TAIL);
        bencher
            .counter(BytesCount::of_str(&text))
            .bench_local(|| make().parse(black_box(&text)));
    }

    /// `parse` only: parsers are built outside the timed closure.
    #[divan::bench]
    fn construction_not_counted(bencher: Bencher) {
        let text = deepseek_v31_output(SIZE);
        let make = maker(REASONING_TAIL);
        bencher
            .counter(BytesCount::of_str(&text))
            .with_inputs(&make)
            .bench_local_values(|parser| parser.parse(black_box(&text)));
    }
}

/// Reasoning, content and three calls, pushed 4 characters at a time.
#[divan::bench(args = SIZES)]
fn streaming_4_chars(bencher: Bencher, size: usize) {
    let text = deepseek_v31_output(size);
    let pieces = chunks(&text, 4);
    let make = maker(REASONING_TAIL);
    bencher
        .counter(ItemsCount::new(pieces.len()))
        .counter(BytesCount::of_str(&text))
        .with_inputs(&make)
        .bench_local_refs(|parser| stream(parser, black_box(&pieces)));
}

/// One call with a long string argument, pushed 4 characters at a time.
#[divan::bench(args = SIZES)]
fn long_argument_4_chars(bencher: Bencher, size: usize) {
    let text = deepseek_v31_long_argument(size);
    let pieces = chunks(&text, 4);
    let make = maker(CONTENT_TAIL);
    bencher
        .counter(ItemsCount::new(pieces.len()))
        .counter(BytesCount::of_str(&text))
        .with_inputs(&make)
        .bench_local_refs(|parser| stream(parser, black_box(&pieces)));
}

mod construction {
    use super::*;

    /// `entry.parser(&options)`: what a server does per request once the model is resolved.
    #[divan::bench]
    fn from_entry(bencher: Bencher) {
        let entry = entry().unwrap_or_else(|e| panic!("no parser for {MODEL}: {e}"));
        let options = options(REASONING_TAIL);
        bencher.bench_local(|| entry.parser(black_box(&options)));
    }

    /// `parser_auto::for_model`: registry lookup and construction.
    #[divan::bench]
    fn for_model(bencher: Bencher) {
        let options = options(REASONING_TAIL);
        bencher.bench_local(|| parser_auto::for_model(black_box(MODEL), black_box(&options)));
    }
}
