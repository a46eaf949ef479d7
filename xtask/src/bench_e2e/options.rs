//! The arguments of `cargo xtask bench e2e`.

/// Runs per clawloop/floor row by default.
pub const DEFAULT_RUNS: usize = 20;
/// Runs per peer row by default (peers are slow).
pub const DEFAULT_PEER_RUNS: usize = 3;

/// `bench e2e [--quick] [--runs N] [--peer-runs N] [--no-peers]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// One run per row, no warm-up, no peers.
    pub quick: bool,
    /// Runs per clawloop/floor row.
    pub runs: usize,
    /// Runs per peer row.
    pub peer_runs: usize,
    /// Measure pi, codex and OpenClaw when node is available.
    pub peers: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            runs: DEFAULT_RUNS,
            peer_runs: DEFAULT_PEER_RUNS,
            peers: true,
        }
    }
}

/// Parses the arguments after `bench e2e`; the error says what is wrong.
pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut runs = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--quick" => opts.quick = true,
            "--no-peers" => opts.peers = false,
            "--runs" | "--peer-runs" => {
                let value = rest.next().ok_or_else(|| format!("{arg} needs a number"))?;
                let n = value
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("{arg} needs a positive number, got {value:?}"))?;
                if arg == "--runs" {
                    runs = Some(n);
                } else {
                    opts.peer_runs = n;
                }
            }
            other => return Err(format!("unknown argument {other:?} for bench e2e")),
        }
    }
    if opts.quick {
        opts.runs = 1;
        opts.peers = false;
    }
    if let Some(n) = runs {
        opts.runs = n;
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn flags_and_defaults() {
        assert_eq!(parse(&[]), Ok(Options::default()));
        assert_eq!(
            parse(&args(&["--quick"])),
            Ok(Options {
                quick: true,
                runs: 1,
                peers: false,
                ..Options::default()
            })
        );
        assert_eq!(
            parse(&args(&["--runs", "5", "--peer-runs", "2", "--no-peers"])),
            Ok(Options {
                runs: 5,
                peer_runs: 2,
                peers: false,
                ..Options::default()
            })
        );
    }

    #[test]
    fn usage_errors() {
        for bad in [
            &["--runs"][..],
            &["--runs", "0"],
            &["--runs", "x"],
            &["--frob"],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
