//! Scratch builds for the ignored end-to-end tests (`new_family`, `outside_crate`): copying files into
//! a directory under `target/` and running cargo there with a target directory of its own.

use std::path::Path;
use std::process::Command;

/// Copies `from` into `to` recursively, leaving out `target/` and hidden entries.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(&name));
        } else {
            copy_file(&entry.path(), &to.join(&name));
        }
    }
}

/// Copies a file (creating the directories above it), keeping its modification time so that cargo
/// reuses what it compiled from it in an earlier run.
pub fn copy_file(from: &Path, to: &Path) {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    let modified = std::fs::metadata(from).unwrap().modified().unwrap();
    let file = std::fs::File::options().write(true).open(to).unwrap();
    file.set_modified(modified).unwrap();
}

/// Runs `program args` in `dir` with `CARGO_TARGET_DIR` set to `target`; panics with its output when
/// it fails, and prints how long it took.
pub fn run_in(dir: &Path, target: &Path, program: &str, args: &[&str]) {
    let started = std::time::Instant::now();
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .unwrap_or_else(|e| panic!("{program} {args:?}: {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?} in {} failed:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{program} {args:?}: {:.1?}", started.elapsed());
}
