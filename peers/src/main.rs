//! Side-by-side benchmark of llm-parse against SGLang's Rust parsers, the crates.io crates
//! `reasoning-parser` 1.10.0 and `tool-parser` 1.10.0 (smg-project/smg, formerly `sgl-model-gateway`).
//!
//! Run it with `cargo xtask bench --peers [--quick]`, which is
//! `CARGO_TARGET_DIR=target/peers cargo run --release --manifest-path peers/Cargo.toml [-- --quick]`.
//! This crate is its own cargo workspace, excluded from the project's: the peer crates pull in tokio and
//! rustpython (~190 crates), so **the first (cold) build takes about 5 minutes** on 2 cores, and neither
//! the project's CI nor `cargo test --workspace` ever builds it. `peers/Cargo.lock` pins what was measured.
//!
//! # What is compared
//!
//! Four formats, each ours (the `benchmarks` crate's [`Format`] and its [`ParserFactory`], exactly what
//! `cargo xtask bench` measures) against the SGLang pair a gateway would run for that model:
//!
//! | Format | SGLang reasoning parser | SGLang tool parser |
//! |---|---|---|
//! | DeepSeek V3.1 | `deepseek_v31`, armed with `mark_reasoning_started` (the prompt opened `<think>`) | `deepseek31` |
//! | Qwen3 Hermes | `qwen3` (not armed: the model writes `<think>` itself, so arming changes nothing) | `qwen` |
//! | Qwen3-Coder XML | `qwen3` (no reasoning in the output) | `qwen_xml` |
//! | Kimi-K2 | `kimi_thinking` (K2-Thinking); `kimi` for the K2-Instruct long argument | `kimik2` |
//!
//! Both libraries get byte-identical inputs: the same workload text, cut into the same pieces.
//!
//! 1. **One-shot** parse of a ~100 KB output (95% reasoning, some content, 3 calls): with the parser
//!    construction counted and not counted, and the construction alone. Ours: `factory.make()` then
//!    `Parser::parse`. SGLang: `create_parser(name)` on the reasoning and tool registries (what their
//!    factories do for each request; `mark_reasoning_started` where the prompt opened `<think>`), then
//!    `detect_and_parse_reasoning` and `parse_complete_with_tools` on its normal text.
//! 2. **Streaming** the same kind of output in 4-char deltas, at 2, 20 and 200 KB, cut two ways:
//!    "specials whole" (4-char pieces, but every special token of the format is one piece, as a server
//!    that decodes token by token sees them) and "split" (plain 4-char pieces). Total time per stream and
//!    per delta, parser built outside the timing. SGLang is driven as its gateway drives it: each delta
//!    goes to the reasoning parser, its `normal_text` (when not empty) to the tool parser's
//!    `parse_incremental` with the request's tools; at the end `flush()` (its normal text to the tool
//!    parser), `take_unstreamed_normal_text()` and `get_unstreamed_tool_args()`.
//! 3. **One long string argument** (`write_file`, 2 / 20 / 200 KB) streamed in 4-char deltas, specials
//!    whole (SGLang's DeepSeek and Kimi parsers lose calls whose special tokens are split). SGLang
//!    re-parses its whole buffer on every delta, so it is quadratic here: its 20 KB stream is timed over a
//!    few single runs and its 200 KB stream once (it can take minutes).
//! 4. **Correctness** next to each workload, for each library: whether the accumulated stream equals the
//!    library's own one-shot result (reasoning and content compared trimmed, calls by name and
//!    JSON-equal arguments), and whether it found the expected calls (the 3 calls of the output; the one
//!    `write_file` call with its file text intact). Call ids are not compared.
//! 5. **Allocator calls per delta** for both, counted by this binary's global allocator (a wrapper around
//!    `System` counting `alloc`, `alloc_zeroed`, `realloc`): in the steady state of the 200 KB output's
//!    prose (deltas 25%–90%, after the first 25% on the same parser), over its whole stream, and over the
//!    whole stream of the 20 KB long argument (construction excluded, after a warm-up stream).
//!
//! Targets marked PASS/MISS: one-shot ≥ 7× the peer; our construction ≤ 1 µs; streaming per delta ≥ 3×
//! faster than the peer outside calls (rows where the peer's parse is wrong are "info"); ours linear
//! inside a long argument (time at 200 KB / time at 20 KB ≈ 10, PASS ≤ 13).
//!
//! # How
//!
//! Times come from [`benchmarks::Harness`] (median of 5 runs of at least 200 ms each; `--quick`: 3 runs of
//! 20 ms) except the peer's long arguments of 20 KB and more, which use single timed runs. SGLang's
//! `ToolParser` is an `async_trait`: a tokio current-thread runtime, built once, drives each whole
//! stream (or one-shot parse) with one `block_on`, so the peer pays for its boxed futures but not for
//! entering a runtime on every delta (as in a server, where one task awaits every call; a `block_on` per
//! delta measured about 350 ns per call on the 2-core VM, several times the peer's own work per delta).
//! One-shot results are dropped inside the timing for both libraries (keeping a sub-batch of 100 KB
//! results alive would measure page faults rather than parsing). `--quick` also skips the peer's 200 KB
//! long argument. A full run takes about 15 minutes, most of it the peer's 200 KB long arguments.
//!
//! Exit status: 0 when the tables were printed and our parses were right, 1 when one of ours was wrong
//! (the peer's being wrong is a finding, not a failure).

use std::any::Any;
use std::fmt::Write as _;
use std::hint::black_box;
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use benchmarks::counting::{Counting, allocations};
use benchmarks::{
    Format, Harness, LONG_ARGUMENT_PATH, Measurement, ParserFactory, Status, chunks, consume,
    stream,
};
use openai_protocol::common::Tool;
use parser_auto::{ParsedMessage, Parser};
use reasoning_parser::ReasoningParser;
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use tool_parser::ToolParser;
use tool_parser::types::ToolCallItem;

#[global_allocator]
static ALLOC: Counting = Counting;

/// Characters per streamed delta.
const DELTA: usize = 4;
/// The one-shot output size, in bytes.
const ONE_SHOT: usize = 100_000;
/// Streaming and long-argument sizes, in bytes.
const SIZES: [usize; 3] = [2_000, 20_000, 200_000];
/// The long-argument size whose stream is the linearity ratio's denominator and whose allocations are
/// counted.
const MID: usize = 20_000;
/// The largest size: the linearity ratio's numerator and the output whose allocations are counted.
const LARGE: usize = 200_000;

/// Target: our one-shot parse at least this many times faster than the peer's.
const ONE_SHOT_RATIO: f64 = 7.0;
/// Target: our construction at most this many nanoseconds.
const CONSTRUCTION_NS: f64 = 1_000.0;
/// Target: our streaming per delta at least this many times faster than the peer's.
const STREAMING_RATIO: f64 = 3.0;
/// Target: time(200 KB) / time(20 KB) of our long-argument stream at most this (≈ 10 is linear).
const LINEAR_MAX: f64 = 13.0;

/// DeepSeek V3.1's special tokens.
const DEEPSEEK_SPECIALS: &[&str] = &[
    "<think>",
    "</think>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    "<｜end▁of▁sentence｜>",
];
/// Qwen3's special tokens (Hermes and Qwen3-Coder: `<function=`/`<parameter=` are plain text).
const QWEN_SPECIALS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|im_end|>",
];
/// Kimi-K2's special tokens.
const KIMI_SPECIALS: &[&str] = &[
    "<think>",
    "</think>",
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|im_end|>",
];

