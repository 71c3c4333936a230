//! The fuzzing loop: inputs numbered 0, 1, 2…, each made from its own seed (so a run with a fixed seed
//! and input count is deterministic, whatever the number of threads), shared out between threads.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use parser_core::testing::Rng;

use crate::check::{CheckKind, Expected, Failure, check};
use crate::grammar::{self, Scale};
use crate::mutate;
use crate::regress::{self, Header};
use crate::setup::{Cut, Setup};
use crate::{Family, shrink};

/// How long to fuzz, from which seed, on how many threads, and where failures go.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Stop after this many inputs.
    pub inputs: Option<u64>,
    /// The seed of input 0 (each input's seed is derived from it, the family and the input's number).
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Where failures are written (`<dir>/<family>/<hash>.txt`); `None`: not written.
    pub regressions: Option<PathBuf>,
    /// Failures kept (shrunk, written, reported in full) per parser and check; later ones are counted.
    pub per_signature: usize,
    /// Time spent shrinking one failure.
    pub shrink_time: Duration,
    /// Print a progress line to stderr this often.
    pub progress: Option<Duration>,
    /// An input whose checks take longer than this plus [`slow_per_byte`](Self::slow_per_byte) per
    /// byte is reported as slow: the parsers are linear (one push costs O(delta)), so a long-enough
    /// input that breaks the bound is a quadratic path.
    pub slow_after: Duration,
    /// See [`slow_after`](Self::slow_after).
    pub slow_per_byte: Duration,
    /// A worker stuck on one input (shrinking aside) for longer than this stops the run: the input is
    /// reported, the worker is left behind.
    pub stall_after: Duration,
    /// Allow the rare big inputs: a ~1 MB value, thousands of calls, a slice repeated thousands of
    /// times, deep nesting (off for quick runs in debug builds).
    pub big_inputs: bool,
    /// For the seeded families ([`Family::Data`], [`Family::Machines`]): only the outputs of this
    /// registry parser (name or alias) or registry family (`cargo xtask fuzz --family longcat`).
    pub only: Option<String>,
}

impl Budget {
    /// `n` inputs, one thread, seed 1, nothing written.
    pub fn inputs(n: u64) -> Budget {
        Budget {
            duration: None,
            inputs: Some(n),
            seed: 1,
            threads: 1,
            regressions: None,
            per_signature: 3,
            shrink_time: Duration::from_secs(20),
            progress: None,
            // All checks of an input run at about 1 µs per byte in a release build; a debug build is
            // some 30 times slower.
            slow_after: Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 2 }),
            slow_per_byte: Duration::from_nanos(if cfg!(debug_assertions) {
                150_000
            } else {
                5_000
            }),
            stall_after: Duration::from_secs(if cfg!(debug_assertions) { 1800 } else { 120 }),
            big_inputs: true,
            only: None,
        }
    }

    /// `minutes` of fuzzing.
    pub fn minutes(minutes: f64) -> Budget {
        Budget {
            duration: Some(Duration::from_secs_f64(minutes * 60.0)),
            inputs: None,
            ..Budget::inputs(0)
        }
    }

    /// With a seed.
    pub fn with_seed(mut self, seed: u64) -> Budget {
        self.seed = seed;
        self
    }

    /// With worker threads.
    pub fn with_threads(mut self, threads: usize) -> Budget {
        self.threads = threads.max(1);
        self
    }

    /// Writing failures under `dir`.
    pub fn with_regressions(mut self, dir: PathBuf) -> Budget {
        self.regressions = Some(dir);
        self
    }
}

/// One failure found: the (shrunk) input and what failed.
#[derive(Clone, Debug)]
pub struct FoundFailure {
    /// The family fuzzed.
    pub family: Family,
    /// The parser and options.
    pub setup: Setup,
    /// The input, shrunk.
    pub input: String,
    /// The length of the input before shrinking.
    pub original_len: usize,
    /// The check that failed (on the original input).
    pub failure: Failure,
    /// The mutations applied to the generated output.
    pub mutations: Vec<&'static str>,
    /// The number of the input in the run.
    pub input_index: u64,
    /// The regression file written.
    pub file: Option<PathBuf>,
    /// The known, reported issue this failure is (see [`crate::check::KNOWN_ISSUES`]).
    pub known: Option<&'static str>,
}

