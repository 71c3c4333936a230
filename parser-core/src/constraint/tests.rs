//! The renderers, checked by running their grammars: Lark directly through llguidance, GBNF through
//! llguidance after a mechanical rewrite to Lark (`llg::gbnf_to_lark`), so that both grammars face the
//! same texts.

#[path = "../../tests-support/llg.rs"]
mod llg;

use rstest::rstest;
use serde_json::{Value, json};

use super::*;

/// Checks that both renderings of `constraint` ([`both`]) accept `text` exactly when `accepted`.
fn assert_both_forms(constraint: &Constraint, text: &str, accepted: bool) {
    for (which, lark) in both(constraint) {
        let result = llg::accepts(&lark, text);
        assert_eq!(
            result.is_ok(),
            accepted,
            "{which}: {text:?}: {result:?}\n{lark}"
        );
    }
}

/// Both renderings of a grammar as llguidance grammars: Lark as is, GBNF rewritten.
fn both(constraint: &Constraint) -> [(&'static str, String); 2] {
    [
        ("lark", constraint.lark().to_owned()),
        ("gbnf", llg::gbnf_to_lark(constraint.gbnf())),
    ]
}

#[rstest]
#[case::string(json!({"type": "string"}), r#""a \"b\" \u00e9 é""#, true)]
#[case::string_not_number(json!({"type": "string"}), "1", false)]
#[case::string_min(json!({"type": "string", "minLength": 2}), r#""a""#, false)]
#[case::string_max(json!({"type": "string", "maxLength": 2}), r#""abc""#, false)]
#[case::string_in_bounds(json!({"type": "string", "minLength": 1, "maxLength": 3}), r#""ab""#, true)]
#[case::integer(json!({"type": "integer"}), "-12", true)]
#[case::integer_not_fraction(json!({"type": "integer"}), "1.5", false)]
#[case::integer_no_leading_zero(json!({"type": "integer"}), "012", false)]
#[case::number(json!({"type": "number"}), "-1.5e3", true)]
#[case::boolean(json!({"type": "boolean"}), "false", true)]
#[case::null(json!({"type": "null"}), "null", true)]
#[case::type_list(json!({"type": ["string", "null"]}), "null", true)]
#[case::type_list_refuses(json!({"type": ["string", "null"]}), "1", false)]
#[case::enum_member(json!({"enum": ["celsius", "fahrenheit"]}), r#""celsius""#, true)]
#[case::enum_other(json!({"enum": ["celsius", "fahrenheit"]}), r#""kelvin""#, false)]
#[case::const_value(json!({"const": 3}), "3", true)]
#[case::const_other(json!({"const": 3}), "4", false)]
#[case::any_of(json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}), "true", true)]
#[case::any_of_refuses(json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}), r#""x""#, false)]
#[case::object_required(OBJECT.clone(), r#"{"city": "Paris"}"#, true)]
#[case::object_all(OBJECT.clone(), r#"{ "city" : "Paris" , "days": 3, "unit": "celsius" }"#, true)]
#[case::object_skips_optional(OBJECT.clone(), r#"{"city": "Paris", "unit": "celsius"}"#, true)]
#[case::object_missing_required(OBJECT.clone(), r#"{"days": 3}"#, false)]
#[case::object_empty(OBJECT.clone(), "{}", false)]
#[case::object_closed(OBJECT.clone(), r#"{"city": "Paris", "extra": 1}"#, false)]
#[case::object_wrong_type(OBJECT.clone(), r#"{"city": 1}"#, false)]
#[case::object_order(OBJECT.clone(), r#"{"days": 3, "city": "Paris"}"#, false)]
#[case::object_open(json!({"type": "object", "properties": {"a": {"type": "integer"}}}), r#"{"a": 1, "b": [1, {"c": null}]}"#, true)]
#[case::object_open_only_extra(json!({"type": "object", "properties": {"a": {"type": "integer"}}}), r#"{"b": "x"}"#, true)]
#[case::object_no_properties(json!({"type": "object"}), r#"{"k": {"n": [true]}}"#, true)]
#[case::object_closed_empty(json!({"type": "object", "properties": {}, "additionalProperties": false}), "{ }", true)]
#[case::array_items(json!({"type": "array", "items": {"type": "integer"}}), "[1, 2,3]", true)]
#[case::array_items_refuses(json!({"type": "array", "items": {"type": "integer"}}), r#"[1, "2"]"#, false)]
#[case::array_empty(json!({"type": "array", "items": {"type": "integer"}}), "[]", true)]
#[case::array_min(json!({"type": "array", "minItems": 2}), "[1]", false)]
#[case::array_max(json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}), r#"["a", "b", "c"]"#, false)]
#[case::array_bounds(json!({"type": "array", "minItems": 1, "maxItems": 2}), r#"["a", {}]"#, true)]
#[case::unconstrained_pattern(json!({"type": "string", "pattern": "^a+$"}), r#""b""#, true)]
fn json_schema_to_gbnf_accepts_what_the_schema_allows(
    #[case] schema: Value,
    #[case] text: &str,
    #[case] accepted: bool,
) {
    let gbnf = json_schema_to_gbnf(&schema);
    let lark = llg::gbnf_to_lark(&gbnf);
    let result = llg::accepts(&lark, text);
    assert_eq!(result.is_ok(), accepted, "{text}: {result:?}\n{gbnf}");
    if accepted {
        // Our own validator agrees (it checks the tests' fixtures in the families' soundness tests).
        let value: Value = serde_json::from_str(text).unwrap();
        assert!(
            llg::validate(&value, &schema).is_ok() || schema.get("pattern").is_some(),
            "{text}"
        );
    }
}

static OBJECT: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "unit": {"enum": ["celsius", "fahrenheit"]}
        },
        "required": ["city"],
        "additionalProperties": false
    })
});

fn hermes_like() -> FormatDescription {
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: "<think>".into(),
            close: "</think>".into(),
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: None,
            section_optional: false,
            call_begin: "<tool_call>".into(),
            name: CallName::JsonFields {
                name: "name".into(),
                arguments: "arguments".into(),
            },
            call_end: "</tool_call>".into(),
            padding: "\n".into(),
            separator: "\n".into(),
            array: false,
        },
        reserved: vec!["<|im_end|>".into()],
    }
}

fn kimi_like() -> FormatDescription {
    FormatDescription {
        reasoning: Some(ReasoningMarkers {
            open: "<think>".into(),
            close: "</think>".into(),
            ended_by_calls: false,
        }),
        calls: CallFormat {
            section: Some(("<|s|>".into(), "<|/s|>".into())),
            section_optional: false,
            call_begin: "<|c|>".into(),
            name: CallName::Tagged {
                prefix: "functions.".into(),
                index_separator: Some(":".into()),
                suffix: "<|a|>".into(),
                id_first: None,
                tight: false,
            },
            call_end: "<|/c|>".into(),
            padding: "".into(),
            separator: "".into(),
            array: false,
        },
        reserved: vec![],
    }
}

