//! History limiting (reference openclaw-runner §8, OpenClaw `pi-embedded-runner/history.ts`):
//! keep the last N user turns, with N configured per channel and per direct-message peer.

use serde_json::Value;

use clawloop_core::message::{AgentMessage, JsonObject};

use super::provider_id::normalize_provider_id;

/// The last `limit` user turns of `messages`: the suffix that starts at the `limit`-th user
/// message counted from the end (OpenClaw `limitHistoryTurns`).
///
/// `None` and `Some(0)` mean no limit, and a transcript with at most `limit` user messages is
/// returned whole; both return `messages` itself. Otherwise the result starts at a user
/// message, so assistant and tool messages before the first kept user message are dropped.
///
/// ```
/// use clawloop_core::message::{AgentMessage, UserMessage};
/// use clawloop_session::transforms::limit_history_turns;
///
/// let messages: Vec<AgentMessage> =
///     ["a", "b", "c"].map(|t| UserMessage::text(t, 0).into()).to_vec();
/// let kept: Vec<String> = limit_history_turns(&messages, Some(2)).iter().map(|m| m.text()).collect();
/// assert_eq!(kept, ["b", "c"]);
/// ```
pub fn limit_history_turns(messages: &[AgentMessage], limit: Option<u64>) -> &[AgentMessage] {
    let Some(limit) = limit.filter(|&l| l > 0) else {
        return messages;
    };
    let mut user_count = 0u64;
    let mut last_user_index = messages.len();
    for (i, message) in messages.iter().enumerate().rev() {
        if message.role() == "user" {
            user_count += 1;
            if user_count > limit {
                return &messages[last_user_index..];
            }
            last_user_index = i;
        }
    }
    messages
}

/// The history limit configured for a session key (OpenClaw `getHistoryLimitFromSessionKey`).
///
/// The key is split on `:` (empty parts dropped); a key of three or more parts starting with
/// `agent` loses its `agent:<agentId>` prefix. What remains is `<provider>:<kind>:<peer…>`.
/// `channels` is the `channels` config object: the first entry whose key normalizes to the
/// same provider id ([`normalize_provider_id`]) applies, if it is an object.
///
/// * kind `dm` or `direct`: `dms.<peer>.historyLimit` when that key is present (0 included),
///   else `dmHistoryLimit`. The peer id loses a trailing `:thread:<digits>` or
///   `:topic:<digits>` (any case), so a thread of a DM shares its limit.
/// * kind `channel` or `group`: `historyLimit`.
/// * anything else: `None`.
///
/// Limits are JSON numbers; a value that is not a number counts as unset (`None`). OpenClaw
/// passes the number on as it is; here it becomes a turn count: rounded down, negatives 0
/// (which, like OpenClaw's `<= 0`, means no limit). A fraction between 0 and 1 therefore means
/// no limit here, where OpenClaw would keep no turns at all; configs should not hold one.
///
/// ```
/// use clawloop_session::transforms::history_limit_from_session_key;
/// use serde_json::json;
///
/// let channels = json!({"telegram": {"dmHistoryLimit": 20, "dms": {"123": {"historyLimit": 7}}}});
/// let channels = channels.as_object().cloned().unwrap_or_default();
/// assert_eq!(history_limit_from_session_key("agent:main:telegram:dm:123:thread:999", &channels), Some(7));
/// assert_eq!(history_limit_from_session_key("telegram:dm:456", &channels), Some(20));
/// ```
pub fn history_limit_from_session_key(session_key: &str, channels: &JsonObject) -> Option<u64> {
    let parts: Vec<&str> = session_key.split(':').filter(|p| !p.is_empty()).collect();
    let provider_parts = if parts.len() >= 3 && parts[0] == "agent" {
        &parts[2..]
    } else {
        &parts[..]
    };
    let provider = normalize_provider_id(provider_parts.first().copied().unwrap_or(""));
    if provider.is_empty() {
        return None;
    }
    let kind = provider_parts
        .get(1)
        .map(|k| clawloop_core::js_text::js_trim(k).to_lowercase());
    let user_id_raw = provider_parts.get(2..).unwrap_or(&[]).join(":");
    let user_id = strip_thread_suffix(&user_id_raw);

    let config = channels
        .iter()
        .find(|(key, _)| normalize_provider_id(key) == provider)
        .and_then(|(_, value)| value.as_object())?;

    match kind.as_deref() {
        Some("dm" | "direct") => {
            let per_peer = config
                .get("dms")
                .and_then(Value::as_object)
                .filter(|_| !user_id.is_empty())
                .and_then(|dms| dms.get(user_id))
                .and_then(Value::as_object)
                .and_then(|peer| peer.get("historyLimit"));
            // A present per-peer value wins even when it is not a usable number, as in
            // OpenClaw (`!== undefined`), so a peer can opt out of the DM default.
            match per_peer {
                Some(v) => limit_value(v),
                None => config.get("dmHistoryLimit").and_then(limit_value),
            }
        }
        Some("channel" | "group") => config.get("historyLimit").and_then(limit_value),
        _ => None,
    }
}

/// A configured limit as a turn count; `None` for anything but a number.
fn limit_value(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    if v.as_i64().is_some() {
        // Negative integers: "no limit", like OpenClaw's `limit <= 0`.
        return Some(0);
    }
    let f = v.as_f64()?;
    // Rounded down and clamped; JSON numbers are finite, and `as` saturates.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(f.max(0.0).floor() as u64)
}

