//! What the differential analysis finds in a chat template: plain, serialisable data that configures the
//! generic parser, and that can be printed, cached and compared in tests.

use serde::{Deserialize, Serialize};

/// How a template marks reasoning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReasoningMode {
    /// No reasoning markers.
    #[default]
    None,
    /// `start … end` (the start may be empty: a delimiter style, such as Apriel's
    /// `[BEGIN FINAL RESPONSE]`). A start marker at the end of the generation prompt means the output
    /// begins inside reasoning.
    TagBased,
    /// Reasoning is rendered only with tool calls (same markers as tag-based).
    ToolsOnly,
}

/// How a template wraps the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ContentMode {
    /// No content markers.
    #[default]
    Plain,
    /// Content is always wrapped: `content_start … content_end` (Command-R7B's `<|START_RESPONSE|>`).
    /// A `content_start` that begins with the per-call start marker names the recipient that content
    /// is written to, like a call (functionary v3.2's `>>>all`, in `>>>all\ntext`).
    AlwaysWrapped,
    /// Content is wrapped only when reasoning is present (Granite's `<response>`).
    WrappedWithReasoning,
}

/// How a template writes tool calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ToolFormat {
    /// No tool calls.
    #[default]
    None,
    /// The whole call is JSON: `{"name": "f", "arguments": {…}}` (possibly nested, name-as-key, in an
    /// array, inside section markers).
    JsonNative,
    /// The name is in markup, the arguments are a JSON object: `<function=f>{…}</function>`.
    TagWithJson,
    /// The name and each argument are in markup: `<function=f><parameter=k>v</parameter></function>`.
    TagWithTagged,
    /// A Python list of calls with keyword arguments written as Python literals:
    /// `[get_time(city="Paris"), other(a=1)]` (possibly inside section markers, LFM2's
    /// `<|tool_call_start|>…<|tool_call_end|>`). The arguments are converted to a JSON object.
    Pythonic,
}

/// Where a template writes a call id, for formats that are not JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallIdPosition {
    /// No call id.
    #[default]
    None,
    /// Before the function name.
    PreFuncName,
    /// Between the function name and the arguments (Mistral's `[CALL_ID]`).
    BetweenFuncAndArgs,
    /// After the arguments.
    PostArgs,
}

/// Every marker the analysis found; empty strings are "none".
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Markers {
    /// Reasoning start (`<think>`, `[THINK]`, `<|START_THINKING|>`, `◁think▷`), may be empty.
    pub reasoning_start: String,
    /// Reasoning end (`</think>`, `[BEGIN FINAL RESPONSE]`).
    pub reasoning_end: String,
    /// Content start (`<|START_RESPONSE|>`, `<response>`).
    pub content_start: String,
    /// Content end.
    pub content_end: String,
    /// Start of the tool-call section (`<tool_call>`, `[TOOL_CALLS]`, `<|tool_calls_section_begin|>`).
    pub tool_section_start: String,
    /// End of the tool-call section.
    pub tool_section_end: String,
    /// Start of each call, when calls are wrapped one by one.
    pub per_call_start: String,
    /// End of each call.
    pub per_call_end: String,
    /// Between two calls (`,`, `\n`).
    pub call_separator: String,
    /// Before the function name (`<function=`, `<invoke name="`).
    pub func_name_prefix: String,
    /// After the function name (`>`, `">`, `[ARGS]`).
    pub func_name_suffix: String,
    /// After the arguments (`</function>`, `</invoke>`).
    pub func_close: String,
    /// Before the arguments (`<|tool_call_argument_begin|>`).
    pub args_start: String,
    /// After the arguments.
    pub args_end: String,
    /// Before an argument name (`<parameter=`, `<arg_key>`).
    pub arg_name_prefix: String,
    /// After an argument name (`>`, `</arg_key>`).
    pub arg_name_suffix: String,
    /// Before an argument value (`<arg_value>`).
    pub arg_value_prefix: String,
    /// After an argument value (`</parameter>`, `</arg_value>`).
    pub arg_value_suffix: String,
    /// Between two arguments.
    pub arg_separator: String,
    /// Before a call id (`[CALL_ID]`).
    pub call_id_prefix: String,
    /// After a call id (`[ARGS]`).
    pub call_id_suffix: String,
}

