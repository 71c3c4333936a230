//! Property tests for the families written as data (one fuzz family, `data`, since they share the
//! generic engine): their corpus outputs, recombined at markers and damaged, each parsed one-shot and
//! under several chunkings by its model's parser: no panic, streaming exactly like one-shot, the call
//! protocol followed, no marker fragment leaked into text, valid calls with JSON-object arguments.
//!
//! A fixed seed and 3,000 inputs here; `cargo xtask fuzz --family data --inputs N` for long runs.

#[test]
fn generated_outputs_pass_every_check() {
    fuzz::test_run(fuzz::Family::Data);
}
