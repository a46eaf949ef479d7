//! Running one case so that a panic in the code under test fails that case instead of the run.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    /// The message and location of the last panic on this thread, set by the quiet hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs a panic hook that records panics instead of printing them; the returned guard
/// restores the previous hook.
pub fn quiet_panics() -> HookGuard {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let message = payload_text(info.payload());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{at}")));
    }));
    HookGuard {
        previous: Some(previous),
    }
}

type Hook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Restores the previous panic hook when dropped.
pub struct HookGuard {
    previous: Option<Hook>,
}

impl Drop for HookGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            panic::set_hook(previous);
        }
    }
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// Runs `f`, turning a panic into `Err("panicked: …")`.
pub fn run_isolated<F: FnOnce() -> Result<(), String>>(f: F) -> Result<(), String> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
            Err(format!(
                "panicked: {}",
                recorded.unwrap_or_else(|| payload_text(payload.as_ref()))
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors() {
        let _guard = quiet_panics();
        let err = run_isolated(|| panic!("boom {}", 7)).unwrap_err();
        assert!(err.starts_with("panicked: boom 7"), "{err}");
        assert_eq!(run_isolated(|| Ok(())), Ok(()));
        assert_eq!(run_isolated(|| Err("x".into())), Err("x".to_owned()));
    }
}
