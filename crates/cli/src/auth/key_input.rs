//! Reading an API key from stdin: hidden on a terminal, whole from a pipe. Never from the
//! command line, where shells keep history and `ps` shows arguments to every user.

use std::io::{BufRead, IsTerminal, Read, Write};

use super::Failure;
use crate::render::sanitize::for_stderr;

/// The key typed or piped on stdin, trimmed. Refuses an empty key and one spanning lines.
pub fn read_key(provider: &str) -> Result<String, Failure> {
    let stdin = std::io::stdin();
    let raw = if stdin.is_terminal() {
        read_hidden(provider)?
    } else {
        let mut text = String::new();
        stdin
            .lock()
            .read_to_string(&mut text)
            .map_err(|err| Failure::failed(format!("cannot read the key from stdin: {err}")))?;
        text
    };
    check_key(&raw, provider)
}

/// The key out of what was read: surrounding whitespace goes, an empty key or a key of several
/// lines is refused.
fn check_key(raw: &str, provider: &str) -> Result<String, Failure> {
    let key = raw.trim();
    if key.is_empty() {
        return Err(Failure::usage(format!(
            "the key for {provider} is empty: type it when asked, or pipe it on stdin"
        )));
    }
    if key.contains(['\n', '\r']) {
        return Err(Failure::usage(format!(
            "the key for {provider} spans several lines: pipe exactly one key on stdin"
        )));
    }
    Ok(key.to_owned())
}

/// One line from the terminal with echo off. Signals are off too, so Ctrl-C arrives as a
/// character and the terminal is always restored before the command exits (130).
fn read_hidden(provider: &str) -> Result<String, Failure> {
    let stdin = std::io::stdin();
    let mut stderr = std::io::stderr();
    let _ = write!(
        stderr,
        "API key for {} (input hidden): ",
        for_stderr(provider)
    );
    let _ = stderr.flush();
    let saved = rustix::termios::tcgetattr(&stdin)
        .map_err(|err| Failure::failed(format!("cannot read the terminal settings: {err}")))?;
    let mut quiet = saved.clone();
    quiet
        .local_modes
        .remove(rustix::termios::LocalModes::ECHO | rustix::termios::LocalModes::ISIG);
    rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Flush, &quiet)
        .map_err(|err| Failure::failed(format!("cannot turn off the terminal echo: {err}")))?;
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    let restored =
        rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &saved);
    let _ = writeln!(stderr);
    read.map_err(|err| Failure::failed(format!("cannot read the key from the terminal: {err}")))?;
    restored.map_err(|err| Failure::failed(format!("cannot restore the terminal echo: {err}")))?;
    if line.contains('\u{3}') {
        return Err(Failure::interrupted());
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn keys_are_trimmed_and_empty_or_multi_line_ones_refused() {
        assert_eq!(check_key("  sk-1\n", "openai"), Ok("sk-1".to_owned()));
        assert_eq!(check_key(" \n", "openai").map_err(|e| e.code), Err(2));
        assert_eq!(check_key("a\nb\n", "openai").map_err(|e| e.code), Err(2));
    }
}
