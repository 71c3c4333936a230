//! Chat templates: loading them from Hugging Face files and rendering them as Hugging Face does.
//!
//! A [`ChatTemplate`] is compiled once (minijinja 3) and rendered many times with a [`RenderInput`]:
//! OpenAI-style messages, tools, `add_generation_prompt`, `enable_thinking` and any other template
//! keyword arguments.
//!
//! ```
//! use parser_auto::template::{ChatTemplate, RenderInput};
//! use serde_json::json;
//!
//! let template = ChatTemplate::from_source(
//!     "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}\
//!      {% if add_generation_prompt %}<|assistant|>{% if enable_thinking %}<think>{% endif %}{% endif %}",
//! )
//! .unwrap();
//! let input = RenderInput {
//!     messages: vec![json!({"role": "user", "content": "Hi"})],
//!     add_generation_prompt: true,
//!     enable_thinking: Some(true),
//!     ..RenderInput::default()
//! };
//! assert_eq!(template.render(&input).unwrap(), "<|user|>Hi<|assistant|><think>");
//! ```
//!
//! # Compatibility with Hugging Face (Python Jinja)
//!
//! Templates are compiled with `trim_blocks` and `lstrip_blocks` and without auto-escaping, as
//! `transformers` does, with `minijinja-contrib`'s Python methods on strings, lists and dicts, and with:
//! - `tojson` as Hugging Face defines it — `json.dumps` byte for byte: `", "` / `": "` separators, no HTML
//!   escaping, `ensure_ascii` off by default, and the `indent`, `ensure_ascii`, `sort_keys` and
//!   `separators` keyword arguments;
//! - lists that templates can mutate (`ns.ids.append(x)`, `.pop(0)`, `.extend`, …): every JSON array
//!   given to a template and every list stored in a `namespace()` is such a list;
//! - `x is iterable` false for `none`, `undefined|length` 0, `indent` keeping a trailing newline;
//! - `raise_exception(msg)` (a render error carrying `msg`), `strftime_now(fmt)` (UTC), `bos_token`,
//!   `eos_token`, and `{% generation %}` blocks (rendered as their body).
//!
//! **Key order.** JSON objects given to a template keep the order in which they are given, and `tojson`
//! prints them in that order (Python dicts keep insertion order; `sort_keys=True` sorts). With
//! [`RenderInput`] the order is `serde_json::Map`'s iteration order, which is *sorted by key* unless
//! `serde_json`'s `preserve_order` feature is enabled in the build; [`ChatTemplate::render_json`] takes
//! the context as JSON text and keeps the document order whatever the features. Dict literals written
//! in a template are minijinja maps, sorted by key unless minijinja's `preserve_order` feature is on.
//!
//! **Tool-call arguments.** Most templates want `function.arguments` as an object (`arguments|tojson`,
//! `arguments|items`); some concatenate it as a string. [`ChatTemplate::arguments_as_string`] probes the
//! template once and [`ChatTemplate::render`] converts the arguments accordingly, whichever form the
//! messages carry.

mod budget;
mod env;
mod load;
mod polyfill;
pub(crate) mod pyjson;
mod strftime;
mod values;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use minijinja::Environment;
use minijinja::value::{Value, ValueKind};
pub use parser_core::TemplateLimits;
use parser_core::{Error, ErrorKind, ParseOptions, SpecialTokens, Tools};

pub use budget::RenderStats;
pub use polyfill::{Capabilities, Polyfill};

pub(crate) use env::pystr::is_space as python_isspace;
use load::TokenizerConfig;
pub(crate) use load::invalid;
use values::{PyDict, PyList};

/// A compiled chat template with the tokens it is rendered with.
///
/// Cheap to clone (the compiled environment is shared). Rendering never panics; a template that fails
/// (a `raise_exception`, an undefined method, …) is an `Err` with [`parser_core::ErrorKind::InvalidOption`]
/// and a message naming the template and the line.
///
/// # Models with several named templates
///
/// Some models ship a list of named chat templates: Hermes-2-Pro and Command-R have `default` and
/// `tool_use` (and Command-R `rag`). transformers picks one per `apply_chat_template` call: the one
/// named by the caller, else `tool_use` when the request passes tools and the model has one, else
/// `default`. A template loaded from such a model without a name does the same: it is the `default`
/// one, and keeps the `tool_use` one for requests with tools —
/// [`render_prompt`](Self::render_prompt) and [`render_request`](Self::render_request) render a request
/// that has tools (even an empty list) with it, and [`crate::prepare`] prepares a parser for each, which
/// [`Prepared::parser`](crate::Prepared::parser) picks by whether the request's
/// [`ParseOptions::tools`] are set. [`for_request`](Self::for_request) says which template a request
/// gets; the lower-level [`render`](Self::render), [`render_json`](Self::render_json) and the analysis
/// use this template's own source. A template chosen by name
/// ([`from_tokenizer_config`](Self::from_tokenizer_config) with `Some(name)`,
/// [`from_model_dir_named`](Self::from_model_dir_named), [`select`](Self::select)) is used for every
/// request, as transformers uses a template the caller names.
///
/// ```
/// use parser_auto::serde_json::json;
/// use parser_auto::template::{ChatTemplate, RenderInput};
///
/// let config = json!({"chat_template": [
///     {"name": "default", "template": "{% for m in messages %}{{ m.content }}{% endfor %}"},
///     {"name": "tool_use", "template": "{% for t in tools %}[{{ t.function.name }}]{% endfor %}\
///                                       {% for m in messages %}{{ m.content }}{% endfor %}"},
/// ]});
/// let template = ChatTemplate::from_tokenizer_config(&config.to_string(), None)?;
/// let hi = RenderInput::new(vec![json!({"role": "user", "content": "Hi"})]);
/// let tool = json!({"type": "function", "function": {"name": "f", "parameters": {}}});
/// assert_eq!(template.render_prompt(&hi)?.text, "Hi");
/// assert_eq!(template.render_prompt(&hi.clone().with_tools(vec![tool.clone()]))?.text, "[f]Hi");
/// assert_eq!(template.for_request(true).name(), "tool_use");
/// assert_eq!(template.template_names(), ["default", "tool_use"]);
/// // Chosen by name: that template for every request (this one ignores tools: `render_prompt`
/// // describes them in a system message instead).
/// let default = template.select("default")?;
/// assert_eq!(default.for_request(true).name(), "default");
/// assert_eq!(default.render(&hi.with_tools(vec![tool]))?, "Hi");
/// # Ok::<(), parser_auto::Error>(())
/// ```
#[derive(Clone)]
pub struct ChatTemplate {
    source: Arc<str>,
    name: String,
    bos_token: String,
    eos_token: String,
    special_tokens: Option<Arc<SpecialTokens>>,
    env: Arc<Environment<'static>>,
    compiled: Arc<budget::Compiled>,
    limits: TemplateLimits,
    /// Fuel left to a group of renders that share one budget (the template analysis), if any.
    shared_fuel: Option<Arc<AtomicU64>>,
    arguments_as_string: OnceLock<bool>,
    capabilities: OnceLock<Capabilities>,
    response_format: Option<crate::response::ResponseFormat>,
    /// Every named template of the model this one was loaded from, `(name, source)` (a single
    /// template is named `default`); empty for a template given as text or a `.jinja` file.
    named_templates: Arc<[(String, String)]>,
    /// The model's `tool_use` template, compiled, when this one is its default: what a request with
    /// tools renders with (see "Models with several named templates").
    tool_use: Option<Arc<ChatTemplate>>,
}

