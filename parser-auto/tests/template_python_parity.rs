//! Byte-for-byte parity with Hugging Face: every case in `tests/fixtures/render/*.json` was rendered by
//! `transformers`' own `render_jinja_template` (see `tests/fixtures/render/generate.py`, run by hand), and
//! must render identically with `ChatTemplate::render_json` — or fail where Hugging Face fails. Cases
//! name a reference template (`templates/<file>`) or, in `jinja-semantics.json`, carry a small inline
//! `source` that pins one Jinja behaviour.
//!
//! The contexts are re-serialized with their keys in document order (an ordered JSON type below), since
//! `tojson` prints dicts in insertion order and `serde_json::Value` would sort them.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use parser_auto::template::ChatTemplate;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// The number of cases `generate.py` wrote (MANIFEST.json's `cases`); fewer means fixtures were lost.
const MIN_CASES: usize = 351;
/// Bytes of context shown on each side of the first difference.
const CONTEXT_BYTES: usize = 80;
/// What the generator put where Python's `strftime_now(format)` output was: `⟦strftime_now(FORMAT)⟧`.
const NOW_OPEN: &str = "⟦strftime_now(";
const NOW_CLOSE: &str = ")⟧";

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render")
}

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates")
}

/// JSON that keeps object keys in document order.
#[derive(Clone, Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Json::as_str)
    }

    fn to_text(&self) -> String {
        serde_json::to_string(self).expect("ordered JSON serializes")
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// What Hugging Face did with a case.
enum Outcome {
    Rendered(String),
    /// It raised: a substring of the message and the Python exception class.
    Raised {
        message: String,
        error_type: String,
    },
}

struct Case {
    name: String,
    /// The reference template's file name, or `None` for an inline `source`.
    template: Option<String>,
    source: Option<String>,
    context: String,
    outcome: Outcome,
    known_difference: Option<String>,
}

struct Fixture {
    /// `None` for a file of inline-source cases.
    template: Option<String>,
    bos_token: String,
    eos_token: String,
    cases: Vec<Case>,
}

fn load_fixture(path: &Path) -> Fixture {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root: Json =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let field = |json: &Json, key: &str| -> String {
        json.str_field(key)
            .unwrap_or_else(|| panic!("{}: missing string `{key}`", path.display()))
            .to_string()
    };
    let Some(Json::Array(cases)) = root.get("cases") else {
        panic!("{}: no `cases` array", path.display());
    };
    let cases = cases
        .iter()
        .map(|case| {
            let outcome = match (case.str_field("expected"), case.str_field("expected_error")) {
                (Some(text), None) => Outcome::Rendered(text.to_string()),
                (None, Some(message)) => Outcome::Raised {
                    message: message.to_string(),
                    error_type: case.str_field("error_type").unwrap_or("").to_string(),
                },
                _ => panic!(
                    "{}: case {:?} needs exactly one of `expected` / `expected_error`",
                    path.display(),
                    case.str_field("name")
                ),
            };
            let context = case
                .get("context")
                .unwrap_or_else(|| panic!("{}: case without `context`", path.display()));
            let template = case.str_field("template").map(str::to_string);
            let source = case.str_field("source").map(str::to_string);
            assert!(
                template.is_some() != source.is_some(),
                "{}: case {:?} needs exactly one of `template` / `source`",
                path.display(),
                case.str_field("name")
            );
            Case {
                name: field(case, "name"),
                template,
                source,
                context: context.to_text(),
                outcome,
                known_difference: case.str_field("known_difference").map(str::to_string),
            }
        })
        .collect();
    Fixture {
        template: root.str_field("template").map(str::to_string),
        bos_token: field(&root, "bos_token"),
        eos_token: field(&root, "eos_token"),
        cases,
    }
}

fn fixture_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures/render exists")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let is_case_file = path.extension().is_some_and(|e| e == "json")
                && path.file_name().is_some_and(|n| n != "MANIFEST.json");
            is_case_file.then_some(path)
        })
        .collect();
    paths.sort();
    paths
}

