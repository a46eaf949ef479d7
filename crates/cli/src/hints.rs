//! What the user can do about a failed turn, printed under the runner's own text: the runner's
//! copy is OpenClaw's and stays exact; the CLI knows the environment and its own commands.

use clawloop_core::error_text::no_api_key_resolved_message;
use clawloop_providers::api_key::provider_env_key;
use clawloop_runner::auth::cooldown::CooldownEnd;

use crate::auth::format_local_ms;
use crate::turn_driver::TurnOutcome;

/// The one-sentence hints for a failed turn, when the CLI knows a fix: from the runner's
/// typed facts first, then from its text.
pub fn turn_hints(outcome: &TurnOutcome, now_ms: u64) -> Vec<String> {
    let failure = outcome.failure.as_deref().unwrap_or_default();
    outcome
        .cooling_down
        .as_ref()
        .map(|end| cooldown_hint(end, now_ms))
        .into_iter()
        .chain(failure_hint(failure))
        .collect()
}

/// Until when a resting profile rests, in local time and from now, and the command that ends
/// the rest at once.
fn cooldown_hint(end: &CooldownEnd, now_ms: u64) -> String {
    let profile = &end.profile_id;
    // Epoch milliseconds stay far below 2^53, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let until = format_local_ms(end.until_ms as f64);
    let left = remaining(end.until_ms.saturating_sub(now_ms));
    format!(
        "auth profile {profile} is cooling down until {until} (in {left}); to use it now, run `clawloop auth reset {profile}`"
    )
}

/// `4m 10s`, `45s`, `2h 5m`: the wait rounded up to the unit shown last, so it never says 0s
/// while the profile still rests.
fn remaining(ms: u64) -> String {
    let seconds = ms.div_ceil(1000).max(1);
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m {}s", seconds / 60, seconds % 60),
        _ => {
            let minutes = seconds.div_ceil(60);
            format!("{}h {}m", minutes / 60, minutes % 60)
        }
    }
}

/// A one-sentence hint for a failure text, when the CLI knows a fix.
fn failure_hint(failure: &str) -> Option<String> {
    let provider = missing_key_provider(failure)?;
    Some(match provider_env_key(provider) {
        Some(variable) => format!(
            "no key for {provider}: set {variable} in the environment, or add one with `clawloop auth add {provider}`"
        ),
        None => format!(
            "no key for {provider}: set `apiKey` under [models.providers.{provider}] in config.toml, or add one with `clawloop auth add {provider}`"
        ),
    })
}

/// The provider named by the runner's "no API key" text inside `failure`.
fn missing_key_provider(failure: &str) -> Option<&str> {
    // The prefix comes from the runner's own message, so the two cannot drift apart.
    let template = no_api_key_resolved_message("\u{0}", "");
    let prefix = template.split('\u{0}').next()?;
    let start = failure.find(prefix)? + prefix.len();
    let rest = &failure[start..];
    let end = rest.find('"')?;
    Some(&rest[..end]).filter(|provider| !provider.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn hints_name_the_variable_or_the_config_key() {
        let cases = [
            (
                "⚠️ Agent failed before reply: No API key resolved for provider \"openai\" (auth mode: api_key).\nLogs: clawloop logs --follow",
                Some(
                    "no key for openai: set OPENAI_API_KEY in the environment, or add one with `clawloop auth add openai`",
                ),
            ),
            (
                "No API key resolved for provider \"acme\" (auth mode: api_key).",
                Some(
                    "no key for acme: set `apiKey` under [models.providers.acme] in config.toml, or add one with `clawloop auth add acme`",
                ),
            ),
            (
                "⚠️ Context overflow — prompt too large for this model.",
                None,
            ),
            ("No API key resolved for provider \"", None),
        ];
        for (failure, want) in cases {
            assert_eq!(failure_hint(failure).as_deref(), want, "{failure}");
        }
    }

    #[test]
    fn the_wait_is_rounded_up_to_the_unit_shown_last() {
        let cases = [
            (0, "1s"),
            (1, "1s"),
            (45_000, "45s"),
            (59_001, "1m 0s"),
            (250_000, "4m 10s"),
            (3_599_000, "59m 59s"),
            (3_600_000, "1h 0m"),
            (7_500_001, "2h 6m"),
        ];
        for (ms, want) in cases {
            assert_eq!(remaining(ms), want, "{ms}");
        }
    }

    #[test]
    fn a_resting_profile_comes_before_the_text_hints() {
        let outcome = TurnOutcome {
            session_id: None,
            reply: String::new(),
            failure: Some(
                "No API key resolved for provider \"acme\" (auth mode: api_key).".to_owned(),
            ),
            warnings: Vec::new(),
            interrupted: false,
            stats: crate::render::summary::TurnStats::default(),
            cooling_down: Some(CooldownEnd {
                profile_id: "acme:work".to_owned(),
                until_ms: 1_700_000_250_000,
            }),
        };
        let hints = turn_hints(&outcome, 1_700_000_000_000);
        assert_eq!(hints.len(), 2, "{hints:?}");
        assert!(
            hints[0].starts_with("auth profile acme:work is cooling down until 2023-11-1")
                && hints[0]
                    .ends_with(" (in 4m 10s); to use it now, run `clawloop auth reset acme:work`"),
            "{hints:?}"
        );
        assert!(hints[1].starts_with("no key for acme"), "{hints:?}");
    }
}
