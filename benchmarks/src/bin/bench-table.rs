//! Measures every output format against the performance targets and prints markdown tables with
//! PASS/MISS: one section per format ([`benchmarks::all_formats`]: the hand-written formats, then one per
//! other registered entry, made from its own sample), then an overview and the count of PASS and
//! MISS over all sections.
//!
//! Run it as `cargo xtask bench` (which is `cargo run --release -p benchmarks --bin bench-table`). A debug
//! build prints a warning: its numbers mean nothing. `--quick` does 3 runs of 20 ms instead of 5 of 200 ms,
//! to check that everything works; its numbers are not for reporting. `--only constraint` measures the
//! constrained-decoding section alone (`cargo xtask bench -- --only constraint`), `--only hostile` the
//! hostile one-shot outputs (a call block repeated and never closed: the work per byte must not grow),
//! `--formats KEY,KEY` the sections of those formats alone (`profile --list` lists the keys).
//!
//! DeepSeek V3.1, the reference, gets every row (three sizes, construction counted and not, registry
//! lookup, whole-stream allocations); the other formats get the rows that carry a target. A format whose
//! model does not resolve yet (its family is still being written) gets "not registered yet" rows.
//!
//! Every parser comes from a [`ParserFactory`]: the family parser of a registry entry, or, for the formats
//! with a chat template ("… via template analysis"), the generic parser built from the template's cached
//! analysis. Both kinds go through the same checks and rows; the construction row times the factory's
//! per-request call (`entry.parser` or `prepared.parser` for a template resolved with `parser_auto::prepare`).
//!
//! Before measuring a format, its workloads are parsed and checked (three valid calls with the expected
//! names and arguments, streaming in 4-char deltas equal to one-shot, the long prose where expected, the
//! long argument intact), so that the numbers measure the intended parse.
//!
//! Timings use [`benchmarks::Harness`] (median of 5 runs, each of at least 200 ms, adaptive iteration
//! count). Allocations are counted by this binary's global allocator ([`benchmarks::counting`]), a wrapper around
//! [`std::alloc::System`] that counts calls to `alloc`, `alloc_zeroed` and `realloc`.
//!
//! Exit status: 0 when the tables were printed, 1 when a workload did not parse as expected (the tables are
//! still printed, but they measured a wrong parse), 2 when no format has a parser.

use std::any::Any;
use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::time::Duration;

use benchmarks::counting::{self, Counting};
use benchmarks::hostile_outputs::{UNCLOSED_BLOCKS, UNCLOSED_LARGE, UNCLOSED_SMALL};
use benchmarks::{
    CONSTRAINT_CASES, CONSTRAINT_TOOLS, ConstraintBuilder, ConstraintForm, DEEPSEEK_V31, Format,
    Harness, LONG_ARGUMENT_PATH, Measurement, ParserFactory, Status, all_formats, chunks,
    consume_events, realistic_tools, sampled_formats, stream,
};
use parser_auto::{ParsedMessage, Parser};
use serde_json::Value;

#[global_allocator]
static ALLOC: Counting = Counting;

/// Streaming sizes of the reference format, in bytes.
const ALL_SIZES: [usize; 3] = [2_000, 20_000, 200_000];
/// Streaming sizes of the other formats, in bytes.
const SIZES: [usize; 2] = [20_000, 200_000];
/// The size that carries the long-argument target, and the size of the checks' workloads.
const TARGET_SIZE: usize = 20_000;
/// The size of the allocation windows and of the linearity ratio's numerator.
const LARGE_SIZE: usize = 200_000;
/// The one-shot size, in bytes.
const ONE_SHOT: usize = 100_000;
/// Characters per streamed delta.
const DELTA: usize = 4;

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

/// A row whose measurement needs a parser that is not registered yet.
fn unregistered(what: impl Into<String>, target: &str) -> Row {
    row(
        what,
        "not registered yet".to_owned(),
        "—".to_owned(),
        target,
        Status::Info,
    )
}

/// The headline numbers of a format, for the overview table.
#[derive(Default)]
struct Summary {
    one_shot: Option<String>,
    /// The one-shot median (construction counted), for the whole-stream ratio.
    one_shot_ns: Option<f64>,
    /// Nanoseconds per push at each streaming size.
    per_push: Vec<(usize, String)>,
    /// Nanoseconds per push in the content phase of a format that thinks.
    content_per_push: Option<String>,
    /// Whole 100 KB stream time / one-shot time.
    stream_ratio: Option<String>,
    long_argument: Option<String>,
    construction: Option<String>,
    allocations: Vec<String>,
}

/// One format's section: what it resolved to, what its checks found, its rows.
struct Section {
    format: &'static Format,
    parsers: String,
    problems: Vec<String>,
    rows: Vec<Row>,
    summary: Summary,
    registered: bool,
}

impl Section {
    fn count(&self, status: Status) -> usize {
        self.rows.iter().filter(|r| r.status == status).count()
    }
}