/// The peer id without a trailing `:thread:<digits>` / `:topic:<digits>` (OpenClaw's
/// `/^(.*)(?::(?:thread|topic):\d+)$/i`).
fn strip_thread_suffix(value: &str) -> &str {
    let without_digits = value.trim_end_matches(|c: char| c.is_ascii_digit());
    if without_digits.len() == value.len() {
        return value;
    }
    for marker in [":thread:", ":topic:"] {
        let Some(cut) = without_digits.len().checked_sub(marker.len()) else {
            continue;
        };
        // Both markers are ASCII, so a char boundary check is all that slicing needs.
        let (Some(head), Some(tail)) = (without_digits.get(..cut), without_digits.get(cut..))
        else {
            continue;
        };
        // JS `.` stops at line terminators, so a prefix holding one does not match.
        if tail.eq_ignore_ascii_case(marker)
            && !head
                .chars()
                .any(clawloop_core::js_text::is_js_line_terminator)
        {
            return head;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ContentBlock, UserMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn user(t: &str) -> AgentMessage {
        UserMessage::text(t, 0).into()
    }

    fn assistant(t: &str) -> AgentMessage {
        let mut m = AssistantMessage::empty("openai-completions", "openai", "m", 0);
        m.content.push(ContentBlock::text(t));
        m.into()
    }

    fn texts(messages: &[AgentMessage]) -> Vec<String> {
        messages.iter().map(AgentMessage::text).collect()
    }

    fn conversation() -> Vec<AgentMessage> {
        vec![
            user("message 1"),
            assistant("reply 1"),
            user("message 2"),
            assistant("reply 2"),
            user("message 3"),
            assistant("reply 3"),
        ]
    }

    #[test]
    fn reference_vectors() {
        let all = conversation();
        let every = texts(&all);
        let every: Vec<&str> = every.iter().map(String::as_str).collect();
        let cases: Vec<(Vec<AgentMessage>, Option<u64>, Vec<&str>)> = vec![
            (all.clone(), Some(1), vec!["message 3", "reply 3"]),
            (
                all.clone(),
                Some(2),
                vec!["message 2", "reply 2", "message 3", "reply 3"],
            ),
            (
                vec![
                    user("u1"),
                    assistant("a1"),
                    assistant("a2"),
                    user("u2"),
                    assistant("a3"),
                ],
                Some(1),
                vec!["u2", "a3"],
            ),
            (all.clone(), Some(0), every.clone()),
            (all.clone(), None, every.clone()),
            (all.clone(), Some(3), every.clone()),
            (all.clone(), Some(99), every.clone()),
            (vec![assistant("a"), user("u")], Some(1), vec!["a", "u"]),
            (Vec::new(), Some(1), Vec::new()),
        ];
        for (messages, limit, expected) in &cases {
            assert_eq!(
                texts(limit_history_turns(messages, *limit)),
                *expected,
                "limit {limit:?}"
            );
        }
    }

    #[test]
    fn unlimited_returns_the_same_slice() {
        let all = conversation();
        assert!(std::ptr::eq(
            limit_history_turns(&all, None),
            all.as_slice()
        ));
        assert!(std::ptr::eq(
            limit_history_turns(&all, Some(5)),
            all.as_slice()
        ));
    }

    fn channels(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn session_key_vectors() {
        let cfg = channels(json!({
            "Telegram": {"dmHistoryLimit": 20, "historyLimit": 50,
                         "dms": {"123": {"historyLimit": 7}, "user:thread:abc": {"historyLimit": 3},
                                 "zero": {"historyLimit": 0}, "nulled": {"historyLimit": null}}},
            "slack": {"historyLimit": 12, "dmHistoryLimit": 3},
            "z.ai": {"historyLimit": 4},
            "broken": [1, 2],
            "neg": {"historyLimit": -5, "dmHistoryLimit": 2.7},
        }));
        let cases: [(&str, Option<u64>); 20] = [
            ("agent:main:telegram:dm:123:thread:999", Some(7)),
            ("agent:main:telegram:dm:123:TOPIC:1", Some(7)),
            ("agent:main:telegram:dm:user:thread:abc", Some(3)),
            ("agent:main:telegram:direct:456", Some(20)),
            ("telegram:dm:123", Some(7)),
            ("telegram:DM:zero", Some(0)),
            ("telegram:dm:nulled", None),
            ("telegram:dm", Some(20)),
            ("telegram:group:g1", Some(50)),
            ("agent:beta:slack:channel:c1", Some(12)),
            ("slack:dm:u", Some(3)),
            ("slack:thread:x", None),
            ("agent:main:zai:channel:c", Some(4)),
            ("discord:channel:c", None),
            ("broken:channel:c", None),
            ("neg:channel:c", Some(0)),
            ("neg:dm:x", Some(2)),
            ("", None),
            ("agent:main", None),
            ("::telegram::dm::123", Some(7)),
        ];
        let actual: Vec<(&str, Option<u64>)> = cases
            .iter()
            .map(|(key, _)| (*key, history_limit_from_session_key(key, &cfg)))
            .collect();
        assert_eq!(actual, cases.to_vec());
    }

    #[test]
    fn thread_suffix_vectors() {
        let cases = [
            ("123:thread:999", "123"),
            ("123:Thread:9", "123"),
            ("123:topic:42", "123"),
            ("a:thread:1:thread:2", "a:thread:1"),
            ("user:thread:abc", "user:thread:abc"),
            ("123:thread:", "123:thread:"),
            ("123", "123"),
            (":thread:5", ""),
            ("a\nb:thread:5", "a\nb:thread:5"),
            ("é:thread:1", "é"),
            ("", ""),
        ];
        let actual: Vec<(&str, &str)> = cases
            .iter()
            .map(|(input, _)| (*input, strip_thread_suffix(input)))
            .collect();
        assert_eq!(actual, cases.to_vec());
    }
}
