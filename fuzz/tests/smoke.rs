//! A short deterministic run per family (fixed seed, no big inputs): every generator, mutator and check
//! exercised on every `cargo test`. `cargo xtask fuzz` runs the long ones.

use fuzz::{Budget, Family};

/// Inputs per family: a few seconds per family in a debug build.
const INPUTS: u64 = 3000;

fn smoke(family: Family) {
    let mut budget = Budget::inputs(INPUTS).with_seed(0x5eed_2026);
    budget.big_inputs = false;
    let report = fuzz::run(family, &budget);
    eprint!("{report}");
    assert_eq!(report.inputs, INPUTS);
    assert!(report.is_clean(), "{report}");
}

#[test]
fn deepseek() {
    smoke(Family::Deepseek);
}

#[test]
fn qwen() {
    smoke(Family::Qwen);
}

#[test]
fn kimi() {
    smoke(Family::Kimi);
}

#[test]
fn gptoss() {
    smoke(Family::Gptoss);
}

#[test]
fn glm() {
    smoke(Family::Glm);
}

#[test]
fn generic() {
    smoke(Family::Generic);
}
