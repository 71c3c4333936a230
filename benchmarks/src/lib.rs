//! Benchmark workloads and a small measurement harness for the llm-parse parsers.
//!
//! Two consumers share this crate:
//! - `benches/parsers.rs`, the divan benchmarks (`cargo bench -p benchmarks`, or `cargo xtask bench --divan`);
//! - `src/bin/bench-table.rs`, which measures the targets of the performance requirements with
//!   [`Harness`] and prints a markdown table with PASS/MISS per format (`cargo xtask bench`).
//!
//! Workloads are generated, not stored: they are deterministic (a fixed-seed xorshift, no `rand`), so every
//! run and every machine sees the same bytes.
//!
//! - [`FORMATS`]: every output format measured ([`Format`]): DeepSeek V3.1, Qwen3 Hermes, Qwen3-Coder
//!   XML, Kimi-K2, GPT-OSS harmony and GLM-4.7 with their family parsers, then the Qwen3 Hermes and Qwen3-Coder
//!   workloads again with the generic parser built from each model's chat template (the route of a model
//!   without a family parser). Each says where its parser comes from ([`ParserFactory`]: a registry
//!   entry or a template's analysis), the prompt tails, and generates two workloads: [`Format::output`], a typical answer (long reasoning, some content, three tool calls),
//!   and [`Format::long_argument`], one `write_file` call whose string argument is long. The generators
//!   are also public functions ([`deepseek_v31_output`], [`qwen3_coder_long_argument`], …).
//! - [`all_formats`]: [`FORMATS`], then one format per other registered entry (every wire format the
//!   registry has), whose workloads are the entry's own `sample` with the same prose inserted in front of
//!   its reasoning or content and one string argument made long ([`Sampled`]); [`sampled_formats`] says
//!   which entry's sample could not be used and why.
//! - [`realistic_tools`] and [`CONSTRAINT_CASES`]: the constraint workload (a request with
//!   [`CONSTRAINT_TOOLS`] typed tools) and the parsers whose constraint is built for it.
//! - [`chunks`]: cuts a text into the small deltas a server would push.
//! - [`stream`], [`consume`]: drive a parser over the deltas, reading every delta it returns.
//!
//! ```
//! let output = benchmarks::QWEN3_HERMES.output(2_000);
//! assert!(output.contains("</think>"));
//! let pieces = benchmarks::chunks(&output, 4);
//! assert_eq!(pieces.concat(), output);
//! ```
// `deny`, not `forbid`: the `counting` module opts in (a `GlobalAlloc` impl); nothing else may.
#![deny(unsafe_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use parser_auto::{Delta, Deltas, Error, ParseOptions, Parser, ParserEntry};

mod constraints;
pub mod counting;
mod formats;
pub mod hostile_outputs;
pub mod hostile_templates;

pub use constraints::{
    CONSTRAINT_CASES, CONSTRAINT_TOOLS, ConstraintBuilder, ConstraintCase, ConstraintForm,
    ConstraintSource, distinct_tools, realistic_tools,
};
pub use formats::{
    AUTO_QWEN3_CODER, AUTO_QWEN3_HERMES, CONTENT_TAIL, DEEPSEEK_V31, ExpectedCall, FORMATS, Format,
    GLM, GPT_OSS, KIMI_K2, LONG_ARGUMENT_PATH, LongArgument, MODEL, ParserFactory, QWEN3_CODER,
    QWEN3_HERMES, REASONING_TAIL, Sampled, TEMPLATES_DIR, all_formats, deepseek_v31_long_argument,
    deepseek_v31_output, gemma4_long_argument, gemma4_output, glm_long_argument, glm_output,
    gpt_oss_long_argument, gpt_oss_output, kimi_k2_long_argument, kimi_k2_output,
    qwen3_coder_long_argument, qwen3_coder_output, qwen3_hermes_long_argument, qwen3_hermes_output,
    registered_formats, sampled_formats,
};

