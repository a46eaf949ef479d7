//! `expectRequest` (FORMAT.md `run`): what a scripted response expects of the request that
//! takes it, and the check itself.

use clawloop_core::Api;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::ProviderRequest;

/// Checks on the request a scripted response answers. Only the fields present are checked.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExpectRequest {
    /// Provider id (the `/p/<providerId>` URL prefix).
    pub provider: Option<String>,
    /// Wire API of the called endpoint.
    pub api: Option<Api>,
    /// Model id (the body's `model`, or Gemini's path model).
    pub model: Option<String>,
    /// API key sent (bearer token, `x-api-key`, `x-goog-api-key` or `?key=`).
    pub api_key: Option<String>,
    /// The normalized wire roles, exactly.
    pub roles: Option<Vec<String>>,
    /// The number of wire messages (the length of `roles`).
    pub message_count: Option<usize>,
    /// A substring of the last user message's text.
    pub last_user_text_contains: Option<String>,
    /// Substrings the system prompt must contain.
    pub system_contains: Option<Vec<String>>,
    /// Substrings the system prompt must not contain.
    pub system_not_contains: Option<Vec<String>>,
    /// The offered tool names, sorted, exactly.
    pub tool_names: Option<Vec<String>>,
    /// Tool names that must be among the offered ones.
    pub tool_names_include: Option<Vec<String>>,
    /// Substrings of the raw body.
    pub body_contains: Option<Vec<String>>,
    /// Substrings the raw body must not contain.
    pub body_not_contains: Option<Vec<String>>,
    /// JSON pointer → expected value in the body (`null`: absent or null; objects match
    /// partially, numbers by value).
    pub json: Option<Map<String, Value>>,
}

impl ExpectRequest {
    /// `Ok` when `request` meets every check, else the first difference
    /// (`expectRequest.model: expected "m1", got "m2"`).
    pub fn check(&self, request: &ProviderRequest) -> Result<(), String> {
        let api = request.api().map(Api::as_str);
        equal("provider", self.provider.as_deref(), request.provider())?;
        equal("api", self.api.as_ref().map(Api::as_str), api)?;
        equal("model", self.model.as_deref(), request.model.as_deref())?;
        equal(
            "apiKey",
            self.api_key.as_deref(),
            request.api_key.as_deref(),
        )?;
        if self.roles.is_some() || self.message_count.is_some() {
            let Some(roles) = request.roles() else {
                return fail(
                    "roles",
                    format!(
                        "cannot read the roles of a request to {} (api {})",
                        request.label(),
                        api.unwrap_or("unknown")
                    ),
                );
            };
            if let Some(want) = &self.roles
                && *want != roles
            {
                return fail("roles", format!("expected {want:?}, got {roles:?}"));
            }
            if let Some(want) = self.message_count
                && want != roles.len()
            {
                return fail(
                    "messageCount",
                    format!("expected {want}, got {} ({roles:?})", roles.len()),
                );
            }
        }
        if let Some(needle) = &self.last_user_text_contains {
            let text = request.last_user_text().unwrap_or_default();
            contains(
                "lastUserTextContains",
                &text,
                std::slice::from_ref(needle),
                true,
            )?;
        }
        let system = request.system_text();
        contains("systemContains", &system, opt(&self.system_contains), true)?;
        contains(
            "systemNotContains",
            &system,
            opt(&self.system_not_contains),
            false,
        )?;
        let tools = request.tool_names();
        if let Some(want) = &self.tool_names
            && *want != tools
        {
            return fail("toolNames", format!("expected {want:?}, got {tools:?}"));
        }
        if let Some(missing) = opt(&self.tool_names_include)
            .iter()
            .find(|name| !tools.contains(name))
        {
            return fail(
                "toolNamesInclude",
                format!("{missing:?} is not among {tools:?}"),
            );
        }
        let body = request.body_text();
        contains("bodyContains", &body, opt(&self.body_contains), true)?;
        contains(
            "bodyNotContains",
            &body,
            opt(&self.body_not_contains),
            false,
        )?;
        for (pointer, want) in self.json.iter().flatten() {
            let got = request.json.as_ref().and_then(|j| j.pointer(pointer));
            if !matches(want, got) {
                let got = got.map_or_else(|| "nothing".to_owned(), Value::to_string);
                return fail(
                    &format!("json.{pointer}"),
                    format!("expected {want}, got {got}"),
                );
            }
        }
        Ok(())
    }
}

