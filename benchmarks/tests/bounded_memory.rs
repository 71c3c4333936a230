//! Streaming state stays bounded on hostile input: reasoning, content and arguments are emitted, not
//! accumulated, and what a parser must hold to decide is capped by `Limits::call_buffer`.
//!
//! Each test streams 50–100 MB through a parser in pieces of varying size (1 byte to 8 KB, cut anywhere,
//! so partial markers straddle pieces), without ever holding the input: the pieces are windows into one
//! repeated pattern. A counting allocator tracks, per thread, the bytes live on the heap; after a warm-up
//! megabyte (buffers reach their working size) the peak may not rise by more than a few kilobytes, and
//! the parser may not allocate again at all in the long steady part. Nothing is timed: the test measures
//! sizes and counts. Time per byte is the benchmark's business (`cargo bench -p benchmarks --bench
//! hostile`: 10 MB against 100 MB).

use std::sync::Arc;

use benchmarks::{HOSTILE_PIECE_SIZES, RepeatedPieces};
use parser_auto::{Delta, Limits, ParseOptions, Parser, Stage, Tools};

/// Per-thread heap accounting: the only unsafe code of this test.
#[allow(unsafe_code)]
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
        static CALLS: Cell<u64> = const { Cell::new(0) };
    }

    fn grow(bytes: isize) {
        // `try_with`: the allocator may run while thread-locals are being torn down.
        let _ = LIVE.try_with(|live| {
            let now = live.get() + bytes;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
        if bytes > 0 {
            let _ = CALLS.try_with(|calls| calls.set(calls.get() + 1));
        }
    }

    /// Bytes live on this thread's heap now (allocated here, not freed).
    pub fn live() -> isize {
        LIVE.with(Cell::get)
    }

    /// The highest [`live`] since the last [`reset_peak`].
    pub fn peak() -> isize {
        PEAK.with(Cell::get)
    }

    /// Starts a new peak from the current live bytes.
    pub fn reset_peak() {
        PEAK.with(|peak| peak.set(live()));
    }

    /// Allocation calls on this thread so far.
    pub fn calls() -> u64 {
        CALLS.with(Cell::get)
    }

    /// [`System`], counting per thread.
    pub struct Counting;

    // SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
    // guarantees are ours; the bookkeeping touches only const-initialised thread-locals of plain `Cell`s,
    // which neither allocate nor unwind.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            grow(layout.size() as isize);
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::alloc`'s contract.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            grow(layout.size() as isize);
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            grow(new_size as isize - layout.size() as isize);
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::realloc`'s contract.
            unsafe { System.realloc(ptr, layout, new_size) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            grow(-(layout.size() as isize));
            // SAFETY: forwarded; the caller upholds `GlobalAlloc::dealloc`'s contract.
            unsafe { System.dealloc(ptr, layout) }
        }
    }
}

#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

const MB: usize = 1 << 20;

/// How much the heap may rise over the warm-up level while streaming: the pieces' deltas and a held
/// marker tail, never anything proportional to the input.
const SLACK: isize = 64 << 10;

/// What a stream produced, in bytes, and what it cost in memory.
#[derive(Debug, Default)]
struct Outcome {
    reasoning: usize,
    content: usize,
    arguments: usize,
    calls: usize,
    /// Calls ended valid / not valid.
    valid: usize,
    invalid: usize,
    /// Peak heap over the warm-up level while streaming the body.
    peak_rise: isize,
    /// Allocation calls while streaming the body after the warm-up.
    allocations: u64,
}

impl Outcome {
    fn add(&mut self, delta: Delta<'_>) {
        match delta {
            Delta::Reasoning(text) => self.reasoning += text.len(),
            Delta::Content(text) => self.content += text.len(),
            Delta::ToolCallStart { .. } => self.calls += 1,
            Delta::ToolCallArguments { fragment, .. } => self.arguments += fragment.len(),
            Delta::ToolCallEnd { valid: true, .. } => self.valid += 1,
            Delta::ToolCallEnd { valid: false, .. } => self.invalid += 1,
        }
    }
}

