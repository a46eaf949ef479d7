//! The measured process of `cargo xtask bench scale` (the `scale_probe` example): the probes
//! and the provider rule, which use the dev-dependency `clawloop-testkit` (SPEC §1). The lib's
//! `xtask::bench_scale` is re-exported here, so `super::…` paths reach its modules.

pub mod probe;
pub mod rule;

pub use xtask::bench_scale::*;

/// `value` as one line of JSON.
fn json<T: serde::Serialize>(value: Result<T, String>) -> Result<String, String> {
    value.and_then(|v| serde_json::to_string(&v).map_err(|e| e.to_string()))
}

/// The probe process's `main`: `serve`, or one benchmark printing its numbers as JSON.
/// Returns the exit status.
pub fn probe_main(args: &[String]) -> u8 {
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_default();
    // Each mode runs on the runtime of what it stands for: the long run is a `clawloop chat`,
    // on the runner's single-session runtime (see its documentation for what that does to
    // memory); the others are an embedder's process (a gateway), on worker threads.
    let runtime = if arg(0) == "long-run" {
        clawloop_runner::turn::single_session_runtime()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("scale_probe: cannot start the tokio runtime: {e}");
            return 1;
        }
    };
    let number = |i: usize| -> Result<usize, String> {
        arg(i)
            .parse()
            .map_err(|_| format!("argument {i} must be a number, got {:?}", arg(i)))
    };
    let result: Result<String, String> = runtime.block_on(async {
        match arg(0) {
            "serve" => probe::serve().await.map(|()| String::new()),
            "session" => json(probe::session_scale(arg(1), number(2)?).await),
            "concurrency" => {
                json(probe::concurrency(arg(1), number(2)?, number(3)?, number(4)? as u64).await)
            }
            "stream" => json(probe::stream(arg(1), number(2)?).await),
            "long-run" => json(probe::long_run(arg(1), number(2)?).await),
            other => Err(format!(
                "unknown mode {other:?} (serve, session, concurrency, stream, long-run)"
            )),
        }
    });
    match result {
        Ok(out) => {
            if !out.is_empty() {
                println!("{out}");
            }
            0
        }
        Err(e) => {
            eprintln!("scale_probe: {e}");
            1
        }
    }
}