/// One format and the SGLang parsers a gateway runs for it.
struct Pairing {
    format: &'static Format,
    /// Reasoning parser of the output workload.
    reasoning: &'static str,
    /// Whether the output workload's prompt opened `<think>` (`mark_reasoning_started`).
    armed: bool,
    /// Reasoning parser of the long-argument workload (its model may differ: Kimi-K2-Instruct).
    long_reasoning: &'static str,
    /// Whether the long-argument workload's prompt opened `<think>`.
    long_armed: bool,
    /// Tool parser.
    tool: &'static str,
    /// Special tokens of the format, kept whole in the "specials whole" pieces.
    specials: &'static [&'static str],
}

static PAIRINGS: [Pairing; 4] = [
    Pairing {
        format: &benchmarks::DEEPSEEK_V31,
        reasoning: "deepseek_v31",
        armed: true,
        long_reasoning: "deepseek_v31",
        long_armed: false,
        tool: "deepseek31",
        specials: DEEPSEEK_SPECIALS,
    },
    Pairing {
        format: &benchmarks::QWEN3_HERMES,
        reasoning: "qwen3",
        armed: false,
        long_reasoning: "qwen3",
        long_armed: false,
        tool: "qwen",
        specials: QWEN_SPECIALS,
    },
    Pairing {
        format: &benchmarks::QWEN3_CODER,
        reasoning: "qwen3",
        armed: false,
        long_reasoning: "qwen3",
        long_armed: false,
        tool: "qwen_xml",
        specials: QWEN_SPECIALS,
    },
    Pairing {
        format: &benchmarks::KIMI_K2,
        reasoning: "kimi_thinking",
        armed: false,
        long_reasoning: "kimi",
        long_armed: false,
        tool: "kimik2",
        specials: KIMI_SPECIALS,
    },
];

/// How a text is cut into deltas.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// 4-char pieces, every special token one piece.
    Whole,
    /// Plain 4-char pieces.
    Split,
}

impl Cut {
    fn label(self) -> &'static str {
        match self {
            Cut::Whole => "specials whole",
            Cut::Split => "split",
        }
    }
}

/// Cuts `text` into `DELTA`-char pieces; with [`Cut::Whole`], every occurrence of a special token is a
/// piece of its own and the text between them is cut in `DELTA`-char pieces.
fn pieces<'t>(text: &'t str, specials: &[&str], cut: Cut) -> Vec<&'t str> {
    if cut == Cut::Split {
        return chunks(text, DELTA);
    }
    let mut out = Vec::with_capacity(text.len() / DELTA + 16);
    let mut at = 0;
    while at < text.len() {
        let next = specials
            .iter()
            .filter_map(|s| text[at..].find(s).map(|i| (at + i, s.len())))
            .min_by_key(|&(i, len)| (i, std::cmp::Reverse(len)));
        match next {
            Some((start, len)) => {
                out.extend(chunks(&text[at..start], DELTA));
                out.push(&text[start..start + len]);
                at = start + len;
            }
            None => {
                out.extend(chunks(&text[at..], DELTA));
                at = text.len();
            }
        }
    }
    out
}

/// The tools of every request: the four functions the workloads call, with their parameter schemas
/// (SGLang's streaming parsers emit only calls to declared tools; `qwen_xml` types values by schema).
fn declared_tools() -> Vec<Tool> {
    let string = json!({"type": "string"});
    let integer = json!({"type": "integer"});
    [
        ("get_weather", [("city", &string), ("unit", &string)]),
        ("search", [("query", &string), ("limit", &integer)]),
        ("read_file", [("path", &string), ("line", &integer)]),
        ("write_file", [("path", &string), ("content", &string)]),
    ]
    .into_iter()
    .map(|(name, params)| {
        let properties: serde_json::Map<String, Value> = params
            .iter()
            .map(|(key, schema)| ((*key).to_owned(), (*schema).clone()))
            .collect();
        let required: Vec<&str> = params.iter().map(|(key, _)| *key).collect();
        serde_json::from_value(json!({
            "type": "function",
            "function": {
                "name": name,
                "description": format!("The {name} function."),
                "parameters": {"type": "object", "properties": properties, "required": required},
            }
        }))
        .expect("a valid OpenAI tool")
    })
    .collect()
}

// ---------------------------------------------------------------------------------------------------
// The peer: SGLang's parsers, driven as the gateway drives them.
// ---------------------------------------------------------------------------------------------------

/// What a server holds once: the two factories, the runtime, the request's tools.
struct PeerEnv {
    reasoning: reasoning_parser::ParserFactory,
    tools_registry: tool_parser::ParserFactory,
    rt: Runtime,
    tools: Vec<Tool>,
}

/// Builds the SGLang parser pair of one workload, once per request.
struct PeerFactory<'e> {
    env: &'e PeerEnv,
    reasoning: &'static str,
    armed: bool,
    tool: &'static str,
}

/// One request's SGLang parsers.
struct Peer {
    reasoning: Box<dyn ReasoningParser>,
    tool: Box<dyn ToolParser>,
}

impl PeerFactory<'_> {
    /// A fresh pair, as the gateway builds it for a request whose parsers are named.
    fn make(&self) -> Peer {
        let mut reasoning = self
            .env
            .reasoning
            .registry()
            .create_parser(self.reasoning)
            .expect("registered reasoning parser");
        if self.armed {
            reasoning.mark_reasoning_started();
        }
        let tool = self
            .env
            .tools_registry
            .registry()
            .create_parser(self.tool)
            .expect("registered tool parser");
        Peer { reasoning, tool }
    }

    fn describe(&self) -> String {
        format!(
            "reasoning `{}`{} + tool `{}`",
            self.reasoning,
            if self.armed {
                " (armed: `mark_reasoning_started`)"
            } else {
                ""
            },
            self.tool
        )
    }
}

/// Receives what the peer's stream produces.
trait PeerSink {
    fn reasoning(&mut self, text: &str);
    fn content(&mut self, text: &str);
    fn call(&mut self, item: &ToolCallItem);
    fn error(&mut self, what: String);
}

/// Reads every event (the bytes it carries), like `benchmarks::consume`.
#[derive(Default)]
struct Count(usize);

impl PeerSink for Count {
    fn reasoning(&mut self, text: &str) {
        self.0 += text.len();
    }
    fn content(&mut self, text: &str) {
        self.0 += text.len();
    }
    fn call(&mut self, item: &ToolCallItem) {
        self.0 += item.name.as_ref().map_or(0, String::len) + item.parameters.len();
    }
    fn error(&mut self, _: String) {
        self.0 += 1;
    }
}

/// A parse result of either library, for the correctness checks.
#[derive(Default, Debug)]
struct Message {
    reasoning: String,
    content: String,
    /// (name, arguments), in order.
    calls: Vec<(String, String)>,
    errors: Vec<String>,
}

