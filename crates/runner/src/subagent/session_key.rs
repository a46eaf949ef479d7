//! Subagent session keys (OpenClaw `routing/session-key.ts`): a child of agent `main` runs under
//! `agent:main:subagent:<uuid>`; each `subagent` segment is one level of nesting.

/// A new child session key of `agent_id`.
pub fn subagent_session_key(agent_id: &str) -> String {
    format!("agent:{agent_id}:subagent:{}", clawloop_session::uuid_v4())
}

/// How deep `session_key` is nested: 0 for a main session, 1 for a child, 2 for a grandchild.
pub fn subagent_depth(session_key: &str) -> u32 {
    let count = session_key
        .trim()
        .to_ascii_lowercase()
        .split(':')
        .filter(|segment| *segment == "subagent")
        .count();
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// Whether `session_key` is a subagent's (it runs with the minimal prompt on the subagent lane).
pub fn is_subagent_session_key(session_key: &str) -> bool {
    subagent_depth(session_key) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn keys_and_depths() {
        let key = subagent_session_key("main");
        let uuid = key.strip_prefix("agent:main:subagent:").unwrap_or_default();
        assert_eq!((uuid.len(), uuid.matches('-').count()), (36, 4), "{key}");
        assert_eq!(subagent_depth("main"), 0);
        assert_eq!(subagent_depth("agent:main:telegram:dm:1"), 0);
        assert_eq!(subagent_depth(&key), 1);
        assert_eq!(subagent_depth("agent:main:subagent:a:subagent:b"), 2);
        assert_eq!(subagent_depth("subagent:x"), 1);
        assert!(is_subagent_session_key(" Agent:Main:SubAgent:x "));
        assert!(!is_subagent_session_key("agent:main:subagents"));
    }
}
