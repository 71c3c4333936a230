//! Calls written as Python dict literals ([`CallName::PythonDict`](super::CallName::PythonDict)):
//! `{'name': 'NAME', 'arguments': {…}}` (Sarashina), the arguments a Python dict whose values a JSON
//! schema constrains, as grammar nodes both renderers share.
//!
//! The call is what Python's `repr` writes of a call object, or the same with `"` quotes: the name
//! key, the function's name, the arguments key, each a string in either quote; then the arguments,
//! a dict of the tool's declared properties as [`super::python`] writes an object (keys as strings,
//! every required one present, in any order up to [`super::ANY_ORDER_LIMIT`] of them, values as
//! Python literals of their schemas; see [Python values](super#python-values)). A tool that declares
//! no properties takes `{}` (any dict when its schema says nothing of properties). Not written, though
//! a parser may read them: the keys in the other order, the arguments left out, one dict without a
//! list around it.

use serde_json::Value;

use super::grammar::{Grammar, Node};
use super::python::{PyRules, literal};
use super::{CallFormat, CallTool};

/// The key (in either quote), `:` and whitespace around it.
fn key(name: &str) -> Vec<Node> {
    vec![
        literal(&Value::String(name.to_owned())),
        Node::Ws,
        Node::Lit(":".into()),
        Node::Ws,
    ]
}

/// One call of `tool` (the `at`-th), after the format's `call_begin`: the dict with its name and its
/// arguments (rule `args_AT_0`, from [`arguments`]).
pub(crate) fn call_tail(
    calls: &CallFormat,
    name_key: &str,
    arguments_key: &str,
    at: usize,
    tool: &CallTool,
) -> Node {
    let mut items = vec![Node::Ws, Node::Lit("{".into()), Node::Ws];
    items.extend(key(name_key));
    items.extend([
        literal(&Value::String(tool.name.clone())),
        Node::Ws,
        Node::Lit(",".into()),
        Node::Ws,
    ]);
    items.extend(key(arguments_key));
    items.extend([
        Node::Ref(format!("args_{at}_0").into()),
        Node::Ws,
        Node::Lit("}".into()),
    ]);
    if !calls.call_end.is_empty() {
        items.extend([Node::Ws, Node::Lit(calls.call_end.clone())]);
    }
    Node::Seq(items)
}

/// The arguments dict of `tool` (the `at`-th of the request): rule `args_AT_0`, its side rules in `py`.
pub(crate) fn arguments(py: &mut PyRules, at: usize, tool: &CallTool) -> Vec<(String, Node)> {
    let parameters = tool.parameters();
    let declares_none = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.is_empty());
    let args = if declares_none {
        // Properties declared as none: no arguments.
        Node::Seq(vec![Node::Lit("{".into()), Node::Ws, Node::Lit("}".into())])
    } else if parameters.is_object() && parameters.get("type").is_none() {
        // A schema without a type is an object's here: the arguments are a dict.
        let mut object = parameters.clone();
        object["type"] = Value::from("object");
        py.value(&object, 0)
    } else {
        py.value(parameters, 0)
    };
    vec![(format!("args_{at}_0"), args)]
}

/// The arguments of `tool` as a standalone grammar (root: the dict), for the structural tag's
/// `grammar` content, which xgrammar reads as GBNF.
pub(crate) fn arguments_grammar(tool: &CallTool) -> Grammar {
    let mut py = PyRules::default();
    let args = arguments(&mut py, 0, tool);
    let mut rules = vec![("root".to_owned(), Node::Ref("args_0_0".into()))];
    rules.extend(args);
    rules.append(&mut py.rules);
    Grammar { rules }
}

/// The call's opening up to its arguments as the structural tag writes it, in Python's `repr`
/// quotes: `{'name': 'NAME', 'arguments': `.
pub(crate) fn tag_begin(name_key: &str, arguments_key: &str, tool: &CallTool) -> String {
    let quote = |text: &str| super::python::quote(text, '\'');
    format!(
        "{{{}: {}, {}: ",
        quote(name_key),
        quote(&tool.name),
        quote(arguments_key)
    )
}
