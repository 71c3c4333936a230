//! The DeepSeek family's tests: the copied corpora (one-shot and every chunking), behaviour tables, and
//! property tests. One binary (`autotests = false`).

// The registry is filled by `inventory`, which only sees linked crates: reference the family.
use parser_deepseek as _;

mod behaviour;
mod corpus;
mod grammar;
mod grammar_dsml;
mod plain_arguments;
mod properties;
