//! The CLI's tracing logs: `<home>/logs/clawloop.YYYY-MM-DD.log`, one file per day. Never stdout
//! or stderr: those belong to the command's output.
//!
//! At `info` and quieter a command logs a few lines a turn, each written where it is logged (one
//! `write` to a local file, microseconds); a writer thread for them cost more than the writes,
//! at every start. At `debug` or `trace` a background thread writes, so a burst of lines never
//! blocks a turn.

use std::path::{Path, PathBuf};

use tracing::level_filters::LevelFilter;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Filter, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::{home_dir, load_cached};
use crate::render::sanitize::for_stderr;

/// The log files' name before the date.
pub const LOG_PREFIX: &str = "clawloop";
/// The log files' extension.
pub const LOG_SUFFIX: &str = "log";

/// Log lines queued for the writer thread before new ones are dropped. A command logs a few
/// lines a turn; the appender's default (128 000) allocated and touched a 4 MB queue in every
/// process, a quarter of a one-shot `run`'s memory. At `debug` or `trace` the dependencies
/// can log more in a burst than the writer drains, and the excess is dropped.
const BUFFERED_LINES: usize = 1024;

/// Keeps the log writer until the process ends; when it is a background thread, dropping this
/// flushes its last lines.
pub struct LogGuard {
    _background: Option<WorkerGuard>,
}

/// The log directory of a home.
pub fn log_dir(home: &Path) -> PathBuf {
    home.join("logs")
}

/// Starts logging for `command` at the configured level (`CLAWLOOP_LOG`, `--config logging.level=…`
/// or `logging.level`, default `info`). The guard flushes the last lines when dropped, so
/// `main` holds it until the process ends. `None` when there is nothing to log to: a missing
/// home or a bad config is reported by the command itself, and a log directory that cannot be
/// created is a warning, not a reason to fail the command.
pub fn init(command: &str) -> Option<LogGuard> {
    let home = home_dir().ok()?;
    let level = load_cached(&home).ok()?.config.logging.level;
    // The loader checked the level; a failure here would be a bug, and logging stays off.
    let filter: Targets = level.parse().ok()?;
    let dir = log_dir(&home);
    let appender = match create_dir(&dir).and_then(|()| {
        Builder::new()
            .rotation(Rotation::DAILY)
            .filename_prefix(LOG_PREFIX)
            .filename_suffix(LOG_SUFFIX)
            .build(&dir)
            .map_err(std::io::Error::other)
    }) {
        Ok(appender) => appender,
        Err(err) => {
            let warning = format!("cannot write logs to {}: {err}", dir.display());
            eprintln!("clawloop: warning: {}", for_stderr(&warning));
            return None;
        }
    };
    let quiet = Filter::<tracing_subscriber::Registry>::max_level_hint(&filter)
        .is_some_and(|level| level <= LevelFilter::INFO);
    let guard = if quiet {
        install(appender, filter)?;
        LogGuard { _background: None }
    } else {
        let (writer, guard) = NonBlockingBuilder::default()
            .buffered_lines_limit(BUFFERED_LINES)
            .finish(appender);
        install(writer, filter)?;
        LogGuard {
            _background: Some(guard),
        }
    };
    tracing::info!(
        command,
        version = env!("CARGO_PKG_VERSION"),
        pid = std::process::id(),
        "clawloop started"
    );
    Some(guard)
}

/// Makes `writer` the process's log sink under `filter`; `None` when one was set already.
fn install<W>(writer: W, filter: Targets) -> Option<()>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(false);
    tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .try_init()
        .ok()
}

fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        // The home holds credentials: a home created here is the owner's only.
        builder.mode(0o700);
    }
    builder.create(dir)
}
