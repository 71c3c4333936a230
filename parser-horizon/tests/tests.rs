//! The Horizon family's tests: its corpus files (one-shot and every chunking), behaviour tables and
//! property tests. One binary (`autotests = false`).

// The registry is filled by `inventory`, which only sees linked crates: reference the family.
use parser_horizon as _;

mod behaviour;
mod corpus;
mod grammar;
