//! The checks run on every input: no panic, streaming equals one-shot, the call protocol, valid calls
//! are JSON objects, no leaked marker fragments, and the oracle for undamaged inputs.
//!
//! Every streamed run is recorded through a [`Sink`] of our own ([`Record`]), so that each piece of text
//! a parser hands out is seen as it was handed out (not merged with its neighbours, as [`Deltas`] does);
//! one chunking per input goes through [`Parser::push`] and the merged [`Deltas`] instead, so that path is
//! covered too.
//!
//! [`Parser::push`]: parser_core::Parser::push

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Once, OnceLock};

use parser_auto::{Accumulator, Delta, Deltas, DeltasView, ParseOptions, ParsedMessage, Sink};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::setup::{Cut, Setup};

/// Which check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// The parser panicked.
    Panic,
    /// A chunking gave a different message than one-shot.
    Stream,
    /// The call protocol was broken (indices, ids, starts, fragments, ends).
    Protocol,
    /// A call flagged valid whose arguments are not a JSON object.
    Json,
    /// Content or reasoning holds a marker, or a fragment of one, that the input did not hold as text.
    Leak,
    /// An undamaged input did not parse to what was generated.
    Oracle,
    /// One input took far longer than its size justifies.
    Slow,
}

impl CheckKind {
    /// The name used in reports and regression headers.
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Panic => "panic",
            CheckKind::Stream => "stream",
            CheckKind::Protocol => "protocol",
            CheckKind::Json => "json",
            CheckKind::Leak => "leak",
            CheckKind::Oracle => "oracle",
            CheckKind::Slow => "slow",
        }
    }
}

impl std::fmt::Display for CheckKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed check: which, under which chunking, and what was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The check.
    pub kind: CheckKind,
    /// The chunking under which it failed.
    pub cut: Cut,
    /// What was seen (messages, the offending event).
    pub detail: String,
}

impl Failure {
    /// What kind of failure this is, finer than [`kind`](Self::kind): the check and, for the protocol
    /// and leak checks, which rule broke. Shrinking keeps it, so that a shrunk input shows the same bug.
    pub fn class(&self) -> String {
        const RULES: &[&str] = &[
            "starts while call",
            "call start with index",
            "has an empty id",
            "has an empty name",
            "reuses the id",
            "argument fragment",
            "end of call",
            "never ended",
            "content/reasoning hold",
            "a piece ends with",
        ];
        match RULES.iter().find(|rule| self.detail.contains(**rule)) {
            Some(rule) => format!("{}: {rule}", self.kind),
            None => self.kind.name().to_owned(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.kind, self.cut, self.detail)
    }
}

/// What a generated output means: the oracle for an undamaged input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    /// The reasoning text.
    pub reasoning: String,
    /// The content text.
    pub content: String,
    /// Compare reasoning and content exactly (harmony keeps message text verbatim); otherwise after
    /// trimming, `None` when blank (DESIGN §4.8).
    #[serde(default)]
    pub exact_text: bool,
    /// The calls, in order.
    pub calls: Vec<ExpectedCall>,
}

/// One generated call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExpectedCall {
    /// The function name.
    pub name: String,
    /// The arguments: the exact text (raw-streamed formats) or a JSON text compared as a value (formats
    /// whose arguments the parser builds: XML, DSML).
    pub arguments: String,
    /// Compare [`arguments`](Self::arguments) as JSON values rather than as text.
    #[serde(default)]
    pub as_json: bool,
    /// The id, when the format carries one that must come back byte-exact (Kimi).
    #[serde(default)]
    pub id: Option<String>,
}

/// A bug the fuzzer found that is reported but not fixed yet (its fix lies outside this crate's reach).
/// A failure it matches is counted apart and does not make a run fail; its first input is written with
/// the issue's id in the header, and the regression test expects that file to keep failing until the
/// bug is fixed (then the entry here and the file's `open` note are to be removed).
#[derive(Debug)]
pub struct KnownIssue {
    /// A short id, written into regression headers.
    pub id: &'static str,
    /// What is wrong and the proposed fix.
    pub summary: &'static str,
    /// Whether a failure is this issue.
    pub matches: fn(&Setup, &str, &Failure) -> bool,
}

/// The known, reported, unfixed issues: none now. The first runs found three — a DSML typed value over
/// the buffer limit losing its key, an end token inside a call held in reasoning being dropped, and the
/// generic engine re-searching an unbalanced JSON array element to the end of the output once per
/// element (quadratic) — all fixed and kept as regressions.
pub const KNOWN_ISSUES: &[KnownIssue] = &[];

/// The known issue `failure` is, if any.
pub fn known_issue(setup: &Setup, input: &str, failure: &Failure) -> Option<&'static KnownIssue> {
    KNOWN_ISSUES
        .iter()
        .find(|issue| (issue.matches)(setup, input, failure))
}

