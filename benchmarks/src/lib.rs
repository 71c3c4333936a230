//! Benchmark workloads and a small measurement harness for the llm-parse parsers.
//!
//! Two consumers share this crate:
//! - `benches/parsers.rs`, the divan benchmarks (`cargo bench -p benchmarks`, or `cargo xtask bench --divan`);
//! - `src/bin/bench-table.rs`, which measures the targets of the performance requirements with
//!   [`Harness`] and prints a markdown table with PASS/MISS (`cargo xtask bench`).
//!
//! Workloads are generated, not stored: they are deterministic (a fixed-seed xorshift, no `rand`), so every
//! run and every machine sees the same bytes.
//!
//! - [`deepseek_v31_output`]: a typical DeepSeek V3.1 answer: long reasoning, `</think>`, some content, three
//!   tool calls. Parse it with the prompt tail [`REASONING_TAIL`] (the output starts in reasoning).
//! - [`deepseek_v31_long_argument`]: one `write_file` call whose string argument is long. Parse it with the
//!   prompt tail [`CONTENT_TAIL`] (thinking off, the output starts in content).
//! - [`chunks`]: cuts a text into the small deltas a server would push.
//!
//! ```
//! let output = benchmarks::deepseek_v31_output(2_000);
//! assert!(output.contains("</think>"));
//! let pieces = benchmarks::chunks(&output, 4);
//! assert_eq!(pieces.concat(), output);
//! ```
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use parser_auto::{Delta, Deltas, Error, ParseOptions, Parser, ParserEntry};

/// The model every workload is parsed as.
pub const MODEL: &str = "deepseek-ai/DeepSeek-V3.1";

/// Prompt tail of a request with thinking on: the output starts in reasoning.
pub const REASONING_TAIL: &str = "<｜Assistant｜><think>";

/// Prompt tail of a request with thinking off: the output starts in content.
pub const CONTENT_TAIL: &str = "<｜Assistant｜></think>";

const THINK_END: &str = "</think>";
const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";

/// Reasoning prose: plain sentences, some non-ASCII text, and `<` characters that are not markers.
const REASONING_SENTENCES: &[&str] = &[
    "The user wants to know how the weather in Paris compares with the weather in 北京 this week.",
    "First I should check which tools are available and which arguments they take.",
    "If a < b and b < c, then a < c, so the order of the results is preserved.",
    "The café on the corner is a good example: its name has an é that must survive intact.",
    "Let me reconsider the edge cases before answering, because the last attempt missed one.",
    "The forecast service returns temperatures in celsius, so I may need to convert them.",
    "A quick sanity check: 3 < 5 and 10 > 7, so the comparison above holds.",
    "Cities to compare: Paris, 北京, São Paulo and Zürich.",
    "I will call the search tool first and then summarise what it returns.",
    "There is no need to repeat the question; the answer should be short and precise.",
    "When i < n the loop continues, otherwise it stops and returns the total.",
    "The résumé mentions three projects, and only one of them is relevant here.",
];

/// Answer prose, after `</think>`.
const CONTENT_SENTENCES: &[&str] = &[
    "Here is what I found for the two cities.",
    "I will look up the current weather and a few prices for you.",
    "Let me check the forecast and the notes file first.",
    "Both cities are expected to be mild this week, with rain in 北京 on Thursday.",
];

/// Lines of the file written by the long-argument call (raw text, JSON-escaped when written out).
const FILE_LINES: &[&str] = &[
    "fn main() {\n",
    "    let name = \"world\";\n",
    "    println!(\"hello, {name}\");\n",
    "}\n",
    "He said \"the café in 北京 opens at 9\" and left.\n",
    "if a < b { return \"less\"; }\n",
    "\tA tab-indented line, a backslash \\ and a \"quoted\" word.\n",
    "Plain prose makes up the rest of the file, one sentence after another.\n",
];

