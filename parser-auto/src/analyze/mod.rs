//! The differential analyzer: renders a chat template with varied inputs, diffs the renders, and finds
//! the template's markers in four phases: **R**easoning (does the template render a reasoning field, and
//! between which markers; does the generation prompt open it; does a thinking switch change it),
//! **C**ontent (is the answer wrapped in markers of its own), **T**ools (how a call is written: JSON
//! with which field names, tags around a JSON object, tagged arguments, or Python-style calls; the
//! section and per-call markers; where a call id goes) and **A**ssembly (the markers collected into an
//! [`Analysis`] that `generic/` turns into a parser).
//!
//! Every probe renders two conversations that differ in one thing (a reasoning field, a tool call, the
//! function name, an argument value, a call id) and looks at what changed. Needles are distinctive
//! strings (`FFF_FIRST_FUN_F`, `XXXX`) so that finding them in a render is unambiguous. The heuristics
//! are JSON detection (a call whose function name sits inside a JSON value is JSON-native), Python
//! detection (a call written `[NAME(ARG=literal, …)]` whose arguments convert is PYTHONIC), and
//! punctuation openers (a run of punctuation starting a line right before the name, functionary's
//! `>>>`, opens each call; content written after the same opener and a fixed word, `>>>all`, is
//! content with that start marker).
//!
//! The design is llama.cpp's differential analyzer (`common/chat-diff-analyzer.cpp`, with the helpers
//! in `common/chat-auto-parser-helpers.cpp`; this project started from a description of it): the same
//! probe-and-diff phases, the same kind of needles, and a list of workarounds applied after the
//! analysis. Where it differs:
//!
//! - **Three reasoning modes.** llama.cpp classifies NONE, TAG_BASED, DELIMITER, FORCED_OPEN,
//!   FORCED_CLOSED and TOOLS_ONLY; here [`ReasoningMode`] is only `None`, `TagBased` (a delimiter
//!   style such as Apriel's `[BEGIN FINAL RESPONSE]` is tag-based with an empty start) and `ToolsOnly`.
//!   Whether the output starts inside reasoning (llama.cpp's forced modes) is not a mode of the
//!   template but a property of each prompt: the analysis keeps the generation prompt
//!   ([`Analysis::generation_prompt`], and the one with thinking off), and the parser reads its tail
//!   from the reasoning start marker on as the beginning of the output, so `enable_thinking` and a
//!   prompt that the server rendered decide it per request.
//! - **Markers need not be ASCII-bracketed.** Besides `<…>` and `[…]`, `◁…▷` is a marker bracket
//!   (Kimi-VL's `◁think▷`), and free text is compared by character, not byte (see [`diff`]).
//! - **Python-style calls and punctuation openers** (the heuristics above) are found besides
//!   llama.cpp's three tool formats (JSON_NATIVE, TAG_WITH_JSON, TAG_WITH_TAGGED).

pub mod diff;

use serde_json::{Value, json};

pub use parser_generic::spec::{
    Analysis, CallIdPosition, Capabilities, ContentMode, JsonFields, Markers, ReasoningMode,
    ToolFormat,
};

use crate::template::{ChatTemplate, RenderInput};
use diff::{SegmentKind, calculate_diff_split, segmentize_markers};

/// Needles: values that cannot be confused with template text.
const FUN_FIRST: &str = "FFF_FIRST_FUN_F";
const FUN_SECOND: &str = "SSS_SECOND_FUN_S";
const ARG_FIRST: &str = "AA_ARG_FST_AA";
const ARG_SECOND: &str = "BB_ARG_SND_BB";
const USER_MSG: &str = "U_USER_MSG Hello END_U";
const ASSISTANT_MSG: &str = "A_ASST_MSG I can help END_A";
const THINKING: &str = "REASON_PART I am thinking END_R";
const SYSTEM_MSG: &str = "S_SYSTEM_MSG Be brief END_S";
const TOOL_RESULT: &str = "T_TOOL_RESULT sunny END_T";
const VALUE_FIRST: &str = "XXXX";
const VALUE_SECOND: &str = "YYYY";
const ID_FIRST: &str = "call00001";
const ID_SECOND: &str = "call00002";
const ID_ALT: &str = "call99999";

/// How many renders' worth of [`TemplateLimits::fuel`](crate::template::TemplateLimits::fuel) one
/// analysis may spend in all. An analysis makes some 60 small renders; the 47 reference templates spend
/// at most a few hundred thousand instructions on a whole analysis (see `tests/template_budget.rs`).
pub const ANALYSIS_FUEL_RENDERS: u64 = 2;

/// Analyses a chat template. Never fails: what cannot be determined is left empty and noted.
///
/// The analysis is bounded as a whole: its renders share a fuel budget of [`ANALYSIS_FUEL_RENDERS`]
/// times the template's per-render fuel, and each runs under the template's limits. A template that runs
/// into a limit is treated as one that cannot be analysed: the result is empty (parsing falls back to
/// plain content), with a note and a `tracing` warning saying which limit.
pub fn analyze(template: &ChatTemplate) -> Analysis {
    analyze_measured(template).0
}

/// [`analyze`], also returning the fuel (template instructions) the analysis spent in all: for sizing
/// [`TemplateLimits`](crate::template::TemplateLimits) to a deployment's templates.
pub fn analyze_measured(template: &ChatTemplate) -> (Analysis, u64) {
    let budget = template.limits().fuel.saturating_mul(ANALYSIS_FUEL_RENDERS);
    let budgeted = template.with_shared_fuel(budget);
    let probe = Probe {
        template: &budgeted,
        limit_hit: std::cell::RefCell::new(None),
    };
    let analysis = probe.analysis();
    let spent = budget.saturating_sub(budgeted.shared_fuel_left().unwrap_or(budget));
    if let Some(err) = probe.limit_hit.take() {
        tracing::warn!(
            template = template.name(),
            %err,
            "the chat template ran into a render limit while being analysed: it is not analysed"
        );
        let mut empty = Analysis::default();
        empty.notes.push(format!(
            "analysis stopped, the template ran into a render limit: {err}"
        ));
        empty.stopped_by_limit = Some(err.to_string());
        return (empty, spent);
    }
    (analysis, spent)
}