impl fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("name", &self.name)
            .field("source_len", &self.source.len())
            .field("bos_token", &self.bos_token)
            .field("eos_token", &self.eos_token)
            .field(
                "special_tokens",
                &self.special_tokens.as_ref().map(|t| t.len()),
            )
            .field("arguments_as_string", &self.arguments_as_string.get())
            .field("template_names", &self.template_names())
            .field("tool_use", &self.tool_use.as_ref().map(|t| t.name.as_str()))
            .finish()
    }
}

/// What a template is rendered with, as `transformers`' `apply_chat_template` passes it.
///
/// ```
/// use parser_auto::template::RenderInput;
/// use serde_json::json;
///
/// let input = RenderInput::new(vec![json!({"role": "user", "content": "Weather in Paris?"})])
///     .with_tools(vec![json!({"type": "function", "function": {"name": "get_weather", "parameters": {}}})])
///     .with_generation_prompt(true)
///     .with_enable_thinking(Some(false))
///     .with_kwarg("reasoning_effort", json!("low"));
/// assert_eq!(input.extra["reasoning_effort"], "low");
/// ```
#[derive(Clone, Debug, Default)]
pub struct RenderInput {
    /// OpenAI-style messages: `role`, `content`, `reasoning_content`, `tool_calls` (with
    /// `function.arguments` as an object or a JSON string: rendering converts it to the form the
    /// template wants), `tool_call_id`, `name`.
    pub messages: Vec<serde_json::Value>,
    /// OpenAI tools (`{"type": "function", "function": {…}}`), passed as `tools`; `None` passes `tools`
    /// as `none`, as Hugging Face does.
    pub tools: Option<Vec<serde_json::Value>>,
    /// Whether to end the prompt with the assistant's turn opener.
    pub add_generation_prompt: bool,
    /// Passed as both `enable_thinking` and `thinking` when set; neither is defined when `None`.
    pub enable_thinking: Option<bool>,
    /// Any other template keyword arguments (`reasoning_effort`, `documents`, …). They are set last, so
    /// they override the fields above of the same name.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl RenderInput {
    /// An input with these messages and nothing else.
    pub fn new(messages: Vec<serde_json::Value>) -> Self {
        RenderInput {
            messages,
            ..RenderInput::default()
        }
    }

    /// With these tools.
    pub fn with_tools(mut self, tools: Vec<serde_json::Value>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// With `add_generation_prompt` set to `yes`.
    pub fn with_generation_prompt(mut self, yes: bool) -> Self {
        self.add_generation_prompt = yes;
        self
    }

    /// With `enable_thinking` (and `thinking`) set, or unset for `None`.
    pub fn with_enable_thinking(mut self, enable: Option<bool>) -> Self {
        self.enable_thinking = enable;
        self
    }

    /// The input a template context describes: `messages`, `tools`, `add_generation_prompt`,
    /// `enable_thinking`, and every other key as a keyword argument.
    pub fn from_context(context: &serde_json::Value) -> Result<RenderInput, Error> {
        let serde_json::Value::Object(map) = context else {
            return Err(invalid("a render context is a JSON object"));
        };
        let mut input = RenderInput::default();
        for (key, value) in map {
            match (key.as_str(), value) {
                ("messages", serde_json::Value::Array(messages)) => {
                    input.messages = messages.clone()
                }
                ("messages", _) => return Err(invalid("`messages` must be an array")),
                ("tools", serde_json::Value::Array(tools)) => input.tools = Some(tools.clone()),
                ("tools", serde_json::Value::Null) => {}
                ("tools", _) => return Err(invalid("`tools` must be an array")),
                ("add_generation_prompt", value) => {
                    input.add_generation_prompt = value.as_bool().unwrap_or(false)
                }
                ("enable_thinking", serde_json::Value::Bool(on)) => {
                    input.enable_thinking = Some(*on)
                }
                (key, value) => {
                    input.extra.insert(key.to_string(), value.clone());
                }
            }
        }
        Ok(input)
    }

    /// With one more template keyword argument.
    pub fn with_kwarg(mut self, name: impl Into<String>, value: serde_json::Value) -> Self {
        self.extra.insert(name.into(), value);
        self
    }
}

/// How tool-call arguments are handed to the template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArgumentsForm {
    /// As a JSON object (strings holding a JSON object are parsed).
    Object,
    /// As a JSON string (objects are printed as Python's `json.dumps` does).
    String,
}

impl ChatTemplate {
    /// Compiles template text. A template that does not compile is an `Err`.
    pub fn from_source(source: impl Into<String>) -> Result<ChatTemplate, Error> {
        Self::named("chat_template", source.into())
    }

    fn named(name: &str, source: String) -> Result<ChatTemplate, Error> {
        Self::named_with_limits(name, source, TemplateLimits::default())
    }

