//! What the user can do about a failed turn, printed under the runner's own text: the runner's
//! copy is OpenClaw's and stays exact; the CLI knows the environment and its own commands.

use clawloop_core::error_text::no_api_key_resolved_message;
use clawloop_providers::api_key::provider_env_key;

/// A one-sentence hint for a failure text, when the CLI knows a fix.
pub fn failure_hint(failure: &str) -> Option<String> {
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
}
