//! Who a process is and whether it still runs, from `/proc` (no `libc`: `unsafe` is
//! forbidden in this workspace).
//!
//! A pid alone does not identify a process: after a crash the kernel may hand the same pid to
//! an unrelated program. Linux's `/proc/<pid>/stat` also gives the start time (field 22, in
//! clock ticks since boot), and the pair (pid, start time) is unique for the life of the
//! machine. Where `/proc` is missing (macOS, BSD, Windows) only the pid is recorded and
//! liveness is [`Liveness::Unknown`].

use std::sync::OnceLock;

/// What `/proc` says about a recorded process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Liveness {
    /// It runs, and its start time matches when one was recorded.
    Alive,
    /// It is gone, a zombie, or its pid now belongs to a process started at another time.
    Dead,
    /// This platform cannot tell.
    Unknown,
}

/// The start time of the process `pid` in clock ticks since boot, with its state letter.
fn stat(pid: &str) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// Parses `state` (field 3) and `starttime` (field 22) out of a `/proc/<pid>/stat` line.
///
/// The command name (field 2) is in parentheses and may itself contain spaces and `)`, so
/// the fields are counted from the *last* `)`.
fn parse_stat(text: &str) -> Option<(char, u64)> {
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // After the state come fields 4..: starttime, field 22, is the 19th of them.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

/// This process's start time, when `/proc` can tell (read once).
pub(crate) fn own_start_time() -> Option<u64> {
    static START: OnceLock<Option<u64>> = OnceLock::new();
    *START.get_or_init(|| stat("self").map(|(_, start)| start))
}

/// Whether the process `pid`, started at `start_time` if known, still runs.
pub(crate) fn liveness(pid: u32, start_time: Option<u64>) -> Liveness {
    if own_start_time().is_none() {
        return Liveness::Unknown;
    }
    match stat(&pid.to_string()) {
        None => Liveness::Dead,
        // A zombie has closed its files already; `X` is a process being reaped.
        Some(('Z' | 'X', _)) => Liveness::Dead,
        Some((_, start)) if start_time.is_some_and(|t| t != start) => Liveness::Dead,
        Some(_) => Liveness::Alive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_state_and_start_time_even_with_odd_command_names() {
        let line =
            "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(parse_stat(line), Some(('S', 987_654)));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1 2"), None);
    }

    #[test]
    fn this_process_is_alive_and_a_wrong_start_time_is_dead() {
        let Some(start) = own_start_time() else {
            assert_eq!(liveness(std::process::id(), None), Liveness::Unknown);
            return;
        };
        let me = std::process::id();
        assert_eq!(liveness(me, Some(start)), Liveness::Alive);
        assert_eq!(liveness(me, None), Liveness::Alive);
        assert_eq!(liveness(me, Some(start + 1)), Liveness::Dead);
    }
}
