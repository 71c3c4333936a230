//! Workloads made from a registry entry's own sample, for every registered format that has no hand-written
//! [`Format`] (so that a new family gets its bench rows the day it is registered, in its own wire format).
//!
//! The entry's [`sample`](ParserEntry::sample) is parsed once with its
//! [`sample_prompt_tail`](ParserEntry::sample_prompt_tail); then:
//! - the **output** workload inserts the shared reasoning prose in front of the sample's reasoning (or of
//!   its content, for a format whose sample does not think), so that the output is ~95% prose and the
//!   sample's own framing, content and calls follow unchanged;
//! - the **content-phase** workload inserts the prose in front of the sample's content instead;
//! - the **long argument** workload replaces one string argument value of one of the sample's calls with
//!   the shared file text, written the first way the format reads back as that text (JSON-escaped, raw, or
//!   plain prose when the format has escapes of its own).
//!
//! Every insertion point is checked when the workloads are built: the parse of the inflated text must give
//! the prose where intended and the sample's calls unchanged (the long argument: the file text in the
//! replaced argument, everything else unchanged). An entry whose sample cannot be inflated this way gets
//! no sampled format; [`sampled_formats`] says why, and a test fails on it.

use std::sync::OnceLock;

use parser_auto::{ParseOptions, ParsedMessage, ParserEntry};
use serde_json::Value;

use super::{
    FORMATS, Format, LongArgument, REASONING_SENTENCES, XorShift, file_text, json_escape_into,
    prose,
};

/// Where the prose of a sampled workload goes and what the parse gives.
#[derive(Debug)]
pub struct Sampled {
    /// The registry entry whose sample this is.
    pub entry: &'static ParserEntry,
    /// The sample's parse (one-shot, with the sample's prompt tail).
    base: ParsedMessage,
    /// Byte offset in the sample where the output workload's prose goes.
    output_at: usize,
    /// Whether that prose is reasoning (the sample thinks) or content.
    reasoning: bool,
    /// Byte offset in the sample where the content-phase workload's prose goes (a sample that thinks and
    /// has content).
    content_at: Option<usize>,
    /// The argument value replaced by the long-argument workload.
    slot: Slot,
}

/// One string argument of one call, as written in the sample, and how the long text is written there.
#[derive(Debug)]
struct Slot {
    /// The value's byte range in the sample.
    range: std::ops::Range<usize>,
    call: usize,
    key: String,
    writing: Writing,
}

/// How the long argument's text is written inside the format's string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Writing {
    /// JSON-escaped (`\"`, `\n`, `\\`, `\t`): JSON strings and Python double-quoted literals.
    Escaped,
    /// JSON-escaped twice: arguments written as a JSON string holding JSON (Qwen3-Instruct-2507's sample).
    EscapedTwice,
    /// As is, ending without a newline (XML parameters, delimiter-quoted strings).
    Raw,
    /// Prose with no quote, backslash, newline or `<`: a format whose strings escape differently.
    Plain,
}

/// Plain prose for [`Writing::Plain`]: letters, spaces, dots, commas and non-ASCII text only.
const PLAIN_SENTENCES: &[&str] = &[
    "Plain prose makes up the rest of the file, one sentence after another.",
    "The café in 北京 opens at nine and closes late.",
    "Every line of this file is written by the tool call, then read back.",
];

/// The prose inserted by the workloads: `target` bytes of reasoning sentences, then a blank line.
pub(super) fn inserted_prose(target: usize) -> String {
    let mut rng = XorShift::new(super::OUTPUT_SEED);
    let mut out = String::with_capacity(target + 128);
    prose(&mut rng, REASONING_SENTENCES, target.max(1), &mut out);
    out.push_str("\n\n");
    out
}

pub(super) fn insert(sample: &str, at: usize, text: &str) -> String {
    let mut out = String::with_capacity(sample.len() + text.len());
    out.push_str(&sample[..at]);
    out.push_str(text);
    out.push_str(&sample[at..]);
    out
}

