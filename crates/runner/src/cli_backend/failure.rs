//! The error texts of a failed CLI call (reference §22 step 10), as the final `error` event's
//! `errorMessage`. Timeout texts match OpenClaw's so the runner's classification treats them
//! alike; a failed exit carries the CLI's own words and its exit status.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use super::output::extract_cli_error_message;

/// `errorMessage` of a cancelled call.
pub const CLI_ABORTED: &str = "CLI run aborted";

/// Characters of stderr/stdout kept in an error message.
const DETAIL_CHARS: usize = 2000;

/// `N s` with up to millisecond precision and no trailing zeros (`180s`, `0.25s`).
pub(crate) fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        format!("{}s", text.trim_end_matches('0'))
    }
}

/// The watchdog fired.
pub(crate) fn no_output(timeout: Duration) -> String {
    format!(
        "CLI produced no output for {} and was terminated.",
        seconds(timeout)
    )
}

/// The overall timeout fired.
pub(crate) fn timed_out(timeout: Duration) -> String {
    format!(
        "CLI exceeded timeout ({}) and was terminated.",
        seconds(timeout)
    )
}

/// Whether `message` is one of the two timeout texts above: OpenClaw throws those as
/// `FailoverError(…, "timeout")` whatever a classifier would make of the words.
pub fn is_cli_timeout_text(message: &str) -> bool {
    let message = message.trim_start();
    (message.starts_with("CLI produced no output for ")
        || message.starts_with("CLI exceeded timeout ("))
        && message.ends_with("and was terminated.")
}

/// stdout passed its limit.
pub(crate) fn output_too_large(limit: usize) -> String {
    format!("CLI output exceeded {limit} bytes and was terminated.")
}

/// The program could not be started.
pub(crate) fn spawn_failed(backend: &str, program: &str, error: &std::io::Error) -> String {
    format!("CLI backend {backend} could not start `{program}`: {error}")
}

/// The last `DETAIL_CHARS` characters of `text`, marked when cut.
fn tail(text: &str) -> String {
    let count = text.chars().count();
    if count <= DETAIL_CHARS {
        return text.to_owned();
    }
    let skip = count - DETAIL_CHARS;
    let rest: String = text.chars().skip(skip).collect();
    format!("…{rest}")
}

/// A CLI that exited unsuccessfully: its structured error (from stderr, else stdout), else
/// the tail of its stderr (else stdout), followed by how it exited.
pub(crate) fn exit_failure(status: ExitStatus, stdout: &str, stderr: &str) -> String {
    let stdout = stdout.trim();
    let stderr = stderr.trim();
    let primary = if stderr.is_empty() { stdout } else { stderr };
    let detail = extract_cli_error_message(primary)
        .or_else(|| {
            if stderr.is_empty() {
                None
            } else {
                extract_cli_error_message(stdout)
            }
        })
        .unwrap_or_else(|| primary.to_owned());
    let how = match (status.code(), status.signal()) {
        (Some(code), _) => format!("CLI exited with code {code}"),
        (None, Some(signal)) => format!("CLI was killed by signal {signal}"),
        (None, None) => "CLI failed".to_owned(),
    };
    if detail.is_empty() {
        format!("{how}.")
    } else {
        format!("{} ({how})", tail(&detail))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn timeout_texts_are_recognized() {
        assert!(is_cli_timeout_text(&no_output(Duration::from_secs(180))));
        assert!(is_cli_timeout_text(&timed_out(Duration::from_millis(1500))));
        assert!(!is_cli_timeout_text(&output_too_large(10)));
        assert!(!is_cli_timeout_text("boom (CLI exited with code 1)"));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(180)), "180s");
        assert_eq!(seconds(Duration::from_millis(250)), "0.25s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn exit_failures_carry_the_clis_words() {
        let code = |c: i32| ExitStatus::from_raw(c << 8);
        assert_eq!(
            exit_failure(code(1), "", " boom \n"),
            "boom (CLI exited with code 1)"
        );
        assert_eq!(
            exit_failure(
                code(2),
                "{\"type\":\"error\",\"error\":{\"message\":\"rate limit\"}}",
                "noise"
            ),
            "rate limit (CLI exited with code 2)"
        );
        assert_eq!(exit_failure(code(3), "", ""), "CLI exited with code 3.");
        assert_eq!(
            exit_failure(ExitStatus::from_raw(9), "", ""),
            "CLI was killed by signal 9."
        );
        let long = "x".repeat(5000);
        let message = exit_failure(code(1), "", &long);
        assert_eq!(
            message.chars().count(),
            1 + 2000 + " (CLI exited with code 1)".len()
        );
        assert!(message.starts_with('…'));
    }
}
