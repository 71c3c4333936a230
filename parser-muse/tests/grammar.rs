//! The `muse` and `muse-glimmer` grammars (`parser_muse::constraint`, from the markers the parsers
//! read), run through llguidance with a byte vocabulary: corpus outputs are accepted, wrong outputs
//! refused, and sampled outputs parse into valid calls whose arguments fit their schemas.

#[path = "../../parser-core/tests-support/family.rs"]
mod family;
#[path = "../../parser-core/tests-support/llg.rs"]
mod llg;

use std::path::Path;
use std::sync::Arc;

use parser_core::constraint::{Constraint, ConstraintRequest, ResponseFormat, ToolChoice};
use parser_core::{ParseOptions, Tools};
use rstest::rstest;

use family::{Setting, check_both, corpus_acceptance, sampled_tools, soundness};

/// Corpus cases the grammars refuse, each with the reason: the parser reads more than the format.
const REFUSED: &[&str] = &[
    // A doubled name (`get_weather.get_weather`) for a bare tool: the grammar writes the tool's name.
    "authored/muse/reasoning_call_answer",
    // A parameter the tool does not declare (`opts`).
    "authored/muse/glimmer_json_values",
    // Reasoning cut off by the next header, without its `<|eom|>`.
    "vllm/muse_glimmer/damaged_reasoning_ended_by_next_header",
    // Parameters of a tool that declares none (the peer's tests leave the properties out): the
    // grammar writes the declared ones only.
    "vllm/muse_glimmer/json_value_decoding",
    "vllm/muse_glimmer/parallel_calls",
    "vllm/muse_glimmer/doubled_bare_name",
    "vllm/muse_glimmer/namespaced_name_kept",
    // A recipient that is not the request's tool (`weather.get` for `calendar.get`).
    "vllm/muse_glimmer/ambiguous_leaf_not_rebound",
    // The invoke's closer and the wrapper's missing before `<|eom|>`.
    "vllm/muse_glimmer/truncated_invoke",
    "vllm/muse_glimmer/channels_kept_separate",
];

#[test]
fn corpus_outputs_with_valid_calls_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = ["authored/muse.jsonl", "vllm/muse_glimmer.jsonl"];
    let run = corpus_acceptance(&dir, &files, &[]);
    let refused: Vec<&str> = run.refused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(refused, REFUSED, "{:#?}", run.refused);
    assert_eq!((run.whole, run.from_trigger), (1, 1), "{run:?}");
}

const TAIL: &str = "<|start|>assistant";
const NEXT: &str = "<|start|>assistant ";

fn constraint(parser: &str, choice: ToolChoice, parallel: bool, thinking: bool) -> Constraint {
    let tools = Arc::new(Tools::from_json(&sampled_tools()).unwrap());
    let mut options = ParseOptions::new().with_prompt_tail(TAIL).with_tools(tools);
    if !thinking {
        options = options.with_enable_thinking(Some(false));
    }
    let request = ConstraintRequest {
        tool_choice: choice,
        parallel_tool_calls: parallel,
        response_format: ResponseFormat::Text,
    };
    match parser {
        "muse" => parser_muse::constraint::muse(&options, &request).unwrap(),
        _ => parser_muse::constraint::muse_glimmer(&options, &request).unwrap(),
    }
}

fn invoke(name: &str, params: &[(&str, &str)]) -> String {
    let params: String = params
        .iter()
        .map(|(k, v)| format!("<atem:parameter name=\"{k}\">{v}</atem:parameter>\n"))
        .collect();
    format!("<atem:invoke name=\"{name}\">\n{params}</atem:invoke>\n")
}

fn message(name: &str, invokes: &[String]) -> String {
    format!(
        "to={name}<|message|><atem:function_calls>\n{}</atem:function_calls><|eom|>",
        invokes.concat()
    )
}

fn paris() -> String {
    message(
        "get_weather",
        &[invoke("get_weather", &[("city", "Paris")])],
    )
}

