//! `llm-parse`: placeholder, being written.
fn main() {}
