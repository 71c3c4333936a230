//! Constrained decoding for the generic parser: the [`FormatDescription`] of an [`Analysis`], from the
//! same markers the parser interns (trimmed, as the parser's marker tables match them), so that a marker the
//! analysis finds changes the parser and the grammar at once.
//!
//! Described so far:
//! - `JSON_NATIVE`: a flat object `{"NAME_FIELD": "f", "ARGS_FIELD": {…}}` (the analysis' field names;
//!   a generated counter id, `gen_id_field`, first as `"0"`, [`CallName::JsonFieldsIdFirst`]; other
//!   id fields are left out, which the parser accepts) or `{"f": {…}}` (the name as the only key,
//!   [`CallName::NameAsKey`]), one per per-call block (`<tool_call>…</tool_call>`,
//!   optionally inside the section markers, which the parser may also go without), or one per section
//!   when the template has no per-call markers; or, when the template writes its calls in a JSON array,
//!   the array's elements (`[TOOL_CALLS] [{…}, {…}]`, `<TOOLCALL>[…]</TOOLCALL>`,
//!   [`CallFormat::array`]) between the markers that frame it, whose closer may be missing; or, without
//!   any marker (Llama 3.x), bare calls at the start of the answer, which is where the parser reads
//!   them ([`FormatDescription::is_bare`]: under `auto` the grammar allows them or text that does not
//!   open with `{`, and is not lazy).
//! - `TAG_WITH_JSON`: `[per_call_start] func_name_prefix NAME func_name_suffix [args_start] {…}
//!   [args_end] func_close [per_call_end]`, optionally inside the section markers; a call id between
//!   the name and the arguments (Mistral's `NAME[CALL_ID]id[ARGS]{…}`) written as digits; a counter
//!   the analysis reads into the name suffix (Kimi's `NAME:0<|tool_call_argument_begin|>`) written as
//!   that suffix on every call; an id right after the per-call opener, before the name (Solar's
//!   `<|tool_call:begin|>ID<|tool_call:name|>NAME`), written as digits; without a per-call opener, a
//!   name prefix that is markup opens the call, the name right after it (functionary v3.1's
//!   `<function=NAME>`).
//! - `TAG_WITH_TAGGED`: `per_call_start func_name_prefix NAME func_name_suffix` (without a per-call
//!   opener, a name prefix that is markup opens the call: MiniCPM 5's bare `<function name="NAME">`),
//!   then per argument
//!   `arg_name_prefix KEY arg_name_suffix [arg_value_prefix] VALUE arg_value_suffix`, then `func_close
//!   per_call_end` ([`CallName::Parameters`]): values typed by the tool's schema as the parser coerces
//!   them, one framing newline at each end, a raw value ending where the parser's does (its closer; it
//!   never holds the next argument's marker or the call's end).
//!
//! - `PYTHONIC`: a Python list of calls `[f(a=1), g()]` ([`CallName::Python`], [`CallFormat::array`])
//!   inside the section markers, or bare at the start of the answer without them; with
//!   [`Analysis::python_unlisted`], one call per section (`` ```tool_code\nf(a=1)\n``` ``); with a
//!   line break for the call separator, one call per line inside the section (Olmo 3's
//!   `<function_calls>\nf(a=1)\ng()\n</function_calls>`, [`CallFormat::separator`]). Keyword
//!   arguments are the schema's properties, each value a Python literal of its schema.
//!
//! Not described, each with its [`NotDescribed`] reason: Python calls with per-call markers, JSON
//! calls nested under a `function` key or as Python dicts, call ids in markup elsewhere before the
//! name, calls with no marker the parser opens them at (gpt-oss's harmony header, as the analysis
//! reads it). For those the grammar is refused rather than approximated.
//!
//! Reasoning follows the parser's stage rules ([`super::GenericParserFactory::reasoning_start`]): the
//! markers of a `TAG_BASED` / `TOOLS_ONLY` analysis; a call block that opens inside open reasoning is
//! held by the parser and read as calls when it ends the output, so the grammar lets such a block end
//! reasoning only when nothing but whitespace follows it ([`ReasoningMarkers::ended_by_calls`]); the
//! template's end-of-turn markers are kept out of free text.

use std::borrow::Cow;
use std::fmt;

use parser_core::constraint::{
    CallFormat, CallName, FormatDescription, ParameterTags, ReasoningMarkers,
};

use crate::spec::{Analysis, CallIdPosition, ReasoningMode, ToolFormat};

