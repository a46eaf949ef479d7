//! The API key a request carries, wherever its API puts it.

use super::RecordedRequest;
use super::url_text::query_param;

/// The API key of `request` (FORMAT.md `apiKey`): `Authorization: Bearer …` (OpenAI-style),
/// `x-api-key` (Anthropic), `x-goog-api-key` or `?key=` (Gemini), in that order.
pub fn request_api_key(request: &RecordedRequest) -> Option<String> {
    let bearer = request.header("authorization").and_then(|value| {
        let (scheme, token) = value.trim().split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim().to_owned())
    });
    bearer
        .or_else(|| request.header("x-api-key").map(|v| v.trim().to_owned()))
        .or_else(|| {
            request
                .header("x-goog-api-key")
                .map(|v| v.trim().to_owned())
        })
        .or_else(|| query_param(&request.path, "key"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str, headers: &[(&str, &str)]) -> RecordedRequest {
        RecordedRequest {
            method: "POST".into(),
            path: path.into(),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            body: Vec::new(),
        }
    }

    #[test]
    fn every_place_a_key_can_be() {
        let key = |path, headers| request_api_key(&request(path, headers));
        assert_eq!(
            key("/x", &[("authorization", "Bearer sk-1")]).as_deref(),
            Some("sk-1")
        );
        assert_eq!(
            key("/x", &[("authorization", "bearer  sk-2 ")]).as_deref(),
            Some("sk-2")
        );
        assert_eq!(key("/x", &[("x-api-key", "ant")]).as_deref(), Some("ant"));
        assert_eq!(
            key("/x", &[("x-goog-api-key", "goog")]).as_deref(),
            Some("goog")
        );
        assert_eq!(key("/x?alt=sse&key=q%2D1", &[]).as_deref(), Some("q-1"));
        assert_eq!(key("/x", &[("authorization", "Basic abc")]), None);
        assert_eq!(key("/x", &[]), None);
    }
}