/// The first 32 bytes (or fewer, on a character boundary) of a text.
pub(super) fn prefix(text: &str) -> &str {
    let mut end = text.len().min(32);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn same_calls(a: &ParsedMessage, b: &ParsedMessage) -> bool {
    a.tool_calls.len() == b.tool_calls.len()
        && a.tool_calls
            .iter()
            .zip(&b.tool_calls)
            .all(|(x, y)| x.name == y.name && x.arguments == y.arguments && x.valid == y.valid)
}

impl Sampled {
    /// Analyses `entry`'s sample; an error says why it cannot be inflated.
    pub fn new(entry: &'static ParserEntry) -> Result<Self, String> {
        let options = Self::options_of(entry);
        let sample = entry.sample;
        let parse = |text: &str| entry.parser(&options).parse(text);
        let base = parse(sample);
        if base.tool_calls.is_empty() || base.tool_calls.iter().any(|c| !c.valid) {
            return Err(format!(
                "the sample should parse into valid calls; got {:?}",
                base.tool_calls
            ));
        }
        let probe = inserted_prose(2_000);
        let probe_text = probe.trim();
        // Reasoning first: the prose in front of the sample's reasoning.
        let reasoning_at = base.reasoning_trimmed().and_then(|reasoning| {
            let at = sample.find(prefix(reasoning))?;
            let message = parse(&insert(sample, at, &probe));
            (message
                .reasoning_trimmed()
                .is_some_and(|r| r.contains(probe_text))
                && message.content == base.content
                && same_calls(&message, &base))
            .then_some(at)
        });
        // Content: in front of the sample's content (after the reasoning), or, with no content, in front
        // of everything after the reasoning.
        let content_at = {
            let from =
                reasoning_at.map_or(0, |at| at + base.reasoning_trimmed().map_or(0, str::len));
            let candidates: Vec<usize> = match base.content_trimmed() {
                Some(content) => sample[from..]
                    .find(prefix(content))
                    .map(|at| from + at)
                    .into_iter()
                    .collect(),
                None if reasoning_at.is_none() => vec![0],
                // A sample that thinks and then calls: the first place after its reasoning where prose
                // parses as content (between the reasoning's end marker and the calls).
                None => (from..sample.len())
                    .filter(|&at| sample.is_char_boundary(at))
                    .collect(),
            };
            candidates.into_iter().find(|&at| {
                let message = parse(&insert(sample, at, &probe));
                message
                    .content_trimmed()
                    .is_some_and(|c| c.contains(probe_text))
                    && message.reasoning == base.reasoning
                    && same_calls(&message, &base)
            })
        };
        let (output_at, reasoning, content_at) = match (reasoning_at, content_at) {
            (Some(at), content) => (at, true, content),
            (None, Some(at)) => (at, false, None),
            (None, None) => {
                return Err(format!(
                    "no place in the sample where prose parses as reasoning or content (sample parse: \
                     {base:?})"
                ));
            }
        };
        let slot = Self::find_slot(sample, &base, &parse)?;
        Ok(Sampled {
            entry,
            base,
            output_at,
            reasoning,
            content_at,
            slot,
        })
    }

    fn options_of(entry: &ParserEntry) -> ParseOptions {
        match entry.sample_prompt_tail {
            "" => ParseOptions::new(),
            tail => ParseOptions::new().with_prompt_tail(tail),
        }
    }

    /// The first string argument whose value, replaced by a long text in one of the [`Writing`]s, reads
    /// back as that text with everything else unchanged.
    fn find_slot(
        sample: &str,
        base: &ParsedMessage,
        parse: &impl Fn(&str) -> ParsedMessage,
    ) -> Result<Slot, String> {
        for (call, tool_call) in base.tool_calls.iter().enumerate() {
            let Ok(Value::Object(arguments)) = serde_json::from_str::<Value>(&tool_call.arguments)
            else {
                continue;
            };
            for (key, value) in &arguments {
                let Value::String(value) = value else {
                    continue;
                };
                if value.is_empty() {
                    continue;
                }
                for (at, _) in sample.match_indices(value.as_str()) {
                    for writing in [
                        Writing::Escaped,
                        Writing::Raw,
                        Writing::EscapedTwice,
                        Writing::Plain,
                    ] {
                        let slot = Slot {
                            range: at..at + value.len(),
                            call,
                            key: key.clone(),
                            writing,
                        };
                        let long = slot.long_argument(sample, 2_000);
                        if slot.reads_back(base, &parse(&long.output), &long.content) {
                            return Ok(slot);
                        }
                    }
                }
            }
        }
        Err(
            "no string argument of the sample's calls reads back as a long text once replaced"
                .to_owned(),
        )
    }

    /// The prompt tail of every workload (the sample's).
    pub fn tail(&self) -> Option<&'static str> {
        Some(self.entry.sample_prompt_tail).filter(|tail| !tail.is_empty())
    }

    /// Whether the output workload's prose is reasoning.
    pub fn reasoning(&self) -> bool {
        self.reasoning
    }

    /// Whether the sample has content (after its reasoning, when it thinks).
    pub fn has_content(&self) -> bool {
        self.base.content_trimmed().is_some()
    }

    /// The sample's calls (name, arguments as the parser returns them).
    pub fn calls(&'static self) -> impl Iterator<Item = (&'static str, &'static str)> {
        self.base
            .tool_calls
            .iter()
            .map(|call| (call.name.as_str(), call.arguments.as_str()))
    }

    /// The output workload: the sample with prose inserted, about `total_bytes` long.
    pub fn output(&self, total_bytes: usize) -> String {
        let sample = self.entry.sample;
        insert(
            sample,
            self.output_at,
            &inserted_prose(total_bytes.saturating_sub(sample.len())),
        )
    }

    /// Where the output workload's prose ends.
    pub fn prose_end_in(&self, output: &str) -> usize {
        output.len() - (self.entry.sample.len() - self.output_at)
    }

    /// The content-phase workload of a sample that thinks and has content: prose in front of the content.
    pub fn content_output(&self, total_bytes: usize) -> Option<String> {
        let sample = self.entry.sample;
        self.content_at.map(|at| {
            insert(
                sample,
                at,
                &inserted_prose(total_bytes.saturating_sub(sample.len())),
            )
        })
    }

    /// The long-argument workload: the sample with one argument about `arg_bytes` long.
    pub fn long_argument(&self, arg_bytes: usize) -> LongArgument {
        self.slot.long_argument(self.entry.sample, arg_bytes)
    }

    /// Why `message` (the parse of [`long_argument`](Self::long_argument)) is not what it should be.
    pub fn check_long_argument(
        &self,
        message: &ParsedMessage,
        content: &str,
    ) -> Result<(), String> {
        if self.slot.reads_back(&self.base, message, content) {
            Ok(())
        } else {
            Err(format!(
                "argument `{}` of call {} should be the {}-byte file text, the rest as in the sample; \
                 got {} call(s) {:?}",
                self.slot.key,
                self.slot.call,
                content.len(),
                message.tool_calls.len(),
                message
                    .tool_calls
                    .iter()
                    .map(|c| (&c.name, c.valid, c.arguments.len()))
                    .collect::<Vec<_>>()
            ))
        }
    }
}

