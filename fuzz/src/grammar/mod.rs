//! Generators: well-formed outputs of each family, from a grammar of its real shapes, with the message
//! they mean (the oracle).
//!
//! Each family module has `generate` (an output, its setup and its [`Expected`] message), `call_block`
//! (one well-formed call block, which the mutators nest into reasoning or splice elsewhere) and `variant`
//! (another parser or other request options of the family, for damaged inputs, which have no oracle).

use parser_core::testing::Rng;

use crate::Family;
use crate::check::Expected;
use crate::setup::Setup;

pub mod data;
pub mod deepseek;
pub mod gemma;
pub mod generic;
pub mod glm;
pub mod gptoss;
pub mod horizon;
pub mod inkling;
pub mod kimi;
pub mod kimi_k3;
pub mod llama;
pub mod machines;
pub mod minimax_m3;
pub mod mistral;
pub mod qwen;
mod seeded;

/// How big the generated output is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scale {
    /// One argument value of this many bytes (0: normal sizes).
    pub huge_value: usize,
    /// At least this many calls (0: a few).
    pub many_calls: usize,
}

/// A generated output.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The parser and request options it is meant for.
    pub setup: Setup,
    /// The raw model output.
    pub text: String,
    /// What it means.
    pub expected: Expected,
}

/// A well-formed output of `family`.
pub fn generate(family: Family, rng: &mut Rng, scale: Scale) -> Generated {
    generate_only(family, rng, scale, None)
}

/// A well-formed output of `family`; for the seeded grammars ([`Family::Data`], [`Family::Machines`]),
/// with `only` (a registry parser name, alias or family name), of that parser or family alone.
pub fn generate_only(family: Family, rng: &mut Rng, scale: Scale, only: Option<&str>) -> Generated {
    match family {
        Family::Deepseek => deepseek::generate(rng, scale),
        Family::Qwen => qwen::generate(rng, scale),
        Family::Kimi => kimi::generate(rng, scale),
        Family::Gptoss => gptoss::generate(rng, scale),
        Family::Glm => glm::generate(rng, scale),
        Family::Mistral => mistral::generate(rng, scale),
        Family::Llama => llama::generate(rng, scale),
        Family::Generic => generic::generate(rng, scale),
        Family::Data => data::generate(rng, scale, only),
        Family::Machines => machines::generate(rng, scale, only),
        Family::Gemma => gemma::generate(rng, scale),
        Family::Horizon => horizon::generate(rng, scale),
        Family::MinimaxM3 => minimax_m3::generate(rng, scale),
        Family::Inkling => inkling::generate(rng, scale),
    }
}

/// One well-formed call block of `family` (for nesting into reasoning, or splicing elsewhere).
pub fn call_block(family: Family, rng: &mut Rng) -> String {
    match family {
        Family::Deepseek => deepseek::call_block(rng),
        Family::Qwen => qwen::call_block(rng),
        Family::Kimi => kimi::call_block(rng),
        Family::Gptoss => gptoss::call_block(rng),
        Family::Glm => glm::call_block(rng),
        Family::Mistral => mistral::call_block(rng),
        Family::Llama => llama::call_block(rng),
        Family::Generic => generic::call_block(rng),
        Family::Data => data::call_block(rng),
        Family::Machines => machines::call_block(rng),
        Family::Gemma => gemma::call_block(rng),
        Family::Horizon => horizon::call_block(rng),
        Family::MinimaxM3 => minimax_m3::call_block(rng),
        Family::Inkling => inkling::call_block(rng),
    }
}

/// Another parser of the family or other request options, for damaged inputs.
pub fn variant(family: Family, rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = match family {
        Family::Deepseek => deepseek::variant(rng, setup),
        Family::Qwen => qwen::variant(rng, setup),
        Family::Kimi => kimi::variant(rng, setup),
        Family::Gptoss => gptoss::variant(rng, setup),
        Family::Glm => glm::variant(rng, setup),
        Family::Mistral => mistral::variant(rng, setup),
        Family::Llama => llama::variant(rng, setup),
        Family::Generic => generic::variant(rng, setup),
        Family::Data => data::variant(rng, setup),
        Family::Machines => machines::variant(rng, setup),
        Family::Gemma => gemma::variant(rng, setup),
        Family::Horizon => horizon::variant(rng, setup),
        Family::MinimaxM3 => minimax_m3::variant(rng, setup),
        Family::Inkling => inkling::variant(rng, setup),
    };
    // Options every family takes.
    if rng.chance(20) {
        other.inline = !other.inline;
    }
    if rng.chance(10) {
        other.strict = !other.strict;
    }
    if rng.chance(15) {
        other.call_buffer = Some([1, 7, 32, 100, 1000][rng.below(5)]);
    }
    other
}

