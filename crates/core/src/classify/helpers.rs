//! Small message helpers (reference §15.6): role ordering, image errors, missing tool input,
//! invalid stream event order.

use super::js_regex::{js_regexes, lower_trim, parse_js_uint};

js_regexes! {
    ROLE_ORDERING_RE = (r"incorrect role information|roles must alternate", "i");
    ROLE_ORDERING_COPY_RE = (r#"incorrect role information|roles must alternate|400.*role|"message".*role.*information"#, "i");
    TOOL_CALL_INPUT_MISSING_RE = (r"tool_(?:use|call)\.(?:input|arguments).*?(?:field required|required)", "i");
    TOOL_CALL_INPUT_PATH_RE = (r"messages\.\d+\.content\.\d+\.tool_(?:use|call)\.(?:input|arguments)", "i");
    IMAGE_DIMENSION_ERROR_RE = (r"image dimensions exceed max allowed size for many-image requests:\s*(\d+)\s*pixels", "i");
    IMAGE_DIMENSION_PATH_RE = (r"messages\.(\d+)\.content\.(\d+)\.image", "i");
    IMAGE_SIZE_ERROR_RE = (r"image exceeds\s*(\d+(?:\.\d+)?)\s*mb", "i");
}

/// Role-ordering error as the runner and the outer turn layer detect it (narrow regex
/// `/incorrect role information|roles must alternate/i`).
pub fn is_role_ordering_error(message: &str) -> bool {
    ROLE_ORDERING_RE.is_match(message)
}

/// Role-ordering error as the user-facing copy detects it (wide regex, also `400 … role` and
/// `"message" … role … information`). Use [`is_role_ordering_error`] for decisions.
pub fn is_role_ordering_error_for_copy(message: &str) -> bool {
    ROLE_ORDERING_COPY_RE.is_match(message)
}

/// A provider rejected an image for its size (`parseImageSizeError`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageSizeError {
    /// The limit in MB (`image exceeds 5 MB`), when the text states it.
    pub max_mb: Option<f64>,
}

/// `parseImageSizeError`: the text contains `image exceeds` and `mb`; the limit comes from
/// `/image exceeds\s*(\d+(?:\.\d+)?)\s*mb/i`.
pub fn parse_image_size_error(message: &str) -> Option<ImageSizeError> {
    let lower = lower_trim(message);
    if !lower.contains("image exceeds") || !lower.contains("mb") {
        return None;
    }
    let max_mb = IMAGE_SIZE_ERROR_RE
        .captures(message)
        .and_then(|c| c.get(1))
        .and_then(|m| m.as_str().parse::<f64>().ok());
    Some(ImageSizeError { max_mb })
}

/// A provider rejected an image for its dimensions (`parseImageDimensionError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageDimensionError {
    /// The pixel limit for many-image requests, when stated.
    pub max_pixels: Option<u64>,
    /// Index of the offending message (`messages.N.content.M.image`), when stated.
    pub message_index: Option<usize>,
    /// Index of the offending content block, when stated.
    pub content_index: Option<usize>,
}

