//! A stand-alone sandbox helper, for embedders whose binary cannot call
//! `clawloop_sandbox::exec_if_requested()` (pass its path to `LinuxSandbox::with_helper`).

fn main() {
    clawloop_sandbox::exec_if_requested();
    eprintln!("clawloop-sandbox-helper: run only by clawloop's sandbox (`__sandbox-exec`)");
    std::process::exit(2);
}
