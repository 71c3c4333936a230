//! PYTHONIC tool calls (`[get_time(city="Paris"), other(a=1)]`): the conversion of Python keyword
//! arguments to JSON, the generic parser on LFM2-style and bare analyses (one-shot and under every
//! standard chunking), the analyzer on templates that render such calls, and a property test that
//! streaming equals one-shot for random (clean, truncated, broken) outputs. Also functionary v3.2's
//! `>>>NAME` calls and `>>>all` content, found by the same analyzer pass (punctuation call openers).

use std::path::Path;

use parser_auto::analyze::{Analysis, Markers, ReasoningMode, ToolFormat, analyze};
use parser_auto::generic::pythonic::kwargs_to_json;
use parser_auto::generic::{markers, parser_for};
use parser_auto::template::ChatTemplate;
use parser_auto::{ParseOptions, ParsedMessage};
use parser_core::testing::{Chunking, check_chunkings};
use proptest::prelude::*;
use rstest::rstest;
use serde_json::{Value, json};

fn s(text: &str) -> String {
    text.to_owned()
}

/// LFM2: Python calls between `<|tool_call_start|>` and `<|tool_call_end|>`, ChatML turns.
fn lfm2() -> Analysis {
    Analysis {
        tools: ToolFormat::Pythonic,
        markers: Markers {
            tool_section_start: s("<|tool_call_start|>"),
            tool_section_end: s("<|tool_call_end|>"),
            ..Markers::default()
        },
        end_of_turn: vec![s("<|im_end|>")],
        generation_prompt: s("<|im_start|>assistant\n"),
        ..Analysis::default()
    }
}

/// The same with `<think>` reasoning.
fn lfm2_thinking() -> Analysis {
    let mut analysis = lfm2();
    analysis.reasoning = ReasoningMode::TagBased;
    analysis.markers.reasoning_start = s("<think>");
    analysis.markers.reasoning_end = s("</think>");
    analysis
}

/// Llama-3.2-style bare Python calls: a list at the very start of the answer.
fn bare() -> Analysis {
    Analysis {
        tools: ToolFormat::Pythonic,
        end_of_turn: vec![s("<|eot_id|>")],
        ..Analysis::default()
    }
}

fn options() -> ParseOptions {
    ParseOptions::new().with_call_id_seed(3)
}

/// Parses one-shot and under every standard chunking; all must agree.
fn parse(analysis: &Analysis, output: &str) -> ParsedMessage {
    let options = options();
    let make = || parser_for(analysis, &options);
    check_chunkings(&make, output, &Chunking::standard(markers(analysis)))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// (name, arguments, valid) of every call.
fn calls(message: &ParsedMessage) -> Vec<(&str, &str, bool)> {
    message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str(), c.valid))
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// Conversion.