// ---------------------------------------------------------------------------------------------------
// Panics.

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, catching a panic: `Err` holds the panic message and location. While `f` runs on this thread
/// the panic hook stays quiet (other threads' panics still print).
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let quiet = QUIET.try_with(Cell::get).unwrap_or(false);
            if quiet {
                let _ = LAST_PANIC.try_with(|last| *last.borrow_mut() = Some(info.to_string()));
            } else {
                previous(info);
            }
        }));
    });
    QUIET.with(|quiet| quiet.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|quiet| quiet.set(false));
    result.map_err(|payload| {
        LAST_PANIC
            .with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| match payload.downcast_ref::<&str>() {
                Some(text) => (*text).to_owned(),
                None => payload
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| "a panic with a non-text payload".to_owned()),
            })
    })
}

// ---------------------------------------------------------------------------------------------------
// Recording.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Reasoning,
    Content,
    Start { index: usize, name_at: usize },
    Arguments { index: usize },
    End { index: usize, valid: bool },
}

#[derive(Clone, Copy, Debug)]
struct Event {
    kind: Kind,
    start: usize,
    end: usize,
    /// How many bytes of the input the parser had been given when it wrote the event: where in the input
    /// a text piece can have come from, at the latest.
    seen: usize,
}

/// Every event a parser wrote, in order, each text piece as it was handed to the sink.
#[derive(Clone, Debug, Default)]
pub struct Record {
    text: String,
    events: Vec<Event>,
    /// Input bytes pushed so far (set by the driver before each push).
    seen: usize,
}

impl Record {
    fn push(&mut self, kind: Kind, text: &str) {
        let start = self.text.len();
        self.text.push_str(text);
        self.events.push(Event {
            kind,
            start,
            end: self.text.len(),
            seen: self.seen,
        });
    }

    fn slice(&self, event: &Event) -> &str {
        &self.text[event.start..event.end]
    }

    /// Writes every event into `sink`, in order.
    pub fn replay(&self, sink: &mut dyn Sink) {
        for event in &self.events {
            let text = self.slice(event);
            match event.kind {
                Kind::Reasoning => sink.reasoning(text),
                Kind::Content => sink.content(text),
                Kind::Start { index, name_at } => {
                    let split = name_at - event.start;
                    sink.tool_call_start(index, &text[..split], &text[split..]);
                }
                Kind::Arguments { index } => sink.tool_call_arguments(index, text),
                Kind::End { index, valid } => sink.tool_call_end(index, valid),
            }
        }
    }

    /// The message the events add up to (as a client accumulating the stream builds it).
    pub fn message(&self) -> ParsedMessage {
        let mut out = Accumulator::new();
        self.replay(&mut out);
        out.into_message()
    }

    /// The text pieces (reasoning and content), in order, each with the input bytes seen when it was
    /// written.
    fn text_pieces(&self) -> impl Iterator<Item = (&str, usize)> + '_ {
        self.events
            .iter()
            .filter(|e| matches!(e.kind, Kind::Reasoning | Kind::Content))
            .map(|e| (self.slice(e), e.seen))
            .filter(|(t, _)| !t.is_empty())
    }

    fn extend_deltas(&mut self, deltas: &Deltas) {
        deltas.replay(self);
    }
}

impl Sink for Record {
    fn reasoning(&mut self, text: &str) {
        self.push(Kind::Reasoning, text);
    }
    fn content(&mut self, text: &str) {
        self.push(Kind::Content, text);
    }
    fn tool_call_start(&mut self, index: usize, id: &str, name: &str) {
        let start = self.text.len();
        self.text.push_str(id);
        let name_at = self.text.len();
        self.text.push_str(name);
        self.events.push(Event {
            kind: Kind::Start { index, name_at },
            start,
            end: self.text.len(),
            seen: self.seen,
        });
    }
    fn tool_call_arguments(&mut self, index: usize, fragment: &str) {
        self.push(Kind::Arguments { index }, fragment);
    }
    fn tool_call_end(&mut self, index: usize, valid: bool) {
        let at = self.text.len();
        self.events.push(Event {
            kind: Kind::End { index, valid },
            start: at,
            end: at,
            seen: self.seen,
        });
    }
}

/// Runs `text` through a fresh parser cut by `cut`. Through the parser's own sink interface (every
/// piece as handed out), or with `via_deltas` through `Parser::push` and its merged [`Deltas`].
pub fn record(
    setup: &Setup,
    options: &ParseOptions,
    text: &str,
    cut: Cut,
    via_deltas: bool,
) -> Result<Record, String> {
    let tokens = setup.tokens();
    guarded(|| {
        let mut parser = setup.build_with(options);
        // Through `Deltas`, a second parser takes the same pieces through `push_view`, which must
        // give the same events.
        let mut viewed = via_deltas.then(|| setup.build_with(options));
        let mut record = Record::default();
        for piece in cut.split(text, tokens) {
            record.seen += piece.len();
            if via_deltas {
                let deltas = parser.push(piece);
                if let Some(viewed) = viewed.as_mut() {
                    same_events(deltas, viewed.push_view(piece), piece);
                }
                record.extend_deltas(deltas);
            } else {
                parser.push_into(piece, &mut record);
            }
        }
        if via_deltas {
            record.extend_deltas(parser.finish());
        } else {
            parser.finish_into(&mut record);
        }
        record
    })
}

