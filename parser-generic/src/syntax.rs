//! The markers of an [`Analysis`], normalised and interned once per parser: what the generic tool
//! parser's state machine matches against.

use parser_core::intern::{intern, intern_list, marker_set, value_syntax};
use parser_core::{JsonCallFields, MarkerSet, ValueSyntax};

use crate::spec::{Analysis, CallIdPosition, ContentMode, ToolFormat};

/// Marker group of the content scan: tokens removed wherever they appear (end of turn, content wrappers).
pub(super) const DROP: usize = 1;

/// Everything the generic tool parser needs, built from an analysis. Markers are trimmed (whitespace
/// between markers is tolerated, so framing newlines in the template do not matter) and empty when absent.
#[derive(Debug)]
pub(super) struct Syntax {
    pub format: ToolFormat,
    pub call_id: CallIdPosition,
    /// The end of the tool-call section (empty when none).
    pub section_end: &'static str,
    pub per_call_start: &'static str,
    /// Every spelling of the section start, the spec's first ([`Analysis::marker_spellings`]).
    pub section_starts: &'static [&'static str],
    /// Every spelling of the per-call start.
    pub per_call_starts: &'static [&'static str],
    pub func_name_prefix: &'static str,
    /// Every spelling of the function-name prefix.
    pub func_name_prefixes: &'static [&'static str],
    pub func_name_suffix: &'static str,
    pub call_id_prefix: &'static str,
    pub call_id_suffix: &'static str,
    /// Every spelling of the argument-name prefix.
    pub arg_name_prefixes: &'static [&'static str],
    pub arg_name_suffix: &'static str,
    pub arg_value_prefix: &'static str,
    /// JSON_NATIVE field names.
    pub json: JsonCallFields,
    /// JSON_NATIVE or PYTHONIC without any section or per-call marker, or with
    /// [`Analysis::calls_at_start`](crate::spec::Analysis::calls_at_start): a call may open at the
    /// very start of the answer without a marker (Llama 3.x), never in prose later.
    pub bare: bool,
    /// Calls may be written in a JSON array (`[{…}, {…}]`); on TAG_WITH_JSON, JSON call objects may
    /// also follow the per-call start marker.
    pub array: bool,
    /// Content scan: call openers (group 0) and dropped tokens (group [`DROP`]).
    pub content: &'static MarkerSet,
    /// The call openers, for [`parser_core::BlockInReasoning::Hold`].
    pub openers: &'static [&'static str],
    /// Where a broken JSON call's raw text ends, and where raw (invalid) arguments or bodies stop.
    pub stops: &'static MarkerSet,
    /// Markers that may stand before TAG_WITH_JSON arguments (`args_start`, a call-id suffix).
    pub args_openers: &'static [&'static str],
    /// What may follow a function name when the template writes no suffix after it.
    pub name_followers: &'static [&'static str],
    /// What may follow a call: framing (argument/function/call/section ends, separators, dropped
    /// tokens), the next call's opener, and a call id written after the arguments.
    pub after_literals: &'static [&'static str],
    /// Markers that end a call body: the function close and the block ends.
    pub block_ends: &'static [&'static str],
    /// What may follow whitespace in a tagged call body: an argument name prefix, the end of the call
    /// or block, the next call's opener, and framing between arguments (separator, dropped tokens).
    pub body_literals: &'static [&'static str],
    /// How a tagged value ends.
    pub value: &'static ValueSyntax,
    /// Some marker closes a call (so a call cut off before it is truncated).
    pub has_closer: bool,
    /// Every literal a head may consist of, for chunking tests.
    pub tokens: &'static [&'static str],
    /// The recipient that content is written to with the call opener (functionary's `all` in
    /// `>>>all`); empty when none.
    pub content_recipient: &'static str,
    /// PYTHONIC: markers that end broken arguments when they stand outside a string (call/section ends,
    /// call openers, dropped tokens).
    pub py_stops: &'static [&'static str],
}

/// A marker as matched: trimmed, interned.
fn m(text: &str) -> &'static str {
    intern(text.trim())
}

/// `markers` and the spec's other spellings of them ([`Analysis::marker_spellings`], trimmed): every
/// set the scanner matches is widened by this, so a spelling stands wherever its marker does.
pub(super) fn spelled<'a>(analysis: &'a Analysis, markers: &[&'a str]) -> Vec<&'a str> {
    let mut all = markers.to_vec();
    for (marker, spelling) in &analysis.marker_spellings {
        let (marker, spelling) = (marker.trim(), spelling.trim());
        if !marker.is_empty() && markers.contains(&marker) && !all.contains(&spelling) {
            all.push(spelling);
        }
    }
    all
}

/// [`spelled`], interned.
fn spelled_list(analysis: &Analysis, markers: &[&str]) -> &'static [&'static str] {
    intern_list(&spelled(analysis, markers))
}

