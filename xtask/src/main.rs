//! `cargo xtask`: placeholder, being written.
fn main() {}
