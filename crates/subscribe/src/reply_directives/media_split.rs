//! `MEDIA:` lines taken out of a text (OpenClaw `splitMediaFromOutput`): the lines are read one
//! by one ([`read_media_line`]) and put back together with the media segments in order.

use std::borrow::Cow;

use clawloop_core::js_text::{js_trim, js_trim_end};

use super::inline::{
    collapse_newline_runs, parse_inline_directives, remove_spaces_before_newlines,
};
use super::media_line::{MediaLine, collapse_space_runs, read_media_line};
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
    if !contains_media_token(trimmed_raw) && !trimmed_raw.contains("[[") {
        return MediaSplit {
            text: trimmed_raw.to_owned(),
            ..MediaSplit::default()
        };
    }
    finish(trimmed_raw, read_lines(trimmed_raw))
}

/// The lines of a text with its `MEDIA:` lines read.
#[derive(Default)]
struct ReadLines<'a> {
    /// The lines that stay in the text, a media line by what is left of it.
    kept: Vec<Cow<'a, str>>,
    segments: Vec<MediaSegment>,
    media: Vec<String>,
    /// Some line named media or a local path.
    names_media: bool,
}

impl<'a> ReadLines<'a> {
    /// A line that stays as it is.
    fn keep(&mut self, line: &'a str) {
        self.push_text(line);
        self.kept.push(Cow::Borrowed(line));
    }

    /// A `MEDIA:` line: its media segments, then what is left of it.
    fn add(&mut self, line: MediaLine) {
        self.names_media |= line.names_media;
        for url in line.media.iter().take(line.segment_media) {
            self.segments.push(MediaSegment::Media(url.clone()));
        }
        if let Some(kept) = line.kept {
            self.push_text(&kept);
            self.kept.push(Cow::Owned(kept));
        }
        self.media.extend(line.media);
    }

    /// Text lines next to each other form one segment.
    fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(MediaSegment::Text(last)) = self.segments.last_mut() {
            last.push('\n');
            last.push_str(text);
        } else {
            self.segments.push(MediaSegment::Text(text.to_owned()));
        }
    }
}

/// Reads every line of `text` outside fenced code as a possible `MEDIA:` line.
fn read_lines(text: &str) -> ReadLines<'_> {
    let mut fences = Vec::new();
    if text.contains("```") || text.contains("~~~") {
        crate::fences::parse_fences_into(text, &mut fences);
    }
    let inside_fence = |offset: usize| {
        fences
            .iter()
            .any(|span| offset >= span.start && offset < span.end)
    };
    let mut lines = ReadLines::default();
    let mut line_offset = 0;
    for line in text.split('\n') {
        let offset = line_offset;
        line_offset += line.len() + 1;
        match (!inside_fence(offset))
            .then(|| read_media_line(line))
            .flatten()
        {
            Some(media_line) => lines.add(media_line),
            None => lines.keep(line),
        }
    }
    lines
}

/// The split of `raw` (trimmed at the end) from its read lines.
fn finish(raw: &str, lines: ReadLines<'_>) -> MediaSplit {
    let (cleaned_text, audio_as_voice) = clean_text(&lines.kept);
    if lines.media.is_empty() {
        // Without media the text is returned as given unless a line or the audio tag went.
        let text = if lines.names_media || audio_as_voice {
            cleaned_text
        } else {
            raw.to_owned()
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
    let mut segments = lines.segments;
    if segments.is_empty() {
        segments.push(MediaSegment::Text(cleaned_text.clone()));
    }
    MediaSplit {
        text: cleaned_text,
        media_urls: lines.media,
        audio_as_voice,
        segments,
    }
}

/// The kept lines joined and cleaned, with `[[audio_as_voice]]` read and removed.
fn clean_text(kept: &[Cow<'_, str>]) -> (String, bool) {
    let joined = kept.join("\n");
    let joined = remove_spaces_before_newlines(&joined);
    let joined = collapse_space_runs(&joined);
    let joined = collapse_newline_runs(&joined, 2, "\n");
    let cleaned_text = js_trim(&joined).to_owned();
    let audio = parse_inline_directives(
        &cleaned_text,
        &InlineDirectiveOptions {
            current_message_id: None,
            strip_audio_tag: true,
            strip_reply_tags: false,
        },
    );
    if audio.has_audio_tag {
        let text = js_trim(&collapse_newline_runs(&audio.text, 2, "\n")).to_owned();
        return (text, audio.audio_as_voice);
    }
    (cleaned_text, audio.audio_as_voice)
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
