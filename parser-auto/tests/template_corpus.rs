//! The llama.cpp corpus with the model name withheld: every case is parsed by what its chat template
//! alone gives (a family by template signature, else the analyzer's generic parser), one-shot and under
//! every standard chunking (the chosen format's special tokens whole), and compared with its expectation (or its deviation, with the stated reason).
//!
//! The bar is ≥ 90% of the cases; the test prints the per-template table and fails below it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parser_auto::template::ChatTemplate;
use parser_core::testing::{Chunking, check_chunkings, compare, load_cases, load_deviations};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn llama_cpp_cases_from_their_templates_alone() {
    let root = root();
    let deviations = load_deviations(&root.join("corpus/deviations"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("corpus/llama_cpp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut by_template: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    let (mut total, mut passed) = (0, 0);
    for file in files {
        for case in load_cases(&file) {
            let Some(name) = case.template.clone() else {
                continue;
            };
            total += 1;
            let row = by_template.entry(name.clone()).or_default();
            row.0 += 1;
            let template = match ChatTemplate::from_file(&root.join("templates").join(&name)) {
                Ok(t) => t,
                Err(e) => {
                    row.2.push(format!("{}: template: {e}", case.id));
                    continue;
                }
            };
            let options = case.options();
            let prepared =
                parser_auto::prepare(None, Some(&template)).expect("a template always resolves");
            let route = prepared.route.clone();
            let make = || prepared.parser(&options);
            let chunkings = Chunking::standard(prepared.special_tokens());
            let outcome = check_chunkings(&make, &case.output, &chunkings).and_then(|message| {
                let expected = deviations
                    .get(&case.id)
                    .map_or(&case.expected, |d| &d.expected);
                compare(&message, expected)
            });
            match outcome {
                Ok(()) => {
                    passed += 1;
                    row.1 += 1;
                }
                Err(why) => row.2.push(format!("{} [{route}]:\n{why}", case.id)),
            }
        }
    }
    println!("\n| template | cases | pass |\n|---|---|---|");
    for (name, (cases, pass, _)) in &by_template {
        println!("| {name} | {cases} | {pass} |");
    }
    println!(
        "| **total** | {total} | {passed} ({:.1}%) |",
        100.0 * passed as f64 / total.max(1) as f64
    );
    for (_, _, failures) in by_template.values() {
        for failure in failures {
            println!("\nFAIL {failure}");
        }
    }
    assert!(
        passed * 10 >= total * 9,
        "{passed} of {total} cases pass: below 90%"
    );
}
