//! Where chat lines come from: a line editor with a persistent history on a terminal, or
//! plain lines from a pipe (each one a turn, for scripts and tests).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{
    Cmd, ConditionalEventHandler, Editor, Event, EventContext, EventHandler, KeyEvent, Movement,
    RepeatCount,
};
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

use crate::signals::{Stop, StopSignals};

/// The history file's name in the clawloop home.
pub const HISTORY_FILE: &str = "history";

/// The prompt shown on a terminal.
const PROMPT: &str = "› ";

/// What reading a line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line (without its newline).
    Text(String),
    /// Ctrl-C at an empty prompt.
    Interrupted,
    /// Ctrl-D or the end of the pipe.
    End,
    /// SIGTERM or SIGHUP while waiting: the chat ends with it.
    Stopped(Stop),
}

/// The source of chat lines.
pub enum Input {
    /// A terminal: rustyline, with the history file.
    Terminal {
        /// The editor; `None` once a stop signal left it blocked in a read that never ends.
        editor: Option<Box<Editor<(), FileHistory>>>,
        /// `<home>/history`; `None` when it cannot be created (the chat works without it).
        history: Option<PathBuf>,
        /// The terminal's modes before the editor first switched it to raw mode.
        cooked: CookedMode,
    },
    /// A pipe.
    Piped(Lines<BufReader<Stdin>>),
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Terminal { history, .. } => f
                .debug_struct("Terminal")
                .field("history", history)
                .finish_non_exhaustive(),
            Input::Piped(_) => f.write_str("Piped"),
        }
    }
}

/// Ctrl-C clears a typed line; at an empty prompt it interrupts (and the chat ends).
struct CtrlC;

impl ConditionalEventHandler for CtrlC {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        if ctx.line().is_empty() {
            Some(Cmd::Interrupt)
        } else {
            Some(Cmd::Kill(Movement::WholeLine))
        }
    }
}

impl Input {
    /// A line editor when stdin is a terminal, else the pipe's lines. Must run inside a tokio
    /// runtime (the pipe is read asynchronously, so Ctrl-C can end a wait for input).
    pub fn open(home: &Path, warn: impl Fn(&str)) -> Result<Input, String> {
        if !std::io::stdin().is_terminal() {
            return Ok(Input::Piped(BufReader::new(tokio::io::stdin()).lines()));
        }
        // Taken before the editor ever reads: a stop at the prompt leaves it in raw mode.
        let cooked = CookedMode::capture();
        let mut editor = Editor::<(), FileHistory>::new()
            .map_err(|err| format!("cannot start the line editor: {err}"))?;
        editor.bind_sequence(
            KeyEvent::ctrl('C'),
            EventHandler::Conditional(Box::new(CtrlC)),
        );
        let path = home.join(HISTORY_FILE);
        let history = match create_private(&path) {
            Ok(()) => {
                // An unreadable history only costs the recall of old lines.
                let _ = editor.load_history(&path);
                Some(path)
            }
            Err(err) => {
                warn(&format!(
                    "cannot create the history {}: {err}; lines are not kept",
                    path.display()
                ));
                None
            }
        };
        Ok(Input::Terminal {
            editor: Some(Box::new(editor)),
            history,
            cooked,
        })
    }

    /// Whether lines come from a terminal.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Input::Terminal { .. })
    }

    /// The next line, or the stop signal that came first.
    pub async fn next_line(&mut self, stops: &mut StopSignals) -> Result<Line, String> {
        match self {
            Input::Terminal {
                editor,
                history,
                cooked,
            } => {
                let Some(mut taken) = editor.take() else {
                    return Ok(Line::End);
                };
                // The editor blocks its thread, so it reads on the blocking pool while this
                // task stays free to see a SIGTERM or SIGHUP.
                let read = tokio::task::spawn_blocking(move || {
                    let line = taken.readline(PROMPT);
                    (taken, line)
                });
                let (taken, line) = tokio::select! {
                    read = read => read.map_err(|err| format!("cannot read from the terminal: {err}"))?,
                    stop = stops.next() => {
                        // The editor stays blocked in its raw-mode read and never restores
                        // the terminal: the shell would get it without echo or lines.
                        cooked.restore();
                        return Ok(Line::Stopped(stop));
                    }
                };
                let editor = editor.insert(taken);
                edited(editor, history.as_deref(), line)
            }
            Input::Piped(lines) => tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => Ok(Line::Text(line)),
                    Ok(None) => Ok(Line::End),
                    Err(err) => Err(format!("cannot read stdin: {err}")),
                },
                _ = tokio::signal::ctrl_c() => Ok(Line::Interrupted),
                stop = stops.next() => Ok(Line::Stopped(stop)),
            },
        }
    }
}

/// The terminal's modes as the shell gave them.
#[derive(Debug)]
pub struct CookedMode(Option<rustix::termios::Termios>);

impl CookedMode {
    /// The current modes of stdin's terminal (`None` when they cannot be read: nothing to
    /// restore then).
    fn capture() -> CookedMode {
        CookedMode(rustix::termios::tcgetattr(std::io::stdin()).ok())
    }

    /// Puts them back. A terminal that hung up (SIGHUP) refuses, and then no one needs them.
    fn restore(&self) {
        if let Some(modes) = &self.0 {
            let _ = rustix::termios::tcsetattr(
                std::io::stdin(),
                rustix::termios::OptionalActions::Now,
                modes,
            );
        }
    }
}

/// What the editor's read gave, the line kept in the history.
fn edited(
    editor: &mut Editor<(), FileHistory>,
    history: Option<&Path>,
    line: Result<String, ReadlineError>,
) -> Result<Line, String> {
    match line {
        Ok(line) => {
            if !line.trim().is_empty() {
                let _ = editor.add_history_entry(line.as_str());
                // Saved per line: a chat that is killed keeps what was typed.
                if let Some(history) = history {
                    let _ = editor.save_history(history);
                }
            }
            Ok(Line::Text(line))
        }
        Err(ReadlineError::Interrupted) => Ok(Line::Interrupted),
        Err(ReadlineError::Eof) => Ok(Line::End),
        Err(err) => Err(format!("cannot read from the terminal: {err}")),
    }
}

/// Creates `path` readable by its owner only, if it is missing.
fn create_private(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path).map(drop)
}