impl Probe<'_> {
    fn analysis(&self) -> Analysis {
        let probe = self;
        let mut analysis = Analysis::default();
        probe.capabilities(&mut analysis);
        probe.generation_prompts(&mut analysis);
        probe.reasoning(&mut analysis);
        probe.content(&mut analysis);
        probe.end_of_turn(&mut analysis);
        if analysis.capabilities.tool_calls {
            probe.tools(&mut analysis);
        }
        workarounds(self.template.source(), &mut analysis);
        collect_preserved_tokens(&mut analysis);
        analysis
    }
}

struct Probe<'t> {
    template: &'t ChatTemplate,
    /// The first render that ran into a limit: the analysis stops there.
    limit_hit: std::cell::RefCell<Option<parser_core::Error>>,
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant(content: &str) -> Value {
    json!({"role": "assistant", "content": content})
}

fn tools_json() -> Vec<Value> {
    let params = json!({
        "type": "object",
        "properties": {
            ARG_FIRST: {"type": "string", "description": "first"},
            ARG_SECOND: {"type": "string", "description": "second"},
        },
        "required": [],
    });
    vec![
        json!({"type": "function", "function": {"name": FUN_FIRST, "description": "Test function foo", "parameters": params}}),
        json!({"type": "function", "function": {"name": FUN_SECOND, "description": "Test function bar", "parameters": params}}),
    ]
}

fn call(name: &str, args: Value, id: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
}

fn args_two() -> Value {
    json!({ARG_FIRST: VALUE_FIRST, ARG_SECOND: VALUE_SECOND})
}

fn assistant_calls(calls: Vec<Value>) -> Value {
    json!({"role": "assistant", "content": "", "tool_calls": calls})
}