fn tools() -> Tools {
    Tools::from_json(&json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": OBJECT.clone()}},
        {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}
    ]))
    .unwrap()
}

fn request(tool_choice: ToolChoice, parallel: bool) -> ConstraintRequest {
    ConstraintRequest {
        tool_choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    }
}

const PARIS: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const NOW: &str = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>";

#[rstest]
#[case::one_call(ToolChoice::Required, true, ReasoningStart::Off, PARIS, true)]
#[case::two_calls(ToolChoice::Required, true, ReasoningStart::Off, &format!("{PARIS}\n{NOW}\n"), true)]
#[case::two_calls_not_parallel(ToolChoice::Required, false, ReasoningStart::Off, &format!("{PARIS}\n{NOW}"), false)]
#[case::text_instead_of_a_call(
    ToolChoice::Required,
    true,
    ReasoningStart::Off,
    "It is sunny.",
    false
)]
#[case::no_output(ToolChoice::Required, true, ReasoningStart::Off, "", false)]
#[case::unknown_function(
    ToolChoice::Required,
    true,
    ReasoningStart::Off,
    "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
    false
)]
#[case::missing_argument(
    ToolChoice::Required,
    true,
    ReasoningStart::Off,
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 2}}\n</tool_call>",
    false
)]
#[case::named(ToolChoice::Function("now".into()), true, ReasoningStart::Off, NOW, true)]
#[case::named_other(ToolChoice::Function("now".into()), true, ReasoningStart::Off, PARIS, false)]
#[case::forced_reasoning(ToolChoice::Required, true, ReasoningStart::Inside, &format!("I should call it.</think>\n\n{PARIS}"), true)]
#[case::forced_reasoning_missing(ToolChoice::Required, true, ReasoningStart::Inside, PARIS, false)]
#[case::call_inside_reasoning(ToolChoice::Required, true, ReasoningStart::Inside, &format!("{PARIS}</think>{PARIS}"), false)]
#[case::optional_reasoning(ToolChoice::Required, true, ReasoningStart::Optional, &format!("<think>hm</think>{PARIS}"), true)]
#[case::optional_reasoning_skipped(
    ToolChoice::Required,
    true,
    ReasoningStart::Optional,
    PARIS,
    true
)]
#[case::reasoning_when_off(ToolChoice::Required, true, ReasoningStart::Off, &format!("<think>hm</think>{PARIS}"), false)]
#[case::none_text(
    ToolChoice::None,
    true,
    ReasoningStart::Off,
    "It is sunny.\nReally.",
    true
)]
#[case::none_call(ToolChoice::None, true, ReasoningStart::Off, PARIS, false)]
#[case::none_end_token(ToolChoice::None, true, ReasoningStart::Off, "Hi<|im_end|>", false)]
#[case::none_reasoning(
    ToolChoice::None,
    true,
    ReasoningStart::Inside,
    "ok</think>Sunny.",
    true
)]
#[case::auto_from_trigger(ToolChoice::Auto, true, ReasoningStart::Off, PARIS, true)]
#[case::auto_from_trigger_text(ToolChoice::Auto, true, ReasoningStart::Off, &format!("Sure. {PARIS}"), false)]
fn hermes_like_grammar(
    #[case] choice: ToolChoice,
    #[case] parallel: bool,
    #[case] start: ReasoningStart,
    #[case] text: &str,
    #[case] accepted: bool,
) {
    let constraint = hermes_like()
        .constraint(Some(&tools()), start, &request(choice, parallel))
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
}

#[rstest]
#[case::one(
    "<|s|><|c|>functions.get_weather:0<|a|>{\"city\": \"Paris\"}<|/c|><|/s|>",
    true
)]
#[case::two_with_spaces(
    "<|s|>\n<|c|>functions.get_weather:0 <|a|>{\"city\": \"Paris\"}<|/c|>\n<|c|>functions.now:1<|a|>{}<|/c|>\n<|/s|>",
    true
)]
#[case::no_index("<|s|><|c|>functions.now<|a|>{}<|/c|><|/s|>", false)]
#[case::no_section("<|c|>functions.now:0<|a|>{}<|/c|>", false)]
#[case::unknown("<|s|><|c|>functions.later:0<|a|>{}<|/c|><|/s|>", false)]
fn kimi_like_grammar(#[case] text: &str, #[case] accepted: bool) {
    let constraint = kimi_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
}

#[test]
fn response_format_constrains_content() {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]});
    let request = ConstraintRequest {
        tool_choice: ToolChoice::None,
        parallel_tool_calls: true,
        response_format: ResponseFormat::JsonSchema(schema),
    };
    let constraint = hermes_like()
        .constraint(Some(&tools()), ReasoningStart::Inside, &request)
        .unwrap();
    assert!(!constraint.lazy);
    for (which, lark) in both(&constraint) {
        assert!(
            llg::accepts(&lark, "so 42</think>\n{\"answer\": 42}").is_ok(),
            "{which}"
        );
        assert!(
            llg::accepts(&lark, "so 42</think>The answer is 42.").is_err(),
            "{which}"
        );
    }
}

#[test]
fn auto_is_lazy_from_the_opener_after_reasoning() {
    let constraint = hermes_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Inside,
            &request(ToolChoice::Auto, true),
        )
        .unwrap();
    assert!(constraint.lazy);
    assert_eq!(constraint.triggers.words, ["<tool_call>"]);
    assert_eq!(
        constraint.triggers.patterns,
        ["^[\\s\\S]*?<\\/think>[\\s\\S]*?(<tool_call>)"]
    );
    let none = hermes_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::None, true),
        )
        .unwrap();
    assert!(!none.lazy);
    assert_eq!(none.triggers, Triggers::default());
}

#[test]
fn named_function_must_exist_and_required_needs_tools() {
    let format = hermes_like();
    let unknown = format.constraint(
        Some(&tools()),
        ReasoningStart::Off,
        &request(ToolChoice::Function("get_time".into()), true),
    );
    assert!(matches!(
        unknown.unwrap_err().kind(),
        ErrorKind::InvalidTools(_)
    ));
    let required = format.constraint(
        None,
        ReasoningStart::Off,
        &request(ToolChoice::Required, true),
    );
    assert!(matches!(
        required.unwrap_err().kind(),
        ErrorKind::InvalidOption(_)
    ));
}