/// Cuts `text` into pieces of `n` characters (the last one may be shorter), never inside a code point.
/// `n = 0` is taken as 1.
///
/// ```
/// assert_eq!(benchmarks::chunks("北京 ok", 2), ["北京", " o", "k"]);
/// ```
pub fn chunks(text: &str, n: usize) -> Vec<&str> {
    let n = n.max(1);
    let mut pieces = Vec::with_capacity(text.len() / n + 1);
    let mut start = 0;
    for (count, (at, _)) in text.char_indices().enumerate() {
        if count > 0 && count.is_multiple_of(n) {
            pieces.push(&text[start..at]);
            start = at;
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// Piece sizes for hostile streams, cycled: tiny and large, none a multiple of a marker's length, so
/// partial markers straddle pieces everywhere.
pub const HOSTILE_PIECE_SIZES: [usize; 8] = [4093, 1, 17, 8191, 3, 257, 2, 1021];

/// A long text made of one pattern repeated, handed out in pieces without ever holding the whole text:
/// every piece is a window into one buffer of the pattern repeated. For streams of 10–100 MB.
///
/// ```
/// let mut pieces = benchmarks::RepeatedPieces::new("<｜tool▁", 100, &[3, 5]);
/// let mut text = String::new();
/// while let Some(piece) = pieces.next_piece() {
///     text.push_str(piece);
/// }
/// assert!(text.len() >= 100 && text.starts_with("<｜tool▁<｜tool▁"));
/// ```
pub struct RepeatedPieces {
    window: String,
    period: usize,
    at: usize,
    sent: usize,
    total: usize,
    sizes: &'static [usize],
    piece: usize,
}

impl RepeatedPieces {
    /// `pattern` repeated for `total` bytes (rounded up to a character boundary), cut in pieces of
    /// `sizes` bytes, cycled (each rounded up to a character boundary).
    pub fn new(pattern: &str, total: usize, sizes: &'static [usize]) -> Self {
        let largest = sizes.iter().max().copied().unwrap_or(1).max(1);
        let mut window = String::new();
        while window.len() < pattern.len() + largest + 4 {
            window.push_str(pattern);
        }
        RepeatedPieces {
            window,
            period: pattern.len().max(1),
            at: 0,
            sent: 0,
            total,
            sizes,
            piece: 0,
        }
    }

    /// Bytes handed out so far.
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// The next piece, or `None` once `total` bytes were handed out.
    pub fn next_piece(&mut self) -> Option<&str> {
        if self.sent >= self.total || self.window.is_empty() {
            return None;
        }
        let size = self
            .sizes
            .get(self.piece % self.sizes.len().max(1))
            .copied()
            .unwrap_or(1);
        self.piece += 1;
        let start = self.at;
        let mut end = start + size.clamp(1, self.total - self.sent);
        while !self.window.is_char_boundary(end) {
            end += 1;
        }
        self.sent += end - start;
        self.at = end % self.period;
        Some(&self.window[start..end])
    }
}

/// The registry entry for [`MODEL`] (DeepSeek V3.1; an error until the DeepSeek parsers are registered).
pub fn entry() -> Result<&'static ParserEntry, Error> {
    parser_auto::entry_for_model(MODEL)
}

/// Request options with the given prompt tail (and nothing else, as a server would pass them).
pub fn options(prompt_tail: &str) -> ParseOptions {
    ParseOptions::new().with_prompt_tail(prompt_tail)
}

/// A benchmark table row's verdict against its target (`bench-table` and the peers comparison).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The target is met.
    Pass,
    /// The target is missed.
    Miss,
    /// No target: the row is for information.
    Info,
}

impl Status {
    /// `Pass` when `ok`, else `Miss`.
    pub fn check(ok: bool) -> Self {
        if ok { Status::Pass } else { Status::Miss }
    }

    /// The table cell: `PASS`, `**MISS**` (bold in markdown) or `info`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Miss => "**MISS**",
            Status::Info => "info",
        }
    }
}

/// Feeds every piece to `parser` (through [`Parser::push_view`], the fast entry point), then finishes
/// it, reading every delta it produces (so that producing and viewing the deltas is part of what is
/// measured). Returns the number of pushes, `finish` not included.
pub fn stream(parser: &mut Parser, pieces: &[&str]) -> usize {
    let mut seen = 0;
    for piece in pieces {
        seen += consume_events(parser.push_view(piece));
    }
    seen += consume(parser.finish());
    black_box(seen);
    pieces.len()
}

/// Reads every event of `deltas`; returns the number of bytes they carry (a value to keep alive).
pub fn consume(deltas: &Deltas) -> usize {
    consume_events(deltas.iter())
}

/// [`consume`] for any events: a [`DeltasView`](parser_auto::DeltasView), `Deltas::iter()`.
#[inline]
pub fn consume_events<'a>(deltas: impl IntoIterator<Item = Delta<'a>>) -> usize {
    deltas
        .into_iter()
        .map(|delta| match delta {
            Delta::Reasoning(text) | Delta::Content(text) => text.len(),
            Delta::ToolCallStart { id, name, .. } => id.len() + name.len(),
            Delta::ToolCallArguments { fragment, .. } => fragment.len(),
            Delta::ToolCallEnd { .. } => 1,
        })
        .sum()
}

/// The result of one [`Harness`] measurement: time per iteration of each run, in nanoseconds.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Nanoseconds per iteration of each run, sorted ascending.
    pub runs_ns: Vec<f64>,
    /// Iterations in each run.
    pub iterations: u64,
}

