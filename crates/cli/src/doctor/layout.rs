//! Where the doctor looks: every agent under `<home>/agents/`, its agent dir and its sessions.

use std::path::{Path, PathBuf};

/// `<home>/agents/<agentId>` for every agent directory there, sorted by id.
pub fn agent_roots(home: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(home.join("agents"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    roots.sort();
    roots
}

/// The files in `dir` whose names end with `suffix`, sorted.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.ends_with(suffix))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
