//! Grammar checks through llguidance (a dev-dependency), shared by parser-core's unit tests and the
//! families' grammar tests (`#[path = "../../parser-core/tests-support/llg.rs"] mod llg;`).
//!
//! The vocabulary is bytes: 256 single-byte tokens and one EOS token, so no model is needed and every
//! text is one token per byte. [`accepts`] feeds a text and asks whether the grammar may end there;
//! [`sample`] takes a random walk through the grammar's token masks; [`validate`] checks a JSON value
//! against the subset of JSON Schema the tests' tools use.

#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{ApproximateTokEnv, TokEnv, TokRxInfo, TokTrie};
use llguidance::{Matcher, ParserFactory};
use serde_json::Value;

/// The EOS token of the byte vocabulary.
pub const EOS: u32 = 256;

fn factory() -> &'static ParserFactory {
    static FACTORY: OnceLock<ParserFactory> = OnceLock::new();
    FACTORY.get_or_init(|| {
        let mut words: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        // Special tokens are spelled with a leading 0xFF byte in toktrie.
        words.push(b"\xFF<|eos|>".to_vec());
        let info = TokRxInfo::new(words.len() as u32, EOS);
        let env: TokEnv = Arc::new(ApproximateTokEnv::new(TokTrie::from(&info, &words)));
        let mut factory = ParserFactory::new_simple(&env).expect("parser factory");
        factory.set_stderr_log_level(0);
        factory.quiet();
        factory
    })
}

/// A matcher at the start of `lark`; panics when the grammar does not compile.
pub fn matcher(lark: &str) -> Matcher {
    let grammar = TopLevelGrammar::from_lark(lark.to_owned());
    let parser = factory()
        .create_parser(grammar)
        .unwrap_or_else(|e| panic!("grammar does not compile: {e}\n{lark}"));
    Matcher::new(Ok(parser))
}

/// `Ok` when `lark` accepts exactly `text` (every byte, then the end); otherwise where it stopped.
pub fn accepts(lark: &str, text: &str) -> Result<(), String> {
    let mut m = matcher(lark);
    for (at, &byte) in text.as_bytes().iter().enumerate() {
        if let Err(e) = m.consume_token(u32::from(byte)) {
            return Err(format!(
                "refused at byte {at} ({:?} then {:?}): {e}",
                String::from_utf8_lossy(&text.as_bytes()[at.saturating_sub(40)..at]),
                String::from_utf8_lossy(&text.as_bytes()[at..(at + 20).min(text.len())])
            ));
        }
    }
    match m.is_accepting() {
        Ok(true) => Ok(()),
        Ok(false) => Err("the text is a prefix, the grammar wants more".to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    /// From `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// In `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A random walk through `lark`'s token masks, until EOS: `None` when it ran past `max_bytes`.
///
/// Each step picks uniformly among the allowed bytes (printable ASCII and newline 85% of the time, when
/// any is allowed). Past a random soft length, the walk prefers to end: it takes EOS half the time it is
/// allowed, and a third of the time tries one of `hints` whole (the format's closing markers, JSON
/// closers), which lets free text and JSON values finish.
pub fn sample(lark: &str, rng: &mut Rng, hints: &[&str], max_bytes: usize) -> Option<String> {
    let mut m = matcher(lark);
    let mut out: Vec<u8> = Vec::new();
    let soft = rng.below(160);
    loop {
        if m.is_stopped() {
            break;
        }
        if out.len() > max_bytes {
            return None;
        }
        let late = out.len() > soft;
        if late && !hints.is_empty() && rng.chance(33) {
            let hint = hints[rng.below(hints.len())].as_bytes();
            let tokens: Vec<u32> = hint.iter().map(|&b| u32::from(b)).collect();
            if m.validate_tokens(&tokens).ok() == Some(tokens.len()) {
                m.consume_tokens(&tokens).expect("validated tokens");
                out.extend_from_slice(hint);
                continue;
            }
        }
        let mask = m.compute_mask().unwrap_or_else(|e| panic!("mask: {e}"));
        let eos = mask.is_allowed(EOS);
        if eos && (rng.chance(if late { 50 } else { 2 })) {
            break;
        }
        let mut allowed: Vec<u32> = Vec::new();
        mask.iter_set_entries(|t| {
            if t as u32 != EOS {
                allowed.push(t as u32)
            }
        });
        if allowed.is_empty() {
            assert!(eos, "dead end after {:?}", String::from_utf8_lossy(&out));
            break;
        }
        let readable: Vec<u32> = allowed
            .iter()
            .copied()
            .filter(|&t| (0x20..0x7F).contains(&t) || t == u32::from(b'\n'))
            .collect();
        let pool = if !readable.is_empty() && rng.chance(85) {
            &readable
        } else {
            &allowed
        };
        let token = pool[rng.below(pool.len())];
        m.consume_token(token)
            .unwrap_or_else(|e| panic!("masked token refused: {e}"));
        out.push(token as u8);
    }
    Some(String::from_utf8(out).expect("the grammar keeps UTF-8"))
}

/// Checks `value` against `schema` for the keywords the tests use: `type` (one or a list), `enum`,
/// `const`, `properties`, `required`, `additionalProperties: false`, `items`, `minItems`, `maxItems`,
/// `minLength`, `maxLength`, `anyOf`. Returns what is wrong.
pub fn validate(value: &Value, schema: &Value) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Ok(());
    };
    if let Some(expected) = map.get("const")
        && expected != value
    {
        return Err(format!("{value} is not the const {expected}"));
    }
    if let Some(options) = map.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        return Err(format!("{value} is not in the enum {options:?}"));
    }
    if let Some(options) = map.get("anyOf").and_then(Value::as_array)
        && !options.iter().any(|option| validate(value, option).is_ok())
    {
        return Err(format!("{value} matches no anyOf option"));
    }
    if let Some(kind) = map.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::String(kind) => vec![kind.as_str()],
            Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let fits = |kind: &str| match kind {
            "string" => value.is_string(),
            // JSON Schema: any number without a fractional part (`-0`, `1.0`) is an integer.
            "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            "object" => value.is_object(),
            "array" => value.is_array(),
            _ => true,
        };
        if !kinds.is_empty() && !kinds.iter().any(|kind| fits(kind)) {
            return Err(format!("{value} is not of type {kind}"));
        }
    }
    if let Some(text) = value.as_str() {
        let length = text.chars().count() as u64;
        if map
            .get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|min| length < min)
        {
            return Err(format!("{value} is shorter than minLength"));
        }
        if map
            .get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|max| length > max)
        {
            return Err(format!("{value} is longer than maxLength"));
        }
    }
    if let Some(object) = value.as_object() {
        let properties = map.get("properties").and_then(Value::as_object);
        for key in map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(key) {
                return Err(format!("required {key:?} missing from {value}"));
            }
        }
        for (key, member) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(schema) => validate(member, schema).map_err(|e| format!("{key}: {e}"))?,
                None if map.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{key:?} is not a declared property"));
                }
                None => {}
            }
        }
    }
    if let Some(items) = value.as_array() {
        let count = items.len() as u64;
        if map
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|min| count < min)
        {
            return Err(format!("{value} has fewer than minItems"));
        }
        if map
            .get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|max| count > max)
        {
            return Err(format!("{value} has more than maxItems"));
        }
        if let Some(schema) = map.get("items") {
            for item in items {
                validate(item, schema)?;
            }
        }
    }
    Ok(())
}

