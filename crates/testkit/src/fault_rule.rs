//! A [`ReplyRule`] that injects seeded random faults in front of another rule, for soak runs:
//! rate limits with and without `Retry-After`, server errors, stalls, connections dropped
//! mid-stream and malformed bodies, counted by kind.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value, json};

use super::{ProviderRequest, ReplyRule, ScriptedReply, SplitRng};

/// A fault a [`FaultRule`] can inject instead of the inner rule's reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    /// HTTP 429 without `Retry-After`.
    RateLimited,
    /// HTTP 429 with `Retry-After: 1`.
    RateLimitedRetryAfter,
    /// HTTP 500, 502 or 503.
    ServerError,
    /// The inner reply, but the body stalls for [`FaultPlan::stall_ms`] before its first
    /// chunk (beyond a short idle timeout).
    Stall,
    /// The inner reply, with the connection closed after its first data chunk.
    DroppedConnection,
    /// A 200 stream of bytes that are not the API's events.
    MalformedBody,
}

impl FaultKind {
    /// Every kind, in the order [`FaultRule`] draws from.
    pub const ALL: [FaultKind; 6] = [
        FaultKind::RateLimited,
        FaultKind::RateLimitedRetryAfter,
        FaultKind::ServerError,
        FaultKind::Stall,
        FaultKind::DroppedConnection,
        FaultKind::MalformedBody,
    ];

    /// A short stable name (`rate_limited`, `server_error`, …).
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::RateLimited => "rate_limited",
            FaultKind::RateLimitedRetryAfter => "rate_limited_retry_after",
            FaultKind::ServerError => "server_error",
            FaultKind::Stall => "stall",
            FaultKind::DroppedConnection => "dropped_connection",
            FaultKind::MalformedBody => "malformed_body",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How often and how a [`FaultRule`] injects faults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultPlan {
    /// Seeds the draws: the same seed and request order give the same faults.
    pub seed: u64,
    /// The chance of a fault per request, in percent (0 to 100).
    pub fault_percent: u32,
    /// The kinds drawn from, uniformly (empty: no faults).
    pub kinds: Vec<FaultKind>,
    /// How long a [`FaultKind::Stall`] holds the body back.
    pub stall_ms: u64,
}

/// How many faults of each kind a [`FaultRule`] injected; a cheap handle shared with the rule.
#[derive(Debug, Clone, Default)]
pub struct FaultCounts(Arc<Mutex<BTreeMap<FaultKind, u64>>>);

impl FaultCounts {
    /// The counts so far (kinds never injected are absent).
    pub fn snapshot(&self) -> BTreeMap<FaultKind, u64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn add(&self, kind: FaultKind) {
        *self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(kind)
            .or_default() += 1;
    }
}

/// Wraps `inner`: each request gets a fault drawn by the [`FaultPlan`], or the inner reply.
pub struct FaultRule<R> {
    inner: R,
    plan: FaultPlan,
    rng: Mutex<SplitRng>,
    counts: FaultCounts,
}

impl<R: ReplyRule> FaultRule<R> {
    /// Faults by `plan` in front of `inner`.
    pub fn new(inner: R, plan: FaultPlan) -> Self {
        let rng = Mutex::new(SplitRng::new(plan.seed));
        FaultRule {
            inner,
            plan,
            rng,
            counts: FaultCounts::default(),
        }
    }

    /// The counter handle; keep it before handing the rule to the server.
    pub fn counts(&self) -> FaultCounts {
        self.counts.clone()
    }