#[test]
fn structural_tag_frames_each_call_exactly() {
    let constraint = hermes_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Optional,
            &request(ToolChoice::Auto, false),
        )
        .unwrap();
    let format = &constraint.structural_tag()["format"];
    assert_eq!(constraint.structural_tag()["type"], "structural_tag");
    assert_eq!(format["elements"][0]["content"]["begin"], "<think>");
    let calls = &format["elements"][1];
    assert_eq!(calls["type"], "triggered_tags");
    assert_eq!(calls["triggers"], json!(["<tool_call>"]));
    assert_eq!(calls["stop_after_first"], true);
    assert_eq!(
        calls["tags"][0]["begin"],
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
    );
    assert_eq!(calls["tags"][0]["end"], "}\n</tool_call>");
    assert_eq!(calls["tags"][0]["content"]["json_schema"], *OBJECT);

    let kimi = kimi_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    let section = &kimi.structural_tag()["format"];
    assert_eq!(section["begin"], "<|s|>");
    assert_eq!(section["content"]["at_least_one"], true);
    assert_eq!(section["content"]["tags"][1]["begin"], "<|c|>functions.now");
    assert_eq!(
        kimi.preserved_tokens,
        [
            "<think>", "</think>", "<|s|>", "<|/s|>", "<|c|>", "<|a|>", "<|/c|>"
        ]
    );
}

#[rstest]
#[case(&["</think>"], Some("</think>"), "a</thin</think>", true)]
#[case(&["</think>"], Some("</think>"), "a</think>b</think>", false)]
#[case(&["<tool_call>", "</think>"], Some("</think>"), "x<tool_call></think>", false)]
#[case(&["<tool_call>", "</think>"], Some("</think>"), "x<tool_cal</think>", true)]
#[case(&["aab"], None, "aaab", false)]
#[case(&["aab"], None, "aaba", false)]
#[case(&["aab"], None, "abaa", true)]
fn free_text_avoids_markers(
    #[case] exclude: &[&str],
    #[case] until: Option<&str>,
    #[case] text: &str,
    #[case] accepted: bool,
) {
    let grammar = Grammar {
        rules: vec![(
            "start".into(),
            Node::Text {
                exclude: exclude.iter().map(|m| m.to_string()).collect(),
                until: until.map(str::to_owned),
            },
        )],
    };
    let lark = grammar::render_lark(&grammar);
    let gbnf = gbnf::render(&grammar);
    for (which, lark) in [("lark", lark), ("gbnf", llg::gbnf_to_lark(&gbnf))] {
        let result = llg::accepts(&lark, text);
        assert_eq!(
            result.is_ok(),
            accepted,
            "{which}: {text:?}: {result:?}\n{lark}"
        );
    }
}

#[rstest]
#[case::closed("hm</think><|s|><|c|>functions.now:0<|a|>{}<|/c|><|/s|>", true)]
#[case::ended_by_the_section("hm<|s|><|c|>functions.now:0<|a|>{}<|/c|><|/s|>", true)]
#[case::redundant_opener("<think>hm</think><|s|><|c|>functions.now:0<|a|>{}<|/c|><|/s|>", true)]
#[case::closer_then_section_inside(
    "hm</think>x<|s|><|c|>functions.now:0<|a|>{}<|/c|><|/s|>",
    false
)]
#[case::closer_before_the_opener_that_ends_it("a</think>b<|s|>", false)]
fn reasoning_ended_by_calls(#[case] text: &str, #[case] accepted: bool) {
    let mut format = kimi_like();
    if let Some(reasoning) = &mut format.reasoning {
        reasoning.ended_by_calls = true;
    }
    let constraint = format
        .constraint(
            Some(&tools()),
            ReasoningStart::Inside,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
    // A lazy grammar's trigger is then any opener, even inside reasoning.
    let lazy = format
        .constraint(
            Some(&tools()),
            ReasoningStart::Inside,
            &request(ToolChoice::Auto, true),
        )
        .unwrap();
    assert_eq!(lazy.triggers.patterns, ["^[\\s\\S]*?(<\\|s\\|>)"]);
}

#[rstest]
#[case::section("<|s|><|c|>functions.now:0<|a|>{}<|/c|><|/s|>", true)]
#[case::bare("<|c|>functions.now:0<|a|>{}<|/c|>", true)]
#[case::bare_two(
    "<|c|>functions.now:0<|a|>{}<|/c|>\n<|c|>functions.now:1<|a|>{}<|/c|>",
    true
)]
#[case::bare_then_section("<|c|>functions.now:0<|a|>{}<|/c|><|s|><|/s|>", false)]
#[case::reasoning_ended_by_a_bare_call("hm<|c|>functions.now:0<|a|>{}<|/c|>", true)]
fn optional_section(#[case] text: &str, #[case] accepted: bool) {
    let mut format = kimi_like();
    format.calls.section_optional = true;
    if let Some(reasoning) = &mut format.reasoning {
        reasoning.ended_by_calls = true;
    }
    let start = if text.starts_with("hm") {
        ReasoningStart::Inside
    } else {
        ReasoningStart::Off
    };
    let constraint = format
        .constraint(Some(&tools()), start, &request(ToolChoice::Required, true))
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
    let lazy = format
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Auto, true),
        )
        .unwrap();
    assert_eq!(lazy.triggers.words, ["<|s|>", "<|c|>"]);
    assert_eq!(
        lazy.structural_tag()["format"]["triggers"],
        json!(["<|s|>", "<|c|>"])
    );
}

fn tagged_like() -> FormatDescription {
    FormatDescription {
        reasoning: None,
        calls: CallFormat {
            section: None,
            section_optional: false,
            call_begin: "<call>".into(),
            name: CallName::Parameters {
                prefix: "<f=".into(),
                suffix: ">".into(),
                parameters: ParameterTags {
                    key_open: "<p=".into(),
                    key_close: ">".into(),
                    space_before_value: false,
                    string_open: "".into(),
                    json_open: "".into(),
                    value_close: "</p>".into(),
                    framing: "\n".into(),
                    value_stops: vec!["</f>".into()],
                    padding: "\n".into(),
                },
                end: "</f>".into(),
            },
            call_end: "</call>".into(),
            padding: "\n".into(),
            separator: "\n".into(),
            array: false,
        },
        reserved: vec![],
    }
}

/// A tool with `count` optional string properties `p0…`, `p0` required, and `note`, a string that
/// may also be an integer.
fn tagged_tools(count: usize) -> Tools {
    let mut properties = serde_json::Map::new();
    for at in 0..count {
        properties.insert(format!("p{at}"), json!({"type": "string", "maxLength": 3}));
    }
    properties.insert("note".into(), json!({"type": ["string", "integer"]}));
    Tools::from_json(
        &json!([{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": properties, "required": ["p0"]
        }}}]),
    )
    .unwrap()
}

