//! `PEER_NAMES.md` (the docs of `parser_auto::peer_names`) against the registry: every peer name it lists
//! resolves to the parser it says or, marked `—`, does not resolve and says why; every alias a family
//! registers is listed, as a peer's name or as one of our own spellings. Adding an alias without a row, or
//! a row the registry does not honour, fails here.

use std::collections::{BTreeSet, HashMap};

use parser_auto::{ErrorKind, ParseOptions, normalize_name};

const TABLE: &str = include_str!("../PEER_NAMES.md");

const PEERS: &[&str] = &["vllm", "sglang", "smg", "llama.cpp", "ollama"];
const KINDS: &[&str] = &[
    "tool",
    "reasoning",
    "format",
    "handler",
    "parser",
    "renderer",
];

/// One row of the peer table.
#[derive(Debug)]
struct PeerRow {
    line: usize,
    peer: String,
    kind: String,
    name: String,
    /// `None` for `—`.
    parser: Option<String>,
    reason: String,
}

/// One row of the table of our own spellings.
#[derive(Debug)]
struct OwnRow {
    line: usize,
    alias: String,
    parser: String,
    why: String,
}

/// The cells of a Markdown table row, `\|` unescaped; `None` for a line that is no row.
fn cells(line: &str) -> Option<Vec<String>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                cells.last_mut().unwrap().push('|');
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    Some(cells.into_iter().map(|c| c.trim().to_owned()).collect())
}

/// A cell holding one name in backticks.
fn code(cell: &str, line: usize) -> String {
    let name = cell
        .strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .unwrap_or_else(|| panic!("line {line}: expected a `name`, found {cell:?}"));
    assert!(
        !name.is_empty() && !name.contains('`'),
        "line {line}: {cell:?}"
    );
    name.to_owned()
}

/// The two tables, read by their sections.
fn tables() -> (Vec<PeerRow>, Vec<OwnRow>) {
    let mut section = "";
    let (mut peers, mut own) = (Vec::new(), Vec::new());
    for (index, line) in TABLE.lines().enumerate() {
        let line_no = index + 1;
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim();
            continue;
        }
        let Some(row) = cells(line) else { continue };
        // Header and separator rows.
        if row[0] == "peer" || row[0] == "alias" || row[0].starts_with("---") {
            continue;
        }
        match section {
            "The table" => {
                assert_eq!(row.len(), 5, "line {line_no}: {row:?}");
                assert!(
                    PEERS.contains(&row[0].as_str()),
                    "line {line_no}: peer {:?}",
                    row[0]
                );
                assert!(
                    KINDS.contains(&row[1].as_str()),
                    "line {line_no}: kind {:?}",
                    row[1]
                );
                peers.push(PeerRow {
                    line: line_no,
                    peer: row[0].clone(),
                    kind: row[1].clone(),
                    name: code(&row[2], line_no),
                    parser: (row[3] != "—").then(|| code(&row[3], line_no)),
                    reason: row[4].clone(),
                });
            }
            "Our own spellings" => {
                assert_eq!(row.len(), 3, "line {line_no}: {row:?}");
                own.push(OwnRow {
                    line: line_no,
                    alias: code(&row[0], line_no),
                    parser: code(&row[1], line_no),
                    why: row[2].clone(),
                });
            }
            _ => {}
        }
    }
    (peers, own)
}

#[test]
fn the_tables_are_read() {
    let (peers, own) = tables();
    // Every peer list we read is in the table (the counts are in its Sources section).
    for (peer, kind, count) in [
        ("vllm", "tool", 58),
        ("vllm", "reasoning", 42),
        ("sglang", "tool", 44),
        ("sglang", "reasoning", 36),
        ("smg", "tool", 21),
        ("smg", "reasoning", 16),
        ("llama.cpp", "format", 31),
        ("llama.cpp", "handler", 14),
        ("ollama", "parser", 27),
        ("ollama", "renderer", 6),
    ] {
        let rows = peers
            .iter()
            .filter(|row| row.peer == peer && row.kind == kind)
            .count();
        assert_eq!(rows, count, "{peer} {kind}");
    }
    assert!(!own.is_empty());
}

#[test]
fn no_row_is_listed_twice() {
    let (peers, own) = tables();
    let mut seen = HashMap::new();
    for row in &peers {
        let key = (row.peer.clone(), row.kind.clone(), row.name.clone());
        if let Some(first) = seen.insert(key, row.line) {
            panic!("line {}: {row:?} repeats line {first}", row.line);
        }
    }
    // Spelled exactly: families register several spellings of one name (`command-r`, `command_r`).
    let mut seen = HashMap::new();
    for row in &own {
        if let Some(first) = seen.insert(row.alias.clone(), row.line) {
            panic!("line {}: {} repeats line {first}", row.line, row.alias);
        }
    }
}

#[test]
fn peer_names_resolve_to_the_parser_the_table_names() {
    for row in tables().0 {
        let Some(parser) = &row.parser else { continue };
        let entry = parser_auto::entry_by_name(&row.name).unwrap_or_else(|error| {
            panic!(
                "line {}: {} {} `{}`: {error}",
                row.line, row.peer, row.kind, row.name
            )
        });
        assert_eq!(entry.name, parser, "line {}: `{}`", row.line, row.name);
        let built = parser_auto::by_name(&row.name, &ParseOptions::new()).unwrap();
        assert_eq!(built.name(), parser, "line {}", row.line);
    }
}

#[test]
fn names_marked_unresolved_do_not_resolve_and_say_why() {
    for row in tables().0 {
        if row.parser.is_some() {
            continue;
        }
        assert!(
            row.reason.len() > 10,
            "line {}: `{}` needs a reason",
            row.line,
            row.name
        );
        match parser_auto::entry_by_name(&row.name) {
            Err(error) => assert!(matches!(error.kind(), ErrorKind::UnknownParser(_))),
            Ok(entry) => panic!(
                "line {}: `{}` is marked — but resolves to {}: give the row its parser",
                row.line, row.name, entry.name
            ),
        }
    }
}

#[test]
fn own_spellings_resolve_and_are_registered_aliases() {
    let aliases: BTreeSet<(String, &str)> = parser_auto::entries()
        .iter()
        .flat_map(|entry| {
            entry
                .aliases
                .iter()
                .map(|alias| (normalize_name(alias), entry.name))
        })
        .collect();
    for row in tables().1 {
        assert!(row.why.len() > 3, "line {}: say why", row.line);
        assert!(
            aliases.contains(&(normalize_name(&row.alias), row.parser.as_str())),
            "line {}: `{}` is not an alias of {}",
            row.line,
            row.alias,
            row.parser
        );
    }
}

// So that the table cannot rot: an alias added to a family needs a row, as a peer's name (then the peer
// rows check where it resolves) or as one of our own spellings.
#[test]
fn every_registered_alias_is_in_a_table() {
    let (peers, own) = tables();
    let listed: BTreeSet<String> = peers
        .iter()
        .filter(|row| row.parser.is_some())
        .map(|row| normalize_name(&row.name))
        .chain(own.iter().map(|row| normalize_name(&row.alias)))
        .collect();
    let missing: Vec<String> = parser_auto::entries()
        .iter()
        .flat_map(|entry| {
            entry
                .aliases
                .iter()
                .filter(|alias| !listed.contains(&normalize_name(alias)))
                .map(|alias| format!("| `{alias}` | `{}` | |", entry.name))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "aliases in no table of PEER_NAMES.md:\n{}",
        missing.join("\n")
    );
}
