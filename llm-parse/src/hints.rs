//! Hints on stderr from what the library logs: a `tracing` subscriber that turns the few warnings a
//! command-line user can act on into one line each, and ignores everything else (the library logs
//! nothing anywhere else in this tool).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// The target of the library's warning that a reasoning end marker reached the content of a parser
/// whose starting stage nothing in the request decided (`ThinkTagReasoningParser::stage_from_default`).
const STAGE_TARGET: &str = "parser_core::stage";

/// Installs the subscriber for the whole run.
pub fn install() {
    // Only fails when a subscriber is already set, which nothing else in this tool does.
    let _ = tracing::subscriber::set_global_default(Hints::default());
}

/// Prints each hint once per run.
#[derive(Default)]
struct Hints {
    stage_hint_printed: AtomicBool,
}

impl Hints {
    fn stage_hint(&self, marker: &str) {
        if self.stage_hint_printed.swap(true, Ordering::Relaxed) {
            return;
        }
        // If stderr itself is gone there is nobody left to tell.
        let _ = writeln!(
            std::io::stderr(),
            "llm-parse: hint: `{marker}` reached the content: nothing said whether the output starts \
             in reasoning, so it was read as the answer; if the prompt opened reasoning, say so with \
             --prompt-tail TEXT (the prompt's end), --thinking on or --stage reasoning"
        );
    }
}

/// Reads the `marker` field of an event.
#[derive(Default)]
struct Marker(String);

impl Visit for Marker {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "marker" {
            value.clone_into(&mut self.0);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "marker" && self.0.is_empty() {
            self.0 = format!("{value:?}");
        }
    }
}

impl Subscriber for Hints {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event() && *metadata.level() == Level::WARN && metadata.target() == STAGE_TARGET
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        // No span is ever enabled; an id is still required.
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        if metadata.target() == STAGE_TARGET && *metadata.level() == Level::WARN {
            let mut marker = Marker::default();
            event.record(&mut marker);
            self.stage_hint(&marker.0);
        }
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}
