//! `cargo xtask soak [--minutes N] [--seed S]`: what it is asked to do. The soak itself runs in
//! the `harness` example (`xtask/harness/soak/`), which may use the dev-dependency
//! `clawloop-testkit` (SPEC §1).

/// `soak` options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// How long to run turns.
    pub minutes: u64,
    /// Seeds faults, prompts and fates.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            minutes: 5,
            seed: 1,
        }
    }
}
