//! Reading chat templates and their tokens from Hugging Face files: `tokenizer_config.json`,
//! `chat_template.json`, `chat_template.jinja`, `special_tokens_map.json`.

use std::path::Path;

use parser_core::{Error, ErrorKind, SpecialTokens};
use serde_json::Value as Json;

/// What a `tokenizer_config.json` (or `chat_template.json`) holds that matters for rendering.
#[derive(Debug, Default)]
pub(crate) struct TokenizerConfig {
    /// `(name, source)`; a single string template is named `default`.
    pub templates: Vec<(String, String)>,
    pub bos_token: Option<String>,
    pub eos_token: Option<String>,
    pub special_tokens: Option<SpecialTokens>,
}

pub(crate) fn invalid(why: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOption(why.into()))
}

impl TokenizerConfig {
    /// Parses the JSON text of a `tokenizer_config.json` or `chat_template.json`.
    pub(crate) fn parse(json: &str) -> Result<TokenizerConfig, Error> {
        let root: Json = serde_json::from_str(json)
            .map_err(|e| invalid(format!("tokenizer config is not JSON: {e}")))?;
        let Json::Object(root) = root else {
            return Err(invalid("tokenizer config is not a JSON object"));
        };
        let mut config = TokenizerConfig {
            bos_token: root.get("bos_token").and_then(token_text),
            eos_token: root.get("eos_token").and_then(token_text),
            ..TokenizerConfig::default()
        };
        match root.get("chat_template") {
            None | Some(Json::Null) => {}
            Some(Json::String(source)) => config.templates.push(("default".into(), source.clone())),
            Some(Json::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let name = item.get("name").and_then(Json::as_str);
                    let source = item.get("template").and_then(Json::as_str);
                    match (name, source) {
                        (Some(name), Some(source)) => {
                            config.templates.push((name.into(), source.into()))
                        }
                        _ => {
                            return Err(invalid(format!(
                                "chat_template[{i}] is not an object with string `name` and `template`"
                            )));
                        }
                    }
                }
            }
            Some(_) => {
                return Err(invalid(
                    "`chat_template` must be a string or a list of {\"name\", \"template\"} objects",
                ));
            }
        }
        if let Some(Json::Object(decoder)) = root.get("added_tokens_decoder") {
            let mut pairs = Vec::with_capacity(decoder.len());
            for (id, token) in decoder {
                let id: u32 = id.parse().map_err(|_| {
                    invalid(format!("added_tokens_decoder: `{id}` is not a token id"))
                })?;
                let content = token
                    .get("content")
                    .and_then(Json::as_str)
                    .or_else(|| token.as_str())
                    .ok_or_else(|| {
                        invalid(format!(
                            "added_tokens_decoder[{id}] has no `content` string"
                        ))
                    })?;
                pairs.push((id, content.to_string()));
            }
            config.special_tokens = Some(SpecialTokens::from_pairs(pairs));
        }
        Ok(config)
    }

    /// The template called `which`, or else `default`, or else the first one.
    pub(crate) fn pick(&self, which: Option<&str>) -> Result<(String, String), Error> {
        pick(&self.templates, which)
    }
}

/// The template called `which` among a model's named templates, or else `default`, or else the first.
///
/// transformers raises when there is no `default` and nothing is named; the first is as good a guess
/// as any, and a server can still choose by name.
pub(crate) fn pick(
    templates: &[(String, String)],
    which: Option<&str>,
) -> Result<(String, String), Error> {
    let found = match which {
        Some(name) => templates.iter().find(|(n, _)| n == name),
        None => templates
            .iter()
            .find(|(n, _)| n == "default")
            .or_else(|| templates.first()),
    };
    match (found, which) {
        (Some(found), _) => Ok(found.clone()),
        (None, Some(name)) => {
            let names: Vec<&str> = templates.iter().map(|(n, _)| n.as_str()).collect();
            Err(invalid(format!(
                "no chat template named `{name}` (the config has: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )))
        }
        (None, None) => Err(invalid("the config has no `chat_template`")),
    }
}

/// The named templates transformers saves beside `chat_template.jinja` (since 4.54):
/// `additional_chat_templates/NAME.jinja`, sorted by name. None when the directory is absent.
pub(crate) fn additional_templates(dir: &Path) -> Result<Vec<(String, String)>, Error> {
    let dir = dir.join("additional_chat_templates");
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| invalid(format!("cannot read {}: {e}", dir.display())))?;
    let mut templates = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| invalid(format!("cannot read {}: {e}", dir.display())))?
            .path();
        if path.extension().is_some_and(|e| e == "jinja")
            && let Some(name) = path.file_stem().and_then(|n| n.to_str())
        {
            templates.push((name.to_string(), read(&path)?));
        }
    }
    templates.sort();
    Ok(templates)
}

/// A token as `tokenizer_config.json` writes it: a string, or an `AddedToken` object with `content`.
fn token_text(value: &Json) -> Option<String> {
    match value {
        Json::String(s) => Some(s.clone()),
        Json::Object(map) => map
            .get("content")
            .and_then(Json::as_str)
            .map(str::to_string),
        _ => None,
    }
}

/// The text of a file, or an error naming it.
pub(crate) fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path)
        .map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))
}

/// Whether `path` holds JSON (a tokenizer config or `chat_template.json`) rather than template text:
/// by extension, else by content (a JSON object with a `chat_template` key).
pub(crate) fn is_json_config(path: &Path, text: &str) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => true,
        Some("jinja" | "jinja2" | "j2") => false,
        _ => {
            text.trim_start().starts_with('{')
                && serde_json::from_str::<serde_json::Map<String, Json>>(text)
                    .is_ok_and(|map| map.contains_key("chat_template"))
        }
    }
}

/// `bos_token` / `eos_token` from a `special_tokens_map.json`, for configs that lack them.
pub(crate) fn special_tokens_map(text: &str) -> (Option<String>, Option<String>) {
    match serde_json::from_str::<Json>(text) {
        Ok(root) => (
            root.get("bos_token").and_then(token_text),
            root.get("eos_token").and_then(token_text),
        ),
        Err(_) => (None, None),
    }
}
