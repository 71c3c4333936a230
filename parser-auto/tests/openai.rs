//! OpenAI's wire format over real family outputs (`parser_auto::openai`, parser-core's `openai` module
//! behind parser-auto's `openai` feature): under every standard chunking, the chunks a server sends accumulate, as the OpenAI
//! SDKs accumulate them, to the final message; no `null` is sent; a call's `id`, `type` and `name` come
//! once, in its first entry; the reasoning field is the configured one; `finish_reason` is
//! `tool_calls` when calls were made.

use parser_auto::openai::{
    Config, Envelope, FinishReason, Message, ReasoningField, SSE_DONE, StreamConverter,
};
use parser_auto::{ParseOptions, ParserEntry};
use parser_core::testing::Chunking;
use rstest::rstest;
use serde_json::{Map, Value, json};

const FIELDS: [ReasoningField; 2] = [ReasoningField::ReasoningContent, ReasoningField::Reasoning];

/// DeepSeek-V3.1 with thinking on: reasoning, content, two calls.
const V31_TWO_CALLS: &str = "The user wants two cities.</think>Checking both.\
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>\
<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"北京\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
const V31_THINKING: &str = "<｜User｜>Weather?<｜Assistant｜><think>";

/// The chunks of one stream, as a client receives them: the `data:` payloads before `[DONE]`, parsed.
fn sse_chunks(
    entry: &ParserEntry,
    options: &ParseOptions,
    output: &str,
    chunking: Chunking,
    config: Config,
    reason: FinishReason,
) -> Vec<Value> {
    let envelope = Envelope::new("chatcmpl-test", 1_700_000_000, "test-model");
    let mut parser = entry.parser(options);
    let mut stream = StreamConverter::new(config);
    let mut sse = String::new();
    for piece in chunking.split(output) {
        if let Some(delta) = stream.delta(parser.push(piece)) {
            sse += &envelope.chunk(Some(&delta), None).to_sse();
        }
    }
    let last = stream.delta(parser.finish());
    sse += &envelope
        .chunk(last.as_ref(), Some(stream.finish_reason(reason)))
        .to_sse();
    sse += SSE_DONE;

    let events: Vec<&str> = sse.split_terminator("\n\n").collect();
    assert_eq!(events.last(), Some(&"data: [DONE]"));
    events[..events.len() - 1]
        .iter()
        .map(|event| {
            let data = event.strip_prefix("data: ").expect("an SSE data line");
            assert!(!data.contains('\n'), "one line per event: {data}");
            serde_json::from_str(data).expect("chunk JSON")
        })
        .collect()
}