impl PeerSink for Message {
    fn reasoning(&mut self, text: &str) {
        self.reasoning.push_str(text);
    }
    fn content(&mut self, text: &str) {
        self.content.push_str(text);
    }
    fn call(&mut self, item: &ToolCallItem) {
        if self.calls.len() <= item.tool_index {
            self.calls
                .resize_with(item.tool_index + 1, Default::default);
        }
        let call = &mut self.calls[item.tool_index];
        if let Some(name) = &item.name {
            call.0.push_str(name);
        }
        call.1.push_str(&item.parameters);
    }
    fn error(&mut self, what: String) {
        self.errors.push(what);
    }
}

impl From<ParsedMessage> for Message {
    fn from(message: ParsedMessage) -> Self {
        Message {
            reasoning: message.reasoning.unwrap_or_default(),
            content: message.content.unwrap_or_default(),
            calls: message
                .tool_calls
                .into_iter()
                .map(|call| (call.name, call.arguments))
                .collect(),
            errors: Vec::new(),
        }
    }
}

/// Text the reasoning parser passed on: to the tool parser, as the gateway does.
async fn peer_tool(peer: &mut Peer, text: &str, tools: &[Tool], sink: &mut impl PeerSink) {
    match peer.tool.parse_incremental(text, tools).await {
        Ok(result) => {
            if !result.normal_text.is_empty() {
                sink.content(&result.normal_text);
            }
            for item in &result.calls {
                sink.call(item);
            }
        }
        Err(e) => sink.error(format!("parse_incremental: {e}")),
    }
}

/// One delta: reasoning parser first, its normal text to the tool parser.
async fn peer_push(peer: &mut Peer, delta: &str, tools: &[Tool], sink: &mut impl PeerSink) {
    match peer.reasoning.parse_reasoning_streaming_incremental(delta) {
        Ok(result) => {
            if !result.reasoning_text.is_empty() {
                sink.reasoning(&result.reasoning_text);
            }
            if !result.normal_text.is_empty() {
                peer_tool(peer, &result.normal_text, tools, sink).await;
            }
        }
        Err(e) => sink.error(format!("parse_reasoning_streaming_incremental: {e}")),
    }
}

/// End of stream: `flush`, `take_unstreamed_normal_text`, `get_unstreamed_tool_args`.
async fn peer_finish(peer: &mut Peer, tools: &[Tool], sink: &mut impl PeerSink) {
    match peer.reasoning.flush() {
        Ok(result) => {
            if !result.reasoning_text.is_empty() {
                sink.reasoning(&result.reasoning_text);
            }
            if !result.normal_text.is_empty() {
                peer_tool(peer, &result.normal_text, tools, sink).await;
            }
        }
        Err(e) => sink.error(format!("flush: {e}")),
    }
    let rest = peer.tool.take_unstreamed_normal_text();
    if !rest.is_empty() {
        sink.content(&rest);
    }
    if let Some(items) = peer.tool.get_unstreamed_tool_args() {
        for item in &items {
            sink.call(item);
        }
    }
}

/// A whole stream, driven by one `block_on`.
fn peer_stream(env: &PeerEnv, peer: &mut Peer, pieces: &[&str], sink: &mut impl PeerSink) {
    env.rt.block_on(async {
        for piece in pieces {
            peer_push(peer, piece, &env.tools, sink).await;
        }
        peer_finish(peer, &env.tools, sink).await;
    });
}

/// The peer's raw one-shot result: reasoning split, then the tool parse of its normal text.
type PeerOneShot = (
    Result<reasoning_parser::ParserResult, reasoning_parser::ParseError>,
    Option<Result<(String, Vec<tool_parser::ToolCall>), tool_parser::errors::ParserError>>,
);

fn peer_one_shot(env: &PeerEnv, peer: &mut Peer, text: &str) -> PeerOneShot {
    let split = peer.reasoning.detect_and_parse_reasoning(text);
    let tools = match &split {
        Ok(result) => Some(
            env.rt.block_on(
                peer.tool
                    .parse_complete_with_tools(&result.normal_text, &env.tools),
            ),
        ),
        Err(_) => None,
    };
    (split, tools)
}

fn peer_message(raw: PeerOneShot) -> Message {
    let mut message = Message::default();
    match raw.0 {
        Ok(result) => message.reasoning = result.reasoning_text,
        Err(e) => message
            .errors
            .push(format!("detect_and_parse_reasoning: {e}")),
    }
    match raw.1 {
        Some(Ok((content, calls))) => {
            message.content = content;
            message.calls = calls
                .into_iter()
                .map(|call| (call.function.name, call.function.arguments))
                .collect();
        }
        Some(Err(e)) => message
            .errors
            .push(format!("parse_complete_with_tools: {e}")),
        None => {}
    }
    message
}

// ---------------------------------------------------------------------------------------------------
// Ours, for the checks.
// ---------------------------------------------------------------------------------------------------

fn our_stream_message(parser: &mut Parser, pieces: &[&str]) -> Message {
    let mut out = parser_auto::Accumulator::new();
    for piece in pieces {
        out.extend(parser.push(piece));
    }
    out.extend(parser.finish());
    out.into_message().into()
}

/// Allocator calls of a whole stream (every push and `finish`; construction excluded), after a warm-up
/// stream on another parser.
fn our_stream_allocations(parsers: &ParserFactory, pieces: &[&str]) -> u64 {
    stream(&mut parsers.make(), pieces);
    let mut parser = parsers.make();
    let before = allocations();
    stream(&mut parser, pieces);
    allocations() - before
}

/// Allocator calls of `pieces[from..to]`, on a parser first fed `pieces[..from]`.
fn our_window_allocations(parsers: &ParserFactory, pieces: &[&str], from: usize, to: usize) -> u64 {
    stream(&mut parsers.make(), pieces);
    let mut parser = parsers.make();
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

fn peer_stream_allocations(env: &PeerEnv, factory: &PeerFactory, pieces: &[&str]) -> u64 {
    peer_stream(env, &mut factory.make(), pieces, &mut Count::default());
    let mut peer = factory.make();
    let mut sink = Count::default();
    let before = allocations();
    peer_stream(env, &mut peer, pieces, &mut sink);
    let counted = allocations() - before;
    black_box(sink.0);
    counted
}

fn peer_window_allocations(
    env: &PeerEnv,
    factory: &PeerFactory,
    pieces: &[&str],
    from: usize,
    to: usize,
) -> u64 {
    peer_stream(env, &mut factory.make(), pieces, &mut Count::default());
    let mut peer = factory.make();
    let mut sink = Count::default();
    let counted = env.rt.block_on(async {
        for piece in &pieces[..from] {
            peer_push(&mut peer, piece, &env.tools, &mut sink).await;
        }
        let before = allocations();
        for piece in &pieces[from..to] {
            peer_push(&mut peer, piece, &env.tools, &mut sink).await;
        }
        let counted = allocations() - before;
        for piece in &pieces[to..] {
            peer_push(&mut peer, piece, &env.tools, &mut sink).await;
        }
        peer_finish(&mut peer, &env.tools, &mut sink).await;
        counted
    });
    black_box(sink.0);
    counted
}

// ---------------------------------------------------------------------------------------------------
// Correctness.
// ---------------------------------------------------------------------------------------------------

/// Whether two JSON texts are equal as JSON; with `lenient`, a number equals a string that spells it
/// (XML parameters typed by a schema or not). Texts that are not JSON compare as text.
fn same_json(a: &str, b: &str, lenient: bool) -> bool {
    fn loosely(a: &Value, b: &Value, lenient: bool) -> bool {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(key, x)| b.get(key).is_some_and(|y| loosely(x, y, lenient)))
            }
            (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n))
                if lenient =>
            {
                n.to_string() == *s
            }
            (a, b) => a == b,
        }
    }
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => loosely(&a, &b, lenient),
        _ => a == b,
    }
}

