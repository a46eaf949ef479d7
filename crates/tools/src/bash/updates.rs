//! The partial results of a running command, throttled and bounded: a command can write
//! hundreds of megabytes in thousands of reads, and a partial result per read (each carrying
//! the whole tail) made a `--json` consumer receive more than the output itself. The first
//! output is reported at once, later output at most every [`UPDATE_INTERVAL`], the last of it
//! before the result; each report carries at most [`UPDATE_TAIL_BYTES`] of the tail.

use std::time::{Duration, Instant};

use clawloop_core::tool::ToolUpdate;

use super::output::OutputLog;
use super::partial_result;
use crate::truncate::TruncationOptions;

/// The shortest time between two partial results.
pub const UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// The most tail bytes one partial result carries (a live view; the result has the full tail).
pub const UPDATE_TAIL_BYTES: usize = 8 * 1024;

/// Reports output as it arrives, throttled.
pub(crate) struct Updates {
    on_update: ToolUpdate,
    options: TruncationOptions,
    last: Option<Instant>,
    /// Output arrived since the last report.
    pending: bool,
}

impl Updates {
    /// Reports through `on_update`, with the tail cut to the smaller of `options` and
    /// [`UPDATE_TAIL_BYTES`].
    pub(crate) fn new(on_update: ToolUpdate, options: TruncationOptions) -> Self {
        let options = TruncationOptions {
            max_bytes: options.max_bytes.min(UPDATE_TAIL_BYTES),
            ..options
        };
        Updates {
            on_update,
            options,
            last: None,
            pending: false,
        }
    }

    /// New output is in `log`: reported now when the last report is old enough, else held
    /// until [`due_at`](Self::due_at).
    pub(crate) fn output(&mut self, log: &OutputLog) {
        self.pending = true;
        if self.due_at().is_some_and(|due| due <= Instant::now()) {
            self.send(log);
        }
    }

    /// When held-back output is to be reported, if any is.
    pub(crate) fn due_at(&self) -> Option<Instant> {
        if !self.pending {
            return None;
        }
        Some(
            self.last
                .map_or_else(Instant::now, |last| last + UPDATE_INTERVAL),
        )
    }

    /// Reports held-back output now (its time came, or the command is done).
    pub(crate) fn flush(&mut self, log: &OutputLog) {
        if self.pending {
            self.send(log);
        }
    }

    fn send(&mut self, log: &OutputLog) {
        self.pending = false;
        self.last = Some(Instant::now());
        (self.on_update)(partial_result(log, self.options));
    }
}