    fn named_with_limits(
        name: &str,
        source: String,
        limits: TemplateLimits,
    ) -> Result<ChatTemplate, Error> {
        let compiled = compile(name, &source, &limits)?;
        Ok(ChatTemplate {
            source: source.into(),
            name: name.to_string(),
            bos_token: String::new(),
            eos_token: String::new(),
            special_tokens: None,
            env: Arc::new(env::build(&limits)),
            compiled: Arc::new(compiled),
            limits,
            shared_fuel: None,
            arguments_as_string: OnceLock::new(),
            capabilities: OnceLock::new(),
            response_format: None,
            named_templates: Arc::new([]),
            tool_use: None,
        })
    }

    /// Loads a template file: a `.jinja` template, or a `tokenizer_config.json` / `chat_template.json`
    /// (recognised by the `.json` extension, or for other extensions by being a JSON object with a
    /// `chat_template` key). From JSON, the default template is taken, with its tokens, and a
    /// `tool_use` template is kept for requests with tools (see "Models with several named
    /// templates"); [`select`](Self::select) chooses another by name.
    pub fn from_file(path: &Path) -> Result<ChatTemplate, Error> {
        let text = load::read(path)?;
        if load::is_json_config(path, &text) {
            return Self::from_tokenizer_config(&text, None);
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("chat_template");
        Self::named(name, text)
    }

    /// Loads the template of a `tokenizer_config.json` (or `chat_template.json`) text: `chat_template`
    /// as a string, or a list of named templates. `Some(name)` chooses one for every request; `None`
    /// takes `default` (else the first) and keeps `tool_use`, if there is one, for requests with
    /// tools, as transformers picks (see "Models with several named templates"). `bos_token` /
    /// `eos_token` (strings or `AddedToken` objects) are set, and `added_tokens_decoder` becomes
    /// [`special_tokens`](Self::special_tokens): all added tokens, special or not (Qwen3's `<think>` is
    /// an added token marked not special, and stage detection needs it).
    pub fn from_tokenizer_config(json: &str, which: Option<&str>) -> Result<ChatTemplate, Error> {
        let config = TokenizerConfig::parse(json)?;
        let (name, source) = config.pick(which)?;
        Self::named(&name, source)?
            .with_config_tokens(&config)
            .with_response_format_of(json)
            .with_named_templates(config.templates, which.is_some())
    }

    /// Keeps the response format a tokenizer config declares. One that does not compile is logged and
    /// left out: the template still renders, and parsing falls back to the other routes.
    fn with_response_format_of(mut self, config_json: &str) -> Self {
        match crate::response::ResponseFormat::from_tokenizer_config(config_json) {
            Ok(format) => self.response_format = format,
            Err(err) => tracing::warn!(template = %self.name, %err, "response format not usable"),
        }
        self
    }

    fn with_config_tokens(mut self, config: &TokenizerConfig) -> Self {
        if let Some(bos) = &config.bos_token {
            self.bos_token = bos.clone();
        }
        if let Some(eos) = &config.eos_token {
            self.eos_token = eos.clone();
        }
        if let Some(table) = &config.special_tokens {
            self.special_tokens = Some(Arc::new(table.clone()));
        }
        self
    }

    /// Loads a model directory as `transformers` does: the template from `chat_template.jinja` (with
    /// the named templates of `additional_chat_templates/`), else `chat_template.json`, else
    /// `tokenizer_config.json`'s `chat_template`; the tokens and the special-token table from
    /// `tokenizer_config.json` (bos/eos falling back to `special_tokens_map.json`). The default
    /// template, with the model's `tool_use` template kept for requests with tools (see "Models with
    /// several named templates"); [`from_model_dir_named`](Self::from_model_dir_named) chooses one.
    pub fn from_model_dir(dir: &Path) -> Result<ChatTemplate, Error> {
        Self::from_model_dir_named(dir, None)
    }

    /// Loads a model directory as [`from_model_dir`](Self::from_model_dir) does, with the template
    /// called `which` for every request (`Some("tool_use")`, `Some("rag")`, `Some("default")`), or with
    /// `None` as transformers picks per request. The template of `chat_template.jinja` is named
    /// `default`. A name the model does not have is an error listing the names it has.
    ///
    /// ```no_run
    /// use std::path::Path;
    /// use parser_auto::template::ChatTemplate;
    ///
    /// let dir = Path::new("models/Hermes-2-Pro-Llama-3-8B");
    /// let tool_use = ChatTemplate::from_model_dir_named(dir, Some("tool_use"))?;
    /// # Ok::<(), parser_auto::Error>(())
    /// ```
    pub fn from_model_dir_named(dir: &Path, which: Option<&str>) -> Result<ChatTemplate, Error> {
        let config_path = dir.join("tokenizer_config.json");
        let config_text = if config_path.is_file() {
            Some(load::read(&config_path)?)
        } else {
            None
        };
        let config = match &config_text {
            Some(text) => TokenizerConfig::parse(text)?,
            None => TokenizerConfig::default(),
        };
        let jinja_path = dir.join("chat_template.jinja");
        let json_path = dir.join("chat_template.json");
        let templates = if jinja_path.is_file() {
            let mut templates = vec![("default".to_string(), load::read(&jinja_path)?)];
            templates.extend(load::additional_templates(dir)?);
            templates
        } else if json_path.is_file() {
            TokenizerConfig::parse(&load::read(&json_path)?)?.templates
        } else if !config.templates.is_empty() {
            config.templates.clone()
        } else {
            return Err(invalid(format!(
                "no chat template in {}: looked for chat_template.jinja, chat_template.json and \
                 tokenizer_config.json's chat_template",
                dir.display()
            )));
        };
        let (name, source) = load::pick(&templates, which)?;
        // The file's name says where an unnamed default came from.
        let name = if jinja_path.is_file() && which.is_none() {
            "chat_template.jinja".to_string()
        } else {
            name
        };
        let mut template = Self::named(&name, source)?.with_config_tokens(&config);
        if let Some(text) = &config_text {
            template = template.with_response_format_of(text);
        }
        let map_path = dir.join("special_tokens_map.json");
        if (config.bos_token.is_none() || config.eos_token.is_none()) && map_path.is_file() {
            let (bos, eos) = load::special_tokens_map(&load::read(&map_path)?);
            if config.bos_token.is_none() {
                template.bos_token = bos.unwrap_or_default();
            }
            if config.eos_token.is_none() {
                template.eos_token = eos.unwrap_or_default();
            }
        }
        template.with_named_templates(templates, which.is_some())
    }

    /// Keeps a model's named templates. Unless this one was chosen by name (`pinned`), it is the
    /// default, and the `tool_use` one (if it is another) is compiled now, with the same tokens, for
    /// requests with tools: a template that does not compile fails the load, not a later request.
    fn with_named_templates(
        mut self,
        templates: Vec<(String, String)>,
        pinned: bool,
    ) -> Result<ChatTemplate, Error> {
        self.named_templates = templates.into();
        self.tool_use = None;
        if !pinned
            && self.name != "tool_use"
            && let Some((name, source)) = self.named_templates.iter().find(|(n, _)| n == "tool_use")
        {
            self.tool_use = Some(Arc::new(self.sibling(name, source)?));
        }
        Ok(self)
    }

    /// Another template of the same model: compiled under the same limits, rendered with the same
    /// tokens, with the same special-token table and response format; chosen by name (no `tool_use`).
    fn sibling(&self, name: &str, source: &str) -> Result<ChatTemplate, Error> {
        let mut sibling = Self::named_with_limits(name, source.to_string(), self.limits)?;
        sibling.bos_token = self.bos_token.clone();
        sibling.eos_token = self.eos_token.clone();
        sibling.special_tokens = self.special_tokens.clone();
        sibling.response_format = self.response_format.clone();
        sibling.named_templates = self.named_templates.clone();
        Ok(sibling)
    }

    /// The names of the model's templates (`["default", "tool_use", "rag"]` for Command-R; `["default"]`
    /// for a model with one), in the order the model lists them; empty for a template given as text or
    /// a `.jinja` file.
    pub fn template_names(&self) -> Vec<&str> {
        self.named_templates
            .iter()
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// The model's template called `name`, for every request (as transformers uses a template the
    /// caller names), with this one's tokens and limits. A name the model does not have is an error
    /// listing the names it has.
    pub fn select(&self, name: &str) -> Result<ChatTemplate, Error> {
        if let Some(tool_use) = self.tool_use.as_ref().filter(|t| t.name == name) {
            return Ok(ChatTemplate::clone(tool_use));
        }
        let (name, source) = load::pick(&self.named_templates, Some(name))?;
        self.sibling(&name, &source)
    }

    /// The template a request renders with, as transformers picks it: the model's `tool_use` template
    /// when the request has tools (`with_tools`) and this template is the model's default, else this
    /// one.
    pub fn for_request(&self, with_tools: bool) -> &ChatTemplate {
        match &self.tool_use {
            Some(tool_use) if with_tools => tool_use,
            _ => self,
        }
    }

    /// The template text, as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The template's name: the file name, the name in a tokenizer config's list (`default`,
    /// `tool_use`, …), or `chat_template`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `bos_token` passed to the template (empty when unknown).
    pub fn bos_token(&self) -> &str {
        &self.bos_token
    }

    /// The `eos_token` passed to the template (empty when unknown).
    pub fn eos_token(&self) -> &str {
        &self.eos_token
    }

    /// The added tokens of the tokenizer config (`added_tokens_decoder`), for stage detection from token
    /// ids.
    pub fn special_tokens(&self) -> Option<&Arc<SpecialTokens>> {
        self.special_tokens.as_ref()
    }

    /// The same template rendered with these `bos_token` and `eos_token`.
    pub fn with_tokens(mut self, bos: &str, eos: &str) -> Self {
        self.bos_token = bos.to_string();
        self.eos_token = eos.to_string();
        self.arguments_as_string = OnceLock::new();
        self.capabilities = OnceLock::new();
        self.tool_use =
            (self.tool_use.take()).map(|t| Arc::new(ChatTemplate::clone(&t).with_tokens(bos, eos)));
        self
    }

    /// The same template rendered under these limits (see [`TemplateLimits`]; the default limits apply
    /// otherwise). Recompiles the template: constant expressions are sized against the new limits.
    ///
    /// ```
    /// use parser_auto::template::{ChatTemplate, RenderInput, TemplateLimits};
    /// use parser_auto::ErrorKind;
    ///
    /// let template = ChatTemplate::from_source("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    ///     .unwrap()
    ///     .with_limits(TemplateLimits { fuel: 1_000_000, ..TemplateLimits::default() })
    ///     .unwrap();
    /// let err = template.render(&RenderInput::default()).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::LimitExceeded { limit: "fuel", .. }), "{err}");
    /// ```
    pub fn with_limits(mut self, limits: TemplateLimits) -> Result<ChatTemplate, Error> {
        self.compiled = Arc::new(compile(&self.name, &self.source, &limits)?);
        self.env = Arc::new(env::build(&limits));
        self.limits = limits;
        self.arguments_as_string = OnceLock::new();
        self.capabilities = OnceLock::new();
        self.tool_use = (self.tool_use.take())
            .map(|t| ChatTemplate::clone(&t).with_limits(limits).map(Arc::new))
            .transpose()?;
        Ok(self)
    }

    /// The limits renders of this template run under.
    pub fn limits(&self) -> TemplateLimits {
        self.limits
    }

    /// A clone whose renders draw on one shared fuel budget of `fuel` instructions in all (each render is
    /// still bounded by [`TemplateLimits::fuel`]): the template analysis renders through one, so that
    /// analysing a template is bounded as a whole. Once the budget is spent, renders fail with
    /// `LimitExceeded { limit: "analysis" }`.
    pub(crate) fn with_shared_fuel(&self, fuel: u64) -> ChatTemplate {
        let mut clone = self.clone();
        clone.shared_fuel = Some(Arc::new(AtomicU64::new(fuel)));
        clone
    }

    /// Fuel left to the shared budget of [`with_shared_fuel`](Self::with_shared_fuel), if any.
    pub(crate) fn shared_fuel_left(&self) -> Option<u64> {
        self.shared_fuel
            .as_ref()
            .map(|left| left.load(Ordering::Relaxed))
    }

    /// The same template with this special-token table.
    pub fn with_special_tokens(mut self, table: Arc<SpecialTokens>) -> Self {
        self.tool_use = (self.tool_use.take())
            .map(|t| Arc::new(ChatTemplate::clone(&t).with_special_tokens(table.clone())));
        self.special_tokens = Some(table);
        self
    }

    /// Renders the prompt for `input`. Tool-call arguments are converted to the form the template
    /// wants (see [`arguments_as_string`](Self::arguments_as_string)).
    pub fn render(&self, input: &RenderInput) -> Result<String, Error> {
        let form = if has_tool_calls(&input.messages) {
            self.arguments_form()
        } else {
            ArgumentsForm::Object
        };
        self.render_form(input, form)
    }

    /// Renders with the whole template context given as the JSON text of an object — `messages`,
    /// `tools`, `add_generation_prompt` and any keyword arguments, as a server receives them — keeping
    /// every object's keys in document order, so that `tojson` prints tools and arguments byte for byte
    /// as Hugging Face would. `bos_token` and `eos_token` default to the template's; `tools` and
    /// `documents` default to `none`, `add_generation_prompt` to false; `enable_thinking` is also passed
    /// as `thinking` unless that is given. Tool-call arguments are converted as in
    /// [`render`](Self::render).
    pub fn render_json(&self, context: &str) -> Result<String, Error> {
        let parsed = values::from_json_text(context)
            .map_err(|e| invalid(format!("render context is not JSON: {e}")))?;
        let Some(entries) = values::map_entries(&parsed) else {
            return Err(invalid("render context must be a JSON object"));
        };
        let mut ctx = self.base_context(Value::from(()), false);
        let mut messages = None;
        let has_thinking = entries.iter().any(|(k, _)| k.as_str() == Some("thinking"));
        for (key, value) in entries {
            let Some(key) = key.as_str() else { continue };
            if key == "messages" {
                messages = Some(value);
            } else {
                if key == "enable_thinking" && !has_thinking {
                    ctx.push(("thinking".to_string(), value.clone()));
                }
                ctx.push((key.to_string(), value));
            }
        }
        let messages = messages.unwrap_or_else(|| PyList::new_value(Vec::new()));
        let form = if value_has_tool_calls(&messages) {
            self.arguments_form()
        } else {
            ArgumentsForm::Object
        };
        ctx.push(("messages".to_string(), adapt_messages(&messages, form)));
        self.render_context(ctx)
    }

    /// Whether tool-call arguments must be passed to this template as JSON strings rather than objects.
    ///
    /// Probed once, then cached: a conversation with one tool call is rendered both ways, and the
    /// string form wins only when its output shows the arguments better (the arguments' JSON text
    /// appears, or only it renders at all); the assistant message is tried with `content: null` and
    /// `""`, with and without a tool result after it. Six of the 47 reference templates need strings:
    /// the DeepSeek R1-Distill ×2, V3.1 and llama.cpp R1 ones and Functionary v3.1/v3.2, which
    /// concatenate the arguments.
    pub fn arguments_as_string(&self) -> bool {
        *self.arguments_as_string.get_or_init(|| {
            let as_string = self.probe_arguments_as_string();
            tracing::debug!(template = %self.name, as_string, "probed tool-call arguments form");
            as_string
        })
    }

    fn arguments_form(&self) -> ArgumentsForm {
        if self.arguments_as_string() {
            ArgumentsForm::String
        } else {
            ArgumentsForm::Object
        }
    }

    /// A clone for a group of probe renders: they share [`PROBE_FUEL_RENDERS`] renders' worth of fuel,
    /// so that probing a template that burns its fuel costs a few renders, not one per probe.
    fn for_probes(&self) -> ChatTemplate {
        self.with_shared_fuel(self.limits.fuel.saturating_mul(PROBE_FUEL_RENDERS))
    }

    fn probe_arguments_as_string(&self) -> bool {
        let this = self.for_probes();
        use serde_json::json;
        let arguments = json!({"probe_key": "probe_value"});
        let json_text = r#"{"probe_key": "probe_value"}"#;
        let call = json!({
            "id": "call00001",
            "type": "function",
            "function": {"name": "probe_tool", "arguments": arguments},
        });
        let tool = json!({
            "type": "function",
            "function": {
                "name": "probe_tool",
                "description": "A probe.",
                "parameters": {
                    "type": "object",
                    "properties": {"probe_key": {"type": "string", "description": "A key."}},
                    "required": ["probe_key"],
                },
            },
        });
        let user = json!({"role": "user", "content": "Call the probe."});
        let result = json!({"role": "tool", "tool_call_id": "call00001", "name": "probe_tool", "content": "probe done"});
        let score = |out: Result<String, Error>| match out {
            Err(_) => -1,
            Ok(text) if text.contains(json_text) => 2,
            Ok(text) if text.contains("probe_key") && text.contains("probe_value") => 1,
            Ok(_) => 0,
        };
        // Tool-call messages come with `content: null` (OpenAI) or `""`; some templates render the calls
        // only for one of them, some need the tool result to follow.
        for content in [serde_json::Value::Null, json!("")] {
            let assistant =
                json!({"role": "assistant", "content": content, "tool_calls": [call.clone()]});
            let conversations = [
                (vec![user.clone(), assistant.clone(), result.clone()], true),
                (vec![user.clone(), assistant], false),
            ];
            for (messages, add_generation_prompt) in conversations {
                let input = RenderInput {
                    messages,
                    tools: Some(vec![tool.clone()]),
                    add_generation_prompt,
                    ..RenderInput::default()
                };
                let object = score(this.render_form(&input, ArgumentsForm::Object));
                let string = score(this.render_form(&input, ArgumentsForm::String));
                if object == string && object <= 0 {
                    continue;
                }
                return string > object;
            }
        }
        false
    }

    fn base_context(&self, tools: Value, add_generation_prompt: bool) -> Vec<(String, Value)> {
        vec![
            ("bos_token".into(), Value::from(self.bos_token.as_str())),
            ("eos_token".into(), Value::from(self.eos_token.as_str())),
            ("tools".into(), tools),
            ("documents".into(), Value::from(())),
            (
                "add_generation_prompt".into(),
                Value::from(add_generation_prompt),
            ),
        ]
    }

    fn render_form(&self, input: &RenderInput, form: ArgumentsForm) -> Result<String, Error> {
        self.render_form_measured(input, form).0
    }

    fn render_form_measured(
        &self,
        input: &RenderInput,
        form: ArgumentsForm,
    ) -> (Result<String, Error>, RenderStats) {
        let tools = match &input.tools {
            Some(tools) => PyList::new_value(tools.iter().map(values::from_json).collect()),
            None => Value::from(()),
        };
        let mut ctx = self.base_context(tools, input.add_generation_prompt);
        if let Some(enable) = input.enable_thinking {
            ctx.push(("enable_thinking".into(), Value::from(enable)));
            ctx.push(("thinking".into(), Value::from(enable)));
        }
        for (key, value) in &input.extra {
            ctx.push((key.clone(), values::from_json(value)));
        }
        let messages = PyList::new_value(input.messages.iter().map(values::from_json).collect());
        ctx.push(("messages".into(), adapt_messages(&messages, form)));
        self.render_context_measured(ctx)
    }

    /// Renders `input` as [`render`](Self::render) does and also returns what the render used (fuel,
    /// output, bytes built): for sizing [`TemplateLimits`] to a deployment's templates.
    pub fn render_measured(&self, input: &RenderInput) -> (Result<String, Error>, RenderStats) {
        let form = if has_tool_calls(&input.messages) {
            self.arguments_form()
        } else {
            ArgumentsForm::Object
        };
        self.render_form_measured(input, form)
    }

    /// Renders with these context entries (a later entry overrides an earlier one of the same name).
    fn render_context(&self, ctx: Vec<(String, Value)>) -> Result<String, Error> {
        self.render_context_measured(ctx).0
    }

    /// Renders under the budget: the template's limits, and the shared fuel when there is one.
    fn render_context_measured(
        &self,
        ctx: Vec<(String, Value)>,
    ) -> (Result<String, Error>, RenderStats) {
        let fuel_cap = match &self.shared_fuel {
            Some(left) => {
                let left = left.load(Ordering::Relaxed);
                if left == 0 {
                    let err = Error::new(ErrorKind::LimitExceeded {
                        limit: "analysis",
                        message: format!(
                            "chat template `{}`: its analysis spent its whole fuel budget",
                            self.name
                        ),
                    });
                    return (Err(err), RenderStats::default());
                }
                left
            }
            None => u64::MAX,
        };
        let ctx = Value::from_pairs(ctx);
        let result = catch_unwind(AssertUnwindSafe(|| {
            budget::render(&self.env, &self.compiled, ctx, self.limits, fuel_cap)
        }));
        let (result, stats, tripped) = match result {
            Ok(rendered) => rendered,
            Err(_) => {
                let err = invalid(format!(
                    "chat template `{}` panicked while rendering",
                    self.name
                ));
                return (Err(err), RenderStats::default());
            }
        };
        if let Some(left) = &self.shared_fuel {
            let spent = stats.fuel.max(1);
            let _ = left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(spent))
            });
        }
        let result = result.map_err(|err| match tripped {
            Some(trip) => {
                let limit = if trip.limit == "fuel" && self.shared_fuel.is_some() && fuel_cap < self.limits.fuel {
                    "analysis"
                } else {
                    trip.limit
                };
                Error::new(ErrorKind::LimitExceeded {
                    limit,
                    message: format!(
                        "chat template `{}` stopped after {} instructions and {} bytes of output: {}",
                        self.name, stats.fuel, stats.output_bytes, trip.detail
                    ),
                })
            }
            None => invalid(format!(
                "chat template `{}` failed to render: {}",
                self.name,
                describe(&err)
            )),
        });
        (result, stats)
    }
}

