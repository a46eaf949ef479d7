//! The libtest arguments the `conformance` test target (`xtask/tests/conformance.rs`,
//! `harness = false`) answers, as far as one test named `conformance` needs: `--list`, a name
//! filter, `--skip`, `--ignored` (it is not ignored), and flags it has no use for.

/// The one test's name, as filters and `--list` see it.
pub const NAME: &str = "conformance";

/// libtest flags followed by a value, which is then no name filter.
const VALUED_FLAGS: [&str; 7] = [
    "--test-threads",
    "--format",
    "--color",
    "--logfile",
    "--report-time",
    "--shuffle-seed",
    "-Z",
];

/// What the arguments ask of this target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// `--list`: name the one test.
    List,
    /// Run the scenarios.
    Run,
    /// Filtered out, skipped or not ignored: run nothing.
    Skip,
}

/// What `args` (libtest's, after the program name) ask of the target.
pub fn asked(args: &[String]) -> Asked {
    let mut filters = Vec::new();
    let mut skipped = false;
    let mut ignored_only = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" => return Asked::List,
            "--ignored" => ignored_only = true,
            "--skip" => skipped |= args.next().is_some_and(|s| NAME.contains(s.as_str())),
            flag if VALUED_FLAGS.contains(&flag) => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            filter => filters.push(filter),
        }
    }
    let selected = filters.is_empty() || filters.iter().any(|f| NAME.contains(f));
    if selected && !skipped && !ignored_only {
        Asked::Run
    } else {
        Asked::Skip
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_arguments_select_the_one_test() {
        let cases: [(&[&str], Asked); 10] = [
            (&[], Asked::Run),
            (&["conformance"], Asked::Run),
            (&["conf"], Asked::Run),
            (&["other_test"], Asked::Skip),
            (&["other_test", "form"], Asked::Run),
            (&["--list", "--format", "terse"], Asked::List),
            (&["--skip", "conf"], Asked::Skip),
            (&["--skip", "other"], Asked::Run),
            (&["--test-threads", "2", "--nocapture"], Asked::Run),
            (&["--ignored"], Asked::Skip),
        ];
        for (args, expected) in cases {
            let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
            assert_eq!(asked(&args), expected, "{args:?}");
        }
    }
}
