//! A short deterministic run of the generic parser's family (fixed seed, no big inputs) on every
//! `cargo test`. Each parser family's crate makes the same run for its own family in its property test
//! (`parser-*/tests/properties.rs`, through [`fuzz::test_run`]); `cargo xtask fuzz` runs the long ones.

use fuzz::Family;

#[test]
fn generic() {
    fuzz::test_run(Family::Generic);
}

/// The state machines no grammar with an oracle writes yet (Muse, Sarashina): their seeds damaged with their own markers.
#[test]
fn machines() {
    fuzz::test_run(Family::Machines);
}

/// K2 Horizon, with its oracle.
#[test]
fn horizon() {
    fuzz::test_run(Family::Horizon);
}

/// MiniMax-M3, with its oracle.
#[test]
fn minimax_m3() {
    fuzz::test_run(Family::MinimaxM3);
}

/// Inkling, with its oracle.
#[test]
fn inkling() {
    fuzz::test_run(Family::Inkling);
}

/// A short seeded run of the `templates` family: hostile chat templates and response configs against
/// the render budget, no panic and no hang.
#[test]
fn templates_family_smoke() {
    let budget = fuzz::Budget::inputs(80).with_seed(0x7e3a).with_threads(2);
    let report = fuzz::templates::run(&budget);
    eprint!("{report}");
    assert_eq!(report.inputs, 80, "{report}");
    assert!(report.is_clean(), "{report}");
    assert!(
        report
            .errors
            .keys()
            .any(|k| k != "compile" && k != "render"),
        "the hostile shapes reach the limits: {report}"
    );
}
