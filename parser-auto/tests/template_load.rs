//! Loading chat templates from `tokenizer_config.json`, `chat_template.json`, `.jinja` files and model
//! directories.

use std::path::{Path, PathBuf};

use parser_auto::ErrorKind;
use parser_auto::template::{ChatTemplate, RenderInput};
use serde_json::json;

const TEMPLATE: &str = "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}\
                        {% if add_generation_prompt %}[assistant]{% endif %}";

fn hi() -> RenderInput {
    RenderInput::new(vec![json!({"role": "user", "content": "hi"})]).with_generation_prompt(true)
}

#[test]
fn tokenizer_config_with_a_string_template_and_token_objects() {
    let config = json!({
        "chat_template": TEMPLATE,
        "bos_token": {"__type": "AddedToken", "content": "<｜begin▁of▁sentence｜>", "lstrip": false},
        "eos_token": "<｜end▁of▁sentence｜>",
        "added_tokens_decoder": {
            "128798": {"content": "<think>", "special": false},
            "128799": {"content": "</think>", "special": false},
            "0": {"content": "<｜begin▁of▁sentence｜>", "special": true},
        },
        "model_max_length": 131072,
    })
    .to_string();
    let t = ChatTemplate::from_tokenizer_config(&config, None).unwrap();
    assert_eq!(t.name(), "default");
    assert_eq!(t.source(), TEMPLATE);
    assert_eq!(t.bos_token(), "<｜begin▁of▁sentence｜>");
    assert_eq!(t.eos_token(), "<｜end▁of▁sentence｜>");
    let table = t.special_tokens().expect("added_tokens_decoder");
    assert_eq!(table.len(), 3);
    assert_eq!(table.id("<think>"), Some(128798));
    assert_eq!(table.text(128799), Some("</think>"));
    assert_eq!(
        t.render(&hi()).unwrap(),
        "<｜begin▁of▁sentence｜>[user]hi[assistant]"
    );
    // with_tokens replaces them.
    let t = t.with_tokens("<s>", "</s>");
    assert_eq!((t.bos_token(), t.eos_token()), ("<s>", "</s>"));
    assert_eq!(t.render(&hi()).unwrap(), "<s>[user]hi[assistant]");
}

#[test]
fn tokenizer_config_with_named_templates() {
    let config = json!({
        "chat_template": [
            {"name": "default", "template": "default:{{ messages|length }}"},
            {"name": "tool_use", "template": "tool_use:{{ tools|length }}"},
            {"name": "rag", "template": "rag"},
        ],
        "bos_token": null,
    })
    .to_string();
    let default = ChatTemplate::from_tokenizer_config(&config, None).unwrap();
    assert_eq!(
        (default.name(), default.render(&hi()).unwrap().as_str()),
        ("default", "default:1")
    );
    assert_eq!(default.bos_token(), "");
    let tool_use = ChatTemplate::from_tokenizer_config(&config, Some("tool_use")).unwrap();
    let input = hi().with_tools(vec![json!({"type": "function", "function": {"name": "f"}})]);
    assert_eq!(
        (tool_use.name(), tool_use.render(&input).unwrap().as_str()),
        ("tool_use", "tool_use:1")
    );
    let err = ChatTemplate::from_tokenizer_config(&config, Some("nope")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidOption(_)));
    assert!(err.to_string().contains("default, tool_use, rag"), "{err}");
    // Without a "default" entry, the first.
    let config =
        json!({"chat_template": [{"name": "a", "template": "A"}, {"name": "b", "template": "B"}]})
            .to_string();
    assert_eq!(
        ChatTemplate::from_tokenizer_config(&config, None)
            .unwrap()
            .render(&hi())
            .unwrap(),
        "A"
    );
}

#[test]
fn bad_tokenizer_configs_are_errors() {
    for config in [
        "not json",
        "[]",
        r#"{"bos_token": "<s>"}"#,
        r#"{"chat_template": 3}"#,
        r#"{"chat_template": [{"name": "x"}]}"#,
        r#"{"chat_template": "{% if %}"}"#,
        r#"{"chat_template": "x", "added_tokens_decoder": {"abc": {"content": "<x>"}}}"#,
    ] {
        let err = ChatTemplate::from_tokenizer_config(config, None).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidOption(_)),
            "{config}: {err}"
        );
    }
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("llm-parse-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn model_dir_prefers_chat_template_jinja_then_json_then_tokenizer_config() {
    let dir = TempDir::new("model-dir");
    let config = json!({
        "chat_template": "from tokenizer_config",
        "eos_token": {"content": "<|im_end|>"},
        "added_tokens_decoder": {"151667": {"content": "<think>", "special": false}},
    });
    dir.write("tokenizer_config.json", &config.to_string());
    dir.write(
        "special_tokens_map.json",
        &json!({"bos_token": "<|bos|>", "eos_token": "<|other|>"}).to_string(),
    );

    let t = ChatTemplate::from_model_dir(dir.path()).unwrap();
    assert_eq!(t.render(&hi()).unwrap(), "from tokenizer_config");
    assert_eq!(
        t.eos_token(),
        "<|im_end|>",
        "tokenizer_config wins over special_tokens_map"
    );
    assert_eq!(
        t.bos_token(),
        "<|bos|>",
        "special_tokens_map fills what tokenizer_config lacks"
    );
    assert_eq!(t.special_tokens().unwrap().id("<think>"), Some(151667));

    dir.write(
        "chat_template.json",
        &json!({"chat_template": "from chat_template.json"}).to_string(),
    );
    assert_eq!(
        ChatTemplate::from_model_dir(dir.path())
            .unwrap()
            .render(&hi())
            .unwrap(),
        "from chat_template.json"
    );

    dir.write("chat_template.jinja", TEMPLATE);
    let t = ChatTemplate::from_model_dir(dir.path()).unwrap();
    assert_eq!(t.render(&hi()).unwrap(), "<|bos|>[user]hi[assistant]");
    assert_eq!(t.eos_token(), "<|im_end|>");
    assert_eq!(t.special_tokens().unwrap().len(), 1);
}

#[test]
fn model_dir_without_a_template_is_an_error() {
    let dir = TempDir::new("empty-dir");
    dir.write("tokenizer_config.json", r#"{"eos_token": "</s>"}"#);
    let err = ChatTemplate::from_model_dir(dir.path()).unwrap_err();
    assert!(err.to_string().contains("no chat template"), "{err}");
}

#[test]
fn from_file_reads_jinja_and_json_by_extension_or_content() {
    let dir = TempDir::new("files");
    // A template that starts with `{` is still a template.
    let jinja = dir.write("x.jinja", "{{ bos_token }}T");
    let t = ChatTemplate::from_file(&jinja).unwrap();
    assert_eq!((t.name(), t.source()), ("x.jinja", "{{ bos_token }}T"));
    let json_path = dir.write(
        "tokenizer_config.json",
        &json!({"chat_template": "J", "bos_token": "<s>"}).to_string(),
    );
    let t = ChatTemplate::from_file(&json_path).unwrap();
    assert_eq!((t.source(), t.bos_token()), ("J", "<s>"));
    let no_ext = dir.write("config", &json!({"chat_template": "K"}).to_string());
    assert_eq!(ChatTemplate::from_file(&no_ext).unwrap().source(), "K");
    let txt = dir.write("template.txt", "{{ 'plain' }}");
    assert_eq!(
        ChatTemplate::from_file(&txt)
            .unwrap()
            .render(&hi())
            .unwrap(),
        "plain"
    );
    assert!(ChatTemplate::from_file(&dir.path().join("missing.jinja")).is_err());
}
