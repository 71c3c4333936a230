//! The constraint workload: one request with many realistically typed tools, and the parsers whose
//! `Constraint` (triggers, preserved tokens, and one form: Lark, GBNF or structural tag) the benchmarks
//! build for it.
//!
//! ```
//! let tools = benchmarks::realistic_tools(3);
//! assert_eq!(tools.as_array().map(Vec::len), Some(3));
//! let case = &benchmarks::CONSTRAINT_CASES[0];
//! let builder = case.builder().unwrap();
//! let options = case.options(std::sync::Arc::new(parser_auto::Tools::from_json(&tools).unwrap()));
//! let constraint = builder.build(&options, &Default::default()).unwrap();
//! assert!(constraint.lark().contains("tool_02_lookup"));
//! ```

use std::path::Path;
use std::sync::Arc;

use parser_auto::constraint::{Constraint, ConstraintRequest};
use parser_auto::template::ChatTemplate;
use parser_auto::{Error, ParseOptions, ParserEntry, Tools, generic};
use serde_json::Value;

use crate::TEMPLATES_DIR;

/// Tools in a request of the constraint rows.
pub const CONSTRAINT_TOOLS: usize = 20;

/// `count` tools with schemas of the sizes real APIs have: a description, 3 to 7 typed properties
/// (strings with descriptions and lengths, enums, bounded integers, numbers, booleans, arrays of
/// strings, one nested object), some required, `additionalProperties: false` on half of them.
pub fn realistic_tools(count: usize) -> Value {
    let tools: Vec<Value> = (0..count)
        .map(|i| {
            let mut properties = serde_json::Map::new();
            properties.insert(
                "query".into(),
                serde_json::json!({"type": "string", "description": "What to look for, in plain words.", "minLength": 1, "maxLength": 200}),
            );
            properties.insert(
                "unit".into(),
                serde_json::json!({"type": "string", "enum": ["metric", "imperial", "standard"], "description": "Units of the result."}),
            );
            properties.insert(
                "limit".into(),
                serde_json::json!({"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many results."}),
            );
            if i % 2 == 0 {
                properties.insert(
                    "tags".into(),
                    serde_json::json!({"type": "array", "items": {"type": "string"}, "maxItems": 10}),
                );
            }
            if i % 3 == 0 {
                properties.insert(
                    "filters".into(),
                    serde_json::json!({"type": "object", "properties": {
                        "since": {"type": "string", "format": "date"},
                        "verified": {"type": "boolean"},
                        "score": {"type": "number"}
                    }, "required": ["since"], "additionalProperties": false}),
                );
            }
            if i % 4 == 0 {
                properties.insert(
                    "mode".into(),
                    serde_json::json!({"type": ["string", "null"], "description": "An optional mode."}),
                );
            }
            let mut parameters = serde_json::json!({
                "type": "object",
                "properties": properties,
                "required": ["query"],
            });
            if i % 2 == 1 {
                parameters["additionalProperties"] = Value::Bool(false);
            }
            serde_json::json!({"type": "function", "function": {
                "name": format!("tool_{i:02}_lookup"),
                "description": "Looks something up in one of the services the assistant can reach.",
                "parameters": parameters,
            }})
        })
        .collect();
    Value::Array(tools)
}

/// [`realistic_tools`] with each tool's property names made its own (`query_07`): no two tools
/// declare a parameter alike, so nothing the grammars share between tools applies (the worst case
/// of the constraint rows, where the realistic request shares the same six properties).
///
/// ```
/// let tools = benchmarks::distinct_tools(2);
/// assert!(tools[1]["function"]["parameters"]["properties"].get("query_01").is_some());
/// assert_eq!(tools[1]["function"]["parameters"]["required"][0], "query_01");
/// ```
pub fn distinct_tools(count: usize) -> Value {
    let mut tools = realistic_tools(count);
    for (at, tool) in tools.as_array_mut().into_iter().flatten().enumerate() {
        let parameters = &mut tool["function"]["parameters"];
        let suffix = |name: &str| format!("{name}_{at:02}");
        if let Some(Value::Object(properties)) = parameters.get_mut("properties") {
            *properties = std::mem::take(properties)
                .into_iter()
                .map(|(name, schema)| (suffix(&name), schema))
                .collect();
        }
        if let Some(Value::Array(required)) = parameters.get_mut("required") {
            for name in required.iter_mut() {
                if let Some(text) = name.as_str() {
                    *name = Value::String(suffix(text));
                }
            }
        }
    }
    tools
}