#[rstest]
#[case::empty("", Some("{}"))]
#[case::spaces("   ", Some("{}"))]
#[case::double_quotes(r#"city="Paris""#, Some(r#"{"city": "Paris"}"#))]
#[case::single_quotes("city='Paris'", Some(r#"{"city": "Paris"}"#))]
#[case::spaces_around_equals(
    r#"city = "Paris" , days = 3"#,
    Some(r#"{"city": "Paris", "days": 3}"#)
)]
#[case::trailing_comma("a=1,", Some(r#"{"a": 1}"#))]
#[case::integer("a=1", Some(r#"{"a": 1}"#))]
#[case::negative("a=-12", Some(r#"{"a": -12}"#))]
#[case::plus("a=+5", Some(r#"{"a": 5}"#))]
#[case::float("a=1.5", Some(r#"{"a": 1.5}"#))]
#[case::float_leading_dot("a=.5", Some(r#"{"a": 0.5}"#))]
#[case::float_trailing_dot("a=5.", Some(r#"{"a": 5.0}"#))]
#[case::exponent("a=1e-3", Some(r#"{"a": 1e-3}"#))]
#[case::underscores("a=1_000_000", Some(r#"{"a": 1000000}"#))]
#[case::big_integer_kept(
    "a=123456789012345678901234567890",
    Some(r#"{"a": 123456789012345678901234567890}"#)
)]
#[case::python_constants(
    "a=True, b=False, c=None",
    Some(r#"{"a": true, "b": false, "c": null}"#)
)]
#[case::json_constants(
    "a=true, b=false, c=null",
    Some(r#"{"a": true, "b": false, "c": null}"#)
)]
#[case::list("a=[1, 'x', None]", Some(r#"{"a": [1, "x", null]}"#))]
#[case::tuple("a=(1, 2)", Some(r#"{"a": [1, 2]}"#))]
#[case::empty_containers("a=[], b={}, c=()", Some(r#"{"a": [], "b": {}, "c": []}"#))]
#[case::dict("a={'k': 1, \"j\": [True]}", Some(r#"{"a": {"k": 1, "j": [true]}}"#))]
#[case::dict_number_key("a={1: 'x'}", Some(r#"{"a": {"1": "x"}}"#))]
#[case::nested("a=[{'b': [{'c': (1,)}]}]", Some(r#"{"a": [{"b": [{"c": [1]}]}]}"#))]
#[case::escapes(
    r#"a="line\nnext\ttab \"q\" \\ \u00e9 \x41""#,
    Some(r#"{"a": "line\nnext\ttab \"q\" \\ é A"}"#)
)]
#[case::single_quote_escape(r"a='it\'s'", Some(r#"{"a": "it's"}"#))]
#[case::other_quote_inside(
    r#"a='say "hi"', b="it's""#,
    Some(r#"{"a": "say \"hi\"", "b": "it's"}"#)
)]
#[case::unknown_escape_kept(r#"a="C:\data""#, Some(r#"{"a": "C:\\data"}"#))]
#[case::markup_in_string(r#"a="<|tool_call_end|>)]""#, Some(r#"{"a": "<|tool_call_end|>)]"}"#))]
#[case::unicode("a='日本 😀'", Some(r#"{"a": "日本 😀"}"#))]
#[case::raw_newline_in_string("a='x\ny'", Some(r#"{"a": "x\ny"}"#))]
#[case::positional("1, 2", None)]
#[case::positional_string("'x'", None)]
#[case::expression("a=1+2", None)]
#[case::name_value("a=foo", None)]
#[case::unterminated_string("a='x", None)]
#[case::unterminated_list("a=[1, 2", None)]
#[case::missing_value("a=", None)]
#[case::missing_comma("a=1 b=2", None)]
#[case::hex("a=0x1F", None)]
#[case::leading_zero("a=007", None)]
#[case::bad_number("a=1.2.3", None)]
#[case::bad_hex_escape(r#"a="\xZZ""#, None)]
#[case::digit_key("1a=2", None)]
fn python_keyword_arguments_convert_to_json(#[case] python: &str, #[case] json: Option<&str>) {
    let got = kwargs_to_json(python);
    assert_eq!(got.as_deref(), json, "{python:?}");
    if let Some(got) = got {
        serde_json::from_str::<Value>(&got).expect("valid JSON");
    }
}