/// The registry parsers `family`'s generator writes outputs for (none for [`Family::Generic`], which
/// fuzzes templates). Every registered parser must be in one family's list (`tests/coverage.rs`).
pub fn parsers(family: Family) -> Vec<&'static str> {
    match family {
        Family::Deepseek => deepseek::PARSERS.to_vec(),
        Family::Qwen => qwen::PARSERS.to_vec(),
        Family::Kimi => [kimi::PARSERS, &[kimi_k3::PARSER]].concat(),
        Family::Gptoss => vec!["gpt-oss"],
        Family::Glm => glm::PARSERS.to_vec(),
        Family::Mistral => mistral::PARSERS.to_vec(),
        Family::Llama => vec!["llama3", "llama4"],
        Family::Generic => Vec::new(),
        Family::Data => data::parsers(),
        Family::Machines => machines::parsers(),
        Family::Gemma => gemma::PARSERS.to_vec(),
        Family::Horizon => vec![horizon::PARSER],
        Family::MinimaxM3 => vec![minimax_m3::PARSER],
        Family::Inkling => vec![inkling::PARSER],
    }
}

// ---------------------------------------------------------------------------------------------------
// Pools shared by the families.

/// Unicode that must survive byte-exact: CJK, emoji (astral), combining marks, right-to-left text,
/// zero-width characters, a BOM, ligatures.
pub const UNICODE: &[&str] = &[
    "北京",
    "😀",
    "é",
    "e\u{301}",
    "שלום",
    "\u{200b}",
    "\u{feff}",
    "ﬁ",
    "𝄞",
    "Ω≈ç√",
    "ｆｕｌｌ",
    "｜",
    "▁",
];

/// Text inside JSON strings (already escaped) that a parser must not take for the end of anything: quotes,
/// backslashes, braces, brackets, escapes, and every family's markers.
pub const JSON_STRINGS: &[&str] = &[
    "plain",
    "two words",
    "say \\\"hi\\\"",
    "C:\\\\dir\\\\",
    "}{",
    "]",
    "[",
    "{\\\"a\\\": 1}",
    "\\n",
    "\\t",
    "\\r\\n",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\u0000",
    "\\/",
    "北京",
    "😀",
    "e\u{301}",
    "שלום",
    "</think>",
    "<think>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>f<｜tool▁sep｜>",
    "```",
    "<｜DSML｜invoke name=\\\"x\\\">",
    "</｜DSML｜parameter>",
    "</tool_call>",
    "<tool_call>",
    "<function=x>",
    "</function>",
    "</parameter>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>functions.x:1<|tool_call_argument_begin|>",
    "<|call|>",
    "<|end|>",
    "<|return|>",
    "<|start|>assistant<|channel|>final<|message|>",
    "<|channel|>",
    "if (a < b) {",
    "50%",
    "",
];

/// Object keys (already escaped), some of which mean something at the call level of some format.
pub const KEYS: &[&str] = &[
    "city",
    "q",
    "k0",
    "k1",
    "name",
    "arguments",
    "parameters",
    "id",
    "type",
    "名前",
    "a b",
    "with \\\"quote\\\"",
    "}",
    "</think>",
    "",
];

/// Function names: plain, dotted, dashed, unicode-free (what real tool names look like).
pub const NAMES: &[&str] = &[
    "get_weather",
    "search",
    "api.v2.lookup",
    "f",
    "write-file",
    "Tool_9",
];

/// [`JSON_STRINGS`] without the entries containing any of `exclude` (for formats where such text is
/// ambiguous even inside a JSON string, such as a DSML closer inside a DSML value).
pub fn json_strings_without(exclude: &[&str]) -> Vec<&'static str> {
    JSON_STRINGS
        .iter()
        .copied()
        .filter(|s| !exclude.iter().any(|e| s.contains(e)))
        .collect()
}