fn fail(field: &str, message: String) -> Result<(), String> {
    Err(format!("expectRequest.{field}: {message}"))
}

fn opt(list: &Option<Vec<String>>) -> &[String] {
    list.as_deref().unwrap_or_default()
}

fn equal(field: &str, want: Option<&str>, got: Option<&str>) -> Result<(), String> {
    match want {
        Some(want) if Some(want) != got => fail(
            field,
            format!(
                "expected {want:?}, got {}",
                got.map_or_else(|| "nothing".to_owned(), |g| format!("{g:?}"))
            ),
        ),
        _ => Ok(()),
    }
}

fn contains(field: &str, text: &str, needles: &[String], positive: bool) -> Result<(), String> {
    match needles
        .iter()
        .find(|n| text.contains(n.as_str()) != positive)
    {
        None => Ok(()),
        Some(needle) => {
            let how = if positive { "lacks" } else { "contains" };
            let shown: String = text.chars().take(300).collect();
            fail(field, format!("{shown:?} {how} {needle:?}"))
        }
    }
}

/// FORMAT.md's comparison rules for one expected value: `null` is absent or null, objects
/// match partially, arrays element-wise with equal length, numbers by value.
fn matches(want: &Value, got: Option<&Value>) -> bool {
    match (want, got) {
        (Value::Null, None | Some(Value::Null)) => true,
        (_, None) => false,
        (Value::Object(want), Some(Value::Object(got))) => {
            want.iter().all(|(k, w)| matches(w, got.get(k)))
        }
        (Value::Array(want), Some(Value::Array(got))) => {
            want.len() == got.len() && want.iter().zip(got).all(|(w, g)| matches(w, Some(g)))
        }
        (Value::Number(want), Some(Value::Number(got))) => {
            want == got || want.as_f64().is_some_and(|w| got.as_f64() == Some(w))
        }
        (want, Some(got)) => want == got,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RecordedRequest;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request(path: &str, headers: &[(&str, &str)], body: Value) -> ProviderRequest {
        ProviderRequest::new(
            RecordedRequest {
                method: "POST".into(),
                path: path.into(),
                headers: headers
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
                body: serde_json::to_vec(&body).unwrap(),
            },
            1,
        )
    }

    fn openai() -> ProviderRequest {
        request(
            "/p/acme/v1/chat/completions",
            &[("authorization", "Bearer sk-acme")],
            json!({
                "model": "m1", "stream": true, "reasoning_effort": "high",
                "messages": [
                    {"role": "system", "content": "You are terse. Today is Monday."},
                    {"role": "user", "content": "Say hello"},
                    {"role": "assistant", "content": "hi"},
                    {"role": "user", "content": [{"type": "text", "text": "Again please"}]}
                ],
                "tools": [{"type": "function", "function": {"name": "read"}},
                          {"type": "function", "function": {"name": "bash"}}],
                "stream_options": {"include_usage": true, "n": 2}
            }),
        )
    }

    fn expect(json: Value) -> ExpectRequest {
        serde_json::from_value(json).unwrap()
    }

    fn check(json: Value) -> Result<(), String> {
        expect(json).check(&openai())
    }

    #[test]
    fn every_field_holds() {
        assert_eq!(
            check(json!({
                "provider": "acme", "api": "openai-completions", "model": "m1",
                "apiKey": "sk-acme", "roles": ["user", "assistant", "user"], "messageCount": 3,
                "lastUserTextContains": "Again", "systemContains": ["terse", "Monday"],
                "systemNotContains": ["Tuesday"], "toolNames": ["bash", "read"],
                "toolNamesInclude": ["read"], "bodyContains": ["\"stream\":true"],
                "bodyNotContains": ["max_tokens"],
                "json": {"/reasoning_effort": "high", "/stream_options": {"include_usage": true},
                         "/stream_options/n": 2.0, "/temperature": null}
            })),
            Ok(())
        );
    }

    #[test]
    fn each_field_reports_its_difference() {
        let cases = [
            (
                json!({"provider": "bolt"}),
                "expectRequest.provider: expected \"bolt\", got \"acme\"",
            ),
            (
                json!({"api": "ollama"}),
                "expectRequest.api: expected \"ollama\", got \"openai-completions\"",
            ),
            (
                json!({"model": "m2"}),
                "expectRequest.model: expected \"m2\", got \"m1\"",
            ),
            (
                json!({"apiKey": "k"}),
                "expectRequest.apiKey: expected \"k\", got \"sk-acme\"",
            ),
            (
                json!({"roles": ["user"]}),
                "expectRequest.roles: expected [\"user\"], got [\"user\", \"assistant\", \"user\"]",
            ),
            (
                json!({"messageCount": 1}),
                "expectRequest.messageCount: expected 1, got 3 ([\"user\", \"assistant\", \"user\"])",
            ),
            (
                json!({"lastUserTextContains": "hello"}),
                "expectRequest.lastUserTextContains: \"Again please\" lacks \"hello\"",
            ),
            (
                json!({"systemContains": ["terse", "kind"]}),
                "expectRequest.systemContains: \"You are terse. Today is Monday.\" lacks \"kind\"",
            ),
            (
                json!({"systemNotContains": ["Monday"]}),
                "expectRequest.systemNotContains: \"You are terse. Today is Monday.\" contains \"Monday\"",
            ),
            (
                json!({"toolNames": ["read", "bash"]}),
                "expectRequest.toolNames: expected [\"read\", \"bash\"], got [\"bash\", \"read\"]",
            ),
            (
                json!({"toolNamesInclude": ["write"]}),
                "expectRequest.toolNamesInclude: \"write\" is not among [\"bash\", \"read\"]",
            ),
            (json!({"bodyNotContains": ["reasoning_effort"]}), ""),
            (
                json!({"json": {"/reasoning_effort": "low"}}),
                "expectRequest.json./reasoning_effort: expected \"low\", got \"high\"",
            ),
            (
                json!({"json": {"/nope": 1}}),
                "expectRequest.json./nope: expected 1, got nothing",
            ),
            (
                json!({"json": {"/stream": null}}),
                "expectRequest.json./stream: expected null, got true",
            ),
        ];
        for (want, message) in cases {
            let err = check(want.clone()).unwrap_err();
            if message.is_empty() {
                assert!(err.starts_with("expectRequest.bodyNotContains: "), "{err}");
            } else {
                assert_eq!(err, message, "{want}");
            }
        }
    }

    #[test]
    fn unknown_roles_and_odd_requests() {
        let r = request("/p/x/v1/embeddings", &[], json!({"messages": []}));
        let err = expect(json!({"roles": []})).check(&r).unwrap_err();
        assert!(err.contains("cannot read the roles"), "{err}");
        let mut garbage = r.clone();
        garbage.request.body = b"\xff{not json".to_vec();
        garbage.json = None;
        assert_eq!(
            expect(json!({"model": "m"})).check(&garbage),
            Err("expectRequest.model: expected \"m\", got nothing".to_owned())
        );
        assert!(
            expect(json!({"bodyContains": ["{not"]}))
                .check(&garbage)
                .is_ok()
        );
        assert!(expect(json!({})).check(&garbage).is_ok());
    }

    #[test]
    fn unknown_fields_are_refused() {
        let err = serde_json::from_value::<ExpectRequest>(json!({"modle": "x"})).unwrap_err();
        assert!(err.to_string().contains("unknown field `modle`"), "{err}");
    }
}