impl Probe<'_> {
    fn render(
        &self,
        messages: Vec<Value>,
        tools: bool,
        generation: bool,
        thinking: Option<bool>,
    ) -> Option<String> {
        let mut extra = serde_json::Map::new();
        // Some templates read the tools as a JSON string (`functions`) and a date (`datetime`).
        if tools {
            extra.insert(
                "functions".into(),
                Value::String(Value::Array(tools_json()).to_string()),
            );
        }
        extra.insert("datetime".into(), json!("Jan 01 2026"));
        let input = RenderInput {
            messages,
            tools: tools.then(tools_json),
            add_generation_prompt: generation,
            enable_thinking: thinking,
            extra,
        };
        if self.limit_hit.borrow().is_some() {
            return None;
        }
        match self.template.render(&input) {
            Ok(text) => Some(text),
            Err(err) => {
                if matches!(err.kind(), parser_core::ErrorKind::LimitExceeded { .. }) {
                    self.limit_hit.borrow_mut().get_or_insert(err);
                }
                None
            }
        }
    }

    /// A conversation rendered with tools, no generation prompt, thinking on.
    fn conversation(&self, last: Value) -> Option<String> {
        self.render(vec![user(USER_MSG), last], true, false, Some(true))
    }

    fn capabilities(&self, analysis: &mut Analysis) {
        let source = self.template.source();
        let caps = &mut analysis.capabilities;
        let plain = self.render(vec![user(USER_MSG)], false, true, None);
        let with_tools = self.render(vec![user(USER_MSG)], true, true, None);
        caps.tools =
            matches!((&plain, &with_tools), (Some(a), Some(b)) if a != b && b.contains(FUN_FIRST));
        let one = self.call_conversation(vec![call(FUN_FIRST, args_two(), ID_FIRST)]);
        caps.tool_calls = one
            .as_deref()
            .is_some_and(|r| r.contains(FUN_FIRST) && r.contains(ARG_FIRST))
            || one
                .as_deref()
                .is_some_and(|r| r.contains(FUN_FIRST) && r.contains(VALUE_FIRST));
        let two = self.call_conversation(vec![
            call(FUN_FIRST, args_two(), ID_FIRST),
            call(FUN_SECOND, args_two(), ID_SECOND),
        ]);
        caps.parallel_calls = two
            .as_deref()
            .is_some_and(|r| r.contains(FUN_FIRST) && r.contains(FUN_SECOND));
        let tool_result = self.render(
            vec![
                user(USER_MSG),
                assistant_calls(vec![call(FUN_FIRST, args_two(), ID_FIRST)]),
                json!({"role": "tool", "tool_call_id": ID_FIRST, "name": FUN_FIRST, "content": TOOL_RESULT}),
            ],
            true,
            true,
            None,
        );
        caps.tool_responses = tool_result
            .as_deref()
            .is_some_and(|r| r.contains(TOOL_RESULT));
        let system = self.render(
            vec![
                json!({"role": "system", "content": SYSTEM_MSG}),
                user(USER_MSG),
            ],
            false,
            true,
            None,
        );
        caps.system_role = system.as_deref().is_some_and(|r| r.contains(SYSTEM_MSG));
        caps.string_arguments = self.template.arguments_as_string();
        caps.channels = source.contains("<|channel|>");
        caps.thinking_variable = if source.contains("enable_thinking") {
            Some("enable_thinking".into())
        } else if [
            "if thinking",
            "thinking is",
            "thinking ==",
            "set thinking",
            "not thinking",
        ]
        .iter()
        .any(|p| source.contains(p))
        {
            Some("thinking".into())
        } else {
            None
        };
        if caps.thinking_variable.is_some() {
            let default = self.render(vec![user(USER_MSG)], false, true, None);
            let on = self.render(vec![user(USER_MSG)], false, true, Some(true));
            let off = self.render(vec![user(USER_MSG)], false, true, Some(false));
            caps.thinking_default = match (default, on, off) {
                (Some(d), Some(on), Some(off)) if on != off => Some(d == on),
                _ => None,
            };
        }
    }

    /// What the prompt ends with after the user's message when `add_generation_prompt` is given, with
    /// thinking on and off: the end of the user's turn (the turn header is often in it, Mistral's
    /// `[/INST]`) and what `add_generation_prompt` adds. When the template does not render the message
    /// text as given, only what `add_generation_prompt` adds (the difference between the renders with and
    /// without it).
    fn generation_prompts(&self, analysis: &mut Analysis) {
        let tail = |thinking: bool| -> Option<String> {
            let base = self.render(vec![user(USER_MSG)], false, false, Some(thinking));
            let with = self.render(vec![user(USER_MSG)], false, true, Some(thinking))?;
            let common = base
                .as_deref()
                .map_or(with.len(), |base| common_prefix_len(base, &with));
            let from = with
                .rfind(USER_MSG)
                .map(|at| at + USER_MSG.len())
                .filter(|&end| end <= common)
                .unwrap_or(common);
            Some(with[from..].to_owned())
        };
        analysis.generation_prompt = tail(true).unwrap_or_default();
        if analysis.capabilities.thinking_variable.is_some() {
            analysis.generation_prompt_no_thinking =
                tail(false).filter(|off| *off != analysis.generation_prompt);
        }
    }

    fn reasoning(&self, analysis: &mut Analysis) {
        // R1: an assistant message with and without reasoning.
        let without = self.conversation(assistant(ASSISTANT_MSG));
        let with = self.conversation(with_reasoning(assistant(ASSISTANT_MSG)));
        if let (Some(a), Some(b)) = (&without, &with)
            && let Some((start, end)) = markers_around(a, b, THINKING, &analysis.generation_prompt)
        {
            analysis.reasoning = ReasoningMode::TagBased;
            analysis.markers.reasoning_start = start;
            analysis.markers.reasoning_end = end;
            return;
        }
        // R2: the generation prompt opens reasoning when thinking is on (forced open), or renders an
        // empty block when it is off.
        let on = self.render(vec![user(USER_MSG)], false, true, Some(true));
        let off = self.render(vec![user(USER_MSG)], false, true, Some(false));
        if let (Some(on), Some(off)) = (&on, &off)
            && on != off
        {
            let split = calculate_diff_split(off, on);
            let opened = last_marker(split.right.trim());
            let closed = segmentize_markers(&split.left)
                .into_iter()
                .filter(|s| s.kind == SegmentKind::Marker)
                .map(|s| s.value)
                .collect::<Vec<_>>();
            if let Some(start) = opened.filter(|m| !m.starts_with("</")) {
                analysis.reasoning = ReasoningMode::TagBased;
                analysis.markers.reasoning_end = closed
                    .iter()
                    .find(|m| **m != start)
                    .cloned()
                    .unwrap_or_else(|| closing_of(&start));
                analysis.markers.reasoning_start = start;
                return;
            }
            if closed.len() >= 2 {
                analysis.reasoning = ReasoningMode::TagBased;
                analysis.markers.reasoning_start = closed[0].clone();
                analysis.markers.reasoning_end = closed[closed.len() - 1].clone();
                return;
            }
        }
        // R3: reasoning rendered only next to tool calls.
        if analysis.capabilities.tool_calls {
            let plain = self.call_conversation(vec![call(FUN_FIRST, args_two(), ID_FIRST)]);
            let message = assistant_calls(vec![call(FUN_FIRST, args_two(), ID_FIRST)]);
            let reasoned = self.conversation(with_reasoning(message));
            if let (Some(a), Some(b)) = (&plain, &reasoned)
                && let Some((start, end)) =
                    markers_around(a, b, THINKING, &analysis.generation_prompt)
            {
                analysis.reasoning = ReasoningMode::ToolsOnly;
                analysis.markers.reasoning_start = start;
                analysis.markers.reasoning_end = end;
            }
        }
    }

    fn content(&self, analysis: &mut Analysis) {
        // C1: content against a tool call in its place: what only the content version has is the
        // content and its wrappers.
        let Some(text) = self.conversation(assistant(ASSISTANT_MSG)) else {
            return;
        };
        let other = if analysis.capabilities.tool_calls {
            self.call_conversation(vec![call(FUN_FIRST, args_two(), ID_FIRST)])
        } else {
            self.conversation(assistant(""))
        };
        let Some(other) = other else { return };
        let split = calculate_diff_split(&other, &text);
        let own = split.right.trim();
        let Some(at) = own.find(ASSISTANT_MSG) else {
            return;
        };
        let before = own[..at].trim_end();
        let after = own[at + ASSISTANT_MSG.len()..].trim_start();
        if let (Some(start), Some(end)) = (last_marker(before), first_marker(after))
            && start != analysis.markers.reasoning_end
            && !analysis.generation_prompt.contains(start.as_str())
        {
            analysis.content = ContentMode::AlwaysWrapped;
            analysis.markers.content_start = start;
            analysis.markers.content_end = end;
        }
    }

    /// A conversation ending in an assistant message with these calls. Some templates render calls only
    /// with `content: null`, others fail on it: both are tried.
    fn call_conversation(&self, calls: Vec<Value>) -> Option<String> {
        let first = calls
            .first()
            .and_then(|c| c["function"]["name"].as_str())
            .unwrap_or(FUN_FIRST)
            .to_owned();
        let with_empty = self.conversation(assistant_calls(calls.clone()));
        if with_empty.as_deref().is_some_and(|r| r.contains(&first)) {
            return with_empty;
        }
        let mut message = assistant_calls(calls);
        message["content"] = Value::Null;
        self.conversation(message)
            .filter(|r| r.contains(&first))
            .or(with_empty)
    }

    fn tools(&self, analysis: &mut Analysis) {
        let Some(base) = self.conversation(assistant(ASSISTANT_MSG)) else {
            return;
        };
        let Some(one) = self.call_conversation(vec![call(FUN_FIRST, args_two(), ID_FIRST)]) else {
            return;
        };
        let split = calculate_diff_split(&base, &one);
        let mut haystack = split.right.clone();
        // Reasoning rendered with the call is not part of it.
        for marker in [
            &analysis.markers.reasoning_start,
            &analysis.markers.reasoning_end,
        ] {
            if !marker.is_empty() {
                haystack = haystack.replace(marker.as_str(), "");
            }
        }
        // The diff may start inside the call; extend it to the end of the suffix part that still
        // belongs to the call (closers), bounded by the end-of-turn marker.
        let Some(mut name_at) = haystack.find(FUN_FIRST) else {
            analysis
                .notes
                .push("function name not found in the rendered call".into());
            return;
        };
        // A call opener the diff left in the common prefix, because the content is written after the
        // same opener (functionary's `>>>NAME` and `>>>all`): a run of punctuation starting a line.
        let lead = punctuation_opener(&split.prefix);
        if !lead.is_empty() && haystack[..name_at].trim().is_empty() {
            haystack.insert_str(0, lead);
            name_at += lead.len();
        }
        let call_text = format!(
            "{}{}",
            haystack,
            call_tail(&split.suffix, &analysis.end_of_turn)
        );
        let two = self.call_conversation(vec![
            call(FUN_FIRST, args_two(), ID_FIRST),
            call(FUN_SECOND, args_two(), ID_SECOND),
        ]);
        if let Some((from, to)) = pythonic_list(&call_text, name_at) {
            analysis.tools = ToolFormat::Pythonic;
            analysis.markers.tool_section_start =
                last_marker(call_text[..from].trim_end()).unwrap_or_default();
            analysis.markers.tool_section_end =
                first_marker(call_text[to..].trim_start()).unwrap_or_default();
        } else if let Some(region) = json_region_containing(&call_text, name_at) {
            self.json_native(analysis, &call_text, region, two.as_deref());
        } else {
            self.tagged(analysis, &call_text, name_at, two.as_deref());
            self.content_recipient(analysis);
        }
        self.call_ids(analysis);
    }

    fn json_native(
        &self,
        analysis: &mut Analysis,
        text: &str,
        (from, to): (usize, usize),
        two: Option<&str>,
    ) {
        analysis.tools = ToolFormat::JsonNative;
        let json = &text[from..to];
        let value: Option<Value> = serde_json::from_str(json).ok();
        let element = match &value {
            Some(Value::Array(items)) => {
                analysis.json.array_wrapped = true;
                items.first().cloned()
            }
            other => other.clone(),
        };
        if let Some(Value::Object(object)) = element {
            json_fields(&object, &mut analysis.json);
        }
        analysis.markers.tool_section_start = text[..from].trim().to_owned();
        analysis.markers.tool_section_end = first_token(&text[to..]);
        // Two calls: section markers repeated per call are per-call markers.
        if let Some(two) = two
            && !analysis.markers.tool_section_start.is_empty()
            && two
                .matches(analysis.markers.tool_section_start.as_str())
                .count()
                >= 2
        {
            analysis.markers.per_call_start =
                std::mem::take(&mut analysis.markers.tool_section_start);
            analysis.markers.per_call_end = std::mem::take(&mut analysis.markers.tool_section_end);
        }
    }

    fn tagged(&self, analysis: &mut Analysis, text: &str, name_at: usize, two: Option<&str>) {
        let name_end = name_at + FUN_FIRST.len();
        // The arguments: a JSON object holding the argument names, or tagged arguments.
        // Only a region after the name: a malformed render can put the name inside the region found.
        let args_json = text[name_end..]
            .find(&format!("\"{ARG_FIRST}\""))
            .and_then(|at| json_region_containing(text, name_end + at))
            .filter(|&(from, _)| from >= name_end);
        let segments_before = segmentize_markers(&text[..name_at]);
        let markers = &mut analysis.markers;
        // Name prefix/suffix: inside a marker (`<function=NAME>`) or between markers.
        let (prefix_open, name_in_marker) = match segments_before.last() {
            Some(last)
                if last.kind == SegmentKind::Text && last.value.rfind(['<', '[']).is_some() =>
            {
                let open = last.value.rfind(['<', '[']).unwrap_or(0);
                (Some(last.value[open..].to_owned()), true)
            }
            _ => (None, false),
        };
        let mut openers: Vec<String> = segments_before
            .iter()
            .filter(|s| s.kind == SegmentKind::Marker)
            .map(|s| s.value.clone())
            .collect();
        // A call opener written as punctuation right before the name (`>>>NAME`).
        if let Some(last) = segments_before.last()
            && !name_in_marker
            && last.kind == SegmentKind::Text
            && punctuation_opener(&last.value).len() == last.value.trim_start().len()
            && !last.value.trim().is_empty()
        {
            openers.push(last.value.trim().to_owned());
        }
        if let Some(prefix) = prefix_open {
            markers.func_name_prefix = prefix;
        }
        let after_name = &text[name_end..];
        if name_in_marker {
            let close = after_name.find(['>', ']']).map_or(0, |i| i + 1);
            markers.func_name_suffix = after_name[..close].to_owned();
        }
        match openers.as_slice() {
            [] => {}
            [only] => markers.per_call_start = only.clone(),
            [.., section, call] => {
                markers.tool_section_start = section.clone();
                markers.per_call_start = call.clone();
            }
        }
        if let Some((from, to)) = args_json {
            analysis.tools = ToolFormat::TagWithJson;
            let between = text
                .get(name_end + markers.func_name_suffix.len()..from)
                .unwrap_or_default();
            if !name_in_marker {
                markers.func_name_suffix = between.trim().to_owned();
            } else {
                markers.args_start = between.trim().to_owned();
            }
            closers(markers, &text[to..]);
        } else {
            analysis.tools = ToolFormat::TagWithTagged;
            let body_from = name_end + markers.func_name_suffix.len();
            if !name_in_marker {
                // The name is text: it ends at the next marker (or line).
                let next = after_name
                    .find(['<', '[', '\n'])
                    .unwrap_or(after_name.len());
                markers.func_name_suffix = after_name[..next].trim().to_owned();
            }
            self.tagged_arguments(analysis, text, body_from);
        }
        let markers = &mut analysis.markers;
        // Two calls: a section marker that appears once is the section; per-call markers repeat.
        if let Some(two) = two
            && !markers.tool_section_start.is_empty()
            && two.matches(markers.tool_section_start.as_str()).count() >= 2
        {
            if markers.per_call_start.is_empty() {
                markers.per_call_start = std::mem::take(&mut markers.tool_section_start);
            } else {
                markers.tool_section_start.clear();
            }
            if markers.per_call_end.is_empty() {
                markers.per_call_end = std::mem::take(&mut markers.tool_section_end);
            } else {
                markers.tool_section_end.clear();
            }
        }
    }

    fn tagged_arguments(&self, analysis: &mut Analysis, text: &str, body_from: usize) {
        let markers = &mut analysis.markers;
        let body = &text[body_from..];
        let Some(arg_at) = body.find(ARG_FIRST) else {
            return;
        };
        let Some(value_at) = body[arg_at..].find(VALUE_FIRST).map(|v| v + arg_at) else {
            return;
        };
        // The argument name: inside a marker (`<parameter=NAME>`) or between markers
        // (`<arg_key>NAME</arg_key>`).
        let before_arg = &body[..arg_at];
        let open = before_arg.rfind(['<', '[']);
        let inside = open.is_some_and(|o| !before_arg[o..].contains(['>', ']']));
        let after_arg = &body[arg_at + ARG_FIRST.len()..value_at];
        if inside {
            let o = open.unwrap_or(0);
            markers.arg_name_prefix = before_arg[o..].to_owned();
            let close = after_arg.find(['>', ']']).map_or(0, |i| i + 1);
            markers.arg_name_suffix = after_arg[..close].to_owned();
            markers.arg_value_prefix = after_arg[close..].trim().to_owned();
        } else {
            markers.arg_name_prefix = last_marker(before_arg.trim_end()).unwrap_or_default();
            markers.arg_name_suffix = first_marker(after_arg.trim_start()).unwrap_or_default();
            let rest = after_arg
                .trim_start()
                .strip_prefix(markers.arg_name_suffix.as_str())
                .unwrap_or("");
            markers.arg_value_prefix = rest.trim().to_owned();
        }
        let after_value = &body[value_at + VALUE_FIRST.len()..];
        markers.arg_value_suffix = first_marker(after_value.trim_start()).unwrap_or_default();
        // After the last value: the function's closer and the call/section ends.
        let last_value = body
            .rfind(VALUE_SECOND)
            .map_or(value_at + VALUE_FIRST.len(), |v| v + VALUE_SECOND.len());
        let tail = body[last_value..].trim_start();
        let tail = tail
            .strip_prefix(markers.arg_value_suffix.as_str())
            .unwrap_or(tail);
        closers(markers, tail);
    }

    /// Content written as a call to a fixed recipient with the call opener (functionary's
    /// `>>>all\ntext`): the opener and the recipient are the content start marker.
    fn content_recipient(&self, analysis: &mut Analysis) {
        let opener = analysis.markers.per_call_start.clone();
        if opener.is_empty()
            || punctuation_opener(&opener).len() != opener.len()
            || analysis.content != ContentMode::Plain
        {
            return;
        }
        let Some(text) = self.conversation(assistant(ASSISTANT_MSG)) else {
            return;
        };
        let Some(at) = text.find(ASSISTANT_MSG) else {
            return;
        };
        let line = text[..at].trim_end();
        let Some(open) = line.rfind(opener.as_str()) else {
            return;
        };
        let word = &line[open + opener.len()..];
        if !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_') {
            analysis.content = ContentMode::AlwaysWrapped;
            analysis.markers.content_start = format!("{opener}{word}");
        }
    }

    /// T7: a call id written outside JSON.
    fn call_ids(&self, analysis: &mut Analysis) {
        if analysis.tools == ToolFormat::JsonNative {
            return;
        }
        let a = self.call_conversation(vec![call(FUN_FIRST, args_two(), ID_FIRST)]);
        let b = self.call_conversation(vec![call(FUN_FIRST, args_two(), ID_ALT)]);
        let (Some(a), Some(b)) = (a, b) else { return };
        if a == b || !a.contains(ID_FIRST) {
            return;
        }
        let split = calculate_diff_split(&a, &b);
        // The ids differ only in their digits: the text around the diff holds the id's markers.
        let Some(id_start) = split.prefix.rfind("call") else {
            return;
        };
        let before = &split.prefix[..id_start];
        let after = split
            .suffix
            .trim_start_matches(|c: char| c.is_ascii_digit());
        // Only the call itself counts: the system prompt before it may mention the names too.
        let call_from = before.rfind(['\n']).map_or(0, |n| n + 1).min(before.len());
        let call_from = before[..call_from]
            .rfind(ASSISTANT_MSG)
            .map_or(call_from, |_| call_from);
        let name_before = before
            .rfind(FUN_FIRST)
            .filter(|&n| n >= before.len().saturating_sub(512));
        let markers = &mut analysis.markers;
        markers.call_id_prefix = last_marker(before).unwrap_or_default();
        markers.call_id_suffix = first_marker(after).unwrap_or_default();
        let _ = call_from;
        analysis.call_id = match name_before {
            Some(n) if before[n..].contains(ARG_FIRST) => CallIdPosition::PostArgs,
            Some(_) => CallIdPosition::BetweenFuncAndArgs,
            None => CallIdPosition::PreFuncName,
        };
        match analysis.call_id {
            CallIdPosition::BetweenFuncAndArgs => {
                // `NAME[CALL_ID]id[ARGS]{…}`: the name ends at the id marker; the arguments come after
                // the id's closing marker.
                if let Some(cut) = markers
                    .func_name_suffix
                    .find(markers.call_id_prefix.as_str())
                {
                    markers.func_name_suffix.truncate(cut);
                }
                if markers.args_start == markers.call_id_suffix {
                    markers.args_start.clear();
                }
            }
            // `<begin>id<name>NAME…`: the call opens with the id's marker.
            CallIdPosition::PreFuncName if markers.per_call_start == markers.call_id_suffix => {
                markers.per_call_start = markers.call_id_prefix.clone();
            }
            _ => {}
        }
    }

    fn end_of_turn(&self, analysis: &mut Analysis) {
        let Some(text) = self.conversation(assistant(ASSISTANT_MSG)) else {
            return;
        };
        let Some(at) = text.find(ASSISTANT_MSG) else {
            return;
        };
        let mut after = text[at + ASSISTANT_MSG.len()..].trim_start();
        if !analysis.markers.content_end.is_empty() {
            after = after
                .strip_prefix(analysis.markers.content_end.as_str())
                .unwrap_or(after)
                .trim_start();
        }
        if let Some(marker) = first_marker(after) {
            analysis.end_of_turn.push(marker);
        } else if let Some(eos) =
            Some(self.template.eos_token()).filter(|e| !e.is_empty() && after.starts_with(*e))
        {
            analysis.end_of_turn.push(eos.to_owned());
        }
    }
}

