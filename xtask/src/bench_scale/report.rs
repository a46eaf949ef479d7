//! What `cargo xtask bench scale` measured, the targets it holds the numbers to, and the
//! table it prints.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// Memory per in-flight turn the concurrency bench allows, in KiB.
pub const MAX_KB_PER_TURN: f64 = 200.0;
/// CPU of N concurrent turns may be at most this many times N sequential turns' CPU.
pub const MAX_CPU_FACTOR: f64 = 2.0;
/// The 1 MB stream may take at most this many times the 100 KB stream's time.
pub const MAX_STREAM_RATIO: f64 = 11.0;
/// RSS after the last long-run turn may exceed RSS after the tenth of them by this share.
pub const MAX_LONG_RUN_GROWTH: f64 = 0.10;

/// Every benchmark's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleReport {
    /// `--quick`: every count scaled down 10×.
    pub quick: bool,
    /// Benchmark 3: a 100 000-entry session.
    pub session: SessionScale,
    /// Benchmark 4: 1 000 concurrent turns.
    pub concurrency: Concurrency,
    /// Benchmark 5: a 1 MB reply in 1-byte deltas.
    pub stream: StreamScale,
    /// Benchmark 6: 2 000 turns in one session.
    pub long_run: LongRun,
}

/// A session of many entries: written, opened, rebuilt, then one more turn on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionScale {
    /// Entries written (messages and the compactions among them).
    pub entries: u64,
    /// The transcript's size in bytes.
    pub file_bytes: u64,
    /// Seconds to append all entries.
    pub write_s: f64,
    /// Milliseconds to open the transcript.
    pub open_ms: f64,
    /// Milliseconds to rebuild its context.
    pub rebuild_ms: f64,
    /// Messages in the rebuilt context.
    pub context_messages: u64,
    /// RSS with the opened transcript and its context held, KiB.
    pub rss_open_kb: u64,
    /// Milliseconds of one more turn on the session through the runner.
    pub turn_ms: f64,
    /// Peak RSS of the process, KiB.
    pub peak_rss_kb: u64,
    /// Whether the turn answered as scripted.
    pub turn_ok: bool,
}

/// Many turns at once on as many session keys, each with a `read` tool round trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Concurrency {
    /// Concurrent turns.
    pub turns: u64,
    /// Turns that failed or answered something else.
    pub errors: u64,
    /// Wall seconds of all turns.
    pub wall_s: f64,
    /// CPU seconds of all turns.
    pub cpu_s: f64,
    /// CPU milliseconds of one turn, averaged over sequential turns in the same process.
    pub one_turn_cpu_ms: f64,
    /// Sequential turns that average was taken over.
    pub sequential_turns: u64,
    /// RSS before the turns started, KiB.
    pub baseline_rss_kb: u64,
    /// Peak RSS while they ran, KiB.
    pub peak_rss_kb: u64,
    /// Most turns in flight at one moment.
    pub max_in_flight: u64,
}

impl Concurrency {
    /// `(peak − baseline) / turns`, KiB.
    pub fn kb_per_turn(&self) -> f64 {
        self.peak_rss_kb.saturating_sub(self.baseline_rss_kb) as f64 / self.turns.max(1) as f64
    }

    /// CPU of the concurrent turns over `turns × one turn's CPU`.
    pub fn cpu_factor(&self) -> f64 {
        let sequential = self.one_turn_cpu_ms / 1000.0 * self.turns as f64;
        if sequential > 0.0 {
            self.cpu_s / sequential
        } else {
            f64::INFINITY
        }
    }
}

/// One streamed reply, provider to transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamRun {
    /// Reply bytes (one delta each).
    pub bytes: u64,
    /// Seconds of the whole turn.
    pub seconds: f64,
    /// Block replies delivered.
    pub blocks: u64,
    /// Bytes of block-reply text delivered.
    pub block_bytes: u64,
    /// Whether the reply text and the transcript hold all bytes.
    pub complete: bool,
}

impl StreamRun {
    /// Reply bytes per second.
    pub fn bytes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// A small and a 10× larger streamed reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamScale {
    /// The small reply.
    pub small: StreamRun,
    /// The large reply.
    pub large: StreamRun,
}

impl StreamScale {
    /// Large time over small time.
    pub fn ratio(&self) -> f64 {
        if self.small.seconds > 0.0 {
            self.large.seconds / self.small.seconds
        } else {
            f64::INFINITY
        }
    }
}

/// Many turns of one session with compactions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LongRun {
    /// Turns run.
    pub turns: u64,
    /// Turns that failed.
    pub errors: u64,
    /// Compactions the turns reported.
    pub compactions: u64,
    /// The turn after which the first RSS sample is taken (a tenth of the turns).
    pub early_turn: u64,
    /// RSS after the early turn, KiB.
    pub rss_early_kb: u64,
    /// RSS after the last turn, KiB.
    pub rss_end_kb: u64,
    /// Mean milliseconds per turn of the tenth of turns up to the early turn.
    pub early_turn_ms: f64,
    /// Mean milliseconds per turn of the last tenth of turns.
    pub late_turn_ms: f64,
    /// Wall seconds of all turns.
    pub wall_s: f64,
    /// The transcript's size at the end, bytes.
    pub file_bytes: u64,
}

impl LongRun {
    /// `(end − early) / early`.
    pub fn rss_growth(&self) -> f64 {
        if self.rss_early_kb == 0 {
            return f64::INFINITY;
        }
        (self.rss_end_kb as f64 - self.rss_early_kb as f64) / self.rss_early_kb as f64
    }
}

