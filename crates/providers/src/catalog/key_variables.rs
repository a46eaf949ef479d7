//! Which environment variables hold the configured providers' keys: what a sandboxed command
//! must not see, whatever the variables are called (`apiKey = "MY_LLM_CRED"` names one).

use super::config::ModelsConfig;
use crate::api_key::provider_env_keys;

impl ModelsConfig {
    /// Every variable a provider's key may be read from: each configured `apiKey` written as a
    /// variable name (see [`crate::api_key`]: a name is used when the variable is set) and the
    /// built-in providers' conventional variables (`OPENAI_API_KEY`, …), sorted, without
    /// duplicates. A literal key or a `!command` is not a variable and is not listed.
    pub fn api_key_variables(&self) -> Vec<String> {
        let configured = self
            .providers
            .values()
            .filter_map(|provider| provider.api_key.as_deref())
            .filter(|key| is_variable_name(key));
        let conventional = provider_env_keys().iter().map(|(_, variable)| *variable);
        let mut names: Vec<String> = configured.chain(conventional).map(str::to_owned).collect();
        names.sort();
        names.dedup();
        names
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`: what a shell accepts as a variable name.
fn is_variable_name(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn configured_key_variables_and_the_conventional_ones_are_listed() {
        let table: [(&str, Option<&str>, bool); 7] = [
            ("a variable name", Some("MY_LLM_CRED"), true),
            ("a lower-case name", Some("my_cred_2"), true),
            ("a literal key", Some("sk-live-123"), false),
            ("a command", Some("!pass show llm"), false),
            (
                "a dollar form (a literal here)",
                Some("$MY_LLM_CRED"),
                false,
            ),
            ("a leading digit", Some("1KEY"), false),
            ("no apiKey", None, false),
        ];
        for (case, api_key, listed) in table {
            let config: ModelsConfig = serde_json::from_value(json!({
                "providers": {"acme": {"apiKey": api_key}}
            }))
            .unwrap();
            let names = config.api_key_variables();
            let name = api_key.unwrap_or_default().to_owned();
            assert_eq!(names.contains(&name), listed, "{case}: {names:?}");
            assert!(names.contains(&"OPENAI_API_KEY".to_owned()), "{case}");
            assert!(
                names.windows(2).all(|w| w[0] < w[1]),
                "{case}: sorted, no duplicates"
            );
        }
    }
}