#[rstest]
#[case::declared_order(3, "<call><f=f><p=p0>a</p><p=p1>b</p></f></call>", true)]
#[case::any_order(
    3,
    "<call><f=f>\n<p=p2>\nc\n</p>\n<p=p0>\na\n</p>\n</f>\n</call>",
    true
)]
#[case::missing_required(3, "<call><f=f><p=p1>b</p></f></call>", false)]
#[case::repeated(3, "<call><f=f><p=p0>a</p><p=p0>a</p></f></call>", false)]
#[case::undeclared(3, "<call><f=f><p=p0>a</p><p=q>a</p></f></call>", false)]
#[case::too_long(3, "<call><f=f><p=p0>abcd</p></f></call>", false)]
#[case::counted_has_no_marker_start(3, "<call><f=f><p=p0>a<b</p></f></call>", false)]
#[case::free_text_with_markup(
    3,
    "<call><f=f><p=p0>a</p><p=note>\n<b> & </b>\n</p></f></call>",
    true
)]
#[case::free_text_without_stops(3, "<call><f=f><p=p0>a</p><p=note></f></p></f></call>", false)]
#[case::beyond_the_limit_declared_order(
    ANY_ORDER_LIMIT + 1,
    "<call><f=f><p=p0>a</p><p=p2>c</p><p=p1>b</p></f></call>",
    false
)]
#[case::beyond_the_limit_in_order(
    ANY_ORDER_LIMIT + 1,
    "<call><f=f><p=p0>a</p><p=p1>b</p><p=p2>c</p></f></call>",
    true
)]
fn tagged_parameters(#[case] count: usize, #[case] text: &str, #[case] accepted: bool) {
    let constraint = tagged_like()
        .constraint(
            Some(&tagged_tools(count)),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
}

#[test]
fn tagged_parameters_in_the_structural_tag() {
    let constraint = tagged_like()
        .constraint(
            Some(&tagged_tools(2)),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    // Whitespace, then the calls, any whitespace between them (each call holds what follows it).
    let format = &constraint.structural_tag()["format"];
    assert_eq!(format["elements"][0]["type"], "regex");
    let calls = &format["elements"][1];
    assert_eq!(calls["separator"], "");
    let call = &calls["tags"][0];
    assert_eq!(call["begin"], "<call>");
    assert_eq!(call["end"], "");
    assert_eq!(call["content"]["type"], "grammar");
    // The rest of the call is the grammars' language: any order, framed or not, any whitespace.
    let rest = llg::gbnf_to_lark(call["content"]["grammar"].as_str().unwrap());
    for (text, accepted) in [
        ("\n<f=f>\n<p=p0>\na\n</p>\n</f>\n</call>", true),
        ("<f=f><p=note>\n<b>\n</p><p=p0>a</p></f></call>\n\n", true),
        (
            " <f=f>\n\n<p=p1>b</p>\n<p=p0>\nabc\n</p></f>  </call>",
            true,
        ),
        ("<f=f><p=p1>b</p></f></call>", false),
        ("<f=f><p=p0>a</p><p=p0>a</p></f></call>", false),
        ("<f=f><p=p0>abcd</p></f></call>", false),
        ("<f=f><p=p0>a</p></f>", false),
        ("<f=g><p=p0>a</p></f></call>", false),
    ] {
        let result = llg::accepts(&rest, text);
        assert_eq!(result.is_ok(), accepted, "{text:?}: {result:?}\n{rest}");
    }
    assert_eq!(
        constraint.preserved_tokens,
        ["<call>", "<f=", "<p=", "</p>", "</f>", "</call>"]
    );
}

/// Tools that declare some parameters alike: `f` (`a`, `b`, `c`; `a` required), `g` (`a` and `b`,
/// both required), `h` (`a` and `c`, the parameters of `f` less one) and `k` (an `a` of another
/// schema).
fn sharing_tools() -> Tools {
    let a = json!({"type": "string", "maxLength": 3});
    let c = json!({"type": "integer"});
    let tool = |name: &str, properties: Value, required: Value| {
        json!({"type": "function", "function": {"name": name, "parameters": {
            "type": "object", "properties": properties, "required": required
        }}})
    };
    Tools::from_json(&json!([
        tool("f", json!({"a": a, "b": a, "c": c}), json!(["a"])),
        tool("g", json!({"a": a, "b": a}), json!(["a", "b"])),
        tool("h", json!({"a": a, "c": c}), json!(["a"])),
        tool(
            "k",
            json!({"a": {"type": "string", "maxLength": 1}}),
            json!(["a"])
        ),
    ]))
    .unwrap()
}

/// Parameters declared alike share one rule, and the any-order sets of every tool are shared
/// (a set rule is named by the items still to write): each tool still takes exactly its own
/// parameters, each at most once, its required ones present, in every form.
#[rstest]
#[case::any_order("<f=f><p=c>1</p><p=a>x</p></f></call>", true)]
#[case::optional_left_out("<f=f><p=a>x</p></f></call>", true)]
#[case::required_here_optional_there("<f=g><p=a>x</p></f></call>", false)]
#[case::both_required("<f=g><p=b>y</p><p=a>x</p></f></call>", true)]
#[case::a_subset_takes_no_other("<f=h><p=b>y</p><p=a>x</p></f></call>", false)]
#[case::a_subset_in_any_order("<f=h><p=c>2</p><p=a>x</p></f></call>", true)]
#[case::repeated_in_a_subset("<f=h><p=a>x</p><p=a>x</p></f></call>", false)]
#[case::another_schema_is_its_own("<f=k><p=a>xy</p></f></call>", false)]
#[case::the_shared_schema("<f=f><p=a>xy</p></f></call>", true)]
#[case::json_value_shared("<f=h><p=a>x</p><p=c>\"2\"</p></f></call>", false)]
fn parameters_declared_alike_share_rules(#[case] call: &str, #[case] accepted: bool) {
    let constraint = tagged_like()
        .constraint(
            Some(&sharing_tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Required, false),
        )
        .unwrap();
    let text = format!("<call>{call}");
    assert_both_forms(&constraint, &text, accepted);
    // The calls' tag, wherever the format puts it: its content is the GBNF of a call's rest.
    fn grammar_of(value: &Value) -> Option<&str> {
        match value {
            Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("grammar") => {
                map.get("grammar").and_then(Value::as_str)
            }
            Value::Object(map) => map.values().find_map(grammar_of),
            Value::Array(items) => items.iter().find_map(grammar_of),
            _ => None,
        }
    }
    let tag = constraint.structural_tag();
    let rest = llg::gbnf_to_lark(grammar_of(tag).expect("the calls' grammar"));
    let result = llg::accepts(&rest, call);
    assert_eq!(
        result.is_ok(),
        accepted,
        "tag: {call:?}: {result:?}\n{rest}"
    );
    // One rule for `a` as f, g and h declare it, one for k's; `b` and `c` once each.
    let lark = constraint.lark();
    // f writes its 8 sets alone, h starts at one of them, k (another `a`) writes its 2 alone, and
    // g (f's `a` and a required `b`) writes 2 shared sets whose rests are f's.
    let sets = |prefix: &str| lark.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!((sets("any_"), sets("any_0_")), (12, 2), "{lark}");
    assert_eq!(lark.matches("\"<p=a>\"").count(), 2, "{lark}");
    assert_eq!(lark.matches("\"<p=b>\"").count(), 1, "{lark}");
    assert_eq!(lark.matches("\"<p=c>\"").count(), 1, "{lark}");
}

/// Calls with the name after a literal and the arguments in a fence (`CallName::Enclosed`).
fn fenced_like() -> FormatDescription {
    let mut format = kimi_like();
    format.calls.section = None;
    format.calls.name = CallName::Enclosed {
        prefix: "function<|sep|>".into(),
        open: "\n```json\n".into(),
        close: "\n```".into(),
    };
    format
}

const FENCED: &str = "<|c|>function<|sep|>get_weather\n```json\n{\"city\": \"Paris\"}\n```<|/c|>";

#[rstest]
#[case::as_described(FENCED, true)]
// The whitespace that starts the closing literal may be any, or none.
#[case::close_without_newline(&FENCED.replace("}\n```", "}```"), true)]
#[case::close_after_spaces(&FENCED.replace("}\n```", "} \n\n```"), true)]
#[case::no_fence(&FENCED.replace("\n```json\n", "\n").replace("\n```", ""), false)]
#[case::open_without_newline(&FENCED.replace("get_weather\n```json\n", "get_weather```json\n"), false)]
#[case::no_prefix(&FENCED.replace("function<|sep|>", ""), false)]
#[case::missing_required(&FENCED.replace("\"city\"", "\"days\""), false)]
fn enclosed_arguments(#[case] output: &str, #[case] accepted: bool) {
    let tools = tools();
    let request = request(ToolChoice::Required, false);
    let constraint = fenced_like()
        .constraint(Some(&tools), ReasoningStart::Off, &request)
        .unwrap();
    for (which, grammar) in both(&constraint) {
        let result = llg::accepts(&grammar, output);
        assert_eq!(result.is_ok(), accepted, "{which}: {output:?}: {result:?}");
    }
    let tag = &constraint.structural_tag()["format"]["tags"][0];
    assert_eq!(tag["begin"], "<|c|>function<|sep|>get_weather\n```json\n");
    assert_eq!(tag["end"], "\n```<|/c|>");
}

/// Calls as the elements of a JSON array after a section opener without a closer (Mistral-Nemo's
/// `[TOOL_CALLS] [{…}, {…}]`).
fn array_like() -> FormatDescription {
    FormatDescription {
        reasoning: None,
        calls: CallFormat {
            section: Some(("[TOOL_CALLS]".into(), "".into())),
            section_optional: false,
            call_begin: "".into(),
            name: CallName::JsonFields {
                name: "name".into(),
                arguments: "arguments".into(),
            },
            call_end: "".into(),
            padding: "".into(),
            separator: ", ".into(),
            array: true,
        },
        reserved: vec![],
    }
}

#[rstest]
#[case::one(r#"[TOOL_CALLS][{"name": "now", "arguments": {}}]"#, true)]
#[case::spaced("[TOOL_CALLS] [ {\"name\": \"now\", \"arguments\": {}} ]\n", true)]
#[case::two(
    r#"[TOOL_CALLS][{"name": "now", "arguments": {}}, {"name": "now", "arguments": {}}]"#,
    true
)]
#[case::no_comma(
    r#"[TOOL_CALLS][{"name": "now", "arguments": {}} {"name": "now", "arguments": {}}]"#,
    false
)]
#[case::no_brackets(r#"[TOOL_CALLS]{"name": "now", "arguments": {}}"#, false)]
#[case::unclosed(r#"[TOOL_CALLS][{"name": "now", "arguments": {}}"#, false)]
#[case::trailing_comma(r#"[TOOL_CALLS][{"name": "now", "arguments": {}},]"#, false)]
fn array_of_calls(#[case] text: &str, #[case] accepted: bool) {
    let constraint = array_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
}

