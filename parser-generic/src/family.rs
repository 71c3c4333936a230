//! A model family written as data: a hand-written [`Analysis`] run by the generic engine, registered
//! like any family (see the crate docs, [A family as data](crate#a-family-as-data)).

use std::sync::{Arc, OnceLock};

use parser_core::constraint::{Constraint, ConstraintRequest};
use parser_core::{Error, ParseOptions, Parser};

use crate::GenericParserFactory;
use crate::spec::Analysis;

/// One registered parser whose format is a spec: its [`Parser`]s and its grammar come from the same
/// [`Analysis`], built once (on first use) and shared by every request.
///
/// A `static`, so that the plain `fn`s a [`ParserEntry`](parser_core::ParserEntry) and a
/// [`ConstraintEntry`](parser_core::constraint::ConstraintEntry) take can reach it:
///
/// ```
/// use parser_core::constraint::{Constraint, ConstraintRequest};
/// use parser_core::{Error, ParseOptions, Parser};
/// use parser_generic::DataParser;
/// use parser_generic::spec::{Analysis, Markers, ToolFormat};
///
/// fn spec() -> Analysis {
///     Analysis {
///         tools: ToolFormat::TagWithJson,
///         markers: Markers {
///             per_call_start: "<call>".into(),
///             func_name_suffix: "\n".into(),
///             per_call_end: "</call>".into(),
///             ..Markers::default()
///         },
///         ..Analysis::default()
///     }
/// }
///
/// static MINI: DataParser = DataParser::new("mini", spec);
///
/// fn build(options: &ParseOptions) -> Parser {
///     MINI.parser(options)
/// }
/// fn constraint(options: &ParseOptions, request: &ConstraintRequest) -> Result<Constraint, Error> {
///     MINI.constraint(options, request)
/// }
///
/// let message = build(&ParseOptions::new()).parse("Sure.<call>now\n{}</call>");
/// assert_eq!(message.tool_calls[0].name, "now");
/// assert_eq!(MINI.tokens(), ["<call>", "</call>"]);
/// ```
#[derive(Debug)]
pub struct DataParser {
    name: &'static str,
    spec: fn() -> Analysis,
    factory: OnceLock<GenericParserFactory>,
}

impl DataParser {
    /// The parser registered as `name` (its [`ParserEntry::name`](parser_core::ParserEntry::name), which
    /// its parsers carry as [`Parser::name`]), whose format `spec` describes. Nothing is built until
    /// the first use.
    pub const fn new(name: &'static str, spec: fn() -> Analysis) -> DataParser {
        DataParser {
            name,
            spec,
            factory: OnceLock::new(),
        }
    }

    /// The registered name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The generic parser's tables for the spec, built on first use.
    pub fn factory(&self) -> &GenericParserFactory {
        self.factory
            .get_or_init(|| GenericParserFactory::new(Arc::new((self.spec)())).named(self.name))
    }

    /// The spec.
    pub fn spec(&self) -> &Analysis {
        self.factory().analysis()
    }

    /// A parser for one request: the generic parser of the spec, its stage decided from `options` by
    /// the spec's rules (see [Stage](crate#stage)). The body of the entry's `build`.
    pub fn parser(&self, options: &ParseOptions) -> Parser {
        self.factory().parser(options)
    }

    /// The constraint of one request, from the same spec
    /// ([`GenericParserFactory::constraint`]). The body of the `ConstraintEntry`'s `build`.
    pub fn constraint(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        self.factory().constraint(options, request)
    }

    /// Every marker of the spec, whole (trimmed): what the entry's `special_tokens` should list (a
    /// family's tests compare the two, since an entry's fields are constants).
    pub fn tokens(&self) -> &'static [&'static str] {
        self.factory().tokens()
    }
}