impl Markers {
    /// Qwen3-Coder's markers: `<think>` … `</think>` reasoning and one
    /// `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`
    /// block per call (the framing newlines are whitespace the engine reads between tags).
    ///
    /// Several families write this shape (MiMo, MiniCPM-V, Nemotron 3 Nano, Seed-OSS with its own
    /// reasoning and call tags): their specs start from it and change what differs.
    ///
    /// ```
    /// use parser_generic::spec::Markers;
    ///
    /// let seed = Markers {
    ///     reasoning_start: "<seed:think>".into(),
    ///     reasoning_end: "</seed:think>".into(),
    ///     ..Markers::qwen3_coder_xml()
    /// };
    /// assert_eq!(seed.arg_name_prefix, "<parameter=");
    /// assert_eq!(seed.per_call_start, "<tool_call>");
    /// ```
    pub fn qwen3_coder_xml() -> Self {
        Markers {
            reasoning_start: "<think>".into(),
            reasoning_end: "</think>".into(),
            per_call_start: "<tool_call>".into(),
            per_call_end: "</tool_call>".into(),
            func_name_prefix: "<function=".into(),
            func_name_suffix: ">".into(),
            func_close: "</function>".into(),
            arg_name_prefix: "<parameter=".into(),
            arg_name_suffix: ">".into(),
            arg_value_suffix: "</parameter>".into(),
            ..Markers::default()
        }
    }
}

/// JSON field names of a JSON_NATIVE call.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct JsonFields {
    /// The function name is the object's key: `{"get_weather": {…}}`.
    pub name_is_key: bool,
    /// The outer key of a nested call, `function` in `{"function": {"name": …}}`; empty when flat.
    pub function_field: String,
    /// The name field (`name`, `tool_name`).
    pub name_field: String,
    /// The arguments field (`arguments`, `parameters`).
    pub args_field: String,
    /// A string call-id field (`id`); empty when none.
    pub id_field: String,
    /// A generated integer call-id field (`tool_call_id`); empty when none.
    pub gen_id_field: String,
    /// Calls are written in a JSON array (`[{…}, {…}]`). On a `TAG_WITH_JSON` format: an array (or
    /// one object) of such call objects may also follow the per-call start marker, beside the tagged
    /// calls (Mistral's `[TOOL_CALLS]` opens both the v0.3 `[{"name": …, "arguments": …, "id": …}]`
    /// and the v11 `NAME[ARGS]{…}`); these field names read it.
    pub array_wrapped: bool,
    /// Python-style dicts with single quotes.
    pub python_dicts: bool,
}

impl Default for JsonFields {
    fn default() -> Self {
        JsonFields {
            name_is_key: false,
            function_field: String::new(),
            name_field: "name".into(),
            args_field: "arguments".into(),
            id_field: String::new(),
            gen_id_field: String::new(),
            array_wrapped: false,
            python_dicts: false,
        }
    }
}

/// What the template can do, found by rendering probes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Capabilities {
    /// The template renders the `tools` it is given.
    pub tools: bool,
    /// The template renders assistant tool calls.
    pub tool_calls: bool,
    /// The template renders tool results.
    pub tool_responses: bool,
    /// The template accepts a system message.
    pub system_role: bool,
    /// The template renders several calls in one message.
    pub parallel_calls: bool,
    /// Tool-call arguments must be given as a JSON string (the template fails or prints nothing with
    /// an object).
    pub string_arguments: bool,
    /// Harmony-style channels (`<|channel|>`).
    pub channels: bool,
    /// The variable that switches thinking (`enable_thinking`, `thinking`), if any.
    pub thinking_variable: Option<String>,
    /// Whether thinking is on when the variable is not given.
    pub thinking_default: Option<bool>,
}

