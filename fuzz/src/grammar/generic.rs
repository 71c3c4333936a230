//! Outputs for the generic engine (model name withheld): the llama.cpp corpus cases of `corpus/` that
//! name a template of `templates/` routed to the analyzer or, by signature, to a family written as data
//! (its hand-written spec run by the same engine), recombined (a slice of another case of the same template spliced in at one of the format's
//! markers). The corpus tests check these outputs against their expectations; here they are seeds for the
//! mutators, so they carry no oracle. Beside them, Command-R7B action arrays with a malformed element
//! (`MALFORMED_ACTIONS`).

use std::path::PathBuf;
use std::sync::OnceLock;

use parser_auto::Route;
use parser_core::testing::{Case, Rng};

use super::{Generated, Scale};
use crate::check::Expected;
use crate::setup::{Setup, prepared};

/// The families written as data: their parsers are the generic engine run on a hand-written spec.
const DATA_FAMILIES: &[&str] = &[
    "cohere",
    "lfm2",
    "stepfun",
    "gigachat",
    "apriel",
    "functionary",
    "apertus",
    "fireworks",
    "gemma",
];

/// Whether a template's route runs the generic engine: the analyzer's spec, or a family written as
/// data reached by the template's signature.
fn generic_engine_route(route: &Route) -> bool {
    match route {
        Route::Analyzer => true,
        Route::TemplateSignature(name) => parser_auto::entry_by_name(name)
            .is_ok_and(|entry| DATA_FAMILIES.contains(&entry.family)),
        _ => false,
    }
}

/// A corpus case as a seed: its setup and output.
struct Seed {
    setup: Setup,
    output: String,
}

/// The seeds, grouped by template (loaded once).
fn seeds() -> &'static [Vec<Seed>] {
    static SEEDS: OnceLock<Vec<Vec<Seed>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("corpus");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("llama_cpp"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        let mut groups: Vec<(String, Vec<Seed>)> = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let cases = text
                .lines()
                .filter_map(|line| serde_json::from_str::<Case>(line).ok());
            for case in cases {
                let Some(template) = case.template.clone() else {
                    continue;
                };
                if !crate::setup::templates_dir().join(&template).is_file() {
                    continue;
                }
                if !generic_engine_route(&prepared(&template).route) {
                    continue;
                }
                let seed = Seed {
                    setup: setup_of(&case, &template),
                    output: case.output.clone(),
                };
                match groups.iter_mut().find(|(t, _)| *t == template) {
                    Some((_, group)) => group.push(seed),
                    None => groups.push((template, vec![seed])),
                }
            }
        }
        for (template, group) in &mut groups {
            if template == ACTION_TEMPLATE
                && let Some(first) = group.first()
            {
                let setup = first.setup.clone();
                group.extend(MALFORMED_ACTIONS.iter().map(|output| Seed {
                    setup: setup.clone(),
                    output: (*output).to_owned(),
                }));
            }
        }
        groups.into_iter().map(|(_, group)| group).collect()
    })
}

/// Command-R7B's template, whose calls are a JSON array in `<|START_ACTION|>…<|END_ACTION|>`.
const ACTION_TEMPLATE: &str = "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja";

/// Action arrays with a malformed element (issue 18): each element must be read on its own, the
/// section's end marker never reaching content, under every chunking.
const MALFORMED_ACTIONS: &[&str] = &[
    "<|START_THINKING|>Set it.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"set_alarm\", \"parameters\": {\"time\": 15:30}},\n    {\"tool_call_id\": \"1\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>",
    "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"parameters\": {\"x\": [1, 2}, \"s\": \"}{\\\"\"}}, {\"tool_call_id\": \"2\", \"tool_name\": \"c\", \"parameters\": {\"y\": 3}}]<|END_ACTION|>",
    "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool\": 15:30}, {\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"parameters\": {\"x\": 1}}]<|END_ACTION|>",
    "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {\"x\": 1<|END_ACTION|><|START_RESPONSE|>Done.<|END_RESPONSE|>",
];

fn setup_of(case: &Case, template: &str) -> Setup {
    let mut setup = Setup::template(template);
    setup.prompt_tail = case.prompt_tail.clone();
    setup.enable_thinking = case.thinking;
    setup.tools = case.tools.clone();
    setup.inline = case.reasoning_format() == parser_auto::ReasoningFormat::Inline;
    setup
}

/// The number of templates with seeds (0 when the corpus is missing).
pub fn template_count() -> usize {
    seeds().len()
}

/// A corpus output of a template-routed case, sometimes with a slice of another case of the same
/// template spliced in at a marker. No oracle.
pub fn generate(rng: &mut Rng, scale: Scale) -> Generated {
    let groups = seeds();
    if groups.is_empty() {
        return Generated {
            setup: Setup::named("qwen3"),
            text: String::new(),
            expected: Expected::default(),
        };
    }
    let group = &groups[rng.below(groups.len())];
    let seed = &group[rng.below(group.len())];
    let mut text = seed.output.clone();
    let tokens = seed.setup.tokens();
    for _ in 0..rng.below(3) {
        let other = &group[rng.below(group.len())].output;
        let slice = marker_slice(rng, other, tokens);
        let at = marker_position(rng, &text, tokens);
        text.insert_str(at, slice);
    }
    if scale.many_calls > 0 {
        let slice = marker_slice(rng, &seed.output, tokens).to_owned();
        let at = marker_position(rng, &text, tokens);
        text.insert_str(at, &slice.repeat(scale.many_calls.min(2000)));
    }
    if scale.huge_value > 0 {
        let at = crate::mutate::char_boundary(&text, rng.below(text.len() + 1));
        let filler = super::huge_text(rng, &["x", " ", "{", "\"", "é", "\n"], scale.huge_value);
        text.insert_str(at, &filler);
    }
    Generated {
        setup: seed.setup.clone(),
        text,
        expected: Expected::default(),
    }
}

/// A position in `text` where one of `tokens` starts (or a random one).
pub(super) fn marker_position(rng: &mut Rng, text: &str, tokens: &[&str]) -> usize {
    let starts: Vec<usize> = tokens
        .iter()
        .filter(|t| !t.is_empty())
        .flat_map(|t| text.match_indices(*t).map(|(at, _)| at))
        .collect();
    if starts.is_empty() || rng.chance(20) {
        crate::mutate::char_boundary(text, rng.below(text.len() + 1))
    } else {
        starts[rng.below(starts.len())]
    }
}

/// A slice of `text` from one marker position to another (or to the end).
pub(super) fn marker_slice<'t>(rng: &mut Rng, text: &'t str, tokens: &[&str]) -> &'t str {
    let a = marker_position(rng, text, tokens);
    let b = marker_position(rng, text, tokens);
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    if a == b { &text[a..] } else { &text[a..b] }
}

/// A template-routed corpus output (for the mutators).
pub fn call_block(rng: &mut Rng) -> String {
    let groups = seeds();
    if groups.is_empty() {
        return String::new();
    }
    let group = &groups[rng.below(groups.len())];
    group[rng.below(group.len())].output.clone()
}

/// Other request options for the same template.
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = setup.clone();
    if rng.chance(30) {
        other.enable_thinking = [None, Some(true), Some(false)][rng.below(3)];
    }
    if rng.chance(30) {
        other.prompt_tail = None;
    }
    if rng.chance(20) {
        other.tools = None;
    }
    other
}
