//! `llm-parse`: parse raw LLM output into reasoning, content and tool calls from the command line.
//!
//! With no arguments it shows every registered parser on its built-in sample; with `--model`, `--parser`,
//! `--template` or `--model-dir` it parses a file or stdin, one-shot or streamed (`--stream`, `--chunk`);
//! `--analyze` shows what the template analysis finds and the route a model takes; `--batch` runs a
//! corpus file of test cases (by model name or, with `--templates`, by template) and `--list` prints the
//! registry. Run `llm-parse --help` for the details.
//!
//! The code is split in four: [`args`] reads the command line, [`modes`] runs what was asked,
//! [`output`] formats messages and deltas as JSON, and [`hints`] turns the library's warnings a user
//! can act on into hints on stderr.

use std::io::{self, Write};
use std::process::ExitCode;

mod args;
mod hints;
mod modes;
mod output;

/// Why a run stopped early.
#[derive(Debug)]
pub enum Failure {
    /// A user error (bad flag, unreadable file, unknown model…): reported on stderr, exit code 2.
    Message(String),
    /// Whoever reads our output went away (`llm-parse … | head`): stop quietly.
    BrokenPipe,
}

impl Failure {
    /// A user error with this message.
    pub fn msg(message: impl Into<String>) -> Failure {
        Failure::Message(message.into())
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Failure {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Message(format!("cannot write the output: {error}"))
        }
    }
}

fn main() -> ExitCode {
    let command = match args::parse(std::env::args_os().skip(1).collect()) {
        Ok(command) => command,
        Err(message) => return fail(&message),
    };
    hints::install();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = modes::run(command, &mut out).and_then(|()| out.flush().map_err(Failure::from));
    match result {
        Ok(()) | Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            // Whatever was printed before the error still goes out (ignoring a closed pipe).
            let _ = out.flush();
            fail(&message)
        }
    }
}

/// Reports a user error and returns exit code 2.
fn fail(message: &str) -> ExitCode {
    // If stderr itself is gone there is nobody left to tell.
    let _ = writeln!(io::stderr(), "llm-parse: error: {message}");
    ExitCode::from(2)
}