#[rstest]
#[case::one_call(&format!(" {}", paris()), true, true)]
#[case::role_written_again(&format!("{TAIL} {}", paris()), true, true)]
#[case::reasoning_first(&format!(" to=self<|message|>The user wants the weather.<|eom|>{NEXT}{}", paris()), true, true)]
#[case::reasoning_after(&format!(" {}{NEXT}to=self<|message|>Done.<|eom|>", paris()), true, true)]
#[case::typed_values(&format!(" {}", message("get_weather", &[invoke("get_weather", &[("days", "3"), ("city", "Paris"), ("unit", "celsius")])])), true, true)]
#[case::every_type(&format!(" {}", message("search", &[invoke("search", &[("query", "rust"), ("limit", "null"), ("exact", "true"), ("tags", r#"["a"]"#), ("filters", r#"{"lang": "en"}"#)])])), true, true)]
#[case::two_invokes(&format!(" {}", message("get_weather", &[invoke("get_weather", &[("city", "Paris")]), invoke("get_weather", &[("city", "Lyon")])])), true, true)]
#[case::two_messages(&format!(" {}{NEXT}{}", paris(), message("now", &[invoke("now", &[])])), true, true)]
#[case::two_invokes_when_parallel_is_off(&format!(" {}", message("get_weather", &[invoke("get_weather", &[("city", "Paris")]), invoke("get_weather", &[("city", "Lyon")])])), false, false)]
#[case::two_messages_when_parallel_is_off(&format!(" {}{NEXT}{}", paris(), message("now", &[invoke("now", &[])])), false, false)]
#[case::unknown_function(&format!(" {}", message("get_time", &[invoke("get_time", &[])])), true, false)]
#[case::other_recipient(&format!(" {}", message("now", &[invoke("get_weather", &[("city", "Paris")])])), true, false)]
#[case::missing_required_argument(&format!(" {}", message("get_weather", &[invoke("get_weather", &[("days", "3")])])), true, false)]
#[case::undeclared_argument(&format!(" {}", message("get_weather", &[invoke("get_weather", &[("city", "Paris"), ("x", "1")])])), true, false)]
#[case::integer_not_a_number(&format!(" {}", message("get_weather", &[invoke("get_weather", &[("city", "Paris"), ("days", "three")])])), true, false)]
#[case::answer_instead_of_a_call(" to=user<|message|>It is sunny.<|eot|>", true, false)]
#[case::answer_beside_the_call(&format!(" {}{NEXT}to=user<|message|>Done.<|eot|>", paris()), true, false)]
#[case::only_reasoning(" to=self<|message|>Hmm.<|eom|>", true, false)]
fn required_calls(#[case] output: &str, #[case] parallel: bool, #[case] accepted: bool) {
    let constraint = constraint("muse", ToolChoice::Required, parallel, true);
    let result = check_both(constraint.lark(), constraint.gbnf(), output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

/// Glimmer reads a value as JSON when it parses: a string is JSON, or raw text that cannot parse
/// (`city` has 1 to 24 characters, `unit` is `celsius` or `fahrenheit`).
#[rstest]
#[case::raw_string("city", "Paris", true)]
#[case::json_string("city", "\"Paris\"", true)]
#[case::raw_string_that_parses_as_a_number("city", "10", false)]
#[case::raw_string_that_parses_as_a_literal("city", "null", false)]
#[case::raw_string_with_a_lowercase_start("city", "nice", false)]
#[case::raw_string_too_long("city", &"P".repeat(25), false)]
#[case::raw_enum_value("unit", "celsius", true)]
#[case::json_enum_value("unit", "\"fahrenheit\"", true)]
#[case::raw_enum_value_that_is_no_member("unit", "kelvin", false)]
fn glimmer_string_values(#[case] key: &str, #[case] value: &str, #[case] accepted: bool) {
    let constraint = constraint("muse-glimmer", ToolChoice::Required, true, true);
    let mut params = vec![("city", "Paris")];
    if key == "city" {
        params[0].1 = value;
    } else {
        params.push((key, value));
    }
    let output = format!(
        " {}",
        message("get_weather", &[invoke("get_weather", &params)])
    );
    let result = check_both(constraint.lark(), constraint.gbnf(), &output);
    assert_eq!(result.is_ok(), accepted, "{output:?}: {result:?}");
}

#[test]
fn auto_is_lazy_from_a_tool_messages_header() {
    let auto = constraint("muse", ToolChoice::Auto, true, true);
    assert!(auto.lazy);
    assert_eq!(
        auto.triggers.words,
        [
            "to=get_weather<|message|>",
            "to=search<|message|>",
            "to=now<|message|>"
        ]
    );
    let after = format!("{}{NEXT}to=user<|message|>It is sunny.<|eot|>", paris());
    assert!(check_both(auto.lark(), auto.gbnf(), &after).is_ok());
}

#[test]
fn tool_choice_none_a_named_function_and_thinking_off() {
    let none = constraint("muse", ToolChoice::None, true, true);
    let answer = format!(" to=self<|message|>Easy.<|eom|>{NEXT}to=user<|message|>Sunny.<|eot|>");
    assert!(check_both(none.lark(), none.gbnf(), &answer).is_ok());
    assert!(check_both(none.lark(), none.gbnf(), &format!(" {}", paris())).is_err());
    let named = constraint("muse", ToolChoice::Function("now".into()), true, true);
    let now = format!(" {}", message("now", &[invoke("now", &[])]));
    assert!(check_both(named.lark(), named.gbnf(), &now).is_ok());
    assert!(check_both(named.lark(), named.gbnf(), &format!(" {}", paris())).is_err());
    let off = constraint("muse", ToolChoice::Required, false, false);
    let thought = format!(" to=self<|message|>Hm.<|eom|>{NEXT}{}", paris());
    assert!(check_both(off.lark(), off.gbnf(), &format!(" {}", paris())).is_ok());
    assert!(check_both(off.lark(), off.gbnf(), &thought).is_err());
}

#[test]
fn sampled_outputs_parse_into_valid_calls() {
    let settings = [
        Setting {
            parser: "muse",
            prompt_tail: TAIL,
            lazy_prefix: " to=self<|message|>The user wants the weather.<|eom|><|start|>assistant ",
        },
        Setting {
            parser: "muse-glimmer",
            prompt_tail: TAIL,
            lazy_prefix: " to=user<|message|>Let me check.<|eom|><|start|>assistant ",
        },
    ];
    // Each marker hint starts with a line break, which a JSON string cannot hold raw: a JSON value's
    // strings may hold a marker (`%json` cannot exclude text from strings; see `ParameterTags`), which
    // a byte-level walk steered to the bare marker would write there.
    let hints = [
        "\n<|eom|>",
        "\n<|eot|>",
        "\n</atem:parameter>",
        "\"",
        "]",
        "}",
        "1",
        "null",
    ];
    let checked = soundness(&settings, 1000, &hints);
    assert!(checked >= 950, "{checked}");
}
