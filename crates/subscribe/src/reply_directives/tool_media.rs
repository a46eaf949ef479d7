//! The media a tool result hands to the next reply (OpenClaw
//! `extractToolResultMediaArtifact`, `filterToolResultMediaUrls` and the media part of
//! `emitToolResultOutput`), and the media waiting for that reply.

use clawloop_core::js_text::js_trim;
use serde_json::Value;

use super::media_line::is_http_url;
use super::media_split::split_media_from_output;
use crate::tool_display::is_compact_tool_output;
use crate::tool_meta::{normalize_tool_name, openclaw_tool_name};

/// Tools whose results may attach local files (OpenClaw `TRUSTED_TOOL_RESULT_MEDIA`); media of
/// other tools is kept only when it is an `http(s)` URL.
pub const TRUSTED_TOOL_RESULT_MEDIA: &[&str] = &[
    "agents_list",
    "apply_patch",
    "browser",
    "canvas",
    "cron",
    "edit",
    "exec",
    "gateway",
    "image",
    "image_generate",
    "memory_get",
    "memory_search",
    "message",
    "music_generate",
    "nodes",
    "process",
    "read",
    "session_status",
    "sessions_history",
    "sessions_list",
    "sessions_send",
    "sessions_spawn",
    "subagents",
    "tts",
    "video_generate",
    "web_fetch",
    "web_search",
    "x_search",
    "write",
];

/// Tools of OpenClaw 2026.4.12's bundled plugins (`contracts.tools` of the firecrawl, tavily and
/// xai manifests), trusted like [`TRUSTED_TOOL_RESULT_MEDIA`].
pub const TRUSTED_BUNDLED_PLUGIN_MEDIA_TOOLS: &[&str] = &[
    "firecrawl_search",
    "firecrawl_scrape",
    "tavily_search",
    "tavily_extract",
    "code_execution",
    "x_search",
];

/// Media a tool result carries (OpenClaw `extractToolResultMediaArtifact` result).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolMediaArtifact {
    /// The media, in order.
    pub media_urls: Vec<String>,
    /// `details.media.audioAsVoice` was `true`.
    pub audio_as_voice: bool,
}

/// The media of a tool result (OpenClaw `extractToolResultMediaArtifact`): structured
/// `details.media` (`mediaUrl`, `mediaUrls`, `audioAsVoice`) first, then `MEDIA:` lines of the
/// text blocks, then, for a result with an image block, `details.path`.
pub fn extract_tool_result_media_artifact(result: &Value) -> Option<ToolMediaArtifact> {
    let record = result.as_object()?;
    if let Some(media) = details_media(result) {
        let mut urls: Vec<String> = Vec::new();
        let mut add = |url: &str| {
            let url = js_trim(url);
            if !url.is_empty() && !urls.iter().any(|u| u == url) {
                urls.push(url.to_owned());
            }
        };
        if let Some(url) = media.get("mediaUrl").and_then(Value::as_str) {
            add(url);
        }
        if let Some(list) = media.get("mediaUrls").and_then(Value::as_array) {
            list.iter().filter_map(Value::as_str).for_each(&mut add);
        }
        if !urls.is_empty() {
            return Some(ToolMediaArtifact {
                media_urls: urls,
                audio_as_voice: media.get("audioAsVoice") == Some(&Value::Bool(true)),
            });
        }
    }
    let content = record.get("content")?.as_array()?;
    let mut paths = Vec::new();
    let mut has_image = false;
    for item in content {
        match item.get("type").and_then(Value::as_str) {
            Some("image") => has_image = true,
            Some("text") => {
                if let Some(text) = item.get("text").and_then(Value::as_str) {
                    paths.extend(split_media_from_output(text).media_urls);
                }
            }
            _ => {}
        }
    }
    if !paths.is_empty() {
        return Some(ToolMediaArtifact {
            media_urls: paths,
            audio_as_voice: false,
        });
    }
    if has_image
        && let Some(path) = record
            .get("details")
            .and_then(|d| d.get("path"))
            .and_then(Value::as_str)
            .map(js_trim)
            .filter(|p| !p.is_empty())
    {
        return Some(ToolMediaArtifact {
            media_urls: vec![path.to_owned()],
            audio_as_voice: false,
        });
    }
    None
}

