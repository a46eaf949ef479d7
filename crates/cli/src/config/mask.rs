//! Secret-looking values of the configuration, masked before it is shown.

use serde_json::Value;

/// What a masked value is shown as.
pub const MASK: &str = "****";

/// Whether a key's value is a secret wherever it appears: `apiKey`, `token`, `password`, ….
/// Whole words count (`maxTokens` is not a secret).
pub fn is_secret_key(name: &str) -> bool {
    let words = words(name);
    let joined: String = words.concat();
    joined.contains("apikey")
        || joined.contains("privatekey")
        || words.iter().any(|word| {
            matches!(
                word.as_str(),
                "token" | "secret" | "password" | "passwd" | "credential" | "credentials"
            )
        })
}

/// Whether an entry of a `headers` or `env` table is a secret: also anything naming auth, a
/// key or a cookie (`Authorization`, `X-Api-Key`, `ANTHROPIC_API_KEY`, `Cookie`).
fn is_secret_entry(name: &str) -> bool {
    is_secret_key(name)
        || words(name).iter().any(|word| {
            matches!(
                word.as_str(),
                "auth" | "authorization" | "key" | "cookie" | "session"
            )
        })
}

/// The lowercase words of a key: split at punctuation and at lower-to-upper case changes.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `value` with every secret-looking value replaced by [`MASK`].
pub fn masked(value: &Value) -> Value {
    mask_in(value, false)
}

fn mask_in(value: &Value, in_headers: bool) -> Value {
    match value {
        Value::Object(table) => Value::Object(
            table
                .iter()
                .map(|(key, child)| {
                    let secret = is_secret_key(key) || (in_headers && is_secret_entry(key));
                    let child = if secret {
                        mask_all(child)
                    } else {
                        mask_in(child, key == "headers" || key == "env")
                    };
                    (key.clone(), child)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| mask_in(v, false)).collect()),
        other => other.clone(),
    }
}

/// Every string (and number) below a secret key masked; the shape stays, so a reader still sees
/// that the key is set.
fn mask_all(value: &Value) -> Value {
    match value {
        Value::Object(table) => Value::Object(
            table
                .iter()
                .map(|(key, child)| (key.clone(), mask_all(child)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(mask_all).collect()),
        Value::String(_) | Value::Number(_) => Value::String(MASK.to_owned()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn keys_tokens_and_auth_headers_are_masked() {
        let value = json!({
            "models": {"providers": {"acme": {
                "apiKey": "sk-1", "baseUrl": "http://x",
                "headers": {"Authorization": "Bearer t", "X-Api-Key": "k", "Accept": "json"},
                "models": [{"id": "m", "headers": {"x-goog-api-key": "g"}}]
            }}},
            "cliBackends": {"c": {"env": {"ANTHROPIC_API_KEY": "a", "HOME": "/h"}}},
            "auth": {"order": {"openai": ["openai:a"]}},
            "agents": {"defaults": {"maxConcurrent": 4}}
        });
        assert_eq!(
            masked(&value),
            json!({
                "models": {"providers": {"acme": {
                    "apiKey": "****", "baseUrl": "http://x",
                    "headers": {"Authorization": "****", "X-Api-Key": "****", "Accept": "json"},
                    "models": [{"id": "m", "headers": {"x-goog-api-key": "****"}}]
                }}},
                "cliBackends": {"c": {"env": {"ANTHROPIC_API_KEY": "****", "HOME": "/h"}}},
                "auth": {"order": {"openai": ["openai:a"]}},
                "agents": {"defaults": {"maxConcurrent": 4}}
            })
        );
        for plain in [
            "maxTokens",
            "contextTokens",
            "reserveTokensFloor",
            "keepRecentTokens",
        ] {
            assert!(!is_secret_key(plain), "{plain}");
        }
        for secret in [
            "apiKey",
            "api_key",
            "APIKey",
            "token",
            "accessToken",
            "clientSecret",
        ] {
            assert!(is_secret_key(secret), "{secret}");
        }
    }
}
