//! Measures the parser against the performance targets and prints a markdown table with PASS/MISS.
//!
//! Run it as `cargo xtask bench` (which is `cargo run --release -p benchmarks --bin bench-table`). A debug
//! build prints a warning: its numbers mean nothing. `--quick` does 3 runs of 20 ms instead of 5 of 200 ms,
//! to check that everything works; its numbers are not for reporting.
//!
//! Timings use [`benchmarks::Harness`] (median of 5 runs, each of at least 200 ms, adaptive iteration
//! count). Allocations are counted by this binary's global allocator, a wrapper around
//! [`std::alloc::System`] that counts calls to `alloc`, `alloc_zeroed` and `realloc`.
//!
//! Exit status: 0 when the table was printed, 1 when the workloads did not parse as expected (the table is
//! still printed, but it measured a wrong parse), 2 when there is no parser for the model.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use benchmarks::{
    CONTENT_TAIL, Harness, MODEL, Measurement, REASONING_TAIL, chunks, consume,
    deepseek_v31_long_argument, deepseek_v31_output, entry, options, stream,
};
use parser_auto::{ParsedMessage, Parser, ParserEntry};

/// The counting allocator: the only unsafe code of the crate.
#[allow(unsafe_code)]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Allocator calls so far (`alloc`, `alloc_zeroed`, `realloc`; not `dealloc`).
    pub static CALLS: AtomicU64 = AtomicU64::new(0);

    /// [`System`], counting allocation calls in [`CALLS`].
    pub struct Counting;

    // SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
    // guarantees are ours; the only addition is a relaxed atomic increment, which neither allocates nor
    // unwinds.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            CALLS.fetch_add(1, Ordering::Relaxed);
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::alloc`'s contract.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            CALLS.fetch_add(1, Ordering::Relaxed);
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            CALLS.fetch_add(1, Ordering::Relaxed);
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::realloc`'s contract.
            unsafe { System.realloc(ptr, layout, new_size) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::dealloc`'s contract.
            unsafe { System.dealloc(ptr, layout) }
        }
    }
}

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

fn allocations() -> u64 {
    counting::CALLS.load(Ordering::Relaxed)
}

/// Streaming sizes, in bytes.
const SIZES: [usize; 3] = [2_000, 20_000, 200_000];
/// The one-shot size, in bytes.
const ONE_SHOT: usize = 100_000;
/// Characters per streamed delta.
const DELTA: usize = 4;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Pass,
    Miss,
    Info,
}

impl Status {
    fn check(ok: bool) -> Self {
        if ok { Status::Pass } else { Status::Miss }
    }

    fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Miss => "**MISS**",
            Status::Info => "info",
        }
    }
}

struct Row {
    what: String,
    measured: String,
    range: String,
    target: String,
    status: Status,
}

fn row(
    what: impl Into<String>,
    measured: String,
    range: String,
    target: &str,
    status: Status,
) -> Row {
    Row {
        what: what.into(),
        measured,
        range,
        target: target.to_owned(),
        status,
    }
}

fn main() -> ExitCode {
    let quick = std::env::args().skip(1).any(|arg| arg == "--quick");
    let harness = if quick {
        Harness {
            min_run: Duration::from_millis(20),
            runs: 3,
        }
    } else {
        Harness::default()
    };
    let entry = match entry() {
        Ok(entry) => entry,
        Err(e) => {
            eprintln!("bench-table: no parser for {MODEL}: {e}");
            return ExitCode::from(2);
        }
    };

    print_header(entry, &harness, quick);
    let problems = check_workloads(entry);
    for problem in &problems {
        println!("> **Warning**: {problem}");
    }
    if !problems.is_empty() {
        println!();
    }

    let mut rows = Vec::new();
    one_shot_rows(entry, &harness, &mut rows);
    streaming_rows(entry, &harness, &mut rows);
    long_argument_rows(entry, &harness, &mut rows);
    construction_rows(entry, &harness, &mut rows);
    allocation_rows(entry, &mut rows);
    print_table(&rows);
    print_notes();

    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_header(entry: &ParserEntry, harness: &Harness, quick: bool) {
    let threads = std::thread::available_parallelism().map_or(0, usize::from);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    println!("# llm-parse benchmarks\n");
    println!(
        "- Machine: {cpu}, {threads} hardware threads (`std::thread::available_parallelism`), {}/{}.",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    if cfg!(debug_assertions) {
        println!(
            "- > **Warning**: this is a debug build; its numbers mean nothing. Run `cargo xtask bench`."
        );
    } else {
        println!("- Build: release (`cargo run --release -p benchmarks --bin bench-table`).");
    }
    println!(
        "- Parser: `{}` (family `{}`), resolved for `{MODEL}`.",
        entry.name, entry.family
    );
    println!(
        "- Timing: median of {} runs, each of at least {} ms of timed work (adaptive iteration count); \
         the range column is the fastest and slowest run. Parser construction and dropping are outside \
         the timing unless a row says otherwise.",
        harness.runs,
        harness.min_run.as_millis()
    );
    if quick {
        println!("- > **Quick mode**: short runs, numbers not for reporting.");
    }
    println!();
}

/// Checks that the workloads parse as intended, so that the numbers measure the right thing.
fn check_workloads(entry: &ParserEntry) -> Vec<String> {
    let mut problems = Vec::new();
    let output = deepseek_v31_output(ONE_SHOT);
    let make = || entry.parser(&options(REASONING_TAIL));
    let message = make().parse(&output);
    let names: Vec<&str> = message
        .tool_calls
        .iter()
        .map(|call| call.name.as_str())
        .collect();
    if message
        .reasoning
        .as_deref()
        .is_none_or(|r| r.len() < ONE_SHOT * 9 / 10)
    {
        problems.push(format!(
            "the {ONE_SHOT}-byte output should start with ~95% reasoning; got {} bytes of reasoning",
            message.reasoning.as_deref().map_or(0, str::len)
        ));
    }
    if message.content.is_none() {
        problems.push("the one-shot output should have content after `</think>`".to_owned());
    }
    if names != ["get_weather", "search", "read_file"]
        || message.tool_calls.iter().any(|c| !c.valid)
    {
        problems.push(format!(
            "the one-shot output should have 3 valid calls; got {names:?}"
        ));
    }
    let streamed = streamed_message(&mut make(), &chunks(&output, DELTA));
    if !same_ignoring_ids(&streamed, &message) {
        problems.push(
            "streaming the one-shot output in 4-char deltas gives another message".to_owned(),
        );
    }

    let long = deepseek_v31_long_argument(SIZES[1]);
    let message = entry.parser(&options(CONTENT_TAIL)).parse(&long);
    let arguments = long
        .split_once("<｜tool▁sep｜>")
        .and_then(|(_, rest)| rest.split_once("<｜tool▁call▁end｜>"))
        .map(|(arguments, _)| arguments);
    match message.tool_calls.as_slice() {
        [call] if call.name == "write_file" && call.valid && Some(call.arguments.as_str()) == arguments => {}
        calls => problems.push(format!(
            "the long-argument output should be one valid `write_file` call with the raw arguments; got {} \
             call(s) {:?}",
            calls.len(),
            calls.iter().map(|c| (&c.name, c.valid, c.arguments.len())).collect::<Vec<_>>()
        )),
    }
    problems
}

/// Call ids are generated per parser (no seed): compare everything else.
fn same_ignoring_ids(a: &ParsedMessage, b: &ParsedMessage) -> bool {
    a.reasoning == b.reasoning
        && a.content == b.content
        && a.tool_calls.len() == b.tool_calls.len()
        && a.tool_calls
            .iter()
            .zip(&b.tool_calls)
            .all(|(x, y)| x.name == y.name && x.arguments == y.arguments && x.valid == y.valid)
}

fn streamed_message(parser: &mut Parser, pieces: &[&str]) -> ParsedMessage {
    let mut out = parser_auto::Accumulator::new();
    for piece in pieces {
        out.extend(parser.push(piece));
    }
    out.extend(parser.finish());
    out.into_message()
}

fn one_shot_rows(entry: &ParserEntry, harness: &Harness, rows: &mut Vec<Row>) {
    let text = deepseek_v31_output(ONE_SHOT);
    let options = options(REASONING_TAIL);
    let bytes = text.len() as f64;
    // bytes per nanosecond = GB/s (10^9 bytes per second).
    let gbps = |ns: f64| bytes / ns;
    let counted = harness.measure(|| entry.parser(&options).parse(&text));
    let not_counted =
        harness.measure_with_setup(|| entry.parser(&options), |parser| parser.parse(&text));
    for (label, m) in [
        ("construction counted", counted),
        ("construction not counted", not_counted),
    ] {
        let (fast, slow) = m.range_ns();
        let throughput = gbps(m.median_ns());
        rows.push(row(
            format!("One-shot `parse`, {} KB output, {label}", text.len() / 1000),
            format!("{throughput:.2} GB/s ({})", time(m.median_ns())),
            format!("{:.2}–{:.2} GB/s", gbps(slow), gbps(fast)),
            "≥ 2 GB/s",
            Status::check(throughput >= 2.0),
        ));
    }
}

/// Times whole streams (fresh parser per stream, built and dropped outside the timing).
fn time_stream(harness: &Harness, make: &dyn Fn() -> Parser, pieces: &[&str]) -> Measurement {
    harness.measure_with_setup(make, |mut parser| {
        stream(&mut parser, pieces);
        parser
    })
}

fn streaming_rows(entry: &ParserEntry, harness: &Harness, rows: &mut Vec<Row>) {
    let options = options(REASONING_TAIL);
    let make = || entry.parser(&options);
    for size in SIZES {
        let text = deepseek_v31_output(size);
        let pieces = chunks(&text, DELTA);
        let m = time_stream(harness, &make, &pieces);
        let per = |ns: f64| ns / pieces.len() as f64;
        let (fast, slow) = m.range_ns();
        rows.push(row(
            format!(
                "Streaming, {}-char deltas, {} output ({} pushes): time per push",
                DELTA,
                kb(text.len()),
                thousands(pieces.len() as u64)
            ),
            format!("{:.1} ns", per(m.median_ns())),
            format!("{:.1}–{:.1} ns", per(fast), per(slow)),
            "≤ 50 ns",
            Status::check(per(m.median_ns()) <= 50.0),
        ));
    }
}

fn long_argument_rows(entry: &ParserEntry, harness: &Harness, rows: &mut Vec<Row>) {
    let options = options(CONTENT_TAIL);
    let make = || entry.parser(&options);
    let mut medians = Vec::new();
    for size in SIZES {
        let text = deepseek_v31_long_argument(size);
        let pieces = chunks(&text, DELTA);
        let m = time_stream(harness, &make, &pieces);
        let (fast, slow) = m.range_ns();
        let (target, status) = if size == 20_000 {
            ("≤ 0.25 ms", Status::check(m.median_ns() <= 250_000.0))
        } else {
            ("—", Status::Info)
        };
        rows.push(row(
            format!(
                "Long string argument, {} ({} pushes of {DELTA} chars): whole stream",
                kb(size),
                thousands(pieces.len() as u64)
            ),
            format!(
                "{} ({:.1} ns/push)",
                time(m.median_ns()),
                m.median_ns() / pieces.len() as f64
            ),
            format!("{}–{}", time(fast), time(slow)),
            target,
            status,
        ));
        medians.push(m.median_ns());
    }
    let ratio = medians[2] / medians[1];
    rows.push(row(
        "Long string argument: time(200 KB) / time(20 KB)",
        format!("{ratio:.1}"),
        "—".to_owned(),
        "≈ 10 (linear; PASS ≤ 13)",
        Status::check(ratio <= 13.0),
    ));
}

fn construction_rows(entry: &ParserEntry, harness: &Harness, rows: &mut Vec<Row>) {
    let options = options(REASONING_TAIL);
    let from_entry = harness.measure(|| entry.parser(&options));
    let (fast, slow) = from_entry.range_ns();
    rows.push(row(
        "Parser construction: `entry.parser(&options)` (model already resolved)",
        time(from_entry.median_ns()),
        format!("{}–{}", time(fast), time(slow)),
        "≤ 1 µs",
        Status::check(from_entry.median_ns() <= 1_000.0),
    ));
    let for_model = harness.measure(|| parser_auto::for_model(MODEL, &options));
    let (fast, slow) = for_model.range_ns();
    rows.push(row(
        "Parser construction: `parser_auto::for_model` (registry lookup included)",
        time(for_model.median_ns()),
        format!("{}–{}", time(fast), time(slow)),
        "—",
        Status::Info,
    ));
}

/// Allocator calls during `push` of `pieces[from..to]` on a fresh parser that was first fed
/// `pieces[..from]` uncounted. A full uncounted stream on another parser comes first, to initialise lazy
/// statics and thread-locals.
fn allocations_in_window(
    make: &dyn Fn() -> Parser,
    pieces: &[&str],
    from: usize,
    to: usize,
) -> u64 {
    stream(&mut make(), pieces);
    let mut parser = make();
    for piece in &pieces[..from] {
        consume(parser.push(piece));
    }
    let before = allocations();
    for piece in &pieces[from..to] {
        consume(parser.push(piece));
    }
    let counted = allocations() - before;
    stream(&mut parser, &pieces[to..]);
    counted
}

/// Allocator calls for a whole stream: construction, every push, `finish` (after a warm-up stream).
fn allocations_whole_stream(make: &dyn Fn() -> Parser, pieces: &[&str]) -> u64 {
    stream(&mut make(), pieces);
    let before = allocations();
    let mut parser = make();
    stream(&mut parser, pieces);
    let counted = allocations() - before;
    drop(parser);
    counted
}

fn allocation_rows(entry: &ParserEntry, rows: &mut Vec<Row>) {
    let size = SIZES[2];

    let reasoning_options = options(REASONING_TAIL);
    let make = || entry.parser(&reasoning_options);
    let text = deepseek_v31_output(size);
    let pieces = chunks(&text, DELTA);
    // The window: from 25% of the pushes to 90%, and never past the push that holds `</think>`.
    let think_end = text.find("</think>").unwrap_or(text.len());
    let reasoning_pushes = pieces
        .iter()
        .scan(0, |at, piece| {
            *at += piece.len();
            Some(*at)
        })
        .take_while(|&end| end < think_end)
        .count();
    let (from, to) = (
        pieces.len() / 4,
        (pieces.len() * 9 / 10).min(reasoning_pushes),
    );
    let counted = allocations_in_window(&make, &pieces, from, to);
    let pushes = (to - from) as u64;
    rows.push(row(
        format!(
            "Allocator calls per push, steady state: pushes {}–{} of {} ({} output, reasoning), \
             after the first 25% on the same parser",
            thousands(from as u64),
            thousands(to as u64),
            thousands(pieces.len() as u64),
            kb(text.len())
        ),
        format!(
            "{} ({} calls / {} pushes)",
            per_push(counted, pushes),
            counted,
            thousands(pushes)
        ),
        "—".to_owned(),
        "0",
        Status::check(counted == 0),
    ));
    let whole = allocations_whole_stream(&make, &pieces);
    rows.push(row(
        format!(
            "Allocator calls, whole stream: construction + {} pushes + `finish` ({} output, 3 calls)",
            thousands(pieces.len() as u64),
            kb(text.len())
        ),
        format!("{whole} ({} per push)", per_push(whole, pieces.len() as u64)),
        "—".to_owned(),
        "—",
        Status::Info,
    ));

    let content_options = options(CONTENT_TAIL);
    let make = || entry.parser(&content_options);
    let text = deepseek_v31_long_argument(size);
    let pieces = chunks(&text, DELTA);
    let (from, to) = (pieces.len() / 4, pieces.len() * 9 / 10);
    let counted = allocations_in_window(&make, &pieces, from, to);
    let pushes = (to - from) as u64;
    rows.push(row(
        format!(
            "Allocator calls per push inside a call: pushes {}–{} of {} ({} string argument), after the \
             first 25% on the same parser",
            thousands(from as u64),
            thousands(to as u64),
            thousands(pieces.len() as u64),
            kb(size)
        ),
        format!("{} ({} calls / {} pushes)", per_push(counted, pushes), counted, thousands(pushes)),
        "—".to_owned(),
        "0",
        Status::check(counted == 0),
    ));
}

fn print_table(rows: &[Row]) {
    let mut out = String::new();
    out.push_str("| Measurement | Measured | Range of runs | Target | Status |\n");
    out.push_str("|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.what,
            r.measured,
            r.range,
            r.target,
            r.status.label()
        );
    }
    println!("{out}");
    let missed = rows.iter().filter(|r| r.status == Status::Miss).count();
    let passed = rows.iter().filter(|r| r.status == Status::Pass).count();
    println!("{passed} PASS, {missed} MISS.\n");
}

fn print_notes() {
    println!("Notes:");
    println!(
        "- Outputs are DeepSeek V3.1 text from `benchmarks::deepseek_v31_output` (95% reasoning, `</think>`, \
         content, 3 calls; prompt tail `{REASONING_TAIL}`) and `benchmarks::deepseek_v31_long_argument` \
         (one `write_file` call; prompt tail `{CONTENT_TAIL}`). Deterministic: same bytes on every run."
    );
    println!(
        "- Per push = time of the whole stream (every `push` of {DELTA} chars, reading every delta it returns, \
         and `finish`) divided by the number of pushes."
    );
    println!(
        "- Allocator calls = calls to `alloc`, `alloc_zeroed` and `realloc` of the global allocator \
         (`dealloc` not counted), on this thread and any other. Every counted run follows a full \
         uncounted stream on another parser."
    );
    println!(
        "- The counting allocator stays installed while timing; it adds one relaxed atomic increment per \
         allocation."
    );
}

fn per_push(calls: u64, pushes: u64) -> String {
    if pushes == 0 {
        return "n/a".to_owned();
    }
    let per = calls as f64 / pushes as f64;
    if calls == 0 {
        "0".to_owned()
    } else {
        format!("{per:.4}")
    }
}

fn time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn kb(bytes: usize) -> String {
    format!("{} KB", (bytes as f64 / 1000.0).round())
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