impl std::fmt::Display for FoundFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let setup = serde_json::to_string(&self.setup).unwrap_or_default();
        writeln!(
            f,
            "[{}] {}{} on input #{} ({} bytes, shrunk to {}), mutations {:?}",
            self.family,
            self.known
                .map(|id| format!("known issue {id}: "))
                .unwrap_or_default(),
            self.failure.kind,
            self.input_index,
            self.original_len,
            self.input.len(),
            self.mutations
        )?;
        writeln!(f, "  setup: {setup}")?;
        writeln!(f, "  chunking: {}", self.failure.cut)?;
        writeln!(f, "  input: {:?}", shorten(&self.input, 600))?;
        writeln!(
            f,
            "  {}",
            shorten(&self.failure.detail, 1500).replace('\n', "\n  ")
        )?;
        if let Some(file) = &self.file {
            writeln!(f, "  written to {}", file.display())?;
        }
        Ok(())
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Report {
    /// The family.
    pub family: Family,
    /// Inputs tried.
    pub inputs: u64,
    /// Of which damaged by mutators.
    pub damaged: u64,
    /// Parser runs (one-shot and each chunking, all setups).
    pub runs: u64,
    /// Input bytes tried.
    pub bytes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Inputs per parser name (or template).
    pub per_parser: BTreeMap<String, u64>,
    /// The largest input.
    pub largest: usize,
    /// The slowest input: its time, length and number.
    pub slowest: (Duration, usize, u64),
    /// Failures kept (the first few per parser and check), shrunk.
    pub failures: Vec<FoundFailure>,
    /// Failures seen in all, by check (known issues left out).
    pub failure_counts: BTreeMap<CheckKind, u64>,
    /// Failures that are known, reported issues, by issue id.
    pub known_counts: BTreeMap<&'static str, u64>,
    /// The run stopped on an input that would not finish.
    pub stalled: bool,
}

impl Report {
    fn new(family: Family) -> Report {
        Report {
            family,
            inputs: 0,
            damaged: 0,
            runs: 0,
            bytes: 0,
            elapsed: Duration::ZERO,
            per_parser: BTreeMap::new(),
            largest: 0,
            slowest: (Duration::ZERO, 0, 0),
            failures: Vec::new(),
            failure_counts: BTreeMap::new(),
            known_counts: BTreeMap::new(),
            stalled: false,
        }
    }

    fn merge(&mut self, other: Report) {
        self.inputs += other.inputs;
        self.damaged += other.damaged;
        self.runs += other.runs;
        self.bytes += other.bytes;
        for (parser, n) in other.per_parser {
            *self.per_parser.entry(parser).or_default() += n;
        }
        self.largest = self.largest.max(other.largest);
        if other.slowest.0 > self.slowest.0 {
            self.slowest = other.slowest;
        }
        self.failures.extend(other.failures);
        for (kind, n) in other.failure_counts {
            *self.failure_counts.entry(kind).or_default() += n;
        }
        for (id, n) in other.known_counts {
            *self.known_counts.entry(id).or_default() += n;
        }
        self.stalled |= other.stalled;
    }

