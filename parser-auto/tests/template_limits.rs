//! Hostile chat templates: each returns the error of the limit it runs into — never a hang, a panic or
//! an abort — through every render entry point, and the template analysis of such a template ends (route:
//! plain content). The memory and time they take are checked in `benchmarks/tests/bounded_memory.rs` and
//! `cargo bench -p benchmarks --bench hostile_templates`.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use parser_auto::template::{ChatTemplate, RenderInput, TemplateLimits};
use parser_auto::{Error, ErrorKind};
use rstest::rstest;
use serde_json::json;

/// How long a hostile render may take in a debug build before the test calls it a hang. The fuel limits
/// end the worst of them in about 6 s on a quiet machine, but a machine at load 15–20 has stretched that
/// past 20 s; a real hang runs forever, so a wide margin costs nothing.
const HANG: Duration = Duration::from_secs(120);

/// Runs `f` on a thread (with a 2 MiB stack, as a server's worker thread may have) and fails the test if
/// it does not finish within [`HANG`].
fn bounded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let _ = send.send(f());
        })
        .expect("spawn");
    receive
        .recv_timeout(HANG)
        .expect("the render did not finish: a hang")
}

fn limit_of(err: &Error) -> Option<&'static str> {
    match err.kind() {
        ErrorKind::LimitExceeded { limit, .. } => Some(limit),
        _ => None,
    }
}

fn conversation() -> RenderInput {
    RenderInput::new(vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "Weather in Paris?"}),
    ])
    .with_generation_prompt(true)
}

const PROLOGUE: &str = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}";

#[rstest]
#[case::nested_ranges(
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "fuel"
)]
#[case::product_of_ranges(
    "{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}",
    "fuel"
)]
#[case::doubling_namespace(
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "work_bytes"
)]
#[case::doubling_plus(
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    "work_bytes"
)]
#[case::doubling_set_chain(
    "{% set a = 'x' * 1000000 %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}{% set a = a ~ a %}",
    "value_bytes"
)]
#[case::repeat_string("{{ 'x' * 10**9 }}", "value_bytes")]
#[case::repeat_string_constant("{% set s = 'x' * 10**8 %}", "value_bytes")]
#[case::repeat_string_variable("{% set n = 10**8 %}{{ 'x' * n }}", "value_bytes")]
#[case::repeat_list("{{ ([1] * 10**8)|length }}", "list_items")]
#[case::self_recursive_macro("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursion")]
#[case::mutually_recursive_macros(
    "{% macro f(n) %}{{ g(n) }}{% endmacro %}{% macro g(n) %}{{ f(n) }}{% endmacro %}{{ f(0) }}",
    "recursion"
)]
#[case::doubling_macro(
    "{% macro d(n) %}{% if n > 0 %}{% set x = d(n - 1) %}{{ x }}{{ x }}{% else %}xxxxxxxx{% endif %}{% endmacro %}{% set y = d(40) %}",
    "output_bytes"
)]
#[case::gigabyte_output(
    "{% for i in range(100000) %}{% for j in range(100000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}",
    "output_bytes"
)]
#[case::captured_gigabyte(
    "{% set x %}{% for i in range(100000) %}{% for j in range(100000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}{% endset %}",
    "output_bytes"
)]
#[case::center("{{ 'x'.center(10**9) }}", "value_bytes")]
#[case::indent("{{ 'a\nb'|indent(10**9) }}", "value_bytes")]
#[case::batch_fill("{{ [1]|batch(10**9, 'x')|list }}", "list_items")]
#[case::replace_quadratic("{% set s = 'x' * 5000 %}{{ s|replace('', s) }}", "value_bytes")]
#[case::join_repeated("{% set s = 'x' * 1000000 %}{{ ([s] * 100000)|join }}", "value_bytes")]
#[case::tojson_indent("{{ [[1]]|tojson(indent=10**9) }}", "value_bytes")]
#[case::format_width("{{ '%1000000000s'|format('x') }}", "value_bytes")]
#[case::ljust("{{ 'x'.ljust(10**9) }}", "value_bytes")]
#[case::list_appends_itself(
    "{% set ns = namespace(l=[]) %}{% for i in range(200) %}{% set _ = ns.l.append(ns.l) %}{% endfor %}{{ ns.l }}",
    "nesting"
)]
#[case::list_nests_in_a_loop(
    "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|length }}",
    "nesting"
)]
#[case::list_extends_itself(
    "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set _ = ns.l.extend(ns.l) %}{% endfor %}",
    "list_items"
)]
#[case::retained_copies(
    "{% set ns = namespace(l=[]) %}{% set s = 'x' * 1000000 %}{% for i in range(100000) %}{% set _ = ns.l.append(s ~ i) %}{% endfor %}",
    "work_bytes"
)]
#[case::two_lists_in_a_cycle(
    "{% set ns = namespace(a=[], b=[]) %}{% set _ = ns.a.append(ns.b) %}{% set _ = ns.b.append(ns.a) %}{{ ns.a }}",
    "nesting"
)]
#[case::namespace_holds_itself(
    "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns) %}{{ ns.l }}",
    "nesting"
)]
#[case::list_counts_itself(
    "{% set ns = namespace(l=[[1]]) %}{% for i in range(10**5) %}{% set _ = ns.l.extend(ns.l) %}{% endfor %}{{ ns.l.count(ns.l) }}",
    "list_items"
)]
fn hostile_templates_stop_at_a_limit(#[case] body: &'static str, #[case] expected: &str) {
    let source = format!("{PROLOGUE}{body}");
    let outcome = bounded(move || {
        let template = match ChatTemplate::from_source(source) {
            Ok(template) => template,
            Err(err) => return Err(("compile", err)),
        };
        match template.render(&conversation()) {
            Ok(text) => Ok(text.len()),
            Err(err) => Err(("render", err)),
        }
    });
    match outcome {
        Err((_, err)) => {
            assert_eq!(limit_of(&err), Some(expected), "{err}");
            assert!(
                err.to_string().contains("chat_template"),
                "names the template: {err}"
            );
        }
        Ok(len) => panic!("rendered {len} bytes instead of stopping at `{expected}`"),
    }
}