/// The markers right around `needle` in `with` that are absent from `without`: `(start, end)`; `start`
/// may be empty (a delimiter style).
fn markers_around(
    without: &str,
    with: &str,
    needle: &str,
    header: &str,
) -> Option<(String, String)> {
    let split = calculate_diff_split(without, with);
    let combined = format!("{}{}{}", split.prefix, split.right, split.suffix);
    let at = combined.find(needle)?;
    let before = combined[..at].trim_end();
    let after = combined[at + needle.len()..].trim_start();
    let end = first_marker(after)?;
    // The marker right before the reasoning is its start, unless it is the turn's own header (then the
    // style is a delimiter: no start marker).
    let start = last_marker(before)
        .filter(|start| closing_of(start) == end || !header.contains(start.as_str()));
    Some((start.unwrap_or_default(), end))
}

/// The first marker, or the first run of text, of `text` (whitespace around it dropped): what closes a
/// JSON call (`</tool_call>`, a closing fence).
fn first_token(text: &str) -> String {
    segmentize_markers(text.trim_start())
        .into_iter()
        .find(|s| !s.value.trim().is_empty())
        .map(|s| s.value.trim().to_owned())
        .unwrap_or_default()
}

/// The run of punctuation `text` ends with, when it starts a line (or `text`): a call opener such as
/// functionary's `>>>`. Quotes and brackets are never part of it (they are markup or JSON).
fn punctuation_opener(text: &str) -> &str {
    let head = text.trim_end_matches(|c: char| {
        c.is_ascii_punctuation() && !matches!(c, '<' | '[' | '{' | '(' | '"' | '\'' | '`')
    });
    let run = &text[head.len()..];
    if head.is_empty() || head.ends_with('\n') {
        run
    } else {
        ""
    }
}