/// Where two texts first differ, with a few characters of each from there.
fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    let excerpt = |s: &str| {
        let rest = s.get(at..).unwrap_or("");
        let cut: String = rest.chars().take(14).collect();
        format!("`{}`", cut.escape_debug())
    };
    format!("from byte {at}: {} vs {}", excerpt(a), excerpt(b))
}

/// Why `streamed` differs from `one_shot` (`None`: the same).
fn stream_differs(streamed: &Message, one_shot: &Message, lenient: bool) -> Option<String> {
    let mut why = Vec::new();
    if let Some(error) = streamed.errors.first().or(one_shot.errors.first()) {
        why.push(format!("error: {error}"));
    }
    let sizes = |a: &str, b: &str| {
        format!(
            "{} B streamed vs {} B, {}",
            a.len(),
            b.len(),
            first_difference(a, b)
        )
    };
    if streamed.reasoning.trim() != one_shot.reasoning.trim() {
        why.push(format!(
            "reasoning {}",
            sizes(streamed.reasoning.trim(), one_shot.reasoning.trim())
        ));
    }
    if streamed.content.trim() != one_shot.content.trim() {
        why.push(format!(
            "content {}",
            sizes(streamed.content.trim(), one_shot.content.trim())
        ));
    }
    if streamed.calls.len() != one_shot.calls.len() {
        why.push(format!(
            "{} calls streamed vs {}",
            streamed.calls.len(),
            one_shot.calls.len()
        ));
    } else {
        for (i, (s, o)) in streamed.calls.iter().zip(&one_shot.calls).enumerate() {
            if s.0 != o.0 {
                why.push(format!("call {i} named `{}` vs `{}`", s.0, o.0));
            } else if !same_json(&s.1, &o.1, lenient) {
                why.push(format!(
                    "call {i} (`{}`) arguments {}",
                    s.0,
                    first_difference(&s.1, &o.1)
                ));
            }
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// What a workload of a format must give.
enum Expect<'a> {
    /// The format's three calls.
    Calls(&'a Format),
    /// One `write_file` call whose `content` is this text.
    Write(&'a Format, &'a str),
}

impl Expect<'_> {
    /// Whether arguments compare leniently (numbers equal to strings that spell them): XML parameters,
    /// typed by a schema or not.
    fn lenient(&self) -> bool {
        let (Expect::Calls(format) | Expect::Write(format, _)) = self;
        !format.json_arguments
    }
}

/// Why `message` lacks the expected calls (`None`: found them).
fn calls_missing(message: &Message, expect: &Expect<'_>) -> Option<String> {
    match expect {
        Expect::Calls(format) => {
            let expected = format.expected_calls();
            let found = expected
                .iter()
                .filter(|want| {
                    message.calls.iter().any(|(name, arguments)| {
                        name == want.name
                            && same_json(arguments, &want.arguments, !format.json_arguments)
                    })
                })
                .count();
            (found != expected.len() || message.calls.len() != expected.len()).then(|| {
                format!(
                    "{found} of {} found ({} call(s): {})",
                    expected.len(),
                    message.calls.len(),
                    names(message)
                )
            })
        }
        Expect::Write(_, content) => match message.calls.as_slice() {
            [(name, arguments)] if name == "write_file" => write_file_wrong(arguments, content),
            calls => Some(format!(
                "{} call(s) ({}), expected 1 `write_file`",
                calls.len(),
                names(message)
            )),
        },
    }
}

/// Why the arguments of a `write_file` call are not `{"path": LONG_ARGUMENT_PATH, "content": content}`.
fn write_file_wrong(arguments: &str, content: &str) -> Option<String> {
    let Ok(value) = serde_json::from_str::<Value>(arguments) else {
        return Some(format!(
            "`write_file` arguments are not JSON ({} B)",
            arguments.len()
        ));
    };
    let got = value.get("content").and_then(Value::as_str);
    match got {
        _ if value.get("path").and_then(Value::as_str) != Some(LONG_ARGUMENT_PATH) => {
            Some("`write_file` `path` wrong".to_owned())
        }
        Some(got) if got == content => None,
        Some(got) if got == content.trim() => {
            Some("`content` has its surrounding whitespace trimmed".to_owned())
        }
        Some(got) => Some(format!(
            "`content` {} B vs {} B, {}",
            got.len(),
            content.len(),
            first_difference(got, content)
        )),
        None => Some("`write_file` has no string `content`".to_owned()),
    }
}

fn names(message: &Message) -> String {
    if message.calls.is_empty() {
        return "none".to_owned();
    }
    message
        .calls
        .iter()
        .map(|(name, _)| if name.is_empty() { "?" } else { name.as_str() })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One library's verdict on one workload.
struct Verdict {
    /// `None`: the stream equals the one-shot result.
    stream: Option<String>,
    /// `None`: the expected calls were found (in the stream and one-shot).
    calls: Option<String>,
}

impl Verdict {
    fn of(streamed: &Message, one_shot: &Message, expect: &Expect<'_>) -> Self {
        let calls = match (
            calls_missing(streamed, expect),
            calls_missing(one_shot, expect),
        ) {
            (None, None) => None,
            (Some(s), None) => Some(format!("stream: {s}")),
            (None, Some(o)) => Some(format!("one-shot: {o}")),
            (Some(s), Some(o)) if s == o => Some(format!("both: {s}")),
            (Some(s), Some(o)) => Some(format!("stream: {s}; one-shot: {o}")),
        };
        Verdict {
            stream: stream_differs(streamed, one_shot, expect.lenient()),
            calls,
        }
    }

    fn ok(&self) -> bool {
        self.stream.is_none() && self.calls.is_none()
    }

    fn cells(&self) -> (String, String) {
        let cell = |why: &Option<String>| match why {
            None => "yes".to_owned(),
            Some(why) => format!("**no**: {why}"),
        };
        (cell(&self.stream), cell(&self.calls))
    }
}

/// One correctness row: a workload, our verdict and the peer's (or why the peer's is missing).
struct Check {
    workload: String,
    ours: Verdict,
    theirs: Result<Verdict, String>,
}

// ---------------------------------------------------------------------------------------------------
// Timing.
// ---------------------------------------------------------------------------------------------------

/// Runs `f`, catching a panic (the peer's parsers are not ours to trust): `Err` holds its message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|panic| panic_message(panic.as_ref()))
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_owned());
    format!("panicked: {message}")
}

/// Single timed runs (for streams that take seconds): `runs` times, each a fresh setup; the median,
/// and the allocator calls of the last run.
fn single_runs<S>(
    runs: usize,
    mut setup: impl FnMut() -> S,
    mut routine: impl FnMut(&mut S, usize),
) -> (f64, u64) {
    let mut times = Vec::with_capacity(runs);
    let mut allocated = 0;
    for run in 0..runs.max(1) {
        let mut state = setup();
        let before = allocations();
        let start = Instant::now();
        routine(&mut state, run);
        times.push(start.elapsed().as_secs_f64() * 1e9);
        allocated = allocations() - before;
        drop(state);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], allocated)
}

