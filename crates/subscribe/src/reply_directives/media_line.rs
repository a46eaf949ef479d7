//! What one `MEDIA:` line of a text yields (the per-line part of OpenClaw
//! `splitMediaFromOutput`), with the checks that decide what is a media candidate. A pure
//! function over the line; [`split_media_from_output`](super::split_media_from_output) only
//! puts the lines back together.

use clawloop_core::js_text::{is_js_whitespace, js_trim, js_trim_start};

/// What a `MEDIA:` line gives: its media, and what of it stays in the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct MediaLine {
    /// The media the line names, in order.
    pub media: Vec<String>,
    /// How many of `media`, from the first, get a media segment (OpenClaw's `validCount`,
    /// which stays 0 for a payload taken whole that is quoted or has no spaces).
    pub segment_media: usize,
    /// What stays of the line in the text (space runs collapsed, trimmed); `None` when nothing.
    pub kept: Option<String>,
    /// The line names media or a local path: the text returned is the cleaned one even when
    /// no media is left (a refused local path drops its line).
    pub names_media: bool,
}

/// Reads `line` (one line of a text, outside fenced code) as a `MEDIA:` directive; `None`
/// when it is not one and stays in the text as it is.
pub(super) fn read_media_line(line: &str) -> Option<MediaLine> {
    let token_at = line.len() - js_trim_start(line).len();
    if !line[token_at..].starts_with("MEDIA:") {
        return None;
    }
    let pick = pick_media(media_token(line, token_at)?.payload);
    // The token starts after whitespace only, so nothing of the line before it is kept; it
    // runs to the end of the line, so nothing after it is either.
    Some(if !pick.media.is_empty() {
        MediaLine {
            kept: collapsed_text(&pick.refused.join(" ")),
            segment_media: pick.segment_media,
            media: pick.media,
            names_media: true,
        }
    } else if pick.local_path_shaped {
        MediaLine {
            names_media: true,
            ..MediaLine::default()
        }
    } else {
        MediaLine {
            kept: collapsed_text(line),
            ..MediaLine::default()
        }
    })
}

/// The media of a payload and the words of it that are not media.
struct MediaPick<'a> {
    media: Vec<String>,
    segment_media: usize,
    refused: Vec<&'a str>,
    /// The payload as a whole is shaped like a local path (valid or not).
    local_path_shaped: bool,
}

/// Reads the payload word by word (or as one quoted item), then falls back to the whole
/// payload as one candidate, spaces allowed.
fn pick_media(payload: &str) -> MediaPick<'_> {
    let unwrapped = unwrap_quoted(payload).filter(|u| !u.is_empty());
    let payload_value = unwrap_quoted(payload).unwrap_or(payload);
    let trimmed_payload = js_trim(payload_value);
    let local_path_shaped =
        looks_like_local_file_path(trimmed_payload) || trimmed_payload.starts_with("file://");
    let (media, refused) = media_words(payload, unwrapped);
    let fallback = normalize_media_source(clean_candidate(payload_value));
    let fallback_is_media = |allow_bare_filename| {
        let check = MediaCheck {
            allow_spaces: true,
            allow_bare_filename,
        };
        is_valid_media(fallback, check)
    };
    // No word was media, but the whole payload is.
    let payload_is_media = media.is_empty() && fallback_is_media(true);
    // An unquoted payload with spaces is taken whole when no word was media, or when one
    // word of a local path passed and the others did not.
    let whole_payload = unwrapped.is_none()
        && payload_value.contains(is_js_whitespace)
        && (payload_is_media
            || (media.len() == 1
                && !refused.is_empty()
                && local_path_shaped
                && fallback_is_media(false)));
    if whole_payload || payload_is_media {
        return MediaPick {
            media: vec![fallback.to_owned()],
            segment_media: usize::from(whole_payload),
            refused: Vec::new(),
            local_path_shaped,
        };
    }
    MediaPick {
        segment_media: media.len(),
        media,
        refused,
        local_path_shaped,
    }
}