/// Rewrites a GBNF grammar (as [`parser_core::constraint`] writes it: one rule a line) in llguidance's
/// Lark, so that llguidance can run it: `root` becomes `start`, `-` in names `_`, character classes
/// regexes; literals, groups and repetitions are spelled alike.
pub fn gbnf_to_lark(gbnf: &str) -> String {
    let mut out = String::new();
    for line in gbnf.lines().filter(|l| !l.trim().is_empty()) {
        let (name, body) = line.split_once(" ::= ").expect("one rule a line");
        out.push_str(&lark_rule_name(name));
        out.push_str(": ");
        let chars: Vec<char> = body.chars().collect();
        let mut at = 0;
        while at < chars.len() {
            let c = chars[at];
            match c {
                '"' => {
                    let mut text = String::new();
                    at += 1;
                    while chars[at] != '"' {
                        if chars[at] == '\\' {
                            let e = chars[at + 1];
                            at += 2;
                            match e {
                                'n' => text.push('\n'),
                                'r' => text.push('\r'),
                                't' => text.push('\t'),
                                'x' => {
                                    let hex: String = chars[at..at + 2].iter().collect();
                                    text.push(char::from(u8::from_str_radix(&hex, 16).unwrap()));
                                    at += 2;
                                }
                                other => text.push(other),
                            }
                        } else {
                            text.push(chars[at]);
                            at += 1;
                        }
                    }
                    at += 1;
                    out.push_str(&serde_json::to_string(&text).unwrap());
                }
                '[' => {
                    let mut class = String::from("/[");
                    at += 1;
                    while chars[at] != ']' {
                        if chars[at] == '\\' {
                            class.push('\\');
                            class.push(chars[at + 1]);
                            at += 2;
                        } else if chars[at] == '/' {
                            class.push_str("\\x2F");
                            at += 1;
                        } else {
                            class.push(chars[at]);
                            at += 1;
                        }
                    }
                    at += 1;
                    class.push_str("]/");
                    out.push_str(&class);
                }
                '{' => {
                    while chars[at] != '}' {
                        out.push(chars[at]);
                        at += 1;
                    }
                    out.push('}');
                    at += 1;
                }
                c if c.is_ascii_alphanumeric() || c == '-' => {
                    let start = at;
                    while at < chars.len()
                        && (chars[at].is_ascii_alphanumeric() || chars[at] == '-')
                    {
                        at += 1;
                    }
                    let name: String = chars[start..at].iter().collect();
                    out.push_str(&lark_rule_name(&name));
                }
                c => {
                    out.push(c);
                    at += 1;
                }
            }
        }
        out.push('\n');
    }
    out
}

fn lark_rule_name(name: &str) -> String {
    if name == "root" {
        "start".to_owned()
    } else {
        format!("g_{}", name.replace('-', "_"))
    }
}
