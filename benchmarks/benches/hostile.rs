//! Divan benchmarks of hostile streams: is the work per byte constant? (`cargo bench -p benchmarks
//! --bench hostile`, or `cargo xtask bench --divan -- hostile` style filters.)
//!
//! Each scenario streams 10 MB and 100 MB in pieces of 1 byte to 8 KB ([`HOSTILE_PIECE_SIZES`]): the
//! time per byte (divan's bytes counter) must be the same at both sizes. The bounded-memory tests
//! (`benchmarks/tests/bounded_memory.rs`) check the same streams for memory, without timing.
//!
//! - `reasoning_never_closed`: Qwen3 with `<think>` prefilled, reasoning that never ends;
//! - `partial_markers`: DeepSeek V3.1, text made only of partial markers of several families;
//! - `long_argument`: Qwen3-Coder, one XML string parameter as long as the stream.
#![forbid(unsafe_code)]

use benchmarks::{HOSTILE_PIECE_SIZES, RepeatedPieces, consume};
use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use parser_auto::{ParseOptions, Parser, Stage};

fn main() {
    divan::main();
}

const SIZES: [usize; 2] = [10 << 20, 100 << 20];

fn run(
    bencher: Bencher,
    model: &str,
    options: ParseOptions,
    head: &str,
    pattern: &str,
    total: usize,
) {
    bencher
        .counter(BytesCount::new(total))
        .with_inputs(|| parser_auto::for_model(model, &options).expect("model"))
        .bench_local_values(|mut parser: Parser| {
            let mut seen = consume(parser.push(head));
            let mut pieces = RepeatedPieces::new(pattern, total, &HOSTILE_PIECE_SIZES);
            while let Some(piece) = pieces.next_piece() {
                seen += consume(parser.push(piece));
            }
            seen += consume(parser.finish());
            black_box(seen)
        });
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn reasoning_never_closed(bencher: Bencher, total: usize) {
    let options = ParseOptions::new().with_prompt_tail("<|im_start|>assistant\n<think>\n");
    let prose = "Weigh the options, check the numbers (3 × 7 = 21) and the edge cases.\n";
    run(bencher, "Qwen/Qwen3-8B", options, "", prose, total);
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn partial_markers(bencher: Bencher, total: usize) {
    let options = ParseOptions::new().with_stage(Stage::Content);
    let pattern =
        "<｜tool▁<|tool_call<think<tool_call <function<｜DSML｜</th<｜tool▁calls▁begin<｜end▁of▁";
    run(
        bencher,
        "deepseek-ai/DeepSeek-V3.1",
        options,
        "",
        pattern,
        total,
    );
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn long_argument(bencher: Bencher, total: usize) {
    let options = ParseOptions::new().with_stage(Stage::Content);
    let head = "<tool_call>\n<function=write_file>\n<parameter=content>\n";
    let line = "fn main() { println!(\"hello, {}\", name); } // a line of the file\n";
    run(
        bencher,
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        options,
        head,
        line,
        total,
    );
}
