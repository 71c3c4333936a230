//! One call of a format with tagged parameters ([`CallName::Parameters`]) as named rules, for a
//! family whose framing around the calls is its own grammar (Muse's messages, chosen by their
//! recipient): the call's rules are the ones a [`FormatDescription`] writes for its own grammar,
//! under a prefix of the family's choosing.

use std::sync::Arc;

use serde_json::Value;

use super::grammar::{Grammar, Node};
use super::{
    CallName, CallTool, ConstraintRequest, FormatDescription, ParameterMemo, ParameterTags,
    ResponseFormat, ValueForm, counted_except, parameter_rules, properties, value_form,
    value_stops,
};
use crate::error::Error;
use crate::schema::{ToolSchema, Tools};

/// A request resolved against its tools, for a family that writes its own grammar.
#[derive(Clone, Debug)]
pub struct Resolved<'a> {
    /// The tools a call may name ([`ConstraintRequest::allowed_tools`]).
    pub tools: Vec<&'a ToolSchema>,
    /// At least one call is required (`required`, a named function).
    pub required: bool,
    /// More than one call may be made.
    pub parallel: bool,
    /// The schema content must follow (`response_format`), if any.
    pub json: Option<&'a Value>,
    /// The grammar applies from a trigger on: `auto` with tools and no `response_format`.
    pub lazy: bool,
}

impl ConstraintRequest {
    /// This request against `tools`: what a family's own grammar needs of it.
    ///
    /// Errors: those of [`ConstraintRequest::allowed_tools`].
    ///
    /// ```
    /// use parser_core::constraint::ConstraintRequest;
    /// use parser_core::Tools;
    ///
    /// let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {"name": "a"}}])).unwrap();
    /// let request = ConstraintRequest::default();
    /// let resolved = request.resolve(Some(&tools)).unwrap();
    /// assert!(resolved.lazy && resolved.parallel && !resolved.required);
    /// ```
    pub fn resolve<'a>(&'a self, tools: Option<&'a Tools>) -> Result<Resolved<'a>, Error> {
        let (tools, required) = self.allowed_tools(tools)?;
        let json = match &self.response_format {
            ResponseFormat::Text => None,
            ResponseFormat::JsonSchema(schema) => Some(schema),
        };
        Ok(Resolved {
            lazy: !tools.is_empty() && !required && json.is_none(),
            tools,
            required,
            parallel: self.parallel_tool_calls,
            json,
        })
    }
}

/// How a call's parameter values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaggedValues {
    /// As [`ParameterTags`] describes: typed by the tool's schema, as a parser that reads values by
    /// the schema does.
    Schema,
    /// For a parser that reads a value as JSON when its text parses as JSON, and as a string
    /// otherwise (Muse Glimmer): every value is JSON valid against its schema, and a string may also
    /// be raw text that cannot parse as JSON — its first character is none of `"{[-0123456789tfn`,
    /// whitespace or `<`: up to the value's closer (no value stop, no marker inside); with length
    /// bounds, that many characters (as [`ParameterTags`] counts them, at least one); with `enum` /
    /// `const`, each value that starts so.
    JsonWhenParses,
}

/// The first characters of every JSON text (and whitespace, and a marker's `<`): a raw string that
/// starts with none of them never parses as JSON.
const JSON_STARTS: &[char] = &[
    '"', '{', '[', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n', ' ', '\t',
    '\n', '\r', '<',
];

