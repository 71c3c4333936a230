//! Constrained decoding for the generic parser: the [`FormatDescription`] of an [`Analysis`], from the
//! same markers the parser interns (trimmed, as the parser's marker tables match them), so that a marker the
//! analysis finds changes the parser and the grammar at once.
//!
//! Described so far: the JSON formats whose calls the core description spells.
//! - `JSON_NATIVE`: a flat object `{"NAME_FIELD": "f", "ARGS_FIELD": {…}}` (the analysis' field names;
//!   id fields are left out, which the parser accepts), one per per-call block (`<tool_call>…</tool_call>`,
//!   optionally inside the section markers, which the parser may also go without), or one per section
//!   when the template has no per-call markers.
//! - `TAG_WITH_JSON`: `[per_call_start] func_name_prefix NAME func_name_suffix [args_start] {…}
//!   [args_end] func_close [per_call_end]`, optionally inside the section markers, without a call id.
//!
//! Not described yet, each with its [`NotDescribed`] reason: `TAG_WITH_TAGGED` and `PYTHONIC` arguments,
//! JSON calls in an array, nested under a `function` key, with the name as the key or as Python dicts,
//! JSON calls without any marker (a bare object at the start of the answer), and call ids in markup.
//! For those the grammar is refused rather than approximated.
//!
//! Reasoning follows the parser's stage rules ([`super::GenericParserFactory::reasoning_start`]): the
//! markers of a `TAG_BASED` / `TOOLS_ONLY` analysis, a call block inside open reasoning held (so it does
//! not end reasoning), and the template's end-of-turn markers kept out of free text.

use std::borrow::Cow;
use std::fmt;

use parser_core::constraint::{CallFormat, CallName, FormatDescription, ReasoningMarkers};

use crate::spec::{Analysis, CallIdPosition, ReasoningMode, ToolFormat};

/// Why the generic parser's format of an analysis cannot be described for constrained decoding (yet).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotDescribed {
    /// The analysis found no tool calls: there is no call format to constrain.
    NoToolCalls,
    /// `TAG_WITH_TAGGED`: the core description has no encoding of arguments in markup yet.
    TaggedArguments,
    /// `PYTHONIC`: the core description has no encoding of Python calls yet.
    Pythonic,
    /// JSON calls written in a JSON array (`[{…}, {…}]`).
    ArrayWrapped,
    /// JSON calls nested under a key (`{"function": {"name": …}}`).
    NestedFunction,
    /// JSON calls with the function name as the key (`{"get_weather": {…}}`).
    NameAsKey,
    /// Calls written as Python dicts (single quotes).
    PythonDicts,
    /// JSON calls without a section or per-call marker (a bare object at the start of the answer): no
    /// marker to open the grammar's calls or to trigger a lazy grammar on.
    NoCallMarker,
    /// A call id in markup (Mistral's `[CALL_ID]`).
    CallIdInMarkup,
    /// A call counter the analysis reads as part of the name suffix (Kimi's `functions.NAME:0`, whose
    /// `:0` is the first call's only).
    CounterInSuffix,
    /// The call opens with the function name's prefix itself (`<function=NAME>`, no per-call marker):
    /// the core grammar allows whitespace after a call's opener, the parser reads the name right after
    /// the prefix.
    NameAfterOpener,
    /// A call block whose opener the analysis found but not its closer, where the format needs one.
    NoCloser,
}

impl fmt::Display for NotDescribed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotDescribed::NoToolCalls => "the analysis found no tool calls",
            NotDescribed::TaggedArguments => {
                "TAG_WITH_TAGGED arguments (no core encoding of arguments in markup yet)"
            }
            NotDescribed::Pythonic => "PYTHONIC calls (no core encoding of Python calls yet)",
            NotDescribed::ArrayWrapped => "JSON calls in an array (no core array envelope yet)",
            NotDescribed::NestedFunction => "JSON calls nested under a `function` key",
            NotDescribed::NameAsKey => "JSON calls with the function name as the key",
            NotDescribed::PythonDicts => "calls written as Python dicts",
            NotDescribed::NoCallMarker => {
                "JSON calls without a section or per-call marker (a bare object)"
            }
            NotDescribed::CallIdInMarkup => "a call id in markup",
            NotDescribed::CounterInSuffix => "a call counter read as part of the name suffix",
            NotDescribed::NameAfterOpener => {
                "the function name's prefix opens the call (no whitespace after it in the parser)"
            }
            NotDescribed::NoCloser => "a call section opener without its closer",
        })
    }
}