fn assert_no_nulls(value: &Value, context: &str) {
    match value {
        Value::Null => panic!("a null was sent: {context}"),
        Value::Array(items) => items.iter().for_each(|v| assert_no_nulls(v, context)),
        Value::Object(map) => map.values().for_each(|v| assert_no_nulls(v, context)),
        _ => {}
    }
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// Checks every wire rule on one stream's chunks; returns the deltas.
fn check_wire_rules(chunks: &[Value], field: ReasoningField, context: &str) -> Vec<Value> {
    let other_field = match field {
        ReasoningField::ReasoningContent => "reasoning",
        ReasoningField::Reasoning => "reasoning_content",
    };
    let mut announced: Vec<u64> = Vec::new();
    let mut deltas = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let context = format!("{context}, chunk {n}: {chunk}");
        assert_no_nulls(chunk, &context);
        assert_eq!(
            keys(chunk),
            ["choices", "created", "id", "model", "object"],
            "{context}"
        );
        assert_eq!(chunk["object"], "chat.completion.chunk", "{context}");
        assert_eq!(chunk["id"], "chatcmpl-test", "{context}");
        let choices = chunk["choices"].as_array().expect("choices");
        assert_eq!(choices.len(), 1, "{context}");
        let choice = &choices[0];
        assert_eq!(choice["index"], 0, "{context}");
        let last = n == chunks.len() - 1;
        assert_eq!(
            choice.get("finish_reason").is_some(),
            last,
            "finish_reason in the last chunk only: {context}"
        );
        let delta = &choice["delta"];
        if !last {
            assert!(
                !delta.as_object().unwrap().is_empty(),
                "an empty delta: {context}"
            );
        }
        assert_eq!(
            delta.get("role").is_some(),
            n == 0,
            "role in the first chunk only: {context}"
        );
        if n == 0 {
            assert_eq!(delta["role"], "assistant");
        }
        for key in keys(delta) {
            assert!(
                ["role", "content", field.key(), "tool_calls"].contains(&key),
                "unexpected key {key} (not {other_field}): {context}"
            );
        }
        for text in ["content", field.key()] {
            if let Some(value) = delta.get(text) {
                assert!(!value.as_str().expect("a string").is_empty(), "{context}");
            }
        }
        if let Some(calls) = delta.get("tool_calls") {
            let calls = calls.as_array().expect("tool_calls array");
            assert!(!calls.is_empty(), "{context}");
            let mut in_this_delta = Vec::new();
            for call in calls {
                let index = call["index"].as_u64().expect("index");
                assert!(
                    !in_this_delta.contains(&index),
                    "index {index} twice in one delta: {context}"
                );
                in_this_delta.push(index);
                let arguments = call["function"]["arguments"]
                    .as_str()
                    .expect("function.arguments is always a string");
                if announced.contains(&index) {
                    assert_eq!(keys(call), ["function", "index"], "{context}");
                    assert_eq!(keys(&call["function"]), ["arguments"], "{context}");
                    assert!(!arguments.is_empty(), "{context}");
                } else {
                    assert_eq!(
                        index,
                        announced.len() as u64,
                        "calls announced in order: {context}"
                    );
                    announced.push(index);
                    assert_eq!(keys(call), ["function", "id", "index", "type"], "{context}");
                    assert_eq!(call["type"], "function", "{context}");
                    assert!(call["id"].as_str().is_some_and(|id| !id.is_empty()));
                    assert_eq!(keys(&call["function"]), ["arguments", "name"], "{context}");
                    assert!(call["function"]["name"].is_string(), "{context}");
                }
            }
        }
        deltas.push(delta.clone());
    }
    deltas
}

/// Merges a delta into the accumulated message as the OpenAI Python SDK's `_accumulate_delta` does:
/// strings concatenated, `index` and `type` replaced, objects merged, `tool_calls` entries merged by
/// their `index`.
fn accumulate(acc: &mut Map<String, Value>, delta: &Map<String, Value>) {
    for (key, value) in delta {
        let Some(existing) = acc.get_mut(key).filter(|v| !v.is_null()) else {
            acc.insert(key.clone(), value.clone());
            continue;
        };
        if key == "index" || key == "type" {
            *existing = value.clone();
            continue;
        }
        match (existing, value) {
            (Value::String(a), Value::String(b)) => a.push_str(b),
            (Value::Object(a), Value::Object(b)) => accumulate(a, b),
            (Value::Array(a), Value::Array(b)) => {
                for entry in b {
                    let index = entry["index"].as_u64().expect("index") as usize;
                    match a.get_mut(index) {
                        Some(Value::Object(acc_entry)) => {
                            accumulate(acc_entry, entry.as_object().unwrap())
                        }
                        Some(_) => panic!("not an object"),
                        None => a.insert(index, entry.clone()),
                    }
                }
            }
            (a, b) => panic!("cannot accumulate {b} into {a}"),
        }
    }
}

/// The accumulated message in the final message's conventions: whitespace-only (or never sent) content
/// is `null`, whitespace-only reasoning is left out, and the calls lose their stream-only `index`.
fn as_final(mut acc: Map<String, Value>, field: ReasoningField) -> Value {
    let blank = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty())
    };
    if blank(acc.get("content")) {
        acc.insert("content".into(), Value::Null);
    }
    if blank(acc.get(field.key())) {
        acc.remove(field.key());
    }
    if let Some(Value::Array(calls)) = acc.get_mut("tool_calls") {
        for call in calls {
            call.as_object_mut().unwrap().remove("index");
        }
    }
    Value::Object(acc)
}

