//! Behaviour tables.