/// A marker as the parser matches it: trimmed.
fn m(text: &str) -> &str {
    text.trim()
}

/// The whitespace a template writes after a marker (`"<tool_call>\n"` → `"\n"`), for the structural
/// tag's exact boundaries.
fn trailing_ws(text: &str) -> &str {
    &text[text.trim_end().len()..]
}

/// A TAG_WITH_JSON argument delimiter, unless it is the JSON bracket itself (which belongs to the
/// arguments), as the parser reads it.
fn json_delimiter(text: &str) -> &str {
    let text = text.trim();
    if text.starts_with('{') || text.starts_with('}') || text == "[" || text == "]" {
        ""
    } else {
        text
    }
}

/// The generic parser's format of `analysis` for constrained decoding, or why it cannot be described
/// yet (see the module docs).
///
/// ```
/// use parser_generic::spec::{Analysis, Markers, ReasoningMode, ToolFormat};
/// use parser_generic::constraint::{NotDescribed, format_description};
/// use parser_core::constraint::CallName;
///
/// let analysis = Analysis {
///     reasoning: ReasoningMode::TagBased,
///     tools: ToolFormat::JsonNative,
///     markers: Markers {
///         reasoning_start: "<think>".into(),
///         reasoning_end: "</think>".into(),
///         per_call_start: "<tool_call>\n".into(),
///         per_call_end: "\n</tool_call>".into(),
///         ..Markers::default()
///     },
///     end_of_turn: vec!["<|im_end|>".into()],
///     ..Analysis::default()
/// };
/// let format = format_description(&analysis).unwrap();
/// assert_eq!(format.calls.call_begin, "<tool_call>");
/// assert_eq!(format.calls.padding, "\n");
/// assert!(matches!(format.calls.name, CallName::JsonFields { .. }));
/// assert_eq!(format.reasoning.unwrap().close, "</think>");
/// assert_eq!(format.reserved, ["<|im_end|>"]);
///
/// let tagged = Analysis { tools: ToolFormat::TagWithTagged, ..analysis };
/// assert_eq!(format_description(&tagged), Err(NotDescribed::TaggedArguments));
/// ```
pub fn format_description(analysis: &Analysis) -> Result<FormatDescription, NotDescribed> {
    let k = &analysis.markers;
    let section_start = m(&k.tool_section_start);
    let section_end = m(&k.tool_section_end);
    let per_call_start = m(&k.per_call_start);
    let per_call_end = m(&k.per_call_end);
    // Between calls; the parser reads it as framing (arrays, whose `,` it drops, are not described).
    let separator: Cow<'static, str> = Cow::Owned(k.call_separator.clone());
    let section = |start: &str, end: &str| -> Result<_, NotDescribed> {
        match (start.is_empty(), end.is_empty()) {
            (true, _) => Ok(None),
            (false, true) => Err(NotDescribed::NoCloser),
            (false, false) => Ok(Some((
                Cow::Owned(start.to_owned()),
                Cow::Owned(end.to_owned()),
            ))),
        }
    };
    let calls = match analysis.tools {
        ToolFormat::None => return Err(NotDescribed::NoToolCalls),
        ToolFormat::TagWithTagged => return Err(NotDescribed::TaggedArguments),
        ToolFormat::Pythonic => return Err(NotDescribed::Pythonic),
        ToolFormat::JsonNative => {
            let j = &analysis.json;
            if j.array_wrapped {
                return Err(NotDescribed::ArrayWrapped);
            }
            if !j.function_field.trim().is_empty() {
                return Err(NotDescribed::NestedFunction);
            }
            if j.name_is_key {
                return Err(NotDescribed::NameAsKey);
            }
            if j.python_dicts {
                return Err(NotDescribed::PythonDicts);
            }
            let name = CallName::JsonFields {
                name: Cow::Owned(j.name_field.trim().to_owned()),
                arguments: Cow::Owned(j.args_field.trim().to_owned()),
            };
            if !per_call_start.is_empty() {
                let section = section(section_start, section_end)?;
                CallFormat {
                    section_optional: section.is_some(),
                    section,
                    call_begin: Cow::Owned(per_call_start.to_owned()),
                    name,
                    call_end: Cow::Owned(per_call_end.to_owned()),
                    padding: Cow::Owned(trailing_ws(&k.per_call_start).to_owned()),
                    separator,
                }
            } else if !section_start.is_empty() {
                // One call per section: the section markers frame each call.
                CallFormat {
                    section: None,
                    section_optional: false,
                    call_begin: Cow::Owned(section_start.to_owned()),
                    name,
                    call_end: Cow::Owned(section_end.to_owned()),
                    padding: Cow::Owned(trailing_ws(&k.tool_section_start).to_owned()),
                    separator: Cow::Borrowed(""),
                }
            } else {
                return Err(NotDescribed::NoCallMarker);
            }
        }
        ToolFormat::TagWithJson => {
            if analysis.call_id != CallIdPosition::None {
                return Err(NotDescribed::CallIdInMarkup);
            }
            let prefix = m(&k.func_name_prefix);
            let name_suffix = m(&k.func_name_suffix);
            let args_start = json_delimiter(&k.args_start);
            let args_end = json_delimiter(&k.args_end);
            let func_close = m(&k.func_close);
            let mut counter = name_suffix.chars();
            if counter.next() == Some(':') && counter.next().is_some_and(|c| c.is_ascii_digit()) {
                return Err(NotDescribed::CounterInSuffix);
            }
            // Arguments opened with a Markdown fence (```json) are closed by one.
            let fence = if name_suffix.contains("```") || args_start.contains("```") {
                "```"
            } else {
                ""
            };
            let (call_begin, prefix, section, padding) = if !per_call_start.is_empty() {
                let section = section(section_start, section_end)?;
                let padding = trailing_ws(&k.per_call_start);
                (per_call_start, prefix, section, padding)
            } else if !prefix.is_empty() {
                return Err(NotDescribed::NameAfterOpener);
            } else if !section_start.is_empty() {
                if section_end.is_empty() && func_close.is_empty() {
                    return Err(NotDescribed::NoCloser);
                }
                let padding = trailing_ws(&k.tool_section_start);
                (section_start, prefix, None, padding)
            } else {
                return Err(NotDescribed::NoCallMarker);
            };
            let block_end = if call_begin == section_start {
                section_end
            } else {
                per_call_end
            };
            let suffix = if name_suffix == args_start {
                name_suffix.to_owned()
            } else {
                [name_suffix, args_start].concat()
            };
            CallFormat {
                section_optional: section.is_some(),
                section,
                call_begin: Cow::Owned(call_begin.to_owned()),
                name: CallName::Tagged {
                    prefix: Cow::Owned(prefix.to_owned()),
                    index_separator: None,
                    suffix: Cow::Owned(suffix),
                },
                call_end: Cow::Owned([fence, args_end, func_close, block_end].concat()),
                padding: Cow::Owned(padding.to_owned()),
                separator,
            }
        }
    };
    let start = m(&k.reasoning_start);
    let end = m(&k.reasoning_end);
    let reasoning = (analysis.reasoning != ReasoningMode::None && !end.is_empty()).then(|| {
        ReasoningMarkers {
            open: Cow::Owned(start.to_owned()),
            close: Cow::Owned(end.to_owned()),
            // The parser holds a call block that opens inside reasoning (`BlockInReasoning::Hold`).
            ended_by_calls: false,
        }
    });
    let openers = [section_start, per_call_start, calls.call_begin.as_ref()];
    let mut reserved: Vec<Cow<'static, str>> = Vec::new();
    for token in &analysis.end_of_turn {
        let token = m(token);
        if !token.is_empty() && !openers.contains(&token) && !reserved.iter().any(|r| r == token) {
            reserved.push(Cow::Owned(token.to_owned()));
        }
    }
    Ok(FormatDescription {
        reasoning,
        calls,
        reserved,
    })
}