/// The last marker segment of `text`, if `text` ends with one.
fn last_marker(text: &str) -> Option<String> {
    let segments = segmentize_markers(text);
    let last = segments.last()?;
    (last.kind == SegmentKind::Marker).then(|| last.value.clone())
}

/// The first marker segment of `text`, if `text` starts with one.
fn first_marker(text: &str) -> Option<String> {
    let segments = segmentize_markers(text);
    let first = segments.first()?;
    (first.kind == SegmentKind::Marker).then(|| first.value.clone())
}

/// `</x>` for `<x>`, `[/X]` for `[X]`, `◁/x▷` for `◁x▷`.
fn closing_of(start: &str) -> String {
    if let Some(inner) = start.strip_prefix('<') {
        format!("</{inner}")
    } else if let Some(inner) = start.strip_prefix('[') {
        format!("[/{inner}")
    } else if let Some(inner) = start.strip_prefix('◁') {
        format!("◁/{inner}")
    } else {
        String::new()
    }
}

/// The leading markers of the diff suffix that still close the call (until the first text or the end of
/// the turn).
fn call_tail(suffix: &str, end_of_turn: &[String]) -> String {
    let mut tail = String::new();
    for segment in segmentize_markers(suffix) {
        match segment.kind {
            SegmentKind::Marker if end_of_turn.contains(&segment.value) => break,
            SegmentKind::Marker => tail.push_str(&segment.value),
            SegmentKind::Text if segment.value.trim().is_empty() => tail.push_str(&segment.value),
            SegmentKind::Text => break,
        }
    }
    tail
}