impl Slot {
    fn long_argument(&self, sample: &str, arg_bytes: usize) -> LongArgument {
        let (written, content) = match self.writing {
            Writing::Escaped => {
                let content = file_text(arg_bytes, true);
                let mut written = String::new();
                json_escape_into(&content, &mut written);
                (written, content)
            }
            Writing::EscapedTwice => {
                let content = file_text(arg_bytes, true);
                let (mut once, mut twice) = (String::new(), String::new());
                json_escape_into(&content, &mut once);
                json_escape_into(&once, &mut twice);
                (twice, content)
            }
            Writing::Raw => {
                // Without the last newline: XML parameter values lose the newlines that frame them.
                let mut content = file_text(arg_bytes, false);
                content.pop();
                (content.clone(), content)
            }
            Writing::Plain => {
                let mut rng = XorShift::new(super::FILE_SEED);
                let mut content = String::new();
                prose(&mut rng, PLAIN_SENTENCES, arg_bytes, &mut content);
                (content.clone(), content)
            }
        };
        let mut output = String::with_capacity(sample.len() + written.len());
        output.push_str(&sample[..self.range.start]);
        output.push_str(&written);
        output.push_str(&sample[self.range.end..]);
        LongArgument {
            output,
            content,
            arguments: None,
        }
    }

    /// The replaced argument holds `content`, every other argument and call is the sample's, and so are the
    /// reasoning and content.
    fn reads_back(&self, base: &ParsedMessage, message: &ParsedMessage, content: &str) -> bool {
        let arguments = |text: &str| match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        };
        message.reasoning == base.reasoning
            && message.content == base.content
            && message.tool_calls.len() == base.tool_calls.len()
            && message
                .tool_calls
                .iter()
                .zip(&base.tool_calls)
                .enumerate()
                .all(|(i, (got, want))| {
                    if i != self.call {
                        return got.name == want.name
                            && got.arguments == want.arguments
                            && got.valid == want.valid;
                    }
                    let (Some(mut got_args), Some(mut want_args)) =
                        (arguments(&got.arguments), arguments(&want.arguments))
                    else {
                        return false;
                    };
                    got.valid
                        && got.name == want.name
                        && got_args.remove(&self.key).as_ref().and_then(Value::as_str)
                            == Some(content)
                        && want_args.remove(&self.key).is_some()
                        && got_args == want_args
                })
    }
}

/// The registry entries the hand-written [`FORMATS`] measure (by the model of their output workload).
fn written_entries() -> Vec<&'static str> {
    FORMATS
        .iter()
        .filter(|format| format.template.is_none() && format.sampled.is_none())
        .filter_map(|format| parser_auto::entry_for_model(format.model).ok())
        .map(|entry| entry.name)
        .collect()
}