/// Why the generic parser's format of an analysis cannot be described for constrained decoding (yet).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotDescribed {
    /// The analysis found no tool calls: there is no call format to constrain.
    NoToolCalls,
    /// `TAG_WITH_TAGGED` without an argument name marker or a value closer: the grammar could not
    /// tell where a value ends.
    TaggedArguments,
    /// `PYTHONIC` calls with per-call markers (no template writes them so far).
    Pythonic,
    /// JSON calls in an array framed by both section and per-call markers (the analysis does not
    /// say which of them stand around the array).
    ArrayWrapped,
    /// JSON calls nested under a key (`{"function": {"name": …}}`).
    NestedFunction,
    /// Calls written as Python dicts (single quotes).
    PythonDicts,
    /// Calls without a section or per-call marker other than bare JSON objects (a tagged call whose
    /// name has no prefix, gpt-oss's channel header; a bare array): nothing the grammar could open
    /// them with that the parser reads as a call.
    NoCallMarker,
    /// A call id in markup anywhere but right after the call's opener or between the name and the
    /// arguments, or there after a name suffix.
    CallIdInMarkup,
    /// The call opens with the function name's prefix itself, which is not markup (`<…`, `[…`) the
    /// parser opens a call at.
    NameAfterOpener,
    /// A call block whose opener the analysis found but not its closer, where the format needs one.
    NoCloser,
}

impl fmt::Display for NotDescribed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotDescribed::NoToolCalls => "the analysis found no tool calls",
            NotDescribed::TaggedArguments => {
                "TAG_WITH_TAGGED arguments without an argument name marker or a value closer"
            }
            NotDescribed::Pythonic => "PYTHONIC calls with per-call markers",
            NotDescribed::ArrayWrapped => {
                "JSON calls in an array inside both section and per-call markers"
            }
            NotDescribed::NestedFunction => "JSON calls nested under a `function` key",
            NotDescribed::PythonDicts => "calls written as Python dicts",
            NotDescribed::NoCallMarker => {
                "calls without a section or per-call marker (other than bare JSON objects)"
            }
            NotDescribed::CallIdInMarkup => {
                "a call id in markup before the function name, not right after the call opener"
            }
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

