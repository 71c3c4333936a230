//! `response_template`: the streamable response format of transformers (version 1).
//!
//! A template names *fields* (`content`, `reasoning_content`, `tool_calls`, …). Each field is a region
//! of the output between an `open` and a `close` anchor (literals or patterns); at most one field has
//! no `open` and receives the text outside every other region (the *implicit* field). A region's text
//! goes through its content parser (`text`, `json`, `xml-inline`, …) and optional `transform` when the
//! region closes. `start_anchor` says where the assistant message begins in the prompt, so that a
//! prefilled `<think>` puts the parser inside reasoning before the model writes anything.
//!
//! [`RegionScanner`] finds the regions as text arrives. An anchor can only be decided once no longer
//! match could still start before it or grow out of it; the scanner asks that of each anchor with a
//! lazy DFA run from each candidate position, which is what Python's `regex` module does with
//! `partial=True`. Text that cannot start any watched anchor is released at once, so a delta costs the
//! bytes it adds (anchors that are still undecided are re-examined, and they are short).

use std::sync::Arc;

use regex::Regex;
use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

use super::content::{
    Content, REGEX_SIZE_LIMIT, build_regex, compile_python_regex, regex_error,
    translate_python_regex, validate_transform,
};
use super::value::Value;
use crate::template::invalid;
use parser_core::Error;

/// A compiled `response_template`.
///
/// ```
/// use parser_auto::response::ResponseTemplate;
///
/// // From the JSON text (as a tokenizer config holds it), so the transform keeps its key order.
/// let template = ResponseTemplate::from_json(r#"{
///     "defaults": {"role": "assistant"},
///     "start_anchor": "<|im_start|>assistant\n",
///     "fields": {
///         "reasoning_content": {"open": "<think>", "close": "</think>"},
///         "tool_calls": {
///             "open_pattern": "\\s*<tool_call>", "close": "</tool_call>",
///             "repeats": true, "content": "json",
///             "transform": {"type": "function", "function": "{content}"}
///         },
///         "content": {"close_pattern": "\\s*<\\|im_end\\|>"}
///     }
/// }"#)
/// .unwrap();
/// let message = template
///     .parse_response(
///         "Let me look.</think>\n\nChecking.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call><|im_end|>",
///         "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n",
///         None,
///     )
///     .unwrap();
/// assert_eq!(
///     message.to_json(),
///     r#"{"role":"assistant","reasoning_content":"Let me look.","content":"Checking.","tool_calls":[{"type":"function","function":{"name":"f","arguments":{"x":1}}}]}"#
/// );
/// ```
#[derive(Clone, Debug)]
pub struct ResponseTemplate {
    pub(crate) inner: Arc<Spec>,
}

#[derive(Debug)]
pub(crate) struct Spec {
    pub(crate) defaults: Value,
    pub(crate) fields: Vec<Field>,
    pub(crate) implicit: Option<usize>,
    start_anchor: Regex,
    /// What to look for outside the explicit regions: every open, and the implicit field's close.
    outside: Watch,
    /// Per field, what to look for inside its explicit region: its close.
    inside: Vec<Watch>,
}

impl Spec {
    /// The part of `prompt` after the last start anchor (all of it if there is none).
    fn assistant_prefix<'p>(&self, prompt: &'p str) -> &'p str {
        match self.start_anchor.find_iter(prompt).last() {
            Some(m) => &prompt[m.end()..],
            None => prompt,
        }
    }
}

/// A set of anchors looked for together, with the bytes that can start any of them.
#[derive(Debug)]
struct Watch {
    /// (field, open anchor?) pairs.
    anchors: Vec<(usize, bool)>,
    starts: [bool; 256],
    /// Some anchor matches the empty string: every position is a candidate.
    any_empty: bool,
    /// The start bytes when there are at most three (found with `memchr` then).
    few: Vec<u8>,
}