/// Keeps the media a tool may attach (OpenClaw `filterToolResultMediaUrls`): everything for a
/// trusted tool ([`TRUSTED_TOOL_RESULT_MEDIA`], [`TRUSTED_BUNDLED_PLUGIN_MEDIA_TOOLS`]) that is
/// not an MCP tool (`details.mcpServer` / `details.mcpTool`), only `http(s)` URLs otherwise.
pub fn filter_tool_result_media_urls(
    tool_name: &str,
    media_urls: &[String],
    result: &Value,
) -> Vec<String> {
    if media_urls.is_empty() || is_tool_result_media_trusted(tool_name, result) {
        return media_urls.to_vec();
    }
    media_urls
        .iter()
        .filter(|url| is_http_url(js_trim(url)))
        .cloned()
        .collect()
}

fn is_tool_result_media_trusted(tool_name: &str, result: &Value) -> bool {
    if tool_name.is_empty() {
        return false;
    }
    let external = details_object(result).is_some_and(|d| {
        d.get("mcpServer").is_some_and(Value::is_string)
            || d.get("mcpTool").is_some_and(Value::is_string)
    });
    if external {
        return false;
    }
    let name = normalize_tool_name(tool_name);
    let name = openclaw_tool_name(&name);
    TRUSTED_TOOL_RESULT_MEDIA.contains(&name) || TRUSTED_BUNDLED_PLUGIN_MEDIA_TOOLS.contains(&name)
}

/// `result.details` when it is an object (not an array).
fn details_object(result: &Value) -> Option<&serde_json::Map<String, Value>> {
    result.get("details")?.as_object()
}

/// `result.details.media` when both are objects.
fn details_media(result: &Value) -> Option<&serde_json::Map<String, Value>> {
    details_object(result)?.get("media")?.as_object()
}

/// How tool output is shown, which decides whether a result's media also waits for the next
/// reply (OpenClaw `emitToolResultOutput`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolOutputDisplay {
    /// Tool output is emitted (verbose level `full`).
    pub emit_output: bool,
    /// Tool output is plain text rather than markdown (`toolResultFormat: "plain"`).
    pub plain: bool,
}

/// The media a finished tool call leaves for the next block reply (the media part of OpenClaw
/// `emitToolResultOutput`): none for a failed call or an exec-approval result; when the output
/// itself is shown (verbose `full`, or the compact provider list of `image_generate` /
/// `video_generate`), only structured `details.media` still goes to the reply, minus what plain
/// output already showed; otherwise the result's media, filtered for the tool.
pub fn tool_result_pending_media(
    tool_name: &str,
    result: &Value,
    is_error: bool,
    display: ToolOutputDisplay,
) -> Option<ToolMediaArtifact> {
    if is_error || is_exec_approval_result(result) {
        return None;
    }
    let output_text = crate::tool_meta::tool_result_text(result);
    let mut shown: Vec<String> = Vec::new();
    if display.emit_output || is_compact_tool_output(tool_name, result, output_text.as_deref()) {
        if display.plain
            && let Some(text) = output_text.as_deref()
        {
            let urls = split_media_from_output(text).media_urls;
            shown = filter_tool_result_media_urls(tool_name, &urls, result);
        }
        // The output was shown: only structured media still goes to the reply.
        details_media(result)?;
    }
    let artifact = extract_tool_result_media_artifact(result)?;
    let mut media_urls = filter_tool_result_media_urls(tool_name, &artifact.media_urls, result);
    if !artifact.audio_as_voice && !shown.is_empty() {
        media_urls.retain(|url| !shown.contains(url));
    }
    (!media_urls.is_empty()).then_some(ToolMediaArtifact {
        media_urls,
        audio_as_voice: artifact.audio_as_voice,
    })
}

/// An exec result waiting for approval, or saying approval is unavailable (OpenClaw
/// `readExecApprovalPendingDetails` / `readExecApprovalUnavailableDetails`): such results end
/// the tool handling before media.
fn is_exec_approval_result(result: &Value) -> bool {
    let Some(outer) = result.as_object() else {
        return false;
    };
    let details = outer
        .get("details")
        .and_then(Value::as_object)
        .unwrap_or(outer);
    let text = |key: &str| {
        details
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    match details.get("status").and_then(Value::as_str) {
        Some("approval-pending") => {
            text("approvalId").is_some()
                && text("approvalSlug").is_some()
                && text("command").is_some()
                && matches!(text("host"), Some("node" | "gateway"))
        }
        Some("approval-unavailable") => matches!(
            text("reason"),
            Some(
                "initiating-platform-disabled"
                    | "initiating-platform-unsupported"
                    | "no-approval-route"
            )
        ),
        _ => false,
    }
}

/// Tool media waiting for the next non-reasoning block reply (OpenClaw
/// `pendingToolMediaUrls` / `pendingToolAudioAsVoice`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PendingToolMedia {
    urls: Vec<String>,
    audio_as_voice: bool,
}

