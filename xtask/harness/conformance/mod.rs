//! `cargo xtask conformance`: runs FORMAT.md scenario files against the real crates. The
//! format is the lib's (`xtask::conformance`, re-exported here so `crate::conformance::…` and
//! `super::…` paths of the kind runners resolve to it); the kind runners are here because two
//! of them drive the dev-dependency `clawloop-testkit` (SPEC §1).

pub mod kinds;

pub use xtask::conformance::*;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use self::kind::Kind;
use self::report::{Outcome, Reporter};

/// Runs the scenarios selected by `opts`, writing lines to `out`.
pub fn run(opts: &Options, out: impl Write) -> io::Result<Exit> {
    let dirs = if opts.dirs.is_empty() {
        discover::default_dirs()
    } else {
        opts.dirs.clone()
    };
    let mut reporter = Reporter::new(out, opts.json);
    let mut unusable = false;
    let _quiet = isolate::quiet_panics();
    for dir in &dirs {
        let files = match discover::walk(dir) {
            Ok(files) => files,
            Err(err) => {
                unusable = true;
                reporter.record(&file_failure(dir, err))?;
                continue;
            }
        };
        for found in files {
            unusable |= run_file(&found.path, opts, &mut reporter)?;
        }
    }
    reporter.finish()?;
    Ok(if unusable {
        Exit::Unusable
    } else if reporter.failed > 0 {
        Exit::Failed
    } else {
        Exit::Passed
    })
}

fn file_failure(path: &Path, error: String) -> Outcome {
    Outcome {
        file: path.display().to_string(),
        name: None,
        error: Some(error),
    }
}

/// Runs the cases of one file; returns whether the file itself was unusable.
fn run_file<W: Write>(path: &Path, opts: &Options, reporter: &mut Reporter<W>) -> io::Result<bool> {
    let file = path.display().to_string();
    let loaded = match load::load(path) {
        Ok(loaded) => loaded,
        Err(err) => {
            // A broken file is reported unless --filter clearly aims elsewhere.
            if opts
                .filter
                .as_ref()
                .is_none_or(|f| file.contains(f.as_str()))
            {
                reporter.record(&file_failure(path, err))?;
                return Ok(true);
            }
            return Ok(false);
        }
    };
    let base_dir = path.parent().unwrap_or(Path::new("."));
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, raw) in loaded.cases.iter().enumerate() {
        let name = match scenario::raw_name(raw) {
            Some(n) => n.to_owned(),
            None if loaded.wrapped => format!("cases[{index}]"),
            None => "(unnamed)".to_owned(),
        };
        if !selected(opts, raw, &file, &name) {
            continue;
        }
        let error = match seen.get(&name) {
            Some(first) => Some(format!("duplicate name {name:?} (also cases[{first}])")),
            None => {
                seen.insert(name.clone(), index);
                run_case(raw, base_dir).err()
            }
        };
        reporter.record(&Outcome {
            file: file.clone(),
            name: Some(name),
            error,
        })?;
    }
    Ok(false)
}

fn selected(opts: &Options, raw: &serde_json::Value, file: &str, name: &str) -> bool {
    let kind_ok = match &opts.kinds {
        None => true,
        Some(kinds) => scenario::raw_kind(raw)
            .and_then(|k| k.parse::<Kind>().ok())
            .is_some_and(|k| kinds.contains(&k)),
    };
    let filter_ok = opts
        .filter
        .as_ref()
        .is_none_or(|f| format!("{file}#{name}").contains(f.as_str()));
    kind_ok && filter_ok
}

/// Parses and runs one case: a parse error is reported before "not implemented".
fn run_case(raw: &serde_json::Value, base_dir: &Path) -> Result<(), String> {
    let case = scenario::parse_case(raw, base_dir).map_err(|e| e.to_string())?;
    let Some(runner) = kinds::runner_for(case.kind) else {
        return Err(format!("kind {} is not implemented yet", case.kind));
    };
    isolate::run_isolated(|| runner(&case))
}
