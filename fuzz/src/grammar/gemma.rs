//! FunctionGemma and Gemma 4 outputs: `call:NAME{…}` between the call tokens, arguments in Gemma's
//! value syntax (bare keys, strings between delimiter tokens, bare numbers and literals, nested
//! objects and arrays), converted to JSON by the parser; Gemma 4's thought channel, written by the
//! model or opened by the prompt after a tool result.

use parser_core::testing::Rng;
use serde_json::{Map, Value};

use super::{Generated, NAMES, Scale, UNICODE, call_count, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// The registry parsers this grammar writes outputs for.
pub const PARSERS: &[&str] = &["functiongemma", "gemma4"];

/// The tokens of one of the two formats.
struct Syntax {
    open: &'static str,
    close: &'static str,
    delimiter: &'static str,
    /// What the model writes after its calls (dropped).
    after_calls: &'static str,
}

const FUNCTIONGEMMA: Syntax = Syntax {
    open: "<start_function_call>",
    close: "<end_function_call>",
    delimiter: "<escape>",
    after_calls: "<start_function_response>",
};

const GEMMA4: Syntax = Syntax {
    open: "<|tool_call>",
    close: "<tool_call|>",
    delimiter: "<|\"|>",
    after_calls: "<|tool_response>",
};

fn syntax(parser: &str) -> &'static Syntax {
    if parser == "gemma4" {
        &GEMMA4
    } else {
        &FUNCTIONGEMMA
    }
}

/// Prose: words, and fragments of markers that stay text where they stand.
const PROSE: &[&str] = &[
    "the",
    "weather",
    " ",
    "\n",
    "a < b",
    "<|tool",
    "<start_func",
    "call:f{",
    "{x:1}",
    "}",
    "<escape",
    "<|\"",
    "<|chan",
    "北京",
    "😀",
    "é",
    "50%",
];

/// Reasoning words (the closer and turn tokens left out).
const THOUGHTS: &[&str] = &[
    "hmm",
    " ",
    "\n",
    "é",
    "😀",
    "<|tool_call>",
    "call:f{a:1}",
    "{",
];

/// The text of string values: quotes, braces, commas, colons, other families' and formats' markers.
const RAW: &[&str] = &[
    "plain",
    "say \"hi\"",
    "C:\\dir",
    "}{",
    ",",
    "]",
    "[",
    ":",
    "\n",
    " ",
    "\t",
    "北京",
    "😀",
    "true",
    "42",
    "<|tool_call>",
    "call:f{a:1}",
    "<start_function_call>",
    "<|channel>",
    "<channel|>",
    "<turn|>",
    "<end_of_turn>",
    "<escape",
    "<|\"",
    "<|\"|>",
    "<escape>",
    "</think>",
];

/// The request's tools: every name takes `s` (string), `n` (integer), `b` (boolean), `o` (object).
fn schema() -> Value {
    super::qwen::schema()
}

/// String text for `syntax`: picks that hold neither its delimiter nor its closer.
fn string_text(rng: &mut Rng, syntax: &Syntax, count: usize) -> String {
    let mut out = String::new();
    for _ in 0..count {
        let pick = rng.pick(RAW);
        if !pick.contains(syntax.delimiter) && !pick.contains(syntax.close) {
            out.push_str(pick);
        }
    }
    // A fragment at the end that, with the delimiter after it, would read as the delimiter or the
    // closer is no fragment a model writes; keep the text plain there.
    if out.ends_with('<')
        || out.ends_with("<|")
        || out.ends_with("<|\"")
        || out.ends_with("<escape")
    {
        out.push('.');
    }
    if rng.chance(10) {
        out.push_str(rng.pick(UNICODE));
    }
    out
}

fn ws(rng: &mut Rng) -> &'static str {
    ["", "", "", " ", "\n", " \n "][rng.below(6)]
}

/// A nested value in Gemma's syntax and the JSON it means.
fn value(rng: &mut Rng, syntax: &Syntax, depth: usize) -> (String, Value) {
    match rng.below(if depth >= 3 { 3 } else { 5 }) {
        0 => {
            let count = rng.below(4);
            let text = string_text(rng, syntax, count);
            (format!("{0}{text}{0}", syntax.delimiter), Value::from(text))
        }
        1 => {
            let raw = rng.pick(&["0", "-3", "12.5", "1e-7", "12345", "-0.25"]);
            (
                raw.to_owned(),
                serde_json::from_str(raw).unwrap_or(Value::Null),
            )
        }
        2 => {
            let raw = rng.pick(&["true", "false", "null"]);
            (
                raw.to_owned(),
                serde_json::from_str(raw).unwrap_or(Value::Null),
            )
        }
        3 => {
            let mut texts = Vec::new();
            let mut values = Vec::new();
            for _ in 0..rng.below(4) {
                let (text, value) = value(rng, syntax, depth + 1);
                texts.push(format!("{}{text}{}", ws(rng), ws(rng)));
                values.push(value);
            }
            (format!("[{}]", texts.join(",")), Value::Array(values))
        }
        _ => object(rng, syntax, depth + 1),
    }
}

