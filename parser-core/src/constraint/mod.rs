//! Constrained decoding: the grammar and triggers of a format, from the description its parser uses.
//!
//! A server that constrains generation (`tool_choice: required`, a named function, strict tools, a
//! `response_format`) needs the format's grammar in its engine's language. A family describes its
//! format once, as a [`FormatDescription`] filled from the same marker constants its parser scans for;
//! [`FormatDescription::constraint`] renders, for one request:
//!
//! - [`Constraint::lark`]: llguidance's Lark dialect, arguments as `%json {schema}`;
//! - [`Constraint::gbnf`]: llama.cpp's GBNF, arguments through our JSON-schema converter (what it
//!   constrains is listed under [`json_schema_to_gbnf`]);
//! - [`Constraint::structural_tag`]: an xgrammar structural tag (what vLLM and SGLang take);
//! - [`Constraint::triggers`] and [`Constraint::lazy`]: when the grammar applies;
//! - [`Constraint::preserved_tokens`]: the markers the detokenizer must keep.
//!
//! The request decides the shape: [`ToolChoice`] `none` allows no call, `auto` any number of calls
//! after free content (a *lazy* grammar, see below), `required` and a named function at least one call
//! and no content; `parallel_tool_calls: false` allows one call at most. Where the prompt leaves the
//! output ([`ReasoningStart`]) decides the reasoning: inside it, free reasoning up to the closing
//! marker; optional, a whole reasoning block may open the output; off, none.
//!
//! # Coverage: whole output, or from the trigger
//! A grammar that is not lazy covers the whole output, from its first token. A lazy grammar (`auto`
//! with tools and no `response_format`) covers the output from the first trigger on, trigger included,
//! as llama.cpp applies lazy grammars: the text before it (reasoning and content) is free. The
//! [`Triggers`] say where that is: `words` are the literal openers; each of `patterns` is a regex over
//! the whole output so far (llama.cpp's `PATTERN_FULL`: `[\s\S]`, no flags) whose first capture group
//! is the trigger, with the reasoning the prompt leaves open or allows skipped first, so that an opener
//! written inside reasoning does not fire. A format whose calls have no marker at all
//! ([`FormatDescription::is_bare`]) is never lazy: its `auto` grammar covers the whole output, the
//! calls or text that cannot open one.
//!
//! # Python values
//! Calls written as Python ([`CallName::Python`]) have no JSON for `%json` to check: their values are
//! grammar rules written here from each schema, the same in Lark and GBNF (the structural tag carries
//! them as a `grammar` in GBNF). A string is quoted with `"` or `'` (no line break; the escapes `\\`,
//! `\'`, `\"`, `\n`, `\t`, `\r`; none with length bounds, so that the length is the value's); an
//! integer has no leading zero; `True`, `False`, `None`; a list of `items` with `minItems` / `maxItems`
//! (at most [`UNROLL_LIMIT`] optional items bounded); a dict of the declared properties, required ones
//! present, in any order up to [`ANY_ORDER_LIMIT`]; `enum` / `const` as Python writes the values;
//! `anyOf`, a list of types; a value without a type, any literal nested at most [`ANY_DEPTH`] levels.
//! Not constrained: numeric bounds, `pattern`, `format`, `uniqueItems`, `$ref`; keywords that are not
//! Python identifiers cannot be written and are left out.
//!
//! ```
//! use parser_core::constraint::{
//!     CallFormat, CallName, ConstraintRequest, FormatDescription, ReasoningMarkers, ReasoningStart,
//!     ToolChoice,
//! };
//! use parser_core::Tools;
//!
//! let format = FormatDescription {
//!     reasoning: Some(ReasoningMarkers {
//!         open: "<think>".into(),
//!         close: "</think>".into(),
//!         ended_by_calls: false,
//!     }),
//!     calls: CallFormat {
//!         section: None,
//!         section_optional: false,
//!         call_begin: "<tool_call>".into(),
//!         name: CallName::JsonFields { name: "name".into(), arguments: "arguments".into() },
//!         call_end: "</tool_call>".into(),
//!         padding: "\n".into(),
//!         separator: "\n".into(),
//!         array: false,
//!     },
//!     reserved: vec![],
//! };
//! let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
//! }}]))
//! .unwrap();
//! let request = ConstraintRequest { tool_choice: ToolChoice::Required, ..ConstraintRequest::default() };
//! let constraint = format.constraint(Some(&tools), ReasoningStart::Off, &request).unwrap();
//! assert!(!constraint.lazy);
//! assert!(constraint.lark().contains(r#"%json {"#));
//! assert!(constraint.lark().contains(r#""city":{"type":"string"}"#));
//! assert!(constraint.gbnf().starts_with("root ::= "));
//! assert_eq!(constraint.preserved_tokens, ["<think>", "</think>", "<tool_call>", "</tool_call>"]);
//! ```

mod dict;
mod elements;
mod embed;
mod gbnf;
mod gemma;
mod grammar;
mod python;
mod structural;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::message::Stage;
use crate::options::ParseOptions;
use crate::registry::ParserEntry;
use crate::schema::{ToolSchema, Tools, ValueType};
use crate::stage::StageDetector;

pub use elements::ElementTags;
pub use embed::{Resolved, TaggedValues, structural_calls};
pub use grammar::{Grammar, Node, RuleName};
pub use python::{ANY_DEPTH, UNROLL_LIMIT};

/// The request's `tool_choice`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// No call may be made.
    None,
    /// Calls may be made, or not (the default).
    #[default]
    Auto,
    /// At least one call must be made.
    Required,
    /// This function must be called (and no other).
    Function(String),
}

/// The request's `response_format`: what content must be when no call is made.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ResponseFormat {
    /// Free text (the default; OpenAI's `{"type": "text"}`).
    #[default]
    Text,
    /// JSON valid against this schema (OpenAI's `{"type": "json_schema", "json_schema": {"schema": …}}`).
    JsonSchema(Value),
}

/// What one request asks of the output, beside the tools (which come with [`ParseOptions::tools`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintRequest {
    /// Whether calls are forbidden, allowed, required, or one function is required.
    pub tool_choice: ToolChoice,
    /// Whether more than one call may be made (OpenAI's default: `true`).
    pub parallel_tool_calls: bool,
    /// What content must be.
    pub response_format: ResponseFormat,
}

impl Default for ConstraintRequest {
    fn default() -> Self {
        ConstraintRequest {
            tool_choice: ToolChoice::Auto,
            parallel_tool_calls: true,
            response_format: ResponseFormat::Text,
        }
    }
}

impl ConstraintRequest {
    /// The tools a call may name under this request (none for `none`, the named one for a function),
    /// and whether a call is required.
    ///
    /// Errors: a named function that is not among `tools`, or `required` without tools.
    ///
    /// ```
    /// use parser_core::constraint::{ConstraintRequest, ToolChoice};
    /// use parser_core::Tools;
    ///
    /// let tools = Tools::from_json(&serde_json::json!([
    ///     {"type": "function", "function": {"name": "a"}},
    ///     {"type": "function", "function": {"name": "b"}},
    /// ]))
    /// .unwrap();
    /// let request = ConstraintRequest { tool_choice: ToolChoice::Function("b".into()), ..Default::default() };
    /// let (allowed, required) = request.allowed_tools(Some(&tools)).unwrap();
    /// assert_eq!((allowed[0].name.as_str(), allowed.len(), required), ("b", 1, true));
    /// let none = ConstraintRequest { tool_choice: ToolChoice::None, ..Default::default() };
    /// assert!(none.allowed_tools(Some(&tools)).unwrap().0.is_empty());
    /// ```
    pub fn allowed_tools<'t>(
        &self,
        tools: Option<&'t Tools>,
    ) -> Result<(Vec<&'t ToolSchema>, bool), Error> {
        let all: Vec<&ToolSchema> = tools.map(|t| t.iter().collect()).unwrap_or_default();
        match &self.tool_choice {
            ToolChoice::None => Ok((Vec::new(), false)),
            ToolChoice::Auto => Ok((all, false)),
            ToolChoice::Required => {
                if all.is_empty() {
                    return Err(Error::new(ErrorKind::InvalidOption(
                        "tool_choice `required` needs at least one tool".into(),
                    )));
                }
                Ok((all, true))
            }
            ToolChoice::Function(name) => {
                let chosen: Vec<&ToolSchema> =
                    all.into_iter().filter(|tool| &tool.name == name).collect();
                if chosen.is_empty() {
                    return Err(Error::new(ErrorKind::InvalidTools(format!(
                        "tool_choice names `{name}`, which is not among the request's tools"
                    ))));
                }
                Ok((chosen, true))
            }
        }
    }
}

/// Where the prompt leaves the output, for the reasoning part of the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasoningStart {
    /// The output starts inside reasoning: free reasoning, then the closing marker.
    Inside,
    /// The output may open a reasoning block (opening marker, free reasoning, closing marker) first.
    Optional,
    /// No reasoning: thinking is off, or the format has none.
    Off,
}

