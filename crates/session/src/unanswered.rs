//! Whether a transcript holds no answer yet: what a runner asks before it forgets a key whose
//! first turn failed, so that `sessions list` shows no session that is only a failed prompt.

use std::io::ErrorKind;
use std::path::Path;

use serde_json::Value;

use crate::blocking::run_blocking;
use crate::error::SessionError;

/// Whether the transcript at `path` is missing or holds no answer: nothing but its header,
/// prompts and failed (`stopReason: "error"`) assistant messages. A turn that did tool work
/// holds tool results, and a line that does not parse may be anything: both count as an
/// answer. `Err` when the file exists but cannot be read.
///
/// Must be called from within a Tokio runtime (the file is read on its blocking pool).
pub async fn transcript_holds_no_answer(path: &Path) -> Result<bool, SessionError> {
    let owned = path.to_path_buf();
    run_blocking(path, move || match std::fs::read_to_string(&owned) {
        Ok(text) => Ok(text_holds_no_answer(&text)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(true),
        Err(e) => Err(SessionError::io(&owned, "read", e)),
    })
    .await
}

fn text_holds_no_answer(text: &str) -> bool {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .all(|line| {
            let Ok(entry) = serde_json::from_str::<Value>(line) else {
                return false;
            };
            let message = &entry["message"];
            match message["role"].as_str() {
                None => entry["type"] != "message",
                Some("user") => true,
                Some("assistant") => message["stopReason"] == "error",
                Some(_) => false,
            }
        })
}