/// Compiles a template's source for the budget; a template that does not compile (or whose constant
/// expressions are over the limits) is an `Err`.
fn compile(name: &str, source: &str, limits: &TemplateLimits) -> Result<budget::Compiled, Error> {
    let compiled = catch_unwind(AssertUnwindSafe(|| {
        budget::Compiled::compile(name, env::prepare_source(source), env::syntax(), limits)
    }));
    match compiled {
        Ok(Ok(compiled)) => Ok(compiled),
        Ok(Err(e)) => Err(match budget::take_compile_trip() {
            Some(trip) => Error::new(ErrorKind::LimitExceeded {
                limit: trip.limit,
                message: format!("chat template `{name}` does not compile: {}", trip.detail),
            }),
            None => invalid(format!(
                "chat template `{name}` does not compile: {}",
                describe(&e)
            )),
        }),
        Err(_) => Err(invalid(format!(
            "chat template `{name}` panicked while compiling"
        ))),
    }
}

/// How many renders' worth of [`TemplateLimits::fuel`] a group of probe renders (the capability probes,
/// the tool-call arguments probe) may spend in all.
const PROBE_FUEL_RENDERS: u64 = 2;

/// A prompt rendered for a request, with what parsing its reply needs.
#[derive(Clone, Debug)]
pub struct Prompt {
    /// The prompt text.
    pub text: String,
    /// The rewrites made because the template lacks a feature (empty for most templates).
    pub polyfills: Vec<Polyfill>,
    /// Options for the reply's parser: the prompt's end (stage detection reads whether it leaves
    /// reasoning open), `enable_thinking`, the request's tools (typed arguments) and the template's
    /// special-token table.
    pub options: ParseOptions,
}