/// One sampled format per registered entry that no hand-written format measures, or the entry's name
/// and why its sample cannot be inflated. Built once.
pub fn sampled_formats() -> &'static [Result<&'static Format, (&'static str, String)>] {
    static SAMPLED: OnceLock<Vec<Result<&'static Format, (&'static str, String)>>> =
        OnceLock::new();
    SAMPLED.get_or_init(|| {
        let written = written_entries();
        parser_auto::entries()
            .into_iter()
            .filter(|entry| !written.contains(&entry.name))
            .map(|entry| {
                let sampled = Sampled::new(entry).map_err(|why| (entry.name, why))?;
                let sampled: &'static Sampled = Box::leak(Box::new(sampled));
                // The entry's name, unless a hand-written format has it as its key (`kimi-k2`,
                // `mistral`): keys name divan benchmarks and `profile` workloads, so they stay unique.
                let key = if FORMATS.iter().any(|format| format.key == entry.name) {
                    Box::leak(format!("{}-sample", entry.name).into_boxed_str())
                } else {
                    entry.name
                };
                let format = Format {
                    key,
                    name: Box::leak(format!("{} (sample)", entry.name).into_boxed_str()),
                    model: entry.name,
                    output_tail: sampled.tail(),
                    long_argument_model: entry.name,
                    long_argument_tail: sampled.tail(),
                    reasoning: sampled.reasoning(),
                    json_arguments: true,
                    prose_end: "",
                    template: None,
                    sampled: Some(sampled),
                    output: super::deepseek_v31_output,
                    long_argument: super::deepseek_v31_long_argument,
                };
                Ok(&*Box::leak(Box::new(format)))
            })
            .collect()
    })
}

/// Every format: the hand-written [`FORMATS`], then one sampled format per other registered entry
/// (entries whose sample cannot be inflated are left out: see [`sampled_formats`]).
pub fn all_formats() -> &'static [&'static Format] {
    static ALL: OnceLock<Vec<&'static Format>> = OnceLock::new();
    ALL.get_or_init(|| {
        FORMATS
            .iter()
            .copied()
            .chain(
                sampled_formats()
                    .iter()
                    .filter_map(|f| f.as_ref().ok().copied()),
            )
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered entry is measured: by a hand-written format or by its own sample, inflated. A new
    /// family whose sample cannot be inflated (no reasoning or content to grow, no string argument) fails
    /// here until it gets a hand-written `Format`.
    #[test]
    fn every_registered_entry_has_a_bench_format() {
        let failures: Vec<String> = sampled_formats()
            .iter()
            .filter_map(|f| f.as_ref().err())
            .map(|(name, why)| format!("{name}: {why}"))
            .collect();
        assert!(failures.is_empty(), "{failures:#?}");
        let measured: Vec<&str> = written_entries()
            .into_iter()
            .chain(
                all_formats()
                    .iter()
                    .filter_map(|f| f.sampled)
                    .map(|s| s.entry.name),
            )
            .collect();
        for entry in parser_auto::entries() {
            assert!(
                measured.contains(&entry.name),
                "{} has no bench format",
                entry.name
            );
        }
    }

    /// Keys stay unique over every format (they name divan benchmarks and `profile` workloads).
    #[test]
    fn keys_are_unique() {
        let mut keys: Vec<&str> = all_formats().iter().map(|f| f.key).collect();
        keys.sort_unstable();
        let count = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), count);
    }

    /// The sampled workloads parse as intended at a small size: prose where expected, the sample's calls,
    /// the long argument read back.
    #[test]
    fn sampled_workloads_parse_as_intended() {
        for format in all_formats() {
            let Some(sampled) = format.sampled else {
                continue;
            };
            let parsers = format.output_parsers().unwrap();
            let output = format.output(3_000);
            assert!(output.len() >= 3_000, "{format}");
            let message = parsers.make().parse(&output);
            let prose = if sampled.reasoning {
                message.reasoning_trimmed()
            } else {
                message.content_trimmed()
            };
            assert!(
                prose.is_some_and(|p| p.len() >= 2_500),
                "{format}: {message:?}"
            );
            assert!(same_calls(&message, &sampled.base), "{format}");
            assert!(format.prose_end_in(&output) >= 2_500, "{format}");
            if let Some(content) = format.content_output(3_000) {
                let message = parsers.make().parse(&content);
                assert!(
                    message.content_trimmed().is_some_and(|c| c.len() >= 2_500),
                    "{format}: {message:?}"
                );
            }
            let long = format.long_argument(3_000);
            let message = format
                .long_argument_parsers()
                .unwrap()
                .make()
                .parse(&long.output);
            sampled
                .check_long_argument(&message, &long.content)
                .unwrap_or_else(|e| panic!("{format}: {e}"));
        }
    }
}
