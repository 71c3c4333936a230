//! Divan benchmarks of Hugging Face response parsing and of prompt rendering
//! (`cargo bench -p benchmarks --bench response`).
//!
//! - `response_template`: the parser transformers' own Qwen3 `response_template` gives (the fixture
//!   `parser-auto/tests/fixtures/response_template/qwen3.tokenizer_config.json`), on the Qwen3 Hermes
//!   workloads of the `benchmarks` library: one-shot on ~100 KB, and 2 KB / 20 KB / 200 KB pushed 4
//!   characters at a time (item counter: pushes).
//! - `render_prompt`: rendering a six-message conversation with tools through a chat template, and the
//!   `render_new_message` increment (two renders).
#![forbid(unsafe_code)]

use std::path::Path;

use benchmarks::{QWEN3_HERMES, chunks, stream};
use divan::counter::{BytesCount, ItemsCount};
use divan::{AllocProfiler, Bencher, black_box};
use parser_auto::ParseOptions;
use parser_auto::response::ResponseFormat;
use parser_auto::template::{ChatTemplate, RenderInput};
use serde_json::json;

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

fn qwen3_response_format() -> ResponseFormat {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../parser-auto/tests/fixtures/response_template/qwen3.tokenizer_config.json");
    let text = std::fs::read_to_string(path).expect("the Qwen3 response_template fixture");
    ResponseFormat::from_tokenizer_config(&text)
        .expect("compiles")
        .expect("declares a response_template")
}

fn options() -> ParseOptions {
    ParseOptions::new().with_prompt_tail("<|im_start|>assistant\n<think>\n")
}

#[divan::bench]
fn response_template_one_shot(bencher: Bencher) {
    let format = qwen3_response_format();
    let output = QWEN3_HERMES.output(100_000);
    let options = options();
    bencher
        .counter(BytesCount::of_str(&output))
        .bench(|| black_box(format.parser(&options).parse(black_box(&output))));
}

#[divan::bench(args = [2_000, 20_000, 200_000])]
fn response_template_4_chars(bencher: Bencher, size: usize) {
    let format = qwen3_response_format();
    let output = QWEN3_HERMES.output(size);
    let pieces = chunks(&output, 4);
    let options = options();
    bencher
        .counter(ItemsCount::new(pieces.len()))
        .with_inputs(|| format.parser(&options))
        .bench_local_refs(|parser| stream(parser, &pieces));
}

#[divan::bench]
fn response_template_construction(bencher: Bencher) {
    let format = qwen3_response_format();
    let options = options();
    bencher.bench(|| black_box(format.parser(black_box(&options))));
}

fn conversation() -> RenderInput {
    let tool = json!({"type": "function", "function": {"name": "get_weather", "description": "Weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}});
    RenderInput::new(vec![
        json!({"role": "system", "content": "You are terse."}),
        json!({"role": "user", "content": "Weather in Oslo?"}),
        json!({"role": "assistant", "content": "", "tool_calls": [{"id": "abc123DEF", "type": "function",
            "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}),
        json!({"role": "tool", "tool_call_id": "abc123DEF", "content": "-3 C, snow"}),
        json!({"role": "assistant", "content": "Cold."}),
        json!({"role": "user", "content": "Thanks!"}),
    ])
    .with_tools(vec![tool])
    .with_generation_prompt(true)
}

const TEMPLATES: [&str; 3] = [
    "Qwen-Qwen3-0.6B.jinja",
    "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "google-gemma-2-2b-it.jinja",
];

fn template(file: &str) -> ChatTemplate {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(file);
    let template = ChatTemplate::from_file(&path).expect("template loads");
    template.capabilities();
    template
}

#[divan::bench(args = TEMPLATES)]
fn render_prompt(bencher: Bencher, file: &str) {
    let template = template(file);
    let input = conversation().with_kwarg("date_string", json!("26 Jul 2024"));
    bencher.bench(|| black_box(template.render_prompt(black_box(&input)).expect("renders")));
}

#[divan::bench(args = TEMPLATES)]
fn render_new_message(bencher: Bencher, file: &str) {
    let template = template(file);
    let input = conversation().with_kwarg("date_string", json!("26 Jul 2024"));
    bencher.bench(|| {
        black_box(
            template
                .render_new_message(black_box(&input))
                .expect("renders"),
        )
    });
}
