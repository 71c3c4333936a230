//! The Minimax family's tests: its corpus files (one-shot and every chunking), behaviour tables,
//! properties and the grammar. One binary (`autotests = false`).

// The registry is filled by `inventory`, which only sees linked crates: reference the family.
use parser_minimax as _;

mod behaviour;
mod corpus;
mod grammar;
mod grammar_m3;
mod m3;