/// A marker's spellings, the marker first; none when it is empty.
fn spellings_of(analysis: &Analysis, marker: &'static str) -> &'static [&'static str] {
    if marker.is_empty() {
        intern_list(&[])
    } else {
        spelled_list(analysis, &[marker])
    }
}

/// A marker that delimits JSON arguments, unless it is the JSON brace itself (an analysis may report
/// `{` / `}` as the arguments' start and end), which belongs to the arguments.
fn json_delimiter(text: &str) -> &'static str {
    let text = text.trim();
    if text.starts_with('{') || text.starts_with('}') || text == "[" || text == "]" {
        ""
    } else {
        intern(text)
    }
}

/// A marker that can open a call on its own in content: markup-like (`<function=`, `<invoke name="`).
fn tag_like(text: &str) -> bool {
    text.len() >= 2 && (text.starts_with('<') || text.starts_with('['))
}

impl Syntax {
    pub(super) fn new(analysis: &Analysis) -> Syntax {
        let k = &analysis.markers;
        let format = analysis.tools;
        let section_start = m(&k.tool_section_start);
        let section_end = m(&k.tool_section_end);
        let per_call_start = m(&k.per_call_start);
        let per_call_end = m(&k.per_call_end);
        let func_name_prefix = m(&k.func_name_prefix);
        let func_name_suffix = m(&k.func_name_suffix);
        let func_close = m(&k.func_close);
        let (args_start, args_end) = match format {
            ToolFormat::TagWithJson => (json_delimiter(&k.args_start), json_delimiter(&k.args_end)),
            _ => ("", ""),
        };
        let call_separator = m(&k.call_separator);
        let call_separator = if call_separator == "," && analysis.json.array_wrapped {
            ""
        } else {
            call_separator
        };
        let arg_name_prefix = m(&k.arg_name_prefix);
        let arg_name_suffix = m(&k.arg_name_suffix);
        let arg_value_prefix = m(&k.arg_value_prefix);
        let arg_value_suffix = m(&k.arg_value_suffix);
        let arg_separator = m(&k.arg_separator);
        let call_id = match format {
            ToolFormat::TagWithJson | ToolFormat::TagWithTagged => analysis.call_id,
            _ => CallIdPosition::None,
        };
        let (call_id_prefix, call_id_suffix) = match call_id {
            CallIdPosition::None => ("", ""),
            _ => (m(&k.call_id_prefix), m(&k.call_id_suffix)),
        };

        let is_tag = matches!(format, ToolFormat::TagWithJson | ToolFormat::TagWithTagged);
        let mut openers = vec![section_start, per_call_start];
        if is_tag && tag_like(func_name_prefix) {
            openers.push(func_name_prefix);
        }
        let openers = match format {
            ToolFormat::None => intern_list(&[]),
            _ => spelled_list(analysis, &openers),
        };
        let mut drops: Vec<&str> = analysis.end_of_turn.iter().map(|t| t.trim()).collect();
        // Content written like a call (`>>>all`): read by the call head, not dropped.
        let content_recipient = match k.content_start.trim().strip_prefix(per_call_start) {
            Some(recipient) if !per_call_start.is_empty() && format != ToolFormat::None => {
                intern(recipient.trim())
            }
            _ => "",
        };
        if analysis.content != ContentMode::Plain {
            if content_recipient.is_empty() {
                drops.push(k.content_start.trim());
            }
            drops.push(k.content_end.trim());
        }
        // A call that ends reasoning (`calls_end_reasoning`) leaves the model's own closer after it,
        // which is framing in the answer.
        if analysis.calls_end_reasoning && analysis.reasoning != crate::spec::ReasoningMode::None {
            drops.push(k.reasoning_end.trim());
        }
        let mut drops = spelled(analysis, &drops);
        drops.retain(|d| !d.is_empty() && !openers.contains(d));
        let drops = intern_list(&drops);

        let mut stop_list = spelled(analysis, &[args_end, func_close, per_call_end, section_end]);
        stop_list.extend_from_slice(openers);
        stop_list.extend_from_slice(drops);
        let stops = marker_set(&[&stop_list]);
        let py_stops = intern_list(&stop_list);

        let mut followers = vec![
            arg_name_prefix,
            args_start,
            call_id_prefix,
            call_id_suffix,
            func_close,
            per_call_end,
            section_end,
        ];
        if format == ToolFormat::TagWithJson {
            followers.push("{");
        }
        let name_followers = spelled_list(analysis, &followers);

        let mut between = vec![
            args_end,
            func_close,
            per_call_end,
            section_end,
            call_separator,
        ];
        // Arguments opened with a Markdown fence (```json) are closed by one.
        if format == ToolFormat::TagWithJson
            && (func_name_suffix.contains("```") || args_start.contains("```"))
        {
            between.push("```");
        }
        between.extend_from_slice(drops);
        between.extend_from_slice(openers);
        if call_id == CallIdPosition::PostArgs {
            between.push(call_id_prefix);
        }
        let after_literals = spelled_list(analysis, &between);
        let block_ends = spelled_list(analysis, &[func_close, per_call_end, section_end]);
        let arg_name_prefixes = spellings_of(analysis, arg_name_prefix);
        let mut body = arg_name_prefixes.to_vec();
        body.extend_from_slice(block_ends);
        body.extend_from_slice(openers);
        body.extend(spelled(analysis, &[arg_separator]));
        body.extend_from_slice(drops);
        let body_literals = intern_list(&body);

        // A value ends at its closer; when the closer is missing, at the next argument or the end of the
        // call. A closer only counts when the next argument, the end of the call or the end of the output
        // follows it (so a literal closer inside code is text).
        let mut interrupters = vec![arg_name_prefix, func_close];
        if func_close.is_empty() {
            interrupters.push(per_call_end);
            if per_call_end.is_empty() {
                interrupters.push(section_end);
            }
        }
        let interrupters = spelled(analysis, &interrupters);
        let value_followers = spelled(
            analysis,
            &[
                arg_name_prefix,
                func_close,
                per_call_end,
                section_end,
                arg_separator,
            ],
        );
        let value = value_syntax(
            &spelled(analysis, &[arg_value_suffix]),
            &interrupters,
            (!arg_value_suffix.is_empty()).then_some(&value_followers[..]),
            true,
        );

        let json = if format == ToolFormat::JsonNative
            || (format == ToolFormat::TagWithJson && analysis.json.array_wrapped)
        {
            json_fields(analysis)
        } else {
            JsonCallFields::STANDARD
        };
        let bare = matches!(format, ToolFormat::JsonNative | ToolFormat::Pythonic)
            && (analysis.calls_at_start || (section_start.is_empty() && per_call_start.is_empty()));

        let tokens = vec![
            section_start,
            section_end,
            per_call_start,
            per_call_end,
            func_name_prefix,
            func_name_suffix,
            func_close,
            args_start,
            args_end,
            arg_name_prefix,
            arg_name_suffix,
            arg_value_prefix,
            arg_value_suffix,
            call_id_prefix,
            call_id_suffix,
            m(&k.reasoning_start),
            m(&k.reasoning_end),
            m(&k.content_start),
            m(&k.content_end),
        ];
        let mut tokens = spelled(analysis, &tokens);
        tokens.extend_from_slice(drops);

        Syntax {
            format,
            call_id,
            section_end,
            per_call_start,
            section_starts: spellings_of(analysis, section_start),
            per_call_starts: spellings_of(analysis, per_call_start),
            func_name_prefix,
            func_name_prefixes: spellings_of(analysis, func_name_prefix),
            func_name_suffix,
            call_id_prefix,
            call_id_suffix,
            arg_name_prefixes,
            arg_name_suffix,
            arg_value_prefix,
            json,
            bare,
            array: analysis.json.array_wrapped,
            content: marker_set(&[openers, drops]),
            openers,
            stops,
            args_openers: spelled_list(analysis, &[args_start, call_id_suffix]),
            name_followers,
            after_literals,
            block_ends,
            body_literals,
            value,
            has_closer: !(func_close.is_empty()
                && per_call_end.is_empty()
                && section_end.is_empty()),
            tokens: intern_list(&tokens),
            py_stops,
            content_recipient,
        }
    }

    /// The length of the longest call opener `text` starts with (at least one character, so that text
    /// that turned out not to open a call always moves on).
    pub(super) fn opener_len(&self, text: &str) -> usize {
        self.openers
            .iter()
            .filter(|o| text.starts_with(**o))
            .map(|o| o.len())
            .max()
            .unwrap_or_else(|| text.chars().next().map_or(0, char::len_utf8))
    }
}

/// The JSON field names: the analysis' own, plus the usual spellings (a model does not always write the
/// field its template renders).
fn json_fields(analysis: &Analysis) -> JsonCallFields {
    let j = &analysis.json;
    let name_field = j.name_field.trim();
    let name = intern_list(&[name_field, "name"]);
    let mut arguments = vec![j.args_field.trim(), "arguments", "parameters"];
    arguments.retain(|a| !name.contains(a));
    let ids = [j.id_field.trim(), j.gen_id_field.trim()];
    JsonCallFields {
        name,
        arguments: intern_list(&arguments),
        function: intern_list(&[j.function_field.trim()]),
        id: intern_list(&ids),
        name_is_key: j.name_is_key,
    }
}
