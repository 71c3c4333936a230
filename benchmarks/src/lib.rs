//! Benchmark workloads: placeholder, being written.