fn main() -> ExitCode {
    // Allocator thresholds fixed first: otherwise a row's speed depends on the rows before it.
    counting::steady_allocator();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|arg| arg == "--quick");
    // `--only constraint`: the constrained-decoding section alone.
    let only_constraint = args
        .windows(2)
        .any(|pair| pair[0] == "--only" && pair[1] == "constraint");
    let harness = if quick {
        Harness {
            min_run: Duration::from_millis(20),
            runs: 3,
        }
    } else {
        Harness::default()
    };

    let only_hostile = args
        .windows(2)
        .any(|pair| pair[0] == "--only" && pair[1] == "hostile");
    print_header(&harness, quick);
    if only_hostile {
        return if hostile_section(&harness) {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    if only_constraint {
        return if constraint_section(&harness) {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    // `--formats KEY,KEY`: those formats' sections alone (to measure a few again on a quiet machine).
    let only_formats: Option<Vec<&str>> = args
        .windows(2)
        .find(|pair| pair[0] == "--formats")
        .map(|pair| pair[1].split(',').collect());
    if let Some(keys) = &only_formats {
        // As for the whole table: a workload that did not parse as intended fails the run.
        let mut problems = false;
        for &format in all_formats()
            .iter()
            .filter(|format| keys.contains(&format.key))
        {
            let section = measure_format(format, &harness);
            problems |= !section.problems.is_empty();
            print_section(&section);
        }
        return if problems {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let sections: Vec<Section> = all_formats()
        .iter()
        .map(|&format| {
            let section =
                std::panic::catch_unwind(AssertUnwindSafe(|| measure_format(format, &harness)))
                    .unwrap_or_else(|panic| panicked(format, panic.as_ref()));
            print_section(&section);
            section
        })
        .collect();
    // A registered entry that no format measures (its sample could not be inflated): say so.
    let unsampled: Vec<String> = sampled_formats()
        .iter()
        .filter_map(|f| f.as_ref().err())
        .map(|(name, why)| format!("`{name}`: {why}"))
        .collect();
    for why in &unsampled {
        println!("> **Warning**: no bench workloads for {why}\n");
    }
    let hostile_problems = hostile_section(&harness);
    let constraint_problems = constraint_section(&harness);
    print_overview(&sections);
    print_notes();

    if sections.iter().all(|s| !s.registered) {
        eprintln!("bench-table: no format has a parser");
        ExitCode::from(2)
    } else if sections.iter().any(|s| !s.problems.is_empty())
        || !unsampled.is_empty()
        || constraint_problems
        || hostile_problems
    {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn print_header(harness: &Harness, quick: bool) {
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

/// Resolves, checks and measures one format.
fn measure_format(format: &'static Format, harness: &Harness) -> Section {
    let full = format.key == DEEPSEEK_V31.key;
    let output = format.output_parsers();
    let long = format.long_argument_parsers();
    let parsers = describe_parsers(format, &output, &long);
    let (output, long) = (output.ok(), long.ok());
    let mut section = Section {
        format,
        parsers,
        problems: Vec::new(),
        rows: Vec::new(),
        summary: Summary::default(),
        registered: output.is_some() || long.is_some(),
    };
    if let Some(parsers) = &output {
        check_output(format, parsers, &mut section.problems);
    }
    if let Some(parsers) = &long {
        check_long_argument(format, parsers, &mut section.problems);
    }
    one_shot_rows(format, output.as_ref(), harness, full, &mut section);
    streaming_rows(format, output.as_ref(), harness, full, &mut section);
    long_argument_rows(format, long.as_ref(), harness, full, &mut section);
    construction_rows(format, output.as_ref(), harness, full, &mut section);
    allocation_rows(format, output.as_ref(), long.as_ref(), full, &mut section);
    section
}

/// The section of a format whose parser panicked (a family still being written): no rows, one problem.
fn panicked(format: &'static Format, panic: &(dyn Any + Send)) -> Section {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_owned());
    Section {
        format,
        parsers: describe_parsers(
            format,
            &format.output_parsers(),
            &format.long_argument_parsers(),
        ),
        problems: vec![format!(
            "the parser panicked while being checked or measured: {message}"
        )],
        rows: Vec::new(),
        summary: Summary::default(),
        registered: true,
    }
}

/// What parses each workload (or why nothing does), with its prompt tail.
fn describe_parsers(
    format: &Format,
    output: &Result<ParserFactory, String>,
    long: &Result<ParserFactory, String>,
) -> String {
    let describe = |parsers: &Result<ParserFactory, String>, tail: Option<&str>| {
        let tail = tail.map_or_else(
            || "no prompt tail".to_owned(),
            |tail| format!("prompt tail `{}`", tail.escape_debug()),
        );
        match parsers {
            Ok(factory) => format!("{}, {tail}", factory.description),
            Err(why) => why.clone(),
        }
    };
    format!(
        "- Output workload: {}.\n- Long-argument workload: {}.",
        describe(output, format.output_tail),
        describe(long, format.long_argument_tail)
    )
}

/// Checks that the output workload parses as intended, so that the numbers measure the right thing.
fn check_output(format: &Format, parsers: &ParserFactory, problems: &mut Vec<String>) {
    let text = format.output(ONE_SHOT);
    let message = parsers.make().parse(&text);
    let reasoning = message.reasoning_trimmed().map_or(0, str::len);
    let content = message.content_trimmed().map_or(0, str::len);
    let long_enough = |len: usize| len >= ONE_SHOT * 9 / 10;
    // A sampled format whose sample thinks and then only calls has no content to check.
    let wants_content = format.sampled.is_none_or(|sampled| sampled.has_content());
    if format.reasoning {
        if !long_enough(reasoning) || (wants_content && content == 0) {
            problems.push(format!(
                "the {ONE_SHOT}-byte output should be ~95% reasoning, then content; got {reasoning} bytes \
                 of reasoning and {content} of content"
            ));
        }
    } else if reasoning != 0 || !long_enough(content) {
        problems.push(format!(
            "the {ONE_SHOT}-byte output should be all content (the model does not think); got \
             {reasoning} bytes of reasoning and {content} of content"
        ));
    }
    let expected = format.expected_calls();
    let calls_ok = message.tool_calls.len() == expected.len()
        && message
            .tool_calls
            .iter()
            .zip(&expected)
            .all(|(call, want)| {
                call.valid
                    && call.name == want.name
                    && if format.json_arguments {
                        call.arguments == want.arguments
                    } else {
                        same_json(&call.arguments, &want.arguments)
                    }
            });
    if !calls_ok {
        problems.push(format!(
            "the output should have 3 valid calls {:?} with the arguments as written; got {:?}",
            expected.iter().map(|c| c.name).collect::<Vec<_>>(),
            message
                .tool_calls
                .iter()
                .map(|c| (c.name.as_str(), c.valid, c.arguments.as_str()))
                .collect::<Vec<_>>()
        ));
    }
    let streamed = streamed_message(&mut parsers.make(), &chunks(&text, DELTA));
    if !same_ignoring_ids(&streamed, &message) {
        problems.push(format!(
            "streaming the output in {DELTA}-char deltas gives another message than one-shot"
        ));
    }
    if let Some(text) = format.content_output(ONE_SHOT) {
        let content_message = parsers.make().parse(&text);
        let content = content_message.content_trimmed().map_or(0, str::len);
        if !long_enough(content)
            || !same_ignoring_ids(
                &ParsedMessage {
                    reasoning: None,
                    content: None,
                    ..content_message.clone()
                },
                &ParsedMessage {
                    reasoning: None,
                    content: None,
                    ..message
                },
            )
        {
            problems.push(format!(
                "the {ONE_SHOT}-byte content-phase output should be ~95% content and the same calls; got \
                 {content} bytes of content and {} call(s)",
                content_message.tool_calls.len()
            ));
        }
        let streamed = streamed_message(&mut parsers.make(), &chunks(&text, DELTA));
        if !same_ignoring_ids(&streamed, &content_message) {
            problems.push(format!(
                "streaming the content-phase output in {DELTA}-char deltas gives another message than \
                 one-shot"
            ));
        }
    }
}

/// Checks that the long-argument workload is one valid `write_file` call with the text intact.
fn check_long_argument(format: &Format, parsers: &ParserFactory, problems: &mut Vec<String>) {
    let long = format.long_argument(TARGET_SIZE);
    let message = parsers.make().parse(&long.output);
    if let Some(sampled) = format.sampled {
        // The sample's own reasoning, content and other calls stay around the long argument.
        if let Err(why) = sampled.check_long_argument(&message, &long.content) {
            problems.push(format!("the long-argument output: {why}"));
        }
        let streamed = streamed_message(&mut parsers.make(), &chunks(&long.output, DELTA));
        if !same_ignoring_ids(&streamed, &message) {
            problems.push(format!(
                "streaming the long-argument output in {DELTA}-char deltas gives another message than \
                 one-shot"
            ));
        }
        return;
    }
    let intact = |arguments: &str| {
        serde_json::from_str::<Value>(arguments).is_ok_and(|value| {
            value.get("path").and_then(Value::as_str) == Some(LONG_ARGUMENT_PATH)
                && value.get("content").and_then(Value::as_str) == Some(long.content.as_str())
        })
    };
    match message.tool_calls.as_slice() {
        [call]
            if call.name == "write_file"
                && call.valid
                && long
                    .arguments
                    .as_deref()
                    .is_none_or(|raw| raw == call.arguments)
                && intact(&call.arguments) => {}
        calls => problems.push(format!(
            "the long-argument output should be one valid `write_file` call whose `content` is the file \
             text{}; got {} call(s) {:?}",
            if long.arguments.is_some() {
                " and whose arguments are the JSON as written"
            } else {
                ""
            },
            calls.len(),
            calls
                .iter()
                .map(|c| (&c.name, c.valid, c.arguments.len()))
                .collect::<Vec<_>>()
        )),
    }
    if message.reasoning_trimmed().is_some() || message.content_trimmed().is_some() {
        problems.push(format!(
            "the long-argument output should have no reasoning and no content; got {} and {} bytes",
            message.reasoning_trimmed().map_or(0, str::len),
            message.content_trimmed().map_or(0, str::len)
        ));
    }
    let streamed = streamed_message(&mut parsers.make(), &chunks(&long.output, DELTA));
    if !same_ignoring_ids(&streamed, &message) {
        problems.push(format!(
            "streaming the long-argument output in {DELTA}-char deltas gives another message than one-shot"
        ));
    }
}

/// Whether two JSON texts are the same object, a number equal to a string that spells it (XML
/// parameters with no tool schema may be typed or not).
fn same_json(actual: &str, expected: &str) -> bool {
    fn loosely(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(key, x)| b.get(key).is_some_and(|y| loosely(x, y)))
            }
            (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
                n.to_string() == *s
            }
            (a, b) => a == b,
        }
    }
    match (
        serde_json::from_str::<Value>(actual),
        serde_json::from_str::<Value>(expected),
    ) {
        (Ok(a), Ok(b)) => loosely(&a, &b),
        _ => false,
    }
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

/// bytes per nanosecond = GB/s (10^9 bytes per second).
fn gbps(bytes: usize, ns: f64) -> f64 {
    bytes as f64 / ns
}

fn one_shot_rows(
    format: &Format,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    full: bool,
    section: &mut Section,
) {
    let text = format.output(ONE_SHOT);
    let labels: &[&str] = if full {
        &["construction counted", "construction not counted"]
    } else {
        &["construction counted"]
    };
    for (i, label) in labels.iter().enumerate() {
        let what = format!("One-shot `parse`, {} output, {label}", kb(text.len()));
        let Some(parsers) = parsers else {
            section.rows.push(unregistered(what, "≥ 10 GB/s"));
            continue;
        };
        let m = if i == 0 {
            harness.measure(|| parsers.make().parse(&text))
        } else {
            harness.measure_with_setup(|| parsers.make(), |parser| parser.parse(&text))
        };
        let (fast, slow) = m.range_ns();
        let throughput = gbps(text.len(), m.median_ns());
        let measured = format!("{throughput:.2} GB/s ({})", time(m.median_ns()));
        if i == 0 {
            section.summary.one_shot = Some(format!("{throughput:.2} GB/s"));
            section.summary.one_shot_ns = Some(m.median_ns());
        }
        section.rows.push(row(
            what,
            measured,
            format!(
                "{:.2}–{:.2} GB/s",
                gbps(text.len(), slow),
                gbps(text.len(), fast)
            ),
            "≥ 10 GB/s",
            Status::check(throughput >= 10.0),
        ));
    }
}

/// Times whole streams (fresh parser per stream, built and dropped outside the timing).
fn time_stream(harness: &Harness, parsers: &ParserFactory, pieces: &[&str]) -> Measurement {
    harness.measure_with_setup(
        || parsers.make(),
        |mut parser| {
            stream(&mut parser, pieces);
            parser
        },
    )
}

fn streaming_rows(
    format: &Format,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    full: bool,
    section: &mut Section,
) {
    let sizes: &[usize] = if full { &ALL_SIZES } else { &SIZES };
    let phase = if format.reasoning {
        "reasoning"
    } else {
        "content"
    };
    for &size in sizes {
        let text = format.output(size);
        let pieces = chunks(&text, DELTA);
        let what = format!(
            "Streaming, {DELTA}-char deltas, {} output, {phase} phase ({} pushes): time per push",
            kb(text.len()),
            thousands(pieces.len() as u64)
        );
        if let Some(ns) = per_push_row(what, parsers, harness, &pieces, section) {
            section.summary.per_push.push((size, ns));
        }
    }
    content_phase_row(format, parsers, harness, section);
    whole_stream_row(format, parsers, harness, section);
    if full {
        stream_floor_row(format, harness, section);
    }
}

/// What the ratio of [`whole_stream_row`] allows, next to what no parser can spend less than: the
/// same pieces, each handed to a function through a pointer that reads its length and first byte
/// (one indirect call per delta, no parsing, no events), against the one-shot parse. At one-shot
/// speed, the target's 10× leaves a push this many times the floor.
fn stream_floor_row(format: &Format, harness: &Harness, section: &mut Section) {
    let text = format.output(ONE_SHOT);
    let pieces = chunks(&text, DELTA);
    let Some(one_shot) = section.summary.one_shot_ns else {
        return;
    };
    fn touch(piece: &str) -> usize {
        piece.len() + usize::from(piece.as_bytes().first().copied().unwrap_or(0))
    }
    let push: fn(&str) -> usize = std::hint::black_box(touch);
    let m = harness.measure(|| {
        pieces
            .iter()
            .map(|piece| push(std::hint::black_box(piece)))
            .sum::<usize>()
    });
    let (fast, slow) = m.range_ns();
    let per_push = m.median_ns() / pieces.len() as f64;
    let allowed = one_shot * 10.0 / pieces.len() as f64;
    section.rows.push(row(
        format!(
            "Floor of a push API: the same {} pieces, each through one indirect call that reads it \
             (no parser) / one-shot `parse`; the 10× target leaves {allowed:.2} ns per push",
            thousands(pieces.len() as u64)
        ),
        format!(
            "{:.1}× ({} / {}, {per_push:.2} ns per push)",
            m.median_ns() / one_shot,
            time(m.median_ns()),
            time(one_shot)
        ),
        format!("{}–{}", time(fast), time(slow)),
        "—",
        Status::Info,
    ));
}

/// Per push in the content phase of a format that thinks (its other streaming rows are reasoning).
fn content_phase_row(
    format: &Format,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    section: &mut Section,
) {
    let Some(text) = format.content_output(LARGE_SIZE) else {
        return;
    };
    let pieces = chunks(&text, DELTA);
    let what = format!(
        "Streaming, {DELTA}-char deltas, {} output, content phase ({} pushes): time per push",
        kb(text.len()),
        thousands(pieces.len() as u64)
    );
    section.summary.content_per_push = per_push_row(what, parsers, harness, &pieces, section);
}

/// Times streams of `pieces` and adds the time-per-push row (target 20 ns); the median, for the
/// overview.
fn per_push_row(
    what: String,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    pieces: &[&str],
    section: &mut Section,
) -> Option<String> {
    let Some(parsers) = parsers else {
        section.rows.push(unregistered(what, "≤ 20 ns"));
        return None;
    };
    let m = time_stream(harness, parsers, pieces);
    let per = |ns: f64| ns / pieces.len() as f64;
    let (fast, slow) = m.range_ns();
    section.rows.push(row(
        what,
        format!("{:.1} ns", per(m.median_ns())),
        format!("{:.1}–{:.1} ns", per(fast), per(slow)),
        "≤ 20 ns",
        Status::check(per(m.median_ns()) <= 20.0),
    ));
    Some(format!("{:.1}", per(m.median_ns())))
}

/// The whole one-shot output streamed in 4-char deltas, against its one-shot time (construction
/// counted in both).
fn whole_stream_row(
    format: &Format,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    section: &mut Section,
) {
    let text = format.output(ONE_SHOT);
    let pieces = chunks(&text, DELTA);
    let what = format!(
        "Whole {} output streamed in {DELTA}-char deltas ({} pushes, construction counted) / one-shot \
         `parse` (construction counted)",
        kb(text.len()),
        thousands(pieces.len() as u64)
    );
    let (Some(parsers), Some(one_shot)) = (parsers, section.summary.one_shot_ns) else {
        section.rows.push(unregistered(what, "≤ 10×"));
        return;
    };
    let m = harness.measure(|| {
        let mut parser = parsers.make();
        stream(&mut parser, &pieces);
        parser
    });
    let (fast, slow) = m.range_ns();
    let ratio = m.median_ns() / one_shot;
    section.summary.stream_ratio = Some(format!("{ratio:.1}×"));
    section.rows.push(row(
        what,
        format!("{ratio:.1}× ({} / {})", time(m.median_ns()), time(one_shot)),
        format!("{}–{}", time(fast), time(slow)),
        "≤ 10×",
        Status::check(ratio <= 10.0),
    ));
}

fn long_argument_rows(
    format: &Format,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    full: bool,
    section: &mut Section,
) {
    let sizes: &[usize] = if full { &ALL_SIZES } else { &SIZES };
    let mut medians = Vec::new();
    for &size in sizes {
        let text = format.long_argument(size).output;
        let pieces = chunks(&text, DELTA);
        let what = format!(
            "Long string argument, {} ({} pushes of {DELTA} chars): whole stream",
            kb(size),
            thousands(pieces.len() as u64)
        );
        let has_target = size == TARGET_SIZE;
        let target_label = if has_target { "≤ 0.1 ms" } else { "—" };
        let Some(parsers) = parsers else {
            section.rows.push(unregistered(what, target_label));
            continue;
        };
        let m = time_stream(harness, parsers, &pieces);
        let (fast, slow) = m.range_ns();
        let status = if has_target {
            Status::check(m.median_ns() <= 100_000.0)
        } else {
            Status::Info
        };
        section.rows.push(row(
            what,
            format!(
                "{} ({:.1} ns/push)",
                time(m.median_ns()),
                m.median_ns() / pieces.len() as f64
            ),
            format!("{}–{}", time(fast), time(slow)),
            target_label,
            status,
        ));
        medians.push((size, m.median_ns()));
    }
    let what = format!(
        "Long string argument: time({}) / time({})",
        kb(LARGE_SIZE),
        kb(TARGET_SIZE)
    );
    let target_label = "≈ 10 (linear; PASS ≤ 13)";
    let median = |size| medians.iter().find(|(s, _)| *s == size).map(|(_, ns)| *ns);
    match (median(LARGE_SIZE), median(TARGET_SIZE)) {
        (Some(large), Some(small)) => {
            let ratio = large / small;
            section.summary.long_argument = Some(format!("{} ({ratio:.1}×)", time(small)));
            section.rows.push(row(
                what,
                format!("{ratio:.1}"),
                "—".to_owned(),
                target_label,
                Status::check(ratio <= 13.0),
            ));
        }
        _ => section.rows.push(unregistered(what, target_label)),
    }
}

fn construction_rows(
    format: &Format,
    parsers: Option<&ParserFactory>,
    harness: &Harness,
    full: bool,
    section: &mut Section,
) {
    let Some(parsers) = parsers else {
        section
            .rows
            .push(unregistered("Parser construction", "≤ 1 µs"));
        return;
    };
    let what = format!("Parser construction: {}", parsers.construction);
    let per_request = harness.measure(|| parsers.make());
    let (fast, slow) = per_request.range_ns();
    section.summary.construction = Some(time(per_request.median_ns()));
    section.rows.push(row(
        what,
        time(per_request.median_ns()),
        format!("{}–{}", time(fast), time(slow)),
        "≤ 1 µs",
        Status::check(per_request.median_ns() <= 1_000.0),
    ));
    if full {
        let for_model = harness.measure(|| parser_auto::for_model(format.model, &parsers.options));
        let (fast, slow) = for_model.range_ns();
        section.rows.push(row(
            "Parser construction: `parser_auto::for_model` (registry lookup included)",
            time(for_model.median_ns()),
            format!("{}–{}", time(fast), time(slow)),
            "—",
            Status::Info,
        ));
    }
}

/// Allocator calls during `push` of `pieces[from..to]` on a fresh parser that was first fed
/// `pieces[..from]` uncounted. A full uncounted stream on another parser comes first, to initialise lazy
/// statics and thread-locals.
fn allocations_in_window(parsers: &ParserFactory, pieces: &[&str], from: usize, to: usize) -> u64 {
    stream(&mut parsers.make(), pieces);
    let mut parser = parsers.make();
    for piece in &pieces[..from] {
        consume_events(parser.push_view(piece));
    }
    let before = counting::allocations();
    for piece in &pieces[from..to] {
        consume_events(parser.push_view(piece));
    }
    let counted = counting::allocations() - before;
    stream(&mut parser, &pieces[to..]);
    counted
}

/// Allocator calls for a whole stream: construction, every push, `finish` (after a warm-up stream).
fn allocations_whole_stream(parsers: &ParserFactory, pieces: &[&str]) -> u64 {
    stream(&mut parsers.make(), pieces);
    let before = counting::allocations();
    let mut parser = parsers.make();
    stream(&mut parser, pieces);
    let counted = counting::allocations() - before;
    drop(parser);
    counted
}

fn allocation_rows(
    format: &Format,
    output: Option<&ParserFactory>,
    long: Option<&ParserFactory>,
    full: bool,
    section: &mut Section,
) {
    let phase = if format.reasoning {
        "reasoning"
    } else {
        "content"
    };
    let text = format.output(LARGE_SIZE);
    let pieces = chunks(&text, DELTA);
    // The window: from 25% of the pushes to 90%, and never past the push that holds the end of the prose.
    let prose_end = format.prose_end_in(&text);
    let prose_pushes = pieces
        .iter()
        .scan(0, |at, piece| {
            *at += piece.len();
            Some(*at)
        })
        .take_while(|&end| end < prose_end)
        .count();
    let (from, to) = (pieces.len() / 4, (pieces.len() * 9 / 10).min(prose_pushes));
    let what = format!(
        "Allocator calls per push, steady state: pushes {}–{} of {} ({} output, {phase}), after the \
         first 25% on the same parser",
        thousands(from as u64),
        thousands(to as u64),
        thousands(pieces.len() as u64),
        kb(text.len())
    );
    match output {
        Some(parsers) => {
            window_row(what, parsers, &pieces, (from, to), section);
            if full {
                let whole = allocations_whole_stream(parsers, &pieces);
                section.rows.push(row(
                    format!(
                        "Allocator calls, whole stream: construction + {} pushes + `finish` ({} output, \
                         3 calls)",
                        thousands(pieces.len() as u64),
                        kb(text.len())
                    ),
                    format!("{whole} ({} per push)", per_push(whole, pieces.len() as u64)),
                    "—".to_owned(),
                    "—",
                    Status::Info,
                ));
            }
        }
        None => section.rows.push(unregistered(what, "0")),
    }
    if let Some(text) = format.content_output(LARGE_SIZE) {
        content_allocation_row(&text, output, section);
    }

    let text = format.long_argument(LARGE_SIZE).output;
    let pieces = chunks(&text, DELTA);
    let (from, to) = (pieces.len() / 4, pieces.len() * 9 / 10);
    let what = format!(
        "Allocator calls per push inside a call: pushes {}–{} of {} ({} string argument), after the \
         first 25% on the same parser",
        thousands(from as u64),
        thousands(to as u64),
        thousands(pieces.len() as u64),
        kb(LARGE_SIZE)
    );
    match long {
        Some(parsers) => {
            window_row(what, parsers, &pieces, (from, to), section);
        }
        None => section.rows.push(unregistered(what, "0")),
    }
}

/// Allocator calls per push in the content phase of a format that thinks: from 25% of the pushes to 90%
/// (the content prose runs to ~97%).
fn content_allocation_row(text: &str, output: Option<&ParserFactory>, section: &mut Section) {
    let pieces = chunks(text, DELTA);
    let (from, to) = (pieces.len() / 4, pieces.len() * 9 / 10);
    let what = format!(
        "Allocator calls per push, steady state: pushes {}–{} of {} ({} output, content phase), after \
         the first 25% on the same parser",
        thousands(from as u64),
        thousands(to as u64),
        thousands(pieces.len() as u64),
        kb(text.len())
    );
    let Some(parsers) = output else {
        section.rows.push(unregistered(what, "0"));
        return;
    };
    window_row(what, parsers, &pieces, (from, to), section);
}

/// The row of the allocator calls during pushes `from..to` (target 0).
fn window_row(
    what: String,
    parsers: &ParserFactory,
    pieces: &[&str],
    (from, to): (usize, usize),
    section: &mut Section,
) {
    let counted = allocations_in_window(parsers, pieces, from, to);
    let pushes = (to - from) as u64;
    section.summary.allocations.push(per_push(counted, pushes));
    section.rows.push(row(
        what,
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
}

fn print_section(section: &Section) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## {} (`{}`)\n",
        section.format.name, section.format.key
    );
    let _ = writeln!(out, "{}\n", section.parsers);
    for problem in &section.problems {
        let _ = writeln!(out, "> **Warning**: {problem}\n");
    }
    out.push_str("| Measurement | Measured | Range of runs | Target | Status |\n");
    out.push_str("|---|---|---|---|---|\n");
    for r in &section.rows {
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
    let _ = writeln!(
        out,
        "\n{}: {} PASS, {} MISS.\n",
        section.format.name,
        section.count(Status::Pass),
        section.count(Status::Miss)
    );
    print!("{out}");
}

fn print_overview(sections: &[Section]) {
    let mut out = String::new();
    out.push_str("## Overview\n\n");
    out.push_str(
        "| Format | One-shot 100 KB | Per push, 4-char deltas (20 KB / 200 KB) | Per push, content phase \
         (200 KB) | 100 KB stream / one-shot | Long argument 20 KB (200 KB / 20 KB) | Construction | \
         Allocator calls per push (prose; [content;] call) | PASS | MISS |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    let or_dash = |value: &Option<String>| value.clone().unwrap_or_else(|| "—".to_owned());
    let joined = |values: &[String], separator: &str, unit: &str| {
        if values.is_empty() {
            "—".to_owned()
        } else {
            format!("{}{unit}", values.join(separator))
        }
    };
    for s in sections {
        if !s.registered {
            let _ = writeln!(
                out,
                "| {} | not registered yet | | | | | | | | |",
                s.format.name
            );
            continue;
        }
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s.format.name,
            if s.problems.is_empty() {
                ""
            } else {
                " (**wrong parse**)"
            },
            or_dash(&s.summary.one_shot),
            joined(
                &s.summary
                    .per_push
                    .iter()
                    .filter(|(size, _)| SIZES.contains(size))
                    .map(|(_, ns)| ns.clone())
                    .collect::<Vec<_>>(),
                " / ",
                " ns"
            ),
            s.summary
                .content_per_push
                .as_ref()
                .map_or_else(|| "—".to_owned(), |ns| format!("{ns} ns")),
            or_dash(&s.summary.stream_ratio),
            or_dash(&s.summary.long_argument),
            or_dash(&s.summary.construction),
            joined(&s.summary.allocations, "; ", ""),
            s.count(Status::Pass),
            s.count(Status::Miss)
        );
    }
    let passed: usize = sections.iter().map(|s| s.count(Status::Pass)).sum();
    let missed: usize = sections.iter().map(|s| s.count(Status::Miss)).sum();
    let unregistered = sections.iter().filter(|s| !s.registered).count();
    let wrong = sections.iter().filter(|s| !s.problems.is_empty()).count();
    let _ = write!(out, "\n{passed} PASS, {missed} MISS");
    if unregistered > 0 {
        let _ = write!(out, "; {unregistered} format(s) not registered yet");
    }
    if wrong > 0 {
        let _ = write!(
            out,
            "; {wrong} format(s) whose workloads did not parse as expected (see their warnings)"
        );
    }
    out.push_str(".\n");
    println!("{out}");
}

fn print_notes() {
    println!("Notes:");
    println!(
        "- Workloads come from `benchmarks::all_formats()` (`Format::output`: ~95% reasoning, or content for a \
         model that does not think, then content and 3 calls; `Format::long_argument`: one `write_file` \
         call with a long string argument, JSON-escaped or, for XML parameters, raw). Every format uses \
         the same prose, calls and file text. Deterministic: same bytes on every run."
    );
    println!(
        "- \"(sample)\" formats are the registered entries no hand-written format measures: the entry's own \
         `sample` (its framing, content and calls) with the same prose inserted in front of its reasoning \
         (or content), and, for the long argument, one string argument of its first call replaced by the \
         file text written as the format writes strings. Their checks compare with the sample's own parse."
    );
    println!(
        "- Content phase: a format that thinks also gets a 200 KB output whose prose is content (inserted in \
         front of the content of a small output), for the per-push and allocation targets of that phase."
    );
    println!(
        "- The streaming rows of a format whose model does not think (Qwen3-Coder) measure the content \
         phase; the others mostly measure reasoning. DeepSeek V3.1 is the reference and gets every row; \
         the other formats get the rows that carry a target."
    );
    println!(
        "- \"… via template analysis\" formats parse the same workloads as the family format they name, \
         with the generic parser built from the model's chat template (`templates/`), the route \
         `parser_auto::resolve` takes for a model without a family parser. Their construction row times \
         `prepared.parser` on the template resolved once (`parser_auto::prepare`: analysis and marker tables cached), as a server does per request; loading and analysing \
         the template (once per template) is not measured."
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

/// Times one-shot parses of hostile outputs ([`UNCLOSED_BLOCKS`]: a call block opened again and again,
/// never closed) at two sizes and asks for a linear ratio; prints its table. True when a parser is
/// missing.
fn hostile_section(harness: &Harness) -> bool {
    let mut out = String::from("## Hostile outputs, one-shot\n\n");
    let _ = writeln!(
        out,
        "A call block cut off before it closes, repeated {UNCLOSED_SMALL} and {UNCLOSED_LARGE} times \
         (`benchmarks::hostile_outputs`; parser construction counted): the work per byte must not grow. \
         The bound is loose because wall time on a loaded machine varies (the instruction counts of \
         `benchmarks/examples/profile.rs unclosed:PARSER oneshot N` under callgrind are the reliable \
         measure); a re-scan of the output per block shows as 16.\n"
    );
    out.push_str("| Measurement | Measured | Range of runs | Target | Status |\n");
    out.push_str("|---|---|---|---|---|\n");
    let mut problems = false;
    for case in UNCLOSED_BLOCKS {
        let block = case.block;
        let mut medians = Vec::new();
        for repetitions in [UNCLOSED_SMALL, UNCLOSED_LARGE] {
            let text = case.output(repetitions);
            if let Err(e) = case.parser() {
                problems = true;
                let _ = writeln!(out, "> **Warning**: `{}`: {e}\n", case.parser);
                break;
            }
            let m = harness.measure(|| {
                case.parser()
                    .map(|parser| parser.parse(&text).tool_calls.len())
            });
            let (fast, slow) = m.range_ns();
            let _ = writeln!(
                out,
                "| `{}`, `{block}` × {repetitions} ({}) | {} | {}–{} | — | info |",
                case.parser,
                kb(text.len()),
                time(m.median_ns()),
                time(fast),
                time(slow)
            );
            medians.push(m.median_ns());
        }
        if let [small, large] = medians[..] {
            let ratio = large / small;
            let ideal = UNCLOSED_LARGE as f64 / UNCLOSED_SMALL as f64;
            let _ = writeln!(
                out,
                "| `{}`: time(× {UNCLOSED_LARGE}) / time(× {UNCLOSED_SMALL}) | {ratio:.1} | — | ≈ {ideal:.0} (linear; PASS ≤ {:.0}, quadratic is {:.0}) | {} |",
                case.parser,
                ideal * 2.0,
                ideal * ideal,
                Status::check(ratio <= ideal * 2.0).label()
            );
        }
    }
    println!("{out}");
    problems
}

/// The parsers whose constraint building is measured, with a prompt tail each (where the output starts).
/// Times building the constraint of a request with [`CONSTRAINT_TOOLS`] tools and rendering one form
/// of it (each form a row, as a server hands one form to its engine; `auto` and `required`), per parser
/// of [`CONSTRAINT_CASES`]; prints its table. True when a constraint could not be built.
fn constraint_section(harness: &Harness) -> bool {
    use parser_auto::constraint::{ConstraintRequest, ToolChoice};

    let tools = std::sync::Arc::new(
        parser_auto::Tools::from_json(&realistic_tools(CONSTRAINT_TOOLS)).expect("valid tools"),
    );
    let mut out = String::from("## Constrained decoding\n\n");
    let _ = writeln!(
        out,
        "Building the `Constraint` (triggers, preserved tokens) of one request with {CONSTRAINT_TOOLS} \
         tools (3 to 7 typed properties each) and rendering the one form a server hands its engine \
         (`lark()`, `gbnf()` or `structural_tag_json()`: each is rendered on first access): \
         `ParserEntry::constraint`, or `GenericParserFactory::constraint` for a template's analysis.\n"
    );
    out.push_str("| Measurement | Measured | Range of runs | Target | Status |\n");
    out.push_str("|---|---|---|---|---|\n");
    let mut problems = false;
    let (mut passed, mut missed) = (0, 0);
    for case in CONSTRAINT_CASES {
        let name = case.label();
        let builder = match case.builder() {
            Ok(builder) => builder,
            Err(why) => {
                let _ = writeln!(out, "| `{name}` | {why} | — | ≤ 50 µs | info |");
                continue;
            }
        };
        let options = case.options(tools.clone());
        for choice in [ToolChoice::Auto, ToolChoice::Required] {
            let request = ConstraintRequest {
                tool_choice: choice.clone(),
                ..ConstraintRequest::default()
            };
            let label = if choice == ToolChoice::Auto {
                "auto"
            } else {
                "required"
            };
            // Check once that it builds, with every tool in it.
            match builder.build(&options, &request) {
                Ok(c)
                    if (0..CONSTRAINT_TOOLS)
                        .all(|i| c.lark().contains(&format!("tool_{i:02}_lookup"))) => {}
                other => {
                    problems = true;
                    let _ = writeln!(
                        out,
                        "> **Warning**: `{name}` {label}: no constraint with every tool: {:?}\n",
                        other.map(|_| "a tool is missing")
                    );
                    continue;
                }
            }
            for form in ConstraintForm::ALL {
                let measured = measure_constraint(harness, &builder, &options, &request, form);
                let (fast, slow) = measured.range_ns();
                let status = Status::check(measured.median_ns() <= 50_000.0);
                match status {
                    Status::Pass => passed += 1,
                    _ => missed += 1,
                }
                let _ = writeln!(
                    out,
                    "| `{name}`, tool_choice {label}, {CONSTRAINT_TOOLS} tools, {} | {} | {}–{} | ≤ 50 µs | {} |",
                    form.label(),
                    time(measured.median_ns()),
                    time(fast),
                    time(slow),
                    status.label()
                );
            }
        }
    }
    // The worst case, for information: the same request with no parameter declared alike by two
    // tools (nothing the grammars share between tools applies), for the formats that share most.
    let distinct = std::sync::Arc::new(
        parser_auto::Tools::from_json(&benchmarks::distinct_tools(CONSTRAINT_TOOLS))
            .expect("valid tools"),
    );
    let request = ConstraintRequest {
        tool_choice: ToolChoice::Required,
        ..ConstraintRequest::default()
    };
    for case in CONSTRAINT_CASES.iter().filter(|case| {
        ["qwen3-coder", "deepseek-v3.2", "glm-4.7", "lfm2"].contains(&case.label().as_str())
    }) {
        let Ok(builder) = case.builder() else {
            continue;
        };
        let options = case.options(distinct.clone());
        for form in ConstraintForm::ALL {
            let measured = measure_constraint(harness, &builder, &options, &request, form);
            let (fast, slow) = measured.range_ns();
            let _ = writeln!(
                out,
                "| `{}`, tool_choice required, {CONSTRAINT_TOOLS} tools sharing no parameter, {} | {} | {}–{} | — | info |",
                case.label(),
                form.label(),
                time(measured.median_ns()),
                time(fast),
                time(slow),
            );
        }
    }
    let _ = writeln!(
        out,
        "\nConstrained decoding: {passed} PASS, {missed} MISS.\n"
    );
    println!("{out}");
    problems
}

/// Times building a request's constraint and rendering one form of it.
fn measure_constraint(
    harness: &Harness,
    builder: &ConstraintBuilder,
    options: &parser_auto::ParseOptions,
    request: &parser_auto::constraint::ConstraintRequest,
    form: ConstraintForm,
) -> Measurement {
    harness.measure(|| {
        builder
            .build(options, request)
            .map(|constraint| form.render(&constraint))
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    use parser_auto::ParseOptions;

    fn deepseek(options: ParseOptions) -> ParserFactory {
        ParserFactory::for_model(DEEPSEEK_V31.model, options).expect("DeepSeek V3.1 is registered")
    }

    /// The reference workloads pass their checks.
    #[test]
    fn deepseek_workloads_check_clean() {
        let mut problems = Vec::new();
        check_output(
            &DEEPSEEK_V31,
            &deepseek(DEEPSEEK_V31.output_options()),
            &mut problems,
        );
        check_long_argument(
            &DEEPSEEK_V31,
            &deepseek(DEEPSEEK_V31.long_argument_options()),
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
    }

    /// Every format's workloads (hand-written and sampled, content phase included) parse as intended, so
    /// that no row of the table measures text its parser treats otherwise.
    #[test]
    fn every_format_checks_clean() {
        let mut problems = Vec::new();
        for format in all_formats() {
            let (output, long) = (format.output_parsers(), format.long_argument_parsers());
            let (Ok(output), Ok(long)) = (output, long) else {
                problems.push(format!("{format}: no parser"));
                continue;
            };
            let mut found = Vec::new();
            check_output(format, &output, &mut found);
            check_long_argument(format, &long, &mut found);
            problems.extend(found.into_iter().map(|p| format!("{format}: {p}")));
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// Wrong parses are reported: the output parsed with thinking off (its reasoning becomes content),
    /// and another format's text (no calls at all).
    #[test]
    fn wrong_parses_are_reported() {
        let mut problems = Vec::new();
        check_output(
            &DEEPSEEK_V31,
            &deepseek(DEEPSEEK_V31.long_argument_options()),
            &mut problems,
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("reasoning"), "{problems:?}");

        // The Qwen3-Coder workloads are not DeepSeek text: no calls at all.
        let mut problems = Vec::new();
        let parsers = deepseek(ParseOptions::new());
        check_output(&benchmarks::QWEN3_CODER, &parsers, &mut problems);
        check_long_argument(&benchmarks::QWEN3_CODER, &parsers, &mut problems);
        assert!(
            problems.iter().any(|p| p.contains("3 valid calls")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("one valid `write_file`")),
            "{problems:?}"
        );
    }

    /// XML parameters without a schema may come back as strings or typed.
    #[test]
    fn same_json_is_lenient_on_numbers_only() {
        assert!(same_json(r#"{"a":"5","b":"x"}"#, r#"{"a": "5", "b": "x"}"#));
        assert!(same_json(r#"{"a":5,"b":"x"}"#, r#"{"a": "5", "b": "x"}"#));
        assert!(!same_json(
            r#"{"a":"6","b":"x"}"#,
            r#"{"a": "5", "b": "x"}"#
        ));
        assert!(!same_json(r#"{"a":"5"}"#, r#"{"a": "5", "b": "x"}"#));
        assert!(!same_json(r#"{"a":"5""#, r#"{"a": "5"}"#));
    }

    /// Formatting helpers.
    #[test]
    fn formatting() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(time(1_500.0), "1.50 µs");
        assert_eq!(time(2_500_000.0), "2.500 ms");
        assert_eq!(per_push(0, 10), "0");
        assert_eq!(kb(100_400), "100 KB");
    }
}