/// Where a constraint comes from: a family's registered builder, or the generic parser's description
/// of a chat template's analysis.
#[derive(Clone, Copy, Debug)]
pub enum ConstraintSource {
    /// The registry entry of this parser name (`ParserEntry::constraint`).
    Entry(&'static str),
    /// The generic parser built from the analysis of this file in [`TEMPLATES_DIR`]
    /// (`GenericParserFactory::constraint`).
    Template(&'static str),
}

/// One parser of the constraint rows, with the prompt tail its requests end in.
#[derive(Clone, Copy, Debug)]
pub struct ConstraintCase {
    /// What builds the constraint.
    pub source: ConstraintSource,
    /// The rendered prompt's end (where the output starts).
    pub prompt_tail: &'static str,
}

/// The parsers of the constraint rows: one per kind of call format the constraint module describes
/// (JSON fields, tagged name, enclosed arguments, tagged parameters in three spellings, harmony, Python
/// calls), and
/// the generic parser of a template analysis.
pub const CONSTRAINT_CASES: &[ConstraintCase] = &[
    ConstraintCase {
        source: ConstraintSource::Entry("qwen3"),
        prompt_tail: "<|im_start|>assistant\n",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("qwen3-coder"),
        prompt_tail: "<|im_start|>assistant\n",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("kimi-k2-thinking"),
        prompt_tail: "<|im_assistant|>assistant<|im_middle|>",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("deepseek-r1"),
        prompt_tail: "<｜Assistant｜><think>\n",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("deepseek-v3.1"),
        prompt_tail: "<｜Assistant｜></think>",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("deepseek-v3.2"),
        prompt_tail: "<｜Assistant｜><think>",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("glm-4.7"),
        prompt_tail: "<|assistant|><think>",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("gpt-oss"),
        prompt_tail: "<|start|>assistant",
    },
    ConstraintCase {
        source: ConstraintSource::Entry("lfm2"),
        prompt_tail: "<|im_start|>assistant\n",
    },
    ConstraintCase {
        source: ConstraintSource::Template("Qwen-Qwen3-0.6B.jinja"),
        prompt_tail: "<|im_start|>assistant\n",
    },
];

/// One form of a [`Constraint`]: a server hands one to its engine, and a `Constraint` renders each
/// form on first access, so a request costs the constraint and the form it uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintForm {
    /// llguidance's Lark ([`Constraint::lark`]).
    Lark,
    /// llama.cpp's GBNF ([`Constraint::gbnf`]).
    Gbnf,
    /// An xgrammar structural tag, as JSON text ([`Constraint::structural_tag_json`]).
    StructuralTag,
}

impl ConstraintForm {
    /// Every form.
    pub const ALL: [ConstraintForm; 3] = [
        ConstraintForm::Lark,
        ConstraintForm::Gbnf,
        ConstraintForm::StructuralTag,
    ];

    /// The form's name in the rows (`lark`, `gbnf`, `structural-tag`, as `llm-parse --format` says).
    pub fn label(self) -> &'static str {
        match self {
            ConstraintForm::Lark => "lark",
            ConstraintForm::Gbnf => "gbnf",
            ConstraintForm::StructuralTag => "structural-tag",
        }
    }

    /// Renders this form of `constraint` (what a server asks for); returns something of it, so that
    /// the rendering is not optimized away.
    pub fn render(self, constraint: &Constraint) -> usize {
        match self {
            ConstraintForm::Lark => constraint.lark().len(),
            ConstraintForm::Gbnf => constraint.gbnf().len(),
            // The text a server sends on (`structural_tag()` parses it into a `Value`).
            ConstraintForm::StructuralTag => constraint.structural_tag_json().len(),
        }
    }
}

/// Builds the constraint of a request for one [`ConstraintCase`].
pub enum ConstraintBuilder {
    /// A family's registered builder.
    Entry(&'static ParserEntry),
    /// The generic parser of a template's analysis (analysed once, as a server keeps it).
    Generic(generic::GenericParserFactory),
}

impl ConstraintBuilder {
    /// The constraint of one request (what the benchmarks time).
    pub fn build(
        &self,
        options: &ParseOptions,
        request: &ConstraintRequest,
    ) -> Result<Constraint, Error> {
        match self {
            ConstraintBuilder::Entry(entry) => {
                entry.constraint(options, request).unwrap_or_else(|| {
                    Err(Error::new(parser_auto::ErrorKind::InvalidOption(format!(
                        "`{}` registers no constraint builder",
                        entry.name
                    ))))
                })
            }
            ConstraintBuilder::Generic(factory) => factory.constraint(options, request),
        }
    }
}

impl ConstraintCase {
    /// The row's name: the parser name, or the template's.
    pub fn label(&self) -> String {
        match self.source {
            ConstraintSource::Entry(name) => name.to_owned(),
            ConstraintSource::Template(file) => format!("generic ({file})"),
        }
    }

    /// The request's options: the prompt tail and `tools`.
    pub fn options(&self, tools: Arc<Tools>) -> ParseOptions {
        ParseOptions::new()
            .with_prompt_tail(self.prompt_tail)
            .with_tools(tools)
    }

    /// Resolves the builder, or says why it cannot (a family not registered, a template that does not
    /// load).
    pub fn builder(&self) -> Result<ConstraintBuilder, String> {
        match self.source {
            ConstraintSource::Entry(name) => parser_auto::entry_by_name(name)
                .map(ConstraintBuilder::Entry)
                .map_err(|e| format!("`{name}` is not registered ({e})")),
            ConstraintSource::Template(file) => {
                let path = Path::new(TEMPLATES_DIR).join(file);
                let template = ChatTemplate::from_file(&path)
                    .map_err(|e| format!("`templates/{file}` does not load ({e})"))?;
                let analysis = parser_auto::analysis_for(&template);
                Ok(ConstraintBuilder::Generic(
                    generic::GenericParserFactory::new(analysis),
                ))
            }
        }
    }
}