impl ReasoningStart {
    /// Decides from the request as a parser's stage detection does: the output starts inside reasoning
    /// when the detector says so (with `default` for a prompt that says nothing); it starts in the answer
    /// with thinking *off* when something explicit says so (the stage option, the prompt tail, the
    /// prompt's token ids, or — when `follows_switch` — `enable_thinking: false`); otherwise the model
    /// may still open reasoning itself.
    ///
    /// ```
    /// use parser_core::constraint::ReasoningStart;
    /// use parser_core::{ParseOptions, Stage, StageDetector};
    /// static DETECT: StageDetector = StageDetector::new(&["<think>"], &["</think>"], &["<|im_start|>assistant"]);
    /// let tail = |t: &str| ParseOptions::new().with_prompt_tail(t);
    /// let start = |o: &ParseOptions| ReasoningStart::detect(&DETECT, o, Stage::Content, true);
    /// assert_eq!(start(&tail("<|im_start|>assistant\n<think>\n")), ReasoningStart::Inside);
    /// assert_eq!(start(&tail("<|im_start|>assistant\n<think>\n\n</think>\n\n")), ReasoningStart::Off);
    /// assert_eq!(start(&tail("<|im_start|>assistant\n")), ReasoningStart::Optional);
    /// assert_eq!(start(&ParseOptions::new().with_enable_thinking(Some(false))), ReasoningStart::Off);
    /// ```
    pub fn detect(
        detector: &StageDetector,
        options: &ParseOptions,
        default: Stage,
        follows_switch: bool,
    ) -> ReasoningStart {
        let resolve = |default| {
            if follows_switch {
                detector.resolve(options, default)
            } else {
                detector.resolve_without_switch(options, default)
            }
        };
        if resolve(default) == Stage::Reasoning {
            ReasoningStart::Inside
        } else if resolve(Stage::Reasoning) == Stage::Content {
            ReasoningStart::Off
        } else {
            ReasoningStart::Optional
        }
    }
}

/// The markers around reasoning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReasoningMarkers {
    /// Opens reasoning (`<think>`).
    pub open: Cow<'static, str>,
    /// Closes reasoning (`</think>`).
    pub close: Cow<'static, str>,
    /// True when a call block that opens inside reasoning ends it (the parser's
    /// `BlockInReasoning::EndsReasoning`): where the output starts inside reasoning, the reasoning may
    /// end at the block's opener instead of the closing marker.
    pub ended_by_calls: bool,
}

/// How a call names its function and where its JSON arguments go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallName {
    /// The call is a JSON object `{"NAME": "function", "ARGUMENTS": {…}}` (Hermes).
    JsonFields {
        /// The key of the function name (`name`).
        name: Cow<'static, str>,
        /// The key of the arguments object (`arguments`).
        arguments: Cow<'static, str>,
    },
    /// As [`CallName::JsonFields`], with a call-id field first whose value is a string of digits:
    /// `{"ID": "0", "NAME": "function", "ARGUMENTS": {…}}` (Command-R7B / Command-A's
    /// `tool_call_id`, a counter).
    JsonFieldsIdFirst {
        /// The key of the call id (`tool_call_id`).
        id: Cow<'static, str>,
        /// The key of the function name (`tool_name`).
        name: Cow<'static, str>,
        /// The key of the arguments object (`parameters`).
        arguments: Cow<'static, str>,
    },
    /// The call is a JSON object whose only key is the function name and whose value is the arguments
    /// object: `{"get_weather": {…}}` (Apertus, in an [array](CallFormat::array)).
    NameAsKey,
    /// The name stands between literals, the arguments object after them:
    /// `PREFIX NAME [INDEX_SEPARATOR DIGITS] SUFFIX {…}` (Kimi: `functions.NAME:0<|tool_call_argument_begin|>`).
    Tagged {
        /// Before the name (`functions.`; may be empty).
        prefix: Cow<'static, str>,
        /// Before a call counter after the name (`:`), when the format writes one.
        index_separator: Option<Cow<'static, str>>,
        /// After the name (and counter), before the arguments (`<|tool_call_argument_begin|>`).
        suffix: Cow<'static, str>,
        /// The call's id stands first, as digits, then this literal, then the prefix (Solar:
        /// `<|tool_call:begin|>0<|tool_call:name|>NAME`).
        id_first: Option<Cow<'static, str>>,
        /// No whitespace between `call_begin` and what follows it (a call opened by the name's own
        /// prefix, `<function=NAME>`, which the parser reads with the name right after it).
        tight: bool,
    },
    /// The name stands between literals, each argument after it in tags of its own:
    /// `PREFIX NAME SUFFIX (KEY_OPEN key KEY_CLOSE VALUE_OPEN value VALUE_CLOSE)* END` (Qwen3-Coder XML,
    /// GLM's `<arg_key>`, DeepSeek's DSML); see [`ParameterTags`] for how the grammar holds the
    /// parameters to the tool's schema.
    Parameters {
        /// Before the name (`<function=`, ` name="`; may be empty). Whitespace may stand between
        /// `call_begin` and a prefix that does not start with whitespace itself; nothing else.
        prefix: Cow<'static, str>,
        /// After the name (`>`; may be empty).
        suffix: Cow<'static, str>,
        /// How each parameter is written.
        parameters: ParameterTags,
        /// After the last parameter, before `call_end` (`</function>`; may be empty).
        end: Cow<'static, str>,
    },
    /// The name after a literal, the arguments object between two literals:
    /// `PREFIX NAME OPEN {…} CLOSE` (DeepSeek R1: `function<｜tool▁sep｜>NAME`, then the arguments in a
    /// fence, "\n```json\n" `{…}` "\n```"). The grammars write `PREFIX NAME OPEN` exactly; the
    /// whitespace that starts `CLOSE` may be any whitespace or none (`{…}```` is read as well), and
    /// whitespace may follow `CLOSE`. The structural tag writes both literals as given.
    Enclosed {
        /// Before the name (`function<｜tool▁sep｜>`; may be empty).
        prefix: Cow<'static, str>,
        /// After the name, before the arguments (the opening fence).
        open: Cow<'static, str>,
        /// After the arguments (the closing fence).
        close: Cow<'static, str>,
    },
    /// The call is Python: `NAME(KEY=VALUE, …)`, keyword arguments whose values are Python literals
    /// (LFM2, Llama 4, Gemma). The grammars hold the keywords to the schema's properties as
    /// [`ParameterTags`] holds tagged ones, and each value to its schema as a Python literal (see
    /// [Python values](crate::constraint#python-values)); in a [`CallFormat::array`] the calls are a Python list.
    Python,
    /// The call is Gemma's: `call:NAME{KEY:VALUE,…}` (FunctionGemma, Gemma 4), bare keys, strings between
    /// two `delimiter` tokens, other values bare as JSON writes them. The grammars hold the keys to the
    /// schema's properties as [`ParameterTags`] holds tagged ones, and each value to its schema.
    Gemma {
        /// Opens and closes a string (`<escape>`, `<|"|>`).
        delimiter: Cow<'static, str>,
    },
    /// The call is a Python dict literal `{'NAME': 'function', 'ARGUMENTS': {…}}` (Sarashina, in an
    /// [array](CallFormat::array): a Python list of them), the arguments a dict whose keys the
    /// grammars hold to the schema's properties and whose values to their schemas as Python literals
    /// (see [Python values](crate::constraint#python-values)); strings in either quote.
    PythonDict {
        /// The key of the function name (`name`).
        name: Cow<'static, str>,
        /// The key of the arguments dict (`arguments`).
        arguments: Cow<'static, str>,
    },
    /// The name stands between literals, with a call counter after it when the format writes one,
    /// each argument an element after it: `PREFIX NAME [COUNTER digits] SUFFIX (element)*` (Kimi K3:
    /// `tool="NAME" index="1"<|sep|>` then `argument` elements whose heads name the value's type;
    /// MiniMax-M3: `NAME">` then one element per parameter, closed by its own name, values nested).
    /// See [`ElementTags`] for how the grammar holds the elements to the tool's schema.
    Elements {
        /// Before the name (`tool="`; may be empty).
        prefix: Cow<'static, str>,
        /// Before the call counter's digits, when the format writes one (`" index="`).
        counter: Option<Cow<'static, str>>,
        /// After the name (and counter), before the parameters (`"<|sep|>`, `">`).
        suffix: Cow<'static, str>,
        /// How each parameter is written.
        parameters: ElementTags,
    },
}

