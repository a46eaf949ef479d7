//! Whether a failed command was probably stopped by the sandbox, and the line that tells the
//! model so (codex's heuristic, plus SIGSYS and a hint for DNS failures with the network off).

use clawloop_core::sandbox::{CommandOutcome, SandboxMode, SandboxPolicy};

/// Words in the output that point at the sandbox (lower case). "Resource busy" is what
/// renaming or removing a pinned `.git` gives.
const DENIAL_WORDS: [&str; 8] = [
    "device or resource busy",
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
];

/// Words of a failed name lookup (lower case).
const DNS_WORDS: [&str; 6] = [
    "temporary failure in name resolution",
    "could not resolve",
    "name or service not known",
    "enotfound",
    "eai_again",
    "no address associated with hostname",
];

/// SIGSYS: a syscall the filter would kill for.
const SIGSYS: i32 = 31;

/// The `[clawloop sandbox: …]` line for `outcome` under `policy`, or `None` when the failure
/// does not look like the sandbox's doing. `writable` names the writable roots.
pub fn denial_note(
    outcome: &CommandOutcome<'_>,
    policy: &SandboxPolicy,
    writable: &[String],
) -> Option<String> {
    if policy.mode == SandboxMode::Off {
        return None;
    }
    let tail = outcome.output_tail.to_lowercase();
    let by_signal = outcome.signal == Some(SIGSYS);
    let by_words = match outcome.code {
        // "Command not found" and "cannot execute" are the command's own business. (codex
        // also skips 2, but a shell's failed redirection exits 2.)
        None | Some(0 | 126 | 127) => false,
        Some(_) => {
            DENIAL_WORDS.iter().any(|word| tail.contains(word))
                || policy.protected.iter().any(|path| {
                    // bubblewrap hides the home: reading it fails with "No such file".
                    tail.contains(&path.to_string_lossy().to_lowercase())
                })
        }
    };
    let dns = !policy.network
        && outcome.code.is_some_and(|code| code != 0)
        && DNS_WORDS.iter().any(|word| tail.contains(word));
    if !(by_signal || by_words || dns) {
        return None;
    }
    let writes = match policy.mode {
        SandboxMode::ReadOnly => "no writes are allowed".to_owned(),
        _ => format!("writes are allowed only in {}", writable.join(", ")),
    };
    let network = if policy.network {
        "network on"
    } else {
        "network off: no connections except Unix sockets"
    };
    let lead = if dns && !by_words {
        "the network is disabled, so names do not resolve"
    } else {
        "this failure may be the sandbox"
    };
    Some(format!(
        "[clawloop sandbox: {lead} ({mode}; {writes}; the clawloop home, .git/hooks and \
         .git/config are off limits; {network})]",
        mode = policy.mode
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn outcome(code: Option<i32>, signal: Option<i32>, tail: &str) -> CommandOutcome<'_> {
        CommandOutcome {
            code,
            signal,
            output_tail: tail,
        }
    }

    #[test]
    fn only_failures_that_look_like_the_sandbox_get_the_line() {
        let ws = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        let mut offline = ws.clone();
        offline.network = false;
        let off = SandboxPolicy::new(SandboxMode::Off);
        let mut home = ws.clone();
        home.protected = vec!["/home/u/.clawloop".into()];
        let denied = "touch: cannot touch '/etc/x': Permission denied";
        let dns = "curl: (6) Could not resolve host: example.com";
        let table = [
            (outcome(Some(1), None, denied), &ws, Some("may be")),
            (
                outcome(Some(1), None, "Read-only file system"),
                &ws,
                Some("may be"),
            ),
            (
                outcome(Some(1), None, "mv: Device or resource busy"),
                &ws,
                Some("may be"),
            ),
            (outcome(Some(0), None, denied), &ws, None),
            (outcome(Some(2), None, denied), &ws, Some("may be")),
            (
                outcome(Some(1), None, "cat: /home/u/.clawloop/x: No such file"),
                &home,
                Some("may be"),
            ),
            (
                outcome(Some(1), None, "cat: /home/u/x: No such file"),
                &home,
                None,
            ),
            (outcome(Some(127), None, denied), &ws, None),
            (outcome(Some(1), None, "assertion failed"), &ws, None),
            (outcome(None, Some(31), ""), &ws, Some("may be")),
            (outcome(None, Some(9), denied), &ws, None),
            (
                outcome(Some(6), None, dns),
                &offline,
                Some("names do not resolve"),
            ),
            (outcome(Some(6), None, dns), &ws, None),
            (outcome(Some(1), None, denied), &off, None),
        ];
        for (outcome, policy, expected) in table {
            let note = denial_note(&outcome, policy, &["/ws".to_owned()]);
            match expected {
                None => assert_eq!(note, None, "{outcome:?}"),
                Some(part) => assert!(
                    note.as_deref().is_some_and(|n| n.contains(part)),
                    "{outcome:?}: {note:?}"
                ),
            }
        }
    }

    #[test]
    fn the_line_says_what_the_policy_allows() {
        let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        policy.network = false;
        let note = denial_note(
            &outcome(Some(1), None, "Operation not permitted"),
            &policy,
            &["/ws".to_owned(), "/tmp".to_owned()],
        );
        assert_eq!(
            note.as_deref(),
            Some(
                "[clawloop sandbox: this failure may be the sandbox (workspace-write; writes \
                 are allowed only in /ws, /tmp; the clawloop home, .git/hooks and .git/config \
                 are off limits; network off: no connections except Unix sockets)]"
            )
        );
    }
}
