//! Shrinking a failing input: cut its end, then its start, then remove ever smaller slices, as long as
//! the same check keeps failing (one-shot plus the chunking it failed under, plus one character at a
//! time). Plain delta debugging on characters; bounded in time and in runs.

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::check::{CheckKind, Failure, check, known_issue};
use crate::mutate::char_boundary;
use crate::setup::{Cut, Setup};

/// The most check runs one shrink spends.
const MAX_RUNS: usize = 4000;

/// A smaller input on which `setup` still fails the same way (the same [`Failure::class`], the same
/// known issue or none), found within `time`. Oracle and
/// slowness failures are not shrunk (the oracle belongs to the whole input; slowness to its size).
pub fn shrink(setup: &Setup, input: &str, failure: &Failure, time: Duration) -> String {
    if matches!(failure.kind, CheckKind::Oracle | CheckKind::Slow) {
        return input.to_owned();
    }
    let started = Instant::now();
    let runs = Cell::new(0usize);
    let cuts: Vec<Cut> = if failure.cut == Cut::Chars(1) || failure.cut == Cut::Whole {
        vec![Cut::Chars(1)]
    } else {
        vec![failure.cut, Cut::Chars(1)]
    };
    // The same bug: the same class of failure, and the same known issue (or none).
    let class = failure.class();
    let known = known_issue(setup, input, failure).map(|issue| issue.id);
    let fails = |candidate: &str| {
        runs.set(runs.get() + 1);
        match check(setup, candidate, &cuts, None) {
            Err(f) => {
                f.class() == class
                    && known_issue(setup, candidate, &f).map(|issue| issue.id) == known
            }
            Ok(_) => false,
        }
    };
    let out_of_budget = || runs.get() >= MAX_RUNS || started.elapsed() >= time;
    let mut best = input.to_owned();

    // Cut the end, then the start, in halving steps.
    for from_end in [true, false] {
        let mut step = best.len() / 2;
        while step > 0 && !out_of_budget() {
            let candidate = if from_end {
                let at = char_boundary(&best, best.len().saturating_sub(step));
                best[..at].to_owned()
            } else {
                let mut at = step.min(best.len());
                while !best.is_char_boundary(at) {
                    at += 1;
                }
                best[at..].to_owned()
            };
            if candidate.len() < best.len() && fails(&candidate) {
                best = candidate;
            } else {
                step /= 2;
            }
        }
    }

    // Remove slices, from half the input down to one character.
    let mut size = best.len() / 2;
    while size > 0 && !out_of_budget() {
        let mut at = 0;
        while at < best.len() && !out_of_budget() {
            let end = {
                let mut end = (at + size).min(best.len());
                while !best.is_char_boundary(end) {
                    end += 1;
                }
                end
            };
            let candidate = format!("{}{}", &best[..at], &best[end..]);
            if fails(&candidate) {
                best = candidate;
            } else {
                at = end;
            }
        }
        size /= 2;
    }
    best
}