/// How a call writes each parameter ([`CallName::Parameters`]):
/// `KEY_OPEN name KEY_CLOSE [whitespace] VALUE_OPEN value VALUE_CLOSE`, with optional whitespace before
/// each parameter.
///
/// What the grammars hold a call to:
///
/// - **Names**: the tool's declared `properties` only, each at most once, every `required` one present.
///   Parsers read parameters in any order, and so do the grammars when a tool declares at most
///   [`ANY_ORDER_LIMIT`] properties (one rule per set of names already written: `2^n` rules); a tool with
///   more is held to its declared order (required ones always, optional ones optionally), which every
///   parser reads too, so that the grammar stays linear in the schema.
/// - **Values**, by the type the parser gives the parameter ([`crate::ValueType::from_schema`]): a
///   string (or a union with `string`, which the parser types by the first type the text fits) is raw
///   text after [`string_open`](Self::string_open); anything else is JSON valid against the
///   parameter's schema (`%json` in Lark, our converter in GBNF) after [`json_open`](Self::json_open),
///   with whitespace around it. A raw string is: one of its `enum` (or `const`) values, written as is;
///   with `minLength` / `maxLength`, that many characters, none of which opens a marker or is part of
///   the framing (stricter than the parser: such a string holds no `<` and, with a newline framing,
///   no newline, so that its length is the parsed value's); otherwise any text up to the first
///   `value_close` that contains none of `value_stops` and none of the format's markers (the framing
///   newlines are part of that text, and the parser drops them).
/// - Not held: a JSON value's strings may contain the value closer or a value stop (the parser would
///   end the value there; `%json` cannot exclude text from strings); `pattern` and `format` of raw
///   strings. A type JSON Schema does not name (`float`) is any JSON value, as the parser reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterTags {
    /// Before the parameter's name (`<parameter=`, `<arg_key>`, `<｜DSML｜parameter name="`).
    pub key_open: Cow<'static, str>,
    /// After the name (`>`, `</arg_key>`, `"`).
    pub key_close: Cow<'static, str>,
    /// Whitespace may stand between `key_close` and the value opener (GLM: `</arg_key>\n<arg_value>`).
    pub space_before_value: bool,
    /// Opens a raw string value (`<arg_value>`, ` string="true">`; may be empty).
    pub string_open: Cow<'static, str>,
    /// Opens a JSON value (`<arg_value>`, ` string="false">`; may be empty).
    pub json_open: Cow<'static, str>,
    /// Closes a value (`</parameter>`, `</arg_value>`).
    pub value_close: Cow<'static, str>,
    /// What the parser removes right inside the value's tags, once at each end (Qwen3-Coder: a
    /// newline; empty when the parser keeps the value exactly as written).
    pub framing: Cow<'static, str>,
    /// Markers that end a value in the parser when its closer is missing (`<parameter=`,
    /// `</function>`): a raw value never contains them.
    pub value_stops: Vec<Cow<'static, str>>,
    /// The whitespace a model writes before each parameter and, with `space_before_value`, before the
    /// value opener. Descriptive only: every form, the structural tag included (its calls of tagged
    /// parameters are a grammar), accepts any whitespace there.
    pub padding: Cow<'static, str>,
}

/// The most properties a tool may declare for the grammars of [`CallName::Parameters`] to accept its
/// parameters in any order; see [`ParameterTags`].
pub const ANY_ORDER_LIMIT: usize = 8;

/// The call envelope of a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFormat {
    /// Markers around all the calls of a turn (Kimi's section), if the format has them.
    pub section: Option<(Cow<'static, str>, Cow<'static, str>)>,
    /// With a section: calls may also stand without it (the parser reads a bare call too).
    pub section_optional: bool,
    /// Opens each call. Empty without a section: the calls stand bare at the start of the output (Llama
    /// 3.x's `{"name": …, "parameters": …}`, which a parser only reads there), so the grammar is never
    /// lazy — there is no marker to trigger on — and under `auto` it allows either the calls or text
    /// whose first character (after whitespace) cannot open a call (see [`FormatDescription::is_bare`]).
    pub call_begin: Cow<'static, str>,
    /// How the name and arguments are written.
    pub name: CallName,
    /// Closes each call.
    pub call_end: Cow<'static, str>,
    /// The whitespace a model writes inside a call, after `call_begin` and before `call_end` (Hermes:
    /// a newline), for the structural tag, whose tag boundaries are exact strings. The grammars accept
    /// any whitespace there.
    pub padding: Cow<'static, str>,
    /// Written between two calls: whitespace (the grammars accept any whitespace between calls) or a
    /// literal with whitespace around it (`,` between the elements of an [`array`](Self::array)).
    ///
    /// Python calls ([`CallName::Python`]) in a section, not in an array, with a line break for the
    /// separator stand one per line (Olmo 3's `<function_calls>\nf(a=1)\ng()\n</function_calls>`):
    /// the grammars write a line break right after each call's `)` but the last, the next call's name
    /// right after it.
    pub separator: Cow<'static, str>,
    /// The calls of a block are the elements of a JSON array (`[TOOL_CALLS] [{…}, {…}]`) or a Python
    /// list (`<|tool_call_start|>[f(a=1), g()]`): `[` opens the block's calls and `]` closes them,
    /// whitespace around both; the separator is then `,`. Calls have no markers of their own (an empty
    /// `call_begin` and `call_end`); the [`section`](Self::section)'s markers stand around the array
    /// (its end may be empty: the `]` closes the block), or, without a section, the list stands bare
    /// at the start of the answer ([`FormatDescription::is_bare`]: Llama 4's `[f(a=1)]`).
    pub array: bool,
}

/// A format, as far as constrained decoding needs it: filled from a family's marker constants (or,
/// later, from a template analysis), so that the grammar follows the markers the parser reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatDescription {
    /// The reasoning markers, if the format has reasoning.
    pub reasoning: Option<ReasoningMarkers>,
    /// The call envelope.
    pub calls: CallFormat,
    /// Other markers free text must not contain (end-of-turn tokens, other spellings of the openers).
    pub reserved: Vec<Cow<'static, str>>,
}

/// When a lazy grammar starts to apply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Triggers {
    /// Literal openers: the grammar applies from the first one written.
    pub words: Vec<String>,
    /// Regexes over the whole output so far (llama.cpp's `PATTERN_FULL`): the grammar applies from
    /// the start of the first capture group.
    pub patterns: Vec<String>,
}

/// The constraint of one request, in every engine's language.
///
/// A server hands one form to its engine, so the forms are rendered on first access, each once
/// (later calls, and clones of the constraint, share it): building a `Constraint` costs its triggers
/// and preserved tokens, and each form is paid for only when it is asked for (the Lark and GBNF forms
/// share a grammar tree, also built on first access). [`Constraint::lark`],
/// [`Constraint::gbnf`] and [`Constraint::structural_tag`] describe the same language (bar what each
/// engine cannot say, documented per form); [`Constraint::triggers`], [`Constraint::lazy`] and
/// [`Constraint::preserved_tokens`] hold for all three.
///
/// ```
/// use parser_core::constraint::{Constraint, Grammar, Node};
///
/// let grammar = Grammar { rules: vec![("start".into(), Node::Lit("yes".into()))] };
/// let constraint = Constraint::new(grammar, || serde_json::json!({"type": "structural_tag"}));
/// assert_eq!(constraint.lark(), "start: \"yes\"\n");
/// assert_eq!(constraint.gbnf(), "root ::= \"yes\"\n");
/// assert_eq!(constraint.structural_tag()["type"], "structural_tag");
/// assert!(!constraint.lazy);
/// ```
#[derive(Clone)]
pub struct Constraint {
    /// Where a lazy grammar starts to apply (empty when the grammar is not lazy).
    pub triggers: Triggers,
    /// True when the grammars cover the output from the first trigger on, not from its first token.
    pub lazy: bool,
    /// The format's markers, which the detokenizer must keep (llama.cpp's `preserved_tokens`).
    pub preserved_tokens: Vec<String>,
    forms: Arc<Forms>,
}

/// What a [`Constraint`]'s forms are rendered from, and each form once rendered.
struct Forms {
    build_grammar: Box<dyn Fn() -> Grammar + Send + Sync>,
    build_tag: TagBuilder,
    grammar: OnceLock<Grammar>,
    lark: OnceLock<String>,
    gbnf: OnceLock<String>,
    tag: OnceLock<Value>,
    tag_json: OnceLock<String>,
}

/// How a [`Constraint`]'s structural tag is built: as a `Value` (a family's own builder), or as JSON
/// text (a [`FormatDescription`]'s, which writes each tool's schema in place instead of copying it
/// into a `Value`); the other form is derived from it on first access.
enum TagBuilder {
    Value(Box<dyn Fn() -> Value + Send + Sync>),
    Json(Box<dyn Fn() -> String + Send + Sync>),
}

impl Constraint {
    /// A constraint whose grammars are `grammar` and whose structural tag `structural_tag` builds
    /// (on first access), not lazy, with no triggers and no preserved tokens: set those fields after.
    pub fn new(
        grammar: Grammar,
        structural_tag: impl Fn() -> Value + Send + Sync + 'static,
    ) -> Constraint {
        let constraint = Constraint::from_builders(Grammar::default, structural_tag);
        let _ = constraint.forms.grammar.set(grammar);
        constraint
    }

    /// As [`Constraint::new`], with the structural tag written as compact JSON text (what
    /// `serde_json::to_string` writes of it) on first access: a builder that can write the text
    /// without building a `Value` (each tool's schema serialized in place, not copied) saves the
    /// copies; [`Constraint::structural_tag`] then parses the text.
    ///
    /// ```
    /// use parser_core::constraint::{Constraint, Grammar};
    ///
    /// let constraint = Constraint::with_tag_text(Grammar::default(), || r#"{"type":"structural_tag"}"#.to_owned());
    /// assert_eq!(constraint.structural_tag()["type"], "structural_tag");
    /// ```
    pub fn with_tag_text(
        grammar: Grammar,
        structural_tag_json: impl Fn() -> String + Send + Sync + 'static,
    ) -> Constraint {
        let constraint = Constraint::from_text_builders(Grammar::default, structural_tag_json);
        let _ = constraint.forms.grammar.set(grammar);
        constraint
    }