/// Fields of an OpenAI chat request that are for the server, not the template.
const NOT_TEMPLATE_KWARGS: &[&str] = &[
    "model",
    "stream",
    "stream_options",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "max_tokens",
    "max_completion_tokens",
    "n",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "repetition_penalty",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "user",
    "tool_choice",
    "response_format",
    "parallel_tool_calls",
];

/// How much of a prompt's end is kept for stage detection: the generation prompt and the last turn
/// marker fit many times over.
const PROMPT_TAIL_BYTES: usize = 4096;

/// What rendering one more message adds to a prompt (see [`ChatTemplate::render_new_message`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Increment {
    /// The earlier messages render the same: this text is appended.
    Append(String),
    /// The template rewrote earlier text (Qwen3 drops the reasoning of past turns, for one): this is
    /// the whole new prompt, to be tokenized again.
    Replace(String),
}

impl ChatTemplate {
    /// What the template renders: system messages, tools, tool calls, tool results. Probed once with
    /// needle conversations, then cached.
    pub fn capabilities(&self) -> Capabilities {
        *self.capabilities.get_or_init(|| {
            // Probed before the clone is made, so that the clone shares the result.
            self.arguments_as_string();
            let this = self.for_probes();
            let caps = polyfill::probe(&|messages, tools| {
                let input = RenderInput {
                    messages,
                    tools,
                    ..RenderInput::default()
                };
                this.render(&input).ok()
            });
            tracing::debug!(template = %self.name, ?caps, "probed template capabilities");
            caps
        })
    }

