//! The runtime: the process-wide state of the runner as one value (SPEC §1). OpenClaw keeps
//! its lanes and run registries in process globals; here a [`Runtime`] owns them, so two
//! runtimes in one process (two embedders, parallel tests) never wait on or see each other.
//!
//! This is the minimal core; the run loop adds the parts it needs (stores, transport) as
//! further fields, each held as `Arc<dyn …>` so an embedder can swap it.
//!
//! ```
//! use clawloop_runner::runtime::Runtime;
//!
//! let runtime = Runtime::builder().max_concurrent(2).build();
//! assert_eq!(runtime.lanes().concurrency("main"), 2);
//! assert_eq!(runtime.active_runs().active_count(), 0);
//! ```

use std::fmt;
use std::sync::Arc;

use clawloop_core::{Clock, SystemClock};

use crate::cli_backend::RunQueue;
use crate::config::Config;
use crate::lanes::{LaneLimits, Lanes};
use crate::registry::{ActiveRuns, RunContexts, SubagentRegistry, SubagentSettings};

/// The runner's shared state. Clones share everything.
#[derive(Clone)]
pub struct Runtime {
    lanes: Lanes,
    active_runs: ActiveRuns,
    run_contexts: RunContexts,
    subagents: SubagentRegistry,
    cli_queue: RunQueue,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("lanes", &self.lanes)
            .field("active_runs", &self.active_runs)
            .field("run_contexts", &self.run_contexts)
            .field("subagents", &self.subagents)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A builder with the system clock and the default lane limits.
    pub fn builder() -> RuntimeBuilder {
        RuntimeBuilder::default()
    }

    /// A runtime for `config`: the `main` lane's concurrency from
    /// `agents.defaults.maxConcurrent`, the system clock.
    pub fn from_config(config: &Config) -> Self {
        Runtime::builder().config(config).build()
    }

    /// The lanes every run and direct compaction is admitted on.
    pub fn lanes(&self) -> &Lanes {
        &self.lanes
    }

    /// The active run of each session.
    pub fn active_runs(&self) -> &ActiveRuns {
        &self.active_runs
    }

    /// The context of each run id.
    pub fn run_contexts(&self) -> &RunContexts {
        &self.run_contexts
    }

    /// The spawned subagent runs, and whether turns may spawn them.
    pub fn subagents(&self) -> &SubagentRegistry {
        &self.subagents
    }

    /// The queue serialized CLI-backend runs of this runtime wait in.
    pub fn cli_queue(&self) -> &RunQueue {
        &self.cli_queue
    }

    /// The clock every timestamp and lane wait reads.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

/// Builds a [`Runtime`].
#[derive(Clone)]
pub struct RuntimeBuilder {
    clock: Arc<dyn Clock>,
    limits: LaneLimits,
    subagents: Option<SubagentSettings>,
}

impl Default for RuntimeBuilder {
    fn default() -> Self {
        RuntimeBuilder {
            clock: Arc::new(SystemClock),
            limits: LaneLimits::default(),
            subagents: None,
        }
    }
}

impl fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeBuilder")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl RuntimeBuilder {
    /// The clock (a [`clawloop_core::ManualClock`] in tests).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Takes the lane limits from `config` (`agents.defaults.maxConcurrent`).
    pub fn config(mut self, config: &Config) -> Self {
        self.limits = LaneLimits::from_defaults(&config.agents.defaults);
        self
    }

    /// All global lane limits at once.
    pub fn lane_limits(mut self, limits: LaneLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The `main` lane's concurrency (1 = one run at a time in the whole runtime).
    pub fn max_concurrent(mut self, max_concurrent: u32) -> Self {
        self.limits.main = max_concurrent;
        self
    }

    /// Offers the `sessions_spawn` tool to turns under `settings` (off by default, so a turn's
    /// tool list is the embedder's own unless it asks for subagents).
    pub fn subagents(mut self, settings: SubagentSettings) -> Self {
        self.subagents = Some(settings);
        self
    }

    /// The runtime.
    pub fn build(self) -> Runtime {
        Runtime {
            lanes: Lanes::new(self.limits, Arc::clone(&self.clock)),
            active_runs: ActiveRuns::new(Arc::clone(&self.clock)),
            run_contexts: RunContexts::new(),
            subagents: SubagentRegistry::new(self.subagents),
            cli_queue: RunQueue::default(),
            clock: self.clock,
        }
    }
}
