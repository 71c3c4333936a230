//! The common delta inside a call's string argument skips the state machine (`JsonCall::take_plain`),
//! as plain text and thinking do: streamed through those shortcuts, every call must come out as the
//! one-shot parse has it — escapes, a block marker inside a JSON string, multi-byte characters and
//! markers split across deltas.

use parser_core::testing::{Chunking, check_chunkings, three_way_splits};
use parser_core::{ParseOptions, find_by_name};
use parser_inkling::{
    CONTENT_INVOKE_TOOL_JSON, CONTENT_TEXT, CONTENT_THINKING, END_MESSAGE, MESSAGE_MODEL,
    SPECIAL_TOKENS,
};

/// Argument values as the model writes them inside a JSON string.
const VALUES: &[&str] = &[
    "Plain prose, one sentence after another, long enough to take many deltas.",
    r#"fn main() {\n    let name = \"world\";\n\tprintln!(\"hi\"); // a \\ backslash\u00e9\n}"#,
    "a < b <|end_message|> <|message_model|> inside the string",
    "北京 ▁ ｜ café 🎉",
    "",
];

#[test]
fn string_arguments_stream_as_one_shot_reads_them() {
    let entry = find_by_name("inkling").unwrap();
    let options = ParseOptions::new()
        .with_prompt_tail(MESSAGE_MODEL)
        .with_call_id_seed(3);
    let make = || entry.parser(&options);
    for value in VALUES {
        let arguments = format!("{{\"content\": \"{value}\", \"n\": [1, {{\"k\": \"v\"}}]}}");
        let text = format!(
            "{CONTENT_THINKING}Thinking about {value}.{END_MESSAGE}\
             {MESSAGE_MODEL}{CONTENT_TEXT}Writing.{END_MESSAGE}\
             {MESSAGE_MODEL}write{CONTENT_INVOKE_TOOL_JSON}\
             {{\"name\": \"write\", \"args\": {arguments}}}{END_MESSAGE}"
        );
        let one_shot = check_chunkings(&make, &text, &Chunking::standard(SPECIAL_TOKENS))
            .unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(one_shot.tool_calls.len(), 1, "{text:?}");
        assert!(one_shot.tool_calls[0].valid, "{text:?}");
        assert_eq!(one_shot.tool_calls[0].arguments, arguments);
        let chunkings: Vec<Chunking> = (1..=40)
            .map(|seed| Chunking::Random(seed * 104_729))
            .collect();
        check_chunkings(&make, &text, &chunkings).unwrap_or_else(|why| panic!("{why}"));
        for (cut, message) in three_way_splits(&make, &text) {
            assert_eq!(message, one_shot, "cut {cut}");
        }
    }
}
