//! `clawloop logs [--lines N] [--follow]`: the newest log file of `<home>/logs/`.
//!
//! `--follow` keeps printing lines as they are appended (and moves on to the next day's file
//! when it appears) until Ctrl-C, which ends it with exit status 0: stopping is how a follow
//! ends, not a failure.
//!
//! Log lines quote servers, files and models: a terminal gets them neutralized, a pipe the
//! bytes.

use crate::async_runtime::start;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use crate::config::home_dir;
use crate::exit_code::{EXIT_FAILED, EXIT_USAGE};
use crate::logging::{LOG_PREFIX, LOG_SUFFIX, log_dir};
use crate::render::sanitize::{bytes_for_stdout, for_stderr};

/// How often `--follow` looks for new lines.
const POLL: Duration = Duration::from_millis(200);

/// Arguments of `clawloop logs`.
#[derive(Debug, Args)]
pub struct LogsArgs {
    /// How many of the last lines to print.
    #[arg(long, short = 'n', default_value_t = 200, value_name = "N")]
    lines: usize,
    /// Keep printing lines as they are written, until Ctrl-C (exit status 0).
    #[arg(long, short = 'f')]
    follow: bool,
}

/// Runs `clawloop logs`.
pub fn main(args: LogsArgs) -> ExitCode {
    let home = match home_dir() {
        Ok(home) => home,
        Err(err) => {
            eprintln!("clawloop: {}", for_stderr(&err.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let dir = log_dir(&home);
    let newest = newest_log(&dir);
    let mut stdout = std::io::stdout().lock();
    let mut position = None;
    match &newest {
        Some(file) => match print_tail(file, args.lines, &mut stdout) {
            Ok(end) => position = Some((file.clone(), end)),
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {
                return ExitCode::SUCCESS;
            }
            Err(err) => {
                cannot_read(file, &err);
                return ExitCode::from(EXIT_FAILED);
            }
        },
        None if !args.follow => {
            let message = format!(
                "no log files in {} yet (commands such as `clawloop run` write them)",
                dir.display()
            );
            eprintln!("clawloop: {}", for_stderr(&message));
            return ExitCode::from(EXIT_FAILED);
        }
        None => {}
    }
    if !args.follow {
        return ExitCode::SUCCESS;
    }
    drop(stdout);
    follow(&dir, position)
}

/// The newest log file: the latest modified, the latest date on a tie.
pub fn newest_log(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with(LOG_PREFIX) && name.ends_with(LOG_SUFFIX)
        })
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            meta.is_file()
                .then(|| (meta.modified().ok(), entry.file_name(), entry.path()))
        })
        .max_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)))
        .map(|(_, _, path)| path)
}

/// Prints the last `count` lines of `file`; returns the offset it read to.
fn print_tail(file: &Path, count: usize, out: &mut impl Write) -> std::io::Result<u64> {
    let mut reader = BufReader::new(File::open(file)?);
    let mut last: VecDeque<Vec<u8>> = VecDeque::with_capacity(count.min(4096));
    let mut read = 0u64;
    loop {
        let mut line = Vec::new();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 || !line.ends_with(b"\n") {
            // A line still being written is printed once it is whole (by --follow).
            break;
        }
        read += n as u64;
        if count > 0 {
            if last.len() == count {
                last.pop_front();
            }
            last.push_back(line);
        }
    }
    for line in last {
        out.write_all(&bytes_for_stdout(&line))?;
    }
    out.flush()?;
    Ok(read)
}

fn follow(dir: &Path, position: Option<(PathBuf, u64)>) -> ExitCode {
    let runtime = match start() {
        Ok(runtime) => runtime,
        Err(message) => {
            eprintln!("clawloop: {}", for_stderr(&message));
            return ExitCode::from(EXIT_FAILED);
        }
    };
    runtime.block_on(async {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
            code = poll(dir, position) => code,
        }
    })
}

async fn poll(dir: &Path, mut position: Option<(PathBuf, u64)>) -> ExitCode {
    let mut stdout = std::io::stdout();
    loop {
        tokio::time::sleep(POLL).await;
        // A newer file (the next day's) takes over from its first byte.
        if let Some(newest) = newest_log(dir)
            && position.as_ref().is_none_or(|(file, _)| *file != newest)
        {
            if let Some((file, offset)) = &mut position {
                // Lines the old file got just before the switch are still shown.
                let _ = print_new(file, offset, &mut stdout);
            }
            position = Some((newest, 0));
        }
        let Some((file, offset)) = &mut position else {
            continue;
        };
        match print_new(file, offset, &mut stdout) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {
                return ExitCode::SUCCESS;
            }
            // The file may be gone between two looks; the next newest takes over.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => position = None,
            Err(err) => {
                cannot_read(file, &err);
                return ExitCode::from(EXIT_FAILED);
            }
        }
    }
}

/// The failure to read a log file (its path is the home's, which the environment names).
fn cannot_read(file: &Path, err: &std::io::Error) {
    let message = format!("cannot read {}: {err}", file.display());
    eprintln!("clawloop: {}", for_stderr(&message));
}

/// Prints the whole lines appended to `file` since `offset` and moves `offset` past them.
fn print_new(file: &Path, offset: &mut u64, out: &mut impl Write) -> std::io::Result<()> {
    let mut handle = File::open(file)?;
    let len = handle.metadata()?.len();
    if len < *offset {
        // Truncated: start over.
        *offset = 0;
    }
    if len == *offset {
        return Ok(());
    }
    handle.seek(SeekFrom::Start(*offset))?;
    let mut appended = Vec::new();
    handle.take(len - *offset).read_to_end(&mut appended)?;
    let whole = appended
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |last| last + 1);
    if let Some(lines) = appended.get(..whole) {
        out.write_all(&bytes_for_stdout(lines))?;
        out.flush()?;
    }
    *offset += whole as u64;
    Ok(())
}
