//! An open session file: the entry tree in memory, the leaf pointer, and appends that reach
//! the disk as whole lines (pi's `SessionManager`, pi-mono §3.3.4–§3.3.6).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use clawloop_core::clock::Clock;
use clawloop_core::message::{AgentMessage, JsonObject, UserContent};
use clawloop_core::{StopReason, ThinkLevel};

use crate::context::{SessionContext, context_from_path, path_by};
use crate::entry::{
    BranchSummaryEntry, CompactionEntry, CustomEntry, CustomMessageEntry, LabelEntry, MessageEntry,
    ModelChangeEntry, SessionEntry, SessionInfoEntry, ThinkingLevelChangeEntry,
};
use crate::entry_list::{EntryList, LinePos, Source};
use crate::envelope::{self, Item};
use crate::error::SessionError;
use crate::header::CURRENT_SESSION_VERSION;
use crate::header::SessionHeader;
use crate::id::{unique_entry_id, uuid_v4};
use crate::load::{Line, Loaded, TornLine, load_bytes};
use crate::lock::WriteLock;
use crate::migrate::migrate;
use crate::on_disk::{FileId, OpenFile, Seen, open_file};
use crate::options::SessionOptions;
use crate::scan::{RawLine, Scanned, header_version, scan_reader};
use crate::time::format_iso;
use crate::writer::Writer;

mod dangling;
mod open_async;
mod resume;
mod rewrite;

/// How much of a session file one read asks for while it is scanned.
const READ_BUFFER: usize = 64 * 1024;

/// What opening a file found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpenReport {
    /// No session was read: the path did not exist or the file was empty.
    pub created: bool,
    /// Lines that could not be used, a torn last line included.
    pub skipped_lines: usize,
    /// The torn last line (one that does not parse), cut off before the next append.
    pub torn_line: Option<TornLine>,
    /// The version the file was migrated from (and rewritten), if it was older.
    pub migrated_from: Option<u64>,
}

/// The fields every appended entry shares.
struct Stamp {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
}