    /// Renders the prompt for a request, rewriting the conversation where the template lacks a
    /// feature (see [`Polyfill`]), and returns it with the options its reply's parser needs: a server
    /// that renders with this gets stage detection (is reasoning open at the end of the prompt?) and
    /// schema-typed arguments without further work. A request with tools renders with the model's
    /// `tool_use` template when it has one ([`for_request`](Self::for_request)).
    ///
    /// ```
    /// use parser_auto::template::{ChatTemplate, Polyfill, RenderInput};
    /// use serde_json::json;
    ///
    /// // A template with no system role, like Gemma's.
    /// let template = ChatTemplate::from_source(
    ///     "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system role') }}{% endif %}\
    ///      <{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}{% if add_generation_prompt %}<assistant><think>{% endif %}",
    /// )
    /// .unwrap();
    /// let input = RenderInput::new(vec![
    ///     json!({"role": "system", "content": "Be brief."}),
    ///     json!({"role": "user", "content": "Hi"}),
    /// ])
    /// .with_generation_prompt(true);
    /// let prompt = template.render_prompt(&input).unwrap();
    /// assert_eq!(prompt.text, "<user>Be brief.\n\nHi</user><assistant><think>");
    /// assert_eq!(prompt.polyfills, [Polyfill::SystemMergedIntoUser]);
    /// assert!(prompt.options.prompt_tail.unwrap().ends_with("<assistant><think>"));
    /// ```
    pub fn render_prompt(&self, input: &RenderInput) -> Result<Prompt, Error> {
        if let Some(tool_use) = self.tool_use.as_ref().filter(|_| input.tools.is_some()) {
            return tool_use.render_prompt(input);
        }
        let caps = self.capabilities();
        let mut polyfills = Vec::new();
        let mut messages = input.messages.clone();
        polyfill::apply(&caps, &mut messages, input.tools.as_deref(), &mut polyfills);
        let tools_described = polyfills.contains(&Polyfill::ToolsInSystem);
        let rewritten;
        let input_used = if polyfills.is_empty() {
            input
        } else {
            rewritten = RenderInput {
                messages,
                // Tools described in the system message are not also given to a template that
                // ignores them (or chokes on them).
                tools: if tools_described {
                    None
                } else {
                    input.tools.clone()
                },
                ..input.clone()
            };
            &rewritten
        };
        let text = self.render(input_used)?;
        let options = self.options_for(&text, input)?;
        Ok(Prompt {
            text,
            polyfills,
            options,
        })
    }