fn parse_index(digits: &str) -> Option<usize> {
    parse_js_uint(digits).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// `parseImageDimensionError`: the text contains `image dimensions exceed max allowed size`;
/// the pixel limit and the `messages.N.content.M.image` path are extracted when present.
pub fn parse_image_dimension_error(message: &str) -> Option<ImageDimensionError> {
    if !lower_trim(message).contains("image dimensions exceed max allowed size") {
        return None;
    }
    let max_pixels = IMAGE_DIMENSION_ERROR_RE
        .captures(message)
        .and_then(|c| c.get(1))
        .and_then(|m| parse_js_uint(m.as_str()));
    let path = IMAGE_DIMENSION_PATH_RE.captures(message);
    let index = |i: usize| {
        path.as_ref()
            .and_then(|c| c.get(i))
            .and_then(|m| parse_index(m.as_str()))
    };
    Some(ImageDimensionError {
        max_pixels,
        message_index: index(1),
        content_index: index(2),
    })
}

/// `isMissingToolCallInputError`: the provider says a replayed tool call lacks its input
/// (`tool_use.input: Field required`, `messages.N.content.M.tool_use.input …`).
pub fn is_missing_tool_input_error(message: &str) -> bool {
    TOOL_CALL_INPUT_MISSING_RE.is_match(message) || TOOL_CALL_INPUT_PATH_RE.is_match(message)
}

/// `isInvalidStreamingEventOrderError`: `unexpected event order` naming `message_start` and
/// `message_stop`.
pub fn is_invalid_streaming_event_order_error(message: &str) -> bool {
    let lower = lower_trim(message);
    lower.contains("unexpected event order")
        && lower.contains("message_start")
        && lower.contains("message_stop")
}

/// Gemini's refusal of a history in which a function call does not follow a user turn or a
/// function response (`Please ensure that function call turn comes immediately after a user
/// turn or after a function response turn`): the session's history is unusable as it stands,
/// whatever `resetOnOverflow` says.
pub fn is_function_call_order_error(message: &str) -> bool {
    lower_trim(message).contains("function call turn comes immediately after")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn function_call_order_vectors() {
        let cases = [
            (
                "400 Please ensure that function call turn comes immediately after a user turn \
                 or after a function response turn.",
                true,
            ),
            (
                "FUNCTION CALL TURN COMES IMMEDIATELY AFTER a user turn",
                true,
            ),
            ("function call turn comes later", false),
            ("roles must alternate", false),
            ("", false),
        ];
        for (message, expected) in cases {
            assert_eq!(is_function_call_order_error(message), expected, "{message}");
        }
    }

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 7);
    }

    #[test]
    fn role_ordering_vectors() {
        // (message, narrow, wide)
        let cases = [
            (
                "messages: roles must alternate between \"user\" and \"assistant\"",
                true,
                true,
            ),
            ("Incorrect role information", true, true),
            ("400 Bad Request: invalid role sequence", false, true),
            (
                r#"{"message":"the role field lacks information"}"#,
                false,
                true,
            ),
            ("role missing", false, false),
            ("", false, false),
        ];
        for (m, narrow, wide) in cases {
            assert_eq!(
                (
                    is_role_ordering_error(m),
                    is_role_ordering_error_for_copy(m)
                ),
                (narrow, wide),
                "{m}"
            );
        }
    }

    #[test]
    fn image_size_vectors() {
        let cases = [
            (
                "image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes",
                Some(ImageSizeError { max_mb: Some(5.0) }),
            ),
            (
                "Image exceeds 3.75MB",
                Some(ImageSizeError { max_mb: Some(3.75) }),
            ),
            (
                "image exceeds the mb limit",
                Some(ImageSizeError { max_mb: None }),
            ),
            ("image exceeds 5 KB", None),
            ("image too large: 5 MB", None),
            ("", None),
        ];
        for (m, expected) in cases {
            assert_eq!(parse_image_size_error(m), expected, "{m}");
        }
    }

    #[test]
    fn image_dimension_vectors() {
        let full = "messages.3.content.1.image.source.base64.data: image dimensions exceed max allowed size for many-image requests: 2000 pixels";
        assert_eq!(
            parse_image_dimension_error(full),
            Some(ImageDimensionError {
                max_pixels: Some(2000),
                message_index: Some(3),
                content_index: Some(1)
            })
        );
        assert_eq!(
            parse_image_dimension_error("Image dimensions exceed max allowed size"),
            Some(ImageDimensionError {
                max_pixels: None,
                message_index: None,
                content_index: None
            })
        );
        assert_eq!(parse_image_dimension_error("image too wide"), None);
    }

    #[test]
    fn missing_tool_input_vectors() {
        let cases = [
            ("messages.3.content.1.tool_use.input: Field required", true),
            ("tool_call.arguments is required", true),
            ("messages.0.content.2.tool_call.arguments", true),
            ("tool_use.id mismatch", false),
            ("", false),
        ];
        for (m, expected) in cases {
            assert_eq!(is_missing_tool_input_error(m), expected, "{m}");
        }
    }

    #[test]
    fn stream_order_vectors() {
        assert!(is_invalid_streaming_event_order_error(
            "Unexpected event order, got message_stop before message_start"
        ));
        assert!(!is_invalid_streaming_event_order_error(
            "unexpected event order"
        ));
    }
}
