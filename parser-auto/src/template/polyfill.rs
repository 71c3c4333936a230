//! What a template can render, found by probing it, and the rewrites of a conversation that stand in
//! for what it cannot (tools, a system role, tool calls, tool results).

use serde_json::{Value, json};

/// What a chat template renders, found by rendering probe conversations with needle strings and
/// looking for them in the output (see [`ChatTemplate::capabilities`](super::ChatTemplate::capabilities)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// A `system` message is rendered (Gemma's templates raise on one).
    pub system_role: bool,
    /// The request's `tools` are described in the prompt.
    pub tools: bool,
    /// An assistant message's `tool_calls` are rendered.
    pub tool_calls: bool,
    /// A `tool` message (a tool's result) is rendered.
    pub tool_responses: bool,
}

/// A rewrite applied to a conversation because the template lacks a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Polyfill {
    /// The tools are described in the system message. When the template cannot render tool calls
    /// either, the model is asked to call them as `<tool_call>{"name": …, "arguments": …}</tool_call>`
    /// (parse its replies with the `hermes` parser); otherwise in its own tool-call format.
    ToolsInSystem,
    /// Assistant tool calls are written into the message's content, in that same `<tool_call>` form.
    ToolCallsAsText,
    /// Tool results are sent as user turns, each in `<tool_response>` tags; results in a row share one.
    ToolResultsAsUser,
    /// The system message is merged into the first user turn.
    SystemMergedIntoUser,
}

const SYSTEM_NEEDLE: &str = "SYSTEM_NEEDLE_7f3a";
const TOOL_NEEDLE: &str = "tool_needle_7f3a";
const CALL_NEEDLE: &str = "call_needle_7f3a";
const RESULT_NEEDLE: &str = "RESULT_NEEDLE_7f3a";

/// Probes a template through `render` (messages, tools) → output, or `None` when it fails.
pub(crate) fn probe(
    render: &dyn Fn(Vec<Value>, Option<Vec<Value>>) -> Option<String>,
) -> Capabilities {
    let user = json!({"role": "user", "content": "Hello"});
    let system_role = render(
        vec![
            json!({"role": "system", "content": SYSTEM_NEEDLE}),
            user.clone(),
        ],
        None,
    )
    .is_some_and(|out| out.contains(SYSTEM_NEEDLE));
    let tool = json!({
        "type": "function",
        "function": {
            "name": TOOL_NEEDLE,
            "description": "A probe.",
            // Described: Command-R's tool_use template concatenates each parameter's description
            // and fails on a parameter without one.
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string", "description": "A query."}},
                "required": ["q"],
            },
        },
    });
    // Some templates describe tools only inside a system message (DeepSeek V3.1's).
    let system = json!({"role": "system", "content": "You are helpful."});
    let tools = [vec![user.clone()], vec![system, user.clone()]]
        .into_iter()
        .any(|messages| {
            render(messages, Some(vec![tool.clone()])).is_some_and(|out| out.contains(TOOL_NEEDLE))
        });
    // Nine alphanumerics: Mistral's templates reject any other id.
    let call = json!({
        "id": "probe0001",
        "type": "function",
        "function": {"name": CALL_NEEDLE, "arguments": {"q": "x"}},
    });
    let result = json!({"role": "tool", "tool_call_id": "probe0001", "name": CALL_NEEDLE, "content": RESULT_NEEDLE});
    let (mut tool_calls, mut tool_responses) = (false, false);
    // Templates differ on whether a calling message has `content: null` or `""`, and on whether they
    // need the tool result after the call.
    for content in [Value::Null, json!("")] {
        let assistant =
            json!({"role": "assistant", "content": content, "tool_calls": [call.clone()]});
        for with_result in [true, false] {
            let mut messages = vec![user.clone(), assistant.clone()];
            if with_result {
                messages.push(result.clone());
            }
            if let Some(out) = render(messages, Some(vec![tool.clone()])) {
                tool_calls |= out.contains(CALL_NEEDLE);
                tool_responses |= with_result && out.contains(RESULT_NEEDLE);
            }
        }
    }
    Capabilities {
        system_role,
        tools,
        tool_calls,
        tool_responses,
    }
}