/// Streams `head`, then `body_bytes` of `pattern` repeated (cut into [`HOSTILE_PIECE_SIZES`] pieces), then
/// `tail`, and finishes. Memory is measured over the body after its first megabyte.
fn stream(mut parser: Parser, head: &str, pattern: &str, body_bytes: usize, tail: &str) -> Outcome {
    let mut outcome = Outcome::default();
    let push = |parser: &mut Parser, text: &str, outcome: &mut Outcome| {
        for delta in parser.push(text).iter() {
            outcome.add(delta);
        }
    };
    push(&mut parser, head, &mut outcome);
    let mut pieces = RepeatedPieces::new(pattern, body_bytes, &HOSTILE_PIECE_SIZES);
    let mut measuring = false;
    let (mut allocations_before, mut live_at_warm) = (0, 0);
    loop {
        if !measuring && pieces.sent() >= MB {
            measuring = true;
            heap::reset_peak();
            live_at_warm = heap::live();
            allocations_before = heap::calls();
        }
        let Some(piece) = pieces.next_piece() else {
            break;
        };
        push(&mut parser, piece, &mut outcome);
    }
    if measuring {
        outcome.peak_rise = heap::peak() - live_at_warm;
        outcome.allocations = heap::calls() - allocations_before;
    }
    push(&mut parser, tail, &mut outcome);
    for delta in parser.finish().iter() {
        outcome.add(delta);
    }
    outcome
}

fn parser(model: &str, options: &ParseOptions) -> Parser {
    parser_auto::for_model(model, options).expect("model resolves")
}

fn assert_bounded(outcome: &Outcome, what: &str) {
    assert!(
        outcome.peak_rise <= SLACK,
        "{what}: the heap rose by {} bytes while streaming (allowed {SLACK})",
        outcome.peak_rise
    );
    assert!(
        outcome.allocations <= 16,
        "{what}: {} allocations in the steady part (a push should allocate nothing)",
        outcome.allocations
    );
}

const PROSE: &str = "The user asks for a plan; weigh the options, check the numbers (3 × 7 = 21), \
    and note the edge cases — {json: \"braces\"} and <tags> included.\n";

/// 100 MB of reasoning with no `</think>`: all of it is reasoning, emitted as it comes.
#[test]
fn reasoning_that_never_closes() {
    let body = 100 * MB;
    for (model, options) in [
        (
            "Qwen/Qwen3-8B",
            ParseOptions::new().with_prompt_tail("<|im_start|>assistant\n<think>\n"),
        ),
        ("deepseek-ai/DeepSeek-R1", ParseOptions::new()),
        (
            "moonshotai/Kimi-K2-Thinking",
            ParseOptions::new().with_stage(Stage::Reasoning),
        ),
    ] {
        let outcome = stream(parser(model, &options), "", PROSE, body, "");
        assert_eq!(outcome.reasoning, body, "{model}: {outcome:?}");
        assert_eq!((outcome.content, outcome.calls), (0, 0), "{model}");
        assert_bounded(&outcome, model);
    }
}

/// 100 MB that is nothing but partial markers of every family: all content, none of it held for long.
#[test]
fn text_made_of_partial_markers() {
    let pattern = "<｜tool▁<|tool_call<think<tool_call <function<｜DSML｜<|tool_calls_section<|start|\
                   <|channel</th<｜tool▁calls▁begin<｜end▁of▁";
    let body = 100 * MB;
    for model in [
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek-ai/DeepSeek-V3.2",
        "Qwen/Qwen3-8B",
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "moonshotai/Kimi-K2-Instruct",
        "openai/gpt-oss-20b",
    ] {
        let options = ParseOptions::new().with_stage(Stage::Content);
        let outcome = stream(parser(model, &options), "", pattern, body, "");
        assert_eq!(outcome.content, body, "{model}: {outcome:?}");
        assert_eq!((outcome.reasoning, outcome.calls), (0, 0), "{model}");
        assert_bounded(&outcome, model);
    }
}