/// A call separator that is a line break with optional spaces around it (`"\n"`).
fn is_line_break(separator: &str) -> bool {
    separator.contains('\n') && separator.trim().is_empty()
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
        ToolFormat::TagWithTagged => {
            if analysis.call_id != CallIdPosition::None {
                return Err(NotDescribed::CallIdInMarkup);
            }
            let key_open = m(&k.arg_name_prefix);
            let value_close = m(&k.arg_value_suffix);
            if key_open.is_empty() || value_close.is_empty() {
                return Err(NotDescribed::TaggedArguments);
            }
            let name_prefix = m(&k.func_name_prefix);
            // Without a per-call opener, a name prefix that is markup opens the call (MiniCPM 5's bare
            // `<function name="NAME">`), as for TAG_WITH_JSON: the call begins with the prefix and the
            // name follows it with no whitespace, as the parser reads it.
            let (call_begin, name_prefix) = if !per_call_start.is_empty() {
                (per_call_start, name_prefix)
            } else if name_prefix.len() >= 2
                && (name_prefix.starts_with('<') || name_prefix.starts_with('['))
            {
                (name_prefix, "")
            } else {
                return Err(NotDescribed::NameAfterOpener);
            };
            let func_close = m(&k.func_close);
            let value_open = m(&k.arg_value_prefix);
            // The parser's interrupters (`syntax::Syntax::new`): a value whose closer is missing ends
            // in front of the next argument or the end of the call.
            let mut value_stops = vec![Cow::Owned(key_open.to_owned())];
            let call_close = [func_close, per_call_end, section_end]
                .into_iter()
                .find(|close| !close.is_empty());
            value_stops.extend(call_close.map(|close| Cow::Owned(close.to_owned())));
            let section = section(section_start, section_end)?;
            CallFormat {
                section_optional: section.is_some(),
                section,
                call_begin: Cow::Owned(call_begin.to_owned()),
                name: CallName::Parameters {
                    prefix: Cow::Owned(name_prefix.to_owned()),
                    suffix: Cow::Owned(m(&k.func_name_suffix).to_owned()),
                    parameters: ParameterTags {
                        key_open: Cow::Owned(key_open.to_owned()),
                        key_close: Cow::Owned(m(&k.arg_name_suffix).to_owned()),
                        // The parser tolerates whitespace between markers.
                        space_before_value: !value_open.is_empty(),
                        string_open: Cow::Owned(value_open.to_owned()),
                        json_open: Cow::Owned(value_open.to_owned()),
                        value_close: Cow::Owned(value_close.to_owned()),
                        // The parser drops one newline at each end of a value.
                        framing: Cow::Borrowed("\n"),
                        value_stops,
                        padding: Cow::Borrowed("\n"),
                    },
                    end: Cow::Owned(func_close.to_owned()),
                },
                call_end: Cow::Owned(per_call_end.to_owned()),
                padding: Cow::Owned(trailing_ws(&k.per_call_start).to_owned()),
                separator,
                array: false,
            }
        }
        ToolFormat::Pythonic => {
            // Python calls have no per-call markers in any template seen so far.
            if !per_call_start.is_empty() {
                return Err(NotDescribed::Pythonic);
            }
            let list = !analysis.python_unlisted;
            // Calls one per line inside the section (Olmo 3's `<function_calls>\nf()\ng()\n…`): the
            // template writes a line break between calls, not a list's `,`.
            let lines = list && !section_start.is_empty() && is_line_break(&k.call_separator);
            // A list's `]` closes it: the section's closer may be missing.
            let section = match (section_start.is_empty(), list) {
                (false, true) if lines => section(section_start, section_end)?,
                (true, _) => None,
                (false, true) => Some((
                    Cow::Owned(section_start.to_owned()),
                    Cow::Owned(section_end.to_owned()),
                )),
                (false, false) => section(section_start, section_end)?,
            };
            match (section, list) {
                // One call per line; the whitespace inside the section's markers is the padding.
                (Some(section), true) if lines => CallFormat {
                    section: Some(section),
                    section_optional: false,
                    call_begin: Cow::Borrowed(""),
                    name: CallName::Python,
                    call_end: Cow::Borrowed(""),
                    padding: Cow::Owned(trailing_ws(&k.tool_section_start).to_owned()),
                    separator: Cow::Borrowed("\n"),
                    array: false,
                },
                // `<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>`; without markers, Llama 4's
                // bare `[f(a=1)]` at the start of the answer.
                (section, true) => CallFormat {
                    section,
                    section_optional: false,
                    call_begin: Cow::Borrowed(""),
                    name: CallName::Python,
                    call_end: Cow::Borrowed(""),
                    padding: Cow::Borrowed(""),
                    separator: Cow::Borrowed(", "),
                    array: true,
                },
                // One call per section: ```` ```tool_code\nf(a=1)\n``` ````.
                (Some((begin, end)), false) => CallFormat {
                    section: None,
                    section_optional: false,
                    call_begin: begin,
                    name: CallName::Python,
                    call_end: end,
                    padding: Cow::Owned(trailing_ws(&k.tool_section_start).to_owned()),
                    separator: Cow::Borrowed(""),
                    array: false,
                },
                (None, false) => return Err(NotDescribed::NoCallMarker),
            }
        }
        ToolFormat::JsonNative => {
            let j = &analysis.json;
            if !j.function_field.trim().is_empty() {
                return Err(NotDescribed::NestedFunction);
            }

            if j.python_dicts {
                return Err(NotDescribed::PythonDicts);
            }
            let name = if j.name_is_key {
                CallName::NameAsKey
            } else if !j.gen_id_field.trim().is_empty() {
                // A generated counter id (Command-R7B's `"tool_call_id": "0"`) comes first.
                CallName::JsonFieldsIdFirst {
                    id: Cow::Owned(j.gen_id_field.trim().to_owned()),
                    name: Cow::Owned(j.name_field.trim().to_owned()),
                    arguments: Cow::Owned(j.args_field.trim().to_owned()),
                }
            } else {
                CallName::JsonFields {
                    name: Cow::Owned(j.name_field.trim().to_owned()),
                    arguments: Cow::Owned(j.args_field.trim().to_owned()),
                }
            };
            if j.array_wrapped {
                // The array's markers: the per-call ones (`<TOOLCALL>[…]</TOOLCALL>`) or the section's
                // (`[TOOL_CALLS] […]`); a closer may be missing, the `]` ends the block.
                let (opener, closer) = match (section_start.is_empty(), per_call_start.is_empty()) {
                    (true, false) => (per_call_start, per_call_end),
                    (false, true) => (section_start, section_end),
                    (false, false) => return Err(NotDescribed::ArrayWrapped),
                    (true, true) => return Err(NotDescribed::NoCallMarker),
                };
                let separator = match k.call_separator.trim() {
                    "," => k.call_separator.clone(),
                    _ => ", ".to_owned(),
                };
                CallFormat {
                    section: Some((Cow::Owned(opener.to_owned()), Cow::Owned(closer.to_owned()))),
                    section_optional: false,
                    call_begin: Cow::Borrowed(""),
                    name,
                    call_end: Cow::Borrowed(""),
                    padding: Cow::Borrowed(""),
                    separator: Cow::Owned(separator),
                    array: true,
                }
            } else if !per_call_start.is_empty() {
                // A section opener without a closer (GigaChat3's `function call` role header beside
                // 3.1's `<|function_call|>`): the parser also reads calls after the per-call opener
                // alone, which is what the grammar writes.
                let section = match section_end.is_empty() {
                    true => None,
                    false => section(section_start, section_end)?,
                };
                CallFormat {
                    section_optional: section.is_some(),
                    section,
                    call_begin: Cow::Owned(per_call_start.to_owned()),
                    name,
                    call_end: Cow::Owned(per_call_end.to_owned()),
                    padding: Cow::Owned(trailing_ws(&k.per_call_start).to_owned()),
                    separator,
                    array: false,
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
                    array: false,
                }
            } else {
                // No marker: the parser reads a call only at the very start of the answer.
                CallFormat {
                    section: None,
                    section_optional: false,
                    call_begin: Cow::Borrowed(""),
                    name,
                    call_end: Cow::Borrowed(""),
                    padding: Cow::Borrowed(""),
                    separator,
                    array: false,
                }
            }
        }
        ToolFormat::TagWithJson => {
            let prefix = m(&k.func_name_prefix);
            let name_suffix = m(&k.func_name_suffix);
            let args_start = json_delimiter(&k.args_start);
            let args_end = json_delimiter(&k.args_end);
            let func_close = m(&k.func_close);
            // An id between the name and the arguments (`NAME[CALL_ID]id[ARGS]{…}`), which the parser
            // keeps as the call's id, is written as a counter: digits, one of the ids it reads.
            // An id right after the call's opener, before the name (Solar's
            // `<|tool_call:begin|>ID<|tool_call:name|>NAME`), is written as a counter as well.
            let mut id_first = None;
            let (id_prefix, name_suffix) = match analysis.call_id {
                CallIdPosition::None => (None, name_suffix),
                CallIdPosition::BetweenFuncAndArgs
                    if name_suffix.is_empty() && !m(&k.call_id_prefix).is_empty() =>
                {
                    (Some(m(&k.call_id_prefix)), m(&k.call_id_suffix))
                }
                CallIdPosition::PreFuncName
                    if !per_call_start.is_empty()
                        && m(&k.call_id_prefix) == per_call_start
                        && !m(&k.call_id_suffix).is_empty() =>
                {
                    id_first = Some(Cow::Owned(m(&k.call_id_suffix).to_owned()));
                    (None, name_suffix)
                }
                _ => return Err(NotDescribed::CallIdInMarkup),
            };
            // A counter the analysis reads as part of the name suffix (Kimi's `NAME:0`) is written as
            // the suffix says, `:0` on every call, which the parser reads as it reads the first.
            // Arguments opened with a Markdown fence (```json) are closed by one.
            let fence = if name_suffix.contains("```") || args_start.contains("```") {
                "```"
            } else {
                ""
            };
            let mut tight = false;
            let (call_begin, prefix, section, padding) = if !per_call_start.is_empty() {
                let section = section(section_start, section_end)?;
                let padding = trailing_ws(&k.per_call_start);
                (per_call_start, prefix, section, padding)
            } else if !prefix.is_empty() {
                // The name's prefix opens the call (`<function=NAME>`), when the parser takes it for
                // an opener; the name follows it with no whitespace, as the parser reads it.
                if !(prefix.len() >= 2 && (prefix.starts_with('<') || prefix.starts_with('['))) {
                    return Err(NotDescribed::NameAfterOpener);
                }
                let section = section(section_start, section_end)?;
                tight = true;
                (prefix, "", section, "")
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
            } else if per_call_start.is_empty() {
                // No per-call opener pairs with it: what the analysis found after the call ends the
                // message (functionary's `<|eom_id|>`), which the parser takes as framing if written.
                ""
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
                    index_separator: id_prefix.map(|id| Cow::Owned(id.to_owned())),
                    suffix: Cow::Owned(suffix),
                    id_first,
                    tight,
                },
                call_end: Cow::Owned([fence, args_end, func_close, block_end].concat()),
                padding: Cow::Owned(padding.to_owned()),
                separator,
                array: false,
            }
        }
    };
    let start = m(&k.reasoning_start);
    let end = m(&k.reasoning_end);
    let reasoning = (analysis.reasoning != ReasoningMode::None && !end.is_empty()).then(|| {
        ReasoningMarkers {
            open: Cow::Owned(start.to_owned()),
            close: Cow::Owned(end.to_owned()),
            // The parser holds a call block that opens inside reasoning (`BlockInReasoning::Hold`) and
            // reads it as calls when it ends the output: the only way the grammar lets a block end
            // reasoning (its calls, then nothing but whitespace).
            ended_by_calls: true,
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