/// Replaces each `(from, to)` in a generated block and in its calls' arguments alike, for blocks placed
/// where some text means something else (a `</think>` inside a block in open reasoning ends the
/// reasoning, whatever JSON string it stands in). Arguments hold such text verbatim (JSON escaping
/// leaves it unchanged), so the oracle stays exact.
pub fn scrub(text: &mut String, calls: &mut [crate::check::ExpectedCall], banned: &[(&str, &str)]) {
    for (from, to) in banned {
        if text.contains(from) {
            *text = text.replace(from, to);
            for call in calls.iter_mut() {
                call.arguments = call.arguments.replace(from, to);
            }
        }
    }
}

/// `count` picks from `pool`, concatenated.
pub fn words(rng: &mut Rng, pool: &[&str], count: usize) -> String {
    (0..count).map(|_| rng.pick(pool)).collect()
}

/// A JSON string literal made of picks from `strings` (already escaped).
pub fn json_string(rng: &mut Rng, strings: &[&str]) -> String {
    let count = rng.below(4);
    format!("\"{}\"", words(rng, strings, count))
}

/// A JSON number as a model might write it (big integers and exponents included, which a parser must
/// not re-serialise).
pub fn json_number(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => "12345678901234567890123".to_owned(),
        1 => "-0.0".to_owned(),
        2 => "1e-7".to_owned(),
        3 => "-1.5E+3".to_owned(),
        4 => "0".to_owned(),
        _ => (rng.next_u64() % 100_000).to_string(),
    }
}

fn ws(rng: &mut Rng) -> &'static str {
    ["", "", " ", "\n  ", "\t", " \r\n "][rng.below(6)]
}

/// A JSON value: strings from `strings`, numbers, literals, arrays and objects, nested while `depth` is
/// small.
pub fn json_value(rng: &mut Rng, strings: &[&str], depth: usize) -> String {
    match rng.below(if depth >= 4 { 4 } else { 7 }) {
        0 => json_string(rng, strings),
        1 => json_number(rng),
        2 => ["true", "false", "null"][rng.below(3)].to_owned(),
        3 => json_string(rng, strings),
        4 | 5 => {
            let items: Vec<String> = (0..rng.below(4))
                .map(|_| json_value(rng, strings, depth + 1))
                .collect();
            let sep = format!(",{}", ws(rng));
            format!("[{}]", items.join(&sep))
        }
        _ => json_object(rng, strings, depth + 1),
    }
}

/// A JSON object with up to four members (distinct keys), varied whitespace.
pub fn json_object(rng: &mut Rng, strings: &[&str], depth: usize) -> String {
    let mut keys: Vec<&str> = Vec::new();
    for _ in 0..rng.below(5) {
        let key = rng.pick(KEYS);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let members: Vec<String> = keys
        .iter()
        .map(|key| {
            format!(
                "{}\"{key}\"{}:{}{}",
                ws(rng),
                ws(rng),
                ws(rng),
                json_value(rng, strings, depth)
            )
        })
        .collect();
    let close = ws(rng);
    format!("{{{}{close}}}", members.join(","))
}

/// The arguments object of a call: a JSON object, with a huge string member when `huge > 0`.
pub fn arguments(rng: &mut Rng, strings: &[&str], huge: usize) -> String {
    let object = json_object(rng, strings, 0);
    if huge == 0 {
        return object;
    }
    let value = huge_text(rng, strings, huge);
    let rest = object[1..].trim_start();
    if rest.starts_with('}') {
        format!("{{\"big\": \"{value}\"}}")
    } else {
        format!("{{\"big\": \"{value}\", {rest}")
    }
}

/// About `bytes` bytes of picks from `pool`.
pub fn huge_text(rng: &mut Rng, pool: &[&str], bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    while text.len() < bytes {
        text.push_str(rng.pick(pool));
        text.push(' ');
    }
    text
}

/// `text` escaped as the inside of a JSON string.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    parser_core::escape_json_into(text, &mut out);
    out
}

/// How many calls a block has: a few, or `scale.many_calls`.
pub fn call_count(rng: &mut Rng, scale: Scale, few: usize) -> usize {
    if scale.many_calls > 0 {
        scale.many_calls
    } else {
        1 + rng.below(few)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_generators_write_json() {
        let mut rng = Rng::new(3);
        for _ in 0..2000 {
            let object = json_object(&mut rng, JSON_STRINGS, 0);
            assert!(
                serde_json::from_str::<serde_json::Value>(&object).is_ok(),
                "{object}"
            );
            let args = arguments(&mut rng, JSON_STRINGS, 100);
            assert!(
                serde_json::from_str::<serde_json::Value>(&args).is_ok(),
                "{args}"
            );
        }
    }
}