impl Watch {
    fn new(fields: &[Field], anchors: Vec<(usize, bool)>) -> Watch {
        let mut starts = [false; 256];
        let mut any_empty = false;
        for &(field, open) in &anchors {
            let f = &fields[field];
            if let Some(anchor) = if open { &f.open } else { &f.close } {
                any_empty |= anchor.matches_empty;
                for (slot, can) in starts.iter_mut().zip(anchor.starts) {
                    *slot |= can;
                }
            }
        }
        let few: Vec<u8> = (0..=255u8).filter(|&b| starts[usize::from(b)]).collect();
        Watch {
            anchors,
            starts,
            any_empty,
            few: if few.len() <= 3 { few } else { Vec::new() },
        }
    }

    /// The first position at or after `from` where a watched anchor may start (`bytes.len()` if none).
    fn next_candidate(&self, bytes: &[u8], from: usize) -> usize {
        if self.any_empty || from >= bytes.len() {
            return from;
        }
        let rest = &bytes[from..];
        let found = match *self.few.as_slice() {
            [] if self.starts.iter().all(|s| !s) => None,
            [] => rest.iter().position(|&b| self.starts[usize::from(b)]),
            [a] => memchr::memchr(a, rest),
            [a, b] => memchr::memchr2(a, b, rest),
            [a, b, c] => memchr::memchr3(a, b, c, rest),
            _ => rest.iter().position(|&b| self.starts[usize::from(b)]),
        };
        found.map_or(bytes.len(), |at| from + at)
    }
}

/// One field of the template.
#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) open: Option<Anchor>,
    pub(crate) close: Option<Anchor>,
    pub(crate) content: Content,
    pub(crate) repeats: bool,
    pub(crate) join: Option<String>,
    pub(crate) optional: bool,
    pub(crate) transform: Option<Value>,
    pub(crate) transform_each: bool,
}

/// An `open`/`close`/`start_anchor`: literals or a pattern, compiled for finding (`regex`) and for
/// deciding matches at the edge of the text seen so far (`dfa`).
#[derive(Debug)]
pub(crate) struct Anchor {
    regex: Regex,
    dfa: DFA,
    /// A literal anchor that no other literal of its list extends: complete as soon as it is seen.
    final_when_complete: bool,
    /// Bytes that can begin a match.
    starts: [bool; 256],
    /// Whether the anchor matches the empty string somewhere (then every position is a candidate).
    matches_empty: bool,
    has_names: bool,
}

/// What a region-start probe found at one position.
enum Probe {
    /// No match starts here.
    Dead,
    /// A match may start here, but more text is needed to know.
    Pending,
    /// A match starts here and ends at this offset, whatever comes next.
    Match(usize),
}

