//! The signals that stop a turn cleanly: Ctrl-C (SIGINT), SIGTERM (`timeout`, CI runners,
//! `kill`) and SIGHUP (a closed terminal). Each cancels the turn as Ctrl-C does, so the runner
//! pairs a running tool call with its result and the bash tool kills its process group; the
//! process then exits 128 + the signal's number.
//!
//! Once a signal is watched the process handles it itself for the rest of its life (the
//! runtime never restores the default action): a command that waits between turns (`chat`'s
//! prompt) must keep listening with [`StopSignals`].

use std::sync::{Arc, OnceLock};

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A signal that stops the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP.
    Hangup,
}

impl Stop {
    /// The exit code after it: 128 + the signal's number.
    pub fn exit_code(self) -> u8 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
            Stop::Hangup => 129,
        }
    }

    /// What the user reads on stderr.
    pub fn message(self) -> &'static str {
        match self {
            Stop::Interrupt => "interrupted",
            Stop::Terminate => "terminated (SIGTERM)",
            Stop::Hangup => "the terminal hung up (SIGHUP)",
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP, watched from [`StopSignals::register`] on: a signal that
/// arrives before [`StopSignals::next`] is polled still counts.
#[derive(Debug)]
pub struct StopSignals {
    interrupt: Option<Signal>,
    terminate: Option<Signal>,
    hangup: Option<Signal>,
}

impl StopSignals {
    /// Starts watching (on the current runtime). A signal that cannot be watched is left to
    /// its default action, and the others still count.
    pub fn register() -> StopSignals {
        StopSignals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// SIGTERM and SIGHUP only, for a command that answers Ctrl-C itself (`chat`): an
    /// interrupt nobody polls for would otherwise surface later as a stale stop.
    pub fn register_terminations() -> StopSignals {
        StopSignals {
            interrupt: None,
            terminate: signal(SignalKind::terminate()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// Waits for the next of them.
    pub async fn next(&mut self) -> Stop {
        tokio::select! {
            () = recv(&mut self.interrupt) => Stop::Interrupt,
            () = recv(&mut self.terminate) => Stop::Terminate,
            () = recv(&mut self.hangup) => Stop::Hangup,
        }
    }
}

async fn recv(stream: &mut Option<Signal>) {
    if let Some(stream) = stream
        && stream.recv().await.is_some()
    {
        return;
    }
    // Not watched, or the runtime is shutting down: never.
    std::future::pending().await
}

/// Cancels a turn's token on the first stop signal, for as long as it lives.
#[derive(Debug)]
pub struct StopWatch {
    received: Arc<OnceLock<Stop>>,
    task: JoinHandle<()>,
}

impl StopWatch {
    /// Starts watching (on the current runtime): the first stop signal cancels `cancel`.
    pub fn start(cancel: CancellationToken) -> StopWatch {
        let received = Arc::new(OnceLock::new());
        let task = {
            let received = Arc::clone(&received);
            let mut signals = StopSignals::register();
            tokio::spawn(async move {
                let stop = signals.next().await;
                let _ = received.set(stop);
                cancel.cancel();
            })
        };
        StopWatch { received, task }
    }

    /// The signal that cancelled the turn, if one did.
    pub fn received(&self) -> Option<Stop> {
        self.received.get().copied()
    }
}

impl Drop for StopWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn exit_codes_are_128_plus_the_signal() {
        let codes: Vec<u8> = [Stop::Interrupt, Stop::Terminate, Stop::Hangup]
            .into_iter()
            .map(Stop::exit_code)
            .collect();
        assert_eq!(codes, [130, 143, 129]);
    }
}