/// One 50 MB string argument: it streams as argument fragments, and the call is valid.
#[test]
fn one_fifty_megabyte_argument() {
    let body = 50 * MB;
    let value = "line of a file being written, with \\\"quotes\\\" and \\\\n escapes }{ ][\\n";
    let xml_value = "line of a file being written, with \"quotes\", <tags> and </param text\n";
    for (model, head, pattern, tail) in [
        (
            "deepseek-ai/DeepSeek-V3.1",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{\"content\": \"",
            value,
            "\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        (
            "Qwen/Qwen3-8B",
            "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"content\": \"",
            value,
            "\"}}\n</tool_call>",
        ),
        (
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "<tool_call>\n<function=write_file>\n<parameter=content>\n",
            xml_value,
            "\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            "moonshotai/Kimi-K2-Instruct",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0\
             <|tool_call_argument_begin|>{\"content\": \"",
            value,
            "\"}<|tool_call_end|><|tool_calls_section_end|>",
        ),
        (
            "openai/gpt-oss-20b",
            "<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{\"content\": \"",
            value,
            "\"}<|call|>",
        ),
    ] {
        let options = ParseOptions::new().with_stage(Stage::Content);
        let outcome = stream(parser(model, &options), head, pattern, body, tail);
        assert_eq!(
            (outcome.calls, outcome.valid),
            (1, 1),
            "{model}: {outcome:?}"
        );
        // Raw JSON arguments are the text as written; an XML value gains JSON escapes for its quotes.
        assert!(
            outcome.arguments >= body && outcome.arguments < body + body / 8 + 4096,
            "{model}: {outcome:?}"
        );
        assert_eq!(outcome.reasoning, 0, "{model}");
        assert_bounded(&outcome, model);
    }
}

/// What must be held to decide is capped: past `Limits::call_buffer` the parser stops waiting and the
/// heap stays near the limit, not near the input.
#[test]
fn held_constructs_stop_at_the_buffer_limit() {
    let limit = MB;
    let limits = Limits { call_buffer: limit };
    let body = 20 * MB;
    // The held constructs store the text and, beside it, what it parses to: allow a few times the limit.
    let allowed = 4 * limit as isize + SLACK;
    let tools = Arc::new(
        Tools::from_json(&serde_json::json!([{"type": "function", "function": {
            "name": "plot", "parameters": {"type": "object", "properties": {
                "points": {"type": "array"}}}}}]))
        .expect("tools"),
    );
    let cases: [(&str, &str, ParseOptions, &str, &str, &str); 3] = [
        (
            // A call block inside reasoning that never ends: reasoning text once over the limit.
            "held block in reasoning",
            "Qwen/Qwen3-8B",
            ParseOptions::new().with_stage(Stage::Reasoning),
            "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"content\": \"",
            PROSE,
            "",
        ),
        (
            // Arguments written before the name: not a call once over the limit.
            "arguments before the name",
            "Qwen/Qwen3-8B",
            ParseOptions::new().with_stage(Stage::Content),
            "<tool_call>\n{\"arguments\": {\"content\": \"",
            PROSE,
            "\"}, \"name\": \"write_file\"}\n</tool_call>",
        ),
        (
            // A value typed as an array is collected; over the limit it streams on as a string.
            "schema-typed value",
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            ParseOptions::new()
                .with_stage(Stage::Content)
                .with_tools(tools),
            "<tool_call>\n<function=plot>\n<parameter=points>\n[",
            "[1, 2.5, -3], ",
            "[0, 0, 0]]\n</parameter>\n</function>\n</tool_call>",
        ),
    ];
    for (what, model, options, head, pattern, tail) in cases {
        let options = options.with_limits(limits);
        let outcome = stream(parser(model, &options), head, pattern, body, tail);
        assert!(
            outcome.peak_rise <= allowed,
            "{what}: the heap rose by {} bytes (allowed {allowed})",
            outcome.peak_rise
        );
        let total = head.len() + body + tail.len();
        match what {
            "held block in reasoning" => assert_eq!(outcome.reasoning, total, "{what}"),
            "arguments before the name" => {
                assert_eq!(outcome.calls, 0, "{what}: {outcome:?}");
                assert_eq!(outcome.content, total, "{what}");
            }
            _ => {
                // The value became a JSON string: quotes and escapes added, nothing lost.
                assert_eq!(
                    (outcome.calls, outcome.valid),
                    (1, 1),
                    "{what}: {outcome:?}"
                );
                assert!(outcome.arguments > body, "{what}: {outcome:?}");
            }
        }
    }
}

/// Hostile chat templates (`benchmarks::hostile_templates`): each stops at its render limit (or its
/// `raise_exception`) with the heap under 100 MB, however much the template asks for.
#[test]
fn hostile_templates_stay_under_100_mb() {
    use benchmarks::hostile_templates::{HOSTILE_TEMPLATES, PROLOGUE, conversation};
    use parser_auto::ErrorKind;
    use parser_auto::template::{ChatTemplate, RenderInput};

    const CEILING: isize = 100 * MB as isize;
    let input = RenderInput::new(conversation()).with_generation_prompt(true);
    for (name, body, limit) in HOSTILE_TEMPLATES {
        let start = heap::live();
        heap::reset_peak();
        let template = ChatTemplate::from_source(format!("{PROLOGUE}{body}")).expect(name);
        let err = template.render(&input).expect_err(name);
        let rise = heap::peak() - start;
        match (limit, err.kind()) {
            (Some(expected), ErrorKind::LimitExceeded { limit, .. }) => {
                assert_eq!(limit, expected, "{name}: {err}")
            }
            (None, ErrorKind::InvalidOption(_)) => {}
            (_, _) => panic!("{name}: unexpected error {err}"),
        }
        println!("{name}: peak heap rise {} KB ({err})", rise / 1024);
        assert!(rise < CEILING, "{name}: the heap rose {rise} bytes");
    }
}
