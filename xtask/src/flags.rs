//! Command-line flags, parsed by hand.

use std::path::PathBuf;

/// The usage text.
pub const HELP: &str = "\
cargo xtask <command> [flags]

Commands:
  bench [--quick] [--divan | --peers | --instructions] [-- ARGS...]
      Print the benchmark table with targets and PASS/MISS
      (cargo run --release -p benchmarks --bin bench-table).
      --quick   short runs, to check that everything works (numbers not for reporting)
      --instructions
                the every-format table in callgrind instructions instead of time (needs valgrind;
                stable on a loaded machine): one-shot per byte, per 4-char push in prose and in
                content, per push in a 20 KB argument, 200 KB / 20 KB argument, whole stream /
                one-shot. ARGS: format keys to measure (default: all); --jobs N (default: cores)
      --divan   run the divan benchmarks instead (cargo bench -p benchmarks)
      --peers   compare with SGLang's tool-parser / reasoning-parser crates instead
                (peers/, its own workspace: cargo run --release --manifest-path peers/Cargo.toml,
                target dir target/peers; the first build takes about 5 minutes); with --quick,
                also skips SGLang's 200 KB long-argument streams, which take minutes
      ARGS      passed on to the benchmark program (for divan: a filter, --sample-count N, ...)

  conformance [--family NAME] [--verbose]
      Run every corpus case (corpus/{vllm,sglang,llama_cpp,authored}/*.jsonl) one-shot and under every
      standard chunking, and compare with the expected message (or its deviation).
      --family NAME   only cases whose model resolves to a parser of this family (e.g. deepseek)
      --verbose       print every failure with its message

  analyze TEMPLATE... | analyze --all DIR
      Analyse chat templates (.jinja, tokenizer_config.json or chat_template.json files, or
      Hugging Face model directories) and print, for each, the detected reasoning, content and
      tool-call modes, the markers, the capabilities, the preserved tokens and the route a model
      with that template takes when its name is unknown: the tool to run when a new model
      misbehaves.
      --all DIR       every *.jinja file of DIR, as one markdown table (template, route,
                      reasoning, tools, key markers)
      Each report ends with the constrained-decoding grammar of the route taken (a family's, or the
      generic parser's from the analysis): tool_choice auto for a sample get_weather tool, the
      template's generation prompt as the prompt tail; the Lark grammar, whether it is lazy, its
      triggers and preserved tokens (or why there is none).
      --gbnf            also the GBNF grammar
      --structural-tag  also the xgrammar structural tag

  fuzz [--family F|all] [--minutes N] [--inputs N] [--seed S] [--jobs J] [-- ARGS...]
      Adversarial runs (cargo run --release -p fuzz): grammar-generated outputs of each family,
      damaged by mutators, parsed one-shot and in random chunkings; checks no panic, streaming =
      one-shot, the call protocol, no leaked marker fragments, and the oracle. Failures are shrunk
      and written to fuzz/regressions/<family>/, which cargo test -p fuzz re-runs.
      --family F    deepseek, qwen, kimi, gptoss, glm, generic, templates (hostile chat templates
                    and response configs against the render budget) or all (default all)
      --minutes N   minutes per family (default 1)
      --inputs N    inputs per family (with --minutes, whichever comes first)
      --seed S      the run's seed (default: from the clock, printed)
      --jobs J      worker threads (default: the number of cores)
      ARGS          passed on to the fuzz program (--no-write, --quiet, --out DIR, ...)

  new-family NAME
      Generate a family crate parser-NAME with a starter format (<think> reasoning, JSON calls in
      <tool_call>...</tool_call>) that builds and passes its tests as generated, and wire it in:
      workspace members and dependencies, a parser-auto feature NAME (on by default) and
      re-export, a corpus file corpus/authored/NAME.jsonl and a bench format. NAME: lowercase
      ASCII letters and digits, starting with a letter. Then make it the real format (see
      CONTRIBUTING.md).

  grammar-check
      Every parser's constraints (one per corpus output and request: required, a named function,
      auto, none, parallel calls on and off) checked by engines other than ours: the GBNF with
      xgrammar and llguidance's GBNF reader, the structural tags with xgrammar, on the corpus outputs
      the Lark form accepts and on refusals. Makes a venv under the target directory once
      (python3 -m venv; pip install --no-deps -r xtask/python/requirements.txt: ~130 MB from PyPI).

  help
      This text.";

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `help`, `--help`, `-h` or nothing.
    Help,
    /// `bench`.
    Bench(Bench),
    /// `conformance`.
    Conformance(Conformance),
    /// `analyze`.
    Analyze(Analyze),
    /// `new-family`.
    NewFamily(NewFamily),
    /// `fuzz`.
    Fuzz(Fuzz),
    /// `grammar-check`.
    GrammarCheck,
}

/// Flags of `bench`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Bench {
    /// Run `cargo bench -p benchmarks` instead of the table.
    pub divan: bool,
    /// Run the side-by-side benchmark against SGLang's parsers (`peers/`) instead of the table.
    pub peers: bool,
    /// Short runs.
    pub quick: bool,
    /// Count instructions under callgrind instead of timing.
    pub instructions: bool,
    /// Arguments after `--`, passed on to the benchmark program.
    pub rest: Vec<String>,
}

/// Flags of `conformance`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Conformance {
    /// Restrict to cases resolved to this family.
    pub family: Option<String>,
    /// Print every failure.
    pub verbose: bool,
}

/// Flags of `analyze`: templates, or `--all DIR`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Analyze {
    /// Template files or model directories.
    pub templates: Vec<PathBuf>,
    /// `--all DIR`: every `*.jinja` of the directory, as a table.
    pub all: Option<PathBuf>,
    /// `--gbnf`: each report's grammar section shows the GBNF grammar too.
    pub gbnf: bool,
    /// `--structural-tag`: each report's grammar section shows the structural tag too.
    pub structural_tag: bool,
}

/// Flags of `new-family`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct NewFamily {
    /// The family name (checked by the generator).
    pub name: String,
}

/// Flags of `fuzz`, passed on to the fuzz program (checked here so that a typo fails before a release
/// build).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Fuzz {
    /// `--family`: a family name or `all`.
    pub family: Option<String>,
    /// `--minutes`, as given (a positive number).
    pub minutes: Option<String>,
    /// `--inputs`.
    pub inputs: Option<u64>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--jobs`.
    pub jobs: Option<usize>,
    /// Arguments after `--`.
    pub rest: Vec<String>,
}

/// Parses `fuzz`'s flags.
fn parse_fuzz(mut args: impl Iterator<Item = String>) -> Result<Fuzz, String> {
    let mut flags = Fuzz::default();
    while let Some(arg) = args.next() {
        if arg == "--" {
            flags.rest.extend(args.by_ref());
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
            None => (arg, None),
        };
        let value = match name.as_str() {
            "--family" | "--minutes" | "--inputs" | "--seed" | "--jobs" => {
                match inline.or_else(|| args.next()) {
                    Some(value) if !value.starts_with('-') => value,
                    _ => return Err(format!("fuzz: `{name}` needs a value")),
                }
            }
            other => return Err(format!("fuzz: unknown flag `{other}`")),
        };
        let number = |what: &str| format!("fuzz: `{name}` takes {what}, not `{value}`");
        match name.as_str() {
            "--family" => flags.family = Some(value),
            "--minutes" => match value.parse::<f64>() {
                Ok(minutes) if minutes > 0.0 => flags.minutes = Some(value),
                _ => return Err(number("a positive number of minutes")),
            },
            "--inputs" => flags.inputs = Some(value.parse().map_err(|_| number("a count"))?),
            "--seed" => flags.seed = Some(value.parse().map_err(|_| number("a number"))?),
            _ => flags.jobs = Some(value.parse().map_err(|_| number("a count"))?),
        }
    }
    Ok(flags)
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        return Ok(Command::Help);
    };
    match command.as_str() {
        "help" | "--help" | "-h" => Ok(Command::Help),
        "bench" => {
            let mut flags = Bench::default();
            while let Some(arg) = args.next() {
                match arg.as_str() {
                    "--divan" => flags.divan = true,
                    "--peers" => flags.peers = true,
                    "--quick" => flags.quick = true,
                    "--instructions" => flags.instructions = true,
                    "--" => flags.rest.extend(args.by_ref()),
                    other => return Err(format!("bench: unknown flag `{other}`")),
                }
            }
            if [flags.divan, flags.peers, flags.instructions]
                .iter()
                .filter(|&&on| on)
                .count()
                > 1
            {
                return Err(
                    "bench: `--divan`, `--peers` and `--instructions` are different benchmarks"
                        .to_owned(),
                );
            }
            Ok(Command::Bench(flags))
        }
        "conformance" => {
            let mut flags = Conformance::default();
            while let Some(arg) = args.next() {
                match arg.as_str() {
                    "--verbose" | "-v" => flags.verbose = true,
                    "--family" => match args.next() {
                        Some(name) if !name.starts_with('-') => flags.family = Some(name),
                        _ => return Err("conformance: `--family` needs a name".to_owned()),
                    },
                    other => match other.strip_prefix("--family=") {
                        Some(name) if !name.is_empty() => flags.family = Some(name.to_owned()),
                        _ => return Err(format!("conformance: unknown flag `{other}`")),
                    },
                }
            }
            Ok(Command::Conformance(flags))
        }
        "analyze" => {
            let mut flags = Analyze::default();
            while let Some(arg) = args.next() {
                let dir = match arg.as_str() {
                    "--gbnf" => {
                        flags.gbnf = true;
                        continue;
                    }
                    "--structural-tag" => {
                        flags.structural_tag = true;
                        continue;
                    }
                    "--all" => match args.next() {
                        Some(dir) if !dir.starts_with('-') => dir,
                        _ => return Err("analyze: `--all` needs a directory".to_owned()),
                    },
                    other => match other.strip_prefix("--all=") {
                        Some(dir) if !dir.is_empty() => dir.to_owned(),
                        _ if other.starts_with('-') => {
                            return Err(format!("analyze: unknown flag `{other}`"));
                        }
                        _ => {
                            flags.templates.push(PathBuf::from(other));
                            continue;
                        }
                    },
                };
                if flags.all.replace(PathBuf::from(dir)).is_some() {
                    return Err("analyze: `--all` is given twice".to_owned());
                }
            }
            match (&flags.all, flags.templates.is_empty()) {
                (None, true) => Err("analyze: name a template (or --all DIR)".to_owned()),
                (Some(_), false) => {
                    Err("analyze: give templates or --all DIR, not both".to_owned())
                }
                (Some(_), true) if flags.gbnf || flags.structural_tag => Err(
                    "analyze: --gbnf and --structural-tag go with templates, not --all".to_owned(),
                ),
                _ => Ok(Command::Analyze(flags)),
            }
        }
        "new-family" => match (args.next(), args.next()) {
            (Some(name), None) if !name.starts_with('-') => {
                Ok(Command::NewFamily(NewFamily { name }))
            }
            (None, _) => {
                Err("new-family: name the family (cargo xtask new-family NAME)".to_owned())
            }
            _ => Err("new-family: takes one NAME and no flags".to_owned()),
        },
        "fuzz" => Ok(Command::Fuzz(parse_fuzz(args)?)),
        "grammar-check" => match args.next() {
            None => Ok(Command::GrammarCheck),
            Some(extra) => Err(format!("grammar-check takes no arguments, got `{extra}`")),
        },
        other => Err(format!("unknown command `{other}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Command, String> {
        parse(line.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn grammar_check_takes_no_arguments() {
        assert_eq!(parse_str("grammar-check"), Ok(Command::GrammarCheck));
        assert!(parse_str("grammar-check --family qwen").is_err());
    }

    #[test]
    fn commands_and_flags() {
        assert_eq!(parse_str(""), Ok(Command::Help));
        assert_eq!(parse_str("--help"), Ok(Command::Help));
        assert_eq!(parse_str("bench"), Ok(Command::Bench(Bench::default())));
        assert_eq!(
            parse_str("bench --divan -- streaming --sample-count 10"),
            Ok(Command::Bench(Bench {
                divan: true,
                peers: false,
                quick: false,
                instructions: false,
                rest: vec!["streaming".into(), "--sample-count".into(), "10".into()],
            }))
        );
        assert_eq!(
            parse_str("bench --peers --quick"),
            Ok(Command::Bench(Bench {
                divan: false,
                peers: true,
                quick: true,
                instructions: false,
                rest: vec![],
            }))
        );
        assert_eq!(
            parse_str("bench --instructions -- qwen3-coder --jobs 1"),
            Ok(Command::Bench(Bench {
                instructions: true,
                rest: vec!["qwen3-coder".into(), "--jobs".into(), "1".into()],
                ..Bench::default()
            }))
        );
        assert_eq!(
            parse_str("conformance --family deepseek -v"),
            Ok(Command::Conformance(Conformance {
                family: Some("deepseek".into()),
                verbose: true
            }))
        );
        assert_eq!(
            parse_str("conformance --family=deepseek"),
            Ok(Command::Conformance(Conformance {
                family: Some("deepseek".into()),
                verbose: false
            }))
        );
    }

    #[test]
    fn analyze_flags() {
        assert_eq!(
            parse_str("analyze a.jinja models/m"),
            Ok(Command::Analyze(Analyze {
                templates: vec!["a.jinja".into(), "models/m".into()],
                ..Analyze::default()
            }))
        );
        assert_eq!(
            parse_str("analyze --gbnf a.jinja --structural-tag"),
            Ok(Command::Analyze(Analyze {
                templates: vec!["a.jinja".into()],
                gbnf: true,
                structural_tag: true,
                ..Analyze::default()
            }))
        );
        assert_eq!(
            parse_str("analyze --all templates"),
            Ok(Command::Analyze(Analyze {
                all: Some("templates".into()),
                ..Analyze::default()
            }))
        );
        assert_eq!(
            parse_str("analyze --all=templates"),
            Ok(Command::Analyze(Analyze {
                all: Some("templates".into()),
                ..Analyze::default()
            }))
        );
        for bad in [
            "analyze",
            "analyze --all",
            "analyze --all a --all b",
            "analyze --all a x.jinja",
            "analyze --json x.jinja",
            "analyze --all a --gbnf",
        ] {
            assert!(parse_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn new_family_flags() {
        assert_eq!(
            parse_str("new-family glm"),
            Ok(Command::NewFamily(NewFamily { name: "glm".into() }))
        );
        for bad in ["new-family", "new-family --x", "new-family a b"] {
            assert!(parse_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors() {
        assert!(parse_str("frobnicate").is_err());
        assert!(parse_str("bench --fast").is_err());
        assert!(parse_str("bench --divan --peers").is_err());
        assert!(parse_str("bench --instructions --divan").is_err());
        assert!(parse_str("conformance --family").is_err());
        assert!(parse_str("conformance --family --verbose").is_err());
    }

    #[test]
    fn fuzz_flags() {
        assert_eq!(parse_str("fuzz"), Ok(Command::Fuzz(Fuzz::default())));
        assert_eq!(
            parse_str(
                "fuzz --family deepseek --minutes 0.5 --inputs 1000 --seed 7 --jobs=2 -- --quiet"
            ),
            Ok(Command::Fuzz(Fuzz {
                family: Some("deepseek".into()),
                minutes: Some("0.5".into()),
                inputs: Some(1000),
                seed: Some(7),
                jobs: Some(2),
                rest: vec!["--quiet".into()],
            }))
        );
        for bad in [
            "fuzz --family",
            "fuzz --minutes 0",
            "fuzz --minutes soon",
            "fuzz --inputs -3",
            "fuzz --fast",
        ] {
            assert!(parse_str(bad).is_err(), "{bad}");
        }
    }
}
