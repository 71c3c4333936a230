//! The render budget's defaults come from data: every render of the render-parity fixtures (351 cases
//! over the 47 reference templates, rendered by transformers itself) and the whole analysis of every
//! reference template are measured, and each default of [`TemplateLimits`] must be at least 100 times
//! the largest use seen. The numbers are printed (`cargo test -p parser-auto --test template_budget --
//! --nocapture`) and quoted in `TemplateLimits`' docs.

use std::fs;
use std::path::{Path, PathBuf};

use parser_auto::analyze;
use parser_auto::template::{ChatTemplate, RenderInput, RenderStats, TemplateLimits};

/// How far above the largest use each default must be.
const HEADROOM: u64 = 100;

fn repo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[derive(Default, Debug)]
struct Largest {
    fuel: (u64, String),
    output_bytes: (u64, String),
    work_bytes: (u64, String),
    emitted_bytes: (u64, String),
    largest_value: (u64, String),
    analysis_fuel: (u64, String),
    renders: usize,
}

impl Largest {
    fn add(&mut self, stats: &RenderStats, what: &str) {
        self.renders += 1;
        for (slot, value) in [
            (&mut self.fuel, stats.fuel),
            (&mut self.output_bytes, stats.output_bytes as u64),
            (&mut self.work_bytes, stats.work_bytes),
            (&mut self.emitted_bytes, stats.emitted_bytes),
            (&mut self.largest_value, stats.largest_value as u64),
        ] {
            if value > slot.0 {
                *slot = (value, what.to_string());
            }
        }
    }
}

fn template_for(file: &str, bos: &str, eos: &str) -> ChatTemplate {
    let source = fs::read_to_string(repo_dir().join("templates").join(file))
        .unwrap_or_else(|e| panic!("templates/{file}: {e}"));
    ChatTemplate::from_source(source)
        .unwrap_or_else(|e| panic!("templates/{file}: {e}"))
        .with_tokens(bos, eos)
}

fn measure() -> Largest {
    let mut largest = Largest::default();
    let fixtures = repo_dir().join("parser-auto/tests/fixtures/render");
    let mut files: Vec<_> = fs::read_dir(&fixtures)
        .expect("fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for path in files {
        let doc: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).expect("fixture")).expect("json");
        let Some(cases) = doc["cases"].as_array() else {
            continue;
        };
        let bos = doc["bos_token"].as_str().unwrap_or_default();
        let eos = doc["eos_token"].as_str().unwrap_or_default();
        let default_file = doc["template"].as_str();
        for case in cases {
            let Some(file) = case["template"].as_str().or(default_file) else {
                continue;
            };
            if !repo_dir().join("templates").join(file).is_file() {
                continue;
            }
            let template = template_for(file, bos, eos);
            let Ok(input) = RenderInput::from_context(&case["context"]) else {
                continue;
            };
            let (_, stats) = template.render_measured(&input);
            let name = format!("{file} / {}", case["name"].as_str().unwrap_or("?"));
            largest.add(&stats, &name);
        }
    }
    let mut templates: Vec<_> = fs::read_dir(repo_dir().join("templates"))
        .expect("templates")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jinja"))
        .collect();
    templates.sort();
    for path in templates {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let template = template_for(&file, "<s>", "</s>");
        let (analysis, fuel) = analyze::analyze_measured(&template);
        assert!(
            !analysis.notes.iter().any(|n| n.contains("render limit")),
            "{file}: {:?}",
            analysis.notes
        );
        if fuel > largest.analysis_fuel.0 {
            largest.analysis_fuel = (fuel, file);
        }
    }
    largest
}

#[test]
fn defaults_are_a_hundred_times_the_largest_use() {
    let largest = measure();
    assert!(
        largest.renders >= 250,
        "only {} renders measured",
        largest.renders
    );
    let limits = TemplateLimits::default();
    println!("measured over {} renders and 47 analyses:", largest.renders);
    let rows = [
        ("fuel", largest.fuel.clone(), limits.fuel),
        (
            "output_bytes (bytes written, captures included)",
            largest.emitted_bytes.clone(),
            limits.output_bytes as u64,
        ),
        (
            "rendered text",
            largest.output_bytes.clone(),
            limits.output_bytes as u64,
        ),
        ("work_bytes", largest.work_bytes.clone(), limits.work_bytes),
        (
            "value_bytes (largest string or list, 8 bytes an item)",
            largest.largest_value.clone(),
            limits.value_bytes as u64,
        ),
        (
            "analysis fuel",
            largest.analysis_fuel.clone(),
            limits.fuel * analyze::ANALYSIS_FUEL_RENDERS,
        ),
    ];
    for (name, (used, where_), default) in &rows {
        println!("  {name}: largest {used} ({where_}); default {default}");
    }
    for (name, (used, where_), default) in rows {
        assert!(
            used.saturating_mul(HEADROOM) <= default,
            "{name}: {used} used by {where_}, default {default} is not {HEADROOM} times that"
        );
    }
}
