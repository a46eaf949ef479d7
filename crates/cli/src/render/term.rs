//! The terminal both output streams share: one lock around stdout and stderr, so the spinner
//! is always erased before a line is written and never lands inside one. What goes to a
//! terminal is [neutralized](super::sanitize): the only escape sequences it gets are clawloop's
//! own styling; piped output is written byte for byte.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use anstyle::{AnsiColor, Style};

use super::sanitize::neutralize;

/// The spinner's frames (braille dots: one cell wide on every terminal that shows them).
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// What the output streams are and what may be written to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TermCaps {
    /// Escape codes for colors on stdout.
    pub stdout_color: bool,
    /// Escape codes for colors on stderr.
    pub stderr_color: bool,
    /// The spinner on stderr: only when stderr is a terminal.
    pub spinner: bool,
    /// stdout is a terminal: control characters in text written there are shown visibly.
    pub stdout_tty: bool,
    /// stderr is a terminal: the same for text written there.
    pub stderr_tty: bool,
}

impl TermCaps {
    /// The capabilities of this process's streams: colors only on a terminal and only when
    /// `NO_COLOR` is unset (or empty, as no-color.org says); the spinner on a terminal.
    pub fn detect() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let stdout_tty = std::io::stdout().is_terminal();
        let stderr_tty = std::io::stderr().is_terminal();
        TermCaps {
            stdout_color: stdout_tty && !no_color,
            stderr_color: stderr_tty && !no_color,
            spinner: stderr_tty,
            stdout_tty,
            stderr_tty,
        }
    }
}

/// A spinner shown at the start of the stderr line while the turn waits.
#[derive(Debug)]
struct Spinner {
    label: &'static str,
    frame: usize,
    /// Columns the drawn spinner occupies; 0 when nothing is drawn.
    drawn: usize,
}

#[derive(Debug, Default)]
struct TermState {
    spinner: Option<Spinner>,
}

/// Shared writer of stdout and stderr lines.
#[derive(Debug, Clone)]
pub struct Term {
    caps: TermCaps,
    state: Arc<Mutex<TermState>>,
}

impl Term {
    /// A writer with these capabilities.
    pub fn new(caps: TermCaps) -> Self {
        Term {
            caps,
            state: Arc::new(Mutex::new(TermState::default())),
        }
    }

    fn lock(&self) -> MutexGuard<'_, TermState> {
        // A panic while writing leaves nothing half-updated that matters: keep going.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes `text` and a newline to stdout, after erasing the spinner.
    pub fn out_line(&self, text: &str) {
        let mut state = self.lock();
        erase(&mut state);
        let text = self.shown_out(text);
        let mut out = std::io::stdout().lock();
        // A closed stdout (`| head`) must not abort the turn: the transcript still matters.
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }

    /// Writes `text` as it is (no newline) to stdout, after erasing the spinner: a piece of a
    /// streamed reply.
    pub fn out_text(&self, text: &str) {
        let mut state = self.lock();
        erase(&mut state);
        let text = self.shown_out(text);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    }

    /// `text` as stdout may show it: neutralized on a terminal, unchanged otherwise.
    pub fn shown_out<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.caps.stdout_tty {
            neutralize(text)
        } else {
            Cow::Borrowed(text)
        }
    }

    /// `text` as stderr may show it: neutralized on a terminal, unchanged otherwise. Lines
    /// for [`Term::err_line`] are built from such pieces and clawloop's own styling.
    pub fn shown_err<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.caps.stderr_tty {
            neutralize(text)
        } else {
            Cow::Borrowed(text)
        }
    }

    /// Writes `text` and a newline to stderr, after erasing the spinner. `text` is written as
    /// it is: it may hold clawloop's styling; what came from elsewhere went through
    /// [`Term::shown_err`].
    pub fn err_line(&self, text: &str) {
        let mut state = self.lock();
        erase(&mut state);
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}").and_then(|()| err.flush());
    }

    /// Writes `text` as it is (no newline) to stderr, after erasing the spinner: a question
    /// the answer follows on the same line. Like [`Term::err_line`], `text` is trusted.
    pub fn err_text(&self, text: &str) {
        let mut state = self.lock();
        erase(&mut state);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{text}").and_then(|()| err.flush());
    }

    /// `text` in `style` on stderr when colors are on there.
    pub fn paint_err(&self, style: Style, text: &str) -> String {
        paint(self.caps.stderr_color, style, text)
    }

    /// Shows the spinner with `label` from the next tick on (a no-op off a terminal).
    pub fn spin(&self, label: &'static str) {
        if !self.caps.spinner {
            return;
        }
        let mut state = self.lock();
        match &mut state.spinner {
            Some(spinner) => spinner.label = label,
            None => {
                state.spinner = Some(Spinner {
                    label,
                    frame: 0,
                    drawn: 0,
                })
            }
        }
    }

    /// Hides the spinner now.
    pub fn stop_spin(&self) {
        let mut state = self.lock();
        erase(&mut state);
        state.spinner = None;
    }

    /// Hides the spinner until [`Term::spin`] shows it again; returns its label, if it was
    /// shown (a prompt puts it back after the answer).
    pub fn hide_spin(&self) -> Option<&'static str> {
        let mut state = self.lock();
        erase(&mut state);
        state.spinner.take().map(|spinner| spinner.label)
    }

    /// Draws the spinner's next frame, if it is shown.
    pub fn tick(&self) {
        let color = self.caps.stderr_color;
        let mut state = self.lock();
        let Some(spinner) = state.spinner.as_mut() else {
            return;
        };
        let frame = FRAMES[spinner.frame % FRAMES.len()];
        spinner.frame = spinner.frame.wrapping_add(1);
        let plain = format!("{frame} {}…", spinner.label);
        let width = plain.chars().count();
        let shown = if color {
            paint(
                true,
                Style::new().fg_color(Some(AnsiColor::Cyan.into())),
                &plain,
            )
        } else {
            plain
        };
        // Padding covers a longer previous label; `\r` alone keeps NO_COLOR output free of
        // escape codes.
        let pad = spinner.drawn.saturating_sub(width);
        spinner.drawn = width;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{shown}{:pad$}", "").and_then(|()| err.flush());
    }
}

/// Blanks the spinner's columns and returns the cursor to the line start.
fn erase(state: &mut TermState) {
    if let Some(spinner) = state.spinner.as_mut()
        && spinner.drawn > 0
    {
        let width = spinner.drawn;
        spinner.drawn = 0;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{:width$}\r", "").and_then(|()| err.flush());
    }
}

fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_owned()
    }
}

/// Ticks the spinner every 80 ms until dropped.
#[derive(Debug)]
pub struct SpinnerTask {
    handle: Option<tokio::task::JoinHandle<()>>,
    term: Term,
}

impl SpinnerTask {
    /// Starts ticking `term`'s spinner (no task off a terminal). Must run inside a tokio
    /// runtime.
    pub fn start(term: &Term) -> Self {
        let handle = term.caps.spinner.then(|| {
            // The first frame is drawn now, not by the task: a turn that is quick to answer
            // still shows it was waiting.
            term.tick();
            let term = term.clone();
            tokio::spawn(async move {
                let period = std::time::Duration::from_millis(80);
                let mut every =
                    tokio::time::interval_at(tokio::time::Instant::now() + period, period);
                every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                loop {
                    every.tick().await;
                    term.tick();
                }
            })
        });
        SpinnerTask {
            handle,
            term: term.clone(),
        }
    }
}

impl Drop for SpinnerTask {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.abort();
        }
        self.term.stop_spin();
    }
}
