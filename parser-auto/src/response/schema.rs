//! The legacy `response_schema` (`x-regex`, `x-regex-iterator`, `x-parser`, `x-regex-key-value`).

/// A compiled `response_schema` (being written).
#[derive(Clone, Debug)]
pub struct ResponseSchema {}