    /// Renders an OpenAI-style chat request as [`render_prompt`](Self::render_prompt) does, keeping every
    /// object's keys in the order the request writes them (so tools and arguments print byte for byte as
    /// transformers prints them). `body` is a request body — `messages`, `tools`, and template keyword
    /// arguments at the top level or in `chat_template_kwargs` (`enable_thinking`, `reasoning_effort`,
    /// …) — or just the messages array. `add_generation_prompt` defaults to true; the request's sampling
    /// fields (`model`, `temperature`, `stream`, …) are not passed to the template. A request with
    /// `tools` (even `[]`) renders with the model's `tool_use` template when it has one.
    ///
    /// ```
    /// use parser_auto::template::ChatTemplate;
    ///
    /// let template = ChatTemplate::from_source(
    ///     "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}\
    ///      {% if tools %}tools: {{ tools | tojson }}\n{% endif %}{% if add_generation_prompt %}[assistant]{% endif %}",
    /// )
    /// .unwrap();
    /// let body = r#"{"model": "m", "temperature": 0.2,
    ///     "messages": [{"role": "user", "content": "Hi"}],
    ///     "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}"#;
    /// let prompt = template.render_request(body).unwrap();
    /// assert_eq!(
    ///     prompt.text,
    ///     "[user] Hi\ntools: [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {}}}]\n[assistant]"
    /// );
    /// ```
    pub fn render_request(&self, body: &str) -> Result<Prompt, Error> {
        use crate::response::Value as Ordered;
        let parsed =
            Ordered::from_json(body).map_err(|e| invalid(format!("request is not JSON: {e}")))?;
        let entries = match parsed {
            Ordered::Array(_) => vec![("messages".to_string(), parsed)],
            Ordered::Object(entries) => entries,
            other => {
                return Err(invalid(format!(
                    "a request is a JSON object or a messages array, not {}",
                    other.type_name()
                )));
            }
        };
        let mut context = Ordered::Object(Vec::new());
        context.insert("add_generation_prompt", Ordered::Bool(true));
        for (key, value) in entries {
            match (key.as_str(), value) {
                ("chat_template_kwargs", Ordered::Object(kwargs)) => {
                    for (k, v) in kwargs {
                        context.insert(&k, v);
                    }
                }
                (key, _) if NOT_TEMPLATE_KWARGS.contains(&key) => {}
                (key, value) => context.insert(key, value),
            }
        }
        let context_text = context.to_json();
        let plain: serde_json::Value = serde_json::from_str(&context_text)
            .map_err(|e| invalid(format!("request is not JSON: {e}")))?;
        let input = RenderInput::from_context(&plain)?;
        if let Some(tool_use) = self.tool_use.as_ref().filter(|_| input.tools.is_some()) {
            return tool_use.render_request(body);
        }
        let mut polyfills = Vec::new();
        let mut messages = input.messages.clone();
        polyfill::apply(
            &self.capabilities(),
            &mut messages,
            input.tools.as_deref(),
            &mut polyfills,
        );
        let text = if polyfills.is_empty() {
            self.render_json(&context_text)?
        } else {
            self.render_prompt(&input)?.text
        };
        let options = self.options_for(&text, &input)?;
        Ok(Prompt {
            text,
            polyfills,
            options,
        })
    }