/// Rewrites `messages` (and says which rewrites it made) so that a template with `caps` renders
/// everything in them: tools first (they may create a system message), then calls and results, then
/// the system message. Returns whether the tools must still be passed to the template.
pub(crate) fn apply(
    caps: &Capabilities,
    messages: &mut Vec<Value>,
    tools: Option<&[Value]>,
    applied: &mut Vec<Polyfill>,
) {
    if let Some(tools) = tools.filter(|t| !t.is_empty())
        && !caps.tools
    {
        describe_tools(messages, tools, !caps.tool_calls);
        applied.push(Polyfill::ToolsInSystem);
    }
    let has_calls = messages.iter().any(|m| {
        m.get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty())
    });
    if has_calls && !caps.tool_calls {
        for message in messages.iter_mut() {
            calls_as_text(message);
        }
        applied.push(Polyfill::ToolCallsAsText);
    }
    if !caps.tool_responses && messages.iter().any(|m| role(m) == "tool") {
        results_as_user(messages);
        applied.push(Polyfill::ToolResultsAsUser);
    }
    if !caps.system_role && messages.iter().any(|m| role(m) == "system") {
        merge_system(messages);
        applied.push(Polyfill::SystemMergedIntoUser);
    }
}

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// A message's content as text (a list of parts keeps its text parts).
fn text_of(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn set_text(message: &mut Value, text: String) {
    if let Some(map) = message.as_object_mut() {
        map.insert("content".into(), Value::String(text));
    }
}

fn join_text(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (_, true) => first.to_string(),
        _ => format!("{first}\n\n{second}"),
    }
}

/// Describes `tools` in the system message. A template that renders tool calls has a call format of
/// its own, which the model was trained on: the instructions then only ask for it; otherwise they ask
/// for Hermes-style `<tool_call>` JSON.
fn describe_tools(messages: &mut Vec<Value>, tools: &[Value], hermes_calls: bool) {
    let mut text = String::from(
        "You can call the following tools. Each is described by a JSON schema:\n<tools>\n",
    );
    for tool in tools {
        text.push_str(&serde_json::to_string(tool).unwrap_or_default());
        text.push('\n');
    }
    text.push_str(if hermes_calls {
        "</tools>\n\nTo call a tool, reply with one JSON object per call, each in its own tags:\n\
         <tool_call>\n{\"name\": <tool name>, \"arguments\": <arguments object>}\n</tool_call>"
    } else {
        "</tools>\n\nTo call a tool, write the call in your tool-call format."
    });
    match messages.first_mut() {
        Some(first) if role(first) == "system" => {
            let merged = join_text(&text_of(first), &text);
            set_text(first, merged);
        }
        _ => messages.insert(0, json!({"role": "system", "content": text})),
    }
}

fn calls_as_text(message: &mut Value) {
    let Some(calls) = message
        .as_object_mut()
        .and_then(|m| m.remove("tool_calls"))
        .and_then(|c| c.as_array().cloned())
    else {
        return;
    };
    let mut text = text_of(message);
    for call in calls {
        let function = call.get("function").unwrap_or(&call);
        let name = function.get("name").cloned().unwrap_or(Value::Null);
        let arguments = match function.get("arguments") {
            // Arguments given as JSON text are written as they are (keys in the caller's order).
            Some(Value::String(s)) if serde_json::from_str::<Value>(s).is_ok() => {
                s.trim().to_string()
            }
            Some(other) => serde_json::to_string(other).unwrap_or_default(),
            None => "{}".to_string(),
        };
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str("<tool_call>\n{\"name\": ");
        text.push_str(&serde_json::to_string(&name).unwrap_or_default());
        text.push_str(", \"arguments\": ");
        text.push_str(&arguments);
        text.push_str("}\n</tool_call>");
    }
    set_text(message, text);
}