    /// A constraint whose grammar tree `grammar` builds and whose structural tag `structural_tag`
    /// builds, each on first access (a server that takes the structural tag never builds the tree);
    /// not lazy, no triggers, no preserved tokens: set those fields after.
    ///
    /// ```
    /// use parser_core::constraint::{Constraint, Grammar, Node};
    ///
    /// let constraint = Constraint::from_builders(
    ///     || Grammar { rules: vec![("start".into(), Node::Lit("yes".into()))] },
    ///     || serde_json::json!({"type": "structural_tag"}),
    /// );
    /// assert_eq!(constraint.gbnf(), "root ::= \"yes\"\n");
    /// ```
    pub fn from_builders(
        grammar: impl Fn() -> Grammar + Send + Sync + 'static,
        structural_tag: impl Fn() -> Value + Send + Sync + 'static,
    ) -> Constraint {
        Constraint {
            triggers: Triggers::default(),
            lazy: false,
            preserved_tokens: Vec::new(),
            forms: Arc::new(Forms {
                build_grammar: Box::new(grammar),
                build_tag: TagBuilder::Value(Box::new(structural_tag)),
                grammar: OnceLock::new(),
                lark: OnceLock::new(),
                gbnf: OnceLock::new(),
                tag: OnceLock::new(),
                tag_json: OnceLock::new(),
            }),
        }
    }

    /// As [`Constraint::from_builders`], with the structural tag built as JSON text (see
    /// [`Constraint::with_tag_text`]): a family whose grammar tree and structural tag are both
    /// costly builds neither before its form is asked for.
    ///
    /// ```
    /// use parser_core::constraint::{Constraint, Grammar, Node};
    ///
    /// let constraint = Constraint::from_text_builders(
    ///     || Grammar { rules: vec![("start".into(), Node::Lit("yes".into()))] },
    ///     || r#"{"type":"structural_tag"}"#.to_owned(),
    /// );
    /// assert_eq!(constraint.structural_tag_json(), r#"{"type":"structural_tag"}"#);
    /// assert_eq!(constraint.lark(), "start: \"yes\"\n");
    /// ```
    pub fn from_text_builders(
        grammar: impl Fn() -> Grammar + Send + Sync + 'static,
        structural_tag_json: impl Fn() -> String + Send + Sync + 'static,
    ) -> Constraint {
        Constraint {
            triggers: Triggers::default(),
            lazy: false,
            preserved_tokens: Vec::new(),
            forms: Arc::new(Forms {
                build_grammar: Box::new(grammar),
                build_tag: TagBuilder::Json(Box::new(structural_tag_json)),
                grammar: OnceLock::new(),
                lark: OnceLock::new(),
                gbnf: OnceLock::new(),
                tag: OnceLock::new(),
                tag_json: OnceLock::new(),
            }),
        }
    }

    /// The grammar in llguidance's Lark dialect; arguments as `%json {schema}` (rendered on first
    /// access).
    pub fn lark(&self) -> &str {
        self.forms
            .lark
            .get_or_init(|| grammar::render_lark(self.grammar()))
    }

    /// The grammar in llama.cpp's GBNF, root rule `root` (rendered on first access).
    pub fn gbnf(&self) -> &str {
        self.forms.gbnf.get_or_init(|| gbnf::render(self.grammar()))
    }

    /// An xgrammar structural tag (`{"type": "structural_tag", "format": …}`), for vLLM and SGLang
    /// (built on first access).
    ///
    /// A server that sends the tag on as text (vLLM's and SGLang's `structural_tag` response format)
    /// takes [`Constraint::structural_tag_json`], which is cheaper to build.
    pub fn structural_tag(&self) -> &Value {
        self.forms.tag.get_or_init(|| match &self.forms.build_tag {
            TagBuilder::Value(build) => build(),
            TagBuilder::Json(_) => {
                serde_json::from_str(self.structural_tag_json()).unwrap_or(Value::Null)
            }
        })
    }

    /// The structural tag as compact JSON text (what `serde_json::to_string` writes of
    /// [`Constraint::structural_tag`]), built on first access.
    ///
    /// A constraint of a [`FormatDescription`] writes this text directly, each tool's schema
    /// serialized in place, and parses it only when the `Value` is asked for: the text is the
    /// cheap form.
    ///
    /// ```
    /// use parser_core::constraint::{Constraint, Grammar};
    ///
    /// let constraint = Constraint::new(Grammar::default(), || serde_json::json!({"type": "structural_tag"}));
    /// assert_eq!(constraint.structural_tag_json(), r#"{"type":"structural_tag"}"#);
    /// ```
    pub fn structural_tag_json(&self) -> &str {
        self.forms
            .tag_json
            .get_or_init(|| match &self.forms.build_tag {
                TagBuilder::Json(build) => build(),
                TagBuilder::Value(_) => {
                    serde_json::to_string(self.structural_tag()).unwrap_or_default()
                }
            })
    }

    /// The grammar tree the Lark and GBNF forms are rendered from (built on first access).
    pub fn grammar(&self) -> &Grammar {
        self.forms
            .grammar
            .get_or_init(|| (self.forms.build_grammar)())
    }
}

impl std::fmt::Debug for Constraint {
    /// Shows the grammar tree and the forms built so far (a debug print does not build them).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Constraint")
            .field("triggers", &self.triggers)
            .field("lazy", &self.lazy)
            .field("preserved_tokens", &self.preserved_tokens)
            .field("grammar", &self.forms.grammar.get())
            .field("lark", &self.forms.lark.get())
            .field("gbnf", &self.forms.gbnf.get())
            .field("structural_tag", &self.forms.tag.get())
            .finish()
    }
}

impl PartialEq for Constraint {
    /// Equal when every form is (renders what is not rendered yet).
    fn eq(&self, other: &Constraint) -> bool {
        self.triggers == other.triggers
            && self.lazy == other.lazy
            && self.preserved_tokens == other.preserved_tokens
            && self.lark() == other.lark()
            && self.gbnf() == other.gbnf()
            && self.structural_tag() == other.structural_tag()
    }
}

/// A family's constraint builder, registered beside its [`ParserEntry`] (by the entry's name).
///
/// ```ignore
/// parser_core::inventory::submit! {
///     ConstraintEntry { parser: "qwen3", build: constraint_qwen3 }
/// }
/// ```
#[derive(Debug)]
pub struct ConstraintEntry {
    /// The [`ParserEntry::name`] this builds constraints for.
    pub parser: &'static str,
    /// Builds the constraint of one request.
    pub build: fn(&ParseOptions, &ConstraintRequest) -> Result<Constraint, Error>,
}

inventory::collect!(ConstraintEntry);

impl ParserEntry {
    /// The constraint of one request for this parser's format, or `None` when its family does not
    /// describe its format for constrained decoding yet.
    pub fn constraint(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Option<Result<Constraint, Error>> {
        inventory::iter::<ConstraintEntry>
            .into_iter()
            .find(|entry| entry.parser == self.name)
            .map(|entry| (entry.build)(options, request))
    }
}

/// A JSON schema as a standalone GBNF grammar (root rule `root`).
///
/// Constrained: `type` (one or several), `enum`, `const`, `properties` in declared order with
/// `required`, `additionalProperties: false` (otherwise more keys with any value may follow),
/// `items` with `minItems`/`maxItems`, `anyOf`/`oneOf` (as alternatives), `minLength`/`maxLength`.
/// Not constrained (any value of the type passes): numeric bounds, `multipleOf`, `pattern`, `format`,
/// `patternProperties`, `propertyNames`, `min`/`maxProperties`, `uniqueItems`, `contains`,
/// `prefixItems`, `allOf`, `not`, `if`/`then`/`else`, `$ref`.
///
/// ```
/// let gbnf = parser_core::constraint::json_schema_to_gbnf(&serde_json::json!({"enum": ["a", 1]}));
/// assert_eq!(gbnf, "root ::= args\nargs ::= ( \"\\\"a\\\"\" | \"1\" )\n");
/// ```
pub fn json_schema_to_gbnf(schema: &Value) -> String {
    gbnf::schema_grammar(schema)
}

/// Writes `value` as compact JSON, byte for byte what `serde_json::to_string` writes: for a family
/// that writes its own structural tag (GPT-OSS). Long strings with many escapes (a grammar held in
/// a tag) are escaped a word at a time, where `serde_json` goes a byte at a time (a quarter of such
/// a tag's cost).
///
/// ```
/// let value = serde_json::json!({"grammar": "root ::= \"a\"\n", "n": [1, -2, 0.5, null]});
/// let mut text = String::new();
/// parser_core::constraint::push_json(&mut text, &value);
/// assert_eq!(text, serde_json::to_string(&value).unwrap());
/// ```
pub fn push_json(out: &mut String, value: &Value) {
    structural::write_value(out, value);
}

impl FormatDescription {
    /// The constraint of one request: `tools` are the request's tools, `start` where the prompt leaves
    /// the output.
    ///
    /// Errors: a named function that is not among the tools, or `required` without tools.
    pub fn constraint(
        &self,
        tools: Option<&Tools>,
        start: ReasoningStart,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        let (tools, required) = request.allowed_tools(tools)?;
        let start = if self.reasoning.is_none() {
            ReasoningStart::Off
        } else {
            start
        };
        let json = match &request.response_format {
            ResponseFormat::Text => None,
            ResponseFormat::JsonSchema(schema) => Some(schema),
        };
        // A bare format has no opener to trigger on: its `auto` grammar covers the whole output.
        let lazy = !tools.is_empty() && !required && json.is_none() && !self.is_bare();
        let triggers = if lazy {
            self.triggers(start)
        } else {
            Triggers::default()
        };
        // The grammar tree and the structural tag are built on first access, from what they own.
        let shape = Arc::new(Shape {
            format: self.clone(),
            tools: tools
                .iter()
                .map(|tool| CallTool {
                    name: tool.name.clone(),
                    parameters: tool.shared_parameters().clone(),
                })
                .collect(),
            required,
            parallel: request.parallel_tool_calls,
            start,
            json: json.cloned(),
            lazy,
        });
        let tag = shape.clone();
        let mut constraint = Constraint::from_text_builders(
            move || shape.format.grammar(&shape),
            move || structural::render_text(&tag),
        );
        constraint.triggers = triggers;
        constraint.lazy = lazy;
        constraint.preserved_tokens = self.preserved_tokens();
        Ok(constraint)
    }

