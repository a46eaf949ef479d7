//! What the y/N prompt shows and what a key press means: pure, so the wording and the keys
//! are tested as tables; [`super::TerminalApprover`] only writes and reads them.

use clawloop_core::approval::ApprovalRequest;

use crate::render::sanitize::neutralize;

/// The longest command the prompt shows whole; a longer one is denied unseen, since the user
/// cannot approve what the terminal cannot show them.
pub const MAX_SHOWN_COMMAND: usize = 16 * 1024;

/// The sentence the model reads after a no.
pub const DENIED: &str = "the user denied it";

/// What one key press answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `y` or `Y`.
    Yes,
    /// Anything else, Enter included: the default is no.
    No,
    /// Ctrl-C: no, and the turn stops as Ctrl-C stops it.
    Interrupt,
    /// The terminal closed (end of input).
    Closed,
}

/// The answer of the byte read, `None` at the end of input.
pub fn answer_of(byte: Option<u8>) -> Answer {
    match byte {
        Some(b'y' | b'Y') => Answer::Yes,
        Some(0x03) => Answer::Interrupt,
        Some(_) => Answer::No,
        None => Answer::Closed,
    }
}

/// The prompt's lines before `Allow? [y/N] `: what would run, where, and whether outside the
/// sandbox, with the model's text neutralized. `None` when the command is too long to show.
pub fn question(request: &ApprovalRequest) -> Option<Vec<String>> {
    if request.command.len() > MAX_SHOWN_COMMAND {
        return None;
    }
    let how = if request.unsandboxed {
        "outside the sandbox"
    } else {
        "in the sandbox"
    };
    let mut lines = vec![format!(
        "{} wants to run {how}, in {}:",
        neutralize(&request.tool),
        neutralize(&request.cwd.display().to_string())
    )];
    lines.extend(
        request
            .command
            .lines()
            .map(|line| format!("  {}", neutralize(line))),
    );
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn only_y_approves_and_ctrl_c_interrupts() {
        let table = [
            (Some(b'y'), Answer::Yes),
            (Some(b'Y'), Answer::Yes),
            (Some(b'n'), Answer::No),
            (Some(b'\r'), Answer::No),
            (Some(b'\n'), Answer::No),
            (Some(0x1b), Answer::No),
            (Some(0x03), Answer::Interrupt),
            (None, Answer::Closed),
        ];
        for (byte, expected) in table {
            assert_eq!(answer_of(byte), expected, "{byte:?}");
        }
    }

    #[test]
    fn the_question_shows_the_command_neutralized_and_where_it_runs() {
        let request = |command: &str, unsandboxed| ApprovalRequest {
            tool_call_id: "c1".into(),
            tool: "bash".into(),
            command: command.into(),
            cwd: "/work/ws".into(),
            unsandboxed,
        };
        assert_eq!(
            question(&request(
                "curl -s example.com\necho \u{1b}]52;c;eA==\u{7}",
                true
            )),
            Some(vec![
                "bash wants to run outside the sandbox, in /work/ws:".to_owned(),
                "  curl -s example.com".to_owned(),
                format!("  echo {}", neutralize("\u{1b}]52;c;eA==\u{7}")),
            ])
        );
        assert!(!question(&request("\u{1b}[2J", false)).unwrap()[1].contains('\u{1b}'));
        assert_eq!(
            question(&request("ls", false)).unwrap()[0],
            "bash wants to run in the sandbox, in /work/ws:"
        );
        assert_eq!(
            question(&request(&"x".repeat(MAX_SHOWN_COMMAND + 1), true)),
            None
        );
    }
}
