//! The common delta inside a string parameter skips the state machine (`CallMachine::plain_arguments`
//! through `ParamValue::take_plain`): streamed through that shortcut, every value must come out as the
//! one-shot parse has it — values with escapes, a `<` that is not a closer, the fullwidth `｜` and `▁` of
//! the markers inside the value, closers and multi-byte characters split across deltas.

use parser_core::testing::{Chunking, check_chunkings, three_way_splits};
use parser_core::{ParseOptions, escape_json_into, find_by_name};
use parser_deepseek::markers::{
    DSML_BLOCK_ENDS, DSML_BLOCKS, DSML_INVOKE, DSML_INVOKE_END, DSML_PARAM, DSML_PARAM_END,
    DSML41_BLOCK, DSML41_BLOCK_END, DSML41_INVOKE, DSML41_INVOKE_END, DSML41_PARAM,
    DSML41_PARAM_END, EOS, SPECIAL_TOKENS,
};

/// String values that stress the shortcut: each is streamed as written and must be read back exactly.
const VALUES: &[&str] = &[
    "Plain prose, one sentence after another, long enough to take many deltas.",
    "fn main() {\n    let name = \"world\";\n\tprintln!(\"hi {name}\"); // a \\ backslash\r\n}\n",
    "if a < b { return \"less\"; } <b>bold</b> a <｜ and </｜ and </｜DSML｜param and </｜DSML｜ parameter x",
    "北京 ▁▁ ｜DSML｜ full｜width ▁ 🎉 café｜▁｜",
    "ends in a cut-off closer prefix </｜DSML｜para",
    "\u{1}\u{1f} control bytes and \u{7f}",
    "",
];

/// One call of `spelling` with `content` as a string parameter between two others, in a block.
fn output(spelling: Spelling, content: &str) -> String {
    let Spelling {
        block,
        block_end,
        invoke,
        invoke_end,
        param,
        param_end,
        ..
    } = spelling;
    format!(
        "Sure.{block}\n{invoke} name=\"write\">\n\
         {param} name=\"path\" string=\"true\">a.rs{param_end}\n\
         {param} name=\"content\" string=\"true\">{content}{param_end}\n\
         {param} name=\"n\" string=\"false\">3{param_end}\n\
         {invoke_end}\n{block_end}{EOS}"
    )
}

#[derive(Clone, Copy)]
struct Spelling {
    parser: &'static str,
    block: &'static str,
    block_end: &'static str,
    invoke: &'static str,
    invoke_end: &'static str,
    param: &'static str,
    param_end: &'static str,
}

const SPELLINGS: &[Spelling] = &[
    Spelling {
        parser: "deepseek-v3.2",
        block: DSML_BLOCKS[0],
        block_end: DSML_BLOCK_ENDS[0],
        invoke: DSML_INVOKE,
        invoke_end: DSML_INVOKE_END,
        param: DSML_PARAM,
        param_end: DSML_PARAM_END,
    },
    Spelling {
        parser: "deepseek-v4",
        block: DSML_BLOCKS[1],
        block_end: DSML_BLOCK_ENDS[1],
        invoke: DSML_INVOKE,
        invoke_end: DSML_INVOKE_END,
        param: DSML_PARAM,
        param_end: DSML_PARAM_END,
    },
    Spelling {
        parser: "deepseek-v4.1",
        block: DSML41_BLOCK,
        block_end: DSML41_BLOCK_END,
        invoke: DSML41_INVOKE,
        invoke_end: DSML41_INVOKE_END,
        param: DSML41_PARAM,
        param_end: DSML41_PARAM_END,
    },
];

/// The arguments the call must have.
fn expected_arguments(content: &str) -> String {
    let mut escaped = String::new();
    escape_json_into(content, &mut escaped);
    format!("{{\"path\": \"a.rs\", \"content\": \"{escaped}\", \"n\": 3}}")
}

/// Deltas of 1 to 6 characters, and of random sizes from many seeds (every alignment of the deltas
/// against the value, closers and multi-byte characters split every way); `check_chunkings` also holds
/// `push_view` to `push` on each.
fn alignments() -> Vec<Chunking> {
    let mut all: Vec<Chunking> = (1..=6).map(Chunking::Chars).collect();
    all.extend((1..=40).map(|seed| Chunking::Random(seed * 104_729)));
    all
}

#[test]
fn string_values_stream_as_one_shot_reads_them() {
    for spelling in SPELLINGS {
        let entry = find_by_name(spelling.parser).unwrap();
        let options = ParseOptions::new().with_call_id_seed(3);
        let make = || entry.parser(&options);
        for value in VALUES {
            let text = output(*spelling, value);
            let one_shot = check_chunkings(&make, &text, &Chunking::standard(SPECIAL_TOKENS))
                .unwrap_or_else(|why| panic!("{}: {why}", spelling.parser));
            assert_eq!(one_shot.content.as_deref(), Some("Sure."), "{text:?}");
            assert_eq!(one_shot.tool_calls.len(), 1, "{text:?}");
            let call = &one_shot.tool_calls[0];
            assert!(call.valid, "{text:?}");
            assert_eq!(call.arguments, expected_arguments(value), "{text:?}");
            check_chunkings(&make, &text, &alignments())
                .unwrap_or_else(|why| panic!("{}: {why}", spelling.parser));
            for (cut, message) in three_way_splits(&make, &text) {
                assert_eq!(message, one_shot, "{} cut {cut}", spelling.parser);
            }
        }
    }
}

/// A value the output cuts off: what was streamed stays, the call flagged invalid, at every split.
#[test]
fn a_cut_off_string_value_streams_as_one_shot_reads_it() {
    let spelling = SPELLINGS[0];
    let entry = find_by_name(spelling.parser).unwrap();
    let options = ParseOptions::new().with_call_id_seed(3);
    let make = || entry.parser(&options);
    for value in VALUES {
        let full = output(spelling, value);
        let open = "name=\"content\" string=\"true\">";
        let cut = full.find(open).unwrap() + open.len() + value.len();
        for end in [cut, cut + "</｜DS".len()] {
            let text = &full[..end];
            let one_shot = check_chunkings(&make, text, &alignments())
                .unwrap_or_else(|why| panic!("{text:?}: {why}"));
            assert_eq!(one_shot.tool_calls.len(), 1, "{text:?}");
            assert!(!one_shot.tool_calls[0].valid, "{text:?}");
        }
    }
}