    /// True when calls have no marker at all (no section, an empty `call_begin`): they stand bare at
    /// the start of the output (see [`CallFormat::call_begin`]).
    ///
    /// ```
    /// use parser_core::constraint::{CallFormat, CallName, FormatDescription};
    ///
    /// let llama = FormatDescription {
    ///     reasoning: None,
    ///     calls: CallFormat {
    ///         section: None,
    ///         section_optional: false,
    ///         call_begin: "".into(),
    ///         name: CallName::JsonFields { name: "name".into(), arguments: "parameters".into() },
    ///         call_end: "".into(),
    ///         padding: "".into(),
    ///         separator: "".into(),
    ///         array: false,
    ///     },
    ///     reserved: vec!["<|eot_id|>".into()],
    /// };
    /// assert!(llama.is_bare());
    /// ```
    pub fn is_bare(&self) -> bool {
        self.calls.section.is_none() && self.calls.call_begin.is_empty()
    }

    /// Python calls one per line in a section (see [`CallFormat::separator`]).
    fn python_lines(&self) -> bool {
        let calls = &self.calls;
        calls.name == CallName::Python
            && calls.section.is_some()
            && !calls.array
            && calls.separator.contains('\n')
            && calls.separator.trim().is_empty()
    }

    /// The character a bare call starts with: `{` for a JSON call, else its prefix's first.
    fn call_opening(&self) -> Option<char> {
        if self.calls.array {
            return Some('[');
        }
        match &self.calls.name {
            CallName::JsonFields { .. }
            | CallName::JsonFieldsIdFirst { .. }
            | CallName::NameAsKey => Some('{'),
            CallName::Tagged { prefix, .. }
            | CallName::Parameters { prefix, .. }
            | CallName::Enclosed { prefix, .. } => prefix.chars().next(),
            CallName::Gemma { .. } => Some('c'),
            CallName::PythonDict { .. } => Some('{'),
            CallName::Elements { prefix, .. } => prefix.chars().next(),
            CallName::Python => None,
        }
    }

    /// The markers that open a call block.
    fn openers(&self) -> Vec<String> {
        match &self.calls.section {
            Some((begin, _)) if self.calls.section_optional => {
                vec![begin.to_string(), self.calls.call_begin.to_string()]
            }
            Some((begin, _)) => vec![begin.to_string()],
            None => vec![self.calls.call_begin.to_string()],
        }
    }

    /// Every marker free text must avoid: reasoning markers, call framing openers, reserved tokens.
    fn markers(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(reasoning) = &self.reasoning {
            out.push(reasoning.open.to_string());
            out.push(reasoning.close.to_string());
        }
        if let Some((begin, _)) = &self.calls.section {
            out.push(begin.to_string());
        }
        out.push(self.calls.call_begin.to_string());
        out.extend(self.reserved.iter().map(|m| m.to_string()));
        out.retain(|m| !m.is_empty());
        out.dedup();
        out
    }

    fn preserved_tokens(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |m: &str| {
            if !m.is_empty() && !out.iter().any(|o| o == m) {
                out.push(m.to_owned());
            }
        };
        if let Some(reasoning) = &self.reasoning {
            add(&reasoning.open);
            add(&reasoning.close);
        }
        if let Some((begin, end)) = &self.calls.section {
            add(begin);
            add(end);
        }
        add(&self.calls.call_begin);
        match &self.calls.name {
            CallName::Tagged {
                suffix, id_first, ..
            } => {
                if let Some(id_end) = id_first {
                    add(id_end);
                }
                add(suffix);
            }
            CallName::Parameters {
                prefix,
                suffix,
                parameters,
                end,
            } => {
                // The tags among the literals (`<function=`, `</arg_key>`), not attribute text.
                let p = parameters;
                for literal in [
                    prefix,
                    suffix,
                    &p.key_open,
                    &p.key_close,
                    &p.string_open,
                    &p.json_open,
                    &p.value_close,
                    end,
                ] {
                    if literal.starts_with('<') {
                        add(literal);
                    }
                }
            }
            // An enclosed call's prefix is text around a token; the family lists that token.
            CallName::JsonFields { .. }
            | CallName::JsonFieldsIdFirst { .. }
            | CallName::NameAsKey
            | CallName::Enclosed { .. }
            | CallName::Python
            | CallName::PythonDict { .. } => {}
            CallName::Gemma { delimiter } => add(delimiter),
            // Element heads are spelt with the format's own tokens: the family lists them.
            CallName::Elements { .. } => {}
        }
        add(&self.calls.call_end);
        out
    }

    fn triggers(&self, start: ReasoningStart) -> Triggers {
        let words = self.openers();
        let opener = words
            .iter()
            .map(|w| ecma_escape(w))
            .collect::<Vec<_>>()
            .join("|");
        let pattern = match (&self.reasoning, start) {
            (Some(r), ReasoningStart::Inside) if !r.ended_by_calls => {
                format!("^[\\s\\S]*?{}[\\s\\S]*?({opener})", ecma_escape(&r.close))
            }
            (Some(r), ReasoningStart::Optional) => format!(
                "^(?:\\s*{}[\\s\\S]*?{})?[\\s\\S]*?({opener})",
                ecma_escape(&r.open),
                ecma_escape(&r.close)
            ),
            _ => format!("^[\\s\\S]*?({opener})"),
        };
        Triggers {
            words,
            patterns: vec![pattern],
        }
    }

    /// The grammar tree of one request.
    ///
    /// Rules: `call_i` (one call of tool `i`) is `call_begin` then `tail_i`; `calls` is the call block
    /// (section or calls) and `calls_tail` the same block after its first marker, for a reasoning that
    /// ends at the block's opener ([`ReasoningMarkers::ended_by_calls`]).
    fn grammar(&self, shape: &Shape) -> Grammar {
        // What free text avoids, shared by every text node that avoids it (moved in, not copied).
        let shared_markers: Arc<[String]> = self.markers().into();
        let markers = &shared_markers[..];
        // What raw parameter values never hold, the same for every tool.
        let values = match &self.calls.name {
            CallName::Parameters { parameters, .. } => {
                let stops = value_stops(parameters, markers);
                let excluded = counted_except(parameters, &stops);
                Some((Arc::<[String]>::from(stops), excluded))
            }
            _ => None,
        };
        // Sized for each tool's call and tail rules, and its parameter rules where calls have them
        // (no regrowth, each a copy of every rule).
        let per_tool = match &self.calls.name {
            CallName::Parameters { .. } | CallName::Python | CallName::Gemma { .. } => 10,
            _ => 2,
        };
        let mut rules: Vec<(String, Node)> = Vec::with_capacity(16 + shape.tools.len() * per_tool);
        rules.push((String::from("start"), Node::Seq(Vec::new())));
        let calls = &self.calls;
        let mut python = python::PyRules::default();
        let mut memo = ParameterMemo::for_tools(&shape.tools);
        let mut gemma = match &calls.name {
            CallName::Gemma { delimiter } => Some(gemma::GemmaRules::new(
                delimiter,
                vec![calls.call_end.to_string()],
            )),
            _ => None,
        };
        for (at, tool) in shape.tools.iter().enumerate() {
            rules.push((
                numbered("call_", at),
                Node::Seq(vec![
                    Node::Lit(calls.call_begin.clone()),
                    Node::Ref(RuleName::numbered("tail_", at, None)),
                ]),
            ));
            rules.push((numbered("tail_", at), self.call_tail(at, tool)));
            match (&calls.name, &values) {
                (CallName::Parameters { parameters, .. }, Some(values)) => {
                    rules.extend(parameter_rules(at, tool, parameters, values, &mut memo));
                }
                (CallName::Python, _) => rules.extend(python.arguments(at, tool)),
                (CallName::PythonDict { .. }, _) => {
                    rules.extend(dict::arguments(&mut python, at, tool));
                }
                (CallName::Elements { parameters, .. }, _) => {
                    rules.extend(elements::parameter_rules(at, tool, parameters, markers));
                }
                _ => {}
            }
            if let Some(gemma) = &mut gemma {
                rules.extend(gemma.arguments(at, tool));
            }
        }
        rules.append(&mut python.rules);
        if let Some(gemma) = &mut gemma {
            rules.append(&mut gemma.rules);
        }
        let any_of = |prefix: &'static str| {
            Node::Alt(
                (0..shape.tools.len())
                    .map(|at| Node::Ref(RuleName::numbered(prefix, at, None)))
                    .collect(),
            )
        };
        rules.push(("call".into(), any_of("call_")));
        let more = || {
            if self.python_lines() {
                // The line break right after `)`; the call's own whitespace follows it.
                return Node::Star(Box::new(Node::Seq(vec![
                    Node::Lit("\n".into()),
                    Node::Ref("call".into()),
                ])));
            }
            let separator = calls.separator.trim();
            let mut next = vec![Node::Ws];
            if !separator.is_empty() {
                next.push(Node::Lit(separator.to_owned().into()));
                next.push(Node::Ws);
            }
            next.push(Node::Ref("call".into()));
            Node::Star(Box::new(Node::Seq(next)))
        };
        let sequence = |first: Node| {
            let mut items = vec![first];
            if shape.parallel {
                items.push(more());
            }
            Node::Seq(items)
        };
        // (opener, the block after it) for each way a call block can open.
        let mut openings = Vec::new();
        let block = match &calls.section {
            Some((begin, end)) => {
                let mut items = vec![Node::Ws];
                if calls.array {
                    items.extend([Node::Lit("[".into()), Node::Ws]);
                }
                items.push(sequence(Node::Ref("call".into())));
                if calls.array {
                    items.extend([Node::Ws, Node::Lit("]".into())]);
                }
                if !end.is_empty() {
                    items.extend([Node::Ws, Node::Lit(end.clone())]);
                }
                let tail = Node::Seq(items);
                rules.push(("calls_tail".into(), tail));
                openings.push((begin.to_string(), "calls_tail"));
                let mut section = Node::Seq(vec![
                    Node::Lit(begin.clone()),
                    Node::Ref("calls_tail".into()),
                ]);
                if calls.name == CallName::Python && shape.parallel {
                    // A Python list per block, and more blocks after it (LFM2 writes both).
                    let again = Node::Seq(vec![Node::Ws, section.clone()]);
                    section = Node::Seq(vec![section, Node::Star(Box::new(again))]);
                }
                if calls.section_optional {
                    rules.push(("bare_calls".into(), sequence(Node::Ref("call".into()))));
                    rules.push(("bare_tail".into(), sequence(any_of("tail_"))));
                    openings.push((calls.call_begin.to_string(), "bare_tail"));
                    Node::Alt(vec![section, Node::Ref("bare_calls".into())])
                } else {
                    section
                }
            }
            None if calls.array => {
                // A list of bare calls (Llama 4's `[f(a=1), g()]`), at the start of the answer.
                Node::Seq(vec![
                    Node::Lit("[".into()),
                    Node::Ws,
                    sequence(Node::Ref("call".into())),
                    Node::Ws,
                    Node::Lit("]".into()),
                ])
            }
            None => {
                rules.push(("calls_tail".into(), sequence(any_of("tail_"))));
                openings.push((calls.call_begin.to_string(), "calls_tail"));
                sequence(Node::Ref("call".into()))
            }
        };
        rules.push(("calls".into(), block));