impl Anchor {
    fn new(
        scope: &str,
        spec: &serde_json::Value,
        literal_key: &str,
        pattern_key: &str,
    ) -> Result<Option<Anchor>, Error> {
        let literal = spec.get(literal_key);
        let pattern = spec.get(pattern_key);
        let (source, final_when_complete) = match (literal, pattern) {
            (Some(_), Some(_)) => {
                return Err(invalid(format!(
                    "{scope}: cannot give both '{literal_key}' and '{pattern_key}'"
                )));
            }
            (None, None) => return Ok(None),
            (Some(literal), None) => {
                let literals: Vec<&str> = match literal {
                    serde_json::Value::String(s) => vec![s.as_str()],
                    serde_json::Value::Array(items) => items
                        .iter()
                        .map(|v| v.as_str())
                        .collect::<Option<Vec<_>>>()
                        .filter(|l| !l.is_empty())
                        .ok_or_else(|| {
                            invalid(format!(
                                "{scope}: '{literal_key}' must be a string or a non-empty list of strings"
                            ))
                        })?,
                    _ => {
                        return Err(invalid(format!(
                            "{scope}: '{literal_key}' must be a string or a list of strings"
                        )));
                    }
                };
                if literals.iter().any(|l| l.is_empty()) {
                    return Err(invalid(format!(
                        "{scope}: '{literal_key}' literals cannot be empty"
                    )));
                }
                // Longest first, so that the alternation prefers the longer of two literals.
                let mut ordered = literals.clone();
                ordered.sort_by_key(|l| std::cmp::Reverse(l.len()));
                ordered.dedup();
                let can_extend = literals
                    .iter()
                    .any(|a| literals.iter().any(|b| a != b && a.starts_with(b)));
                let alternation: Vec<String> = ordered.iter().map(|l| regex::escape(l)).collect();
                (alternation.join("|"), !can_extend)
            }
            (None, Some(serde_json::Value::String(p))) => (translate_python_regex(p), false),
            (None, Some(_)) => {
                return Err(invalid(format!(
                    "{scope}: '{pattern_key}' must be a string"
                )));
            }
        };
        let what = format!(
            "{scope} {}",
            if literal.is_some() {
                literal_key
            } else {
                pattern_key
            }
        );
        let original = pattern.and_then(|p| p.as_str()).unwrap_or(&source);
        let regex = if literal.is_some() {
            build_regex(&format!("(?s){source}"))
                .map_err(|e| regex_error(&what, original, &e.to_string()))?
        } else {
            compile_python_regex(&what, original)?
        };
        let dfa = DFA::builder()
            .thompson(
                regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(REGEX_SIZE_LIMIT)),
            )
            .configure(
                DFA::config()
                    .match_kind(MatchKind::LeftmostFirst)
                    .unicode_word_boundary(true),
            )
            .build(&format!("(?s){source}"))
            .map_err(|e| regex_error(&what, original, &e.to_string()))?;
        let has_names = regex.capture_names().flatten().next().is_some();
        let mut anchor = Anchor {
            regex,
            dfa,
            final_when_complete,
            starts: [false; 256],
            matches_empty: false,
            has_names,
        };
        anchor.learn_starts();
        Ok(Some(anchor))
    }

    /// Fills `starts` and `matches_empty` by stepping the DFA one byte from its start states under
    /// each class of look-behind (none, word, space, newline, carriage return).
    fn learn_starts(&mut self) {
        let mut cache = self.dfa.create_cache();
        for behind in [None, Some(b'a'), Some(b' '), Some(b'\n'), Some(b'\r')] {
            let config = start::Config::new()
                .anchored(Anchored::Yes)
                .look_behind(behind);
            let Ok(sid) = self.dfa.start_state(&mut cache, &config) else {
                self.starts = [true; 256];
                continue;
            };
            if self
                .dfa
                .next_eoi_state(&mut cache, sid)
                .is_ok_and(|s| s.is_match())
            {
                self.matches_empty = true;
            }
            for byte in 0..=255u8 {
                match self.dfa.next_state(&mut cache, sid, byte) {
                    Ok(next) if next.is_match() => {
                        self.matches_empty = true;
                        self.starts[usize::from(byte)] = true;
                    }
                    Ok(next) if next.is_dead() => {}
                    _ => self.starts[usize::from(byte)] = true,
                }
            }
        }
    }

    fn may_start(&self, byte: Option<u8>) -> bool {
        self.matches_empty || byte.is_some_and(|b| self.starts[usize::from(b)])
    }

    /// Runs the anchored DFA from `at`: whether a match starts there and whether it is final.
    fn probe(
        &self,
        cache: &mut Cache,
        text: &[u8],
        at: usize,
        behind: Option<u8>,
        eos: bool,
    ) -> Probe {
        let config = start::Config::new()
            .anchored(Anchored::Yes)
            .look_behind(behind);
        let Ok(mut sid) = self.dfa.start_state(cache, &config) else {
            return Probe::Dead;
        };
        let mut last = None;
        for (offset, &byte) in text[at..].iter().enumerate() {
            sid = match self.dfa.next_state(cache, sid, byte) {
                Ok(sid) => sid,
                Err(_) => return Probe::Dead,
            };
            if sid.is_match() {
                // Matches are reported one byte late: this one ended before `byte`.
                last = Some(at + offset);
            }
            if sid.is_dead() || sid.is_quit() {
                return last.map_or(Probe::Dead, Probe::Match);
            }
        }
        let at_end = self.ends_here(cache, sid);
        if eos {
            return if at_end {
                Probe::Match(text.len())
            } else {
                last.map_or(Probe::Dead, Probe::Match)
            };
        }
        if !self.can_continue(cache, sid) {
            // Matches are reported a byte late, so the text can end just after a match that nothing
            // can extend.
            return if at_end {
                Probe::Match(text.len())
            } else {
                last.map_or(Probe::Dead, Probe::Match)
            };
        }
        // More text could still extend the match, or start one that wins over it, unless the anchor is
        // a literal that is complete and that no other literal of its list extends.
        if at_end && self.final_when_complete {
            Probe::Match(text.len())
        } else {
            Probe::Pending
        }
    }

    /// Whether some next byte keeps the DFA alive from `sid`.
    fn can_continue(&self, cache: &mut Cache, sid: LazyStateID) -> bool {
        self.dfa
            .byte_classes()
            .representatives(0..=255)
            .any(|unit| {
                unit.as_u8().is_some_and(|byte| {
                    self.dfa
                        .next_state(cache, sid, byte)
                        .map_or(true, |next| !next.is_dead() && !next.is_quit())
                })
            })
    }

    fn ends_here(&self, cache: &mut Cache, sid: LazyStateID) -> bool {
        self.dfa
            .next_eoi_state(cache, sid)
            .is_ok_and(|s| s.is_match())
    }

    /// The named groups of the match at `start..end` of `text`.
    fn captures(&self, text: &str, start: usize, end: usize) -> Vec<(String, Value)> {
        if !self.has_names {
            return Vec::new();
        }
        let Some(caps) = self.regex.captures_at(&text[..end], start) else {
            return Vec::new();
        };
        self.regex
            .capture_names()
            .flatten()
            .filter_map(|name| Some((name.to_string(), Value::from(caps.name(name)?.as_str()))))
            .collect()
    }
}