#[test]
fn deep_nesting_is_not_valid_and_does_not_overflow() {
    let deep = format!("a={}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(kwargs_to_json(&deep), None);
    let ok = format!("a={}{}", "[".repeat(30), "]".repeat(30));
    assert!(kwargs_to_json(&ok).is_some());
}

// ---------------------------------------------------------------------------------------------------
// Parsing.

type Call = (&'static str, &'static str, bool);

#[rstest]
#[case::one_call(
    r#"<|tool_call_start|>[get_time(city="Paris")]<|tool_call_end|>"#,
    None,
    vec![("get_time", r#"{"city": "Paris"}"#, true)]
)]
#[case::two_calls(
    "<|tool_call_start|>[special_function(arg1=1), special_function_with_opt(arg1=1, arg2=2)]<|tool_call_end|>",
    None,
    vec![("special_function", r#"{"arg1": 1}"#, true), ("special_function_with_opt", r#"{"arg1": 1, "arg2": 2}"#, true)]
)]
#[case::no_arguments("<|tool_call_start|>[empty_args()]<|tool_call_end|>", None, vec![("empty_args", "{}", true)])]
#[case::content_before(
    "Let me check.<|tool_call_start|>[f(a='x')]<|tool_call_end|>",
    Some("Let me check."),
    vec![("f", r#"{"a": "x"}"#, true)]
)]
#[case::content_after(
    "<|tool_call_start|>[f(a=1)]<|tool_call_end|>Done.",
    Some("Done."),
    vec![("f", r#"{"a": 1}"#, true)]
)]
#[case::whitespace_everywhere(
    "<|tool_call_start|>\n[ f ( a = 1 ) ,\n g( b='2' ) ]\n<|tool_call_end|><|im_end|>",
    None,
    vec![("f", r#"{"a": 1}"#, true), ("g", r#"{"b": "2"}"#, true)]
)]
#[case::markup_inside_strings(
    r#"<|tool_call_start|>[f(code="print(')]')\n<|tool_call_end|>", b=[1])]<|tool_call_end|>"#,
    None,
    vec![("f", r#"{"code": "print(')]')\n<|tool_call_end|>", "b": [1]}"#, true)]
)]
#[case::dotted_name(
    "<|tool_call_start|>[functions.get_time(city='Oslo')]<|tool_call_end|>",
    None,
    vec![("functions.get_time", r#"{"city": "Oslo"}"#, true)]
)]
#[case::without_brackets(
    "<|tool_call_start|>f(a=1)<|tool_call_end|>",
    None,
    vec![("f", r#"{"a": 1}"#, true)]
)]
// Inside an opened section, calls may follow each other without a list (Olmo 3 writes one per
// line); a line that is no call ends the block.
#[case::calls_on_lines_without_brackets(
    "<|tool_call_start|>\nf(a=1)\ng(b='2')\n<|tool_call_end|>",
    None,
    vec![("f", r#"{"a": 1}"#, true), ("g", r#"{"b": "2"}"#, true)]
)]
#[case::text_line_after_call_ends_block(
    "<|tool_call_start|>f(a=1)\nthat is all",
    Some("\nthat is all"),
    vec![("f", r#"{"a": 1}"#, true)]
)]
#[case::text_after_closed_section_is_content(
    "<|tool_call_start|>f(a=1)<|tool_call_end|>\ng(b=2)",
    Some("\ng(b=2)"),
    vec![("f", r#"{"a": 1}"#, true)]
)]
#[case::truncated_in_arguments(
    "<|tool_call_start|>[special_function(arg1=",
    None,
    vec![("special_function", "arg1=", false)]
)]
#[case::truncated_in_string(
    "<|tool_call_start|>[f(a='x)]<|tool_call_end|>",
    None,
    vec![("f", "a='x)]<|tool_call_end|>", false)]
)]
#[case::truncated_after_call(
    "<|tool_call_start|>[f(a=1), ",
    None,
    vec![("f", r#"{"a": 1}"#, true)]
)]
#[case::truncated_before_name_complete("<|tool_call_start|>[get_ti", Some("<|tool_call_start|>[get_ti"), vec![])]
#[case::positional_arguments_invalid(
    "<|tool_call_start|>[f(1, 2), g(a=1)]<|tool_call_end|>",
    None,
    vec![("f", "1, 2", false), ("g", r#"{"a": 1}"#, true)]
)]
#[case::section_end_inside_arguments(
    "<|tool_call_start|>[f(a=[1<|tool_call_end|>after",
    Some("after"),
    vec![("f", "a=[1", false)]
)]
#[case::stray_bracket(
    "<|tool_call_start|>[f(a=1]<|tool_call_end|>",
    None,
    vec![("f", "a=1", false)]
)]
#[case::no_call_after_marker(
    "<|tool_call_start|>sorry, no call",
    Some("<|tool_call_start|>sorry, no call"),
    vec![]
)]
#[case::prose_is_content("Use f(a=1) like [this](url).", Some("Use f(a=1) like [this](url)."), vec![])]
fn lfm2_outputs(#[case] output: &str, #[case] content: Option<&str>, #[case] want: Vec<Call>) {
    let message = parse(&lfm2(), output);
    assert_eq!(message.content.as_deref(), content, "{output:?}");
    assert_eq!(calls(&message), want, "{output:?}");
    assert_eq!(message.reasoning, None);
}

