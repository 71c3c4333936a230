//! Builds one parser's constraint over and over, for a profiler (`valgrind --tool=callgrind`, `perf`).
//!
//! ```sh
//! cargo build --release -p benchmarks --example constraint
//! valgrind --tool=callgrind target/release/examples/constraint qwen3-coder required 20
//! ```
//!
//! Arguments: a parser of [`benchmarks::CONSTRAINT_CASES`] (its label: `qwen3`, `deepseek-v3.2`, …, or
//! `generic` for the first template case), `auto` or `required`, how many times to build it
//! (default 20), and which form each build renders: `lark`, `gbnf`, `structural-tag`, `all` (the
//! default) or `none` (the constraint alone; a `Constraint` renders a form on first access). With `CONSTRAINT_DUMP=DIR` it writes the Lark, GBNF and structural tag it built to
//! `DIR/PARSER-CHOICE.{lark,gbnf,json}`. The request has [`benchmarks::CONSTRAINT_TOOLS`] tools
//! (with `CONSTRAINT_TOOLS=distinct`, [`benchmarks::distinct_tools`]: no parameter shared). It prints the sizes of what it
//! built and the time per build (wall clock, and the thread's CPU time where Linux tells it).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use benchmarks::{
    CONSTRAINT_CASES, CONSTRAINT_TOOLS, ConstraintForm, distinct_tools, realistic_tools,
};
use parser_auto::constraint::{ConstraintRequest, ToolChoice};

/// The CPU time this thread has run, in nanoseconds (Linux's `/proc/thread-self/schedstat`).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("qwen3", String::as_str);
    let choice = match args.get(1).map_or("required", String::as_str) {
        "auto" => ToolChoice::Auto,
        "required" => ToolChoice::Required,
        other => {
            eprintln!("constraint: `auto` or `required`, not {other}");
            return ExitCode::from(2);
        }
    };
    let times: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let forms: Vec<ConstraintForm> = match args.get(3).map_or("all", String::as_str) {
        "all" => ConstraintForm::ALL.to_vec(),
        "none" => Vec::new(),
        name => match ConstraintForm::ALL.into_iter().find(|f| f.label() == name) {
            Some(form) => vec![form],
            None => {
                eprintln!(
                    "constraint: a form is lark, gbnf, structural-tag, all or none, not {name}"
                );
                return ExitCode::from(2);
            }
        },
    };
    let Some(case) = CONSTRAINT_CASES
        .iter()
        .find(|case| case.label() == name || case.label().starts_with(&format!("{name} ")))
    else {
        eprintln!(
            "constraint: unknown parser {name}; one of {:?}",
            CONSTRAINT_CASES
                .iter()
                .map(|c| c.label())
                .collect::<Vec<_>>()
        );
        return ExitCode::from(2);
    };
    let builder = match case.builder() {
        Ok(builder) => builder,
        Err(why) => {
            eprintln!("constraint: {why}");
            return ExitCode::FAILURE;
        }
    };
    // `CONSTRAINT_TOOLS=distinct`: no parameter declared alike by two tools (the worst case).
    let tools = if std::env::var("CONSTRAINT_TOOLS").is_ok_and(|v| v == "distinct") {
        distinct_tools(CONSTRAINT_TOOLS)
    } else {
        realistic_tools(CONSTRAINT_TOOLS)
    };
    let tools = parser_auto::Tools::from_json(&tools).expect("valid");
    let options = case.options(Arc::new(tools));
    let request = ConstraintRequest {
        tool_choice: choice,
        ..ConstraintRequest::default()
    };
    let constraint = match builder.build(&options, &request) {
        Ok(constraint) => constraint,
        Err(e) => {
            eprintln!("constraint: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Ok(dir) = std::env::var("CONSTRAINT_DUMP") {
        // Writes what was built, to read or to diff before and after a change.
        let dir = std::path::Path::new(&dir);
        let write = |ext: &str, text: &str| {
            let _ = std::fs::write(
                dir.join(format!(
                    "{name}-{}.{ext}",
                    args.get(1).map_or("required", String::as_str)
                )),
                text,
            );
        };
        write("lark", constraint.lark());
        write("gbnf", constraint.gbnf());
        write("json", &format!("{:#}", constraint.structural_tag()));
    }
    println!(
        "lark {} bytes, gbnf {} bytes, structural tag {} bytes",
        constraint.lark().len(),
        constraint.gbnf().len(),
        constraint.structural_tag().to_string().len()
    );
    let started = Instant::now();
    let cpu_started = cpu_ns();
    for _ in 0..times {
        let built = builder.build(&options, &request).ok();
        for form in &forms {
            std::hint::black_box(built.as_ref().map(|c| form.render(c)));
        }
        std::hint::black_box(built);
    }
    let per_build = |ns: f64| ns / 1e3 / f64::from(times.max(1));
    print!(
        "{:.1} µs per build",
        per_build(started.elapsed().as_secs_f64() * 1e9)
    );
    match (cpu_started, cpu_ns()) {
        // On a loaded machine the wall clock counts the time other processes had the CPU.
        (Some(before), Some(after)) => {
            println!(", {:.1} µs of CPU time", per_build((after - before) as f64))
        }
        _ => println!(),
    }
    ExitCode::SUCCESS
}