#[test]
fn array_of_calls_in_the_structural_tag_and_triggers() {
    let lazy = array_like()
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Auto, true),
        )
        .unwrap();
    assert_eq!(lazy.triggers.words, ["[TOOL_CALLS]"]);
    assert_eq!(lazy.preserved_tokens, ["[TOOL_CALLS]"]);
    let calls = &lazy.structural_tag()["format"];
    assert_eq!(calls["triggers"], json!(["[TOOL_CALLS]"]));
    let section = &calls["tags"][0];
    assert_eq!(section["begin"], "[TOOL_CALLS][");
    assert_eq!(section["end"], "]");
    assert_eq!(section["content"]["separator"], ", ");
    assert_eq!(
        section["content"]["tags"][1]["begin"],
        "{\"name\": \"now\", \"arguments\": "
    );
}

#[rstest]
#[case::one(r#"[TOOL_CALLS][{"now": {}}]"#, true)]
#[case::spaced("[TOOL_CALLS] [ { \"get_weather\" : {\"city\": \"Paris\"} } ]", true)]
#[case::unknown(r#"[TOOL_CALLS][{"later": {}}]"#, false)]
#[case::fields(r#"[TOOL_CALLS][{"name": "now", "arguments": {}}]"#, false)]
#[case::two_keys(r#"[TOOL_CALLS][{"now": {}, "now": {}}]"#, false)]
fn name_as_key(#[case] text: &str, #[case] accepted: bool) {
    let mut format = array_like();
    format.calls.name = CallName::NameAsKey;
    let constraint = format
        .constraint(
            Some(&tools()),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    assert_both_forms(&constraint, text, accepted);
    let section = &constraint.structural_tag()["format"];
    assert_eq!(section["content"]["tags"][1]["begin"], "{\"now\": ");
    assert_eq!(section["content"]["tags"][1]["end"], "}");
}

/// Calls without any marker, at the start of the output (Llama 3.x).
fn bare_like() -> FormatDescription {
    let mut format = array_like();
    format.calls.section = None;
    format.calls.array = false;
    format.calls.separator = "".into();
    format
}

#[rstest]
#[case::required(ToolChoice::Required, r#"{"name": "now", "arguments": {}}"#, true)]
#[case::required_two(
    ToolChoice::Required,
    r#"{"name": "now", "arguments": {}} {"name": "now", "arguments": {}}"#,
    true
)]
#[case::required_text(ToolChoice::Required, "It is noon.", false)]
#[case::auto_call(ToolChoice::Auto, r#" {"name": "now", "arguments": {}}"#, true)]
#[case::auto_text(ToolChoice::Auto, "It is noon. {\"name\": \"now\"}", true)]
#[case::auto_empty(ToolChoice::Auto, "", true)]
#[case::auto_object_text(ToolChoice::Auto, r#" {"time": "noon"}"#, false)]
#[case::none_call(ToolChoice::None, r#"{"name": "now", "arguments": {}}"#, false)]
#[case::none_text(ToolChoice::None, "\nIt is noon.", true)]
fn bare_calls(#[case] choice: ToolChoice, #[case] text: &str, #[case] accepted: bool) {
    let constraint = bare_like()
        .constraint(Some(&tools()), ReasoningStart::Off, &request(choice, true))
        .unwrap();
    assert!(!constraint.lazy);
    assert_eq!(constraint.triggers, Triggers::default());
    assert_both_forms(&constraint, text, accepted);
}