impl Measurement {
    /// The median time per iteration, in nanoseconds.
    pub fn median_ns(&self) -> f64 {
        self.runs_ns
            .get(self.runs_ns.len() / 2)
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// The fastest and slowest run, in nanoseconds per iteration.
    pub fn range_ns(&self) -> (f64, f64) {
        let first = self.runs_ns.first().copied().unwrap_or(f64::NAN);
        let last = self.runs_ns.last().copied().unwrap_or(f64::NAN);
        (first, last)
    }
}

/// Times closures with [`Instant`]: adaptive iteration counts, several runs, median.
///
/// Each measurement first calibrates (doubling the iteration count until a batch takes a tenth of
/// [`min_run`](Self::min_run); this also warms caches and lazy statics), then does [`runs`](Self::runs)
/// runs of enough iterations to last at least `min_run` each, and reports every run's time per iteration.
///
/// Only the routine is timed. Inputs are built by a setup closure before each timed sub-batch, and outputs
/// are dropped after it, so neither construction nor deallocation is counted unless the routine does it.
/// Sub-batches last about a millisecond, which keeps the memory held by inputs and outputs small and the
/// clock overhead negligible.
///
/// ```
/// let harness = benchmarks::Harness { min_run: std::time::Duration::from_millis(2), runs: 3 };
/// let m = harness.measure(|| (0..100u64).sum::<u64>());
/// assert_eq!(m.runs_ns.len(), 3);
/// assert!(m.median_ns() > 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct Harness {
    /// Minimum timed duration of each run.
    pub min_run: Duration,
    /// Number of runs; the median is reported.
    pub runs: usize,
}

impl Default for Harness {
    /// 5 runs of at least 200 ms each.
    fn default() -> Self {
        Harness {
            min_run: Duration::from_millis(200),
            runs: 5,
        }
    }
}

/// The longest sub-batch, in iterations.
const MAX_SUB_BATCH: u64 = 10_000;
/// The intended duration of a sub-batch.
const SUB_BATCH_NS: f64 = 1e6;

impl Harness {
    /// Measures `routine`, everything it does included.
    pub fn measure<O>(&self, mut routine: impl FnMut() -> O) -> Measurement {
        self.measure_with_setup(|| (), |()| routine())
    }

    /// Measures `routine` on inputs built by `setup`; `setup` and dropping the outputs are not timed.
    pub fn measure_with_setup<I, O>(
        &self,
        mut setup: impl FnMut() -> I,
        mut routine: impl FnMut(I) -> O,
    ) -> Measurement {
        // Calibration.
        let calibration = self.min_run.as_secs_f64() * 1e9 / 10.0;
        let mut iterations = 1u64;
        let mut estimate_ns = None;
        let per_iteration_ns = loop {
            let elapsed = self.timed(&mut setup, &mut routine, iterations, estimate_ns);
            let per_iteration_ns = (elapsed.as_secs_f64() * 1e9 / iterations as f64).max(0.1);
            estimate_ns = Some(per_iteration_ns);
            if elapsed.as_secs_f64() * 1e9 >= calibration {
                break per_iteration_ns;
            }
            iterations = iterations.saturating_mul(2);
        };
        // Runs: 10% margin so that a run rarely ends up under `min_run`.
        let iterations =
            ((self.min_run.as_secs_f64() * 1e9 * 1.1 / per_iteration_ns).ceil() as u64).max(1);
        let mut runs_ns: Vec<f64> = (0..self.runs.max(1))
            .map(|_| {
                let elapsed =
                    self.timed(&mut setup, &mut routine, iterations, Some(per_iteration_ns));
                elapsed.as_secs_f64() * 1e9 / iterations as f64
            })
            .collect();
        runs_ns.sort_by(f64::total_cmp);
        Measurement {
            runs_ns,
            iterations,
        }
    }

    /// Runs `iterations` iterations in sub-batches and returns the time spent in `routine`.
    fn timed<I, O>(
        &self,
        setup: &mut impl FnMut() -> I,
        routine: &mut impl FnMut(I) -> O,
        iterations: u64,
        estimate_ns: Option<f64>,
    ) -> Duration {
        let sub_batch = match estimate_ns {
            Some(ns) => ((SUB_BATCH_NS / ns) as u64).clamp(1, MAX_SUB_BATCH),
            // First calibration batch: one iteration.
            None => 1,
        };
        let mut total = Duration::ZERO;
        let mut left = iterations;
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        while left > 0 {
            let n = left.min(sub_batch);
            left -= n;
            inputs.extend((0..n).map(|_| setup()));
            outputs.reserve(n as usize);
            let start = Instant::now();
            for input in inputs.drain(..) {
                outputs.push(black_box(routine(black_box(input))));
            }
            total += start.elapsed();
            outputs.clear();
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces concatenate back to the text and never split a code point.
    #[test]
    fn chunks_cut_on_char_boundaries() {
        let text = deepseek_v31_output(2_000);
        let pieces = chunks(&text, 4);
        assert_eq!(pieces.concat(), text);
        assert!(
            pieces[..pieces.len() - 1]
                .iter()
                .all(|p| p.chars().count() == 4)
        );
        assert!(chunks("", 4).is_empty());
        assert_eq!(chunks("abc", 0), ["a", "b", "c"]);
    }
}
