//! OpenClaw's tool-display table (`tool-display-config.ts`): the emoji, title, detail keys and
//! per-action labels of every built-in tool, plus the fallback for unknown tools.

/// One action of a tool with actions (`browser`, `message`, `cron`, …).
#[derive(Debug)]
pub(super) struct ActionSpec {
    /// The `action` argument, matched exactly (after trimming).
    pub(super) action: &'static str,
    /// The verb shown for the action.
    pub(super) label: &'static str,
    /// Argument paths whose values describe the call; `None` defers to the tool's keys.
    pub(super) detail_keys: Option<&'static [&'static str]>,
}

/// How one tool is displayed.
#[derive(Debug)]
pub(super) struct ToolSpec {
    /// The lowercased tool name.
    pub(super) key: &'static str,
    /// Emoji shown before the label.
    pub(super) emoji: &'static str,
    /// Human title (OpenClaw has no separate labels, so the label is the title).
    pub(super) title: &'static str,
    /// Argument paths whose values describe the call; `None` falls back to
    /// [`FALLBACK_DETAIL_KEYS`]. An empty list means "never".
    pub(super) detail_keys: Option<&'static [&'static str]>,
    /// Per-action labels and keys.
    pub(super) actions: &'static [ActionSpec],
}

impl ToolSpec {
    /// The spec of `action`, if the tool knows it.
    pub(super) fn action(&self, action: &str) -> Option<&'static ActionSpec> {
        self.actions.iter().find(|a| a.action == action)
    }
}

/// Emoji of tools missing from the table.
pub(super) const FALLBACK_EMOJI: &str = "🧩";

/// Detail keys of tools (or actions) that name none.
pub(super) const FALLBACK_DETAIL_KEYS: &[&str] = &[
    "command",
    "path",
    "url",
    "targetUrl",
    "targetId",
    "ref",
    "element",
    "node",
    "nodeId",
    "id",
    "requestId",
    "to",
    "channelId",
    "guildId",
    "userId",
    "name",
    "query",
    "pattern",
    "messageId",
];

/// The spec of a lowercased tool name.
pub(super) fn tool_spec(key: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.key == key)
}

const fn tool(
    key: &'static str,
    emoji: &'static str,
    title: &'static str,
    detail_keys: Option<&'static [&'static str]>,
    actions: &'static [ActionSpec],
) -> ToolSpec {
    ToolSpec {
        key,
        emoji,
        title,
        detail_keys,
        actions,
    }
}

const fn action(
    action: &'static str,
    label: &'static str,
    detail_keys: Option<&'static [&'static str]>,
) -> ActionSpec {
    ActionSpec {
        action,
        label,
        detail_keys,
    }
}