/// Every check, for one output, every standard chunking and both reasoning fields.
fn check_output(entry: &ParserEntry, options: ParseOptions, output: &str) {
    let options = options.with_call_id_seed(7);
    let one_shot = entry.parser(&options).parse(output);
    for field in FIELDS {
        let config = Config::new().with_reasoning_field(field);
        let message = Message::new(&one_shot, config);
        let expected = serde_json::to_value(message).unwrap();
        for chunking in Chunking::standard(entry.special_tokens) {
            let context = format!("{} {field:?} {chunking:?}", entry.name);
            let chunks = sse_chunks(
                entry,
                &options,
                output,
                chunking,
                config,
                FinishReason::Stop,
            );
            let deltas = check_wire_rules(&chunks, field, &context);
            let mut acc = Map::new();
            for delta in &deltas {
                accumulate(&mut acc, delta.as_object().unwrap());
            }
            assert_eq!(
                as_final(acc, field),
                expected,
                "{context}: accumulated chunks differ from the final message"
            );
            let finish = &chunks.last().unwrap()["choices"][0]["finish_reason"];
            let want = if one_shot.tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            };
            assert_eq!(finish, want, "{context}");
            assert_eq!(
                finish.as_str(),
                Some(message.finish_reason(FinishReason::Stop).as_str())
            );
        }
    }
}

#[test]
fn every_registered_sample_streams_to_its_final_message() {
    let entries = parser_auto::entries();
    assert!(!entries.is_empty());
    for entry in entries {
        let options = ParseOptions::new().with_prompt_tail(entry.sample_prompt_tail);
        check_output(entry, options, entry.sample);
    }
}

#[rstest]
#[case::v31_reasoning_content_two_calls("deepseek-v3.1", V31_THINKING, V31_TWO_CALLS)]
#[case::v31_content_only("deepseek-v3.1", "<｜Assistant｜></think>", "Paris is sunny today.")]
#[case::v31_reasoning_only_cut_off("deepseek-v3.1", V31_THINKING, "Still thinking about")]
#[case::v31_truncated_call(
    "deepseek-v3.1",
    "",
    "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Pa"
)]
#[case::qwen3_calls_and_whitespace_content(
    "qwen3",
    "",
    "<think>\nTwo calls.\n</think>\n\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": [1, {\"y\": \"}\"}]}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>"
)]
#[case::qwen3_truncated_call(
    "qwen3",
    "",
    "<think>\nOne call.\n</think>\n\nLet me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par"
)]
#[case::qwen3_string_arguments(
    "qwen3",
    "",
    "<tool_call>\n{\"name\": \"search\", \"arguments\": \"{\\\"q\\\": \\\"a \\\\\\\"b\\\\\\\"\\\"}\"}\n</tool_call>"
)]
#[case::qwen3_coder_xml(
    "qwen3-coder",
    "",
    "Running it.\n<tool_call>\n<function=run>\n<parameter=cmd>\necho \"hi\"\n</parameter>\n</function>\n</tool_call>"
)]
#[case::kimi_k2_ids(
    "kimi-k2",
    "",
    "On it.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
)]
fn family_outputs_stream_to_their_final_message(
    #[case] parser: &str,
    #[case] prompt_tail: &str,
    #[case] output: &str,
) {
    let entry = parser_auto::entry_by_name(parser).unwrap();
    check_output(
        entry,
        ParseOptions::new().with_prompt_tail(prompt_tail),
        output,
    );
}