/// A bare Python list of calls of `f`, whose one required keyword `v` has `schema`.
fn python_constraint(schema: Value) -> Constraint {
    let format = FormatDescription {
        reasoning: None,
        calls: CallFormat {
            section: None,
            section_optional: false,
            call_begin: "".into(),
            name: CallName::Python,
            call_end: "".into(),
            padding: "".into(),
            separator: ", ".into(),
            array: true,
        },
        reserved: vec![],
    };
    let tools = Tools::from_json(&json!([{"type": "function", "function": {"name": "f",
        "parameters": {"type": "object", "properties": {"v": schema}, "required": ["v"]}}}]))
    .unwrap();
    format
        .constraint(
            Some(&tools),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap()
}

#[rstest]
#[case::string(json!({"type": "string"}), r#""a \"b\" é""#, true)]
#[case::string_single_quotes(json!({"type": "string"}), r"'it\'s'", true)]
#[case::string_no_line_break(json!({"type": "string"}), "'a\nb'", false)]
#[case::string_bounded_no_escape(json!({"type": "string", "maxLength": 4}), r"'a\nb'", false)]
#[case::string_bounded(json!({"type": "string", "minLength": 2, "maxLength": 3}), "'abc'", true)]
#[case::string_too_long(json!({"type": "string", "maxLength": 2}), "'abc'", false)]
#[case::integer(json!({"type": "integer"}), "-12", true)]
#[case::integer_leading_zero(json!({"type": "integer"}), "012", false)]
#[case::number(json!({"type": "number"}), "1.5e-3", true)]
#[case::boolean(json!({"type": "boolean"}), "True", true)]
#[case::boolean_json(json!({"type": "boolean"}), "true", false)]
#[case::null(json!({"type": ["string", "null"]}), "None", true)]
#[case::enum_member(json!({"enum": ["a", 1, null]}), "'a'", true)]
#[case::enum_none(json!({"enum": ["a", 1, null]}), "None", true)]
#[case::enum_other(json!({"enum": ["a", 1, null]}), "2", false)]
#[case::list(json!({"type": "array", "items": {"type": "integer"}}), "[1, 2,3]", true)]
#[case::list_empty(json!({"type": "array", "items": {"type": "integer"}}), "[ ]", true)]
#[case::list_bounded(json!({"type": "array", "maxItems": 2}), "[1, 'x', None]", false)]
#[case::list_min(json!({"type": "array", "minItems": 2}), "[1]", false)]
#[case::dict(
    json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
           "required": ["a"]}),
    "{'b': 'x', \"a\": 1}",
    true
)]
#[case::dict_missing(
    json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
    "{}",
    false
)]
#[case::dict_undeclared(
    json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
    "{'c': 1}",
    false
)]
#[case::any(json!({}), "[{'k': [None, 1.5, 'x']}]", true)]
#[case::any_not_an_expression(json!({}), "1 + 2", false)]
fn python_values(#[case] schema: Value, #[case] value: &str, #[case] accepted: bool) {
    let constraint = python_constraint(schema);
    let text = format!("[f(v={value})]");
    for (form, grammar) in both(&constraint) {
        let result = llg::accepts(&grammar, &text);
        assert_eq!(result.is_ok(), accepted, "{form}: {text:?}: {result:?}");
    }
}

/// Python calls in a list inside `<calls>…</calls>`, `, ` between two.
fn python_list_like() -> FormatDescription {
    FormatDescription {
        reasoning: None,
        calls: CallFormat {
            section: Some(("<calls>".into(), "</calls>".into())),
            section_optional: false,
            call_begin: "".into(),
            name: CallName::Python,
            call_end: "".into(),
            padding: "".into(),
            separator: ", ".into(),
            array: true,
        },
        reserved: vec![],
    }
}

#[test]
fn python_keywords_in_any_order_separated_by_commas() {
    let format_tools = json!([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c-d": {"type": "integer"}},
        "required": ["a"]}}}]);
    let tools = Tools::from_json(&format_tools).unwrap();
    let format = python_list_like();
    let constraint = format
        .constraint(
            Some(&tools),
            ReasoningStart::Off,
            &request(ToolChoice::Required, false),
        )
        .unwrap();
    for (text, accepted) in [
        ("<calls>[f(b=2, a=1)]</calls>", true),
        ("<calls>[f(a=1)]</calls>", true),
        ("<calls>[f(a=1 b=2)]</calls>", false),
        ("<calls>[f(, a=1)]</calls>", false),
        ("<calls>[f(b=2)]</calls>", false),
        // Not an identifier: cannot be a keyword, so never written.
        ("<calls>[f(a=1, c-d=2)]</calls>", false),
        ("<calls>[f(a=1), f(a=2)]</calls>", false),
    ] {
        for (form, grammar) in both(&constraint) {
            let result = llg::accepts(&grammar, text);
            assert_eq!(result.is_ok(), accepted, "{form}: {text:?}: {result:?}");
        }
    }
    let tag = &constraint.structural_tag()["format"];
    assert_eq!(tag["begin"], "<calls>[");
    // One tag for the calls of every tool: `f(` in its grammar, `)` its end.
    let call = &tag["content"]["tags"][0];
    assert_eq!(call["begin"], "");
    assert_eq!(call["end"], ")");
    assert_eq!(call["content"]["type"], "grammar");
    assert!(
        call["content"]["grammar"]
            .as_str()
            .is_some_and(|g| g.contains("\"f(\" args-0-0")),
        "{call}"
    );
}