impl ResponseTemplate {
    /// Compiles a `response_template` (the JSON object a tokenizer config carries under that key).
    ///
    /// Errors name the field and say what is wrong: unknown keys, a missing `start_anchor`, more than
    /// one field without `open`, named groups without a `transform`, patterns the regex crate cannot
    /// run (look-around, backreferences), unknown content parsers.
    pub fn new(spec: &serde_json::Value) -> Result<ResponseTemplate, Error> {
        Self::build(spec, &Value::from_serde(spec))
    }

    /// Compiles a `response_template` from its JSON text, keeping the key order of `defaults` and of
    /// every `transform` (so messages come out with keys in the order the template writes them, as in
    /// Python). Prefer this over [`new`](Self::new) when you have the text.
    pub fn from_json(text: &str) -> Result<ResponseTemplate, Error> {
        let spec: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| invalid(format!("response_template is not JSON: {e}")))?;
        let ordered = Value::from_json(text)
            .map_err(|e| invalid(format!("response_template is not JSON: {e}")))?;
        Self::build(&spec, &ordered)
    }

    pub(crate) fn build(
        spec: &serde_json::Value,
        ordered: &Value,
    ) -> Result<ResponseTemplate, Error> {
        let serde_json::Value::Object(map) = spec else {
            return Err(invalid("response_template must be a JSON object"));
        };
        match map.get("version") {
            None => {}
            Some(v) if v.as_i64() == Some(1) => {}
            Some(v) => {
                return Err(invalid(format!(
                    "unsupported response_template version {v}"
                )));
            }
        }
        let known = [
            "version",
            "defaults",
            "fields",
            "start_anchor",
            "start_anchor_pattern",
        ];
        if let Some(unknown) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(invalid(format!(
                "unknown key '{unknown}' in response_template"
            )));
        }
        let defaults = match (map.get("defaults"), ordered.get("defaults")) {
            (None, _) => Value::Object(Vec::new()),
            (Some(serde_json::Value::Object(_)), Some(d)) => d.clone(),
            _ => return Err(invalid("response_template.defaults must be an object")),
        };
        let ordered_fields = ordered.get("fields");
        let fields_spec = match map.get("fields") {
            Some(serde_json::Value::Object(f)) if !f.is_empty() => f,
            _ => {
                return Err(invalid(
                    "response_template.fields must be a non-empty object",
                ));
            }
        };
        let fields = fields_spec
            .iter()
            .map(|(name, spec)| {
                let transform = ordered_fields
                    .and_then(|f| f.get(name))
                    .and_then(|f| f.get("transform"));
                Field::new(name, spec, transform)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let implicit: Vec<usize> = (0..fields.len())
            .filter(|&i| fields[i].open.is_none())
            .collect();
        if implicit.len() > 1 {
            let names: Vec<&str> = implicit.iter().map(|&i| fields[i].name.as_str()).collect();
            return Err(invalid(format!(
                "at most one field may omit 'open'/'open_pattern' (it receives the text outside the \
                 other regions); found: {}",
                names.join(", ")
            )));
        }
        let start_anchor = Anchor::new(
            "response_template",
            spec,
            "start_anchor",
            "start_anchor_pattern",
        )?
        .ok_or_else(|| {
            invalid("response_template must define 'start_anchor' or 'start_anchor_pattern'")
        })?
        .regex;
        Ok(ResponseTemplate {
            inner: Arc::new({
                let implicit = implicit.first().copied();
                let mut outside: Vec<(usize, bool)> = (0..fields.len())
                    .filter(|&i| fields[i].open.is_some())
                    .map(|i| (i, true))
                    .collect();
                if let Some(i) = implicit
                    && fields[i].close.is_some()
                {
                    outside.push((i, false));
                }
                let inside = (0..fields.len())
                    .map(|i| {
                        let close = if fields[i].close.is_some() {
                            vec![(i, false)]
                        } else {
                            Vec::new()
                        };
                        Watch::new(&fields, close)
                    })
                    .collect();
                Spec {
                    outside: Watch::new(&fields, outside),
                    inside,
                    defaults,
                    fields,
                    implicit,
                    start_anchor,
                }
            }),
        })
    }

    /// The field names, in the template's order.
    pub fn field_names(&self) -> impl Iterator<Item = &str> {
        self.inner.fields.iter().map(|f| f.name.as_str())
    }

    /// Parses a whole output as transformers' `parse_response(text, prefix=prompt)` does, returning the
    /// message object (keys in the order transformers builds them). `tools` (OpenAI tool JSON) types
    /// string arguments of tool calls by their schema. Errors where transformers raises: a region whose
    /// content does not parse, a required field missing.
    pub fn parse_response(
        &self,
        output: &str,
        prompt: &str,
        tools: Option<&parser_core::Tools>,
    ) -> Result<Value, super::ParseFailure> {
        let mut stream = self.message_stream(prompt, tools);
        stream.push(output);
        stream.finish()
    }

    /// Builds the message object of [`parse_response`](Self::parse_response) from text given piece by
    /// piece; the result does not depend on how the text is cut.
    pub fn message_stream<'t>(
        &self,
        prompt: &str,
        tools: Option<&'t parser_core::Tools>,
    ) -> MessageStream<'t> {
        let mut builder = super::message::MessageBuilder::new(&self.inner, tools);
        let mut scanner = RegionScanner::new(&self.inner, true);
        scanner.prime(prompt, &mut builder);
        MessageStream { scanner, builder }
    }
}