fn results_as_user(messages: &mut Vec<Value>) {
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    let mut previous_was_result = false;
    for message in messages.drain(..) {
        if role(&message) != "tool" {
            previous_was_result = false;
            out.push(message);
            continue;
        }
        let wrapped = format!("<tool_response>\n{}\n</tool_response>", text_of(&message));
        match out.last_mut() {
            Some(last) if previous_was_result => {
                let merged = format!("{}\n{wrapped}", text_of(last));
                set_text(last, merged);
            }
            _ => out.push(json!({"role": "user", "content": wrapped})),
        }
        previous_was_result = true;
    }
    *messages = out;
}

fn merge_system(messages: &mut Vec<Value>) {
    let system: Vec<String> = messages
        .iter()
        .filter(|m| role(m) == "system")
        .map(text_of)
        .collect();
    messages.retain(|m| role(m) != "system");
    let system = system.join("\n\n");
    match messages.iter_mut().find(|m| role(m) == "user") {
        Some(user) => {
            let merged = join_text(&system, &text_of(user));
            set_text(user, merged);
        }
        None => messages.insert(0, json!({"role": "user", "content": system})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_missing() -> Capabilities {
        Capabilities {
            system_role: false,
            tools: false,
            tool_calls: false,
            tool_responses: false,
        }
    }

    #[test]
    fn every_polyfill_rewrites_as_documented() {
        let mut messages = vec![
            json!({"role": "system", "content": "Be brief."}),
            json!({"role": "user", "content": "Weather?"}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "w", "arguments": "{\"c\": \"Oslo\"}"}},
                {"id": "2", "type": "function", "function": {"name": "w", "arguments": {"c": "Rome"}}}
            ]}),
            json!({"role": "tool", "tool_call_id": "1", "content": "5C"}),
            json!({"role": "tool", "tool_call_id": "2", "content": "20C"}),
            json!({"role": "assistant", "content": "Cold and warm."}),
        ];
        let tools = [json!({"type": "function", "function": {"name": "w"}})];
        let mut applied = Vec::new();
        apply(&all_missing(), &mut messages, Some(&tools), &mut applied);
        assert_eq!(
            applied,
            [
                Polyfill::ToolsInSystem,
                Polyfill::ToolCallsAsText,
                Polyfill::ToolResultsAsUser,
                Polyfill::SystemMergedIntoUser
            ]
        );
        let roles: Vec<&str> = messages.iter().map(role).collect();
        assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
        let first = text_of(&messages[0]);
        assert!(
            first.starts_with("Be brief.\n\nYou can call the following tools."),
            "{first}"
        );
        assert!(first.ends_with("</tool_call>\n\nWeather?"), "{first}");
        assert_eq!(
            text_of(&messages[1]),
            "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"c\": \"Oslo\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"w\", \"arguments\": {\"c\":\"Rome\"}}\n</tool_call>"
        );
        assert!(messages[1].get("tool_calls").is_none());
        assert_eq!(
            text_of(&messages[2]),
            "<tool_response>\n5C\n</tool_response>\n<tool_response>\n20C\n</tool_response>"
        );
    }

    #[test]
    fn nothing_is_rewritten_for_a_template_that_has_everything() {
        let caps = Capabilities {
            system_role: true,
            tools: true,
            tool_calls: true,
            tool_responses: true,
        };
        let mut messages = vec![
            json!({"role": "system", "content": "s"}),
            json!({"role": "tool", "content": "r"}),
        ];
        let before = messages.clone();
        let mut applied = Vec::new();
        apply(&caps, &mut messages, Some(&[json!({})]), &mut applied);
        assert!(applied.is_empty());
        assert_eq!(messages, before);
    }

    #[test]
    fn a_system_message_alone_becomes_the_user_turn() {
        let mut messages = vec![json!({"role": "system", "content": "only"})];
        let mut applied = Vec::new();
        apply(&all_missing(), &mut messages, None, &mut applied);
        assert_eq!(messages, [json!({"role": "user", "content": "only"})]);
    }
}
