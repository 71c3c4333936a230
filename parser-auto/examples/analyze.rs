//! Prints the differential analysis of chat templates as JSON: `cargo run -p parser-auto --example
//! analyze -- TEMPLATE.jinja…` (`cargo xtask analyze` and `llm-parse --analyze` print it as a report).
//!
//! It uses nothing but `parser-auto` (JSON is `parser_auto::serde_json`).
use std::path::Path;

use parser_auto::serde_json;

fn main() {
    for path in std::env::args().skip(1) {
        match parser_auto::template::ChatTemplate::from_file(Path::new(&path)) {
            Ok(template) => {
                let analysis = parser_auto::analyze::analyze(&template);
                println!(
                    "== {path}\n{}",
                    serde_json::to_string_pretty(&analysis).unwrap_or_default()
                );
            }
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
}
