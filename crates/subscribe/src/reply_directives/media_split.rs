//! `MEDIA:` lines taken out of a text (OpenClaw `splitMediaFromOutput`), with the checks that
//! decide what is a media candidate.

use std::borrow::Cow;

use clawloop_core::js_text::{is_js_whitespace, js_trim, js_trim_end, js_trim_start};

use super::inline::{
    collapse_newline_runs, parse_inline_directives, remove_spaces_before_newlines,
};
use super::{InlineDirectiveOptions, MediaSegment, MediaSplit};

/// Takes `MEDIA:` lines out of a text (OpenClaw `splitMediaFromOutput`).
///
/// A line whose trimmed start is `MEDIA:` (case-sensitive, outside fenced code) names media:
/// an `http(s)` URL or a local path (absolute, `./`, a drive letter, UNC, or a relative path
/// with a separator; `~` and `..` segments are refused; `file://` is dropped). The payload may
/// be quoted to allow spaces, and several space-separated items may follow one `MEDIA:`.
/// Payload words that are not media stay in the text; a `MEDIA:` line naming an invalid local
/// path is dropped. `[[audio_as_voice]]` is read and removed. Without any media the text is
/// returned as given (trimmed at the end) unless a media line or the audio tag was removed.
///
/// ```
/// use clawloop_subscribe::split_media_from_output;
///
/// let split = split_media_from_output("Here you go.\nMEDIA: https://x.test/a.png\n");
/// assert_eq!(split.text, "Here you go.");
/// assert_eq!(split.media_urls, ["https://x.test/a.png"]);
/// ```
pub fn split_media_from_output(raw: &str) -> MediaSplit {
    let trimmed_raw = js_trim_end(raw);
    if js_trim(trimmed_raw).is_empty() {
        return MediaSplit::default();
    }
    let may_contain_media = contains_media_token(trimmed_raw);
    let may_contain_audio_tag = trimmed_raw.contains("[[");
    if !may_contain_media && !may_contain_audio_tag {
        return MediaSplit {
            text: trimmed_raw.to_owned(),
            ..MediaSplit::default()
        };
    }

    let mut media: Vec<String> = Vec::new();
    let mut found_media_token = false;
    let mut segments: Vec<MediaSegment> = Vec::new();
    let push_text_segment = |segments: &mut Vec<MediaSegment>, text: &str| {
        if text.is_empty() {
            return;
        }
        if let Some(MediaSegment::Text(last)) = segments.last_mut() {
            last.push('\n');
            last.push_str(text);
        } else {
            segments.push(MediaSegment::Text(text.to_owned()));
        }
    };
    let has_fence_markers = trimmed_raw.contains("```") || trimmed_raw.contains("~~~");
    let mut fences = Vec::new();
    if has_fence_markers {
        crate::fences::parse_fences_into(trimmed_raw, &mut fences);
    }
    let inside_fence = |offset: usize| {
        fences
            .iter()
            .any(|span| offset >= span.start && offset < span.end)
    };

    let mut kept_lines: Vec<Cow<'_, str>> = Vec::new();
    let mut line_offset = 0;
    for line in trimmed_raw.split('\n') {
        let offset = line_offset;
        line_offset += line.len() + 1;
        let token_at = line.len() - js_trim_start(line).len();
        let token = (!(has_fence_markers && inside_fence(offset))
            && line[token_at..].starts_with("MEDIA:"))
        .then(|| media_token(line, token_at))
        .flatten();
        let Some(token) = token else {
            kept_lines.push(Cow::Borrowed(line));
            push_text_segment(&mut segments, line);
            continue;
        };

        let mut pieces: Vec<&str> = vec![&line[..token_at]];
        let mut line_segments: Vec<MediaSegment> = Vec::new();
        let payload = token.payload;
        let unwrapped = unwrap_quoted(payload).filter(|u| !u.is_empty());
        let payload_value = unwrap_quoted(payload).unwrap_or(payload);
        let parts: Vec<&str> = match unwrapped {
            Some(u) => vec![u],
            None => payload
                .split(is_js_whitespace)
                .filter(|p| !p.is_empty())
                .collect(),
        };
        let media_start = media.len();
        let mut valid_count = 0;
        let mut invalid_parts: Vec<&str> = Vec::new();
        let mut has_valid_media = false;
        let part_opts = MediaCheck {
            allow_spaces: unwrapped.is_some(),
            allow_bare_filename: false,
        };
        for part in parts {
            let candidate = normalize_media_source(clean_candidate(part));
            if is_valid_media(candidate, part_opts) {
                media.push(candidate.to_owned());
                has_valid_media = true;
                found_media_token = true;
                valid_count += 1;
            } else {
                invalid_parts.push(part);
            }
        }
        let trimmed_payload = js_trim(payload_value);
        let looks_like_local_path =
            looks_like_local_file_path(trimmed_payload) || trimmed_payload.starts_with("file://");
        let payload_has_space = payload_value.contains(is_js_whitespace);
        let fallback = normalize_media_source(clean_candidate(payload_value));
        // The whole payload as one candidate, spaces allowed.
        let fallback_is_media = |allow_bare_filename| {
            let check = MediaCheck {
                allow_spaces: true,
                allow_bare_filename,
            };
            is_valid_media(fallback, check)
        };
        // No word was media, but the whole payload is.
        let payload_is_media = !has_valid_media && fallback_is_media(true);
        // An unquoted payload with spaces is taken whole when no word was media, or when one
        // word of a local path passed and the others did not.
        let whole_payload = unwrapped.is_none()
            && payload_has_space
            && (payload_is_media
                || (valid_count == 1
                    && !invalid_parts.is_empty()
                    && looks_like_local_path
                    && fallback_is_media(false)));
        if whole_payload || payload_is_media {
            media.truncate(media_start);
            media.push(fallback.to_owned());
            has_valid_media = true;
            found_media_token = true;
            // A payload taken whole that is quoted or has no spaces leaves OpenClaw's
            // `validCount` at 0, so no media segment is recorded for it.
            valid_count = usize::from(whole_payload);
            invalid_parts.clear();
        }

        let mut invalid_joined = String::new();
        if has_valid_media {
            let before = collapse_space_runs(&pieces.concat());
            let before = js_trim(&before);
            if !before.is_empty() {
                line_segments.push(MediaSegment::Text(before.to_owned()));
            }
            pieces.clear();
            for url in &media[media_start..media_start + valid_count] {
                line_segments.push(MediaSegment::Media(url.clone()));
            }
            if !invalid_parts.is_empty() {
                invalid_joined = invalid_parts.join(" ");
            }
        } else if looks_like_local_path {
            found_media_token = true;
        } else {
            pieces.push(&line[token_at..]);
        }
        if !invalid_joined.is_empty() {
            pieces.push(&invalid_joined);
        }
        // The token runs to the end of the line: nothing follows it.
        let cleaned_line = collapse_space_runs(&pieces.concat());
        let cleaned_line = js_trim(&cleaned_line);
        if !cleaned_line.is_empty() {
            kept_lines.push(Cow::Owned(cleaned_line.to_owned()));
            line_segments.push(MediaSegment::Text(cleaned_line.to_owned()));
        }
        for segment in line_segments {
            match segment {
                MediaSegment::Text(text) => push_text_segment(&mut segments, &text),
                media @ MediaSegment::Media(_) => segments.push(media),
            }
        }
    }

    let joined = kept_lines.join("\n");
    let joined = remove_spaces_before_newlines(&joined);
    let joined = collapse_space_runs(&joined);
    let joined = collapse_newline_runs(&joined, 2, "\n");
    let mut cleaned_text = js_trim(&joined).to_owned();
    let audio = parse_inline_directives(
        &cleaned_text,
        &InlineDirectiveOptions {
            current_message_id: None,
            strip_audio_tag: true,
            strip_reply_tags: false,
        },
    );
    let audio_as_voice = audio.audio_as_voice;
    if audio.has_audio_tag {
        cleaned_text = js_trim(&collapse_newline_runs(&audio.text, 2, "\n")).to_owned();
    }
    if media.is_empty() {
        let text = if found_media_token || audio_as_voice {
            cleaned_text
        } else {
            trimmed_raw.to_owned()
        };
        let segments = if text.is_empty() {
            Vec::new()
        } else {
            vec![MediaSegment::Text(text.clone())]
        };
        return MediaSplit {
            text,
            media_urls: Vec::new(),
            audio_as_voice,
            segments,
        };
    }
    if segments.is_empty() {
        segments.push(MediaSegment::Text(cleaned_text.clone()));
    }
    MediaSplit {
        text: cleaned_text,
        media_urls: media,
        audio_as_voice,
        segments,
    }
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
fn collapse_space_runs(text: &str) -> String {
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

/// Whether `text` contains `media:` in any ASCII case (OpenClaw `/media:/i`). The colon is
/// rare in prose, so it is searched with `memchr` and only its five bytes before compared.
fn contains_media_token(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b':', bytes).any(|colon| {
        colon
            .checked_sub(5)
            .and_then(|start| bytes.get(start..colon))
            .is_some_and(|word| word.eq_ignore_ascii_case(b"media"))
    })
}

#[cfg(test)]
mod tests {
    //! Expected values are OpenClaw 2026.4.12's own results for the same inputs
    //! (`splitMediaFromOutput`, run under node); fields left out of an expected value are the
    //! type's defaults.

    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn media_token_is_found_in_any_case_and_position() {
        let found = [
            ":",
            "media",
            "media:",
            "x MeDiA: y",
            "a:b:MEDIA:",
            "medi:a",
            "émedia:",
        ]
        .map(contains_media_token);
        assert_eq!(found, [false, false, true, true, true, false, true]);
    }

    #[test]
    fn split_media_from_output_matches_openclaw() {
        let cases = [
            (
                "Plain text, nothing to see.  ",
                MediaSplit {
                    text: "Plain text, nothing to see.".to_owned(),
                    ..Default::default()
                },
            ),
            (
                "Here you go.\nMEDIA: /tmp/a.png\nEnjoy!",
                MediaSplit {
                    text: "Here you go.\nEnjoy!".to_owned(),
                    media_urls: vec!["/tmp/a.png".to_owned()],
                    segments: vec![
                        MediaSegment::Text("Here you go.".to_owned()),
                        MediaSegment::Media("/tmp/a.png".to_owned()),
                        MediaSegment::Text("Enjoy!".to_owned()),
                    ],
                    ..Default::default()
                },
            ),
            (
                "  MEDIA: `./out/b.jpg`  ",
                MediaSplit {
                    media_urls: vec!["./out/b.jpg".to_owned()],
                    segments: vec![MediaSegment::Media("./out/b.jpg".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: \"/tmp/with space.png\"",
                MediaSplit {
                    media_urls: vec!["/tmp/with space.png".to_owned()],
                    segments: vec![MediaSegment::Media("/tmp/with space.png".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: /tmp/a.png https://x.test/b.png not-media",
                MediaSplit {
                    text: "not-media".to_owned(),
                    media_urls: vec!["/tmp/a.png".to_owned(), "https://x.test/b.png".to_owned()],
                    segments: vec![
                        MediaSegment::Media("/tmp/a.png".to_owned()),
                        MediaSegment::Media("https://x.test/b.png".to_owned()),
                        MediaSegment::Text("not-media".to_owned()),
                    ],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: /tmp/my file.png",
                MediaSplit {
                    media_urls: vec!["/tmp/my file.png".to_owned()],
                    segments: vec![MediaSegment::Media("/tmp/my file.png".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: report final.pdf",
                MediaSplit {
                    media_urls: vec!["report final.pdf".to_owned()],
                    segments: vec![MediaSegment::Media("report final.pdf".to_owned())],
                    ..Default::default()
                },
            ),
            ("MEDIA: ../etc/passwd", MediaSplit::default()),
            ("MEDIA: ~/secret.png", MediaSplit::default()),
            (
                "MEDIA: file:///tmp/c.ogg",
                MediaSplit {
                    media_urls: vec!["/tmp/c.ogg".to_owned()],
                    segments: vec![MediaSegment::Media("/tmp/c.ogg".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: C:\\pics\\d.png",
                MediaSplit {
                    media_urls: vec!["C:\\pics\\d.png".to_owned()],
                    segments: vec![MediaSegment::Media("C:\\pics\\d.png".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: mailto:someone",
                MediaSplit {
                    text: "MEDIA: mailto:someone".to_owned(),
                    segments: vec![MediaSegment::Text("MEDIA: mailto:someone".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: photo.png",
                MediaSplit {
                    media_urls: vec!["photo.png".to_owned()],
                    segments: vec![MediaSegment::Text("".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "media: /tmp/lower.png",
                MediaSplit {
                    text: "media: /tmp/lower.png".to_owned(),
                    segments: vec![MediaSegment::Text("media: /tmp/lower.png".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "see MEDIA: /tmp/inline.png",
                MediaSplit {
                    text: "see MEDIA: /tmp/inline.png".to_owned(),
                    segments: vec![MediaSegment::Text("see MEDIA: /tmp/inline.png".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "```\nMEDIA: /tmp/in-fence.png\n```\nMEDIA: /tmp/out.png",
                MediaSplit {
                    text: "```\nMEDIA: /tmp/in-fence.png\n```".to_owned(),
                    media_urls: vec!["/tmp/out.png".to_owned()],
                    segments: vec![
                        MediaSegment::Text("```\nMEDIA: /tmp/in-fence.png\n```".to_owned()),
                        MediaSegment::Media("/tmp/out.png".to_owned()),
                    ],
                    ..Default::default()
                },
            ),
            (
                "[[audio_as_voice]]\nMEDIA: /tmp/voice.ogg",
                MediaSplit {
                    media_urls: vec!["/tmp/voice.ogg".to_owned()],
                    audio_as_voice: true,
                    segments: vec![
                        MediaSegment::Text("[[audio_as_voice]]".to_owned()),
                        MediaSegment::Media("/tmp/voice.ogg".to_owned()),
                    ],
                    ..Default::default()
                },
            ),
            (
                "Hi [[audio_as_voice]] there",
                MediaSplit {
                    text: "Hi there".to_owned(),
                    audio_as_voice: true,
                    segments: vec![MediaSegment::Text("Hi there".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "Line one\n\n\nMEDIA: /tmp/e.png\n\nLine two",
                MediaSplit {
                    text: "Line one\nLine two".to_owned(),
                    media_urls: vec!["/tmp/e.png".to_owned()],
                    segments: vec![
                        MediaSegment::Text("Line one".to_owned()),
                        MediaSegment::Media("/tmp/e.png".to_owned()),
                        MediaSegment::Text("Line two".to_owned()),
                    ],
                    ..Default::default()
                },
            ),
            (
                "MEDIA:",
                MediaSplit {
                    text: "MEDIA:".to_owned(),
                    segments: vec![MediaSegment::Text("MEDIA:".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA:   ",
                MediaSplit {
                    text: "MEDIA:".to_owned(),
                    segments: vec![MediaSegment::Text("MEDIA:".to_owned())],
                    ..Default::default()
                },
            ),
            (
                "MEDIA: (/tmp/f.png),",
                MediaSplit {
                    media_urls: vec!["/tmp/f.png".to_owned()],
                    segments: vec![MediaSegment::Media("/tmp/f.png".to_owned())],
                    ..Default::default()
                },
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(split_media_from_output(input), expected, "{input:?}");
        }
    }

    #[test]
    fn long_media_paths_are_refused_past_4096_utf16_units() {
        let ok = format!("/{}", "y".repeat(4095));
        let too_long = format!("/{}", "y".repeat(4096));
        assert_eq!(
            split_media_from_output(&format!("MEDIA: {ok}")).media_urls,
            [ok]
        );
        assert_eq!(
            split_media_from_output(&format!("MEDIA: {too_long}")),
            MediaSplit::default()
        );
    }
}