/// Splits the text after a call's arguments into the function closer and the call/section end.
fn closers(markers: &mut Markers, after: &str) {
    let found: Vec<String> = segmentize_markers(after.trim())
        .into_iter()
        .take_while(|s| s.kind == SegmentKind::Marker || s.value.trim().is_empty())
        .filter(|s| s.kind == SegmentKind::Marker)
        .map(|s| s.value)
        .collect();
    let mut rest: &[String] = &found;
    // A closer that mirrors an opener belongs to it.
    let mirrors = |closer: &str, opener: &str| !opener.is_empty() && closer == closing_of(opener);
    if let Some(first) = rest.first()
        && !mirrors(first, &markers.per_call_start)
        && !mirrors(first, &markers.tool_section_start)
    {
        markers.func_close = first.clone();
        rest = &rest[1..];
    }
    if let Some(first) = rest.first()
        && (mirrors(first, &markers.per_call_start) || markers.tool_section_start.is_empty())
    {
        markers.per_call_end = first.clone();
        rest = &rest[1..];
    }
    if let Some(first) = rest.first() {
        markers.tool_section_end = first.clone();
    }
}

/// The outermost JSON value (object or array) of `text` that contains byte `at`: `(from, to)`.
fn json_region_containing(text: &str, at: usize) -> Option<(usize, usize)> {
    for (from, c) in text[..at].char_indices() {
        if c != '{' && c != '[' {
            continue;
        }
        let mut scanner = parser_core::JsonScanner::any();
        let (used, status) = scanner.feed(&text[from..]);
        if status == parser_core::JsonStatus::Complete && from + used > at {
            return Some((from, from + used));
        }
    }
    None
}

