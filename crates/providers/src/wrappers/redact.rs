//! Secret redaction for anything written to logs: header values, query parameters, JSON fields
//! named like credentials, and literal secret values wherever they appear.
//!
//! Redaction errs on the side of hiding: a field called `monkey` is hidden too, because a log
//! that says too little is a nuisance and a log that leaks a key is an incident.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Name fragments that mark a header or query parameter as secret (`authorization`,
/// `x-api-key`, `x-goog-api-key`, `api-key`, `cookie`, `x-auth-token`, …).
const SECRET_NAME_PARTS: [&str; 8] = [
    "key",
    "token",
    "secret",
    "auth",
    "cookie",
    "passw",
    "signature",
    "credential",
];

/// Whether a header (or query parameter) named `name` carries a secret.
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_NAME_PARTS.iter().any(|part| name.contains(part))
}

/// Whether a JSON field named `name` carries a secret: `apiKey`, `api_key`, `key`,
/// `accessToken`, `token`, `clientSecret`, `password`, `authorization`, `credentials`, ….
///
/// Names ending in `tokens` (`maxTokens`, `totalTokens`) are counts, not secrets, and
/// `…Signature` fields of messages are replay data, so neither is hidden.
pub fn is_secret_field(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .collect::<String>()
        .to_ascii_lowercase();
    n.ends_with("key")
        || n.ends_with("keys")
        || n.ends_with("token")
        || n.contains("secret")
        || n.contains("passw")
        || n.contains("credential")
        || n.contains("cookie")
        || n.ends_with("authorization")
        || n == "auth"
}

/// `text` with every literal secret replaced, then every secret query parameter's value
/// (`?key=…`, `&api_key=…`, `token=…`). Borrowed when nothing matched.
pub fn redact_text<'a>(text: &'a str, secrets: &[&str]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        if out.contains(secret) {
            out = Cow::Owned(out.replace(secret, REDACTED));
        }
    }
    match redact_query_values(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(redacted) => Cow::Owned(redacted),
    }
}

/// `text` with the values of `name=value` pairs whose name looks secret replaced. The value
/// runs to the next `&`, `#`, whitespace, quote, `;`, `,`, `)`, `<` or `>`.
pub fn redact_query_values(text: &str) -> Cow<'_, str> {
    if !text.contains('=') {
        return Cow::Borrowed(text);
    }
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let ends_value = |c: char| {
        c.is_whitespace() || matches!(c, '&' | '#' | '"' | '\'' | ';' | ',' | ')' | '<' | '>')
    };
    let mut out = String::new();
    let mut copied = 0;
    let mut search = 0;
    while let Some(offset) = text[search..].find('=') {
        let eq = search + offset;
        let name_start = text[..eq]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_name(c))
            .last()
            .map_or(eq, |(i, _)| i);
        let value_start = eq + 1;
        let value_end = text[value_start..]
            .find(ends_value)
            .map_or(text.len(), |i| value_start + i);
        search = value_start;
        let name = &text[name_start..eq];
        let value = &text[value_start..value_end];
        if name.is_empty() || value.is_empty() || value == REDACTED || !is_secret_header(name) {
            continue;
        }
        out.push_str(&text[copied..value_start]);
        out.push_str(REDACTED);
        copied = value_end;
        search = value_end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Redacts `value` in place: secret fields ([`is_secret_field`]; inside an object under a
/// `headers` key, [`is_secret_header`]) get [`REDACTED`] (a `null` or empty string stays, it
/// hides nothing), and every string and object key goes through [`redact_text`].
pub fn redact_json(value: &mut Value, secrets: &[&str]) {
    redact_node(value, secrets, false);
}

fn redact_node(value: &mut Value, secrets: &[&str], header_map: bool) {
    match value {
        Value::Object(map) => redact_object(map, secrets, header_map),
        Value::Array(items) => {
            for item in items {
                redact_node(item, secrets, false);
            }
        }
        Value::String(s) => {
            if let Cow::Owned(redacted) = redact_text(s, secrets) {
                *s = redacted;
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn redact_object(map: &mut Map<String, Value>, secrets: &[&str], header_map: bool) {
    for (key, value) in map.iter_mut() {
        let secret = if header_map {
            is_secret_header(key)
        } else {
            is_secret_field(key)
        };
        let hides_nothing = value.is_null() || value.as_str() == Some("");
        if secret && !hides_nothing {
            *value = Value::String(REDACTED.to_owned());
        } else {
            redact_node(value, secrets, key.eq_ignore_ascii_case("headers"));
        }
    }
    let leaking_key = map
        .keys()
        .any(|k| matches!(redact_text(k, secrets), Cow::Owned(_)));
    if leaking_key {
        let entries = std::mem::take(map);
        for (key, value) in entries {
            map.insert(redact_text(&key, secrets).into_owned(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names() {
        for secret in [
            "authorization",
            "x-api-key",
            "x-goog-api-key",
            "api-key",
            "Cookie",
        ] {
            assert!(is_secret_header(secret), "{secret}");
        }
        assert!(!is_secret_header("content-type"));
        for secret in [
            "apiKey",
            "api_key",
            "key",
            "token",
            "accessToken",
            "client_secret",
            "password",
        ] {
            assert!(is_secret_field(secret), "{secret}");
        }
        for plain in [
            "maxTokens",
            "totalTokens",
            "model",
            "thinkingSignature",
            "content",
            "id",
        ] {
            assert!(!is_secret_field(plain), "{plain}");
        }
    }

    #[test]
    fn query_values() {
        assert_eq!(
            redact_query_values("https://x/v1?alt=sse&key=AIza123&token=t#frag"),
            "https://x/v1?alt=sse&key=[REDACTED]&token=[REDACTED]#frag"
        );
        assert_eq!(
            redact_query_values("see api_key=sk-1 and x=5"),
            "see api_key=[REDACTED] and x=5"
        );
        assert!(matches!(redact_query_values("a=b&c=d"), Cow::Borrowed(_)));
        assert_eq!(redact_query_values("=x&key="), "=x&key=");
    }

    #[test]
    fn json_values() {
        let mut v = json!({
            "headers": {"Authorization": "Bearer sk-9", "X-Custom": "ok", "x-trace": "sk-9"},
            "body": {"apiKey": "abc", "maxTokens": 5, "nested": [{"password": 1}], "empty": {"token": null}},
            "sk-9": "key as a field name",
        });
        redact_json(&mut v, &["sk-9"]);
        assert_eq!(
            v,
            json!({
                "headers": {"Authorization": "[REDACTED]", "X-Custom": "ok", "x-trace": "[REDACTED]"},
                "body": {"apiKey": "[REDACTED]", "maxTokens": 5, "nested": [{"password": "[REDACTED]"}], "empty": {"token": null}},
                "[REDACTED]": "key as a field name",
            })
        );
    }
}
