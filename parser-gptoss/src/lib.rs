//! The gptoss family for llm-parse (being written).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