/// A PYTHONIC call at `name_at`: `[NAME(ARG=value, …), …]`, the function name followed by `(`, keyword
/// arguments whose values are Python literals (checked by converting them), the whole in a list. Returns
/// where the list's `[` is and where it ends (after its `]`).
fn pythonic_list(text: &str, name_at: usize) -> Option<(usize, usize)> {
    use crate::generic::pythonic::{ArgsScanner, ArgsStep, kwargs_to_json};
    let before = text[..name_at].trim_end();
    let open = before.strip_suffix('[').map(str::len)?;
    let mut at = name_at + FUN_FIRST.len();
    // The calls of the list: `NAME(args)`, separated by commas.
    loop {
        let after = &text[at..];
        let args_from = at + (after.len() - after.trim_start().len());
        let args_from = args_from + text[args_from..].strip_prefix('(').map(|_| 1)?;
        let mut scanner = ArgsScanner::default();
        let close = text[args_from..]
            .bytes()
            .position(|b| scanner.step(b) != ArgsStep::Inside)?;
        let args = &text[args_from..args_from + close];
        if text.as_bytes()[args_from + close] != b')'
            || (at == name_at + FUN_FIRST.len() && !args.contains(ARG_FIRST))
            || kwargs_to_json(args).is_none()
        {
            return None;
        }
        let rest = text[args_from + close + 1..].trim_start();
        let rest_at = text.len() - rest.len();
        if let Some(next) = rest.strip_prefix(',') {
            // The next call: a name, then its arguments.
            let next = next.trim_start();
            let name_len = next
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
                .filter(|&n| n > 0)?;
            at = text.len() - next.len() + name_len;
        } else {
            return rest.starts_with(']').then_some((open, rest_at + 1));
        }
    }
}

/// Reads the field names of a JSON call object by the needles it holds.
fn json_fields(object: &serde_json::Map<String, Value>, fields: &mut JsonFields) {
    for (key, value) in object {
        if key == FUN_FIRST {
            fields.name_is_key = true;
            continue;
        }
        match value {
            Value::String(s) if s == FUN_FIRST => fields.name_field = key.clone(),
            Value::String(s) if s.starts_with("call") && s.contains("0000") => {
                fields.id_field = key.clone()
            }
            // A call id the template numbers itself (`"tool_call_id": "0"`): the model writes it too.
            Value::String(s) if key.contains("id") && s.bytes().all(|b| b.is_ascii_digit()) => {
                fields.id_field = key.clone()
            }
            Value::String(s) if s.contains(ARG_FIRST) => fields.args_field = key.clone(),
            Value::Object(inner) if inner.contains_key(ARG_FIRST) => {
                fields.args_field = key.clone()
            }
            Value::Object(inner) if inner.values().any(|v| v == FUN_FIRST) => {
                fields.function_field = key.clone();
                json_fields(inner, fields);
            }
            Value::Number(_) if key.contains("id") => fields.gen_id_field = key.clone(),
            _ => {}
        }
    }
}

/// Patches for templates whose renders hide their markers, applied after the analysis (llama.cpp keeps
/// the same kind of list in `chat-diff-analyzer.cpp`).
fn workarounds(source: &str, analysis: &mut Analysis) {
    // Reasoning markers the template only names (old thinking templates strip reasoning with
    // `content.split('</think>')`; Ministral describes `[THINK]` in its system prompt).
    const REASONING_PAIRS: &[(&str, &str)] = &[
        ("<think>", "</think>"),
        ("[THINK]", "[/THINK]"),
        ("<seed:think>", "</seed:think>"),
        ("<|START_THINKING|>", "<|END_THINKING|>"),
        ("<|inner_prefix|>", "<|inner_suffix|>"),
        ("◁think▷", "◁/think▷"),
    ];
    if analysis.reasoning == ReasoningMode::None
        && let Some((start, end)) = REASONING_PAIRS
            .iter()
            .find(|(s, e)| source.contains(s) && source.contains(e))
    {
        analysis.reasoning = ReasoningMode::TagBased;
        analysis.markers.reasoning_start = (*start).into();
        analysis.markers.reasoning_end = (*end).into();
        analysis
            .workarounds
            .push("reasoning-markers-named-in-source".into());
    }
    // A start marker the renders did not show, named in the source next to its end marker.
    if analysis.markers.reasoning_start.is_empty()
        && let Some((start, _)) = REASONING_PAIRS
            .iter()
            .find(|(s, e)| *e == analysis.markers.reasoning_end && source.contains(s))
    {
        analysis.markers.reasoning_start = (*start).into();
        analysis
            .workarounds
            .push("reasoning-start-named-in-source".into());
    }
    // Command-R+ frames every answer as `<|CHATBOT_TOKEN|>…<|END_OF_TURN_TOKEN|>`, which the diffs see as
    // turn framing.
    if source.contains("<|CHATBOT_TOKEN|>") && analysis.content == ContentMode::Plain {
        analysis.content = ContentMode::AlwaysWrapped;
        analysis.markers.content_start = "<|CHATBOT_TOKEN|>".into();
        analysis.markers.content_end = "<|END_OF_TURN_TOKEN|>".into();
        analysis.workarounds.push("command-r-plus-content".into());
    }
    // Granite 3.3 describes its answer markers in the system prompt only.
    if source.contains("<response></response>") && analysis.content == ContentMode::Plain {
        analysis.content = ContentMode::WrappedWithReasoning;
        analysis.markers.content_start = "<response>".into();
        analysis.markers.content_end = "</response>".into();
        analysis.workarounds.push("granite-response".into());
    }
    // LFM2 never renders assistant calls (its template only lists the tools between
    // `<|tool_list_start|>` and `<|tool_list_end|>`); its models write Python calls between
    // `<|tool_call_start|>` and `<|tool_call_end|>`, as llama.cpp's LFM2 handler parses them.
    if analysis.tools == ToolFormat::None && source.contains("<|tool_list_start|>") {
        analysis.tools = ToolFormat::Pythonic;
        analysis.markers.tool_section_start = "<|tool_call_start|>".into();
        analysis.markers.tool_section_end = "<|tool_call_end|>".into();
        analysis.workarounds.push("lfm2-pythonic-tool-calls".into());
    }
    // Granite 3.3 never renders assistant calls; its prompt names the format.
    if analysis.tools == ToolFormat::None && source.contains("<|tool_call|>") {
        analysis.tools = ToolFormat::JsonNative;
        analysis.json.array_wrapped = true;
        analysis.markers.tool_section_start = "<|tool_call|>".into();
        analysis.workarounds.push("granite-tool-call".into());
    }
}

