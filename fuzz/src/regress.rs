//! Regression files: `fuzz/regressions/<family>/<hash>.txt`.
//!
//! The first line is `#fuzz ` and a JSON [`Header`] (family, parser setup, the check that failed, the
//! chunking, the mutations, the oracle when the input was undamaged, a short description); everything
//! after the first newline is the raw input, byte for byte (no newline is added at its end; the folder's
//! `.gitattributes` keeps git from touching line ends).

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::{CheckKind, Expected, Failure, check};
use crate::setup::{Cut, Setup};

/// The header line of a regression file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The family fuzzed.
    pub family: String,
    /// The parser and request options.
    pub setup: Setup,
    /// The check that failed.
    pub check: CheckKind,
    /// The chunking it failed under.
    pub cut: Cut,
    /// The mutations applied to the generated output.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mutations: Vec<String>,
    /// What the (undamaged) output means, for oracle failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Expected>,
    /// What was seen, shortened.
    #[serde(default)]
    pub detail: String,
    /// A known bug, reported and not fixed yet (an id of [`crate::check::KNOWN_ISSUES`] and what is
    /// wrong): the input is expected to keep failing its check until the bug is fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
}

const PREFIX: &str = "#fuzz ";

/// The workspace's `fuzz/regressions` folder.
pub fn default_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("regressions")
}

/// A stable name for an input under a setup: FNV-1a of both, 16 hex digits.
pub fn hash(setup: &Setup, input: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let setup = serde_json::to_string(setup).unwrap_or_default();
    for byte in setup.bytes().chain([0]).chain(input.bytes()) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The text of a regression file.
pub fn to_text(header: &Header, input: &str) -> String {
    let json = serde_json::to_string(header).unwrap_or_default();
    format!("{PREFIX}{json}\n{input}")
}

/// Parses the text of a regression file.
pub fn from_text(text: &str) -> Result<(Header, String), String> {
    let (first, input) = text
        .split_once('\n')
        .ok_or("no newline after the header line")?;
    let json = first
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("the first line does not start with {PREFIX:?}"))?;
    let header = serde_json::from_str(json).map_err(|e| format!("bad header: {e}"))?;
    Ok((header, input.to_owned()))
}

/// Writes a regression file under `dir/<family>/`; returns its path. An existing file of the same name
/// (the same input and setup) is left as it is.
pub fn write(dir: &Path, header: &Header, input: &str) -> io::Result<PathBuf> {
    let folder = dir.join(&header.family);
    std::fs::create_dir_all(&folder)?;
    let path = folder.join(format!("{}.txt", hash(&header.setup, input)));
    if !path.exists() {
        std::fs::write(&path, to_text(header, input))?;
    }
    Ok(path)
}

/// Reads a regression file.
pub fn read(path: &Path) -> Result<(Header, String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    from_text(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every regression file under `dir` (`*/*.txt`), sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .flat_map(|family| std::fs::read_dir(family).into_iter().flatten())
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    files
}

/// The chunkings a regression input is re-run under: one-shot, 1, 2, 3 and 7 characters, random splits,
/// special tokens whole, and the chunking it failed under.
pub fn replay_cuts(failed: Cut) -> Vec<Cut> {
    let mut cuts = vec![
        Cut::Chars(1),
        Cut::Chars(2),
        Cut::Chars(3),
        Cut::Chars(7),
        Cut::Random(1),
        Cut::Random(7919),
        Cut::Random(104_729),
        Cut::RandomTokens(5),
        Cut::Tokens,
        Cut::Coarse(3),
    ];
    if !cuts.contains(&failed) && failed != Cut::Whole {
        cuts.push(failed);
    }
    cuts
}

/// Runs a regression input through every check (the oracle too, when the header has one).
pub fn replay(header: &Header, input: &str) -> Result<(), Failure> {
    check(
        &header.setup,
        input,
        &replay_cuts(header.cut),
        header.expected.as_ref(),
    )
    .map(|_| ())
}