#[test]
fn lfm2_reasoning_then_call() {
    let message = parse(
        &lfm2_thinking(),
        r#"<think>I need to call a function</think>Let me check the time.<|tool_call_start|>[get_time(city="Paris")]<|tool_call_end|>"#,
    );
    assert_eq!(
        message.reasoning.as_deref(),
        Some("I need to call a function")
    );
    assert_eq!(message.content.as_deref(), Some("Let me check the time."));
    assert_eq!(
        calls(&message),
        vec![("get_time", r#"{"city": "Paris"}"#, true)]
    );
}

#[rstest]
#[case::list_at_start("[get_weather(city='Paris'), get_time()]", None, vec![("get_weather", r#"{"city": "Paris"}"#, true), ("get_time", "{}", true)])]
#[case::leading_whitespace("\n [f(a=1)]<|eot_id|>", None, vec![("f", r#"{"a": 1}"#, true)])]
#[case::markdown_link("[Wikipedia](https://www.wikipedia.org) is a site.", Some("[Wikipedia](https://www.wikipedia.org) is a site."), vec![])]
#[case::prose_first("Here: [f(a=1)]", Some("Here: [f(a=1)]"), vec![])]
fn bare_outputs(#[case] output: &str, #[case] content: Option<&str>, #[case] want: Vec<Call>) {
    let message = parse(&bare(), output);
    assert_eq!(message.content.as_deref(), content, "{output:?}");
    assert_eq!(calls(&message), want, "{output:?}");
}

// ---------------------------------------------------------------------------------------------------
// Analysis.

/// A ChatML template that renders calls as a Python list inside section markers (or bare).
fn python_template(open: &str, close: &str) -> ChatTemplate {
    let source = format!(
        concat!(
            "{{%- if tools %}}<|im_start|>system\nTools: {{{{ tools | tojson }}}}<|im_end|>\n{{% endif -%}}",
            "{{%- for message in messages -%}}",
            "<|im_start|>{{{{ message.role }}}}\n",
            "{{%- if message.tool_calls -%}}{open}[",
            "{{%- for tc in message.tool_calls -%}}",
            "{{{{ tc.function.name }}}}(",
            "{{%- for k, v in tc.function.arguments | items -%}}{{{{ k }}}}={{{{ v | tojson }}}}{{% if not loop.last %}}, {{% endif %}}{{%- endfor -%}}",
            "){{% if not loop.last %}}, {{% endif %}}",
            "{{%- endfor -%}}]{close}",
            "{{%- else -%}}{{{{ message.content }}}}{{%- endif -%}}",
            "<|im_end|>\n",
            "{{%- endfor -%}}",
            "{{%- if add_generation_prompt %}}<|im_start|>assistant\n{{% endif -%}}"
        ),
        open = open,
        close = close
    );
    ChatTemplate::from_source(source).expect("template")
}

#[test]
fn analyzer_finds_python_calls_in_section_markers() {
    let analysis = analyze(&python_template("<|tool_call_start|>", "<|tool_call_end|>"));
    assert_eq!(analysis.tools, ToolFormat::Pythonic, "{analysis:#?}");
    assert_eq!(analysis.markers.tool_section_start, "<|tool_call_start|>");
    assert_eq!(analysis.markers.tool_section_end, "<|tool_call_end|>");
    assert!(analysis.workarounds.is_empty(), "{analysis:#?}");
    let message = parser_for(&analysis, &options())
        .parse("<|tool_call_start|>[f(a='x', b=[1, 2.5])]<|tool_call_end|>");
    assert_eq!(
        calls(&message),
        vec![("f", r#"{"a": "x", "b": [1, 2.5]}"#, true)]
    );
}

#[test]
fn analyzer_finds_bare_python_calls() {
    let analysis = analyze(&python_template("", ""));
    assert_eq!(analysis.tools, ToolFormat::Pythonic, "{analysis:#?}");
    assert_eq!(analysis.markers.tool_section_start, "");
    assert_eq!(analysis.markers.tool_section_end, "");
    let message = parser_for(&analysis, &options()).parse("[f(a=1), g()]");
    assert_eq!(
        calls(&message),
        vec![("f", r#"{"a": 1}"#, true), ("g", "{}", true)]
    );
}

#[test]
fn pythonic_serialises_like_the_other_formats() {
    assert_eq!(
        serde_json::to_value(ToolFormat::Pythonic).unwrap(),
        json!("PYTHONIC")
    );
    assert_eq!(
        serde_json::to_value(ToolFormat::TagWithJson).unwrap(),
        json!("TAG_WITH_JSON")
    );
}

#[test]
fn lfm2_template_gets_python_calls_and_no_reasoning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let template = ChatTemplate::from_file(&root.join("templates/LFM2-8B-A1B.jinja")).unwrap();
    let analysis = analyze(&template);
    assert_eq!(analysis.tools, ToolFormat::Pythonic, "{analysis:#?}");
    assert_eq!(analysis.markers.tool_section_start, "<|tool_call_start|>");
    assert_eq!(analysis.markers.tool_section_end, "<|tool_call_end|>");
    // The template names no reasoning markers: `<think>` stays content (DESIGN §4.8).
    assert_eq!(analysis.reasoning, ReasoningMode::None);
    assert!(
        analysis
            .workarounds
            .contains(&s("lfm2-pythonic-tool-calls"))
    );
}

// ---------------------------------------------------------------------------------------------------
// Properties.

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const STRING_PIECES: &[&str] = &[
    "a",
    "Paris",
    " ",
    "\n",
    "'",
    "\"",
    "\\",
    ")",
    "]",
    "(",
    "[",
    "{",
    "}",
    "=",
    ",",
    "é",
    "😀",
    "<|tool_call_end|>",
    "<|tool_call_start|>",
    "<|im_end|>",
    "<think>",
];

/// A random Python literal and the JSON value it stands for.
fn literal(rng: &mut Rng, depth: u32) -> (String, Value) {
    match rng.below(if depth > 2 { 5 } else { 7 }) {
        0 => {
            let text: String = (0..rng.below(6)).map(|_| rng.pick(STRING_PIECES)).collect();
            let quote = if rng.below(2) == 0 { '\'' } else { '"' };
            let mut python = String::from(quote);
            for c in text.chars() {
                match c {
                    '\\' => python.push_str("\\\\"),
                    '\n' => python.push_str("\\n"),
                    c if c == quote => {
                        python.push('\\');
                        python.push(c);
                    }
                    c => python.push(c),
                }
            }
            python.push(quote);
            (python, Value::String(text))
        }
        1 => {
            let n = rng.below(2000) as i64 - 1000;
            (n.to_string(), json!(n))
        }
        2 => {
            let x = (rng.below(1000) as f64) / 8.0;
            (format!("{x:?}"), json!(x))
        }
        3 => match rng.below(3) {
            0 => (s("True"), json!(true)),
            1 => (s("False"), json!(false)),
            _ => (s("None"), Value::Null),
        },
        4 => (s("'x'"), json!("x")),
        5 => {
            let items: Vec<(String, Value)> =
                (0..rng.below(4)).map(|_| literal(rng, depth + 1)).collect();
            let (open, close) = if rng.below(3) == 0 {
                ("(", ")")
            } else {
                ("[", "]")
            };
            let python = format!(
                "{open}{}{close}",
                items
                    .iter()
                    .map(|(p, _)| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let python = if open == "(" && items.len() == 1 {
                format!("({},)", items[0].0)
            } else {
                python
            };
            (
                python,
                Value::Array(items.into_iter().map(|(_, v)| v).collect()),
            )
        }
        _ => {
            let mut map = serde_json::Map::new();
            let mut parts = Vec::new();
            for k in 0..rng.below(4) {
                let (p, v) = literal(rng, depth + 1);
                parts.push(format!("'k{k}': {p}"));
                map.insert(format!("k{k}"), v);
            }
            (format!("{{{}}}", parts.join(", ")), Value::Object(map))
        }
    }
}

/// A random LFM2 output: optional content, a call block of 1–3 calls, optional content after; and the
/// calls it holds (name, arguments).
fn output(rng: &mut Rng) -> (String, Vec<(String, Value)>) {
    let mut text = String::new();
    if rng.below(2) == 0 {
        text.push_str("Let me (check) [that]. ");
    }
    text.push_str("<|tool_call_start|>[");
    let mut want = Vec::new();
    for c in 0..=rng.below(3) {
        if c > 0 {
            text.push_str(if rng.below(2) == 0 { ", " } else { ",\n" });
        }
        let name = format!("fn_{c}");
        let mut args = serde_json::Map::new();
        let mut parts = Vec::new();
        for a in 0..rng.below(4) {
            let (p, v) = literal(rng, 0);
            parts.push(format!("arg{a}={p}"));
            args.insert(format!("arg{a}"), v);
        }
        text.push_str(&format!("{name}({})", parts.join(", ")));
        want.push((name, Value::Object(args)));
    }
    text.push_str("]<|tool_call_end|>");
    if rng.below(2) == 0 {
        text.push_str(" Done.<|im_end|>");
    }
    (text, want)
}

fn check_random_output(seed: u64, chunk_seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let (mut text, want) = output(&mut rng);
    let mode = rng.below(4);
    if mode == 1 {
        // Truncated anywhere (on a character boundary).
        let mut cut = rng.below(text.len() as u64 + 1) as usize;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    } else if mode == 2 {
        // A random character replaced by markup or punctuation.
        let pieces = [
            "(",
            ")",
            "]",
            "'",
            "\"",
            "<|tool_call_end|>",
            "=",
            ",",
            "<|tool_call_start|>",
        ];
        let mut at = rng.below(text.len() as u64) as usize;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let piece = pieces[rng.below(pieces.len() as u64) as usize];
        text.insert_str(at, piece);
    }
    let analysis = if rng.below(2) == 0 {
        lfm2()
    } else {
        lfm2_thinking()
    };
    let options = options();
    let make = || parser_for(&analysis, &options);
    let chunkings = [
        Chunking::Chars(1),
        Chunking::Random(chunk_seed),
        Chunking::Random(chunk_seed.rotate_left(17)),
        Chunking::Tokens(markers(&analysis)),
    ];
    let message = check_chunkings(&make, &text, &chunkings)
        .map_err(|e| TestCaseError::fail(format!("{e}\noutput {text:?}")))?;
    if mode == 0 || mode == 3 {
        let got: Vec<(String, Value)> = message
            .tool_calls
            .iter()
            .map(|c| {
                prop_assert!(c.valid, "{c:?} in {text:?}");
                let args: Value = serde_json::from_str(&c.arguments)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {c:?}")))?;
                Ok((c.name.clone(), args))
            })
            .collect::<Result<_, TestCaseError>>()?;
        prop_assert_eq!(got, want, "output {:?}", text);
    }
    Ok(())
}

proptest! {
    // PROPTEST_CASES=50000 for a long run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(400),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Random Python call blocks (clean, truncated, spliced with markup), random chunkings: streaming
    // equals one-shot, nothing panics, clean outputs give their calls with the oracle's arguments.
    #[test]
    fn pythonic_streaming_equals_one_shot(seed in any::<u64>(), chunk_seed in any::<u64>()) {
        check_random_output(seed, chunk_seed)?;
    }

    // Any text at all through the bare analysis: no panic, streaming equals one-shot.
    #[test]
    fn bare_pythonic_never_panics(text in "[\\[\\]()a-z=,'\"\\\\ .0-9\n]{0,40}", chunk_seed in any::<u64>()) {
        let analysis = bare();
        let options = options();
        let make = || parser_for(&analysis, &options);
        check_chunkings(&make, &text, &[Chunking::Chars(1), Chunking::Random(chunk_seed)])
            .map_err(TestCaseError::fail)?;
    }
}

// ---------------------------------------------------------------------------------------------------
// Functionary v3.2: `>>>NAME\n{JSON}` calls and `>>>all\ntext` content (recipients written with the
// same punctuation opener).

fn functionary() -> Analysis {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let template =
        ChatTemplate::from_file(&root.join("templates/meetkai-functionary-medium-v3.2.jinja"))
            .unwrap();
    (*parser_auto::analysis_for(&template)).clone()
}

#[test]
fn analyzer_finds_functionary_recipients() {
    let analysis = functionary();
    assert_eq!(analysis.tools, ToolFormat::TagWithJson, "{analysis:#?}");
    assert_eq!(analysis.markers.per_call_start, ">>>");
    assert_eq!(
        analysis.content,
        parser_auto::analyze::ContentMode::AlwaysWrapped
    );
    assert_eq!(analysis.markers.content_start, ">>>all");
    assert!(analysis.workarounds.is_empty(), "{analysis:#?}");
}

#[rstest]
#[case::content(">>>all\nHello, world!\nWhat's up?", Some("Hello, world!\nWhat's up?"), vec![])]
#[case::call(">>>special_function\n{\"arg1\": 1}", None, vec![("special_function", "{\"arg1\": 1}", true)])]
#[case::content_then_calls(
    ">>>all\nLet me check.>>>f\n{\"a\": 1}>>>g\n{}<|eot_id|>",
    Some("Let me check."),
    vec![("f", "{\"a\": 1}", true), ("g", "{}", true)]
)]
#[case::call_then_content(">>>f\n{\"a\": \">>>all\"}>>>all\nDone.", Some("Done."), vec![("f", "{\"a\": \">>>all\"}", true)])]
#[case::name_starting_with_all(">>>allowed\n{}", None, vec![("allowed", "{}", true)])]
#[case::repl_prompt_is_content(
    "Try:\n>>> print(1)\n1",
    Some("Try:\n>>> print(1)\n1"),
    vec![]
)]
#[case::truncated_header(">>>al", Some(">>>al"), vec![])]
fn functionary_outputs(
    #[case] output: &str,
    #[case] content: Option<&str>,
    #[case] want: Vec<Call>,
) {
    let message = parse(&functionary(), output);
    assert_eq!(
        message.content.as_deref().map(str::trim),
        content,
        "{output:?}"
    );
    assert_eq!(calls(&message), want, "{output:?}");
}

/// A random functionary output made of content and call pieces, possibly truncated.
fn functionary_output(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        ">>>all\n",
        ">>>all",
        ">>>",
        ">>>f\n",
        ">>>allx\n",
        "{\"a\": \">>>all\\n\"}",
        "{\"b\": [1, {\"c\": null}]}",
        "{",
        "}",
        "Hello ",
        "\n",
        "<|eot_id|>",
        "é",
    ];
    let mut text: String = (0..rng.below(12)).map(|_| rng.pick(PIECES)).collect();
    if rng.below(3) == 0 {
        let mut cut = rng.below(text.len() as u64 + 1) as usize;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Recipient content and calls in any order, any chunking: streaming equals one-shot, no panic.
    #[test]
    fn functionary_streaming_equals_one_shot(seed in any::<u64>(), chunk_seed in any::<u64>()) {
        let analysis = functionary();
        let text = functionary_output(&mut Rng::new(seed));
        let options = options();
        let make = || parser_for(&analysis, &options);
        let chunkings = [
            Chunking::Chars(1),
            Chunking::Random(chunk_seed),
            Chunking::Tokens(markers(&analysis)),
        ];
        check_chunkings(&make, &text, &chunkings)
            .map_err(|e| TestCaseError::fail(format!("{e}\noutput {text:?}")))?;
    }
}