impl FormatDescription {
    /// One call of `tool` as rules to embed in a family's grammar: the first, `PREFIX` `call`, is the
    /// call from [`CallFormat::call_begin`](super::CallFormat::call_begin) to its `call_end`; the
    /// others, also named with `prefix` first, are its parts. `None` unless the calls have tagged
    /// parameters ([`CallName::Parameters`]).
    ///
    /// ```
    /// use parser_core::constraint::{
    ///     CallFormat, CallName, FormatDescription, Grammar, Node, ParameterTags, TaggedValues,
    /// };
    /// use parser_core::Tools;
    ///
    /// let format = FormatDescription {
    ///     reasoning: None,
    ///     calls: CallFormat {
    ///         section: None,
    ///         section_optional: false,
    ///         call_begin: "<invoke name=\"".into(),
    ///         name: CallName::Parameters {
    ///             prefix: "".into(),
    ///             suffix: "\">".into(),
    ///             parameters: ParameterTags {
    ///                 key_open: "<parameter name=\"".into(),
    ///                 key_close: "\">".into(),
    ///                 space_before_value: false,
    ///                 string_open: "".into(),
    ///                 json_open: "".into(),
    ///                 value_close: "</parameter>".into(),
    ///                 framing: "".into(),
    ///                 value_stops: vec!["</invoke>".into()],
    ///                 padding: "\n".into(),
    ///             },
    ///             end: "".into(),
    ///         },
    ///         call_end: "</invoke>".into(),
    ///         padding: "\n".into(),
    ///         separator: "\n".into(),
    ///         array: false,
    ///     },
    ///     reserved: vec![],
    /// };
    /// let tools = Tools::from_json(&serde_json::json!([{"type": "function", "function": {
    ///     "name": "get_weather",
    ///     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    /// }}]))
    /// .unwrap();
    /// let tool = tools.iter().next().unwrap();
    /// let mut rules = vec![("start".to_owned(), Node::Ref("w_call".into()))];
    /// rules.extend(format.call_rules(tool, "w_", TaggedValues::Schema).unwrap());
    /// let lark = Grammar { rules }.lark();
    /// assert!(lark.contains("w_call: "));
    /// assert!(lark.contains(r#""<parameter name=\"city\">""#));
    /// ```
    pub fn call_rules(
        &self,
        tool: &ToolSchema,
        prefix: &str,
        values: TaggedValues,
    ) -> Option<Vec<(String, Node)>> {
        let CallName::Parameters {
            parameters: tags, ..
        } = &self.calls.name
        else {
            return None;
        };
        let tool = CallTool {
            name: tool.name.clone(),
            parameters: tool.shared_parameters().clone(),
        };
        let stops: Arc<[String]> = value_stops(tags, &self.markers()).into();
        let excluded = counted_except(tags, &stops);
        let raw = (stops.clone(), excluded.clone());
        let mut rules = vec![(
            "call".to_owned(),
            Node::Seq(vec![
                Node::Lit(self.calls.call_begin.clone()),
                self.call_tail(0, &tool),
            ]),
        )];
        // One tool per grammar (no earlier tool to share with): a rule per property, in order.
        let mut parameters = parameter_rules(
            0,
            &tool,
            tags,
            &(stops, excluded),
            &mut ParameterMemo::default(),
        );
        if values == TaggedValues::JsonWhenParses {
            let declared = properties(tool.parameters());
            for (index, (name, schema, _)) in declared.iter().enumerate() {
                parameters[index].1 = json_when_parses(tags, &tool, name, schema, &raw);
            }
        }
        rules.append(&mut parameters);
        for (name, node) in &mut rules {
            name.insert_str(0, prefix);
            rename(node, prefix);
        }
        Some(rules)
    }

    /// The parameters of `tool` as a standalone grammar (root: the parameters, in any order as
    /// [`FormatDescription::call_rules`] writes them), for a structural tag's `grammar` content,
    /// which xgrammar reads as GBNF. `None` unless the calls have tagged parameters.
    pub fn parameters_grammar(&self, tool: &ToolSchema, values: TaggedValues) -> Option<Grammar> {
        let mut rules = vec![("root".to_owned(), Node::Ref("p_args_0_0".into()))];
        let mut call = self.call_rules(tool, "p_", values)?;
        // The call's own rule is not part of the parameters.
        call.remove(0);
        rules.append(&mut call);
        Some(Grammar { rules })
    }
}

/// One parameter (`param_0_I`) for [`TaggedValues::JsonWhenParses`]: its tags around JSON valid
/// against its schema, or, for a plain string, raw text that cannot parse as JSON.
fn json_when_parses(
    tags: &ParameterTags,
    tool: &CallTool,
    name: &str,
    schema: &Value,
    (stops, excluded): &(Arc<[String]>, Vec<char>),
) -> Node {
    let mut items = vec![
        Node::Ws,
        Node::Lit([&tags.key_open, name, &tags.key_close].concat().into()),
    ];
    if tags.space_before_value {
        items.push(Node::Ws);
    }
    let json = Node::Seq(vec![
        Node::Lit(tags.json_open.clone()),
        Node::JsonProperty {
            parameters: Arc::clone(tool.shared_parameters()),
            property: name.to_owned(),
        },
        Node::Lit(tags.value_close.clone()),
    ]);
    // A first character no JSON text starts with.
    let safe_first = |except: &[char]| {
        let mut except = except.to_vec();
        except.extend_from_slice(JSON_STARTS);
        Node::Chars {
            except,
            min: 1,
            max: Some(1),
        }
    };
    let raw = |rest: Node| {
        Node::Seq(vec![
            Node::Lit(tags.string_open.clone()),
            rest,
            Node::Lit(tags.value_close.clone()),
        ])
    };
    let value = match value_form(schema) {
        ValueForm::Free => Node::Alt(vec![
            json,
            Node::Seq(vec![
                Node::Lit(tags.string_open.clone()),
                safe_first(&[]),
                Node::Text {
                    exclude: Arc::clone(stops),
                    until: Some(tags.value_close.to_string()),
                },
            ]),
        ]),
        ValueForm::Counted { min, max } if max.is_none_or(|max| max >= 1) => Node::Alt(vec![
            json,
            raw(Node::Seq(vec![
                safe_first(excluded),
                Node::Chars {
                    except: excluded.clone(),
                    min: min.saturating_sub(1),
                    max: max.map(|max| max - 1),
                },
            ])),
        ]),
        ValueForm::OneOf(values) => {
            let mut ways = vec![json];
            ways.extend(
                values
                    .into_iter()
                    .filter(|value| value.starts_with(|c: char| !JSON_STARTS.contains(&c)))
                    .map(|value| raw(Node::Lit(value.into()))),
            );
            Node::Alt(ways)
        }
        _ => json,
    };
    items.push(value);
    strip_empty(&mut items);
    Node::Seq(items)
}