/// `raise_exception` is an ordinary render error, not a limit.
#[test]
fn raise_exception_is_a_render_error() {
    let template =
        ChatTemplate::from_source("{{ raise_exception('no system role') }}").expect("compiles");
    let err = template.render(&conversation()).unwrap_err();
    assert_eq!(limit_of(&err), None);
    assert!(err.to_string().contains("no system role"), "{err}");
}

/// Every render entry point runs under the budget.
#[test]
fn every_entry_point_is_bounded() {
    let source = format!(
        "{PROLOGUE}{}",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    );
    let limits = TemplateLimits {
        fuel: 200_000,
        ..TemplateLimits::default()
    };
    let template = ChatTemplate::from_source(source)
        .unwrap()
        .with_limits(limits)
        .unwrap();
    let input = conversation();
    assert_eq!(
        limit_of(&template.render(&input).unwrap_err()),
        Some("fuel")
    );
    assert_eq!(
        limit_of(&template.render_prompt(&input).unwrap_err()),
        Some("fuel")
    );
    assert_eq!(
        limit_of(&template.render_new_message(&input).unwrap_err()),
        Some("fuel")
    );
    let body = r#"{"messages": [{"role": "user", "content": "Hi"}]}"#;
    assert_eq!(
        limit_of(&template.render_request(body).unwrap_err()),
        Some("fuel")
    );
    assert_eq!(
        limit_of(&template.render_json(r#"{"messages": []}"#).unwrap_err()),
        Some("fuel")
    );
}

/// A template whose renders run out of budget is analysed as one that cannot be analysed: the analysis
/// ends, says why, and the template routes to plain content.
#[test]
fn analysis_of_a_hostile_template_ends() {
    let source = format!(
        "{PROLOGUE}{}",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    );
    let (analysis, route) = bounded(move || {
        let template = ChatTemplate::from_source(source).unwrap();
        let analysis = parser_auto::analyze::analyze(&template);
        let resolved =
            parser_auto::resolve(None, Some(&template), &parser_auto::ParseOptions::default())
                .expect("a route");
        (analysis, format!("{:?}", resolved.route))
    });
    assert!(
        analysis.notes.iter().any(|n| n.contains("limit")),
        "{:?}",
        analysis.notes
    );
    assert!(route.contains("PlainContent"), "{route}");
}

/// minijinja indexes an empty sequence it slices backwards (a panic, which the library would turn into
/// an error): found by the templates fuzzer. Empty and lazy sequences slice backwards as in Python.
#[rstest]
#[case::empty_list("{{ [][::-1] }}", "[]")]
#[case::empty_string("{{ ''[::-1] }}|", "|")]
#[case::empty_messages("{{ messages[::-1]|length }}", "0")]
#[case::lazy("{{ ([1, 2, 3]|reverse)[::-1]|list }}", "[1, 2, 3]")]
#[case::lazy_empty("{{ ([]|reverse)[::-2]|list }}", "[]")]
#[case::list("{{ [1, 2, 3][::-1] }}{{ 'abc'[::-2] }}", "[3, 2, 1]ca")]
fn backward_slices(#[case] source: &str, #[case] expected: &str) {
    let template = ChatTemplate::from_source(source).unwrap();
    assert_eq!(template.render(&RenderInput::default()).unwrap(), expected);
}
