//! The lines `clawloop chat` opens with, as pi and codex show them: the model and thinking
//! level, the session, the workspace, and where the commands are.

use clawloop_core::ThinkLevel;

/// What the banner shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BannerFacts<'a> {
    /// `provider/model` of the next turn.
    pub model: &'a str,
    /// Thinking level of the next turn.
    pub thinking: ThinkLevel,
    /// The session key.
    pub key: &'a str,
    /// The id of the session the key continues; `None` when the first turn starts one.
    pub session_id: Option<&'a str>,
    /// The workspace, as the user would write it (`~` for their home).
    pub workspace: &'a str,
    /// Lines are typed on a terminal: the commands hint is shown.
    pub terminal: bool,
    /// The model's provider, when no credential for it is at hand: the first turn would fail.
    pub missing_key: Option<&'a str>,
}

/// The banner's text, without a trailing newline.
pub fn banner(facts: &BannerFacts<'_>) -> String {
    let session = match facts.session_id {
        Some(id) => format!("session {} · {id}", facts.key),
        None => format!("session {} · new session", facts.key),
    };
    let mut lines = vec![
        format!(
            "clawloop {} · {} · thinking {}",
            env!("CARGO_PKG_VERSION"),
            facts.model,
            facts.thinking
        ),
        session,
        format!("workspace {}", facts.workspace),
    ];
    if let Some(provider) = facts.missing_key {
        lines.push(missing_key_line(provider));
    }
    if facts.terminal {
        lines.push("/help for commands · /model to switch · Ctrl-D to quit".to_owned());
    }
    lines.join("\n")
}

/// The warning for a model whose provider has no credential.
pub fn missing_key_line(provider: &str) -> String {
    format!(
        "no API key for {provider}: run `clawloop auth add {provider}` or set its environment variable"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_banner_names_model_session_and_workspace() {
        let version = env!("CARGO_PKG_VERSION");
        let mut facts = BannerFacts {
            model: "acme/m1",
            thinking: ThinkLevel::High,
            key: "main",
            session_id: Some("0123-abcd"),
            workspace: "~/src/app",
            terminal: true,
            missing_key: None,
        };
        assert_eq!(
            banner(&facts),
            format!(
                "clawloop {version} · acme/m1 · thinking high\nsession main · 0123-abcd\nworkspace ~/src/app\n/help for commands · /model to switch · Ctrl-D to quit"
            )
        );
        facts.session_id = None;
        facts.terminal = false;
        facts.missing_key = Some("acme");
        assert_eq!(
            banner(&facts),
            format!(
                "clawloop {version} · acme/m1 · thinking high\nsession main · new session\nworkspace ~/src/app\nno API key for acme: run `clawloop auth add acme` or set its environment variable"
            )
        );
    }
}
