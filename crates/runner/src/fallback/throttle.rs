//! The cooldown probe throttle (reference §14): when a primary's profiles all rest, it is
//! probed at most once per 30 s per (agent dir, provider), across runs.
//!
//! OpenClaw keeps this in a module-level map; here it is a value the runtime owns and shares
//! between runs, so two runtimes (or two tests) never see each other's probes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::Clock;
use indexmap::IndexMap;
use parking_lot::Mutex;

/// The least time between two probes of the same key.
pub const MIN_PROBE_INTERVAL_MS: u64 = 30_000;
/// A recorded probe older than this is forgotten.
pub const PROBE_STATE_TTL_MS: u64 = 24 * 60 * 60 * 1000;
/// At most this many keys are kept; the oldest probe is forgotten first.
pub const MAX_PROBE_KEYS: usize = 256;

/// What the throttle counts probes by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProbeKey {
    /// The agent directory whose auth store the probe read.
    pub agent_dir: PathBuf,
    /// The probed provider.
    pub provider: String,
}

impl ProbeKey {
    /// The key of `provider` in `agent_dir`.
    pub fn new(agent_dir: &Path, provider: &str) -> Self {
        ProbeKey {
            agent_dir: agent_dir.to_path_buf(),
            provider: provider.to_owned(),
        }
    }
}

/// The time of the last cooldown probe per (agent dir, provider). Shared by reference; every
/// method takes the time explicitly, [`ProbeThrottle::now_ms`] reads the clock it was made with.
pub struct ProbeThrottle {
    clock: Arc<dyn Clock>,
    // Insertion order breaks ties between equally old probes (the first recorded goes first),
    // as JavaScript's `Map` iteration does; updating a key keeps its place.
    last_probe: Mutex<IndexMap<ProbeKey, u64>>,
}

impl std::fmt::Debug for ProbeThrottle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProbeThrottle")
            .field("last_probe", &*self.last_probe.lock())
            .finish_non_exhaustive()
    }
}

impl ProbeThrottle {
    /// An empty throttle reading time from `clock` — the clock of the auth profile manager it
    /// is used with, so probe times and cooldown windows are on one time line.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        ProbeThrottle {
            clock,
            last_probe: Mutex::new(IndexMap::new()),
        }
    }

    /// The clock's time, in ms since the epoch.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// Whether `key` may be probed at `now_ms`: no probe of it in the last
    /// [`MIN_PROBE_INTERVAL_MS`]. A probe recorded in the future (the clock went back) keeps
    /// the throttle closed until the clock passes it.
    pub fn is_open(&self, key: &ProbeKey, now_ms: u64) -> bool {
        let mut map = self.last_probe.lock();
        prune(&mut map, now_ms);
        let last = map.get(key).copied().unwrap_or(0);
        now_ms
            .checked_sub(last)
            .is_some_and(|since| since >= MIN_PROBE_INTERVAL_MS)
    }

    /// Records a probe of `key` at `now_ms`, forgetting expired probes and, past
    /// [`MAX_PROBE_KEYS`], the oldest ones.
    pub fn mark(&self, key: &ProbeKey, now_ms: u64) {
        let mut map = self.last_probe.lock();
        prune(&mut map, now_ms);
        map.insert(key.clone(), now_ms);
        while map.len() > MAX_PROBE_KEYS {
            let oldest = map
                .iter()
                .enumerate()
                .min_by_key(|(index, (_, at))| (**at, *index))
                .map(|(index, _)| index);
            match oldest {
                Some(index) => {
                    map.shift_remove_index(index);
                }
                None => break,
            }
        }
    }

    /// The time of the last recorded probe of `key`, if it is still kept.
    pub fn last_probe(&self, key: &ProbeKey) -> Option<u64> {
        self.last_probe.lock().get(key).copied()
    }

    /// How many keys are kept.
    pub fn len(&self) -> usize {
        self.last_probe.lock().len()
    }

    /// Whether no key is kept.
    pub fn is_empty(&self) -> bool {
        self.last_probe.lock().is_empty()
    }
}

/// Drops probes at time 0 and probes more than [`PROBE_STATE_TTL_MS`] old.
fn prune(map: &mut IndexMap<ProbeKey, u64>, now_ms: u64) {
    map.retain(|_, at| *at > 0 && now_ms.saturating_sub(*at) <= PROBE_STATE_TTL_MS);
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::ManualClock;
    use pretty_assertions::assert_eq;

    const NOW: u64 = 1_700_000_000_000;

    fn throttle() -> ProbeThrottle {
        ProbeThrottle::new(Arc::new(ManualClock::new(NOW)))
    }

    fn key(provider: &str) -> ProbeKey {
        ProbeKey::new(Path::new("/agents/main/agent"), provider)
    }

    #[test]
    fn interval_per_agent_dir_and_provider() {
        let t = throttle();
        assert_eq!(t.now_ms(), NOW);
        assert!(t.is_open(&key("acme"), NOW));
        t.mark(&key("acme"), NOW);
        let cases = [
            (key("acme"), NOW, false),
            (key("acme"), NOW + MIN_PROBE_INTERVAL_MS - 1, false),
            (key("acme"), NOW + MIN_PROBE_INTERVAL_MS, true),
            (key("acme"), NOW - 1, false),
            (key("bolt"), NOW, true),
            (
                ProbeKey::new(Path::new("/agents/other/agent"), "acme"),
                NOW,
                true,
            ),
        ];
        for (k, at, want) in cases {
            assert_eq!(t.is_open(&k, at), want, "{k:?} at {at}");
        }
    }

    #[test]
    fn probes_expire_after_a_day() {
        let t = throttle();
        t.mark(&key("acme"), NOW);
        t.mark(&key("bolt"), NOW + 1_000);
        assert!(t.is_open(&key("acme"), NOW + PROBE_STATE_TTL_MS));
        // Exactly a day old is still kept.
        assert_eq!(t.last_probe(&key("acme")), Some(NOW));
        assert!(t.is_open(&key("acme"), NOW + PROBE_STATE_TTL_MS + 1));
        assert_eq!(t.last_probe(&key("acme")), None);
        assert_eq!(t.len(), 1);
        // A probe at time 0 is no probe.
        t.mark(&key("zero"), 0);
        assert!(t.is_open(&key("zero"), NOW));
        assert_eq!(t.last_probe(&key("zero")), None);
    }

    #[test]
    fn the_oldest_keys_go_past_the_cap() {
        let t = throttle();
        assert!(t.is_empty());
        // Key 0 is marked last but at the oldest time; keys 1..=256 in time order after it.
        for i in 1..=MAX_PROBE_KEYS as u64 {
            t.mark(&key(&format!("p{i}")), NOW + i);
        }
        t.mark(&key("p1"), NOW + 1_000);
        t.mark(&key("late"), NOW + 2_000);
        assert_eq!(t.len(), MAX_PROBE_KEYS);
        // p2 had the oldest time; p1 was refreshed and stays.
        assert_eq!(t.last_probe(&key("p2")), None);
        assert_eq!(t.last_probe(&key("p1")), Some(NOW + 1_000));
        assert_eq!(t.last_probe(&key("late")), Some(NOW + 2_000));
        // Equal times: the first recorded goes first.
        let t = throttle();
        for i in 0..=MAX_PROBE_KEYS {
            t.mark(&key(&format!("q{i}")), NOW);
        }
        assert_eq!(t.len(), MAX_PROBE_KEYS);
        assert_eq!(t.last_probe(&key("q0")), None);
        assert_eq!(t.last_probe(&key(&format!("q{MAX_PROBE_KEYS}"))), Some(NOW));
    }
}
