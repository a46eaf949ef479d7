//! The transcript seen from async code: every file operation runs on tokio's blocking pool, so
//! transcript I/O, fsync and the write-lock wait never stall a runtime worker thread.
//!
//! Messages are persisted in `message_end` order by one background task that owns the write
//! order; the agent session waits for it ([`Persister::flush`]) before anything that reads the
//! file back (compaction, the end of a prompt). After the first failed write nothing more is
//! written, so the file always holds a valid prefix of the conversation and the failure is
//! reported, never swallowed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::message::AgentMessage;
use clawloop_session::{SessionError, SessionOptions, Transcript};
use parking_lot::Mutex;
use tokio::sync::{mpsc, oneshot};

/// Why a transcript operation failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PersistError {
    /// The session crate refused or failed the operation.
    #[error("{0}")]
    Session(Arc<SessionError>),
    /// The blocking task running the operation panicked or was cancelled.
    #[error("session file {}: the write task stopped unexpectedly ({reason})", path.display())]
    TaskFailed {
        /// The session file.
        path: PathBuf,
        /// What the runtime reported.
        reason: String,
    },
}

impl From<SessionError> for PersistError {
    fn from(err: SessionError) -> Self {
        PersistError::Session(Arc::new(err))
    }
}

/// A shared, locked [`Transcript`] whose operations run off the async runtime's workers.
#[derive(Clone)]
pub struct TranscriptHandle {
    inner: Arc<Mutex<Transcript>>,
    path: PathBuf,
}

impl std::fmt::Debug for TranscriptHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptHandle")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl TranscriptHandle {
    /// Takes the file's write lock and opens the session, neither blocking a runtime worker
    /// (the session crate's [`Transcript::open_locked_async`]).
    pub async fn open_locked(
        path: impl AsRef<Path>,
        options: SessionOptions,
    ) -> Result<Self, PersistError> {
        let transcript = Transcript::open_locked_async(path, options).await?;
        Ok(TranscriptHandle::new(transcript))
    }

    /// Wraps an already open transcript.
    pub fn new(transcript: Transcript) -> Self {
        let path = transcript.path().to_path_buf();
        TranscriptHandle {
            inner: Arc::new(Mutex::new(transcript)),
            path,
        }
    }

    /// The session file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `op` on the transcript on the blocking pool and returns its result.
    pub async fn with<R, F>(&self, op: F) -> Result<R, PersistError>
    where
        F: FnOnce(&mut Transcript) -> R + Send + 'static,
        R: Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        run_blocking(&self.path, move || op(&mut inner.lock())).await
    }

    /// Like [`with`](Self::with) for operations that fail with a [`SessionError`].
    pub async fn try_with<R, F>(&self, op: F) -> Result<R, PersistError>
    where
        F: FnOnce(&mut Transcript) -> Result<R, SessionError> + Send + 'static,
        R: Send + 'static,
    {
        Ok(self.with(op).await??)
    }
}

async fn run_blocking<R, F>(path: &Path, op: F) -> Result<R, PersistError>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    tokio::task::spawn_blocking(op)
        .await
        .map_err(|err| PersistError::TaskFailed {
            path: path.to_path_buf(),
            reason: err.to_string(),
        })
}

/// Appends one message as pi's agent session does: custom messages as `custom_message`
/// entries; user, assistant and tool results as `message` entries; other roles are written by
/// whoever creates them, not from agent events.
pub fn append_agent_message(
    transcript: &mut Transcript,
    message: AgentMessage,
) -> Result<(), SessionError> {
    match message {
        AgentMessage::Custom(custom) => {
            transcript.append_custom_message(
                custom.custom_type,
                custom.content,
                custom.display,
                custom.details,
            )?;
        }
        message @ (AgentMessage::User(_)
        | AgentMessage::Assistant(_)
        | AgentMessage::ToolResult(_)) => {
            transcript.append_message(message)?;
        }
        AgentMessage::BashExecution(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_)
        | AgentMessage::Other(_) => {}
    }
    Ok(())
}

enum PersistOp {
    Message(Arc<AgentMessage>),
    Flush(oneshot::Sender<Result<(), PersistError>>),
}

/// Persists messages in order from a synchronous event sink, on a background task. Clones
/// share the same task.
#[derive(Debug, Clone)]
pub struct Persister {
    tx: mpsc::UnboundedSender<PersistOp>,
}

impl Persister {
    /// Starts the writer task for `transcript` on the current tokio runtime.
    pub fn spawn(transcript: TranscriptHandle) -> Result<Self, PersistError> {
        let runtime =
            tokio::runtime::Handle::try_current().map_err(|err| PersistError::TaskFailed {
                path: transcript.path().to_path_buf(),
                reason: format!("no tokio runtime to write the transcript on: {err}"),
            })?;
        let (tx, rx) = mpsc::unbounded_channel();
        runtime.spawn(write_loop(transcript, rx));
        Ok(Persister { tx })
    }

    /// Queues `message` for appending; never blocks.
    pub fn persist(&self, message: Arc<AgentMessage>) {
        // The task ends only when every sender is gone, so the send cannot fail while `self`
        // lives; a runtime shutting down is the one exception and then nothing can be written.
        let _ = self.tx.send(PersistOp::Message(message));
    }

    /// Waits until everything queued before this call is written; fails with the first write
    /// failure, and keeps failing after one (nothing after a lost message is written).
    pub async fn flush(&self) -> Result<(), PersistError> {
        let (reply, done) = oneshot::channel();
        if self.tx.send(PersistOp::Flush(reply)).is_err() {
            return Err(self.stopped());
        }
        done.await.unwrap_or_else(|_| Err(self.stopped()))
    }

    fn stopped(&self) -> PersistError {
        PersistError::TaskFailed {
            path: PathBuf::new(),
            reason: "the writer task is gone (runtime shutting down)".to_owned(),
        }
    }
}

async fn write_loop(transcript: TranscriptHandle, mut rx: mpsc::UnboundedReceiver<PersistOp>) {
    // Once set, stays set: later writes are skipped and every flush reports it, so no message
    // after a lost one is ever acknowledged.
    let mut failure: Option<PersistError> = None;
    while let Some(first) = rx.recv().await {
        // Take everything already queued so one blocking call writes a burst of messages.
        let mut ops = vec![first];
        while let Ok(op) = rx.try_recv() {
            ops.push(op);
        }
        let mut batch: Vec<Arc<AgentMessage>> = Vec::new();
        for op in ops {
            match op {
                PersistOp::Message(message) => batch.push(message),
                PersistOp::Flush(reply) => {
                    write_batch(&transcript, std::mem::take(&mut batch), &mut failure).await;
                    let _ = reply.send(failure.clone().map_or(Ok(()), Err));
                }
            }
        }
        write_batch(&transcript, batch, &mut failure).await;
    }
}

async fn write_batch(
    transcript: &TranscriptHandle,
    batch: Vec<Arc<AgentMessage>>,
    failure: &mut Option<PersistError>,
) {
    if batch.is_empty() || failure.is_some() {
        return;
    }
    let result = transcript
        .try_with(move |t| {
            batch
                .into_iter()
                .try_for_each(|m| append_agent_message(t, Arc::unwrap_or_clone(m)))
        })
        .await;
    if let Err(err) = result {
        *failure = Some(err);
    }
}
