//! Every scenario file the project can see (the shared public set and the project's own
//! `conformance/`) must parse into typed cases: a parser gap would otherwise only show up as
//! failures of kinds that are not implemented yet.

// The helpers below are test code too; clippy only exempts `#[test]` functions themselves.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use xtask::conformance::{discover, load, scenario};

fn parse_all(dir: &Path) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut errors = Vec::new();
    for found in discover::walk(dir).unwrap() {
        let file = found.path.display().to_string();
        let loaded = match load::load(&found.path) {
            Ok(l) => l,
            Err(e) => {
                errors.push(format!("{file}: {e}"));
                continue;
            }
        };
        for raw in &loaded.cases {
            count += 1;
            let base = found.path.parent().unwrap();
            if let Err(e) = scenario::parse_case(raw, base) {
                errors.push(format!(
                    "{file}#{}: {e}",
                    scenario::raw_name(raw).unwrap_or("?")
                ));
            }
        }
    }
    (count, errors)
}

#[test]
fn shared_and_project_scenarios_parse() {
    let root = discover::workspace_root();
    let dirs = [
        root.parent().unwrap().join("shared/conformance/scenarios"),
        root.join("conformance"),
    ];
    let mut total = 0;
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        let (count, errors) = parse_all(dir);
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        total += count;
    }
    // The project's own scenarios are always there.
    assert!(total > 0);
}
