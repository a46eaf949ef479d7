//! Walk benchmarks: `find` and `grep` over a generated tree of 50 000 files in 2 550
//! directories (five levels, `.gitignore` files at two levels), through the tools' public API.
//!
//! `cargo bench -p clawloop-tools --bench walk`. Both calls walk the whole tree: `find`'s
//! pattern matches one file in ten and its limit is above that count, and `grep`'s pattern
//! matches one line in a few files, so neither stops early.

// Benchmark tooling: a failure to set up is reported by panicking.
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::tool::{Tool, ToolContext};
use clawloop_tools::find::FindTool;
use clawloop_tools::grep::GrepTool;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Directories per level below the root (`50 * 50` leaf directories) and files per leaf.
const FANOUT: usize = 50;
const FILES_PER_LEAF: usize = 20;

/// `root/dN/dM/fK.ext`: 2 500 leaves of 20 files, one in ten `.rs`, some ignored by the
/// `.gitignore` files at the root and in every top-level directory.
fn generate(root: &Path) -> usize {
    std::fs::write(root.join(".gitignore"), "*.log\n/d0/\n").unwrap();
    let mut files = 0;
    for top in 0..FANOUT {
        let top_dir = root.join(format!("d{top}"));
        std::fs::create_dir(&top_dir).unwrap();
        std::fs::write(top_dir.join(".gitignore"), "tmp*\n!tmp0.txt\n").unwrap();
        for leaf in 0..FANOUT {
            let leaf_dir = top_dir.join(format!("d{leaf}"));
            std::fs::create_dir(&leaf_dir).unwrap();
            for k in 0..FILES_PER_LEAF {
                let name = match k % 10 {
                    0 => format!("f{k}.rs"),
                    1 => format!("f{k}.log"),
                    2 => format!("tmp{k}.txt"),
                    _ => format!("f{k}.txt"),
                };
                let needle = if leaf == 7 && k == 3 { "needle\n" } else { "" };
                std::fs::write(leaf_dir.join(name), format!("hay {k}\n{needle}hay\n")).unwrap();
                files += 1;
            }
        }
    }
    files
}

fn call(runtime: &tokio::runtime::Runtime, tool: &dyn Tool, ctx: &ToolContext, args: Value) {
    let result = runtime.block_on(tool.execute(
        "bench",
        args,
        ctx,
        CancellationToken::new(),
        Arc::new(|_| {}),
    ));
    black_box(result.unwrap());
}

fn walks(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let files = generate(dir.path());
    eprintln!("walk: {files} files");
    let ctx = ToolContext::new(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (find, grep) = (FindTool::new(), GrepTool::new());
    let find_args = json!({"pattern": "*.rs", "limit": 100_000});
    let grep_args = json!({"pattern": "needle", "limit": 100_000});
    let mut group = c.benchmark_group("walk");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("find_50k", |b| {
        b.iter(|| call(&runtime, &find, &ctx, find_args.clone()))
    });
    group.bench_function("grep_50k", |b| {
        b.iter(|| call(&runtime, &grep, &ctx, grep_args.clone()))
    });
    group.finish();
}

criterion_group!(benches, walks);
criterion_main!(benches);
