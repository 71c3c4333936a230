//! Llama outputs: Llama 3.x JSON calls at the start of the answer (bare or after `<|python_tag|>`,
//! `parameters` or `arguments`, several separated by `;` or a newline) and Llama 4 pythonic lists
//! (bare or inside `<|python_start|>…<|python_end|>`), with the turn's end tokens.

use parser_core::testing::Rng;

use super::{Generated, JSON_STRINGS, NAMES, Scale, arguments, call_count, escape, words};
use crate::check::{Expected, ExpectedCall};
use crate::setup::Setup;

/// Prose: words, and text that looks like the start of a marker without being one.
const PROSE: &[&str] = &[
    "the",
    "weather",
    "is",
    " ",
    " ",
    "\n",
    "a < b",
    "<|",
    "<|python",
    "<|eot",
    "<|eom_i",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "f(x=1)",
    "\"quoted\"",
    "北京",
    "😀",
    "é",
    "50%",
    "x>y",
    "end",
];

const TAIL_3: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n";
const TAIL_4: &str = "<|header_start|>assistant<|header_end|>\n\n";

/// Python string literals (as written) and the text they mean.
const PY_STRINGS: &[(&str, &str)] = &[
    ("'Paris'", "Paris"),
    ("\"two words\"", "two words"),
    ("'it\\'s'", "it's"),
    ("\"say \\\"hi\\\"\"", "say \"hi\""),
    ("'北京'", "北京"),
    ("'a\\nb'", "a\nb"),
    ("'[x](y)'", "[x](y)"),
    ("''", ""),
];

/// A well-formed Llama output.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    if rng.chance(50) {
        llama3(rng, scale)
    } else {
        llama4(rng, scale)
    }
}

fn llama3(rng: &mut Rng, scale: Scale) -> Generated {
    let mut g = Generated {
        setup: Setup::named("llama3").with_tail(TAIL_3),
        text: String::new(),
        expected: Expected::default(),
    };
    if rng.chance(30) && scale == Scale::default() {
        let count = 1 + rng.below(10);
        g.expected.content = format!("ok{}", words(rng, PROSE, count));
        g.text.push_str(&g.expected.content);
        g.text.push_str("<|eot_id|>");
        return g;
    }
    json_calls(rng, scale, &mut g.text, &mut g.expected.calls);
    g.text
        .push_str(["<|eom_id|>", "<|eot_id|>", ""][rng.below(3)]);
    g
}

fn json_calls(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    text.push_str(["", "\n", " "][rng.below(3)]);
    if rng.chance(50) {
        text.push_str("<|python_tag|>");
    }
    for n in 0..call_count(rng, scale, 3) {
        if n > 0 {
            text.push_str(["; ", ";", ";\n", "\n"][rng.below(4)]);
        }
        let name = rng.pick(NAMES);
        let huge = if n == 0 { scale.huge_value } else { 0 };
        let args = arguments(rng, JSON_STRINGS, huge);
        let field = if rng.chance(70) {
            "parameters"
        } else {
            "arguments"
        };
        text.push_str(&format!("{{\"name\": \"{name}\", \"{field}\": {args}}}"));
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: args,
            as_json: false,
            id: None,
        });
    }
}

fn llama4(rng: &mut Rng, scale: Scale) -> Generated {
    let mut g = Generated {
        setup: Setup::named("llama4").with_tail(TAIL_4),
        text: String::new(),
        expected: Expected::default(),
    };
    if rng.chance(30) && scale == Scale::default() {
        let count = 1 + rng.below(10);
        g.expected.content = format!("ok{}", words(rng, PROSE, count));
        g.text.push_str(&g.expected.content);
        g.text.push_str("<|eot|>");
        return g;
    }
    python_calls(rng, scale, &mut g.text, &mut g.expected.calls);
    g.text.push_str(["<|eom|>", "<|eot|>", ""][rng.below(3)]);
    g
}

fn python_calls(rng: &mut Rng, scale: Scale, text: &mut String, calls: &mut Vec<ExpectedCall>) {
    let tagged = rng.chance(50);
    if tagged {
        text.push_str("<|python_start|>");
    }
    text.push('[');
    for n in 0..call_count(rng, scale, 3) {
        if n > 0 {
            text.push_str([", ", ","][rng.below(2)]);
        }
        let name = rng.pick(NAMES);
        // Python names only: dotted and dashed names are not identifiers.
        let name = if name.contains(['.', '-']) {
            "lookup"
        } else {
            name
        };
        let mut written = Vec::new();
        let mut json = Vec::new();
        for (k, key) in ["city", "days", "flag", "tags"].iter().enumerate() {
            if !rng.chance(60) {
                continue;
            }
            let (py, js) = match k {
                0 => {
                    let (py, value) = PY_STRINGS[rng.below(PY_STRINGS.len())];
                    (py.to_owned(), format!("\"{}\"", escape(value)))
                }
                1 => {
                    let v = rng.below(1000).to_string();
                    (v.clone(), v)
                }
                2 => ["True", "False", "None"]
                    .iter()
                    .zip(["true", "false", "null"])
                    .nth(rng.below(3))
                    .map(|(p, j)| ((*p).to_owned(), j.to_owned()))
                    .unwrap_or_default(),
                _ => ("['a', 1]".to_owned(), "[\"a\", 1]".to_owned()),
            };
            written.push(format!("{key}={py}"));
            json.push(format!("\"{key}\": {js}"));
        }
        text.push_str(&format!("{name}({})", written.join(", ")));
        calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: format!("{{{}}}", json.join(", ")),
            as_json: true,
            id: None,
        });
    }
    text.push(']');
    if tagged && rng.chance(80) {
        text.push_str("<|python_end|>");
    }
}

/// One call block (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let mut text = String::new();
    if rng.chance(50) {
        json_calls(rng, Scale::default(), &mut text, &mut Vec::new());
    } else {
        python_calls(rng, Scale::default(), &mut text, &mut Vec::new());
    }
    text
}

/// Another Llama parser or other options (damaged inputs have no oracle).
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(40) {
        other.parser = ["llama3", "llama4"][rng.below(2)].to_owned();
    }
    if rng.chance(30) {
        other.prompt_tail = Some([TAIL_3, TAIL_4][rng.below(2)].to_owned());
    }
    other
}