    /// The fault for the next request, if any.
    fn draw(&self) -> Option<FaultKind> {
        if self.plan.kinds.is_empty() {
            return None;
        }
        let mut rng = self.rng.lock().unwrap_or_else(PoisonError::into_inner);
        if rng.next_u64() % 100 >= u64::from(self.plan.fault_percent) {
            return None;
        }
        let len = u64::try_from(self.plan.kinds.len()).unwrap_or(u64::MAX);
        let index = usize::try_from(rng.next_u64() % len).unwrap_or(0);
        self.plan.kinds.get(index).copied()
    }
}

fn error(status: u16, message: &str, headers: Option<Map<String, Value>>) -> ScriptedReply {
    ScriptedReply {
        status: Some(status),
        body: Some(json!({"error": {"message": message, "type": "injected_fault"}})),
        headers,
        ..ScriptedReply::default()
    }
}

impl<R: ReplyRule> ReplyRule for FaultRule<R> {
    fn reply(&self, request: &ProviderRequest) -> ScriptedReply {
        let Some(kind) = self.draw() else {
            return self.inner.reply(request);
        };
        self.counts.add(kind);
        match kind {
            FaultKind::RateLimited => error(429, "injected rate limit", None),
            FaultKind::RateLimitedRetryAfter => {
                let mut headers = Map::new();
                headers.insert("retry-after".to_owned(), Value::from("1"));
                error(429, "injected rate limit", Some(headers))
            }
            FaultKind::ServerError => {
                // Varied by request so all three show up without another draw.
                let status = [500, 502, 503]
                    .get(request.request.body.len() % 3)
                    .copied()
                    .unwrap_or(500);
                error(status, "injected server error", None)
            }
            FaultKind::Stall => ScriptedReply {
                stall_ms: Some(self.plan.stall_ms),
                stall_after_chunks: Some(0),
                ..self.inner.reply(request)
            },
            FaultKind::DroppedConnection => ScriptedReply {
                drop_after_chunks: Some(1),
                ..self.inner.reply(request)
            },
            FaultKind::MalformedBody => ScriptedReply {
                raw: Some(
                    "data: {\"choices\": [{\"delta\": {\"content\": \n\nnot json at all\n\n"
                        .to_owned(),
                ),
                ..ScriptedReply::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RecordedRequest;
    use pretty_assertions::assert_eq;

    fn request() -> ProviderRequest {
        ProviderRequest::new(
            RecordedRequest {
                method: "POST".into(),
                path: "/p/acme/v1/chat/completions".into(),
                headers: Vec::new(),
                body: b"{}".to_vec(),
            },
            0,
        )
    }

    fn answer(_: &ProviderRequest) -> ScriptedReply {
        ScriptedReply {
            text: Some("fine".into()),
            ..ScriptedReply::default()
        }
    }

    fn plan(percent: u32, kinds: Vec<FaultKind>) -> FaultPlan {
        FaultPlan {
            seed: 7,
            fault_percent: percent,
            kinds,
            stall_ms: 1500,
        }
    }

    #[test]
    fn each_kind_shapes_its_reply() {
        let reply = |kind| FaultRule::new(answer, plan(100, vec![kind])).reply(&request());
        let e429 = reply(FaultKind::RateLimitedRetryAfter);
        assert_eq!(
            (
                e429.status,
                e429.headers.map(|h| h.contains_key("retry-after"))
            ),
            (Some(429), Some(true))
        );
        assert_eq!(reply(FaultKind::RateLimited).headers, None);
        assert!(matches!(
            reply(FaultKind::ServerError).status,
            Some(500 | 502 | 503)
        ));
        let stall = reply(FaultKind::Stall);
        assert_eq!(
            (
                stall.text.as_deref(),
                stall.stall_ms,
                stall.stall_after_chunks
            ),
            (Some("fine"), Some(1500), Some(0))
        );
        let dropped = reply(FaultKind::DroppedConnection);
        assert_eq!(
            (dropped.text.as_deref(), dropped.drop_after_chunks),
            (Some("fine"), Some(1))
        );
        assert!(reply(FaultKind::MalformedBody).raw.is_some());
    }

    #[test]
    fn faults_are_seeded_counted_and_off_at_zero_percent() {
        let draws = |seed| {
            let rule = FaultRule::new(
                answer,
                FaultPlan {
                    seed,
                    ..plan(50, FaultKind::ALL.to_vec())
                },
            );
            let replies: Vec<Option<u16>> =
                (0..200).map(|_| rule.reply(&request()).status).collect();
            (replies, rule.counts().snapshot())
        };
        let (first, counts) = draws(3);
        assert_eq!(draws(3).0, first);
        let injected: u64 = counts.values().sum();
        let clean = u64::try_from(first.iter().filter(|s| s.is_none()).count()).unwrap_or(0);
        // Stalls and drops keep the inner 200 reply; every other fault sets a status.
        let kept = counts.get(&FaultKind::Stall).copied().unwrap_or(0)
            + counts
                .get(&FaultKind::DroppedConnection)
                .copied()
                .unwrap_or(0)
            + counts.get(&FaultKind::MalformedBody).copied().unwrap_or(0);
        assert_eq!(clean, 200 - injected + kept);
        assert!(injected > 40 && injected < 160, "{counts:?}");
        assert_eq!(counts.len(), FaultKind::ALL.len(), "{counts:?}");

        let off = FaultRule::new(answer, plan(0, FaultKind::ALL.to_vec()));
        assert!((0..50).all(|_| off.reply(&request()).status.is_none()));
        assert_eq!(off.counts().snapshot(), BTreeMap::new());
    }
}