/// The payload's words (or its quoted inside, spaces allowed) that are media, and those that
/// are not.
fn media_words<'a>(payload: &'a str, unwrapped: Option<&'a str>) -> (Vec<String>, Vec<&'a str>) {
    let parts: Vec<&str> = match unwrapped {
        Some(u) => vec![u],
        None => payload
            .split(is_js_whitespace)
            .filter(|p| !p.is_empty())
            .collect(),
    };
    let check = MediaCheck {
        allow_spaces: unwrapped.is_some(),
        allow_bare_filename: false,
    };
    let mut media = Vec::new();
    let mut refused = Vec::new();
    for part in parts {
        let candidate = normalize_media_source(clean_candidate(part));
        if is_valid_media(candidate, check) {
            media.push(candidate.to_owned());
        } else {
            refused.push(part);
        }
    }
    (media, refused)
}

/// `text` with its space runs collapsed and trimmed; `None` when that leaves nothing.
fn collapsed_text(text: &str) -> Option<String> {
    let collapsed = collapse_space_runs(text);
    let trimmed = js_trim(&collapsed);
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// A `MEDIA:` token of a line: `` /\bMEDIA:\s*`?([^\n]+)`?/i `` where `MEDIA:` starts at `at`.
struct MediaToken<'a> {
    /// Capture group 1.
    payload: &'a str,
}

/// Matches the media token at `at` (the line's first non-space char). The payload needs at
/// least one char: whitespace after `MEDIA:` is given back to it when nothing else follows.
fn media_token(line: &str, at: usize) -> Option<MediaToken<'_>> {
    let rest = &line[at + "MEDIA:".len()..];
    let after_space = js_trim_start(rest);
    let payload = if after_space.is_empty() {
        // `\s*` gives back its last char so that `[^\n]+` matches one.
        let last = rest.chars().next_back()?;
        &rest[rest.len() - last.len_utf8()..]
    } else if after_space.len() > 1 && after_space.starts_with('`') {
        &after_space[1..]
    } else {
        after_space
    };
    Some(MediaToken { payload })
}

/// Which candidates [`is_valid_media`] accepts.
#[derive(Debug, Clone, Copy)]
struct MediaCheck {
    allow_spaces: bool,
    allow_bare_filename: bool,
}

/// OpenClaw `isValidMedia`.
fn is_valid_media(candidate: &str, opts: MediaCheck) -> bool {
    if candidate.is_empty() || candidate.encode_utf16().count() > 4096 {
        return false;
    }
    if !opts.allow_spaces && candidate.contains(is_js_whitespace) {
        return false;
    }
    if is_http_url(candidate) || is_likely_local_path(candidate) {
        return true;
    }
    if has_traversal_or_home_dir_prefix(candidate) {
        return false;
    }
    opts.allow_bare_filename && !has_scheme(candidate) && has_file_extension(candidate)
}

/// `/^https?:\/\//i`.
pub(super) fn is_http_url(text: &str) -> bool {
    let lower = |n: usize| text.get(..n).map(str::to_ascii_lowercase);
    lower(7).as_deref() == Some("http://") || lower(8).as_deref() == Some("https://")
}