impl Field {
    fn new(
        name: &str,
        spec: &serde_json::Value,
        ordered_transform: Option<&Value>,
    ) -> Result<Field, Error> {
        let scope = format!("field '{name}'");
        let serde_json::Value::Object(map) = spec else {
            return Err(invalid(format!("{scope} must be an object")));
        };
        let known = [
            "open",
            "open_pattern",
            "close",
            "close_pattern",
            "content",
            "content_args",
            "repeats",
            "join",
            "optional",
            "transform",
            "transform_each",
        ];
        if let Some(unknown) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(invalid(format!("{scope}: unknown key '{unknown}'")));
        }
        let content_name = match map.get("content") {
            None => "text",
            Some(serde_json::Value::String(s)) => s.as_str(),
            Some(_) => return Err(invalid(format!("{scope}: 'content' must be a string"))),
        };
        let content = Content::new(&scope, content_name, map.get("content_args"))?;
        let open = Anchor::new(&scope, spec, "open", "open_pattern")?;
        let close = Anchor::new(&scope, spec, "close", "close_pattern")?;
        let flag = |key: &str, default: bool| match map.get(key) {
            None => Ok(default),
            Some(serde_json::Value::Bool(b)) => Ok(*b),
            Some(_) => Err(invalid(format!("{scope}: '{key}' must be a bool"))),
        };
        let repeats = flag("repeats", false)?;
        let join = match map.get("join") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(invalid(format!("{scope}: 'join' must be a string"))),
        };
        if join.is_some() && !repeats {
            return Err(invalid(format!("{scope}: 'join' requires 'repeats': true")));
        }
        let transform_each = flag("transform_each", false)?;
        let transform = map.get("transform");
        match transform {
            Some(t) => validate_transform(&scope, t)?,
            None if transform_each => {
                return Err(invalid(format!(
                    "{scope}: 'transform_each' is set but there is no 'transform'"
                )));
            }
            None if open.iter().chain(close.iter()).any(|a| a.has_names) => {
                return Err(invalid(format!(
                    "{scope}: the open/close pattern has named groups but the field has no 'transform'; \
                     named captures only reach the message through a transform"
                )));
            }
            None => {}
        }
        Ok(Field {
            name: name.to_string(),
            open,
            close,
            content,
            repeats,
            join,
            optional: flag("optional", true)?,
            transform: transform.map(|t| {
                ordered_transform
                    .cloned()
                    .unwrap_or_else(|| Value::from_serde(t))
            }),
            transform_each,
        })
    }
}

