//! Lane names (reference §2, `process/lanes.ts` and `pi-embedded-runner/lanes.ts`).
//!
//! A run is admitted in two steps: first on its session lane (one run per session at a time),
//! then on a global lane that caps how many runs the whole runtime drives at once.

/// The default global lane: interactive runs.
pub const MAIN_LANE: &str = "main";
/// The global lane of scheduled (cron) jobs.
pub const CRON_LANE: &str = "cron";
/// The global lane of subagent runs.
pub const SUBAGENT_LANE: &str = "subagent";
/// The global lane a run started from inside a cron job uses instead of `cron`.
pub const NESTED_LANE: &str = "nested";
/// The prefix of every session lane.
pub const SESSION_LANE_PREFIX: &str = "session:";

/// The session lane of a session key: `session:<key>` with the key trimmed, `session:main` for
/// an empty key, and a name that already starts with `session:` unchanged.
pub fn resolve_session_lane(key: &str) -> String {
    let cleaned = match key.trim() {
        "" => MAIN_LANE,
        trimmed => trimmed,
    };
    if cleaned.starts_with(SESSION_LANE_PREFIX) {
        cleaned.to_owned()
    } else {
        format!("{SESSION_LANE_PREFIX}{cleaned}")
    }
}

/// The global lane a run asks for: trimmed, `main` when absent or empty, and `cron` mapped to
/// `nested` — a run started by a cron job must not wait for the cron slot its own job holds
/// (OpenClaw issue #44805).
pub fn resolve_global_lane(lane: Option<&str>) -> String {
    match lane.map(str::trim) {
        None | Some("") => MAIN_LANE.to_owned(),
        Some(CRON_LANE) => NESTED_LANE.to_owned(),
        Some(other) => other.to_owned(),
    }
}

/// A lane name as the queue stores it: trimmed, `main` when empty.
pub(super) fn normalize_lane(lane: &str) -> &str {
    match lane.trim() {
        "" => MAIN_LANE,
        trimmed => trimmed,
    }
}

/// The two lanes one run (or one direct compaction) is admitted on, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLanes {
    /// The session lane (`session:<key>`), concurrency 1.
    pub session: String,
    /// The global lane (`main`, `subagent`, `nested`, …).
    pub global: String,
}

impl RunLanes {
    /// The lanes of a run: the session lane is keyed by the trimmed session key, or by the
    /// session id when there is no key; the global lane is [`resolve_global_lane`] of `lane`.
    pub fn for_run(session_key: Option<&str>, session_id: &str, lane: Option<&str>) -> Self {
        let key = session_key
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .unwrap_or(session_id);
        RunLanes {
            session: resolve_session_lane(key),
            global: resolve_global_lane(lane),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn session_lanes_follow_openclaw() {
        assert_eq!(resolve_session_lane(""), "session:main");
        assert_eq!(resolve_session_lane("   "), "session:main");
        assert_eq!(resolve_session_lane(" xyz "), "session:xyz");
        assert_eq!(resolve_session_lane("session:abc"), "session:abc");
        assert_eq!(resolve_session_lane(" session:abc "), "session:abc");
    }

    #[test]
    fn global_lanes_follow_openclaw() {
        assert_eq!(resolve_global_lane(None), "main");
        assert_eq!(resolve_global_lane(Some("")), "main");
        assert_eq!(resolve_global_lane(Some("  ")), "main");
        assert_eq!(resolve_global_lane(Some("cron")), "nested");
        assert_eq!(resolve_global_lane(Some(" cron ")), "nested");
        assert_eq!(resolve_global_lane(Some(" custom ")), "custom");
        assert_eq!(resolve_global_lane(Some("subagent")), "subagent");
    }

    #[test]
    fn run_lanes_prefer_the_session_key_over_the_id() {
        assert_eq!(
            RunLanes::for_run(Some(" agent:main:chat "), "sid-1", None),
            RunLanes {
                session: "session:agent:main:chat".into(),
                global: "main".into()
            }
        );
        assert_eq!(
            RunLanes::for_run(Some("  "), "sid-1", Some("subagent")),
            RunLanes {
                session: "session:sid-1".into(),
                global: "subagent".into()
            }
        );
        assert_eq!(
            RunLanes::for_run(None, "sid-2", Some("cron")),
            RunLanes {
                session: "session:sid-2".into(),
                global: "nested".into()
            }
        );
    }
}