        // Free text; for a bare format, text that cannot open a call (the parser would read one).
        let free_text = if self.is_bare() {
            let mut except = vec![' ', '\t', '\n', '\r'];
            except.extend(self.call_opening());
            Node::Seq(vec![
                Node::Ws,
                Node::Opt(Box::new(Node::Seq(vec![
                    Node::Chars {
                        except,
                        min: 1,
                        max: Some(1),
                    },
                    Node::Text {
                        exclude: Arc::clone(&shared_markers),
                        until: None,
                    },
                ]))),
            ])
        } else {
            Node::Text {
                exclude: Arc::clone(&shared_markers),
                until: None,
            }
        };
        let answer = match &shape.json {
            Some(schema) => Some(Node::Seq(vec![
                Node::Ws,
                Node::Json(Arc::new(schema.clone())),
                Node::Ws,
            ])),
            None if shape.tools.is_empty() => Some(free_text),
            // Bare calls under `auto` (not lazy): the answer may be text instead.
            None if self.is_bare() && !shape.required => Some(free_text),
            None => None,
        };
        let tool_calls = Node::Seq(vec![Node::Ws, Node::Ref("calls".into()), Node::Ws]);
        let body = if shape.lazy {
            // From the trigger on: the call block, then the end of the output.
            Node::Seq(vec![Node::Ref("calls".into()), Node::Ws])
        } else if shape.tools.is_empty() {
            answer.unwrap_or(Node::Seq(Vec::new()))
        } else if shape.required {
            tool_calls
        } else {
            match answer {
                Some(answer) => Node::Alt(vec![answer, tool_calls]),
                None => tool_calls,
            }
        };
        let start = match (&self.reasoning, shape.start) {
            (Some(reasoning), ReasoningStart::Inside | ReasoningStart::Optional) if !shape.lazy => {
                let inside: Vec<String> = markers
                    .iter()
                    .filter(|m| **m != reasoning.close)
                    .cloned()
                    .collect();
                let closed = Node::Text {
                    exclude: inside.into(),
                    until: Some(reasoning.close.to_string()),
                };
                let open = Node::Lit(reasoning.open.clone());
                if shape.start == ReasoningStart::Optional {
                    // The reasoning parser opens reasoning at an opener after leading whitespace
                    // (GLM-4.5 writes `\n<think>`).
                    Node::Seq(vec![
                        Node::Opt(Box::new(Node::Seq(vec![Node::Ws, open, closed]))),
                        body,
                    ])
                } else {
                    // A redundant opener at the very start is dropped by the reasoning parser.
                    let lead = Node::Opt(Box::new(open));
                    let mut ways = vec![Node::Seq(vec![lead.clone(), closed, body])];
                    if reasoning.ended_by_calls && !shape.tools.is_empty() {
                        // A bare call cannot open inside reasoning: it only stands at the answer's start.
                        for (opener, tail) in openings.into_iter().filter(|(o, _)| !o.is_empty()) {
                            ways.push(Node::Seq(vec![
                                lead.clone(),
                                Node::Text {
                                    exclude: Arc::clone(&shared_markers),
                                    until: Some(opener),
                                },
                                Node::Ref(tail.into()),
                                Node::Ws,
                            ]));
                        }
                    }
                    Node::Alt(ways)
                }
            }
            _ => body,
        };
        rules[0].1 = start;
        if shape.tools.is_empty() {
            rules.truncate(1);
        }
        Grammar { rules }
    }

    /// One call of `tool` (the `at`-th), after its `call_begin`.
    fn call_tail(&self, at: usize, tool: &CallTool) -> Node {
        let calls = &self.calls;
        if let CallName::Parameters {
            prefix,
            suffix,
            end,
            ..
        } = &calls.name
        {
            let mut items = Vec::with_capacity(8);
            // Whitespace may stand before a prefix that is a tag; a prefix that starts with whitespace
            // (DSML's ` name="`) is written exactly (optional whitespace right before whitespace would
            // leave a grammar's lexer no way to end it).
            if prefix.starts_with(|c: char| !c.is_whitespace()) {
                items.push(Node::Ws);
            }
            items.push(Node::Lit(
                [prefix, tool.name.as_str(), suffix].concat().into(),
            ));
            items.push(args_ref(at));
            items.push(Node::Ws);
            if !end.is_empty() {
                items.extend([Node::Lit(end.clone()), Node::Ws]);
            }
            items.push(Node::Lit(calls.call_end.clone()));
            return Node::Seq(items);
        }
        if let CallName::PythonDict { name, arguments } = &calls.name {
            return dict::call_tail(calls, name, arguments, at, tool);
        }
        if let CallName::Elements {
            prefix,
            counter,
            suffix,
            parameters,
        } = &calls.name
        {
            return elements::call_tail(
                calls,
                at,
                tool,
                prefix,
                counter.as_deref(),
                suffix,
                parameters,
            );
        }
        if let CallName::Gemma { .. } = &calls.name {
            // `call:NAME` as the parser reads it, then the arguments object.
            return Node::Seq(vec![
                Node::Ws,
                Node::Lit(format!("call:{}", tool.name).into()),
                Node::Ws,
                Node::Ref(format!("args_{at}_0").into()),
                Node::Ws,
                Node::Lit(calls.call_end.clone()),
            ]);
        }
        if let CallName::Python = &calls.name {
            // Whitespace before the name (after `[`, a section opener or `,`) — but right after the
            // line break that separates calls one per line, where whitespace after the break would
            // be lexed as one run with it; the name and `(` as the parser reads them, the arguments
            // with their own whitespace.
            let mut items = if self.python_lines() {
                Vec::with_capacity(6)
            } else {
                vec![Node::Ws]
            };
            items.extend([
                Node::Lit(format!("{}(", tool.name).into()),
                Node::Ws,
                Node::Ref(format!("args_{at}_0").into()),
                Node::Lit(")".into()),
            ]);
            if !calls.call_end.is_empty() {
                items.extend([Node::Ws, Node::Lit(calls.call_end.clone())]);
            }
            return Node::Seq(items);
        }
        // The name as a JSON string, for the shapes that write it so (made only for them).
        let name = || Node::Lit(json_string(&tool.name).into());
        let args = Node::Json(tool.shared_parameters().clone());
        // Sized for the call: no regrowth per tool (JSON fields with an id first are the longest; a
        // block of 32 nodes for every shape was past the allocator's small sizes).
        let capacity = match &calls.name {
            CallName::JsonFields { .. } | CallName::JsonFieldsIdFirst { .. } => 32,
            _ => 12,
        };
        let mut items = Vec::with_capacity(capacity);
        items.push(Node::Ws);
        match &calls.name {
            CallName::JsonFields {
                name: name_key,
                arguments,
            }
            | CallName::JsonFieldsIdFirst {
                name: name_key,
                arguments,
                ..
            } => {
                let key = |k: &str| Node::Lit(json_key(k));
                items.extend([Node::Lit("{".into()), Node::Ws]);
                if let CallName::JsonFieldsIdFirst { id, .. } = &calls.name {
                    // The id as a counter: digits in a string.
                    items.extend([
                        key(id),
                        Node::Ws,
                        Node::Lit(":".into()),
                        Node::Ws,
                        Node::Lit("\"".into()),
                        Node::Digits,
                        Node::Lit("\"".into()),
                        Node::Ws,
                        Node::Lit(",".into()),
                        Node::Ws,
                    ]);
                }
                items.extend([
                    key(name_key),
                    Node::Ws,
                    Node::Lit(":".into()),
                    Node::Ws,
                    name(),
                    Node::Ws,
                    Node::Lit(",".into()),
                    Node::Ws,
                    key(arguments),
                    Node::Ws,
                    Node::Lit(":".into()),
                    Node::Ws,
                    args,
                    Node::Ws,
                    Node::Lit("}".into()),
                ]);
            }
            CallName::Tagged {
                prefix,
                index_separator,
                suffix,
                id_first,
                tight,
            } => {
                if *tight {
                    items.clear();
                }
                if let Some(id_end) = id_first {
                    // The id as a counter.
                    items.extend([Node::Digits, Node::Lit(id_end.clone()), Node::Ws]);
                }
                items.push(Node::Lit([prefix, tool.name.as_str()].concat().into()));
                if let Some(separator) = index_separator {
                    items.push(Node::Lit(separator.clone()));
                    items.push(Node::Digits);
                }
                items.extend([Node::Ws, Node::Lit(suffix.clone()), Node::Ws, args]);
            }
            CallName::NameAsKey => {
                items.extend([
                    Node::Lit("{".into()),
                    Node::Ws,
                    name(),
                    Node::Ws,
                    Node::Lit(":".into()),
                    Node::Ws,
                    args,
                    Node::Ws,
                    Node::Lit("}".into()),
                ]);
            }
            CallName::Parameters { .. }
            | CallName::Python
            | CallName::Gemma { .. }
            | CallName::PythonDict { .. }
            | CallName::Elements { .. } => {}
            CallName::Enclosed {
                prefix,
                open,
                close,
            } => {
                // Whitespace that starts `close` may be any whitespace, or none.
                let close = close.trim_start_matches([' ', '\t', '\r', '\n']);
                items.extend([
                    Node::Lit([prefix, tool.name.as_str(), open].concat().into()),
                    args,
                    Node::Ws,
                    Node::Lit(close.to_owned().into()),
                ]);
            }
        }
        items.extend([Node::Ws, Node::Lit(calls.call_end.clone())]);
        Node::Seq(items)
    }
}