/// A nested object: bare keys (and one written between delimiters) and values.
fn object(rng: &mut Rng, syntax: &Syntax, depth: usize) -> (String, Value) {
    let mut members = Vec::new();
    let mut map = Map::new();
    for key in ["k0", "k1", "名前", "a b", "x"] {
        if !rng.chance(40) {
            continue;
        }
        let written = if key.contains(' ') || rng.chance(10) {
            format!("{0}{key}{0}", syntax.delimiter)
        } else {
            key.to_owned()
        };
        let (text, value) = value(rng, syntax, depth);
        members.push(format!(
            "{}{written}{}:{}{text}{}",
            ws(rng),
            ws(rng),
            ws(rng),
            ws(rng)
        ));
        map.insert(key.to_owned(), value);
    }
    (format!("{{{}}}", members.join(",")), Value::Object(map))
}

/// One call: `OPEN call:NAME{…} CLOSE`.
fn call(
    rng: &mut Rng,
    syntax: &Syntax,
    huge: usize,
    text: &mut String,
    calls: &mut Vec<ExpectedCall>,
) {
    let name = rng.pick(NAMES);
    let mut members = Vec::new();
    let mut args = Map::new();
    for key in ["s", "n", "b", "o", "u", "extra"] {
        if !rng.chance(50) {
            continue;
        }
        let (written, value) = match key {
            "n" => {
                let n = rng.next_u64() % 100_000;
                (n.to_string(), Value::from(n))
            }
            "b" => {
                let b = rng.chance(50);
                (b.to_string(), Value::from(b))
            }
            "o" => object(rng, syntax, 1),
            // A bare word: a string (no schema types `u`).
            "u" => {
                let word = rng.pick(&["celsius", "fast mode", "x-1"]);
                (word.to_owned(), Value::from(word))
            }
            _ => {
                let count = 1 + rng.below(4);
                let mut raw = string_text(rng, syntax, count);
                if key == "s" && huge > 0 {
                    raw = super::huge_text(
                        rng,
                        &["plain", "say \"hi\"", "北京", "\n", "{a:1}"],
                        huge,
                    );
                }
                (format!("{0}{raw}{0}", syntax.delimiter), Value::from(raw))
            }
        };
        members.push(format!("{key}{}:{}{written}{}", ws(rng), ws(rng), ws(rng)));
        args.insert(key.to_owned(), value);
    }
    text.push_str(&format!(
        "{}call:{name}{{{}}}{}",
        syntax.open,
        members.join(","),
        syntax.close
    ));
    calls.push(ExpectedCall {
        name: name.to_owned(),
        arguments: Value::Object(args).to_string(),
        as_json: true,
        id: None,
    });
}

/// A well-formed FunctionGemma or Gemma 4 output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let parser = rng.pick(PARSERS);
    let syntax = syntax(parser);
    let mut setup = Setup::named(parser);
    let typed = rng.chance(50);
    if typed {
        setup.tools = Some(schema());
    }
    // (reasoning at all, the model opens the channel itself)
    let (reasoning, model_opens) = match (parser, rng.below(3)) {
        ("gemma4", 0) => {
            setup.prompt_tail = Some("<|turn>user\nHi<turn|>\n<|turn>model\n".to_owned());
            (rng.chance(60), true)
        }
        ("gemma4", 1) => {
            setup.prompt_tail = Some("<|turn>model\n<|channel>thought\n<channel|>".to_owned());
            (false, false)
        }
        ("gemma4", _) => {
            setup.prompt_tail = Some(
                "<|tool_response>response:f{value:1}<tool_response|><|channel>thought\n".to_owned(),
            );
            (true, false)
        }
        _ => {
            setup.prompt_tail =
                Some("<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n".to_owned());
            (false, false)
        }
    };
    let mut g = Generated {
        setup,
        text: String::new(),
        expected: Expected::default(),
    };
    if reasoning {
        if model_opens {
            g.text.push_str("<|channel>thought\n");
        }
        let count = 1 + rng.below(10);
        g.expected.reasoning = format!("I think {}", words(rng, THOUGHTS, count));
        g.text.push_str(&g.expected.reasoning);
        g.text.push_str("<channel|>");
    }
    let mut ends_in_call = false;
    let segments = if scale.many_calls > 0 {
        1
    } else {
        1 + rng.below(3)
    };
    for _ in 0..segments {
        if rng.chance(60) {
            let count = rng.below(8);
            let text = format!("ok{}.", words(rng, PROSE, count));
            g.expected.content.push_str(&text);
            g.text.push_str(&text);
            ends_in_call = false;
        }
        if rng.chance(70) || scale != Scale::default() {
            for n in 0..call_count(rng, scale, 3) {
                let huge = if n == 0 { scale.huge_value } else { 0 };
                call(rng, syntax, huge, &mut g.text, &mut g.expected.calls);
            }
            ends_in_call = true;
        }
    }
    if ends_in_call && rng.chance(50) {
        g.text.push_str(syntax.after_calls);
    } else if rng.chance(20) {
        g.text.push_str(if parser == "gemma4" {
            "<turn|>"
        } else {
            "<end_of_turn>"
        });
    }
    g
}

/// One call (for the mutators): a Gemma 4 call, untyped.
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    let syntax = if rng.chance(50) {
        &GEMMA4
    } else {
        &FUNCTIONGEMMA
    };
    call(rng, syntax, 0, &mut text, &mut Vec::new());
    text
}

/// The other parser of the family or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(50) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    if rng.chance(30) {
        other.tools = if other.tools.is_some() {
            None
        } else {
            Some(schema())
        };
    }
    if rng.chance(30) {
        other.prompt_tail = Some(
            [
                "<|turn>model\n",
                "<|turn>model\n<|channel>thought\n<channel|>",
                "<tool_response|><|channel>thought\n",
                "<start_of_turn>model\n",
            ][rng.below(4)]
            .to_owned(),
        );
    }
    other
}
