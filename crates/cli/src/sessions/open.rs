//! Opening a listed session's transcript for reading.

use std::path::PathBuf;

use clawloop_session::{SessionOptions, SessionRecord, SessionStore, Transcript};

use super::resolve::store_failure;
use crate::failure::Failure;

/// The transcript `record` points at, or `None` when its file does not exist yet (a session
/// whose first turn has not been answered). Opening never writes and takes no lock.
pub fn open_transcript(
    store: &SessionStore,
    record: &SessionRecord,
) -> Result<(PathBuf, Option<Transcript>), Failure> {
    let path = record.transcript_path(store.dir());
    if !path.exists() {
        return Ok((path, None));
    }
    let transcript = Transcript::open(&path, SessionOptions::default()).map_err(store_failure)?;
    Ok((path, Some(transcript)))
}