// ---------------------------------------------------------------------------------------------------
// The tables.
// ---------------------------------------------------------------------------------------------------

struct Row {
    what: String,
    ours: String,
    theirs: String,
    ratio: String,
    target: String,
    status: Status,
}

/// The targets of one format, for its summary line.
#[derive(Default)]
struct Targets {
    /// (label, ratio) of the one-shot rows.
    one_shot: Vec<(String, Option<f64>)>,
    construction_ns: Option<f64>,
    /// (label, ratio, whether the peer's parse was right) of the streaming rows.
    streaming: Vec<(String, Option<f64>, bool)>,
    linear: Option<f64>,
}

struct Section {
    name: &'static str,
    setup: String,
    rows: Vec<Row>,
    checks: Vec<Check>,
    targets: Targets,
}

impl Section {
    fn row(&mut self, what: impl Into<String>, ours: String, theirs: String, ratio: String) {
        self.rows.push(Row {
            what: what.into(),
            ours,
            theirs,
            ratio,
            target: "—".to_owned(),
            status: Status::Info,
        });
    }

    fn target(&mut self, target: &str, status: Status) {
        if let Some(row) = self.rows.last_mut() {
            row.target = target.to_owned();
            row.status = status;
        }
    }

    /// Whether our own parses were all right.
    fn ours_ok(&self) -> bool {
        self.checks.iter().all(|check| check.ours.ok())
    }
}

struct Bench<'e> {
    env: &'e PeerEnv,
    harness: Harness,
    quick: bool,
}

fn main() -> ExitCode {
    let started = Instant::now();
    let quick = std::env::args().skip(1).any(|arg| arg == "--quick");
    let harness = if quick {
        Harness {
            min_run: Duration::from_millis(20),
            runs: 3,
        }
    } else {
        Harness::default()
    };
    let env = PeerEnv {
        reasoning: reasoning_parser::ParserFactory::new(),
        tools_registry: tool_parser::ParserFactory::new(),
        rt: tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a tokio current-thread runtime"),
        tools: declared_tools(),
    };
    let bench = Bench {
        env: &env,
        harness,
        quick,
    };
    print_header(&bench);
    let mut sections = Vec::new();
    for pairing in &PAIRINGS {
        let section = match guarded(|| bench.measure(pairing)) {
            Ok(section) => section,
            Err(panic) => {
                println!(
                    "## {}\n\n> **Warning**: the measurement {panic}\n",
                    pairing.format.name
                );
                return ExitCode::FAILURE;
            }
        };
        print_section(&section);
        sections.push(section);
    }
    print_summary(&sections);
    println!(
        "Wall time of this run: {:.1} s.",
        started.elapsed().as_secs_f64()
    );
    if sections.iter().all(Section::ours_ok) {
        ExitCode::SUCCESS
    } else {
        eprintln!("peers: one of our parses was wrong (see the correctness tables)");
        ExitCode::FAILURE
    }
}

