//! clap's own messages (a usage error, the help) quote the arguments as given. An argument
//! holding control or bidirectional formatting characters (pasted, or a script's) would reach
//! the terminal raw: such a message is written neutralized, without clap's colors.

use std::borrow::Cow;
use std::process::ExitCode;

use super::sanitize::{for_stderr, for_stdout, neutralize};

/// Writes `err` as clap would and gives the exit code it would exit with.
pub fn report(err: &clap::Error) -> ExitCode {
    let code = ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
    if !std::env::args_os()
        .skip(1)
        .any(|arg| shows_differently(&arg))
    {
        // A closed stream is no reason to report anything else.
        let _ = err.print();
        return code;
    }
    // The plain rendering: clap's styling left out, so only the arguments are neutralized.
    let plain = err.render().to_string();
    if err.use_stderr() {
        eprint!("{}", for_stderr(&plain));
    } else {
        print!("{}", for_stdout(&plain));
    }
    code
}

fn shows_differently(arg: &std::ffi::OsStr) -> bool {
    matches!(neutralize(&arg.to_string_lossy()), Cow::Owned(_))
}
