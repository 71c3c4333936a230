//! Every input in `fuzz/regressions/` (failures the fuzzer found, shrunk) re-run through every check:
//! one-shot and eleven chunkings, the call protocol, JSON validity, leaked markers, and the oracle when
//! the file carries one.
//!
//! A file whose header has an `open` note is a known bug, reported and not fixed yet (see
//! `fuzz::check::KNOWN_ISSUES`): it must still fail its check. When it passes, the bug was fixed, and the
//! test says so: remove the note (and the issue's entry) so that the file guards the fix. Slowness is not
//! timed here (`fuzz --replay FILE` times a file by hand); such files only have to pass the other checks.

use std::time::Instant;

use fuzz::check::KNOWN_ISSUES;
use fuzz::{CheckKind, regress};

/// Inputs longer than this are left to `fuzz --replay` (a debug build takes seconds per megabyte).
const MAX_LEN: usize = 256 << 10;

#[test]
fn every_regression_input_passes_every_check() {
    let dir = regress::default_dir();
    let files = regress::files(&dir);
    let started = Instant::now();
    let mut problems = Vec::new();
    let mut open = 0;
    for path in &files {
        let shown = path.strip_prefix(&dir).unwrap_or(path).display();
        let (header, input) = match regress::read(path) {
            Ok(file) => file,
            Err(why) => {
                problems.push(why);
                continue;
            }
        };
        if input.len() > MAX_LEN {
            continue;
        }
        let result = regress::replay(&header, &input);
        match (&header.open, result) {
            (None, Ok(())) => {}
            (None, Err(failure)) => problems.push(format!("{shown}: {failure}")),
            (Some(note), result) => {
                let id = note.split(':').next().unwrap_or("");
                if !KNOWN_ISSUES.iter().any(|issue| issue.id == id) {
                    problems.push(format!("{shown}: open issue `{id}` is not in KNOWN_ISSUES"));
                }
                match result {
                    Ok(()) if header.check == CheckKind::Slow => {}
                    Ok(()) => problems.push(format!(
                        "{shown}: passes every check now, so `{id}` is fixed: remove the file's `open` \
                         note and the issue's entry in fuzz::check::KNOWN_ISSUES"
                    )),
                    Err(failure) if failure.kind == header.check => open += 1,
                    Err(failure) => problems.push(format!(
                        "{shown}: open issue `{id}` was a {} failure, now: {failure}",
                        header.check
                    )),
                }
            }
        }
    }
    eprintln!(
        "{} regression inputs ({open} known open issues) in {:.1} s",
        files.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn regression_files_round_trip() {
    for path in regress::files(&regress::default_dir()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let (header, input) = regress::from_text(&text).unwrap();
        assert_eq!(
            regress::to_text(&header, &input),
            text,
            "{}",
            path.display()
        );
    }
}

/// Every template the `templates` family found (`fuzz/regressions/templates/*.jinja`, with its config
/// beside it) goes through every render entry point again without a panic or a hang.
#[test]
fn every_template_regression_passes() {
    let problems = fuzz::templates::replay_dir(&regress::default_dir());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