/// The three calls of [`deepseek_v31_output`]: name and JSON arguments.
const CALLS: &[(&str, &str)] = &[
    ("get_weather", r#"{"city": "北京", "unit": "celsius"}"#),
    ("search", r#"{"query": "café prices in Paris", "limit": 5}"#),
    ("read_file", r#"{"path": "notes/a < b.txt", "line": 12}"#),
];

/// A tiny xorshift64 generator: deterministic, dependency-free, good enough to vary prose.
#[derive(Clone, Debug)]
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Appends sentences picked from `sentences` to `out`, separated by a space or (one time in six) a blank
/// line, until at least `target` bytes were added. Adds nothing when `target` is 0.
fn prose(rng: &mut XorShift, sentences: &[&str], target: usize, out: &mut String) {
    let start = out.len();
    while out.len() - start < target {
        if out.len() > start {
            out.push_str(if rng.below(6) == 0 { "\n\n" } else { " " });
        }
        out.push_str(sentences[rng.below(sentences.len())]);
    }
}

/// Writes `text` as the inside of a JSON string: `"`, `\`, newline and tab escaped.
fn json_escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
}

/// The tool-call block of [`deepseek_v31_output`]: three calls with small JSON arguments.
fn calls_block() -> String {
    let mut block = String::from(CALLS_BEGIN);
    for (name, arguments) in CALLS {
        block.push_str(CALL_BEGIN);
        block.push_str(name);
        block.push_str(SEP);
        block.push_str(arguments);
        block.push_str(CALL_END);
    }
    block.push_str(CALLS_END);
    block
}

/// A DeepSeek V3.1 output of about `total_bytes` bytes, for a request with thinking on (prompt tail
/// [`REASONING_TAIL`]).
///
/// Layout: reasoning prose (95% of `total_bytes`: English sentences with `é`, `北京` and `<` characters
/// that are not markers, such as `a < b`), `</think>`, a little content, then a tool-call block with three
/// calls (`get_weather`, `search`, `read_file`) whose arguments are small JSON objects:
///
/// ```text
/// …reasoning…</think>Here is what I found…<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "北京", "unit": "celsius"}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
/// ```
///
/// The length is a little over `total_bytes` (whole sentences; at least one content sentence and the call
/// block, about 300 bytes, even for tiny sizes). The same `total_bytes` always gives the same text.
///
/// ```
/// let output = benchmarks::deepseek_v31_output(100_000);
/// assert!((100_000..101_000).contains(&output.len()));
/// assert_eq!(output.matches("<｜tool▁call▁begin｜>").count(), 3);
/// ```
pub fn deepseek_v31_output(total_bytes: usize) -> String {
    let mut rng = XorShift::new(0x0005_eed0_0031);
    let calls = calls_block();
    let reasoning_target = total_bytes * 95 / 100;
    let content_target = total_bytes
        .saturating_sub(reasoning_target + THINK_END.len() + calls.len())
        .max(1);
    let mut out = String::with_capacity(total_bytes + calls.len() + 256);
    prose(&mut rng, REASONING_SENTENCES, reasoning_target, &mut out);
    out.push_str(THINK_END);
    prose(&mut rng, CONTENT_SENTENCES, content_target, &mut out);
    out.push_str(&calls);
    out
}

/// A DeepSeek V3.1 output made of one `write_file` call whose `content` argument is a JSON string of about
/// `arg_bytes` bytes (as written, escapes included), for a request with thinking off (prompt tail
/// [`CONTENT_TAIL`]).
///
/// ```text
/// <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{"path": "a.txt", "content": "fn main() {\n    let name = \"world\";\n…"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
/// ```
///
/// The string holds code and prose lines with escaped quotes (`\"`), newlines (`\n`), tabs, backslashes,
/// `<` and non-ASCII text: the worst case for a parser that must find where the JSON ends.
///
/// ```
/// let output = benchmarks::deepseek_v31_long_argument(20_000);
/// assert!((20_000..20_300).contains(&output.len()));
/// assert!(output.contains(r#"\"world\""#));
/// ```
pub fn deepseek_v31_long_argument(arg_bytes: usize) -> String {
    let mut rng = XorShift::new(0x0a4c_0031);
    let mut out = String::with_capacity(arg_bytes + 256);
    out.push_str(CALLS_BEGIN);
    out.push_str(CALL_BEGIN);
    out.push_str("write_file");
    out.push_str(SEP);
    out.push_str(r#"{"path": "a.txt", "content": ""#);
    let start = out.len();
    while out.len() - start < arg_bytes {
        json_escape_into(FILE_LINES[rng.below(FILE_LINES.len())], &mut out);
    }
    out.push_str(r#""}"#);
    out.push_str(CALL_END);
    out.push_str(CALLS_END);
    out
}

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

/// The registry entry for [`MODEL`] (an error until the DeepSeek parsers are registered).
pub fn entry() -> Result<&'static ParserEntry, Error> {
    parser_auto::entry_for_model(MODEL)
}

/// Request options with the given prompt tail (and nothing else, as a server would pass them).
pub fn options(prompt_tail: &str) -> ParseOptions {
    ParseOptions::new().with_prompt_tail(prompt_tail)
}

/// Feeds every piece to `parser`, then finishes it, reading every delta it produces (so that producing and
/// viewing the deltas is part of what is measured). Returns the number of pushes, `finish` not included.
pub fn stream(parser: &mut Parser, pieces: &[&str]) -> usize {
    let mut seen = 0;
    for piece in pieces {
        seen += consume(parser.push(piece));
    }
    seen += consume(parser.finish());
    black_box(seen);
    pieces.len()
}

/// Reads every event of `deltas`; returns the number of bytes they carry (a value to keep alive).
pub fn consume(deltas: &Deltas) -> usize {
    deltas
        .iter()
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

    #[test]
    fn workloads_are_deterministic_and_sized() {
        for size in [2_000, 20_000, 200_000] {
            let output = deepseek_v31_output(size);
            assert_eq!(output, deepseek_v31_output(size));
            assert!(
                output.len() >= size && output.len() < size + 600,
                "{}",
                output.len()
            );
            let end = output.find(THINK_END).unwrap();
            assert!(end >= size * 95 / 100);
            assert_eq!(output.matches(THINK_END).count(), 1);
            assert!(!output.contains("<think>"));
            assert!(output.ends_with(CALLS_END));

            let long = deepseek_v31_long_argument(size);
            assert_eq!(long, deepseek_v31_long_argument(size));
            assert!(long.len() >= size && long.len() < size + 300);
            assert!(long.contains("\\n") && long.contains("\\\""));
        }
    }

    #[test]
    fn long_argument_is_valid_json() {
        let long = deepseek_v31_long_argument(2_000);
        let start = long.find(SEP).unwrap() + SEP.len();
        let end = long.find(CALL_END).unwrap();
        let args = &long[start..end];
        // A hand-rolled check (no serde here): the arguments end with `"}` and every quote inside the
        // string is escaped.
        let inner = args
            .strip_prefix(r#"{"path": "a.txt", "content": ""#)
            .unwrap();
        let inner = inner.strip_suffix(r#""}"#).unwrap();
        let mut escaped = false;
        for c in inner.chars() {
            assert!(escaped || c != '"', "unescaped quote");
            assert!(c != '\n');
            escaped = !escaped && c == '\\';
        }
        assert!(!escaped);
    }

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
