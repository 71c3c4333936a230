//! Property tests: Mistral-shaped outputs from the fuzzer's grammar for this family (`fuzz::grammar::mistral`,
//! the one generator of them), well-formed and damaged, each parsed one-shot and under several
//! chunkings: well-formed outputs must give exactly what was generated (the oracle); every output must
//! not panic, must stream exactly like one-shot, must follow the call protocol and must not leak marker
//! fragments into text.
//!
//! A fixed seed and 3,000 inputs here; `cargo xtask fuzz --family mistral --minutes N` for long runs.

#[test]
fn generated_outputs_pass_every_check() {
    fuzz::test_run(fuzz::Family::Mistral);
}