/// Panics (a failure the guard reports) unless a push's `Deltas` and its `push_view` are the same
/// events, call ids aside.
fn same_events(pushed: &Deltas, viewed: DeltasView<'_>, piece: &str) {
    fn without_id(delta: Delta<'_>) -> Delta<'_> {
        match delta {
            Delta::ToolCallStart { index, name, .. } => Delta::ToolCallStart {
                index,
                id: "",
                name,
            },
            other => other,
        }
    }
    let pushed: Vec<Delta<'_>> = pushed.iter().map(without_id).collect();
    let viewed: Vec<Delta<'_>> = viewed.iter().map(without_id).collect();
    assert_eq!(pushed, viewed, "push and push_view differ on {piece:?}");
}

// ---------------------------------------------------------------------------------------------------
// The checks.

/// Runs every check on `text` under `setup`: one-shot (`Parser::parse`), then each of `cuts` (the first
/// [`Cut::RandomTokens`] among them through `Parser::push` and [`Deltas`], the others through the sink
/// interface). With `expected`, the message must also be what was generated. Returns the one-shot
/// message.
pub fn check(
    setup: &Setup,
    text: &str,
    cuts: &[Cut],
    expected: Option<&Expected>,
) -> Result<ParsedMessage, Failure> {
    let options = setup.options();
    let one_shot = guarded(|| setup.build_with(&options).parse(text)).map_err(|why| Failure {
        kind: CheckKind::Panic,
        cut: Cut::Whole,
        detail: why,
    })?;
    let markers = MarkerTable::for_setup(setup);
    let mut deltas_done = false;
    for &cut in std::iter::once(&Cut::Whole).chain(cuts.iter().filter(|c| **c != Cut::Whole)) {
        let via_deltas = !deltas_done && matches!(cut, Cut::RandomTokens(_));
        deltas_done |= via_deltas;
        let fail = |kind, detail| Failure { kind, cut, detail };
        let record = record(setup, &options, text, cut, via_deltas)
            .map_err(|why| fail(CheckKind::Panic, why))?;
        check_protocol(&record, text).map_err(|why| fail(CheckKind::Protocol, why))?;
        let message = record.message();
        if message != one_shot {
            return Err(fail(
                CheckKind::Stream,
                format!(
                    "streamed message differs from one-shot\n one-shot: {one_shot:?}\n streamed: {message:?}"
                ),
            ));
        }
        if !via_deltas && !rewrites_text(setup, text) {
            check_leaks(text, &record, &markers).map_err(|why| fail(CheckKind::Leak, why))?;
        }
    }
    for (n, call) in one_shot.tool_calls.iter().enumerate() {
        if call.valid && !parser_core::is_json_object(&call.arguments) {
            return Err(Failure {
                kind: CheckKind::Json,
                cut: Cut::Whole,
                detail: format!(
                    "call {n} is flagged valid but its arguments are not a JSON object: {call:?}"
                ),
            });
        }
    }
    if let Some(expected) = expected {
        check_oracle(&one_shot, expected).map_err(|why| Failure {
            kind: CheckKind::Oracle,
            cut: Cut::Whole,
            detail: why,
        })?;
    }
    Ok(one_shot)
}

/// The call protocol (the [`Sink`] contract): `ToolCallStart` once per call, with indices 0, 1, 2… in
/// order, a non-empty id unique in the message and a non-empty name, after the previous call ended;
/// argument fragments and the end only for the call that is open; exactly one end per started call.
///
/// An id the model wrote itself (Kimi's `functions.NAME:IDX`, Mistral's 9-character ids) comes back as
/// written (JSON-decoded where it is a JSON string), so the model can repeat one: only a repeated id
/// that looks generated (`call_` and 24 letters or digits) and that `input` does not hold as many times
/// is a failure.
pub fn check_protocol(record: &Record, input: &str) -> Result<(), String> {
    let mut ids: Vec<&str> = Vec::new();
    // Per id: how often it was used so far, and how often the input holds it.
    let mut used: HashMap<&str, usize> = HashMap::new();
    let mut in_input: HashMap<&str, usize> = HashMap::new();
    // The index of the call that is open (started, not ended).
    let mut open: Option<usize> = None;
    for (n, event) in record.events.iter().enumerate() {
        let at = || format!("event {n}");
        match event.kind {
            Kind::Reasoning | Kind::Content => {}
            Kind::Start { index, name_at } => {
                let id = &record.text[event.start..name_at];
                let name = &record.text[name_at..event.end];
                if let Some(previous) = open {
                    return Err(format!(
                        "{}: call {index} ({name}) starts while call {previous} has not ended",
                        at()
                    ));
                }
                if index != ids.len() {
                    return Err(format!(
                        "{}: call start with index {index}, expected {}",
                        at(),
                        ids.len()
                    ));
                }
                if id.is_empty() {
                    return Err(format!("{}: call {index} ({name:?}) has an empty id", at()));
                }
                if name.is_empty() {
                    return Err(format!(
                        "{}: call {index} (id {id:?}) has an empty name",
                        at()
                    ));
                }
                let uses = used.entry(id).or_insert(0);
                *uses += 1;
                let uses = *uses;
                if uses > 1
                    && looks_generated(id)
                    && *in_input
                        .entry(id)
                        .or_insert_with(|| input.matches(id).count())
                        < uses
                {
                    let first = ids.iter().position(|known| *known == id).unwrap_or(0);
                    return Err(format!(
                        "{}: call {index} ({name}) reuses the id {id:?} of call {first}",
                        at()
                    ));
                }
                ids.push(id);
                open = Some(index);
            }
            Kind::Arguments { index } => {
                if open != Some(index) {
                    return Err(format!(
                        "{}: argument fragment {:?} for call {index}, but the open call is {open:?}",
                        at(),
                        record.slice(event)
                    ));
                }
            }
            Kind::End { index, .. } => {
                if open != Some(index) {
                    return Err(format!(
                        "{}: end of call {index}, but the open call is {open:?} ({} started)",
                        at(),
                        ids.len()
                    ));
                }
                open = None;
            }
        }
    }
    match open {
        Some(index) => Err(format!("call {index} never ended")),
        None => Ok(()),
    }
}

/// Whether `id` has the shape of a generated call id (`call_` and 24 letters or digits).
fn looks_generated(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|rest| rest.len() == 24 && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Trimmed, `None` when blank (the message convention).
fn norm(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

/// Compares a message with what was generated.
pub fn check_oracle(message: &ParsedMessage, expected: &Expected) -> Result<(), String> {
    let mut problems = Vec::new();
    let text_ok = |got: Option<&str>, want: &str| {
        if expected.exact_text {
            got == Some(want).filter(|t| !t.trim().is_empty())
        } else {
            norm(got) == norm(Some(want))
        }
    };
    if !text_ok(message.reasoning.as_deref(), &expected.reasoning) {
        problems.push(format!(
            "reasoning: got {:?}, generated {:?}",
            message.reasoning, expected.reasoning
        ));
    }
    if !text_ok(message.content.as_deref(), &expected.content) {
        problems.push(format!(
            "content: got {:?}, generated {:?}",
            message.content, expected.content
        ));
    }
    if message.tool_calls.len() != expected.calls.len() {
        problems.push(format!(
            "{} calls, generated {}: {:?}",
            message.tool_calls.len(),
            expected.calls.len(),
            message.tool_calls
        ));
    } else {
        for (n, (got, want)) in message.tool_calls.iter().zip(&expected.calls).enumerate() {
            if got.name != want.name {
                problems.push(format!(
                    "call {n}: name {:?}, generated {:?}",
                    got.name, want.name
                ));
            }
            if !got.valid {
                problems.push(format!("call {n}: flagged not valid: {got:?}"));
            }
            let same = if want.as_json {
                match (
                    serde_json::from_str::<Value>(&got.arguments),
                    serde_json::from_str::<Value>(&want.arguments),
                ) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => false,
                }
            } else {
                got.arguments == want.arguments
            };
            if !same {
                problems.push(format!(
                    "call {n} ({}): arguments {:?}, generated {:?}",
                    got.name, got.arguments, want.arguments
                ));
            }
            if let Some(id) = &want.id
                && &got.id != id
            {
                problems.push(format!("call {n}: id {:?}, generated {id:?}", got.id));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

// ---------------------------------------------------------------------------------------------------
// Leaked markers.

/// Every family's markers (special tokens and tags), for the leak check. The check is sound for any set of
/// markers (it never depends on which ones a parser treats as markup), so it uses all of them.
fn all_markers() -> Vec<&'static str> {
    use parser_auto::{deepseek, glm, gptoss, kimi, qwen};
    let mut all: Vec<&'static str> = Vec::new();
    for list in [
        deepseek::markers::SPECIAL_TOKENS,
        deepseek::markers::CALLS_BEGIN_SPELLINGS,
        deepseek::markers::DSML_BLOCKS,
        deepseek::markers::DSML_BLOCK_ENDS,
        qwen::markers::SPECIAL_TOKENS,
        kimi::markers::SPECIAL_TOKENS,
        gptoss::markers::SPECIAL_TOKENS,
        glm::markers::SPECIAL_TOKENS,
    ] {
        all.extend_from_slice(list);
    }
    all
}

/// Markers, indexed by their first byte.
#[derive(Debug)]
pub struct MarkerTable {
    markers: Vec<&'static str>,
    by_first: Vec<Vec<u16>>,
    max_len: usize,
    /// Every token of the setup, whitespace-led ones included: what a parser may consume as markup.
    tokens: Vec<&'static str>,
    /// End-of-sequence tokens, which a parser may drop from the middle of text it then writes as one
    /// piece (see [`check_leaks`]).
    droppable: Vec<String>,
}

/// End-of-sequence tokens that parsers drop wherever they stand (DeepSeek, Qwen, Kimi, GLM; the
/// families written as data: their specs' end-of-turn tokens, which a template route to them no
/// longer lists through an analysis).
const DROPPABLE: &[&str] = &[
    "<｜end▁of▁sentence｜>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|user|>",
    "<|observation|>",
    "[e~[",
    "<seed:eos>",
    "<|end_of_text|>",
    "<SPECIAL_12>",
    "</assistant>",
    "<|role_end|>",
    "<|iquest_end|>",
    "<|endofresponse|>",
    "<|plamo:tag|>",
];

/// End-of-turn tokens of the families written as data, by registry family: the generic engine drops its
/// spec's `end_of_turn` tokens wherever they stand, as it does the [`DROPPABLE`] ones (LongCat's
/// `</longcat_s>` between a cut-off call and the text after it). Kept per family: another family's
/// parser keeps these as text, and the leak check stays strict there.
const SPEC_DROPPED: &[(&str, &[&str])] = &[
    ("apertus", &["<|assistant_end|>"]),
    ("apriel", &["<|end|>", "[END FINAL RESPONSE]"]),
    (
        "cohere",
        &["<|END_OF_TURN_TOKEN|>", "<|START_TEXT|>", "<|END_TEXT|>"],
    ),
    ("ernie", &["</s>", "<|end_of_sentence|>"]),
    ("exaone", &["[|endofturn|]"]),
    ("fireworks", &["<|eot_id|>", "<|eom_id|>"]),
    ("functionary", &["<|eot_id|>", "<|eom_id|>"]),
    ("gemma", &["<end_of_turn>"]),
    ("gigachat", &["<|message_sep|>\n\n", "</s>"]),
    ("hunyuan", &["<|eos|>"]),
    ("jamba", &["<|eom|>"]),
    ("longcat", &["</longcat_s>"]),
    ("phi", &["<|end|>"]),
    ("stepfun", &["<|EOT|>"]),
    ("upstage", &["<|begin|>assistant", "<|flush|>"]),
    ("xlam", &["<|eot_id|>", "<|eom_id|>"]),
];

/// The end-of-turn tokens `setup`'s parser drops besides [`DROPPABLE`] (see [`SPEC_DROPPED`]).
fn spec_dropped(setup: &Setup) -> &'static [&'static str] {
    let Ok(entry) = parser_auto::entry_by_name(&setup.parser) else {
        return &[];
    };
    SPEC_DROPPED
        .iter()
        .find(|(family, _)| *family == entry.family)
        .map_or(&[], |(_, tokens)| *tokens)
}

impl MarkerTable {
    /// Every family's markers plus the setup's tokens (a template's markers; those starting with
    /// whitespace are left out), and the end-of-sequence tokens (a template's end-of-turn tokens too).
    /// Cached per token list and template.
    pub fn for_setup(setup: &Setup) -> Arc<MarkerTable> {
        /// Tables by the address and length of their token list, the template, and the address of
        /// the family's dropped tokens.
        type Tables = HashMap<(usize, usize, Option<String>, usize), Arc<MarkerTable>>;
        static CACHE: OnceLock<Mutex<Tables>> = OnceLock::new();
        let tokens = setup.tokens();
        let dropped = spec_dropped(setup);
        let key = (
            tokens.as_ptr() as usize,
            tokens.len(),
            setup.template.clone(),
            dropped.as_ptr() as usize,
        );
        let mut cache = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        cache
            .entry(key)
            .or_insert_with(|| {
                let mut markers = all_markers();
                markers.extend(tokens.iter().filter(|t| {
                    t.chars().count() >= 2 && !t.starts_with(|c: char| c.is_whitespace())
                }));
                let mut table = MarkerTable::new(markers);
                table.tokens.extend(tokens.iter().filter(|t| !t.is_empty()));
                table
                    .droppable
                    .extend(dropped.iter().map(|t| (*t).to_owned()));
                if let Some(file) = &setup.template
                    && let Some(analysis) = crate::setup::prepared(file).analysis()
                {
                    table.droppable.extend(
                        analysis
                            .end_of_turn
                            .iter()
                            .filter(|t| !t.trim().is_empty())
                            .cloned(),
                    );
                }
                Arc::new(table)
            })
            .clone()
    }

    /// A table of `markers`.
    pub fn new(mut markers: Vec<&'static str>) -> MarkerTable {
        markers.sort_unstable();
        markers.dedup();
        markers.retain(|m| !m.is_empty());
        let mut by_first = vec![Vec::new(); 256];
        for (n, m) in markers.iter().enumerate() {
            by_first[m.as_bytes()[0] as usize].push(n as u16);
        }
        let max_len = markers.iter().map(|m| m.len()).max().unwrap_or(0);
        let tokens = markers.clone();
        MarkerTable {
            markers,
            by_first,
            max_len,
            tokens,
            droppable: DROPPABLE.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    fn starting_with_byte(&self, byte: u8) -> impl Iterator<Item = &'static str> + '_ {
        self.by_first[byte as usize]
            .iter()
            .map(|&n| self.markers[n as usize])
    }

    /// Adds to `counts` (one slot per marker) every occurrence of every marker in `text`, overlapping
    /// ones included.
    fn count(&self, text: &str, counts: &mut [usize]) {
        let bytes = text.as_bytes();
        for (at, &byte) in bytes.iter().enumerate() {
            for &n in &self.by_first[byte as usize] {
                if bytes[at..].starts_with(self.markers[n as usize].as_bytes()) {
                    counts[n as usize] += 1;
                }
            }
        }
    }

    /// Whether some marker or token starts `text`.
    fn starts_marker(&self, text: &str) -> bool {
        self.tokens.iter().any(|t| text.starts_with(t))
    }

    /// The markers of which `p` is a proper prefix.
    fn completions<'a>(&'a self, p: &'a str) -> impl Iterator<Item = &'static str> + 'a {
        self.starting_with_byte(p.as_bytes()[0])
            .filter(move |m| m.len() > p.len() && m.starts_with(p))
    }
}

/// Every position where `needle` occurs in `haystack`, overlapping occurrences included.
fn occurrences<'a>(haystack: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + haystack.get(from..)?.find(needle)?;
        from = at + haystack[at..].chars().next().map_or(1, char::len_utf8);
        Some(at)
    })
}

/// Parsers whose reasoning and content are not slices of the input when it holds a backslash:
/// MiniCPM-V restores the newlines its tokenizer writes out as `\` `n`. The leak check places each
/// piece in the input, which a restored newline is not (found by the fuzzer: a restored `\n` placed at
/// a later real newline made a bare `<|reserve` look like a cut marker), so it judges such inputs
/// only when they have no backslash (then the text is the input's, as for every other parser).
fn rewrites_text(setup: &Setup, text: &str) -> bool {
    setup.parser == "minicpmv" && text.contains('\\')
}

/// No marker, and no fragment of one, in content or reasoning that the input did not hold *as text*
/// (DESIGN §4.2: "no `</thi`, `<｜tool▁` fragment ever reaches content, reasoning or arguments").
///
/// # The rule
/// Let the *pieces* be the text a parser hands its sink as reasoning or content, in order, each call
/// separately (never merged), and `S` their concatenation. The markers are every family's special tokens
/// and tags (and a template's markers).
///
/// 1. **Whole markers.** For each marker `M`, the occurrences of `M` inside the pieces (each piece
///    counted on its own) must not outnumber the occurrences of `M` in the input.
/// 2. **Fragments at the end of a piece** — the shape of a held-back partial marker released as text.
///    When a piece ends with `P`, a proper prefix of a marker of at least two characters, lying inside
///    that piece:
///    - if `S` goes on with the rest of a marker that starts with `P`, the marker was released as text
///      in several pieces: fine;
///    - otherwise, find where in the input the piece may have come from: every occurrence of the piece
///      that starts at or after where the previous pieces can have ended (their leftmost placement) and
///      ends within the input the parser had been given when it wrote the piece. If at one of them the
///      input does not go on into a marker that starts with `P` (a *bare* `P`: text that merely looks
///      like a marker's start, or the end of the input), or `S` goes on with some of the rest of the
///      marker (none included) up to where another marker starts in the input (which may have taken
///      the remaining characters: `<|m`, `essage|` then `>>>` in `<|message|>>>`), the fragment was text: fine. If at every one
///      the input goes on with the rest of such a marker, the piece ends in the first part of a marker
///      whose rest was not released as text: a leak. If there is none, the piece is not a slice of the
///      input (below): not judged.
///
/// # Why it raises no false alarm
/// It relies on one property of every parser here: a piece of reasoning or content is a slice of the
/// input, pieces come in input order and never overlap (text is passed through or dropped, never
/// invented, re-ordered or repeated). Then an occurrence of `M` inside a piece is an occurrence in the
/// input, distinct pieces give distinct input positions, and rule 1 holds. For rule 2: placing each piece
/// at its leftmost occurrence after the previous one never places it later than it really is, so the
/// true source of a piece is among the occurrences searched (a parser cannot write text it has not been
/// given, which bounds the search on the right). Where the input goes on at the true end of the piece
/// with the rest `R` of a marker `P R`, a correct parser that released `P` as text treated that marker as
/// text, so `R` comes next in `S` — up to where another marker starts inside `R`, which the parser may
/// have taken as markup (nothing between them in the input can come out before `R`, by order).
/// The one place where a piece is not a slice — a parser that drops an end-of-sequence token from the
/// middle of held text and emits what is around it as one piece — is covered: rule 1 also counts the
/// markers of the input with its end-of-sequence tokens removed (the text around a dropped token may
/// join into a marker) and takes the larger count, a rule-1 excess counts only
/// when every piece holding the marker is found verbatim in the input, and rule 2 does not judge a piece
/// whose possible source (between the cursor and the input seen) holds an end-of-sequence token (the
/// families' own, and a template's end-of-turn tokens), nor one not found at all.
/// So a failure always names a piece that came from the input and a marker occurrence the parser both
/// used as markup and released as text.
///
/// # Cost
/// Linear in the input and the pieces: pieces are placed with a cursor that only moves forward, and a
/// fragment is looked up only between that cursor and the input seen when its piece was written.
pub fn check_leaks(input: &str, record: &Record, markers: &MarkerTable) -> Result<(), String> {
    let pieces: Vec<(&str, usize)> = record.text_pieces().collect();
    // Rule 1.
    let mut out_counts = vec![0usize; markers.markers.len()];
    for (piece, _) in &pieces {
        markers.count(piece, &mut out_counts);
    }
    if out_counts.iter().any(|&c| c > 0) {
        let mut in_counts = vec![0usize; markers.markers.len()];
        markers.count(input, &mut in_counts);
        // A parser drops end-of-sequence tokens wherever they stand, so the text around one may join
        // into a marker (`</a<|iquest_end|>rg_key>`): count the input without them too.
        if markers.droppable.iter().any(|t| input.contains(t)) {
            let mut joined = input.to_owned();
            for token in &markers.droppable {
                joined = joined.replace(token, "");
            }
            let mut joined_counts = vec![0usize; markers.markers.len()];
            markers.count(&joined, &mut joined_counts);
            for (had, joined) in in_counts.iter_mut().zip(joined_counts) {
                *had = (*had).max(joined);
            }
        }
        for (n, (&got, &had)) in out_counts.iter().zip(&in_counts).enumerate() {
            if got > had {
                let marker = markers.markers[n];
                let holders: Vec<&str> = pieces
                    .iter()
                    .map(|(p, _)| *p)
                    .filter(|p| p.contains(marker))
                    .collect();
                if holders.iter().all(|p| input.contains(*p)) {
                    return Err(format!(
                        "content/reasoning hold {got} × {marker:?}, the input only {had}; pieces holding it: {:?}",
                        holders.iter().take(4).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    // Rule 2. Where the end-of-sequence tokens stand in the input, sorted by start.
    let mut drops: Vec<(usize, usize)> = markers
        .droppable
        .iter()
        .flat_map(|t| occurrences(input, t).map(move |at| (at, at + t.len())))
        .collect();
    drops.sort_unstable();
    let s: String = pieces.iter().map(|(p, _)| *p).collect();
    let mut cursor = 0;
    let mut piece_start = 0;
    for &(piece, seen) in &pieces {
        let piece_end = piece_start + piece.len();
        let seen = seen.min(input.len());
        // The leftmost placement of the piece, for the next pieces' cursor.
        let range = input.get(cursor..seen).unwrap_or("");
        let placed = range.find(piece).map(|at| cursor + at);
        // A piece whose possible source holds an end-of-sequence token may be two slices joined where
        // the token was dropped (held text released as one piece): not judged.
        let first_drop = drops.partition_point(|&(start, _)| start < cursor);
        let spliced = drops[first_drop..]
            .iter()
            .take_while(|&&(start, _)| start < seen)
            .any(|&(_, end)| end <= seen);
        let judged = placed.is_some() && !spliced;
        let lo = piece_end.saturating_sub(markers.max_len).max(piece_start);
        for i in (lo..piece_end).filter(|&i| judged && s.is_char_boundary(i)) {
            if markers.by_first[s.as_bytes()[i] as usize].is_empty() {
                continue;
            }
            let p = &s[i..piece_end];
            if p.chars().nth(1).is_none() || markers.completions(p).next().is_none() {
                continue;
            }
            if markers.completions(p).any(|m| s[i..].starts_with(m)) {
                continue;
            }
            let mut bare = false;
            let mut marker = None;
            for at in occurrences(range, piece) {
                let end = cursor + at + piece.len();
                let rest = &input[end - p.len()..];
                let Some(m) = markers.completions(p).find(|m| rest.starts_with(m)) else {
                    bare = true;
                    break;
                };
                // The rest of the marker released as text up to where another marker starts, which
                // may have taken the remaining characters (`<|m`, `essage|`, then `>>>` in
                // `<|message|>>>`): the parser chose that marker, fine.
                let r = &m[p.len()..];
                let mut k = s[piece_end..]
                    .bytes()
                    .zip(r.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                while !r.is_char_boundary(k) {
                    k -= 1;
                }
                // Any shorter release counts too: what follows in `S` may match the rest by chance
                // (`<|START_OF_TURN_TOKEN|>` released, `<|CHATBOT_TOKEN|>` taken as markup, then a
                // later `<`).
                let released_then_marker = (0..=k)
                    .filter(|&j| r.is_char_boundary(j))
                    .any(|j| markers.starts_marker(&input[end + j..]));
                if k == r.len() || released_then_marker {
                    bare = true;
                    break;
                }
                marker = Some(m);
            }
            if let (false, Some(marker)) = (bare, marker) {
                let next: String = s[piece_end..].chars().take(40).collect();
                return Err(format!(
                    "a piece ends with {p:?}, the start of the marker {marker:?} the input has there, \
                     but the rest of the marker is not released as text: piece {:?}, followed by {next:?}",
                    piece
                        .chars()
                        .rev()
                        .take(200)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect::<String>()
                ));
            }
        }
        if let Some(at) = placed {
            cursor = at + piece.len();
        }
        piece_start = piece_end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record_of(pieces: &[(&str, bool)]) -> Record {
        let mut record = Record::default();
        for (text, content) in pieces {
            if *content {
                record.content(text);
            } else {
                record.reasoning(text);
            }
        }
        record
    }

    fn record_with_input(input: &str, pieces: &[(&str, bool)]) -> Record {
        let mut record = record_of(pieces);
        for event in &mut record.events {
            event.seen = input.len();
        }
        record
    }

    #[test]
    fn leak_rules() {
        let table = MarkerTable::new(vec!["<|end|>", "<｜tool▁calls▁begin｜>", "</think>"]);
        let leaks = |input: &str, pieces: &[(&str, bool)]| {
            check_leaks(input, &record_with_input(input, pieces), &table).is_err()
        };
        // A fragment released and the marker consumed: a leak.
        assert!(leaks("Hi<|end|>there", &[("Hi<|", true), ("there", true)]));
        // The marker released as text in two pieces: fine.
        assert!(!leaks(
            "Hi<|end|>there",
            &[("Hi<|", true), ("end|>there", true)]
        ));
        // A bare prefix in the input: fine.
        assert!(!leaks("a<|x<|end|>", &[("a<|", true), ("x", true)]));
        // The same piece could come from a bare place or a marker's start: not judged a leak.
        assert!(!leaks("<|<|end|>", &[("<|", true)]));
        // A truncated marker at the end: fine.
        assert!(!leaks("so </thi", &[("so </thi", false)]));
        // A whole marker the input does not have twice.
        assert!(leaks(
            "a</think>b",
            &[("a</think>", false), ("</think>b", true)]
        ));
        assert!(!leaks("a</think>b", &[("a</think>b", true)]));
        // A piece that is not a slice of the input is not judged.
        assert!(!leaks("ab<|end|>", &[("x<|", true)]));
        // Nor one that may be two slices joined where an end-of-sequence token was dropped (found by
        // the fuzzer: a held DSML block released as reasoning without the token).
        let table = MarkerTable::new(vec!["<｜end▁of▁sentence｜>", "<｜DSML｜invoke"]);
        let input = "<｜DSML｜invoke name=e<｜end▁of▁sentence｜><｜<";
        let pieces = [("<｜DSML｜invoke name=e<｜", false), ("<", false)];
        assert!(check_leaks(input, &record_with_input(input, &pieces), &table).is_ok());
    }

    #[test]
    fn protocol_rules() {
        let mut record = Record::default();
        record.tool_call_start(0, "a", "f");
        record.tool_call_arguments(0, "{}");
        record.tool_call_end(0, true);
        record.tool_call_start(1, "b", "g");
        record.tool_call_end(1, false);
        assert_eq!(check_protocol(&record, ""), Ok(()));
        record.tool_call_start(2, "b", "h");
        assert!(check_protocol(&record, "").is_err());
        // A repeated id the model wrote twice.
        assert!(
            check_protocol(&record, "b b").is_err(),
            "call 1 never ended"
        );
        // Generated ids must be unique; a model-written one may repeat.
        let generated = "call_m2Bk2Vl1XalV93GvQJwwsQa1";
        let mut record = Record::default();
        record.tool_call_start(0, generated, "f");
        record.tool_call_end(0, true);
        record.tool_call_start(1, generated, "f");
        record.tool_call_end(1, true);
        assert!(check_protocol(&record, "").is_err());
        let mut record = Record::default();
        record.tool_call_start(0, "functions.f:0", "f");
        record.tool_call_end(0, true);
        record.tool_call_start(1, "functions.f:0", "f");
        record.tool_call_end(1, true);
        assert_eq!(check_protocol(&record, ""), Ok(()));
        let mut record = Record::default();
        record.tool_call_start(1, "a", "f");
        assert!(check_protocol(&record, "").is_err());
    }
}