/// The result of analysing a chat template.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Analysis {
    /// How reasoning is marked.
    pub reasoning: ReasoningMode,
    /// How content is wrapped.
    pub content: ContentMode,
    /// How tool calls are written.
    pub tools: ToolFormat,
    /// Every marker found.
    pub markers: Markers,
    /// JSON field names (JSON_NATIVE).
    pub json: JsonFields,
    /// Where a call id goes (non-JSON formats).
    pub call_id: CallIdPosition,
    /// What the template supports.
    pub capabilities: Capabilities,
    /// The end of the generation prompt as rendered (with thinking on, when there is a switch): what the
    /// output continues. Stage detection reads it.
    pub generation_prompt: String,
    /// The same with thinking off, when the template has a switch.
    pub generation_prompt_no_thinking: Option<String>,
    /// Where the assistant's turn starts in a prompt (`<|im_start|>assistant`), for stage detection:
    /// reasoning markers before the last one belong to earlier turns. The analyzer leaves it empty and
    /// derives it from the generation prompts (the part before the reasoning start marker); a
    /// hand-written spec whose generation prompt does not open reasoning names it here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub turn_start: Vec<String>,
    /// End-of-turn markers the template writes after an assistant message (`<|im_end|>`, `<|eot_id|>`).
    pub end_of_turn: Vec<String>,
    /// `JSON_NATIVE` / `PYTHONIC` with a section or per-call start marker: a call may also open at the
    /// very start of the answer without it (Llama 3.1 writes its JSON call with or without
    /// `<|python_tag|>`, Llama 4 its Python list with or without `<|python_start|>`). A format with
    /// neither marker always reads calls there (and only there).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub calls_at_start: bool,
    /// `PYTHONIC`: each call block holds one call written without a list (Gemma's
    /// ```` ```tool_code\nf(a=1)\n``` ````), which is how a grammar writes them; otherwise a block's
    /// calls are a Python list (`[f(a=1), g()]`). The parser reads both.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub python_unlisted: bool,
    /// A call block that opens while reasoning is still open ends reasoning there: the block and all
    /// after it are outside reasoning ([`parser_core::BlockInReasoning::EndsReasoning`]), for models
    /// that write their calls inside `<think>` (Arcee Trinity); the reasoning end marker is then framing
    /// wherever it stands in the answer (the model's own closer after such a call), and is dropped
    /// there. Otherwise such a block is held
    /// ([`parser_core::BlockInReasoning::Hold`]): calls if it ends the output, reasoning text if
    /// anything follows it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub calls_end_reasoning: bool,
    /// Other spellings of markers, as `(marker, spelling)` pairs: the parser reads `spelling`
    /// wherever it reads `marker` (MiniCPM 5's tokenizer decodes `<function name="` as
    /// `<functionname="` when its special tokens are kept), the grammar writes `marker` only. Both
    /// are compared trimmed, as the markers are. A spelling stands for the marker in every set the
    /// scanner matches (call openers, argument names, value and call ends, dropped tokens); the
    /// suffixes found by a bounded search after a name or id (`func_name_suffix`,
    /// `arg_name_suffix`, `call_id_suffix`) keep one spelling. The analyzer finds one spelling per
    /// marker and leaves this empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub marker_spellings: Vec<(String, String)>,
    /// Every non-empty marker, trimmed: tokens a tokenizer must keep and a grammar may trigger on.
    pub preserved_tokens: Vec<String>,
    /// Post-analysis patches that were applied, by name.
    pub workarounds: Vec<String>,
    /// Notes on what could not be determined.
    pub notes: Vec<String>,
    /// Why the analysis stopped early, when a render ran into one of the template's
    /// [`TemplateLimits`](parser_core::TemplateLimits): the error's text. Such an analysis finds
    /// nothing, so the template routes to plain content.
    pub stopped_by_limit: Option<String>,
}
