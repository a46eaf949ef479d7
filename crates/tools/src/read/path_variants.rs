//! The spellings `read` tries when a path does not exist as written (pi's `resolveReadPath`).
//!
//! macOS names screenshots `Screenshot 2024-01-01 at 10.00.00 AM.png` with a narrow no-break
//! space before `AM`, keeps some names decomposed (NFD), and uses a curly apostrophe in names
//! like `Someone’s file`; a model retyping such a name writes a plain space, composed letters
//! and `'`. The variants below undo each of these, in pi's order.

use std::path::{Path, PathBuf};

use clawloop_core::tool::ToolContext;
use unicode_normalization::UnicodeNormalization;

/// The first variant of `path` that exists and stays inside the workspace (unless the context
/// allows leaving it); `None` when the path exists as written or no variant does.
pub fn existing_variant(ctx: &ToolContext, path: &Path) -> Option<PathBuf> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let nfd: String = text.nfd().collect();
    let candidates = [
        macos_screenshot(text),
        nfd.clone(),
        curly_apostrophe(text),
        curly_apostrophe(&nfd),
    ];
    candidates
        .into_iter()
        .filter(|candidate| candidate != text)
        .map(PathBuf::from)
        .find(|candidate| candidate.exists() && allowed(ctx, candidate))
}

/// pi's `tryMacOSScreenshotPath`: ` AM.`/` PM.` with a narrow no-break space.
fn macos_screenshot(text: &str) -> String {
    text.replace(" AM.", "\u{202F}AM.")
        .replace(" PM.", "\u{202F}PM.")
}

/// pi's `tryCurlyQuoteVariant`: every `'` as U+2019.
fn curly_apostrophe(text: &str) -> String {
    text.replace('\'', "\u{2019}")
}

/// A variant is a different path than the one the workspace check passed, so it is checked
/// again, on its real location (it exists, so symlinks resolve fully).
fn allowed(ctx: &ToolContext, candidate: &Path) -> bool {
    if ctx.limits.allow_outside_workspace {
        return true;
    }
    match (
        std::fs::canonicalize(candidate),
        std::fs::canonicalize(&ctx.workspace_root),
    ) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn variants_are_spelled_like_pi() {
        assert_eq!(
            macos_screenshot("/s/Shot at 1.02.03 PM.png"),
            "/s/Shot at 1.02.03\u{202F}PM.png"
        );
        assert_eq!(curly_apostrophe("/s/Ann's.txt"), "/s/Ann\u{2019}s.txt");
    }
}
