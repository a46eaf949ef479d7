//! Kind runners: one file per kind, registered in [`REGISTRY`].
//!
//! A runner gets a fully parsed [`Case`], computes the actual result with the real crates and
//! compares it with the case's expect. Adding a kind means adding a file and one registry line;
//! `cargo xtask ci` picks the new kind up from here.

mod auth;
mod chunker;
mod classify;
mod guard;
mod history;
mod run;
mod session;
mod subscribe;
mod tags;
mod thinking;
mod truncate;
mod wire;

use super::kind::Kind;
use super::scenario::Case;

/// Runs one case: `Ok` when it passes, `Err(first difference)` otherwise.
pub type Runner = fn(&Case) -> Result<(), String>;

/// Every implemented kind and its runner.
pub const REGISTRY: &[(Kind, Runner)] = &[
    (Kind::Chunker, chunker::run),
    (Kind::Tags, tags::run),
    (Kind::Classify, classify::run),
    (Kind::Thinking, thinking::run),
    (Kind::Guard, guard::run),
    (Kind::History, history::run),
    (Kind::Truncate, truncate::run),
    (Kind::Auth, auth::run),
    (Kind::Subscribe, subscribe::run),
    (Kind::Session, session::run),
    (Kind::Wire, wire::run),
    (Kind::Run, run::run),
];

/// The runner of a kind, if it is implemented.
pub fn runner_for(kind: Kind) -> Option<Runner> {
    REGISTRY.iter().find(|(k, _)| *k == kind).map(|(_, r)| *r)
}

/// The implemented kinds, in FORMAT.md order.
// The conformance test target's selection; the example, which also compiles this, selects by
// its `--kind` flag only.
#[allow(dead_code)]
pub fn implemented_kinds() -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| runner_for(*k).is_some())
        .collect()
}

/// The message for a case whose spec does not belong to the runner it was given (a registry bug).
pub(crate) fn wrong_spec(case: &Case, runner: Kind) -> String {
    format!(
        "internal error: the {runner} runner got a {} case",
        case.kind
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_has_no_duplicates_and_matches_helpers() {
        let kinds = implemented_kinds();
        assert_eq!(kinds.len(), REGISTRY.len());
        assert!(kinds.contains(&Kind::Classify));
        assert!(runner_for(Kind::Session).is_some());
    }
}