/// `/^[a-zA-Z][a-zA-Z0-9+.-]*:/`.
fn has_scheme(text: &str) -> bool {
    let bytes = text.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let run = bytes[1..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        .count();
    bytes.get(1 + run) == Some(&b':')
}

/// `/^[a-zA-Z]:[\\/]/`.
fn has_windows_drive(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/')
}

/// `/\.\w{1,10}$/`.
fn has_file_extension(text: &str) -> bool {
    let bytes = text.as_bytes();
    let word = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    (1..=10).contains(&word) && bytes.len() > word && bytes[bytes.len() - word - 1] == b'.'
}

/// OpenClaw `hasTraversalOrHomeDirPrefix`: `../`, `..`, `~…`, or a `..` path segment.
fn has_traversal_or_home_dir_prefix(candidate: &str) -> bool {
    candidate.starts_with("../")
        || candidate == ".."
        || candidate.starts_with('~')
        || candidate.split(['/', '\\']).any(|segment| segment == "..")
}

/// Paths are absolute, `./`-relative, drive-lettered, UNC, or scheme-less with a separator.
fn is_path_shaped(candidate: &str) -> bool {
    candidate.starts_with('/')
        || candidate.starts_with("./")
        || has_windows_drive(candidate)
        || candidate.starts_with("\\\\")
        || (!has_scheme(candidate) && (candidate.contains('/') || candidate.contains('\\')))
}

/// OpenClaw `isLikelyLocalPath`.
fn is_likely_local_path(candidate: &str) -> bool {
    !has_traversal_or_home_dir_prefix(candidate) && is_path_shaped(candidate)
}

/// OpenClaw `looksLikeLocalFilePath`.
fn looks_like_local_file_path(candidate: &str) -> bool {
    candidate.starts_with("../") || candidate.starts_with('~') || is_path_shaped(candidate)
}

/// OpenClaw `cleanCandidate`: leading `` `"'[{( `` and trailing `` `"'\})], `` removed.
fn clean_candidate(raw: &str) -> &str {
    raw.trim_start_matches(['`', '"', '\'', '[', '{', '('])
        .trim_end_matches(['`', '"', '\'', '\\', '}', ')', ']', ','])
}

/// OpenClaw `normalizeMediaSource`: a leading `file://` is dropped.
fn normalize_media_source(src: &str) -> &str {
    src.strip_prefix("file://").unwrap_or(src)
}

/// OpenClaw `unwrapQuoted`: the trimmed inside of `"…"`, `'…'` or `` `…` ``.
fn unwrap_quoted(value: &str) -> Option<&str> {
    let trimmed = js_trim(value);
    if trimmed.encode_utf16().count() < 2 {
        return None;
    }
    let first = trimmed.chars().next()?;
    let last = trimmed.chars().next_back()?;
    if first != last || !matches!(first, '"' | '\'' | '`') {
        return None;
    }
    Some(js_trim(&trimmed[1..trimmed.len() - 1]))
}

/// `/[ \t]{2,}/g` → `" "`.
pub(super) fn collapse_space_runs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find([' ', '\t']) {
        out.push_str(&rest[..at]);
        let run = rest[at..]
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .count();
        if run >= 2 {
            out.push(' ');
        } else {
            out.push_str(&rest[at..at + run]);
        }
        rest = &rest[at + run..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn media(urls: &[&str], segment_media: usize, kept: Option<&str>) -> Option<MediaLine> {
        Some(MediaLine {
            media: urls.iter().map(|u| (*u).to_owned()).collect(),
            segment_media,
            kept: kept.map(str::to_owned),
            names_media: true,
        })
    }

    fn kept(text: &str) -> Option<MediaLine> {
        Some(MediaLine {
            kept: Some(text.to_owned()),
            ..MediaLine::default()
        })
    }

    #[test]
    fn media_lines_follow_the_reference_table() {
        let rows: Vec<(&str, &str, Option<MediaLine>)> = vec![
            ("prose is no directive", "Here you go.", None),
            ("the token is case-sensitive", "media: /tmp/a.png", None),
            (
                "the token must start the line",
                "see MEDIA: /tmp/a.png",
                None,
            ),
            (
                "a URL is media",
                "MEDIA: https://x.test/a.png",
                media(&["https://x.test/a.png"], 1, None),
            ),
            (
                "indentation and a backtick before the payload are skipped",
                "\tMEDIA: `/tmp/a.png`",
                media(&["/tmp/a.png"], 1, None),
            ),
            (
                "file:// is dropped",
                "MEDIA: file:///tmp/a.png",
                media(&["/tmp/a.png"], 1, None),
            ),
            (
                "several words are several media",
                "MEDIA: /tmp/a.png https://x.test/b.png",
                media(&["/tmp/a.png", "https://x.test/b.png"], 2, None),
            ),
            (
                "words that are not media stay, collapsed",
                "MEDIA: https://x.test/a.png and   more",
                media(&["https://x.test/a.png"], 1, Some("and more")),
            ),
            (
                "a local path with spaces is taken whole",
                "MEDIA: /tmp/a.png notes here",
                media(&["/tmp/a.png notes here"], 1, None),
            ),
            (
                "a quoted payload keeps its spaces",
                "MEDIA: \"/tmp/my file.png\"",
                media(&["/tmp/my file.png"], 1, None),
            ),
            (
                "a bare file name taken whole gets no media segment",
                "MEDIA: report.pdf",
                media(&["report.pdf"], 0, None),
            ),
            (
                "a refused local path drops the line",
                "MEDIA: ~/secret.png",
                Some(MediaLine {
                    names_media: true,
                    ..MediaLine::default()
                }),
            ),
            (
                "a payload that is no media stays, collapsed",
                "  MEDIA:  just   words",
                kept("MEDIA: just words"),
            ),
            ("an empty payload stays", "MEDIA:   ", kept("MEDIA:")),
        ];
        for (name, line, expected) in rows {
            assert_eq!(read_media_line(line), expected, "{name}: {line:?}");
        }
    }
}