/// An open session transcript.
///
/// Appends add a child of the leaf and move the leaf to it. Each entry reaches the file as one
/// complete line in one write, except that a new session writes nothing until its first
/// assistant message and then writes the header and everything so far at once (pi's deferred
/// first write). The file is only ever appended to, apart from migrations, which rewrite it
/// atomically.
///
/// Every write happens under the file's write lock (`<file>.lock`, see [`WriteLock`]), which
/// the transcript takes at its first write — or before reading, with
/// [`Transcript::open_locked`] — and holds until it is dropped or [`Transcript::close`]d.
/// Another writer, in this process or another, waits up to
/// [`SessionOptions::lock_timeout`] and then fails with [`SessionError::Locked`]. Reading
/// needs no lock.
pub struct Transcript {
    header: SessionHeader,
    /// Every entry in file order; messages read from the file are typed on first use.
    entries: EntryList,
    /// Position of the leaf; `None` after [`Transcript::reset_leaf`] or when empty.
    leaf: Option<usize>,
    /// Target id → label (latest wins; cleared labels removed).
    labels: HashMap<String, String>,
    writer: Writer,
    clock: Arc<dyn Clock>,
    report: OpenReport,
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript")
            .field("path", &self.writer.path())
            .field("session_id", &self.header.id)
            .field("entries", &self.entries.len())
            .field("leaf_id", &self.leaf_id())
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl Transcript {
    /// Opens the session at `path`.
    ///
    /// A missing path starts a new session that is written on its first assistant message; an
    /// empty file starts a new session written on its first append. A file whose first
    /// non-blank line is not a session header is refused and left untouched. Older versions
    /// are migrated and the file rewritten atomically. Unusable lines are skipped and counted
    /// in [`Transcript::report`]; a torn last line (one that does not parse) is cut off before
    /// the next append, while a last line that parses but lacks its `\n` is kept and gets its
    /// newline then. The leaf is the last entry in file order.
    ///
    /// Opening takes no lock (a migration's rewrite excepted): the write lock is taken at the
    /// first write, which fails with [`SessionError::ChangedOnDisk`] if the file is not the one
    /// read any more or does not end as it did (another writer appended, cut or replaced it,
    /// even to the same length). Every later append fails the same way when the file was
    /// deleted, moved away or replaced, or grew behind its back; such a line is never
    /// acknowledged. A session about to be written should rather be opened with
    /// [`Transcript::open_locked`].
    pub fn open(path: impl AsRef<Path>, options: SessionOptions) -> Result<Self, SessionError> {
        Self::open_with(path.as_ref().to_path_buf(), options, None)
    }

    /// Takes the file's write lock, waiting up to [`SessionOptions::lock_timeout`] for another
    /// writer to finish, then opens the session as [`Transcript::open`] does.
    ///
    /// What is read is then exactly what the next append extends: this is the way to open a
    /// session for a run (OpenClaw takes its session lock before opening, too). The file's
    /// directory must exist. The lock is held until the transcript is dropped or closed.
    pub fn open_locked(
        path: impl AsRef<Path>,
        options: SessionOptions,
    ) -> Result<Self, SessionError> {
        let path = path.as_ref().to_path_buf();
        let lock = WriteLock::acquire(&path, options.lock_timeout)?;
        Self::open_with(path, options, Some(lock))
    }

    fn open_with(
        path: PathBuf,
        options: SessionOptions,
        lock: Option<WriteLock>,
    ) -> Result<Self, SessionError> {
        let Some(OpenFile { file, id, len_hint }) = open_file(&path)? else {
            return Ok(Self::new_session(path, options, lock));
        };
        let read_error = |e| SessionError::io(&path, "read", e);
        let mut reader = BufReader::with_capacity(READ_BUFFER, &file);
        let version = header_version(&mut reader).map_err(read_error)?;
        reader.seek(SeekFrom::Start(0)).map_err(read_error)?;
        // A current file is streamed, its messages typed on first use (see `envelope` and
        // `entry_list`); an older one is read and typed whole, since it is migrated and
        // rewritten anyway. A file without a header takes the second way too, which refuses it.
        if version.is_some_and(|v| v >= u64::from(CURRENT_SESSION_VERSION)) {
            let judge = |_: &JsonObject, line: RawLine<'_>| envelope::judge(&path, line);
            match scan_reader(&path, reader, judge, |_| None)? {
                None => Ok(Self::new_session(path, options, lock)),
                Some(scanned) => Self::from_scanned(path, options, scanned, file, id, lock),
            }
        } else {
            let mut bytes = Vec::with_capacity(usize::try_from(len_hint).unwrap_or(0));
            reader.read_to_end(&mut bytes).map_err(read_error)?;
            match load_bytes(&path, &bytes)? {
                None => Ok(Self::new_session(path, options, lock)),
                Some(loaded) => Self::from_loaded(path, options, loaded, &bytes, id, lock),
            }
        }
    }

    /// A current-version file: nothing to migrate, messages typed on first use.
    fn from_scanned(
        path: PathBuf,
        options: SessionOptions,
        scanned: Scanned<Item>,
        file: File,
        id: Option<FileId>,
        lock: Option<WriteLock>,
    ) -> Result<Self, SessionError> {
        let header: SessionHeader =
            serde_json::from_value(Value::Object(scanned.header)).map_err(|e| {
                SessionError::NotASession {
                    path: path.clone(),
                    reason: format!("invalid session header: {e}"),
                }
            })?;
        let count = scanned.items.len();
        let seen = Seen::read(id, &file, scanned.len, scanned.keep_len)
            .map_err(|e| SessionError::io(&path, "read back", e))?;
        let mut transcript = Transcript {
            header,
            entries: EntryList::from_items(Source::File(file), scanned.items),
            leaf: None,
            labels: HashMap::new(),
            writer: Writer::existing(
                path,
                options.fsync,
                options.lock_timeout,
                seen,
                scanned.keep_len,
                scanned.needs_newline,
            )
            .with_lock(lock),
            clock: options.clock,
            report: OpenReport {
                created: false,
                skipped_lines: scanned.skipped,
                torn_line: scanned.torn,
                migrated_from: None,
            },
        };
        for at in 0..count {
            transcript.note(at);
        }
        Ok(transcript)
    }

    /// A session holding `entries` (file order) that is not on disk yet: written now if they
    /// include an assistant message, else at the first one (pi's rule, as for a fork).
    ///
    /// The header is built from `options` as for a new session.
    pub(crate) fn from_entries(
        path: PathBuf,
        options: SessionOptions,
        entries: Vec<SessionEntry>,
    ) -> Result<Self, SessionError> {
        let mut transcript = Self::new_session(path, options, None);
        transcript.writer.set_deferred();
        let write_now = entries.iter().any(SessionEntry::is_assistant_message);
        for entry in entries {
            transcript.push_entry(entry, None);
        }
        if write_now {
            transcript.create_file(None)?;
        }
        Ok(transcript)
    }

    fn new_session(path: PathBuf, options: SessionOptions, lock: Option<WriteLock>) -> Self {
        // An empty file is a session that failed to get its first line; pi rewrites it at
        // once. Writing on the first append instead keeps opening free of side effects.
        let deferred = !path.exists();
        let cwd = options.cwd.unwrap_or_else(|| {
            std::env::current_dir()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let mut header = SessionHeader::new(
            options.session_id.unwrap_or_else(uuid_v4),
            format_iso(options.clock.now_ms()),
            cwd,
        );
        header.parent_session = options.parent_session;
        Transcript {
            header,
            entries: EntryList::default(),
            leaf: None,
            labels: HashMap::new(),
            writer: Writer::unwritten(path, options.fsync, options.lock_timeout, deferred)
                .with_lock(lock),
            clock: options.clock,
            report: OpenReport {
                created: true,
                ..OpenReport::default()
            },
        }
    }

    fn from_loaded(
        path: PathBuf,
        options: SessionOptions,
        loaded: Loaded,
        bytes: &[u8],
        id: Option<FileId>,
        lock: Option<WriteLock>,
    ) -> Result<Self, SessionError> {
        let Loaded {
            header: mut header_obj,
            mut lines,
            mut skipped,
            torn,
            keep_len,
            needs_newline,
        } = loaded;
        let not_a_session = |e: serde_json::Error| SessionError::NotASession {
            path: path.clone(),
            reason: format!("invalid session header: {e}"),
        };
        // Typed before migrating, so a header that cannot be used is refused before the file
        // is rewritten.
        serde_json::from_value::<SessionHeader>(Value::Object(header_obj.clone()))
            .map_err(not_a_session)?;
        let mut objects: Vec<&mut JsonObject> = lines
            .iter_mut()
            .filter_map(|l| match l {
                Line::Object(o) => Some(o),
                _ => None,
            })
            .collect();
        let migrated_from = migrate(&mut header_obj, &mut objects);
        let header: SessionHeader =
            serde_json::from_value(Value::Object(header_obj.clone())).map_err(not_a_session)?;

        let mut writer = Writer::existing(
            path,
            options.fsync,
            options.lock_timeout,
            Seen::new(id, bytes, keep_len),
            keep_len,
            needs_newline,
        )
        .with_lock(lock);
        if migrated_from.is_some() {
            // Under the lock, and refused if the file changed since it was read.
            writer.rewrite(&rewrite_content(&header_obj, &lines)?, bytes)?;
        }

        let mut transcript = Transcript {
            header,
            entries: EntryList::with_capacity(lines.len()),
            leaf: None,
            labels: HashMap::new(),
            writer,
            clock: options.clock,
            report: OpenReport::default(),
        };
        for line in lines {
            let entry = match line {
                Line::Entry(e) => e,
                Line::Object(o) => match envelope::type_object(o) {
                    Ok(e) => e,
                    Err(e) => {
                        tracing::warn!(path = %transcript.path().display(), error = %e, "skipping unusable session entry");
                        skipped += 1;
                        continue;
                    }
                },
                Line::Garbage(_) => continue,
            };
            transcript.push_entry(entry, None);
        }
        transcript.report = OpenReport {
            created: false,
            skipped_lines: skipped,
            torn_line: torn,
            migrated_from,
        };
        Ok(transcript)
    }

    // --- reading ------------------------------------------------------------------------------

    /// The file this session lives in.
    pub fn path(&self) -> &Path {
        self.writer.path()
    }

    /// The header (for a new session, the one that will be written).
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// The session id from the header.
    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    /// The format version (3 after migration; a newer file keeps its own).
    pub fn version(&self) -> u32 {
        self.header.version
    }

    /// What opening found: skipped lines, a torn line, a migration.
    pub fn report(&self) -> &OpenReport {
        &self.report
    }

    /// Whether the session is on disk (false for a new session before its first write).
    pub fn is_persisted(&self) -> bool {
        self.writer.is_written()
    }

    /// Whether this transcript holds the file's write lock (from its first write, or from
    /// [`Transcript::open_locked`], until it is closed or dropped).
    pub fn holds_lock(&self) -> bool {
        self.writer.holds_lock()
    }

    /// Every entry, in file order.
    ///
    /// The first call types every message not typed yet, which for a long session costs what
    /// opening it eagerly would (seconds for 100 000 entries); the slice is then kept and
    /// extended by appends. [`Transcript::entry_count`], [`Transcript::entry`],
    /// [`Transcript::branch_path`] and [`Transcript::build_context`] type only what they
    /// return.
    pub fn entries(&self) -> &[SessionEntry] {
        self.entries.all()
    }

    /// How many entries the session holds (as `entries().len()`, without typing any).
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// Whether an entry has this id (without typing it).
    pub fn contains(&self, id: &str) -> bool {
        self.entries.contains(id)
    }

    /// The entry with this id.
    pub fn entry(&self, id: &str) -> Option<&SessionEntry> {
        self.entries.position(id).map(|i| self.entries.get(i))
    }

    /// The leaf's id; `None` for an empty session or after [`Transcript::reset_leaf`].
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.map(|i| self.entries.id(i))
    }

    /// The leaf entry.
    pub fn leaf_entry(&self) -> Option<&SessionEntry> {
        self.leaf.map(|i| self.entries.get(i))
    }

    /// The path from the root to `id` (pi's `getBranch`); empty for an unknown id.
    pub fn branch_path(&self, id: &str) -> Vec<&SessionEntry> {
        let Some(at) = self.entries.position(id) else {
            return Vec::new();
        };
        self.path_positions(at)
            .into_iter()
            .map(|i| self.entries.get(i))
            .collect()
    }

    /// The path to `id` from its latest compaction on (the whole path when it has none): what
    /// preparing the next compaction reads. The messages before that compaction are never
    /// typed, so the cost of a compaction does not grow with the whole history.
    pub fn branch_path_since_compaction(&self, id: &str) -> Vec<&SessionEntry> {
        let Some(at) = self.entries.position(id) else {
            return Vec::new();
        };
        let path = self.path_positions(at);
        // A compaction read from the file is typed on open, so `peek` sees every one.
        let start = path
            .iter()
            .rposition(|&i| matches!(self.entries.peek(i), Some(SessionEntry::Compaction(_))))
            .unwrap_or(0);
        path[start..].iter().map(|&i| self.entries.get(i)).collect()
    }

    /// The entries whose parent is `id`, in file order.
    pub fn children(&self, id: &str) -> Vec<&SessionEntry> {
        (0..self.entries.len())
            .filter(|&i| self.entries.parent_id(i) == Some(id))
            .map(|i| self.entries.get(i))
            .collect()
    }

    /// The entries typed so far, in file order: every entry that is not a message read from
    /// the file and not yet asked for. Labels and session infos are always among them.
    pub(crate) fn typed_entries(&self) -> impl Iterator<Item = &SessionEntry> {
        (0..self.entries.len()).filter_map(|i| self.entries.peek(i))
    }

    /// The current label of an entry (latest `label` entry for it, unless cleared).
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }

    /// The session's display name: the name of the latest `session_info` entry that has a
    /// non-blank one.
    ///
    /// A blank name does not clear an earlier one: pi's `getSessionName` (and its session list)
    /// skip `session_info` entries without a name and keep looking further back.
    pub fn session_name(&self) -> Option<&str> {
        (0..self.entries.len())
            .rev()
            .filter_map(|i| self.entries.peek(i))
            .find_map(|e| match e {
                SessionEntry::SessionInfo(i) => i.name.as_deref().filter(|n| !n.trim().is_empty()),
                _ => None,
            })
    }

    /// The latest `compaction` entry on the branch ending at the leaf (pi's
    /// `getLatestCompactionEntry`); `None` without a leaf or compaction. Messages are not
    /// typed to find it.
    ///
    /// Its [`SessionEntry::timestamp_ms`] is what pi compares an assistant message's
    /// `timestamp` with to ignore usage from before the compaction (pi-mono §3.5 step 2).
    pub fn latest_compaction(&self) -> Option<&SessionEntry> {
        let leaf = self.leaf?;
        self.path_positions(leaf)
            .into_iter()
            .rev()
            .filter_map(|i| self.entries.peek(i))
            .find(|e| matches!(e, SessionEntry::Compaction(_)))
    }

    /// The model's context at the leaf (pi-mono §3.3.5).
    pub fn build_context(&self) -> SessionContext {
        let Some(leaf) = self.leaf else {
            return SessionContext::empty();
        };
        let path = self.path_positions(leaf);
        let needed: Vec<&SessionEntry> = self
            .context_positions(&path)
            .into_iter()
            .map(|i| self.entries.get(i))
            .collect();
        context_from_path(&needed)
    }

    /// The part of `path` that decides the context, so the messages a compaction replaced are
    /// not typed only to be dropped: from the latest compaction's first kept entry on, plus the
    /// latest thinking-level change and model setter before it. `context_from_path` of this
    /// equals that of the whole path: a compaction and the state changes are always typed, and
    /// what is left out could only have been skipped or overridden.
    fn context_positions(&self, path: &[usize]) -> Vec<usize> {
        let compaction =
            path.iter()
                .enumerate()
                .rev()
                .find_map(|(at, &i)| match self.entries.peek(i) {
                    Some(SessionEntry::Compaction(c)) => Some((at, c)),
                    _ => None,
                });
        let Some((at, compaction)) = compaction else {
            return path.to_vec();
        };
        // Nothing before the compaction survives when its first kept entry is not on the path.
        let kept = path[..at]
            .iter()
            .position(|&i| self.entries.id(i) == compaction.first_kept_entry_id)
            .unwrap_or(at);
        let earlier = &path[..kept];
        let thinking = earlier.iter().rposition(|&i| {
            matches!(
                self.entries.peek(i),
                Some(SessionEntry::ThinkingLevelChange(_))
            )
        });
        let model = earlier.iter().rposition(|&i| {
            matches!(self.entries.peek(i), Some(SessionEntry::ModelChange(_)))
                || self.entries.is_assistant_message(i)
        });
        let mut state: Vec<usize> = thinking.into_iter().chain(model).collect();
        state.sort_unstable();
        state.dedup();
        state
            .into_iter()
            .map(|at| earlier[at])
            .chain(path[kept..].iter().copied())
            .collect()
    }

    // --- tree navigation ------------------------------------------------------------------------

    /// Moves the leaf to an existing entry; the next append forks from there. Writes nothing.
    pub fn branch(&mut self, id: &str) -> Result<(), SessionError> {
        let at = self.position(id)?;
        self.leaf = Some(at);
        Ok(())
    }

    /// Clears the leaf; the next append starts a new root. Writes nothing.
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Moves the leaf to `from` (`None`: before the root) and appends a `branch_summary` there
    /// (`fromId` = `from` or `"root"`). Returns the new entry's id.
    pub fn branch_with_summary(
        &mut self,
        from: Option<&str>,
        summary: impl Into<String>,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<String, SessionError> {
        let at = from.map(|id| self.position(id)).transpose()?;
        let previous = std::mem::replace(&mut self.leaf, at);
        let summary = summary.into();
        let result = self.append_with(|s| {
            SessionEntry::BranchSummary(BranchSummaryEntry {
                from_id: s.parent_id.clone().unwrap_or_else(|| "root".to_owned()),
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                summary,
                details,
                from_hook,
                extra: JsonObject::new(),
            })
        });
        if result.is_err() {
            // Nothing was appended, so the navigation did not happen either.
            self.leaf = previous;
        }
        result
    }

    // --- appends --------------------------------------------------------------------------------

    /// Appends a `message` entry. Returns its id.
    pub fn append_message(
        &mut self,
        message: impl Into<AgentMessage>,
    ) -> Result<String, SessionError> {
        let message = message.into();
        self.append_with(|s| {
            SessionEntry::Message(MessageEntry {
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                message,
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `thinking_level_change` entry. Returns its id.
    pub fn append_thinking_level_change(
        &mut self,
        level: ThinkLevel,
    ) -> Result<String, SessionError> {
        self.append_with(|s| {
            SessionEntry::ThinkingLevelChange(ThinkingLevelChangeEntry {
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                thinking_level: level.as_str().to_owned(),
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `model_change` entry. Returns its id.
    pub fn append_model_change(
        &mut self,
        provider: impl Into<String>,
        model_id: impl Into<String>,
    ) -> Result<String, SessionError> {
        let (provider, model_id) = (provider.into(), model_id.into());
        self.append_with(|s| {
            SessionEntry::ModelChange(ModelChangeEntry {
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                provider,
                model_id,
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `compaction` entry: the context at later leaves starts with `summary`, then
    /// the path from `first_kept_entry_id`. Returns its id.
    pub fn append_compaction(
        &mut self,
        summary: impl Into<String>,
        first_kept_entry_id: impl Into<String>,
        tokens_before: u64,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<String, SessionError> {
        let (summary, first_kept_entry_id) = (summary.into(), first_kept_entry_id.into());
        self.append_with(|s| {
            SessionEntry::Compaction(CompactionEntry {
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                summary,
                first_kept_entry_id,
                tokens_before,
                details,
                from_hook,
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `custom` entry (extension state, never in the context). Returns its id.
    pub fn append_custom(
        &mut self,
        custom_type: impl Into<String>,
        data: Option<Value>,
    ) -> Result<String, SessionError> {
        let custom_type = custom_type.into();
        self.append_with(|s| {
            SessionEntry::Custom(CustomEntry {
                custom_type,
                data,
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `custom_message` entry (sent to the model as a user message). Returns its id.
    pub fn append_custom_message(
        &mut self,
        custom_type: impl Into<String>,
        content: impl Into<UserContent>,
        display: bool,
        details: Option<Value>,
    ) -> Result<String, SessionError> {
        let (custom_type, content) = (custom_type.into(), content.into());
        self.append_with(|s| {
            SessionEntry::CustomMessage(CustomMessageEntry {
                custom_type,
                content,
                display,
                details,
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `label` entry for an existing entry; `None` or `""` clears its label.
    /// Returns the new entry's id.
    pub fn append_label(
        &mut self,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<String, SessionError> {
        self.position(target_id)?;
        let label = label.map(str::to_owned);
        self.append_with(|s| {
            SessionEntry::Label(LabelEntry {
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                target_id: target_id.to_owned(),
                label,
                extra: JsonObject::new(),
            })
        })
    }

    /// Appends a `session_info` entry naming the session (trimmed). Returns its id.
    pub fn append_session_info(&mut self, name: &str) -> Result<String, SessionError> {
        let name = name.trim().to_owned();
        self.append_with(|s| {
            SessionEntry::SessionInfo(SessionInfoEntry {
                id: s.id,
                parent_id: s.parent_id,
                timestamp: s.timestamp,
                name: Some(name),
                extra: JsonObject::new(),
            })
        })
    }

    /// Forces appended lines to stable storage (the turn-end point of
    /// [`crate::FsyncPolicy::OnTurnEnd`]; a no-op under [`crate::FsyncPolicy::Never`]).
    pub fn sync(&mut self) -> Result<(), SessionError> {
        self.writer.sync()
    }

    /// Syncs appended lines (per the fsync policy) and releases the write lock, removing the
    /// lock file; dropping the transcript releases it too, without reporting failures.
    pub fn close(mut self) -> Result<(), SessionError> {
        self.writer.close()
    }

    // --- internals ------------------------------------------------------------------------------

    /// Positions from the root down to `at`, following parent ids (see `context::path_by`).
    fn path_positions(&self, at: usize) -> Vec<usize> {
        let parent_of = |i: usize| {
            self.entries
                .parent_id(i)
                .and_then(|p| self.entries.position(p))
        };
        path_by(&parent_of, at)
    }

    fn position(&self, id: &str) -> Result<usize, SessionError> {
        self.entries
            .position(id)
            .ok_or_else(|| SessionError::EntryNotFound(id.to_owned()))
    }

    /// Builds an entry as a child of the leaf, persists it, then adds it to the tree.
    ///
    /// Memory changes only after the disk accepted the line, so a failed append leaves the
    /// session as it was.
    fn append_with(
        &mut self,
        build: impl FnOnce(Stamp) -> SessionEntry,
    ) -> Result<String, SessionError> {
        let stamp = Stamp {
            id: unique_entry_id(|c| self.entries.contains(c)),
            parent_id: self.leaf_id().map(str::to_owned),
            timestamp: format_iso(self.clock.now_ms()),
        };
        let entry = build(stamp);
        let line = self.persist(&entry)?;
        let id = entry.id().to_owned();
        self.push_entry(entry, line);
        Ok(id)
    }

    /// Writes `entry` (or holds it back while the file waits for its first assistant message);
    /// where its line is in the file, once it is written.
    fn persist(&mut self, entry: &SessionEntry) -> Result<Option<LinePos>, SessionError> {
        if self.writer.is_written() {
            let mut line = serde_json::to_vec(entry)?;
            line.push(b'\n');
            let start = self.writer.append(&line, ends_turn(entry))?;
            return Ok(Some((start, line.len() - 1)));
        }
        // Entries only accumulate while deferred until an assistant message exists; the
        // entries already held contain none, or the file would have been created.
        if self.writer.is_deferred() && !entry.is_assistant_message() {
            return Ok(None);
        }
        self.create_file(Some(entry))
    }

    /// Creates the file with the header, every entry held and `next`; where `next`'s line is.
    fn create_file(
        &mut self,
        next: Option<&SessionEntry>,
    ) -> Result<Option<LinePos>, SessionError> {
        let mut content = serde_json::to_vec(&self.header)?;
        content.push(b'\n');
        let mut lines = Vec::with_capacity(self.entries.len() + 1);
        let held = (0..self.entries.len()).map(|i| self.entries.get(i));
        for e in held.chain(next) {
            let start = content.len();
            serde_json::to_writer(&mut content, e)?;
            lines.push((start, content.len() - start));
            content.push(b'\n');
        }
        self.writer.create(&content)?;
        let next_line = next.and_then(|_| lines.pop());
        for (at, line) in lines.into_iter().enumerate() {
            self.entries.set_line(at, line);
        }
        Ok(next_line)
    }

    /// Adds an entry read or appended at the end; `line` is where it is in the file.
    fn push_entry(&mut self, entry: SessionEntry, line: Option<LinePos>) {
        self.entries.push(entry, line);
        self.note(self.entries.len() - 1);
    }

    /// Takes the entry at `at` (the last one so far) into the labels and the leaf.
    fn note(&mut self, at: usize) {
        if let Some(SessionEntry::Label(l)) = self.entries.peek(at) {
            match l.label.as_deref() {
                Some(label) if !label.is_empty() => {
                    self.labels.insert(l.target_id.clone(), label.to_owned());
                }
                _ => {
                    self.labels.remove(&l.target_id);
                }
            }
        }
        self.leaf = Some(at);
    }
}

/// Whether appending `entry` ends a turn (the fsync point of [`crate::FsyncPolicy::OnTurnEnd`]): an
/// assistant message that asks for no tools, or a compaction.
fn ends_turn(entry: &SessionEntry) -> bool {
    match entry {
        SessionEntry::Message(m) => matches!(
            &m.message,
            AgentMessage::Assistant(a) if a.stop_reason != StopReason::ToolUse
        ),
        SessionEntry::Compaction(_) => true,
        _ => false,
    }
}

/// The whole file after a migration: header, then every kept line (skipped ones verbatim, so
/// a rewrite destroys nothing but a torn tail).
fn rewrite_content(header: &JsonObject, lines: &[Line]) -> Result<Vec<u8>, SessionError> {
    let mut out = serde_json::to_vec(header)?;
    out.push(b'\n');
    for line in lines {
        match line {
            Line::Entry(e) => serde_json::to_writer(&mut out, e)?,
            Line::Object(o) => serde_json::to_writer(&mut out, o)?,
            Line::Garbage(bytes) => out.extend_from_slice(bytes),
        }
        out.push(b'\n');
    }
    Ok(out)
}
