//! The kimi family's tests (being written).