impl PendingToolMedia {
    /// OpenClaw `queuePendingToolMedia`: new URLs appended, the audio flag kept once set.
    pub(crate) fn queue(&mut self, artifact: ToolMediaArtifact) {
        for url in artifact.media_urls {
            if !self.urls.contains(&url) {
                self.urls.push(url);
            }
        }
        self.audio_as_voice |= artifact.audio_as_voice;
    }

    /// Nothing is waiting.
    pub(crate) fn is_empty(&self) -> bool {
        self.urls.is_empty() && !self.audio_as_voice
    }

    /// OpenClaw `consumePendingToolMediaIntoReply`: the waiting media appended to `media_urls`
    /// (duplicates dropped) and the audio flag or-ed into `audio_as_voice`; then nothing waits.
    pub(crate) fn merge_into(&mut self, media_urls: &mut Vec<String>, audio_as_voice: &mut bool) {
        if self.is_empty() {
            return;
        }
        let mut merged: Vec<String> = Vec::with_capacity(media_urls.len() + self.urls.len());
        for url in media_urls.drain(..).chain(self.urls.drain(..)) {
            if !merged.contains(&url) {
                merged.push(url);
            }
        }
        *media_urls = merged;
        *audio_as_voice |= self.audio_as_voice;
        self.audio_as_voice = false;
    }

    /// OpenClaw `consumePendingToolMediaReply`: the waiting media and audio flag, taken.
    pub(crate) fn take(&mut self) -> Option<(Vec<String>, bool)> {
        if self.is_empty() {
            return None;
        }
        let audio = std::mem::take(&mut self.audio_as_voice);
        Some((std::mem::take(&mut self.urls), audio))
    }