/// One target and whether it was met.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What is checked.
    pub target: String,
    /// The measured value.
    pub measured: String,
    /// Whether it holds.
    pub ok: bool,
}

impl ScaleReport {
    /// The targets of issue 14 against the measured numbers.
    pub fn verdicts(&self) -> Vec<Verdict> {
        let c = &self.concurrency;
        let s = &self.stream;
        let l = &self.long_run;
        vec![
            Verdict {
                target: "session: one more turn answers".to_owned(),
                measured: format!("{}", self.session.turn_ok),
                ok: self.session.turn_ok,
            },
            Verdict {
                target: "concurrency: no error".to_owned(),
                measured: format!("{} of {}", c.errors, c.turns),
                ok: c.errors == 0,
            },
            Verdict {
                target: format!("concurrency: ≤ {MAX_KB_PER_TURN} KB per in-flight turn"),
                measured: format!("{:.1} KB", c.kb_per_turn()),
                ok: c.kb_per_turn() <= MAX_KB_PER_TURN,
            },
            Verdict {
                target: format!("concurrency: CPU ≤ {MAX_CPU_FACTOR}× sequential"),
                measured: format!("{:.2}×", c.cpu_factor()),
                ok: c.cpu_factor() <= MAX_CPU_FACTOR,
            },
            Verdict {
                target: "stream: every byte delivered".to_owned(),
                measured: format!("{} / {}", s.small.complete, s.large.complete),
                ok: s.small.complete && s.large.complete,
            },
            Verdict {
                target: format!("stream: 10× bytes ≤ {MAX_STREAM_RATIO}× time"),
                measured: format!("{:.2}×", s.ratio()),
                ok: s.ratio() <= MAX_STREAM_RATIO,
            },
            Verdict {
                target: "long run: no error, compactions happen".to_owned(),
                measured: format!("{} errors, {} compactions", l.errors, l.compactions),
                ok: l.errors == 0 && l.compactions > 0,
            },
            Verdict {
                target: format!(
                    "long run: RSS growth ≤ {:.0} %",
                    MAX_LONG_RUN_GROWTH * 100.0
                ),
                measured: format!("{:+.1} %", l.rss_growth() * 100.0),
                ok: l.rss_growth() <= MAX_LONG_RUN_GROWTH,
            },
        ]
    }

    /// Whether every target holds.
    pub fn passed(&self) -> bool {
        self.verdicts().iter().all(|v| v.ok)
    }
}

/// The report as a plain-text table: the numbers, then the targets.
pub fn render_table(report: &ScaleReport) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |name: &str, value: String| rows.push((name.to_owned(), value));
    let s = &report.session;
    row("session: entries", s.entries.to_string());
    row(
        "session: file size",
        format!("{:.1} MB", s.file_bytes as f64 / 1e6),
    );
    row("session: write all entries", format!("{:.2} s", s.write_s));
    row("session: open", format!("{:.1} ms", s.open_ms));
    row(
        "session: rebuild context",
        format!("{:.2} ms ({} messages)", s.rebuild_ms, s.context_messages),
    );
    row("session: RSS after open", kb(s.rss_open_kb));
    row("session: one more turn", format!("{:.1} ms", s.turn_ms));
    row("session: peak RSS", kb(s.peak_rss_kb));
    let c = &report.concurrency;
    row(
        "concurrency: turns",
        format!("{} (max {} in flight)", c.turns, c.max_in_flight),
    );
    row("concurrency: wall", format!("{:.2} s", c.wall_s));
    row("concurrency: CPU", format!("{:.2} s", c.cpu_s));
    row(
        "concurrency: one turn's CPU",
        format!(
            "{:.2} ms (mean of {})",
            c.one_turn_cpu_ms, c.sequential_turns
        ),
    );
    row("concurrency: baseline RSS", kb(c.baseline_rss_kb));
    row("concurrency: peak RSS", kb(c.peak_rss_kb));
    row(
        "concurrency: per in-flight turn",
        format!("{:.1} KB", c.kb_per_turn()),
    );
    for run in [&report.stream.small, &report.stream.large] {
        row(
            &format!("stream: {} KB reply", run.bytes / 1024),
            format!(
                "{:.2} s, {:.2} MB/s, {} blocks",
                run.seconds,
                run.bytes_per_second() / 1e6,
                run.blocks
            ),
        );
    }
    row(
        "stream: time ratio",
        format!("{:.2}×", report.stream.ratio()),
    );
    let l = &report.long_run;
    row(
        "long run: turns",
        format!(
            "{} ({} compactions, {:.1} s)",
            l.turns, l.compactions, l.wall_s
        ),
    );
    row(
        &format!("long run: RSS after turn {}", l.early_turn),
        kb(l.rss_early_kb),
    );
    row(
        &format!("long run: RSS after turn {}", l.turns),
        kb(l.rss_end_kb),
    );
    row(
        "long run: ms per turn early/late",
        format!("{:.2} / {:.2}", l.early_turn_ms, l.late_turn_ms),
    );
    row(
        "long run: transcript size",
        format!("{:.1} MB", l.file_bytes as f64 / 1e6),
    );

    let width = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (name, value) in &rows {
        let _ = writeln!(out, "{name:<width$}  {value}");
    }
    out.push('\n');
    for v in report.verdicts() {
        let mark = if v.ok { "ok  " } else { "MISS" };
        let _ = writeln!(out, "{mark} {} — {}", v.target, v.measured);
    }
    out
}

fn kb(value: u64) -> String {
    format!("{:.1} MB", value as f64 / 1024.0)
}
