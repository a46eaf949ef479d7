//! The arguments of `cargo xtask real-llm`.

use std::path::PathBuf;

/// What `real-llm` was asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The cache directory instead of `$CLAWLOOP_REAL_LLM_CACHE` or
    /// `~/.cache/clawloop/real-llm`.
    pub cache: Option<PathBuf>,
    /// Keep the temporary clawloop home and workspace and print where they are.
    pub keep: bool,
}

/// Parses the arguments after `real-llm`: `[--cache DIR] [--keep]`. `Ok(None)` asks for the
/// usage text; `Err` says what is wrong.
pub fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut options = Options::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--keep" => options.keep = true,
            "--cache" => {
                let dir = rest
                    .next()
                    .ok_or_else(|| "--cache needs a directory".to_owned())?;
                options.cache = Some(PathBuf::from(dir));
            }
            other => match other.strip_prefix("--cache=") {
                Some(dir) => options.cache = Some(PathBuf::from(dir)),
                None => return Err(format!("unknown argument {other:?} for real-llm")),
            },
        }
    }
    if options
        .cache
        .as_ref()
        .is_some_and(|dir| dir.as_os_str().is_empty())
    {
        return Err("--cache needs a non-empty directory".to_owned());
    }
    Ok(Some(options))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parse(args: &[&str]) -> Result<Option<Options>, String> {
        parse_args(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn flags_and_values() {
        assert_eq!(parse(&[]), Ok(Some(Options::default())));
        assert_eq!(
            parse(&["--keep", "--cache", "/c"]),
            Ok(Some(Options {
                cache: Some(PathBuf::from("/c")),
                keep: true
            }))
        );
        assert_eq!(
            parse(&["--cache=/d"]),
            Ok(Some(Options {
                cache: Some(PathBuf::from("/d")),
                keep: false
            }))
        );
        assert_eq!(parse(&["--keep", "-h"]), Ok(None));
    }

    #[test]
    fn errors_name_the_argument() {
        assert_eq!(
            parse(&["--cache"]),
            Err("--cache needs a directory".to_owned())
        );
        assert_eq!(
            parse(&["--cache="]),
            Err("--cache needs a non-empty directory".to_owned())
        );
        assert_eq!(
            parse(&["--fast"]),
            Err("unknown argument \"--fast\" for real-llm".to_owned())
        );
    }
}