fn v31_chunks(chunking: Chunking, field: ReasoningField) -> Vec<Value> {
    let entry = parser_auto::entry_by_name("deepseek-v3.1").unwrap();
    let options = ParseOptions::new()
        .with_prompt_tail(V31_THINKING)
        .with_call_id_seed(7);
    let config = Config::new().with_reasoning_field(field);
    sse_chunks(
        entry,
        &options,
        V31_TWO_CALLS,
        chunking,
        config,
        FinishReason::Stop,
    )
    .into_iter()
    .map(|chunk| chunk["choices"][0].clone())
    .collect()
}

/// One push of the whole output: one delta with everything, each call's first entry carrying its whole
/// arguments.
#[test]
fn a_whole_push_is_one_delta() {
    let choices = v31_chunks(Chunking::Whole, ReasoningField::Reasoning);
    let id = |n: usize| choices[0]["delta"]["tool_calls"][n]["id"].clone();
    assert_eq!(
        choices,
        [
            json!({"index": 0, "delta": {
            "role": "assistant",
            "content": "Checking both.",
            "reasoning": "The user wants two cities.",
            "tool_calls": [
                {"index": 0, "id": id(0), "type": "function",
                    "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                {"index": 1, "id": id(1), "type": "function",
                    "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}},
            ]}}),
            json!({"index": 0, "delta": {}, "finish_reason": "tool_calls"}),
        ]
    );
}

/// Special tokens delivered whole (as a server sees them): the push of `<｜tool▁sep｜>` completes the
/// name, so the call's first entry has `"arguments": ""`, and the arguments follow in later entries.
#[test]
fn a_call_announced_before_its_arguments_starts_with_empty_arguments() {
    let tokens = parser_auto::entry_by_name("deepseek-v3.1")
        .unwrap()
        .special_tokens;
    let choices = v31_chunks(Chunking::Tokens(tokens), ReasoningField::ReasoningContent);
    let firsts: Vec<&Value> = choices
        .iter()
        .filter_map(|c| c["delta"].get("tool_calls"))
        .flat_map(|calls| calls.as_array().unwrap())
        .filter(|call| call.get("id").is_some())
        .collect();
    assert_eq!(firsts.len(), 2);
    for call in firsts {
        assert_eq!(call["function"]["arguments"], "");
        assert_eq!(call["function"]["name"], "get_weather");
    }
}

#[rstest]
#[case::stop_with_calls(V31_TWO_CALLS, FinishReason::Stop, "tool_calls")]
#[case::stop_without_calls("Just text.</think>Answer.", FinishReason::Stop, "stop")]
#[case::length_with_calls(V31_TWO_CALLS, FinishReason::Length, "length")]
#[case::length_without_calls("Cut off", FinishReason::Length, "length")]
fn finish_reason_says_tool_calls_after_a_stop_with_calls(
    #[case] output: &str,
    #[case] reason: FinishReason,
    #[case] expected: &str,
) {
    let entry = parser_auto::entry_by_name("deepseek-v3.1").unwrap();
    let options = ParseOptions::new().with_prompt_tail(V31_THINKING);
    let chunks = sse_chunks(
        entry,
        &options,
        output,
        Chunking::Chars(3),
        Config::new(),
        reason,
    );
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        expected
    );
    let message = entry.parser(&options).parse(output);
    assert_eq!(
        Message::new(&message, Config::new())
            .finish_reason(reason)
            .as_str(),
        expected
    );
}

/// The final message: `content` is `null` when absent (OpenAI's schema requires it), an invalid call
/// is still a call, with its raw text.
#[test]
fn the_final_message_keeps_invalid_calls_and_sends_content_null() {
    let entry = parser_auto::entry_by_name("qwen3").unwrap();
    let options = ParseOptions::new().with_call_id_seed(7);
    let message = entry
        .parser(&options)
        .parse("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par");
    assert!(!message.tool_calls[0].valid);
    let value = serde_json::to_value(Message::new(&message, Config::new())).unwrap();
    assert_eq!(
        value,
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": message.tool_calls[0].id, "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\": \"Par"}}]})
    );
}
