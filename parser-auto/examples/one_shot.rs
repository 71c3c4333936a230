//! One-shot parsing of a whole response: the parser for a model id, the parsed message, and the
//! OpenAI `chat.completion` a server returns for it.
//!
//! ```sh
//! cargo run -p parser-auto --example one_shot --features openai                    # a DeepSeek-V3.1 sample
//! cargo run -p parser-auto --example one_shot --features openai -- MODEL FILE      # FILE `-` is stdin
//! ```
//!
//! Everything used here comes from `parser-auto` (with its `openai` feature): the wire types are
//! `parser_auto::openai`, and JSON is `parser_auto::serde_json`. In a server's own crate it builds
//! with `parser-auto = { version = "0.1", features = ["openai"] }` as the only dependency.
use std::error::Error;
use std::io::{Read, Write};

use parser_auto::ParseOptions;
use parser_auto::openai::{Config, Envelope, FinishReason, Message};
use parser_auto::serde_json;

/// The sample's model.
pub const SAMPLE_MODEL: &str = "deepseek-ai/DeepSeek-V3.1";
/// The end of the sample's prompt: thinking on, so the output starts in reasoning.
pub const SAMPLE_PROMPT_TAIL: &str =
    "<｜User｜>Weather in Paris and Beijing?<｜Assistant｜><think>";
/// A DeepSeek-V3.1 output: reasoning, content and two calls.
pub const SAMPLE_OUTPUT: &str = "The user wants two cities: one call each.</think>Checking both.\
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>\
<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"北京\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";

/// Parses `output` with the parser for `model` and prints the message and the `chat.completion`.
pub fn run(
    model: &str,
    prompt_tail: Option<&str>,
    output: &str,
    out: &mut dyn Write,
) -> Result<(), Box<dyn Error>> {
    let mut options = ParseOptions::new();
    if let Some(tail) = prompt_tail {
        options = options.with_prompt_tail(tail);
    }
    let parser = parser_auto::for_model(model, &options)?;
    writeln!(
        out,
        "model {model}: parser `{}`, output starts in {:?}",
        parser.name(),
        parser.stage()
    )?;
    let message = parser.parse(output);
    writeln!(out, "\n{message:#?}")?;

    // The response: the server owns id, created and model; `finish_reason` becomes `tool_calls` when
    // the message has calls.
    let envelope = Envelope::new("chatcmpl-one-shot", unix_seconds(), model);
    let completion = envelope.completion(Message::new(&message, Config::new()), FinishReason::Stop);
    writeln!(
        out,
        "\nchat.completion:\n{}",
        serde_json::to_string_pretty(&completion)?
    )?;
    Ok(())
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => run(
            SAMPLE_MODEL,
            Some(SAMPLE_PROMPT_TAIL),
            SAMPLE_OUTPUT,
            &mut std::io::stdout(),
        ),
        [model, rest @ ..] if rest.len() <= 1 => {
            let mut output = String::new();
            let read = match rest.first().map(String::as_str) {
                None | Some("-") => std::io::stdin().read_to_string(&mut output).map(drop),
                Some(path) => std::fs::read_to_string(path).map(|text| output = text),
            };
            read.map_err(Into::into)
                .and_then(|()| run(model, None, &output, &mut std::io::stdout()))
        }
        _ => Err("usage: one_shot [MODEL [FILE|-]]".into()),
    };
    if let Err(e) = result {
        eprintln!("one_shot: {e}");
        std::process::exit(1);
    }
}
