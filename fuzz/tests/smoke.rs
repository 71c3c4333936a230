//! A short deterministic run of the generic parser's family (fixed seed, no big inputs) on every
//! `cargo test`. Each parser family's crate makes the same run for its own family in its property test
//! (`parser-*/tests/properties.rs`, through [`fuzz::test_run`]); `cargo xtask fuzz` runs the long ones.

use fuzz::Family;

#[test]
fn generic() {
    fuzz::test_run(Family::Generic);
}