fn print_header(bench: &Bench) {
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
    println!("# llm-parse vs SGLang (`reasoning-parser` 1.10.0 + `tool-parser` 1.10.0)\n");
    println!(
        "- Machine: {cpu}, {threads} hardware threads, {}/{}.",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    if cfg!(debug_assertions) {
        println!(
            "- > **Warning**: this is a debug build; its numbers mean nothing. Run `cargo xtask bench --peers`."
        );
    } else {
        println!("- Build: release (`cargo xtask bench --peers`).");
    }
    println!(
        "- Timing: median of {} runs of at least {} ms each (`benchmarks::Harness`), except the peer's \
         long arguments of 20 KB and more: {} single run(s) at 20 KB, one at 200 KB{}.",
        bench.harness.runs,
        bench.harness.min_run.as_millis(),
        if bench.quick { 2 } else { 3 },
        if bench.quick { " (skipped here)" } else { "" }
    );
    println!(
        "- Ratio = SGLang's time / ours (how many times faster we are); for allocations, SGLang's count / \
         ours. Parsers are built outside the timing unless a row says otherwise; one-shot results are \
         dropped inside it (both libraries then reuse freed memory, as a server does)."
    );
    println!(
        "- SGLang is driven as its gateway drives it: reasoning parser first, its normal text to the tool \
         parser (`parse_incremental` with the request's 4 tools); at the end `flush`, \
         `take_unstreamed_normal_text`, `get_unstreamed_tool_args`. One tokio current-thread `block_on` \
         per stream or one-shot parse."
    );
    if bench.quick {
        println!(
            "- > **Quick mode**: short runs, peer's 200 KB long argument skipped; numbers not for reporting."
        );
    }
    println!();
}

fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
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

fn thousands(n: usize) -> String {
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

fn ratio(theirs: f64, ours: f64) -> Option<f64> {
    (ours > 0.0 && theirs.is_finite()).then(|| theirs / ours)
}

fn ratio_cell(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "—".to_owned(), |r| format!("{r:.1}×"))
}

/// A stream's total time and time per delta.
fn stream_cell(ns: f64, deltas: usize) -> String {
    format!("{} ({:.1} ns/delta)", time(ns), ns / deltas as f64)
}

fn per_delta(calls: u64, deltas: usize) -> String {
    if calls == 0 {
        "0".to_owned()
    } else {
        format!("{:.3}", calls as f64 / deltas as f64)
    }
}

fn median(m: &Measurement) -> f64 {
    m.median_ns()
}

impl Bench<'_> {
    fn measure(&self, pairing: &Pairing) -> Section {
        let format = pairing.format;
        let ours = format
            .output_parsers()
            .unwrap_or_else(|e| panic!("{}: {e}", format.name));
        let ours_long = format
            .long_argument_parsers()
            .unwrap_or_else(|e| panic!("{}: {e}", format.name));
        let theirs = PeerFactory {
            env: self.env,
            reasoning: pairing.reasoning,
            armed: pairing.armed,
            tool: pairing.tool,
        };
        let theirs_long = PeerFactory {
            env: self.env,
            reasoning: pairing.long_reasoning,
            armed: pairing.long_armed,
            tool: pairing.tool,
        };
        let tail = |tail: Option<&str>| {
            tail.map_or_else(
                || "no prompt tail".to_owned(),
                |t| format!("prompt tail `{}`", t.escape_debug()),
            )
        };
        let setup = format!(
            "- Output workload: ours {} ({}); SGLang {}.\n- Long-argument workload: ours {} ({}); SGLang {}.\n\
             - Special tokens kept whole: {}.",
            ours.description,
            tail(format.output_tail),
            theirs.describe(),
            ours_long.description,
            tail(format.long_argument_tail),
            theirs_long.describe(),
            pairing
                .specials
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut section = Section {
            name: format.name,
            setup,
            rows: Vec::new(),
            checks: Vec::new(),
            targets: Targets::default(),
        };
        eprintln!("peers: {}: one-shot and construction", format.name);
        self.one_shot(pairing, &ours, &theirs, &mut section);
        eprintln!("peers: {}: streaming", format.name);
        self.streaming(pairing, &ours, &theirs, &mut section);
        eprintln!("peers: {}: long argument", format.name);
        self.long_argument(pairing, &ours_long, &theirs_long, &mut section);
        eprintln!("peers: {}: allocations", format.name);
        self.allocations(pairing, &ours, &theirs, &mut section);
        section
    }

    /// Checks one output-like workload for both libraries.
    fn check(
        &self,
        workload: String,
        text: &str,
        pieces: &[&str],
        expect: &Expect<'_>,
        ours: &ParserFactory,
        theirs: &PeerFactory,
    ) -> Check {
        let one_shot: Message = ours.make().parse(text).into();
        let streamed = our_stream_message(&mut ours.make(), pieces);
        let env = self.env;
        let peer = guarded(|| {
            let one_shot = peer_message(peer_one_shot(env, &mut theirs.make(), text));
            let mut streamed = Message::default();
            peer_stream(env, &mut theirs.make(), pieces, &mut streamed);
            Verdict::of(&streamed, &one_shot, expect)
        });
        Check {
            workload,
            ours: Verdict::of(&streamed, &one_shot, expect),
            theirs: peer,
        }
    }

    fn one_shot(
        &self,
        pairing: &Pairing,
        ours: &ParserFactory,
        theirs: &PeerFactory,
        section: &mut Section,
    ) {
        let format = pairing.format;
        let env = self.env;
        let text = format.output(ONE_SHOT);
        let whole = pieces(&text, pairing.specials, Cut::Whole);
        section.checks.push(self.check(
            format!(
                "{} output (the one-shot workload), {}",
                kb(text.len()),
                Cut::Whole.label()
            ),
            &text,
            &whole,
            &Expect::Calls(format),
            ours,
            theirs,
        ));
        let gbps = |ns: f64| text.len() as f64 / ns;
        for counted in [true, false] {
            let label = if counted {
                "construction counted"
            } else {
                "construction not counted"
            };
            // Results are dropped inside the timing, so that both libraries reuse freed memory as a
            // server does (keeping a sub-batch of 100 KB results alive measures page faults instead).
            let m_ours = if counted {
                self.harness.measure(|| drop(ours.make().parse(&text)))
            } else {
                self.harness
                    .measure_with_setup(|| ours.make(), |parser| drop(parser.parse(&text)))
            };
            let m_theirs = guarded(|| {
                if counted {
                    // Built and dropped in the routine, as ours (`Parser::parse` takes `self`).
                    self.harness
                        .measure(|| drop(peer_one_shot(env, &mut theirs.make(), &text)))
                } else {
                    // The peer's parsers are dropped after the timing (ours in it: `parse` consumes
                    // the parser).
                    self.harness.measure_with_setup(
                        || theirs.make(),
                        |mut peer| {
                            drop(peer_one_shot(env, &mut peer, &text));
                            peer
                        },
                    )
                }
            });
            let ours_ns = median(&m_ours);
            let theirs_cell = match &m_theirs {
                Ok(m) => format!("{} ({:.2} GB/s)", time(median(m)), gbps(median(m))),
                Err(panic) => panic.clone(),
            };
            let r = m_theirs
                .as_ref()
                .ok()
                .and_then(|m| ratio(median(m), ours_ns));
            section.row(
                format!("One-shot parse, {} output, {label}", kb(text.len())),
                format!("{} ({:.2} GB/s)", time(ours_ns), gbps(ours_ns)),
                theirs_cell,
                ratio_cell(r),
            );
            section.target(
                &format!("≥ {ONE_SHOT_RATIO}×"),
                Status::check(r.is_some_and(|r| r >= ONE_SHOT_RATIO)),
            );
            section.targets.one_shot.push((label.to_owned(), r));
        }
        let m_ours = self.harness.measure(|| ours.make());
        let m_theirs = guarded(|| self.harness.measure(|| theirs.make()));
        let ours_ns = median(&m_ours);
        let r = m_theirs
            .as_ref()
            .ok()
            .and_then(|m| ratio(median(m), ours_ns));
        section.row(
            "Parser construction, per request",
            time(ours_ns),
            m_theirs
                .as_ref()
                .map_or_else(Clone::clone, |m| time(median(m))),
            ratio_cell(r),
        );
        section.target("ours ≤ 1 µs", Status::check(ours_ns <= CONSTRUCTION_NS));
        section.targets.construction_ns = Some(ours_ns);
    }

    fn streaming(
        &self,
        pairing: &Pairing,
        ours: &ParserFactory,
        theirs: &PeerFactory,
        section: &mut Section,
    ) {
        let format = pairing.format;
        let env = self.env;
        for cut in [Cut::Whole, Cut::Split] {
            for size in SIZES {
                let text = format.output(size);
                let pieces = pieces(&text, pairing.specials, cut);
                let check = self.check(
                    format!("{} output, {}", kb(text.len()), cut.label()),
                    &text,
                    &pieces,
                    &Expect::Calls(format),
                    ours,
                    theirs,
                );
                let peer_right = check.theirs.as_ref().is_ok_and(Verdict::ok);
                section.checks.push(check);
                let m_ours = self.harness.measure_with_setup(
                    || ours.make(),
                    |mut parser| {
                        stream(&mut parser, &pieces);
                        parser
                    },
                );
                let m_theirs = guarded(|| {
                    self.harness.measure_with_setup(
                        || theirs.make(),
                        |mut peer| {
                            let mut sink = Count::default();
                            peer_stream(env, &mut peer, &pieces, &mut sink);
                            (sink.0, peer)
                        },
                    )
                });
                let ours_ns = median(&m_ours);
                let r = m_theirs
                    .as_ref()
                    .ok()
                    .and_then(|m| ratio(median(m), ours_ns));
                let mut theirs_cell = m_theirs
                    .as_ref()
                    .map_or_else(Clone::clone, |m| stream_cell(median(m), pieces.len()));
                if !peer_right {
                    theirs_cell.push_str(" — wrong parse");
                }
                section.row(
                    format!(
                        "Streaming, {} output, {} deltas ({})",
                        kb(text.len()),
                        thousands(pieces.len()),
                        cut.label()
                    ),
                    stream_cell(ours_ns, pieces.len()),
                    theirs_cell,
                    ratio_cell(r),
                );
                let status = if peer_right {
                    Status::check(r.is_some_and(|r| r >= STREAMING_RATIO))
                } else {
                    Status::Info
                };
                section.target(&format!("≥ {STREAMING_RATIO}× per delta"), status);
                section.targets.streaming.push((
                    format!("{} {}", kb(size), cut.label()),
                    r,
                    peer_right,
                ));
            }
        }
    }

    fn long_argument(
        &self,
        pairing: &Pairing,
        ours: &ParserFactory,
        theirs: &PeerFactory,
        section: &mut Section,
    ) {
        let format = pairing.format;
        let env = self.env;
        let mut ours_times = Vec::new();
        let mut theirs_times = Vec::new();
        for size in SIZES {
            let long = format.long_argument(size);
            let pieces = pieces(&long.output, pairing.specials, Cut::Whole);
            let expect = Expect::Write(format, &long.content);
            let workload = format!("{} string argument, {}", kb(size), Cut::Whole.label());
            // Ours: checked, timed by the harness.
            let our_one_shot: Message = ours.make().parse(&long.output).into();
            let our_streamed = our_stream_message(&mut ours.make(), &pieces);
            let ours_verdict = Verdict::of(&our_streamed, &our_one_shot, &expect);
            let m_ours = self.harness.measure_with_setup(
                || ours.make(),
                |mut parser| {
                    stream(&mut parser, &pieces);
                    parser
                },
            );
            let ours_ns = median(&m_ours);
            ours_times.push((size, ours_ns));
            // The peer: the harness when a stream is short, else single runs (the first accumulates the
            // message for the check, the others only read it).
            let (theirs_ns, verdict): (Result<f64, String>, Result<Verdict, String>) = if size < MID
            {
                let check = self.check(
                    workload.clone(),
                    &long.output,
                    &pieces,
                    &expect,
                    ours,
                    theirs,
                );
                let m = guarded(|| {
                    self.harness.measure_with_setup(
                        || theirs.make(),
                        |mut peer| {
                            let mut sink = Count::default();
                            peer_stream(env, &mut peer, &pieces, &mut sink);
                            (sink.0, peer)
                        },
                    )
                });
                (m.map(|m| median(&m)), check.theirs)
            } else if size > MID && self.quick {
                (
                    Err("skipped (`--quick`)".to_owned()),
                    Err("skipped (`--quick`)".to_owned()),
                )
            } else {
                let runs = match (size > MID, self.quick) {
                    (true, _) => 1,
                    (false, true) => 2,
                    (false, false) => 3,
                };
                eprintln!(
                    "peers: {}: SGLang, {} string argument, {runs} single run(s)…",
                    format.name,
                    kb(size)
                );
                let outcome = guarded(|| {
                    let one_shot =
                        peer_message(peer_one_shot(env, &mut theirs.make(), &long.output));
                    let mut streamed = Message::default();
                    let (ns, _) = single_runs(
                        runs,
                        || theirs.make(),
                        |peer, run| {
                            if run == 0 {
                                peer_stream(env, peer, &pieces, &mut streamed);
                            } else {
                                let mut sink = Count::default();
                                peer_stream(env, peer, &pieces, &mut sink);
                                black_box(sink.0);
                            }
                        },
                    );
                    (ns, Verdict::of(&streamed, &one_shot, &expect))
                });
                match outcome {
                    Ok((ns, verdict)) => {
                        eprintln!("peers: … {}", time(ns));
                        (Ok(ns), Ok(verdict))
                    }
                    Err(panic) => (Err(panic.clone()), Err(panic)),
                }
            };
            let peer_right = verdict.as_ref().is_ok_and(Verdict::ok);
            section.checks.push(Check {
                workload,
                ours: ours_verdict,
                theirs: verdict,
            });
            if let Ok(ns) = theirs_ns {
                theirs_times.push((size, ns));
            }
            let r = theirs_ns.as_ref().ok().and_then(|&ns| ratio(ns, ours_ns));
            let mut theirs_cell = theirs_ns
                .as_ref()
                .map_or_else(Clone::clone, |&ns| stream_cell(ns, pieces.len()));
            if theirs_ns.is_ok() && !peer_right {
                theirs_cell.push_str(" — wrong parse");
            }
            section.row(
                format!(
                    "Long string argument, {}, {} deltas ({}): whole stream",
                    kb(size),
                    thousands(pieces.len()),
                    Cut::Whole.label()
                ),
                stream_cell(ours_ns, pieces.len()),
                theirs_cell,
                ratio_cell(r),
            );
        }
        let at = |times: &[(usize, f64)], size| {
            times.iter().find(|(s, _)| *s == size).map(|&(_, ns)| ns)
        };
        let growth = |times: &[(usize, f64)]| match (at(times, LARGE), at(times, MID)) {
            (Some(large), Some(mid)) => Some(large / mid),
            _ => None,
        };
        let ours_growth = growth(&ours_times);
        let theirs_growth = growth(&theirs_times);
        section.row(
            format!(
                "Long string argument: time({}) / time({})",
                kb(LARGE),
                kb(MID)
            ),
            ours_growth.map_or_else(|| "—".to_owned(), |g| format!("{g:.1}")),
            theirs_growth.map_or_else(|| "— (not measured)".to_owned(), |g| format!("{g:.1}")),
            "—".to_owned(),
        );
        section.target(
            "ours ≈ 10 (linear; ≤ 13)",
            Status::check(ours_growth.is_some_and(|g| g <= LINEAR_MAX)),
        );
        section.targets.linear = ours_growth;
    }

    fn allocations(
        &self,
        pairing: &Pairing,
        ours: &ParserFactory,
        theirs: &PeerFactory,
        section: &mut Section,
    ) {
        let format = pairing.format;
        let env = self.env;
        let text = format.output(LARGE);
        let pieces = pieces(&text, pairing.specials, Cut::Whole);
        // The window: 25% to 90% of the deltas, never past the end of the long prose.
        let prose_end = format.prose_end_in(&text);
        let prose_deltas = pieces
            .iter()
            .scan(0, |at, piece| {
                *at += piece.len();
                Some(*at)
            })
            .take_while(|&end| end < prose_end)
            .count();
        let (from, to) = (pieces.len() / 4, (pieces.len() * 9 / 10).min(prose_deltas));
        let phase = if format.reasoning {
            "reasoning"
        } else {
            "content"
        };
        let ours_window = our_window_allocations(ours, &pieces, from, to);
        let theirs_window = guarded(|| peer_window_allocations(env, theirs, &pieces, from, to));
        let n = to - from;
        section.row(
            format!(
                "Allocator calls per delta, steady state: deltas {}–{} of {} ({} output, {phase}, {})",
                thousands(from),
                thousands(to),
                thousands(pieces.len()),
                kb(text.len()),
                Cut::Whole.label()
            ),
            per_delta(ours_window, n),
            theirs_window
                .as_ref()
                .map_or_else(Clone::clone, |&c| per_delta(c, n)),
            allocation_ratio(theirs_window.as_ref().ok().copied(), ours_window),
        );
        let ours_whole = our_stream_allocations(ours, &pieces);
        let theirs_whole = guarded(|| peer_stream_allocations(env, theirs, &pieces));
        section.row(
            format!(
                "Allocator calls per delta, whole stream: {} deltas + end of stream ({} output, 3 calls, \
                 construction excluded)",
                thousands(pieces.len()),
                kb(text.len())
            ),
            per_delta(ours_whole, pieces.len()),
            theirs_whole
                .as_ref()
                .map_or_else(Clone::clone, |&c| per_delta(c, pieces.len())),
            allocation_ratio(theirs_whole.as_ref().ok().copied(), ours_whole),
        );
        // Inside a call: the 20 KB long argument (the peer's stream takes up to a few seconds).
        let long = format.long_argument(MID);
        let ours_long = format
            .long_argument_parsers()
            .unwrap_or_else(|e| panic!("{}: {e}", format.name));
        let theirs_long = PeerFactory {
            env,
            reasoning: pairing.long_reasoning,
            armed: pairing.long_armed,
            tool: pairing.tool,
        };
        let pieces = self::pieces(&long.output, pairing.specials, Cut::Whole);
        let ours_calls = our_stream_allocations(&ours_long, &pieces);
        let theirs_calls = guarded(|| {
            single_runs(
                1,
                || theirs_long.make(),
                |peer, _| {
                    let mut sink = Count::default();
                    peer_stream(env, peer, &pieces, &mut sink);
                    black_box(sink.0);
                },
            )
            .1
        });
        section.row(
            format!(
                "Allocator calls per delta inside a call: whole stream of the {} string argument ({} deltas, \
                 construction excluded)",
                kb(MID),
                thousands(pieces.len())
            ),
            per_delta(ours_calls, pieces.len()),
            theirs_calls
                .as_ref()
                .map_or_else(Clone::clone, |&c| per_delta(c, pieces.len())),
            allocation_ratio(theirs_calls.as_ref().ok().copied(), ours_calls),
        );
    }
}

fn allocation_ratio(theirs: Option<u64>, ours: u64) -> String {
    match theirs {
        Some(theirs) if ours > 0 => format!("{:.0}×", theirs as f64 / ours as f64),
        Some(0) => "— (both 0)".to_owned(),
        Some(_) => "— (ours 0)".to_owned(),
        None => "—".to_owned(),
    }
}

fn print_section(section: &Section) {
    let mut out = String::new();
    let _ = writeln!(out, "## {}\n\n{}\n", section.name, section.setup);
    out.push_str("| Measurement | Ours (llm-parse) | SGLang | Ratio | Target | Status |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for r in &section.rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.what,
            r.ours,
            r.theirs,
            r.ratio,
            r.target,
            r.status.label()
        );
    }
    let _ = writeln!(
        out,
        "\nCorrectness ({}): does the accumulated stream equal the library's own one-shot result, and \
         did it find the expected calls?\n",
        section.name
    );
    out.push_str(
        "| Workload | Ours: stream = one-shot | Ours: expected calls | SGLang: stream = one-shot | \
         SGLang: expected calls |\n",
    );
    out.push_str("|---|---|---|---|---|\n");
    for check in &section.checks {
        let (ours_stream, ours_calls) = check.ours.cells();
        let (theirs_stream, theirs_calls) = match &check.theirs {
            Ok(verdict) => verdict.cells(),
            Err(why) => (why.clone(), why.clone()),
        };
        let _ = writeln!(
            out,
            "| {} | {ours_stream} | {ours_calls} | {theirs_stream} | {theirs_calls} |",
            check.workload
        );
    }
    let _ = writeln!(out, "\n{}\n", summary_line(section));
    print!("{out}");
}

