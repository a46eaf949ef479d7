//! Fake agent CLIs for the CLI backend tests: small `/bin/sh` scripts written to a directory
//! that outlives the test process's threads.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

/// Writes each `(name, body)` as an executable `#!/bin/sh` script into a new directory named
/// with `prefix`, and returns the directory. Call it once, before any test spawns a process:
/// a script still open for writing in one thread while another thread forks cannot be
/// executed (ETXTBSY).
pub fn write_scripts(prefix: &str, scripts: &[(&str, &str)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map(tempfile::TempDir::keep)
        .unwrap();
    for (name, body) in scripts {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}