    /// Inputs per second.
    pub fn rate(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// True when no check failed.
    pub fn is_clean(&self) -> bool {
        self.failure_counts.is_empty()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{}: {} inputs ({} damaged) in {:.1} s: {:.0} inputs/s, {} parser runs, {:.1} MB; largest input {} bytes; slowest {:.0} ms ({} bytes, #{})",
            self.family,
            self.inputs,
            self.damaged,
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.runs,
            self.bytes as f64 / 1e6,
            self.largest,
            self.slowest.0.as_secs_f64() * 1e3,
            self.slowest.1,
            self.slowest.2,
        )?;
        let parsers: Vec<String> = self
            .per_parser
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect();
        writeln!(f, "  per parser: {}", parsers.join(", "))?;
        if !self.known_counts.is_empty() {
            let known: Vec<String> = self
                .known_counts
                .iter()
                .map(|(id, n)| format!("{id} {n}"))
                .collect();
            writeln!(
                f,
                "  known issues (reported, not fixed): {}",
                known.join(", ")
            )?;
        }
        if self.failure_counts.is_empty() {
            writeln!(f, "  no failures")?;
        } else {
            let counts: Vec<String> = self
                .failure_counts
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            writeln!(f, "  FAILURES: {}", counts.join(", "))?;
            if self.stalled {
                writeln!(f, "  the run stopped on an input that did not finish")?;
            }
        }
        for failure in &self.failures {
            write!(f, "{failure}")?;
        }
        Ok(())
    }
}

/// Shared between the workers.
struct Shared {
    family: Family,
    budget: Budget,
    started: Instant,
    stop: AtomicBool,
    /// Failures kept, per (parser or known issue, check).
    kept: Mutex<HashMap<(String, CheckKind), usize>>,
}

/// The seed of input `index`.
fn input_seed(seed: u64, family: Family, index: u64) -> u64 {
    // splitmix64 over the three.
    let mut z = seed
        .wrapping_add((family as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(index.wrapping_mul(0xBF58_476D_1CE4_E5B9));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One input, made from its seed: the setup, the text, the oracle (undamaged inputs only), the
/// mutations, the chunkings, and a second setup to run damaged inputs under.
struct Made {
    setup: Setup,
    text: String,
    expected: Option<Expected>,
    mutations: Vec<&'static str>,
    cuts: Vec<Cut>,
    variant: Option<Setup>,
}

fn make(family: Family, seed: u64, big_inputs: bool, only: Option<&str>) -> Made {
    let mut rng = Rng::new(seed);
    let huge = rng.below(4000) == 0 && big_inputs;
    let many = rng.below(2500) == 0 && big_inputs;
    let scale = Scale {
        huge_value: if huge {
            (256 << 10) + rng.below(768 << 10)
        } else {
            0
        },
        many_calls: if many { 1000 + rng.below(2000) } else { 0 },
    };
    let generated = grammar::generate_only(family, &mut rng, scale, only);
    let damaged =
        matches!(family, Family::Generic | Family::Data | Family::Machines) || rng.chance(65);
    let mut text = generated.text;
    let mutations = if damaged {
        let big = rng.below(400) == 0 && big_inputs;
        mutate::mutate(family, &mut rng, &mut text, big)
    } else {
        Vec::new()
    };
    let mut cuts = Vec::new();
    if text.len() <= 300_000 {
        cuts.push(Cut::Chars(1));
    } else {
        cuts.push(Cut::Coarse(rng.next_u64()));
    }
    cuts.push(Cut::Random(rng.next_u64()));
    cuts.push(Cut::RandomTokens(rng.next_u64()));
    if rng.chance(25) {
        cuts.push([Cut::Chars(2), Cut::Chars(3), Cut::Chars(7), Cut::Tokens][rng.below(4)]);
    }
    let variant =
        (damaged && rng.chance(40)).then(|| grammar::variant(family, &mut rng, &generated.setup));
    Made {
        setup: generated.setup,
        text,
        expected: (!damaged).then_some(generated.expected),
        mutations,
        cuts,
        variant,
    }
}

/// Fuzzes `family` within `budget`; returns what was tried and every failure kept.
pub fn run(family: Family, budget: &Budget) -> Report {
    let shared = Arc::new(Shared {
        family,
        budget: budget.clone(),
        started: Instant::now(),
        stop: AtomicBool::new(false),
        kept: Mutex::new(HashMap::new()),
    });
    let threads = budget.threads.max(1);
    // Per worker: the input it is on (index + 1; 0 when idle) and since when (ms from start).
    let current: Arc<Vec<(AtomicU64, AtomicU64)>> = Arc::new(
        (0..threads)
            .map(|_| (AtomicU64::new(0), AtomicU64::new(0)))
            .collect(),
    );
    let handles: Vec<_> = (0..threads)
        .map(|worker| {
            let shared = shared.clone();
            let current = current.clone();
            std::thread::Builder::new()
                .name(format!("fuzz-{family}-{worker}"))
                .stack_size(64 << 20)
                .spawn(move || work(&shared, worker, threads, &current[worker]))
                .expect("spawn a fuzz worker")
        })
        .collect();
    let mut report = Report::new(family);
    let mut last_progress = Instant::now();
    let mut finished: Vec<bool> = vec![false; threads];
    // Watch the workers: progress lines, stalls.
    while finished.iter().any(|f| !f) {
        std::thread::sleep(Duration::from_millis(50));
        for (n, handle) in handles.iter().enumerate() {
            finished[n] = finished[n] || handle.is_finished();
        }
        if let Some(every) = budget.progress
            && last_progress.elapsed() >= every
        {
            last_progress = Instant::now();
            eprintln!(
                "  {family}: {:.0} s, ~{} inputs",
                shared.started.elapsed().as_secs_f64(),
                current
                    .iter()
                    .map(|(i, _)| i.load(Ordering::Relaxed))
                    .max()
                    .unwrap_or(0)
            );
        }
        let now = shared.started.elapsed().as_millis() as u64;
        for (n, (index, since)) in current.iter().enumerate() {
            let index = index.load(Ordering::Relaxed);
            let since = since.load(Ordering::Relaxed);
            if finished[n] || index == 0 {
                continue;
            }
            if now.saturating_sub(since) > budget.stall_after.as_millis() as u64 {
                // Stuck: report the input (made again from its seed) and stop without this worker.
                shared.stop.store(true, Ordering::Relaxed);
                let made = make(
                    family,
                    input_seed(budget.seed, family, index - 1),
                    budget.big_inputs,
                    budget.only.as_deref(),
                );
                let failure = Failure {
                    kind: CheckKind::Slow,
                    cut: Cut::Whole,
                    detail: format!(
                        "input #{} did not finish in {} s",
                        index - 1,
                        (now - since) / 1000
                    ),
                };
                let file = write_failure(&shared, &made, &made.setup, &made.text, &failure, None);
                report.failures.push(FoundFailure {
                    family,
                    setup: made.setup.clone(),
                    original_len: made.text.len(),
                    input: made.text,
                    failure,
                    mutations: made.mutations,
                    input_index: index - 1,
                    file,
                    known: None,
                });
                *report.failure_counts.entry(CheckKind::Slow).or_default() += 1;
                report.stalled = true;
                finished[n] = true;
            }
        }
    }
    for (n, handle) in handles.into_iter().enumerate() {
        if report.stalled && !handle.is_finished() {
            eprintln!("  worker {n} is stuck; leaving it");
            continue;
        }
        if let Ok(part) = handle.join() {
            report.merge(part);
        }
    }
    report.elapsed = shared.started.elapsed();
    report
        .failures
        .sort_by_key(|f| (f.failure.kind, f.input_index));
    report
}

fn work(
    shared: &Shared,
    worker: usize,
    threads: usize,
    current: &(AtomicU64, AtomicU64),
) -> Report {
    let budget = &shared.budget;
    let family = shared.family;
    let mut report = Report::new(family);
    let mut index = worker as u64;
    loop {
        if shared.stop.load(Ordering::Relaxed)
            || budget.inputs.is_some_and(|n| index >= n)
            || budget
                .duration
                .is_some_and(|d| shared.started.elapsed() >= d)
        {
            break;
        }
        current.1.store(
            shared.started.elapsed().as_millis() as u64,
            Ordering::Relaxed,
        );
        current.0.store(index + 1, Ordering::Relaxed);
        let made = make(
            family,
            input_seed(budget.seed, family, index),
            budget.big_inputs,
            budget.only.as_deref(),
        );
        let started = Instant::now();
        report.inputs += 1;
        report.damaged += u64::from(made.expected.is_none());
        report.bytes += made.text.len() as u64;
        report.largest = report.largest.max(made.text.len());
        let name = made
            .setup
            .template
            .clone()
            .unwrap_or_else(|| made.setup.parser.clone());
        *report.per_parser.entry(name).or_default() += 1;
        let setups = std::iter::once(&made.setup).chain(made.variant.as_ref());
        for (n, setup) in setups.enumerate() {
            report.runs += made.cuts.len() as u64 + 2;
            let expected = if n == 0 { made.expected.as_ref() } else { None };
            let result = check(setup, &made.text, &made.cuts, expected);
            if let Err(failure) = result {
                found(shared, &mut report, &made, setup, failure, index, current);
                break;
            }
        }
        let took = started.elapsed();
        if took > report.slowest.0 {
            report.slowest = (took, made.text.len(), index);
        }
        let allowed = budget.slow_after + budget.slow_per_byte * made.text.len() as u32;
        if took > allowed {
            let failure = Failure {
                kind: CheckKind::Slow,
                cut: Cut::Whole,
                detail: format!(
                    "{} bytes took {:.1} s (more than {:.1} s)",
                    made.text.len(),
                    took.as_secs_f64(),
                    allowed.as_secs_f64()
                ),
            };
            found(
                shared,
                &mut report,
                &made,
                &made.setup,
                failure,
                index,
                current,
            );
        }
        index += threads as u64;
    }
    current.0.store(0, Ordering::Relaxed);
    report
}

/// Records a failure: counted always; shrunk, written and reported for the first few of its kind.
fn found(
    shared: &Shared,
    report: &mut Report,
    made: &Made,
    setup: &Setup,
    failure: Failure,
    index: u64,
    current: &(AtomicU64, AtomicU64),
) {
    let known = crate::check::known_issue(setup, &made.text, &failure);
    let name = match known {
        Some(issue) => {
            *report.known_counts.entry(issue.id).or_default() += 1;
            issue.id.to_owned()
        }
        None => {
            *report.failure_counts.entry(failure.kind).or_default() += 1;
            setup
                .template
                .clone()
                .unwrap_or_else(|| setup.parser.clone())
        }
    };
    let keep = if known.is_some() {
        1
    } else {
        shared.budget.per_signature
    };
    {
        let mut kept = shared.kept.lock().unwrap_or_else(|e| e.into_inner());
        let count = kept.entry((name, failure.kind)).or_default();
        if *count >= keep {
            return;
        }
        *count += 1;
    }
    // Shrinking takes its time: not a stall.
    let now = || shared.started.elapsed().as_millis() as u64;
    current.1.store(now(), Ordering::Relaxed);
    let input = shrink::shrink(setup, &made.text, &failure, shared.budget.shrink_time);
    current.1.store(now(), Ordering::Relaxed);
    // The failure as seen on the shrunk input (same class).
    let failure = match check(setup, &input, &[failure.cut, Cut::Chars(1)], None) {
        Err(shrunk) if shrunk.class() == failure.class() => shrunk,
        _ => failure,
    };
    let file = write_failure(shared, made, setup, &input, &failure, known);
    report.failures.push(FoundFailure {
        family: shared.family,
        setup: setup.clone(),
        original_len: made.text.len(),
        input,
        failure,
        mutations: made.mutations.clone(),
        input_index: index,
        file,
        known: known.map(|issue| issue.id),
    });
}

fn write_failure(
    shared: &Shared,
    made: &Made,
    setup: &Setup,
    input: &str,
    failure: &Failure,
    known: Option<&crate::check::KnownIssue>,
) -> Option<PathBuf> {
    let dir = shared.budget.regressions.as_ref()?;
    let header = Header {
        family: shared.family.name().to_owned(),
        setup: setup.clone(),
        check: failure.kind,
        cut: failure.cut,
        mutations: made.mutations.iter().map(|m| (*m).to_owned()).collect(),
        expected: if failure.kind == CheckKind::Oracle {
            made.expected.clone()
        } else {
            None
        },
        detail: shorten(&failure.detail, 400),
        open: known.map(|issue| format!("{}: {}", issue.id, issue.summary)),
    };
    match regress::write(dir, &header, input) {
        Ok(path) => Some(path),
        Err(e) => {
            eprintln!(
                "cannot write a regression file under {}: {e}",
                dir.display()
            );
            None
        }
    }
}

/// `text` cut to about `max` bytes (on a character boundary), with a note of what was left out.
fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let at = mutate::char_boundary(text, max);
    format!("{}… ({} more bytes)", &text[..at], text.len() - at)
}

/// Makes input `index` of a run of `family` with `seed` again and times each step: what a report's
/// input number refers to.
pub fn explain(family: Family, seed: u64, index: u64) -> String {
    explain_into(family, seed, index, None)
}

/// [`explain`], and with `dir` the input is also written there as a regression file (its header names
/// no failed check: `slow`, the one check that needs no failure to describe).
pub fn explain_into(
    family: Family,
    seed: u64,
    index: u64,
    dir: Option<&std::path::Path>,
) -> String {
    explain_only(family, seed, index, dir, None)
}

/// [`explain_into`] for a run with [`Budget::only`].
pub fn explain_only(
    family: Family,
    seed: u64,
    index: u64,
    dir: Option<&std::path::Path>,
    only: Option<&str>,
) -> String {
    let made = make(family, input_seed(seed, family, index), true, only);
    if let Some(dir) = dir {
        let header = Header {
            family: family.name().to_owned(),
            setup: made.setup.clone(),
            check: CheckKind::Slow,
            cut: Cut::Whole,
            mutations: made.mutations.iter().map(|m| (*m).to_owned()).collect(),
            expected: made.expected.clone(),
            detail: format!("input #{index} of seed {seed}"),
            open: None,
        };
        if let Ok(path) = regress::write(dir, &header, &made.text) {
            eprintln!("written to {}", path.display());
        }
    }
    let mut out = format!(
        "input #{index}: {} bytes, mutations {:?}\n  setup: {}\n  text: {:?}\n",
        made.text.len(),
        made.mutations,
        serde_json::to_string(&made.setup).unwrap_or_default(),
        shorten(&made.text, 300)
    );
    let setups = std::iter::once(&made.setup).chain(made.variant.as_ref());
    for setup in setups {
        for cut in std::iter::once(Cut::Whole).chain(made.cuts.iter().copied()) {
            let started = Instant::now();
            let result = check(setup, &made.text, &[cut], made.expected.as_ref());
            out.push_str(&format!(
                "  {} under {cut}: {:.1} ms, {}\n",
                setup.template.as_deref().unwrap_or(&setup.parser),
                started.elapsed().as_secs_f64() * 1e3,
                match result {
                    Ok(_) => "ok".to_owned(),
                    Err(failure) => failure.to_string(),
                }
            ));
        }
    }
    out
}
