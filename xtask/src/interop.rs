//! `cargo xtask interop [--pi-dir DIR] [--install] [--keep]`: what it is asked to do. The check
//! itself runs in the `harness` example (`xtask/harness/interop/`), which may use the
//! dev-dependency `clawloop-testkit` (SPEC §1).

use std::path::PathBuf;

/// What `cargo xtask interop` was asked to do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The npm prefix holding `node_modules/@mariozechner/pi-coding-agent`; default
    /// `interop-node` in the target directory.
    pub pi_dir: Option<PathBuf>,
    /// Run `npm install --prefix <pi dir> @mariozechner/pi-coding-agent@0.58.3` first.
    pub install: bool,
    /// Keep the session files (and pi's reports) even when everything agrees.
    pub keep: bool,
}