/// `expected` with every `⟦strftime_now(FORMAT)⟧` replaced by what this crate's `strftime_now(FORMAT)`
/// gives now, so that only the rest of the text is compared (the date itself is checked by the
/// `strftime` unit tests against Python's output).
fn with_current_time(expected: &str, clock: &mut HashMap<String, String>) -> String {
    let mut out = String::with_capacity(expected.len());
    let mut rest = expected;
    while let Some(start) = rest.find(NOW_OPEN) {
        let after = &rest[start + NOW_OPEN.len()..];
        let Some(end) = after.find(NOW_CLOSE) else {
            break;
        };
        let format = &after[..end];
        let now = clock.entry(format.to_string()).or_insert_with(|| {
            let context = serde_json::json!({ "format": format }).to_string();
            ChatTemplate::from_source("{{ strftime_now(format) }}")
                .and_then(|t| t.render_json(&context))
                .unwrap_or_else(|e| panic!("strftime_now({format:?}): {e}"))
        });
        out.push_str(&rest[..start]);
        out.push_str(now);
        rest = &after[end + NOW_CLOSE.len()..];
    }
    out.push_str(rest);
    out
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where `expected` and `actual` first differ, with context on both sides of that byte.
fn describe_difference(expected: &str, actual: &str) -> String {
    let offset = expected
        .bytes()
        .zip(actual.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let window = |s: &str| {
        let start = floor_boundary(s, offset.saturating_sub(CONTEXT_BYTES));
        let mid = floor_boundary(s, offset);
        let end = floor_boundary(s, offset + CONTEXT_BYTES);
        format!("{:?} ⟪HERE⟫ {:?}", &s[start..mid], &s[mid..end])
    };
    format!(
        "first difference at byte {offset} (expected {} bytes, got {} bytes)\n      python: {}\n      rust:   {}",
        expected.len(),
        actual.len(),
        window(expected),
        window(actual)
    )
}

#[test]
fn renders_byte_for_byte_as_hugging_face() {
    let paths = fixture_paths();
    assert!(
        !paths.is_empty(),
        "no fixtures in {}",
        fixtures_dir().display()
    );
    let mut total = 0;
    let mut compared = 0;
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    let mut per_template: BTreeMap<String, usize> = BTreeMap::new();
    let mut clock = HashMap::new();
    for path in &paths {
        let fixture = load_fixture(path);
        let file_template = fixture.template.as_ref().map(|file| {
            ChatTemplate::from_file(&templates_dir().join(file))
                .unwrap_or_else(|e| panic!("{file}: {e}"))
                .with_tokens(&fixture.bos_token, &fixture.eos_token)
        });
        let label = fixture
            .template
            .clone()
            .unwrap_or_else(|| path.display().to_string());
        *per_template.entry(label).or_default() += fixture.cases.len();
        for case in &fixture.cases {
            total += 1;
            assert_eq!(
                case.template, fixture.template,
                "{}: case of another template",
                case.name
            );
            let rendered = match (&file_template, &case.source) {
                (Some(template), _) => template.render_json(&case.context),
                (None, Some(source)) => ChatTemplate::from_source(source.as_str())
                    .map(|t| t.with_tokens(&fixture.bos_token, &fixture.eos_token))
                    .and_then(|t| t.render_json(&case.context)),
                (None, None) => panic!("{}: no template and no source", case.name),
            };
            if let Some(reason) = &case.known_difference {
                let now_matches = match (&case.outcome, &rendered) {
                    (Outcome::Rendered(expected), Ok(actual)) => {
                        with_current_time(expected, &mut clock) == *actual
                    }
                    (Outcome::Raised { .. }, Err(_)) => true,
                    _ => false,
                };
                skipped.push(if now_matches {
                    format!(
                        "{}: NOW MATCHES Hugging Face; drop it from KNOWN_DIFFERENCES in generate.py \
                         and regenerate. Was: {reason}",
                        case.name
                    )
                } else {
                    format!("{}: {reason}", case.name)
                });
                continue;
            }
            compared += 1;
            match (&case.outcome, rendered) {
                (Outcome::Rendered(expected), Ok(actual)) => {
                    let mut expected_now = with_current_time(expected, &mut clock);
                    if expected_now != actual && expected.contains(NOW_OPEN) {
                        // The date may have changed between the two clock readings: read it again.
                        clock.clear();
                        expected_now = with_current_time(expected, &mut clock);
                    }
                    if expected_now != actual {
                        failures.push(format!(
                            "{}: {}",
                            case.name,
                            describe_difference(&expected_now, &actual)
                        ));
                    }
                }
                (Outcome::Rendered(_), Err(e)) => {
                    failures.push(format!(
                        "{}: Hugging Face renders it, Rust fails: {e}",
                        case.name
                    ));
                }
                (
                    Outcome::Raised {
                        message,
                        error_type,
                    },
                    Ok(actual),
                ) => {
                    failures.push(format!(
                        "{}: Hugging Face raises {error_type}({message:?}), Rust renders {} bytes: {:?}…",
                        case.name,
                        actual.len(),
                        &actual[..floor_boundary(&actual, 2 * CONTEXT_BYTES)]
                    ));
                }
                (
                    Outcome::Raised {
                        message,
                        error_type,
                    },
                    Err(e),
                ) => {
                    // raise_exception(msg) must carry msg; Python's own exceptions (TypeError, …) only need
                    // to be errors, their wording is Python's.
                    if error_type == "TemplateError" && !e.to_string().contains(message.as_str()) {
                        failures.push(format!(
                            "{}: Hugging Face raises {message:?}, Rust fails differently: {e}",
                            case.name
                        ));
                    }
                }
            }
        }
    }
    for reason in &skipped {
        println!("known difference, skipped: {reason}");
    }
    println!(
        "{compared} cases compared, {} skipped, {} templates, {} mismatches",
        skipped.len(),
        per_template.len(),
        failures.len()
    );
    assert!(
        total >= MIN_CASES,
        "only {total} fixture cases, expected at least {MIN_CASES}: were fixtures deleted?"
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ from Hugging Face:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn manifest_matches_the_fixture_files() {
    let text =
        std::fs::read_to_string(fixtures_dir().join("MANIFEST.json")).expect("MANIFEST.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("MANIFEST.json is JSON");
    let listed = manifest["per_template"]
        .as_object()
        .expect("MANIFEST.json has per_template");
    let mut found = 0;
    for (stem, count) in listed {
        let path = fixtures_dir().join(format!("{stem}.json"));
        let fixture = load_fixture(&path);
        assert_eq!(
            Some(fixture.cases.len() as u64),
            count.as_u64(),
            "{stem}: case count differs from MANIFEST.json"
        );
        if let Some(file) = &fixture.template {
            assert!(
                templates_dir().join(file).is_file(),
                "{stem}: no template {file}"
            );
        }
        found += fixture.cases.len();
    }
    assert_eq!(
        fixture_paths().len(),
        listed.len(),
        "fixture files not in MANIFEST.json"
    );
    assert!(
        found >= MIN_CASES,
        "MANIFEST.json lists {found} cases, expected at least {MIN_CASES}"
    );
}

#[test]
fn differences_are_located_and_shown() {
    let report = describe_difference("abc😀def", "abc😀dXf");
    assert!(report.contains("first difference at byte 8"), "{report}");
    assert!(report.contains("\"abc😀d\" ⟪HERE⟫ \"ef\""), "{report}");
    let mut clock = HashMap::new();
    let replaced = with_current_time("Date: ⟦strftime_now(%Y)⟧.", &mut clock);
    assert_eq!(replaced.len(), "Date: 2026.".len(), "{replaced}");
    assert!(replaced.starts_with("Date: 2") && replaced.ends_with('.'));
}