#[test]
fn python_keywords_of_equal_name_and_schema_share_one_rule() {
    let city = json!({"type": "string", "maxLength": 20});
    let tools = Tools::from_json(&json!([
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"city": city, "days": {"type": "integer"}}, "required": ["city"]}}},
        {"type": "function", "function": {"name": "g", "parameters": {"type": "object",
            "properties": {"mode": {"type": "boolean"}, "city": city}, "required": ["city"]}}},
        // Root definitions: its items are its own (a `$ref` would read them).
        {"type": "function", "function": {"name": "h", "parameters": {"type": "object",
            "properties": {"city": city}, "$defs": {"unused": {"type": "integer"}}}}}
    ]))
    .unwrap();
    let format = python_list_like();
    let constraint = format
        .constraint(
            Some(&tools),
            ReasoningStart::Off,
            &request(ToolChoice::Required, true),
        )
        .unwrap();
    let lark = constraint.lark();
    let city_rules: Vec<&str> = lark
        .lines()
        .filter(|line| line.starts_with("pyarg_") && line.contains("\"city\""))
        .collect();
    // f's, taken by g; h's own.
    assert_eq!(city_rules.len(), 2, "{lark}");
    assert!(city_rules[0].starts_with("pyarg_0_0:"), "{lark}");
    assert!(city_rules[1].starts_with("pyarg_2_0:"), "{lark}");
    // g writes its `mode` alone.
    assert!(
        lark.contains("pyarg_1_0:") && !lark.contains("pyarg_1_1"),
        "{lark}"
    );
    for (text, accepted) in [
        ("<calls>[f(city=\"Paris\", days=2)]</calls>", true),
        ("<calls>[g(mode=True, city='Rome')]</calls>", true),
        ("<calls>[g(city='Rome', mode=False)]</calls>", true),
        (
            "<calls>[f(days=1, city='a'), g(city=\"b\"), h(city='c')]</calls>",
            true,
        ),
        ("<calls>[g(mode=True)]</calls>", false),
        ("<calls>[g(city='Rome', days=2)]</calls>", false),
        ("<calls>[f(city='Rome', mode=True)]</calls>", false),
        ("<calls>[g(city='abcdefghijklmnopqrstu')]</calls>", false),
    ] {
        for (form, grammar) in both(&constraint) {
            let result = llg::accepts(&grammar, text);
            assert_eq!(result.is_ok(), accepted, "{form}: {text:?}: {result:?}");
        }
    }
    // The structural tag's one grammar for every call (`NAME(` and the arguments; `)` is the tag's
    // end) shares the item too, and opens a call of each tool.
    let call = &constraint.structural_tag()["format"]["content"]["tags"][0];
    let gbnf = call["content"]["grammar"].as_str().unwrap();
    let city_rules = gbnf
        .lines()
        .filter(|line| line.starts_with("pyarg-") && line.contains("\"city\""))
        .count();
    assert_eq!(city_rules, 2, "{gbnf}");
    let rest = llg::gbnf_to_lark(gbnf);
    for (text, accepted) in [
        ("f(city=\"Paris\", days=2", true),
        ("g(mode=True, city='Rome')", false),
        ("g(mode=True, city='Rome'", true),
        ("h(city='c'", true),
        ("g(city='Rome', days=2", false),
        ("k(city='Rome'", false),
    ] {
        let result = llg::accepts(&rest, text);
        assert_eq!(result.is_ok(), accepted, "{text:?}: {result:?}\n{rest}");
    }
}

#[test]
fn json_escape_check_matches_the_byte_rule() {
    let naive = |text: &str| text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
    let mut texts = vec![
        String::new(),
        "plain words".to_owned(),
        "é日本語🙂".repeat(3),
    ];
    // Each escaped byte at every position of strings up to 19 bytes, beside multibyte characters.
    for special in ['"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', ' ', 'é'] {
        for len in 1..20 {
            for at in 0..len {
                let mut text: String = (0..len)
                    .map(|i| if i == at { special } else { 'a' })
                    .collect();
                texts.push(text.clone());
                text.insert(0, '日');
                texts.push(text);
            }
        }
    }
    for text in &texts {
        assert_eq!(grammar::needs_json_escape(text), naive(text), "{text:?}");
        // The escaped text is what `serde_json` writes, whatever escapes stand where.
        let mut escaped = String::from("\"");
        grammar::push_json_escaped(&mut escaped, text);
        escaped.push('"');
        assert_eq!(escaped, serde_json::to_string(text).unwrap(), "{text:?}");
    }
    let mut escaped = String::new();
    // Long texts (escaped through a buffer): every ASCII byte, beside multibyte characters.
    for every in [
        (0u8..0x80).map(char::from).collect::<String>().repeat(2),
        (0u8..0x80)
            .map(char::from)
            .chain("é日🙂".chars())
            .collect::<String>()
            .repeat(3),
    ] {
        escaped.clear();
        grammar::push_json_escaped(&mut escaped, &every);
        assert_eq!(
            format!("\"{escaped}\""),
            serde_json::to_string(&every).unwrap()
        );
    }
}

/// `push_json_escaped` of `text` against `serde_json::to_string`.
fn check_json_escaped(text: &str) {
    let mut escaped = String::from("\"");
    grammar::push_json_escaped(&mut escaped, text);
    escaped.push('"');
    assert_eq!(escaped, serde_json::to_string(text).unwrap(), "{text:?}");
}

/// The path of long texts (a word at a time into a block on the stack, each escape the word's mask
/// flags inserted in place) against `serde_json`: lengths around its threshold (256 bytes) and its
/// block (512), every escape at every byte of a word and at a block's end, runs of escapes across
/// words, texts of nothing but escapes (a control character is six bytes: the block's worst case),
/// and multibyte characters where a block would end.
#[test]
fn json_escape_of_long_texts_matches_serde_json() {
    let specials = [
        "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1f}", "\u{7f}", " ", "é", "日", "🙂",
    ];
    for len in [
        255, 256, 257, 263, 264, 265, 300, 511, 512, 513, 519, 520, 1023, 1024, 1025,
    ] {
        for special in specials {
            let positions = (0..24).chain(len - 24..len).chain(496..530);
            for at in positions.filter(|&at| at < len) {
                let mut text = "a".repeat(len);
                text.replace_range(at..=at, special);
                check_json_escaped(&text);
                // Followed by a `"` (the grammar's usual escape): two escapes in a word, or one at
                // each side of a word's end.
                text.insert(at + special.len(), '"');
                check_json_escaped(&text);
            }
        }
    }
    // Runs of one to seventeen escapes starting at each byte of a word.
    for special in ["\"", "\\", "\n", "\u{1}", "\"\n\\"] {
        for run in 1..=17 {
            for at in 0..8 {
                let text = format!(
                    "{}{}{}",
                    "x".repeat(256 + at),
                    special.repeat(run),
                    "y".repeat(37)
                );
                check_json_escaped(&text);
            }
        }
    }
    // Nothing but escapes, across several blocks.
    for special in ["\"", "\\", "\n", "\u{1}", "\u{1f}", "\\\"", "\u{0}\n"] {
        for count in [256, 511, 512, 513, 1300] {
            check_json_escaped(&special.repeat(count));
        }
    }
    // A multibyte character at each byte where a block would end, and text of them alone.
    for multibyte in ["é", "日", "🙂"] {
        for before in 500..516 {
            let text = format!(
                "{}{}\"{}",
                "a".repeat(before),
                multibyte.repeat(9),
                "\\b".repeat(200)
            );
            check_json_escaped(&text);
        }
        check_json_escaped(&multibyte.repeat(700));
        check_json_escaped(&format!("\"{}", multibyte.repeat(700)));
    }
    // Text like a grammar's: a `"` or `\\` every few bytes, a line break after each rule.
    let rule =
        "root ::= \"<tool_call>\" ws name ( \",\" ws value )* [^\"\\\\\\x7F\\x00-\\x1F] \"\\n\"\n";
    for repeat in [5, 6, 13, 40] {
        check_json_escaped(&rule.repeat(repeat));
        check_json_escaped(&format!("｜DSML｜{}▁", rule.repeat(repeat)));
    }
}

