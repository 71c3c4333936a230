//! How long a hostile chat template takes to fail (`cargo bench -p benchmarks --bench
//! hostile_templates`): each of `benchmarks::hostile_templates::HOSTILE_TEMPLATES` must stop at its
//! render limit in well under a second with the default `TemplateLimits`. The heap they take is checked
//! by `benchmarks/tests/bounded_memory.rs`.
#![forbid(unsafe_code)]

use benchmarks::hostile_templates::{HOSTILE_TEMPLATES, PROLOGUE, conversation};
use divan::{Bencher, black_box};
use parser_auto::template::{ChatTemplate, RenderInput};

fn main() {
    divan::main();
}

const NAMES: [&str; 8] = [
    "nested_ranges",
    "doubling_string",
    "self_recursive_macro",
    "repeat_string",
    "product_of_ranges",
    "raise_exception",
    "gigabyte_output",
    "retained_copies",
];

#[divan::bench(args = NAMES, sample_count = 3, sample_size = 1)]
fn fail(bencher: Bencher, name: &str) {
    let (_, body, _) = HOSTILE_TEMPLATES
        .iter()
        .find(|(n, _, _)| *n == name)
        .expect("a hostile template");
    let template = ChatTemplate::from_source(format!("{PROLOGUE}{body}")).expect("compiles");
    let input = RenderInput::new(conversation()).with_generation_prompt(true);
    bencher.bench_local(|| black_box(template.render(&input)).expect_err("fails"));
}
