//! `cargo xtask conformance`: the FORMAT.md scenario format (discovery, loading, parsing,
//! comparison, reporting) and what a run is asked to do. The kind runners and the run itself
//! are in the `harness` example (`xtask/harness/conformance/`): the `run` and `wire` kinds use
//! the dev-dependency `clawloop-testkit` (SPEC §1).

pub mod compare;
pub mod discover;
pub mod isolate;
pub mod kind;
pub mod load;
pub mod report;
pub mod scenario;
pub mod shorthand;
pub mod strict_json;
pub mod summary;
pub mod test_target;

use std::path::PathBuf;

use self::kind::Kind;

/// What to run and how to report it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Scenario directories (or files); empty means the defaults.
    pub dirs: Vec<PathBuf>,
    /// Only these kinds, when given.
    pub kinds: Option<Vec<Kind>>,
    /// Only cases whose `file#name` contains this.
    pub filter: Option<String>,
    /// Also write one JSON object per case.
    pub json: bool,
}

/// How a run ended, as the process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Every case passed.
    Passed = 0,
    /// At least one case failed.
    Failed = 1,
    /// At least one file could not be parsed (or a directory is missing).
    Unusable = 2,
}
