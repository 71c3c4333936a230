//! The qwen family's tests (being written).
