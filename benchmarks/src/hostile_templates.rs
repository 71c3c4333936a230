//! Hostile chat templates (issue: untrusted model directories), shared by the bounded-memory test and
//! the `hostile_templates` benchmark: each must fail with the error of a render limit, on a heap that
//! stays under 100 MB, in well under a second.

/// A conversation prologue every hostile template starts with, so that it renders like a real one
/// until the hostile part.
pub const PROLOGUE: &str = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}";

/// `(name, template body after the prologue, the limit it must run into)`; `raise_exception` is an
/// ordinary render error (no limit).
pub const HOSTILE_TEMPLATES: &[(&str, &str, Option<&str>)] = &[
    (
        "nested_ranges",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        Some("fuel"),
    ),
    (
        "doubling_string",
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        Some("work_bytes"),
    ),
    (
        "self_recursive_macro",
        "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
        Some("recursion"),
    ),
    (
        "repeat_string",
        "{% set n = 10**9 %}{{ 'x' * n }}",
        Some("value_bytes"),
    ),
    (
        "product_of_ranges",
        "{% for i in range(100000) %}{% for j in range(100000) %}{{ i * j }}{% endfor %}{% endfor %}",
        Some("fuel"),
    ),
    (
        "raise_exception",
        "{{ raise_exception('this template refuses') }}",
        None,
    ),
    (
        "gigabyte_output",
        "{% for i in range(100000) %}{% for j in range(100000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}",
        Some("output_bytes"),
    ),
    (
        "retained_copies",
        "{% set ns = namespace(l=[]) %}{% set s = 'x' * 1000000 %}{% for i in range(100000) %}{% set _ = ns.l.append(s ~ i) %}{% endfor %}",
        Some("work_bytes"),
    ),
];

/// The messages the hostile templates are rendered with.
pub fn conversation() -> Vec<serde_json::Value> {
    vec![
        serde_json::json!({"role": "system", "content": "Be brief."}),
        serde_json::json!({"role": "user", "content": "Weather in Paris?"}),
    ]
}
