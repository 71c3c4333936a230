//! GCML runs DeepSeek's DSML machine, whose common delta inside a string parameter skips the state
//! machine (`ParamValue::take_plain`): streamed through that shortcut, every value must come out as the
//! one-shot parse has it — escapes, a `<` that is no closer, the fullwidth `｜` of the markers inside the
//! value, closers and multi-byte characters split across deltas.

use parser_core::testing::{Chunking, check_chunkings, three_way_splits};
use parser_core::{ParseOptions, escape_json_into, find_by_name};
use parser_gigachat::gcml::{
    EOS, GCML_BLOCK, GCML_BLOCK_END, GCML_INVOKE, GCML_INVOKE_END, GCML_PARAM, GCML_PARAM_END,
    THINK_CLOSE,
};

const VALUES: &[&str] = &[
    "Plain prose, one sentence after another, long enough to take many deltas.",
    "fn main() {\n    let name = \"world\";\n\tprintln!(\"hi {name}\"); // a \\ backslash\r\n}\n",
    "if a < b { return \"less\"; } <b>bold</b> a <｜ and </｜ and </｜GCML｜param and </｜GCML｜ parameter",
    "Москва ▁ ｜GCML｜ full｜width 🎉 café｜",
    "",
];

#[test]
fn string_values_stream_as_one_shot_reads_them() {
    for (parser, lead) in [
        ("gigachat3.5", String::new()),
        ("gigachat3.5-reasoning", format!("Thinking.{THINK_CLOSE}")),
    ] {
        let entry = find_by_name(parser).unwrap();
        let options = ParseOptions::new().with_call_id_seed(3);
        let make = || entry.parser(&options);
        for value in VALUES {
            let text = format!(
                "{lead}{GCML_BLOCK}\n{GCML_INVOKE} name=\"write\">\n\
                 {GCML_PARAM} name=\"content\" string=\"true\">{value}{GCML_PARAM_END}\n\
                 {GCML_PARAM} name=\"n\" string=\"false\">3{GCML_PARAM_END}\n\
                 {GCML_INVOKE_END}\n{GCML_BLOCK_END}{EOS}"
            );
            let one_shot = check_chunkings(
                &make,
                &text,
                &Chunking::standard(parser_gigachat::SPECIAL_TOKENS),
            )
            .unwrap_or_else(|why| panic!("{parser}: {why}"));
            let mut escaped = String::new();
            escape_json_into(value, &mut escaped);
            assert_eq!(one_shot.tool_calls.len(), 1, "{text:?}");
            assert!(one_shot.tool_calls[0].valid, "{text:?}");
            assert_eq!(
                one_shot.tool_calls[0].arguments,
                format!("{{\"content\": \"{escaped}\", \"n\": 3}}")
            );
            let chunkings: Vec<Chunking> = (1..=40)
                .map(|seed| Chunking::Random(seed * 104_729))
                .collect();
            check_chunkings(&make, &text, &chunkings)
                .unwrap_or_else(|why| panic!("{parser}: {why}"));
            for (cut, message) in three_way_splits(&make, &text) {
                assert_eq!(message, one_shot, "{parser} cut {cut}");
            }
        }
    }
}