fn collect_preserved_tokens(analysis: &mut Analysis) {
    let m = &analysis.markers;
    let mut tokens: Vec<String> = [
        &m.reasoning_start,
        &m.reasoning_end,
        &m.content_start,
        &m.content_end,
        &m.tool_section_start,
        &m.tool_section_end,
        &m.per_call_start,
        &m.per_call_end,
        &m.func_name_prefix,
        &m.func_name_suffix,
        &m.func_close,
        &m.args_start,
        &m.args_end,
        &m.arg_name_prefix,
        &m.arg_name_suffix,
        &m.arg_value_prefix,
        &m.arg_value_suffix,
        &m.call_id_prefix,
        &m.call_id_suffix,
    ]
    .into_iter()
    .map(|s| s.trim().to_owned())
    .filter(|s| !s.is_empty())
    .collect();
    tokens.sort();
    tokens.dedup();
    analysis.preserved_tokens = tokens;
}

fn common_prefix_len(a: &str, b: &str) -> usize {
    let mut len = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(len) {
        len -= 1;
    }
    len
}

/// A readable report of an analysis and the route a template takes: what `llm-parse --analyze` and
/// `cargo xtask analyze` print.
pub fn report(template: &ChatTemplate, analysis: &Analysis) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let route = crate::route_for_template(template);
    let _ = writeln!(out, "template:   {}", template.name());
    let _ = writeln!(out, "route:      {route}");
    let _ = writeln!(out, "reasoning:  {}", plain(&analysis.reasoning));
    let _ = writeln!(out, "content:    {}", plain(&analysis.content));
    let _ = writeln!(out, "tools:      {}", plain(&analysis.tools));
    if analysis.call_id != CallIdPosition::None {
        let _ = writeln!(out, "call id:    {}", plain(&analysis.call_id));
    }
    let _ = writeln!(out, "markers:");
    if let Ok(Value::Object(markers)) = serde_json::to_value(&analysis.markers) {
        for (name, value) in markers {
            if let Some(text) = value.as_str().filter(|t| !t.is_empty()) {
                let _ = writeln!(out, "  {name:<20} {}", quoted(text));
            }
        }
    }
    if analysis.tools == ToolFormat::JsonNative {
        let j = &analysis.json;
        let _ = writeln!(
            out,
            "json:       name {}, arguments {}{}{}{}{}",
            quoted(&j.name_field),
            quoted(&j.args_field),
            if j.function_field.is_empty() {
                String::new()
            } else {
                format!(", nested in {}", quoted(&j.function_field))
            },
            if j.name_is_key {
                ", name is the key"
            } else {
                ""
            },
            if j.id_field.is_empty() {
                String::new()
            } else {
                format!(", id {}", quoted(&j.id_field))
            },
            if j.array_wrapped { ", in an array" } else { "" },
        );
    }
    let c = &analysis.capabilities;
    let _ = writeln!(
        out,
        "supports:   tools {}, tool calls {}, tool results {}, system role {}, parallel calls {}, string arguments {}, channels {}",
        c.tools,
        c.tool_calls,
        c.tool_responses,
        c.system_role,
        c.parallel_calls,
        c.string_arguments,
        c.channels
    );
    if let Some(variable) = &c.thinking_variable {
        let default = match c.thinking_default {
            Some(true) => "on by default",
            Some(false) => "off by default",
            None => "the default is unknown",
        };
        let _ = writeln!(out, "thinking:   switch `{variable}`, {default}");
    }
    let _ = writeln!(
        out,
        "generation prompt: {}{}",
        quoted(&analysis.generation_prompt),
        if analysis.generation_prompt.is_empty() {
            " (nothing follows the user's message)"
        } else {
            " (what follows the user's message)"
        }
    );
    if let Some(off) = &analysis.generation_prompt_no_thinking {
        let _ = writeln!(out, "  thinking off:    {}", quoted(off));
    }
    if !analysis.end_of_turn.is_empty() {
        let _ = writeln!(out, "end of turn: {}", quoted_list(&analysis.end_of_turn));
    }
    let _ = writeln!(
        out,
        "preserved tokens: {}",
        quoted_list(&analysis.preserved_tokens)
    );
    if !analysis.workarounds.is_empty() {
        let _ = writeln!(out, "workarounds: {}", quoted_list(&analysis.workarounds));
    }
    for note in &analysis.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// A mode by its name in the JSON output (`TAG_BASED`, `JSON_NATIVE`).
fn plain<T: serde::Serialize>(mode: &T) -> String {
    match serde_json::to_value(mode) {
        Ok(Value::String(name)) => name,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// Text as JSON writes it: quoted, with JSON's escapes.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// Texts as a JSON array, with a space after each comma.
fn quoted_list(texts: &[String]) -> String {
    let items: Vec<String> = texts.iter().map(|text| quoted(text)).collect();
    format!("[{}]", items.join(", "))
}

/// An assistant message carrying the probe reasoning under every field name templates read it from:
/// `reasoning_content` (most), `reasoning` (Solar Open), `thinking` (gpt-oss), `thought` (Apriel 1.5).
/// No template reads two of them, so the reasoning is rendered once.
fn with_reasoning(mut message: Value) -> Value {
    for field in ["reasoning_content", "reasoning", "thinking", "thought"] {
        message[field] = json!(THINKING);
    }
    message
}
