//! The doctor's output: one line per finding, `✓` fine, `!` worth a look, `✗` broken; green,
//! yellow and red only on a terminal without `NO_COLOR` (anstream strips the styles otherwise).

use std::io::Write;
use std::process::ExitCode;

use crate::render::sanitize::for_stdout;
use anstyle::{AnsiColor, Style};

/// How a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Fine (or fixed).
    Pass,
    /// Worth a look; does not fail the doctor.
    Warn,
    /// Broken: the doctor exits 1.
    Fail,
}

/// The findings printed so far.
#[derive(Debug, Default)]
pub struct Report {
    failed: bool,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Report::default()
    }

    /// Prints one finding.
    pub fn add(&mut self, status: Status, message: impl AsRef<str>) {
        let (mark, color) = match status {
            Status::Pass => ("✓", AnsiColor::Green),
            Status::Warn => ("!", AnsiColor::Yellow),
            Status::Fail => ("✗", AnsiColor::Red),
        };
        self.failed |= status == Status::Fail;
        let style = Style::new().fg_color(Some(color.into())).bold();
        let mut out = anstream::stdout().lock();
        // A closed stdout (`| head`) must not stop the remaining checks and fixes.
        // Findings quote config values, files and servers.
        let message = for_stdout(message.as_ref());
        let _ = writeln!(out, "{style}{mark}{style:#} {message}");
        let _ = out.flush();
    }

    /// The exit code: 1 when a finding failed, else 0.
    pub fn finish(&self) -> ExitCode {
        if self.failed {
            ExitCode::from(crate::exit_code::EXIT_FAILED)
        } else {
            ExitCode::SUCCESS
        }
    }
}