    /// Parse options for the reply to a prompt rendered from `input`: the prompt's end, thinking,
    /// tools and the special-token table.
    pub fn options_for(&self, prompt: &str, input: &RenderInput) -> Result<ParseOptions, Error> {
        let mut start = prompt.len().saturating_sub(PROMPT_TAIL_BYTES);
        while !prompt.is_char_boundary(start) {
            start += 1;
        }
        let mut options = ParseOptions::new()
            .with_prompt_tail(&prompt[start..])
            .with_enable_thinking(input.enable_thinking);
        // Set for an empty list too: a request that passes tools gets the `tool_use` template, and
        // its reply the parser prepared for that template.
        if let Some(tools) = &input.tools {
            let tools = Tools::from_json(&serde_json::Value::Array(tools.clone()))?;
            options = options.with_tools(Arc::new(tools));
        }
        options.special_tokens = self.special_tokens.clone();
        Ok(options)
    }

    /// The text that the last message of `input` adds to the prompt, as llama.cpp's
    /// `common_chat_format_single` computes it: the conversation without its last message is rendered
    /// without a generation prompt, the whole one as `input` asks, and the difference returned. Polyfills
    /// apply to both renders. Costs two renders.
    pub fn render_new_message(&self, input: &RenderInput) -> Result<Increment, Error> {
        let full = self.render_prompt(input)?.text;
        if input.messages.len() <= 1 {
            return Ok(Increment::Append(full));
        }
        let past = RenderInput {
            messages: input.messages[..input.messages.len() - 1].to_vec(),
            add_generation_prompt: false,
            ..input.clone()
        };
        let before = self.render_prompt(&past)?.text;
        Ok(match full.strip_prefix(before.as_str()) {
            Some(added) => Increment::Append(added.to_string()),
            None => Increment::Replace(full),
        })
    }

    /// The response format the tokenizer config declares (`response_template` or `response_schema`),
    /// when the template was loaded from one.
    pub fn response_format(&self) -> Option<&crate::response::ResponseFormat> {
        self.response_format.as_ref()
    }
}

/// An error with its chain of causes, on one line.
fn describe(err: &minijinja::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn has_tool_calls(messages: &[serde_json::Value]) -> bool {
    messages.iter().any(|m| {
        m.get("tool_calls")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|calls| !calls.is_empty())
    })
}

fn value_has_tool_calls(messages: &Value) -> bool {
    let Ok(iter) = messages.try_iter() else {
        return false;
    };
    iter.into_iter().any(|m| {
        m.get_attr("tool_calls")
            .ok()
            .and_then(|calls| calls.len())
            .is_some_and(|n| n > 0)
    })
}

/// The messages with every tool call's `function.arguments` (and a flat `arguments`) in `form`.
fn adapt_messages(messages: &Value, form: ArgumentsForm) -> Value {
    let Some(list) = messages.downcast_object_ref::<PyList>() else {
        return messages.clone();
    };
    let items = list.snapshot();
    if !items.iter().any(|m| {
        m.get_attr("tool_calls")
            .is_ok_and(|c| c.len().is_some_and(|n| n > 0))
    }) {
        return messages.clone();
    }
    PyList::new_value(
        items
            .iter()
            .map(|message| {
                map_key(message, "tool_calls", |calls| {
                    match calls.downcast_object_ref::<PyList>() {
                        Some(calls) => PyList::new_value(
                            calls
                                .snapshot()
                                .iter()
                                .map(|call| {
                                    let call = map_key(call, "function", |function| {
                                        map_key(function, "arguments", |a| {
                                            convert_arguments(a, form)
                                        })
                                    });
                                    map_key(&call, "arguments", |a| convert_arguments(a, form))
                                })
                                .collect(),
                        ),
                        None => calls.clone(),
                    }
                })
            })
            .collect(),
    )
}

/// `dict` with `f` applied to the value of `key` (unchanged if it is not a dict or lacks the key).
fn map_key(dict: &Value, key: &str, f: impl FnOnce(&Value) -> Value) -> Value {
    let Some(d) = dict.downcast_object_ref::<PyDict>() else {
        return dict.clone();
    };
    if !d.entries().iter().any(|(k, _)| k.as_str() == Some(key)) {
        return dict.clone();
    }
    let mut f = Some(f);
    PyDict::new_value(
        d.entries()
            .iter()
            .map(|(k, v)| {
                if k.as_str() == Some(key)
                    && let Some(f) = f.take()
                {
                    return (k.clone(), f(v));
                }
                (k.clone(), v.clone())
            })
            .collect(),
    )
}

fn convert_arguments(arguments: &Value, form: ArgumentsForm) -> Value {
    match (form, arguments.kind()) {
        (ArgumentsForm::String, ValueKind::Map | ValueKind::Seq) => {
            match pyjson::dumps(arguments) {
                Ok(text) => Value::from(text),
                Err(_) => arguments.clone(),
            }
        }
        (ArgumentsForm::Object, ValueKind::String) => {
            let text = arguments.as_str().unwrap_or_default();
            match values::from_json_text(text) {
                Ok(parsed) if parsed.kind() == ValueKind::Map => parsed,
                _ => arguments.clone(),
            }
        }
        _ => arguments.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_shareable_across_threads() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<ChatTemplate>();
        assert_send_sync::<RenderInput>();
    }

    #[test]
    fn arguments_convert_both_ways() {
        let object = values::from_json_text(r#"{"b": 1, "a": [true, null, "x"]}"#).unwrap();
        let string = convert_arguments(&object, ArgumentsForm::String);
        assert_eq!(string.as_str(), Some(r#"{"b": 1, "a": [true, null, "x"]}"#));
        let back = convert_arguments(&string, ArgumentsForm::Object);
        assert_eq!(back.kind(), ValueKind::Map);
        assert_eq!(
            pyjson::dumps(&back).unwrap(),
            r#"{"b": 1, "a": [true, null, "x"]}"#
        );
        // Not a JSON object: left as it is.
        let text = Value::from("not json");
        assert_eq!(convert_arguments(&text, ArgumentsForm::Object), text);
    }
}
