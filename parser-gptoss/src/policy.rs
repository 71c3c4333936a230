//! Where harmony messages go when peers disagree: the switches of [`HarmonyPolicy`].

/// Where a `commentary` message without a recipient (a "preamble", e.g. an action plan the model writes
/// before its calls) goes.
///
/// Peers disagree: ollama and llama.cpp put it in the content, mistral.rs in the reasoning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Preamble {
    /// Content, for the user (the default).
    #[default]
    Content,
    /// Reasoning.
    Reasoning,
}

/// What a message to a built-in tool becomes: a recipient that is not under `functions.` (`browser.search`,
/// `browser.open`, `python`, or anything else the model addresses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BuiltinTools {
    /// Reasoning text, like the `analysis` channel these calls are written on (the default). The server
    /// did not declare these tools as functions, so they are not surfaced as calls.
    #[default]
    Reasoning,
    /// Tool calls named after the whole recipient (`browser.search`, `python`), with the body as their
    /// arguments (a body that is not a JSON object, such as Python code, gives a call with `valid: false`
    /// and the raw text).
    Calls,
}

/// The harmony switches. The registry's `gpt-oss` entry reads them from the request's
/// [`parser_core::Policy`]; `HarmonyPolicy::default()` matches its defaults: preambles are content,
/// built-in tool messages are reasoning.
///
/// ```
/// use parser_gptoss::{BuiltinTools, HarmonyPolicy, Preamble};
/// let policy = HarmonyPolicy::default()
///     .with_preamble(Preamble::Reasoning)
///     .with_builtin_tools(BuiltinTools::Calls);
/// assert_eq!(policy.preamble, Preamble::Reasoning);
/// assert_eq!(HarmonyPolicy::default().builtin_tools, BuiltinTools::Reasoning);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct HarmonyPolicy {
    /// Where a commentary message without a recipient goes. Default: [`Preamble::Content`].
    pub preamble: Preamble,
    /// What a message to a recipient outside `functions.` becomes. Default: [`BuiltinTools::Reasoning`].
    pub builtin_tools: BuiltinTools,
}

/// The harmony switches of the request's [`parser_core::Policy`] (what the registry's entry reads).
impl From<parser_core::Policy> for HarmonyPolicy {
    fn from(policy: parser_core::Policy) -> Self {
        HarmonyPolicy {
            preamble: if policy.preamble_as_reasoning {
                Preamble::Reasoning
            } else {
                Preamble::Content
            },
            builtin_tools: if policy.builtin_tools_as_calls {
                BuiltinTools::Calls
            } else {
                BuiltinTools::Reasoning
            },
        }
    }
}

impl HarmonyPolicy {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets where preambles go.
    pub fn with_preamble(mut self, preamble: Preamble) -> Self {
        self.preamble = preamble;
        self
    }

    /// Sets what built-in tool messages become.
    pub fn with_builtin_tools(mut self, builtin_tools: BuiltinTools) -> Self {
        self.builtin_tools = builtin_tools;
        self
    }
}