/// An action whose label is its own name (most of them).
const fn verb(name: &'static str, detail_keys: Option<&'static [&'static str]>) -> ActionSpec {
    action(name, name, detail_keys)
}

static TOOLS: &[ToolSpec] = &[
    tool("bash", "🛠️", "Bash", Some(&["command"]), &[]),
    tool("process", "🧰", "Process", Some(&["sessionId"]), &[]),
    tool("read", "📖", "Read", Some(&["path"]), &[]),
    tool("write", "✍️", "Write", Some(&["path"]), &[]),
    tool("edit", "📝", "Edit", Some(&["path"]), &[]),
    tool(
        "attach",
        "📎",
        "Attach",
        Some(&["path", "url", "fileName"]),
        &[],
    ),
    tool(
        "browser",
        "🌐",
        "Browser",
        None,
        &[
            verb("status", None),
            verb("start", None),
            verb("stop", None),
            verb("tabs", None),
            verb("open", Some(&["targetUrl"])),
            verb("focus", Some(&["targetId"])),
            verb("close", Some(&["targetId"])),
            verb(
                "snapshot",
                Some(&["targetUrl", "targetId", "ref", "element", "format"]),
            ),
            verb(
                "screenshot",
                Some(&["targetUrl", "targetId", "ref", "element"]),
            ),
            verb("navigate", Some(&["targetUrl", "targetId"])),
            verb("console", Some(&["level", "targetId"])),
            verb("pdf", Some(&["targetId"])),
            verb(
                "upload",
                Some(&["paths", "ref", "inputRef", "element", "targetId"]),
            ),
            verb("dialog", Some(&["accept", "promptText", "targetId"])),
            verb(
                "act",
                Some(&[
                    "request.kind",
                    "request.ref",
                    "request.selector",
                    "request.text",
                    "request.value",
                ]),
            ),
        ],
    ),
    tool(
        "canvas",
        "🖼️",
        "Canvas",
        None,
        &[
            verb("present", Some(&["target", "node", "nodeId"])),
            verb("hide", Some(&["node", "nodeId"])),
            verb("navigate", Some(&["url", "node", "nodeId"])),
            verb("eval", Some(&["javaScript", "node", "nodeId"])),
            verb("snapshot", Some(&["format", "node", "nodeId"])),
            action(
                "a2ui_push",
                "A2UI push",
                Some(&["jsonlPath", "node", "nodeId"]),
            ),
            action("a2ui_reset", "A2UI reset", Some(&["node", "nodeId"])),
        ],
    ),
    tool(
        "nodes",
        "📱",
        "Nodes",
        None,
        &[
            verb("status", None),
            verb("describe", Some(&["node", "nodeId"])),
            verb("pending", None),
            verb("approve", Some(&["requestId"])),
            verb("reject", Some(&["requestId"])),
            verb("notify", Some(&["node", "nodeId", "title", "body"])),
            action(
                "camera_snap",
                "camera snap",
                Some(&["node", "nodeId", "facing", "deviceId"]),
            ),
            action("camera_list", "camera list", Some(&["node", "nodeId"])),
            action(
                "camera_clip",
                "camera clip",
                Some(&["node", "nodeId", "facing", "duration", "durationMs"]),
            ),
            action(
                "screen_record",
                "screen record",
                Some(&[
                    "node",
                    "nodeId",
                    "duration",
                    "durationMs",
                    "fps",
                    "screenIndex",
                ]),
            ),
        ],
    ),
    tool(
        "cron",
        "⏰",
        "Cron",
        None,
        &[
            verb("status", None),
            verb("list", None),
            verb(
                "add",
                Some(&["job.name", "job.id", "job.schedule", "job.cron"]),
            ),
            verb("update", Some(&["id"])),
            verb("remove", Some(&["id"])),
            verb("run", Some(&["id"])),
            verb("runs", Some(&["id"])),
            verb("wake", Some(&["text", "mode"])),
        ],
    ),
    tool(
        "update_plan",
        "🗺️",
        "Update Plan",
        Some(&["explanation", "plan.0.step"]),
        &[],
    ),
    tool(
        "gateway",
        "🔌",
        "Gateway",
        None,
        &[verb("restart", Some(&["reason", "delayMs"]))],
    ),
    tool(
        "whatsapp_login",
        "🟢",
        "WhatsApp Login",
        None,
        &[verb("start", None), verb("wait", None)],
    ),
    tool(
        "discord",
        "💬",
        "Discord",
        None,
        &[
            verb("react", Some(&["channelId", "messageId", "emoji"])),
            verb("reactions", Some(&["channelId", "messageId"])),
            verb("sticker", Some(&["to", "stickerIds"])),
            verb("poll", Some(&["question", "to"])),
            verb("permissions", Some(&["channelId"])),
            action(
                "readMessages",
                "read messages",
                Some(&["channelId", "limit"]),
            ),
            action("sendMessage", "send", Some(&["to", "content"])),
            action("editMessage", "edit", Some(&["channelId", "messageId"])),
            action("deleteMessage", "delete", Some(&["channelId", "messageId"])),
            action(
                "threadCreate",
                "thread create",
                Some(&["channelId", "name"]),
            ),
            action("threadList", "thread list", Some(&["guildId", "channelId"])),
            action(
                "threadReply",
                "thread reply",
                Some(&["channelId", "content"]),
            ),
            action("pinMessage", "pin", Some(&["channelId", "messageId"])),
            action("unpinMessage", "unpin", Some(&["channelId", "messageId"])),
            action("listPins", "list pins", Some(&["channelId"])),
            action("searchMessages", "search", Some(&["guildId", "content"])),
            action("memberInfo", "member", Some(&["guildId", "userId"])),
            action("roleInfo", "roles", Some(&["guildId"])),
            action("emojiList", "emoji list", Some(&["guildId"])),
            action(
                "roleAdd",
                "role add",
                Some(&["guildId", "userId", "roleId"]),
            ),
            action(
                "roleRemove",
                "role remove",
                Some(&["guildId", "userId", "roleId"]),
            ),
            action("channelInfo", "channel", Some(&["channelId"])),
            action("channelList", "channels", Some(&["guildId"])),
            action("voiceStatus", "voice", Some(&["guildId", "userId"])),
            action("eventList", "events", Some(&["guildId"])),
            action("eventCreate", "event create", Some(&["guildId", "name"])),
            verb("timeout", Some(&["guildId", "userId"])),
            verb("kick", Some(&["guildId", "userId"])),
            verb("ban", Some(&["guildId", "userId"])),
        ],
    ),
    tool("exec", "🛠️", "Exec", Some(&["command"]), &[]),
    tool("tool_call", "🧰", "Tool Call", Some(&[]), &[]),
    tool("tool_call_update", "🧰", "Tool Call", Some(&[]), &[]),
    tool(
        "session_status",
        "📊",
        "Session Status",
        Some(&["sessionKey", "model"]),
        &[],
    ),
    tool(
        "sessions_list",
        "🗂️",
        "Sessions",
        Some(&["kinds", "limit", "activeMinutes", "messageLimit"]),
        &[],
    ),
    tool(
        "sessions_send",
        "📨",
        "Session Send",
        Some(&["label", "sessionKey", "agentId", "timeoutSeconds"]),
        &[],
    ),
    tool(
        "sessions_history",
        "🧾",
        "Session History",
        Some(&["sessionKey", "limit", "includeTools"]),
        &[],
    ),
    tool(
        "sessions_spawn",
        "🧑‍🔧",
        "Sub-agent",
        Some(&[
            "label",
            "task",
            "agentId",
            "model",
            "thinking",
            "runTimeoutSeconds",
            "cleanup",
        ]),
        &[],
    ),
    tool(
        "subagents",
        "🤖",
        "Subagents",
        None,
        &[
            verb("list", Some(&["recentMinutes"])),
            verb("kill", Some(&["target"])),
            verb("steer", Some(&["target"])),
        ],
    ),
    tool("agents_list", "🧭", "Agents", Some(&[]), &[]),
    tool(
        "memory_search",
        "🧠",
        "Memory Search",
        Some(&["query"]),
        &[],
    ),
    tool(
        "memory_get",
        "📓",
        "Memory Get",
        Some(&["path", "from", "lines"]),
        &[],
    ),
    tool(
        "web_search",
        "🔎",
        "Web Search",
        Some(&["query", "count"]),
        &[],
    ),
    tool(
        "web_fetch",
        "📄",
        "Web Fetch",
        Some(&["url", "extractMode", "maxChars"]),
        &[],
    ),
    tool(
        "code_execution",
        "🧮",
        "Code Execution",
        Some(&["task"]),
        &[],
    ),
    tool(
        "message",
        "✉️",
        "Message",
        None,
        &[
            verb(
                "send",
                Some(&["provider", "to", "media", "replyTo", "threadId"]),
            ),
            verb("poll", Some(&["provider", "to", "pollQuestion"])),
            verb(
                "react",
                Some(&["provider", "to", "messageId", "emoji", "remove"]),
            ),
            verb("reactions", Some(&["provider", "to", "messageId", "limit"])),
            verb("read", Some(&["provider", "to", "limit"])),
            verb("edit", Some(&["provider", "to", "messageId"])),
            verb("delete", Some(&["provider", "to", "messageId"])),
            verb("pin", Some(&["provider", "to", "messageId"])),
            verb("unpin", Some(&["provider", "to", "messageId"])),
            action("list-pins", "list pins", Some(&["provider", "to"])),
            verb("permissions", Some(&["provider", "channelId", "to"])),
            action(
                "thread-create",
                "thread create",
                Some(&["provider", "channelId", "threadName"]),
            ),
            action(
                "thread-list",
                "thread list",
                Some(&["provider", "guildId", "channelId"]),
            ),
            action(
                "thread-reply",
                "thread reply",
                Some(&["provider", "channelId", "messageId"]),
            ),
            verb("search", Some(&["provider", "guildId", "query"])),
            verb("sticker", Some(&["provider", "to", "stickerId"])),
            action(
                "member-info",
                "member",
                Some(&["provider", "guildId", "userId"]),
            ),
            action("role-info", "roles", Some(&["provider", "guildId"])),
            action("emoji-list", "emoji list", Some(&["provider", "guildId"])),
            action(
                "emoji-upload",
                "emoji upload",
                Some(&["provider", "guildId", "emojiName"]),
            ),
            action(
                "sticker-upload",
                "sticker upload",
                Some(&["provider", "guildId", "stickerName"]),
            ),
            action(
                "role-add",
                "role add",
                Some(&["provider", "guildId", "userId", "roleId"]),
            ),
            action(
                "role-remove",
                "role remove",
                Some(&["provider", "guildId", "userId", "roleId"]),
            ),
            action("channel-info", "channel", Some(&["provider", "channelId"])),
            action("channel-list", "channels", Some(&["provider", "guildId"])),
            action(
                "voice-status",
                "voice",
                Some(&["provider", "guildId", "userId"]),
            ),
            action("event-list", "events", Some(&["provider", "guildId"])),
            action(
                "event-create",
                "event create",
                Some(&["provider", "guildId", "eventName"]),
            ),
            verb("timeout", Some(&["provider", "guildId", "userId"])),
            verb("kick", Some(&["provider", "guildId", "userId"])),
            verb("ban", Some(&["provider", "guildId", "userId"])),
        ],
    ),
    tool("apply_patch", "🩹", "Apply Patch", Some(&[]), &[]),
    tool(
        "image",
        "🖼️",
        "Image",
        Some(&["path", "paths", "url", "urls", "prompt", "model"]),
        &[],
    ),
    tool(
        "image_generate",
        "🎨",
        "Image Generation",
        None,
        &[
            verb(
                "generate",
                Some(&["prompt", "model", "count", "resolution", "aspectRatio"]),
            ),
            verb("list", Some(&["provider", "model"])),
        ],
    ),
    tool(
        "music_generate",
        "🎵",
        "Music Generation",
        None,
        &[
            verb(
                "generate",
                Some(&[
                    "prompt",
                    "model",
                    "durationSeconds",
                    "format",
                    "instrumental",
                ]),
            ),
            verb("list", Some(&["provider", "model"])),
        ],
    ),
    tool(
        "video_generate",
        "🎬",
        "Video Generation",
        None,
        &[
            verb(
                "generate",
                Some(&[
                    "prompt",
                    "model",
                    "durationSeconds",
                    "resolution",
                    "aspectRatio",
                    "audio",
                    "watermark",
                ]),
            ),
            verb("list", Some(&["provider", "model"])),
        ],
    ),
    tool(
        "pdf",
        "📑",
        "PDF",
        Some(&[
            "path",
            "paths",
            "url",
            "urls",
            "prompt",
            "pageRange",
            "model",
        ]),
        &[],
    ),
    tool("sessions_yield", "⏸️", "Yield", Some(&["message"]), &[]),
    tool("tts", "🔊", "TTS", Some(&["text", "channel"]), &[]),
];