/// The message object of a response, built as its text arrives (see
/// [`ResponseTemplate::message_stream`]).
pub struct MessageStream<'t> {
    scanner: RegionScanner,
    builder: super::message::MessageBuilder<'t>,
}

impl MessageStream<'_> {
    /// Feeds the next piece of output.
    pub fn push(&mut self, text: &str) {
        self.scanner.push(text, &mut self.builder);
    }

    /// Ends the output and returns the message, or why transformers would fail to parse it.
    pub fn finish(mut self) -> Result<Value, super::ParseFailure> {
        self.scanner.finish(&mut self.builder);
        self.builder.finish()
    }
}

/// Receives the regions a [`RegionScanner`] finds.
pub(crate) trait Regions {
    /// Region `field` received its first text (implicit region) or its open anchor (explicit one).
    fn open(&mut self, field: usize);
    /// Text of the open region.
    fn chunk(&mut self, field: usize, text: &str);
    /// The region ended. `body` is its whole text when the scanner keeps it (structured content, or
    /// every region when built to keep text); `open`/`close` are the anchors' matched text.
    fn close(&mut self, field: usize, region: ClosedRegion<'_>);
}

/// A region that has just ended.
pub(crate) struct ClosedRegion<'a> {
    pub(crate) body: &'a str,
    pub(crate) captures: &'a [(String, Value)],
    pub(crate) open: &'a str,
    pub(crate) close: &'a str,
}

/// Finds the regions of a response as text arrives.
pub(crate) struct RegionScanner {
    spec: Arc<Spec>,
    /// Dfa caches, one per anchor: (field, is_open).
    caches: Vec<(Option<Cache>, Option<Cache>)>,
    /// Text not yet given to a region.
    pending: String,
    /// The byte before `pending`, for look-behind assertions; `None` at the start of the text.
    behind: Option<u8>,
    current: Option<usize>,
    opened: bool,
    body: String,
    keep_text: bool,
    /// The most text a structured region (a call) keeps before it is closed; see
    /// [`RegionScanner::with_buffer_limit`].
    buffer_limit: usize,
    captures: Vec<(String, Value)>,
    open_text: String,
}

enum Scan {
    /// Anchor `field`'s open (or close) matched at `start..end`.
    Commit {
        field: usize,
        open: bool,
        start: usize,
        end: usize,
    },
    /// Text from here on may be an anchor.
    Hold(usize),
    /// No anchor in the pending text.
    Nothing,
}

impl RegionScanner {
    /// A scanner at the start of the assistant message. With `keep_text`, text regions keep their
    /// body for [`Regions::close`] (needed for the message object; a streaming parser streams them).
    pub(crate) fn new(spec: &Arc<Spec>, keep_text: bool) -> RegionScanner {
        RegionScanner {
            caches: spec
                .fields
                .iter()
                .map(|f| {
                    (
                        f.open.as_ref().map(|a| a.dfa.create_cache()),
                        f.close.as_ref().map(|a| a.dfa.create_cache()),
                    )
                })
                .collect(),
            spec: Arc::clone(spec),
            pending: String::new(),
            behind: None,
            current: spec.implicit,
            opened: false,
            body: String::new(),
            keep_text,
            buffer_limit: usize::MAX,
            captures: Vec::new(),
            open_text: String::new(),
        }
    }