/// [`json_string`] of a JSON call's key as a literal: the keys formats use are constants (a string
/// of each per tool was a tenth of a JSON format's allocations).
fn json_key(key: &str) -> Cow<'static, str> {
    match key {
        "name" => Cow::Borrowed("\"name\""),
        "arguments" => Cow::Borrowed("\"arguments\""),
        "parameters" => Cow::Borrowed("\"parameters\""),
        "id" => Cow::Borrowed("\"id\""),
        "function" => Cow::Borrowed("\"function\""),
        key => json_string(key).into(),
    }
}

/// `text` as a JSON string (what `serde_json::to_string` writes), without the serializer.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    grammar::push_json_escaped(&mut out, text);
    out.push('"');
    out
}

/// `PREFIX` then `at` in decimal: a rule name (without `format!`, whose machinery shows in the profile
/// of a request with many tools).
fn numbered(prefix: &str, at: usize) -> String {
    let mut name = String::with_capacity(prefix.len() + 4);
    name.push_str(prefix);
    grammar::push_number(&mut name, at as u64);
    name
}

/// `param_AT_INDEX`: the rule of one parameter of the `at`-th tool.
fn param_rule(at: usize, index: usize) -> String {
    let mut name = numbered("param_", at);
    name.push('_');
    grammar::push_number(&mut name, index as u64);
    name
}

/// `args_AT_0`: the parameters of the `at`-th tool.
fn args_rule(at: usize) -> String {
    let mut name = numbered("args_", at);
    name.push_str("_0");
    name
}

/// A reference to [`args_rule`]`(at)`, spelled only when a grammar is written.
fn args_ref(at: usize) -> Node {
    Node::Ref(RuleName::numbered("args_", at, Some(0)))
}

/// The name of [`param_rule`]`(at, index)`, spelled only when a grammar is written.
fn param_name(at: usize, index: usize) -> RuleName {
    RuleName::numbered("param_", at, Some(index))
}

/// How a parameter's value is written, as the parser types it.
pub(crate) enum ValueForm<'a> {
    /// JSON valid against the schema.
    Json(Cow<'a, Value>),
    /// Raw text, one of these values.
    OneOf(Vec<String>),
    /// Raw text of `min..=max` characters (no marker's first character, no framing character).
    Counted { min: u64, max: Option<u64> },
    /// Raw text up to the value closer.
    Free,
}

/// How the parser reads a value of `schema`: raw text for a string (or a union with `string`), JSON
/// otherwise; a raw string by its `enum`/`const` or length bounds.
pub(crate) fn value_form(schema: &Value) -> ValueForm<'_> {
    let raw = match simple_value_type(schema).unwrap_or_else(|| ValueType::from_schema(schema)) {
        ValueType::String => true,
        ValueType::Union(types) => types.contains(&ValueType::String),
        // A type JSON Schema does not name (`float`): the parser takes any JSON value.
        ValueType::Any if schema.get("type").is_some() => {
            return ValueForm::Json(Cow::Owned(Value::Object(serde_json::Map::new())));
        }
        _ => false,
    };
    if !raw {
        return ValueForm::Json(Cow::Borrowed(schema));
    }
    let written = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    // The members that decide, read in one pass (a lookup each cost more than the pass).
    let (mut constant, mut values, mut min, mut max) = (None, None, None, None);
    for (key, value) in schema.as_object().into_iter().flatten() {
        match key.as_str() {
            "const" => constant = Some(value),
            "enum" => values = value.as_array(),
            "minLength" => min = value.as_u64(),
            "maxLength" => max = value.as_u64(),
            _ => {}
        }
    }
    if let Some(value) = constant {
        return ValueForm::OneOf(vec![written(value)]);
    }
    if let Some(values) = values {
        return ValueForm::OneOf(values.iter().map(written).collect());
    }
    if min.is_none() && max.is_none() {
        ValueForm::Free
    } else {
        ValueForm::Counted {
            min: min.unwrap_or(0),
            max,
        }
    }
}

/// [`ValueType::from_schema`] of a schema with no `anyOf`, `oneOf` or `nullable` and at most one
/// `type` name (a property's usual schema), read in one pass over its members without allocating;
/// `None` for any other schema.
fn simple_value_type(schema: &Value) -> Option<ValueType> {
    let mut kind = None;
    for (key, value) in schema.as_object()? {
        match key.as_str() {
            // A list of types: `from_schema`'s union.
            "type" => kind = Some(value.as_str()?),
            "anyOf" | "oneOf" | "nullable" => return None,
            _ => {}
        }
    }
    // Without a type, `enum` decides: `from_schema` reads it.
    kind.map(ValueType::named)
}

/// A tool's declared properties (of its `parameters` schema), in declared order, each with whether it is required.
pub(crate) fn properties(schema: &Value) -> Vec<(&str, &Value, bool)> {
    // `required` searched as it stands (a list of its names per tool was an allocation per tool).
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let is_required = |name: &str| required.iter().any(|item| item.as_str() == Some(name));
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, schema)| (name.as_str(), schema, is_required(name)))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a tool's parameters keep `$defs` / `definitions` at their root.
fn has_root_definitions(root: &Value) -> bool {
    root.get("$defs").is_some() || root.get("definitions").is_some()
}

/// A property's schema compiled on its own, with the definitions of the tool's parameters it may
/// refer to (`{"$ref": "#/$defs/code"}` points into the parameters' root, which the property's own
/// `%json` does not see): the root's `$defs` / `definitions` copied in where the property has none.
fn with_root_definitions(mut schema: Value, root: &Value) -> Value {
    if let Value::Object(object) = &mut schema {
        for key in ["$defs", "definitions"] {
            if let Some(definitions) = root.get(key)
                && !object.contains_key(key)
            {
                object.insert(key.to_owned(), definitions.clone());
            }
        }
    }
    schema
}

/// What a raw value never contains: the value stops and the format's markers (not the closer, which
/// ends it).
pub(crate) fn value_stops(tags: &ParameterTags, markers: &[String]) -> Vec<String> {
    let mut stops: Vec<String> = tags.value_stops.iter().map(|s| s.to_string()).collect();
    stops.extend(markers.iter().cloned());
    stops.retain(|s| !s.is_empty() && *s != tags.value_close);
    stops
}