/// Drops empty literals (an empty value opener) from sequences, nested ones too.
fn strip_empty(items: &mut Vec<Node>) {
    items.retain(|item| !matches!(item, Node::Lit(text) if text.is_empty()));
    items.iter_mut().for_each(strip_nested);
}

fn strip_nested(node: &mut Node) {
    match node {
        Node::Seq(items) => strip_empty(items),
        // An empty alternative means something: kept.
        Node::Alt(items) => items.iter_mut().for_each(strip_nested),
        _ => {}
    }
}

/// Puts `prefix` before every rule `node` refers to.
fn rename(node: &mut Node, prefix: &str) {
    match node {
        Node::Ref(name) => *name = format!("{prefix}{name}").into(),
        Node::Seq(items) | Node::Alt(items) => items.iter_mut().for_each(|n| rename(n, prefix)),
        Node::Opt(inner) | Node::Star(inner) => rename(inner, prefix),
        Node::AnyOrder(items) => items.iter_mut().for_each(|(n, _)| rename(n, prefix)),
        Node::Separated { items, separator } => {
            items.iter_mut().for_each(|(n, _)| rename(n, prefix));
            rename(separator, prefix);
        }
        Node::Lit(_)
        | Node::Ws
        | Node::Digits
        | Node::Json(_)
        | Node::JsonProperty { .. }
        | Node::Text { .. }
        | Node::Chars { .. } => {}
    }
}

/// The calls part of the structural tag of a family whose framing is its own (Inkling's blocks,
/// Muse's messages), from its call `tags` (each a `tag` of one call, as xgrammar takes them):
///
/// - no tags (`none`, or no tools): `answer`;
/// - a call required: the tags separated by `separator`, at least one (one with `parallel` off);
/// - `auto` with a `response_format` (`json`): `answer` or those calls;
/// - `auto` otherwise: `triggered_tags` on `triggers`, free text around the calls — a whole format,
///   which the caller puts in the structural tag as it is (its type is `triggered_tags`).
///
/// ```
/// use serde_json::json;
///
/// let tag = json!({"type": "tag", "begin": "<call>", "content": {"type": "any_text"}, "end": "</call>"});
/// let answer = json!({"type": "any_text"});
/// let required = parser_core::constraint::structural_calls(
///     answer.clone(), vec![tag.clone()], "\n", vec!["<call>".into()], true, false, false,
/// );
/// assert_eq!(required["type"], "tags_with_separator");
/// assert_eq!(required["stop_after_first"], true);
/// let auto = parser_core::constraint::structural_calls(
///     answer, vec![tag], "\n", vec!["<call>".into()], false, true, false,
/// );
/// assert_eq!(auto["type"], "triggered_tags");
/// ```
pub fn structural_calls(
    answer: Value,
    tags: Vec<Value>,
    separator: &str,
    triggers: Vec<String>,
    required: bool,
    parallel: bool,
    json: bool,
) -> Value {
    use serde_json::json;
    if tags.is_empty() {
        return answer;
    }
    if !required && !json {
        return json!({
            "type": "triggered_tags",
            "triggers": triggers,
            "tags": tags,
            "at_least_one": false,
            "stop_after_first": !parallel,
        });
    }
    let calls = json!({
        "type": "tags_with_separator",
        "tags": tags,
        "separator": separator,
        "at_least_one": true,
        "stop_after_first": !parallel,
    });
    if required {
        calls
    } else {
        json!({"type": "or", "elements": [answer, calls]})
    }
}