/// The per-target verdicts of a section.
fn verdicts(section: &Section) -> Vec<(String, Status, String)> {
    let t = &section.targets;
    let ratios = |items: &mut dyn Iterator<Item = (String, Option<f64>)>| {
        items
            .map(|(label, r)| format!("{label} {}", ratio_cell(r)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let one_shot_ok = !t.one_shot.is_empty()
        && t.one_shot
            .iter()
            .all(|(_, r)| r.is_some_and(|r| r >= ONE_SHOT_RATIO));
    let counted: Vec<_> = t.streaming.iter().filter(|(_, _, right)| *right).collect();
    let streaming_ok = !counted.is_empty()
        && counted
            .iter()
            .all(|(_, r, _)| r.is_some_and(|r| r >= STREAMING_RATIO));
    let wrong = t.streaming.len() - counted.len();
    let min = counted
        .iter()
        .filter_map(|(_, r, _)| *r)
        .min_by(f64::total_cmp);
    vec![
        (
            format!("one-shot ≥ {ONE_SHOT_RATIO}×"),
            Status::check(one_shot_ok),
            ratios(&mut t.one_shot.iter().cloned()),
        ),
        (
            "construction ≤ 1 µs".to_owned(),
            Status::check(t.construction_ns.is_some_and(|ns| ns <= CONSTRUCTION_NS)),
            t.construction_ns.map_or_else(|| "—".to_owned(), time),
        ),
        (
            format!("streaming ≥ {STREAMING_RATIO}× per delta"),
            Status::check(streaming_ok),
            format!(
                "lowest {} over {} rows{}",
                ratio_cell(min),
                counted.len(),
                if wrong > 0 {
                    format!("; {wrong} row(s) not counted: the peer's parse was wrong")
                } else {
                    String::new()
                }
            ),
        ),
        (
            "linear long argument".to_owned(),
            Status::check(t.linear.is_some_and(|g| g <= LINEAR_MAX)),
            t.linear
                .map_or_else(|| "—".to_owned(), |g| format!("200 KB / 20 KB = {g:.1}")),
        ),
    ]
}

fn summary_line(section: &Section) -> String {
    let parts: Vec<String> = verdicts(section)
        .into_iter()
        .map(|(target, status, detail)| format!("{target}: {} ({detail})", status.label()))
        .collect();
    format!("**{}**: {}.", section.name, parts.join("; "))
}

fn print_summary(sections: &[Section]) {
    let mut out = String::from("## Summary\n\n");
    out.push_str("| Format | Target | Status | Detail |\n|---|---|---|---|\n");
    let (mut pass, mut miss) = (0, 0);
    for section in sections {
        for (target, status, detail) in verdicts(section) {
            match status {
                Status::Pass => pass += 1,
                Status::Miss => miss += 1,
                Status::Info => {}
            }
            let _ = writeln!(
                out,
                "| {} | {target} | {} | {detail} |",
                section.name,
                status.label()
            );
        }
    }
    let _ = writeln!(out, "\n{pass} PASS, {miss} MISS.");
    let wrong_ours = sections.iter().filter(|s| !s.ours_ok()).count();
    if wrong_ours > 0 {
        let _ = writeln!(
            out,
            "\n> **Warning**: {wrong_ours} format(s) where one of our parses was wrong (see their tables)."
        );
    }
    let peer_wrong: usize = sections
        .iter()
        .map(|s| {
            s.checks
                .iter()
                .filter(|c| !c.theirs.as_ref().is_ok_and(Verdict::ok))
                .count()
        })
        .sum();
    let total: usize = sections.iter().map(|s| s.checks.len()).sum();
    let _ = writeln!(
        out,
        "SGLang was wrong (or skipped) on {peer_wrong} of {total} workloads; ours on {} of {total}.\n",
        sections
            .iter()
            .map(|s| s.checks.iter().filter(|c| !c.ours.ok()).count())
            .sum::<usize>()
    );
    print!("{out}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_stay_whole() {
        let text = "ab</think>cdefghi<｜tool▁sep｜>{}";
        let got = pieces(text, DEEPSEEK_SPECIALS, Cut::Whole);
        assert_eq!(
            got,
            ["ab", "</think>", "cdef", "ghi", "<｜tool▁sep｜>", "{}"]
        );
        assert_eq!(pieces(text, DEEPSEEK_SPECIALS, Cut::Split).concat(), text);
    }

    #[test]
    fn json_comparison() {
        assert!(same_json(r#"{"a": 5}"#, r#"{"a":5}"#, false));
        assert!(!same_json(r#"{"a": 5}"#, r#"{"a":"5"}"#, false));
        assert!(same_json(r#"{"a": 5}"#, r#"{"a":"5"}"#, true));
        assert!(same_json("not json", "not json", false));
    }

    #[test]
    fn tools_are_valid() {
        let tools = declared_tools();
        assert_eq!(tools.len(), 4);
        assert_eq!(tools[3].function.name, "write_file");
    }
}
