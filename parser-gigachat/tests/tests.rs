//! The Gigachat family's tests: its corpus files (one-shot and every chunking), behaviour tables and
//! its grammar. One binary (`autotests = false`).

// The registry is filled by `inventory`, which only sees linked crates: reference the family.
use parser_gigachat as _;

mod behaviour;
mod corpus;
mod grammar;
mod plain_arguments;