    /// Forgets everything (compaction retry).
    pub(crate) fn clear(&mut self) {
        self.urls.clear();
        self.audio_as_voice = false;
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are OpenClaw 2026.4.12's own results for the same inputs
    //! (`extractToolResultMediaArtifact`, `filterToolResultMediaUrls`, run under node).

    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn tool_result_media_matches_openclaw() {
        // (tool, result, extractToolResultMediaArtifact, filterToolResultMediaUrls of it)
        let cases = [
            (
                "read",
                json!({"content":[{"type":"text","text":"saved\nMEDIA: /tmp/a.png\nMEDIA: /tmp/a.png"}]}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["/tmp/a.png".to_owned(), "/tmp/a.png".to_owned()],
                    audio_as_voice: false,
                }),
                vec!["/tmp/a.png".to_owned(), "/tmp/a.png".to_owned()],
            ),
            (
                "foo",
                json!({"content":[{"type":"text","text":"MEDIA: /tmp/a.png https://x.test/b.png"}]}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["/tmp/a.png".to_owned(), "https://x.test/b.png".to_owned()],
                    audio_as_voice: false,
                }),
                vec!["https://x.test/b.png".to_owned()],
            ),
            (
                "Bash",
                json!({"content":[{"type":"text","text":"MEDIA: /tmp/run.log"}]}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["/tmp/run.log".to_owned()],
                    audio_as_voice: false,
                }),
                vec!["/tmp/run.log".to_owned()],
            ),
            (
                "read",
                json!({"content":[{"type":"text","text":"MEDIA: /tmp/a.png"}],"details":{"mcpServer":"srv"}}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["/tmp/a.png".to_owned()],
                    audio_as_voice: false,
                }),
                vec![],
            ),
            (
                "tts",
                json!({"content":[],"details":{"media":{"mediaUrl":" /tmp/v.opus ","mediaUrls":["/tmp/v.opus",3," ","/tmp/w.opus"],"audioAsVoice":true}}}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["/tmp/v.opus".to_owned(), "/tmp/w.opus".to_owned()],
                    audio_as_voice: true,
                }),
                vec!["/tmp/v.opus".to_owned(), "/tmp/w.opus".to_owned()],
            ),
            (
                "image",
                json!({"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"details":{"path":" /tmp/img.png "}}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["/tmp/img.png".to_owned()],
                    audio_as_voice: false,
                }),
                vec!["/tmp/img.png".to_owned()],
            ),
            (
                "image",
                json!({"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}),
                None,
                vec![],
            ),
            (
                "read",
                json!({"content":[{"type":"text","text":"no media"}],"details":{"media":{"mediaUrls":[]}}}),
                None,
                vec![],
            ),
            (
                "x_search",
                json!({"content":[{"type":"text","text":"MEDIA: ./a/b.png"}]}),
                Some(ToolMediaArtifact {
                    media_urls: vec!["./a/b.png".to_owned()],
                    audio_as_voice: false,
                }),
                vec!["./a/b.png".to_owned()],
            ),
        ];
        for (tool, result, artifact, filtered) in cases {
            let got = extract_tool_result_media_artifact(&result);
            assert_eq!(got, artifact, "{result}");
            let urls = got.map(|a| a.media_urls).unwrap_or_default();
            assert_eq!(
                filter_tool_result_media_urls(tool, &urls, &result),
                filtered,
                "{tool} {result}"
            );
        }
    }

    /// The media part of OpenClaw `emitToolResultOutput`
    /// (pi-embedded-runner-CefZK1Pt.js 1849-1922).
    #[test]
    fn pending_media_follows_emit_tool_result_output() {
        let text_media = json!({"content": [{"type": "text", "text": "MEDIA: /tmp/a.png"}]});
        let structured = json!({
            "content": [{"type": "text", "text": "MEDIA: /tmp/a.png"}],
            "details": {"media": {"mediaUrls": ["/tmp/a.png", "/tmp/b.png"]}},
        });
        let artifact = |urls: &[&str], audio_as_voice: bool| {
            Some(ToolMediaArtifact {
                media_urls: urls.iter().map(|u| (*u).to_owned()).collect(),
                audio_as_voice,
            })
        };
        let quiet = ToolOutputDisplay::default();
        let full = ToolOutputDisplay {
            emit_output: true,
            plain: false,
        };
        let full_plain = ToolOutputDisplay {
            emit_output: true,
            plain: true,
        };
        assert_eq!(
            tool_result_pending_media("read", &text_media, false, quiet),
            artifact(&["/tmp/a.png"], false)
        );
        // A failed call leaves nothing.
        assert_eq!(
            tool_result_pending_media("read", &text_media, true, quiet),
            None
        );
        // Shown output carries its own media; only structured media still waits.
        assert_eq!(
            tool_result_pending_media("read", &text_media, false, full),
            None
        );
        assert_eq!(
            tool_result_pending_media("read", &structured, false, full),
            artifact(&["/tmp/a.png", "/tmp/b.png"], false)
        );
        // Plain output already showed `/tmp/a.png`.
        assert_eq!(
            tool_result_pending_media("read", &structured, false, full_plain),
            artifact(&["/tmp/b.png"], false)
        );
        // The compact provider list of image_generate counts as shown output.
        let providers = json!({
            "content": [{"type": "text", "text": "providers: a, b\nMEDIA: /tmp/p.png"}],
            "details": {"providers": []},
        });
        assert_eq!(
            tool_result_pending_media("image_generate", &providers, false, quiet),
            None
        );
        assert_eq!(
            tool_result_pending_media("read", &providers, false, quiet),
            artifact(&["/tmp/p.png"], false)
        );
        // Exec approval results end before media.
        let approval = json!({
            "content": [{"type": "text", "text": "MEDIA: /tmp/a.png"}],
            "details": {"status": "approval-pending", "approvalId": "1", "approvalSlug": "s",
                        "command": "ls", "host": "gateway"},
        });
        assert_eq!(
            tool_result_pending_media("exec", &approval, false, quiet),
            None
        );
        // Untrusted local media is filtered out entirely.
        assert_eq!(
            tool_result_pending_media("custom", &text_media, false, quiet),
            None
        );
    }

    #[test]
    fn pending_tool_media_merges_once_then_is_empty() {
        let mut pending = PendingToolMedia::default();
        pending.queue(ToolMediaArtifact {
            media_urls: vec!["/a.png".into(), "/b.png".into()],
            audio_as_voice: false,
        });
        pending.queue(ToolMediaArtifact {
            media_urls: vec!["/b.png".into(), "/c.ogg".into()],
            audio_as_voice: true,
        });
        let mut media = vec![
            "/c.ogg".to_owned(),
            "/own.png".to_owned(),
            "/own.png".to_owned(),
        ];
        let mut audio = false;
        pending.merge_into(&mut media, &mut audio);
        assert_eq!(media, ["/c.ogg", "/own.png", "/a.png", "/b.png"]);
        assert!(audio);
        assert!(pending.is_empty());
        assert_eq!(pending.take(), None);

        pending.queue(ToolMediaArtifact {
            media_urls: vec!["/d.png".into()],
            audio_as_voice: false,
        });
        assert_eq!(pending.take(), Some((vec!["/d.png".to_owned()], false)));
        assert_eq!(pending, PendingToolMedia::default());
    }
}