    /// Bounds the text a structured region keeps ([`parser_core::Limits::call_buffer`]). A region that
    /// reaches the limit is closed there, as if its close anchor stood at that byte (its body is what
    /// it kept, which usually does not parse: content, or a call flagged not valid), and the text after
    /// is scanned as text outside every region. Decided at the same byte for every chunking.
    pub(crate) fn with_buffer_limit(mut self, bytes: usize) -> Self {
        self.buffer_limit = bytes;
        self
    }

    /// Feeds the part of the prompt after the last start anchor, as transformers does with `prefix`:
    /// a prefilled `<think>` opens the reasoning region.
    pub(crate) fn prime(&mut self, prompt: &str, out: &mut dyn Regions) {
        let prefix = self.spec.assistant_prefix(prompt);
        self.push(prefix, out);
    }

    /// The field whose region is open, if any.
    pub(crate) fn current(&self) -> Option<usize> {
        self.current
    }

    /// Whether the current region has opened (an explicit one at its anchor, the implicit one at its
    /// first text).
    pub(crate) fn is_opened(&self) -> bool {
        self.opened
    }

    /// Starts inside `field`'s region, as if its open anchor had been seen (the caller knows the prompt
    /// opened it).
    pub(crate) fn open_field(&mut self, field: usize) {
        self.current = Some(field);
        self.opened = true;
    }

    pub(crate) fn push(&mut self, text: &str, out: &mut dyn Regions) {
        self.pending.push_str(text);
        self.process(out, false);
    }

    pub(crate) fn finish(&mut self, out: &mut dyn Regions) {
        self.process(out, true);
    }

    fn process(&mut self, out: &mut dyn Regions, eos: bool) {
        let mut zero_width_commits = 0;
        loop {
            match self.scan(eos) {
                Scan::Commit {
                    field,
                    open,
                    start,
                    end,
                } => {
                    if start == end {
                        // A zero-width anchor can fire again at the same place; twice is enough to
                        // move from one region to the next.
                        zero_width_commits += 1;
                        if zero_width_commits > 2 {
                            self.release(self.pending.len(), out);
                            if eos {
                                self.close_current(out, "");
                            }
                            return;
                        }
                    }
                    if self.release(start, out) {
                        continue;
                    }
                    let anchor_text = self.pending[..end - start].to_string();
                    if open {
                        self.close_current(out, "");
                        let anchor = self.spec.fields[field].open.as_ref();
                        self.captures = anchor
                            .map(|a| a.captures(&self.pending, 0, end - start))
                            .unwrap_or_default();
                        self.consume(end - start);
                        self.current = Some(field);
                        self.opened = true;
                        self.open_text = anchor_text;
                        self.body.clear();
                        out.open(field);
                    } else {
                        self.consume(end - start);
                        let had_content = self.opened;
                        self.close_current(out, &anchor_text);
                        if !had_content && start == end {
                            return;
                        }
                    }
                }
                Scan::Hold(at) => {
                    if self.release(at, out) {
                        continue;
                    }
                    return;
                }
                Scan::Nothing => {
                    if self.release(self.pending.len(), out) {
                        continue;
                    }
                    if eos {
                        self.close_current(out, "");
                    }
                    return;
                }
            }
        }
    }

