//! The Kimi family's tests: the copied corpora (one-shot and every chunking), behaviour tables, and
//! property tests. One binary (`autotests = false`).

mod behaviour;
mod corpus;
mod grammar;
mod grammar_k3;
mod k3;
mod properties;