proptest::proptest! {
    /// Any text of the bytes the escaping tells apart (escapes, a control character, plain ASCII
    /// and multibyte characters), short or long, is escaped as `serde_json` escapes it.
    #[test]
    fn json_escape_matches_serde_json(text in "[a \"\\\\\n\t\u{1}\u{7f}é日🙂]{0,1200}") {
        check_json_escaped(&text);
        let naive = text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
        proptest::prop_assert_eq!(grammar::needs_json_escape(&text), naive);
    }
}

#[test]
fn structural_tag_text_is_its_value_serialized() {
    // Names, keys and schemas that need escapes, numbers, nested lists, every kind of format.
    let tools = Tools::from_json(&json!([
        {"type": "function", "function": {"name": "say\"hi\"", "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "a \"quoted\"\nline\t\\", "maxLength": 5},
                "n": {"type": "number", "minimum": -1.5, "maximum": 1e21},
                "k": {"type": "integer", "enum": [1, 2, 3]},
                "m": {"type": "integer", "minimum": -9223372036854775808_i64, "maximum": 18446744073709551615_u64, "default": -7, "examples": [0, 9, 10, -10, 0.1, -0.0, 1e-7, 123456789.125]},
                "list": {"type": "array", "items": {"type": ["string", "null"]}},
                "ü": {"const": "ö"}
            },
            "required": ["text"]
        }}},
        {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}
    ]))
    .unwrap();
    let tagged = FormatDescription {
        calls: CallFormat {
            name: CallName::Parameters {
                prefix: "<function=".into(),
                suffix: ">".into(),
                parameters: ParameterTags {
                    key_open: "<parameter=".into(),
                    key_close: ">".into(),
                    space_before_value: false,
                    string_open: "".into(),
                    json_open: "".into(),
                    value_close: "</parameter>".into(),
                    framing: "\n".into(),
                    value_stops: vec![],
                    padding: "\n".into(),
                },
                end: "</function>".into(),
            },
            ..hermes_like().calls
        },
        ..hermes_like()
    };
    // Calls in or out of their section (Kimi's): every tool's tag stands twice, written once.
    let optional_section = FormatDescription {
        calls: CallFormat {
            section_optional: true,
            ..kimi_like().calls
        },
        ..kimi_like()
    };
    for format in [hermes_like(), kimi_like(), optional_section, tagged] {
        for choice in [
            ToolChoice::Auto,
            ToolChoice::Required,
            ToolChoice::Function("now".into()),
        ] {
            for start in [
                ReasoningStart::Off,
                ReasoningStart::Inside,
                ReasoningStart::Optional,
            ] {
                let constraint = format
                    .constraint(Some(&tools), start, &request(choice.clone(), true))
                    .unwrap();
                let text = constraint.structural_tag_json();
                assert_eq!(
                    serde_json::from_str::<Value>(text).ok().as_ref(),
                    Some(constraint.structural_tag())
                );
                assert_eq!(
                    serde_json::to_string(constraint.structural_tag()).unwrap(),
                    text
                );
            }
        }
    }
}

/// A numbered [`RuleName`] is written as its rule's head is, in both dialects: a grammar that
/// refers to its rules by numbered names renders exactly as one that spells them out.
#[rstest]
#[case::one_number("call_", 3, None, "call_3")]
#[case::two_numbers("param_", 12, Some(0), "param_12_0")]
#[case::prefix_with_underscores("py_any_", 7, None, "py_any_7")]
#[case::uppercase_prefix("Tool_", 1, Some(22), "Tool_1_22")]
fn numbered_rule_names_render_as_spelled(
    #[case] prefix: &'static str,
    #[case] first: usize,
    #[case] second: Option<usize>,
    #[case] spelled: &'static str,
) {
    let numbered = RuleName::numbered(prefix, first, second);
    assert_eq!(numbered.to_string(), spelled);
    assert_eq!(numbered, RuleName::from(spelled));
    assert_ne!(numbered, RuleName::from("other_1"));
    let grammar = |reference: RuleName| Grammar {
        rules: vec![
            (
                "start".to_owned(),
                Node::Seq(vec![Node::Ref(reference), Node::Lit("!".into())]),
            ),
            (spelled.to_owned(), Node::Lit("x".into())),
        ],
    };
    let (by_number, by_word) = (grammar(numbered), grammar(RuleName::from(spelled)));
    assert_eq!(by_number, by_word);
    assert_eq!(by_number.lark(), by_word.lark());
    assert_eq!(by_number.gbnf(), by_word.gbnf());
    // The reference names the rule that is there (the rendering would not parse otherwise).
    let gbnf = by_number.gbnf();
    let head = gbnf
        .lines()
        .nth(1)
        .and_then(|line| line.split(" ::= ").next());
    assert!(
        gbnf.lines()
            .next()
            .is_some_and(|root| root.contains(head.unwrap_or("?"))),
        "{gbnf}"
    );
}

/// The rules the GBNF renderer writes on the side (a schema's values, whitespace, any value) never
/// take a name the grammar's own rules have, however those are named: every head is written once,
/// and the grammar still accepts what it should.
#[rstest]
#[case::crate_style_names(&["args", "args_0", "args_0_0", "args_0_1", "ws", "char", "value", "string", "object", "array", "args_rest", "args_first", "args_members", "args_0_rest", "any1_0", "text1_s0"])]
#[case::names_needing_conversion(&["args-0", "string.x", "ws-2", "args.rest", "value_2"])]
fn gbnf_side_rules_avoid_the_grammars_names(#[case] names: &[&'static str]) {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string"},
        "b": {"type": "object", "properties": {"c": {"type": "integer"}}},
        "d": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "e": {}
    }, "required": ["a"]});
    let mut rules = vec![(
        "start".to_owned(),
        Node::Seq(vec![Node::Json(Arc::new(schema)), Node::Ws]),
    )];
    rules.extend(
        names
            .iter()
            .map(|name| (name.to_string(), Node::Lit("x".into()))),
    );
    let gbnf = Grammar { rules }.gbnf();
    let mut heads = std::collections::HashSet::new();
    for line in gbnf.lines() {
        let head = line.split(" ::= ").next().unwrap_or_default();
        assert!(
            heads.insert(head.to_owned()),
            "{head} defined twice:\n{gbnf}"
        );
    }
    let lark = llg::gbnf_to_lark(&gbnf);
    let good = r#"{"a": "x", "b": {"c": 1}, "d": null, "e": [true]} "#;
    assert_eq!(llg::accepts(&lark, good), Ok(()), "{gbnf}");
    assert!(llg::accepts(&lark, r#"{"b": {"c": 1}}"#).is_err(), "{gbnf}");
}