    /// Gives the first `len` pending bytes to the current region. Returns true when a structured
    /// region reached the buffer limit and was closed before taking them all: the rest is still
    /// pending and must be scanned again, now from outside the region.
    fn release(&mut self, len: usize, out: &mut dyn Regions) -> bool {
        if len == 0 {
            return false;
        }
        let mut take = len;
        let mut over_limit = false;
        if let Some(field) = self.current {
            if !self.opened {
                self.opened = true;
                out.open(field);
            }
            let structured = !self.spec.fields[field].content.is_streamable_text();
            if structured && self.body.len() + len > self.buffer_limit {
                take = parser_core::fit_within(
                    &self.pending[..len],
                    self.body.len(),
                    self.buffer_limit,
                );
                if take == 0 && self.body.is_empty() {
                    // A limit below one character: take one, so that the scan moves on.
                    take = self.pending[..len]
                        .chars()
                        .next()
                        .map_or(len, char::len_utf8);
                }
                over_limit = true;
            }
            let text = &self.pending[..take];
            if self.keep_text || structured {
                self.body.push_str(text);
            }
            if !text.is_empty() {
                out.chunk(field, text);
            }
        }
        // Without an implicit field, text outside every region is discarded, as transformers does:
        // the template's author declared it framing.
        self.consume(take);
        if over_limit {
            tracing::debug!("response region over the buffer limit: closed there");
            self.close_current(out, "");
        }
        over_limit
    }

    fn consume(&mut self, len: usize) {
        if len > 0 {
            self.behind = self.pending.as_bytes().get(len - 1).copied();
            self.pending.drain(..len);
        }
    }

    fn close_current(&mut self, out: &mut dyn Regions, close_text: &str) {
        if let Some(field) = self.current
            && self.opened
        {
            out.close(
                field,
                ClosedRegion {
                    body: &self.body,
                    captures: &self.captures,
                    open: &self.open_text,
                    close: close_text,
                },
            );
        }
        self.current = self.spec.implicit;
        self.opened = false;
        self.body.clear();
        self.captures.clear();
        self.open_text.clear();
    }

    /// The anchors to look for now: the open region's close, or every open plus the implicit close.
    fn watched(spec: &Spec, current: Option<usize>) -> &Watch {
        match current {
            Some(field) if Some(field) != spec.implicit => &spec.inside[field],
            _ => &spec.outside,
        }
    }

    fn scan(&mut self, eos: bool) -> Scan {
        let spec = Arc::clone(&self.spec);
        let watch = Self::watched(&spec, self.current);
        if watch.anchors.is_empty() {
            return Scan::Nothing;
        }
        let bytes = self.pending.as_bytes();
        let limit = if eos && watch.any_empty {
            bytes.len() + 1
        } else {
            bytes.len()
        };
        let mut from = 0;
        loop {
            let at = watch.next_candidate(bytes, from);
            if at >= limit {
                break;
            }
            from = at + 1;
            let byte = bytes.get(at).copied();
            if !self.pending.is_char_boundary(at) {
                continue;
            }
            let behind = if at == 0 {
                self.behind
            } else {
                Some(bytes[at - 1])
            };
            let mut pending = false;
            // The longest match wins; then opens before closes; then the field name (as transformers
            // breaks ties).
            let mut best: Option<(usize, bool, usize)> = None;
            for &(field, open) in &watch.anchors {
                let anchor = match (open, &spec.fields[field]) {
                    (true, f) => f.open.as_ref(),
                    (false, f) => f.close.as_ref(),
                };
                let Some(anchor) = anchor else { continue };
                if !anchor.may_start(byte) {
                    continue;
                }
                let caches = &mut self.caches[field];
                let Some(cache) = (if open {
                    caches.0.as_mut()
                } else {
                    caches.1.as_mut()
                }) else {
                    continue;
                };
                match anchor.probe(cache, bytes, at, behind, eos) {
                    Probe::Dead => {}
                    Probe::Pending => pending = true,
                    Probe::Match(end) => {
                        let better = match best {
                            None => true,
                            Some((b_field, b_open, b_end)) => {
                                (end, open, std::cmp::Reverse(&spec.fields[field].name))
                                    > (b_end, b_open, std::cmp::Reverse(&spec.fields[b_field].name))
                            }
                        };
                        if better {
                            best = Some((field, open, end));
                        }
                    }
                }
            }
            if pending {
                return Scan::Hold(at);
            }
            if let Some((field, open, end)) = best {
                return Scan::Commit {
                    field,
                    open,
                    start: at,
                    end,
                };
            }
        }
        Scan::Nothing
    }
}
