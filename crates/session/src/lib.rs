//! `clawloop-session`: every byte of conversation state on disk.
//!
//! A session is a pi v3 JSONL transcript (SPEC §5, pi-mono §3.3): a header line, then one
//! entry per line, each with an 8-hex `id` and the `parentId` of the entry that was the leaf
//! when it was appended, so the file is a tree that only ever grows. [`Transcript`] opens such
//! a file (migrating v1 and v2 files), keeps the leaf pointer, appends every entry type, moves
//! between branches and rebuilds the model's context exactly as pi does
//! ([`Transcript::build_context`]). Files are byte-compatible with pi's: same key order, no
//! `.0` on integers, unknown fields and entry types kept.
//!
//! Crash safety: every entry is one complete line written with one `write`; a torn last line
//! (one that is not JSON) is reported on open and cut off before the next append, while a
//! last line that parses but lost its `\n` is kept and gets the newline before the next
//! append; other bad lines are skipped and counted; a non-empty file without a session header
//! is refused and never touched; new files and migrations are written to a temporary file and
//! renamed into place. [`FsyncPolicy`] decides when lines are forced to disk.
//!
//! Nothing another writer wrote is ever cut or overwritten: every write checks the file
//! against what this transcript read or wrote — its identity (device and inode), length and
//! last bytes, the whole content before a rewrite — and a file changed behind its back, deleted
//! or replaced fails the write with [`SessionError::ChangedOnDisk`] instead of being
//! acknowledged.
//!
//! Opening a current-version file reads it as a stream, one line at a time, and each message
//! entry only as far as its envelope (id, parent, role); a message is typed when it is first
//! needed, from its line read back through the handle that was scanned. Opening a 100 000-entry
//! session and rebuilding its context types the context's messages, not the whole file, and
//! holds the entry tree, not the file. A transcript kept between turns
//! ([`Transcript::release_lock`], [`Transcript::resume_locked`]) does not read the file again
//! while nobody else wrote to it.
//!
//! One writer at a time: every write happens under the file's [`WriteLock`] (a sibling
//! `<file>.lock` holding an OS lock and the holder's pid and start time), taken at a
//! transcript's first write or before reading ([`Transcript::open_locked`]) and held until it
//! is closed or dropped; a dead holder's lock is taken over, a live one is waited for up to a
//! timeout and then named in the error. [`SessionStore`] keeps `sessions.json` (session key →
//! session) in the directory layout of SPEC §2, updated atomically under its own lock, and
//! lists, finds, forks ([`Transcript::fork`]), starts (`/new`) and deletes sessions.
//!
//! [`transforms`] holds what a session's messages go through before they are replayed: the
//! per-provider transcript policy and the attempt's whole history pipeline
//! ([`transforms::resolve_transcript_policy`], [`transforms::prepare_replay_history`]), the
//! live tool-result context guard of the tool loop, and tool-result truncation, also on an
//! open transcript under the lock it holds ([`Transcript::truncate_oversized_tool_results`]).
//!
//! Async callers have counterparts that never block a runtime worker thread:
//! [`WriteLock::acquire_async`] and [`Transcript::open_locked_async`] wait for a lock on the
//! Tokio timer, and the [`SessionStore`] operations (`list_async`, `set_async`, …) run on the
//! runtime's blocking pool.
//!
//! # Example
//!
//! ```
//! use clawloop_core::message::{AgentMessage, AssistantMessage, ContentBlock, UserMessage};
//! use clawloop_session::{SessionOptions, Transcript};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("session.jsonl");
//!
//! let mut session = Transcript::open(&path, SessionOptions::default())?;
//! session.append_message(UserMessage::text("list files", 1_700_000_000_000))?;
//! // Like pi, nothing is written before the first assistant message.
//! assert!(!path.exists());
//!
//! let mut answer = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", 1_700_000_001_000);
//! answer.content.push(ContentBlock::text("a.txt"));
//! session.append_message(answer)?;
//! assert_eq!(std::fs::read_to_string(&path)?.lines().count(), 3);
//!
//! // Reopening finds the same conversation, the leaf at the last entry.
//! let reopened = Transcript::open(&path, SessionOptions::default())?;
//! let context = reopened.build_context();
//! let texts: Vec<String> = context.messages.iter().map(AgentMessage::text).collect();
//! assert_eq!(texts, ["list files", "a.txt"]);
//! assert_eq!(context.model.map(|m| m.model_id).as_deref(), Some("claude-sonnet-4-5"));
//! assert_eq!(context.thinking_level, "off");
//! # Ok(())
//! # }
//! ```

mod atomic;
mod blocking;
mod context;
mod entry;
mod entry_id;
mod entry_index;
mod entry_list;
mod envelope;
mod error;
mod fork;
mod fsync;
mod header;
mod id;
mod layout;
mod load;
mod lock;
mod migrate;
mod on_disk;
mod options;
mod process;
mod scan;
mod session_index;
mod store;
mod store_async;
mod store_commit;
mod summary;
mod tagged;
pub mod time;
mod transcript;
pub mod transforms;
mod unanswered;
mod writer;

pub use atomic::replace_file_atomically;
pub use context::{DEFAULT_THINKING_LEVEL, ModelRef, SessionContext, build_session_context};
pub use entry::{
    BranchSummaryEntry, CompactionEntry, CustomEntry, CustomMessageEntry, LabelEntry, MessageEntry,
    ModelChangeEntry, SessionEntry, SessionInfoEntry, ThinkingLevelChangeEntry,
};
pub use error::SessionError;
pub use fsync::{FsyncPolicy, UnknownFsyncPolicy};
pub use header::{CURRENT_SESSION_VERSION, SessionHeader};
pub use id::{short_id, uuid_v4};
pub use layout::{
    DEFAULT_AGENT_ID, STORE_FILE_NAME, TRANSCRIPT_EXTENSION, clawloop_home, sessions_dir,
    transcript_path,
};
pub use load::TornLine;
pub use lock::{
    DEFAULT_LOCK_TIMEOUT, LockFileState, LockHolder, WriteLock, inspect_lock_file, lock_path_for,
    remove_stale_lock,
};
pub use options::SessionOptions;
pub use store::{DeletedSession, SessionRecord, SessionStore, StoredSession};
pub use summary::SessionSummary;
pub use time::{format_iso, parse_iso};
pub use transcript::{OpenReport, Transcript};
pub use transforms::{
    dangling_tool_call_results, limit_history_turns, sanitize_session_history,
    truncate_oversized_tool_results_in_file,
};
pub use unanswered::transcript_holds_no_answer;