/// The characters a counted raw string never holds: the first character of the closer and of every
/// stop, and the framing's.
pub(crate) fn counted_except(tags: &ParameterTags, stops: &[String]) -> Vec<char> {
    let mut excluded: Vec<char> = stops
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(tags.value_close.as_ref()))
        .filter_map(|s| s.chars().next())
        .chain(tags.framing.chars())
        .collect();
    excluded.sort_unstable();
    excluded.dedup();
    excluded
}

/// The rules of the parameters of the `at`-th tool: `param_AT_I` (one parameter, whitespace first) and
/// `args_AT_0`, the parameters in any order ([`Node::AnyOrder`]), or with more than
/// [`ANY_ORDER_LIMIT`] properties in declared order.
///
/// `values`: what no raw value holds ([`value_stops`]) and the characters a counted one never holds
/// ([`counted_except`]).
fn parameter_rules<'t>(
    at: usize,
    tool: &'t CallTool,
    tags: &ParameterTags,
    values: &(Arc<[String]>, Vec<char>),
    memo: &mut ParameterMemo<'t>,
) -> Vec<(String, Node)> {
    let properties = properties(tool.parameters());
    let mut rules = Vec::with_capacity(properties.len() + 1);
    // The rule of each property: its own, or an earlier tool's for the same property alike. A
    // property's rule depends on its name and schema only, unless the tool keeps definitions at
    // its root (which a `$ref` in the property needs beside it): those are not shared.
    let shared = !has_root_definitions(tool.parameters());
    let mut names: Vec<RuleName> = Vec::with_capacity(properties.len());
    let (stops, excluded) = values;
    let close = Node::Lit(tags.value_close.clone());
    // Pushed straight into the parameter's items (a vector of it per use was an allocation more).
    let framing = |items: &mut Vec<Node>| {
        if !tags.framing.is_empty() {
            items.push(Node::Opt(Box::new(Node::Lit(tags.framing.clone()))));
        }
    };
    for (index, &(name, schema, _)) in properties.iter().enumerate() {
        if shared && let Some((tool, index)) = memo.find(name, schema) {
            names.push(param_name(tool, index));
            continue;
        }
        if shared {
            memo.insert(name, schema, at, index);
        }
        names.push(param_name(at, index));
        let mut items = Vec::with_capacity(10);
        items.extend([
            Node::Ws,
            Node::Lit([&tags.key_open, name, &tags.key_close].concat().into()),
        ]);
        if tags.space_before_value {
            items.push(Node::Ws);
        }
        match value_form(schema) {
            ValueForm::Json(schema) => items.extend([
                Node::Lit(tags.json_open.clone()),
                Node::Ws,
                match schema {
                    // The tool's schema stays shared: the node points into it — unless the tool
                    // keeps definitions at its root, which a `$ref` in the property needs beside it.
                    Cow::Borrowed(_) if !has_root_definitions(tool.parameters()) => {
                        Node::JsonProperty {
                            parameters: tool.shared_parameters().clone(),
                            property: name.to_owned(),
                        }
                    }
                    schema => Node::Json(Arc::new(with_root_definitions(
                        schema.into_owned(),
                        tool.parameters(),
                    ))),
                },
                Node::Ws,
                close.clone(),
            ]),
            ValueForm::OneOf(values) => {
                items.push(Node::Lit(tags.string_open.clone()));
                framing(&mut items);
                items.push(Node::Alt(
                    values
                        .into_iter()
                        .map(|value| Node::Lit(value.into()))
                        .collect(),
                ));
                framing(&mut items);
                items.push(close.clone());
            }
            ValueForm::Counted { min, max } => {
                items.push(Node::Lit(tags.string_open.clone()));
                framing(&mut items);
                items.push(Node::Chars {
                    except: excluded.clone(),
                    min,
                    max,
                });
                framing(&mut items);
                items.push(close.clone());
            }
            ValueForm::Free => items.extend([
                Node::Lit(tags.string_open.clone()),
                Node::Text {
                    exclude: Arc::clone(stops),
                    until: Some(tags.value_close.to_string()),
                },
            ]),
        }
        items.retain(|item| !matches!(item, Node::Lit(text) if text.is_empty()));
        rules.push((param_rule(at, index), Node::Seq(items)));
    }
    // Each name moves into its reference (no copy per property).
    let params = names
        .into_iter()
        .zip(&properties)
        .map(|(name, &(_, _, required))| (Node::Ref(name), required));
    let args = if properties.len() > ANY_ORDER_LIMIT {
        Node::Seq(
            params
                .map(|(param, required)| {
                    if required {
                        param
                    } else {
                        Node::Opt(Box::new(param))
                    }
                })
                .collect(),
        )
    } else {
        Node::AnyOrder(params.collect())
    };
    rules.push((args_rule(at), args));
    rules
}

/// The parameter rules of one grammar's tools (tagged parameters, Python keyword items), by
/// property name and schema: a property that an earlier tool declares alike (the same `query` in
/// every tool of a request) takes that tool's rule.
/// Its value is then built and rendered once, and the renderers see the same item in the any-order
/// sets of both tools, which lets them share their set rules ([`grammar::SharedSets`]).
#[derive(Default)]
pub(crate) struct ParameterMemo<'t> {
    /// The first property with this name (an index into `seen`); the others with the name are
    /// chained (a name has one schema in most requests: a comparison, not a hash of every schema).
    by_name: gbnf::FastMap<&'t str, usize>,
    /// Each property written: its name, schema, tool and place in the tool (which name its rule,
    /// `param_AT_INDEX`), and the next property with its name.
    seen: Vec<(&'t str, &'t Value, usize, usize, Option<usize>)>,
}

impl<'t> ParameterMemo<'t> {
    /// A memo with room for the properties of `tools` (no growth while it fills).
    fn for_tools(tools: &[CallTool]) -> Self {
        let count = tools
            .iter()
            .filter_map(|tool| tool.parameters().get("properties")?.as_object())
            .map(serde_json::Map::len)
            .sum();
        let mut by_name = gbnf::FastMap::default();
        by_name.reserve(count);
        ParameterMemo {
            by_name,
            seen: Vec::with_capacity(count),
        }
    }

    /// The tool and place of an earlier property with this name and schema: its rule's numbers
    /// (`param_TOOL_INDEX`, or Python's `pyarg_TOOL_INDEX`).
    pub(crate) fn find(&self, name: &str, schema: &Value) -> Option<(usize, usize)> {
        let mut next = self.by_name.get(name).copied();
        while let Some(at) = next {
            let (_, seen, tool, index, after) = self.seen[at];
            if gbnf::same_schema(seen, schema) {
                return Some((tool, index));
            }
            next = after;
        }
        None
    }

    /// Files a property whose rule the `index`-th of tool `tool` wrote.
    pub(crate) fn insert(&mut self, name: &'t str, schema: &'t Value, tool: usize, index: usize) {
        let after = self.by_name.insert(name, self.seen.len());
        self.seen.push((name, schema, tool, index, after));
    }
}

impl Grammar {
    /// The grammar in llguidance's Lark dialect (JSON as `%json {schema}`; the first rule is `start`).
    ///
    /// ```
    /// use parser_core::constraint::{Grammar, Node};
    ///
    /// let grammar = Grammar {
    ///     rules: vec![(
    ///         "start".into(),
    ///         Node::Seq(vec![
    ///             Node::Lit("<call>".into()),
    ///             Node::Json(std::sync::Arc::new(serde_json::json!({"type": "object"}))),
    ///             Node::Text { exclude: vec!["<call>".into()].into(), until: Some("<end>".into()) },
    ///         ]),
    ///     )],
    /// };
    /// let lark = grammar.lark();
    /// assert!(lark.starts_with("start: (\"<call>\" json_1 text_1)\n"));
    /// assert!(lark.contains("json_1: %json {\"type\":\"object\"}"));
    /// let gbnf = grammar.gbnf();
    /// assert!(gbnf.starts_with("root ::= ( \"<call>\" "));
    /// ```
    pub fn lark(&self) -> String {
        grammar::render_lark(self)
    }

    /// The grammar in llama.cpp's GBNF (JSON through [`json_schema_to_gbnf`]'s converter, text as
    /// marker-avoiding rules; the first rule is `root`).
    pub fn gbnf(&self) -> String {
        gbnf::render(self)
    }
}

/// What one request asks for, resolved, owned: a [`Constraint`] builds its grammar and structural
/// tag from it on first access, after the request's borrowed tools are gone.
pub(crate) struct Shape {
    pub(crate) format: FormatDescription,
    /// The tools a call may name.
    pub(crate) tools: Vec<CallTool>,
    pub(crate) required: bool,
    pub(crate) parallel: bool,
    pub(crate) start: ReasoningStart,
    pub(crate) json: Option<Value>,
    pub(crate) lazy: bool,
}

/// A tool a call may name: its name and its `parameters` schema (shared with the request's
/// [`ToolSchema`]).
pub(crate) struct CallTool {
    pub(crate) name: String,
    parameters: Arc<Value>,
}

impl CallTool {
    pub(crate) fn parameters(&self) -> &Value {
        &self.parameters
    }

    pub(crate) fn shared_parameters(&self) -> &Arc<Value> {
        &self.parameters
    }
}

/// `text` as an ECMAScript (and Rust) regex matching itself, for [`Triggers::patterns`].
///
/// ```
/// assert_eq!(parser_core::constraint::ecma_escape("<|call|>"), r"<\|call\|>");
/// ```
pub fn ecma_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\^$.|?*+()[]{}/-".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
