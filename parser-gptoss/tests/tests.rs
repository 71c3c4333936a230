//! The gptoss family's tests (being written).
