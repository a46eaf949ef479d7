//! `auth` runner: auth profile order, cooldowns and marks through the runner's real
//! file-backed store (SPEC §8.5, reference §13).
//!
//! The case's profiles and state are written as `auth-profiles.json` / `auth-state.json` in a
//! scratch agent directory, as given; every step then goes through
//! [`AuthProfileManager`] over that [`FileAuthStore`] with a manual clock, so each step reads
//! what the previous one wrote. A step's `expect` is compared as written in the scenario.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use clawloop_core::auth_store::AuthStoreError;
use clawloop_core::clock::ManualClock;
use clawloop_runner::auth::{AuthConfig, AuthProfileManager, FileAuthStore};
use serde_json::{Map, Value, json};

use super::wrong_spec;
use crate::conformance::compare::compare_at;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::auth::{AuthInput, AuthStep};
use crate::conformance::scenario::{Case, Spec};

/// The stats fields a `stats` step may check (FORMAT.md).
const STATS_FIELDS: [&str; 5] = [
    "errorCount",
    "cooldownUntil",
    "disabledUntil",
    "cooldownReason",
    "disabledReason",
];

/// Runs an `auth` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Auth(input) = &case.spec else {
        return Err(wrong_spec(case, Kind::Auth));
    };
    let scratch = tempfile::Builder::new()
        .prefix("clawloop-conformance-auth-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let store = FileAuthStore::new(scratch.path().join("agent"));
    seed_files(&store, input)?;
    let config = match input.raw.get("config").and_then(|c| c.get("auth")) {
        Some(auth) => AuthConfig::from_json(auth).map_err(|e| format!("input.config: {e}"))?,
        None => AuthConfig::default(),
    };
    let clock = ManualClock::new(whole_ms("input.nowMs", input.now_ms)?);
    let manager =
        AuthProfileManager::new(Arc::new(store), Arc::new(config), Arc::new(clock.clone()));
    for (i, step) in input.steps.iter().enumerate() {
        let at = format!("input.steps[{i}]");
        let expect = input
            .raw
            .get("steps")
            .and_then(|s| s.get(i))
            .and_then(|s| s.get("expect"));
        run_step(&manager, &clock, step, expect, &at)?;
    }
    Ok(())
}

/// Writes the case's profiles and state into the agent directory as OpenClaw would have:
/// the JSON as given, so the store's own reader is what parses it.
fn seed_files(store: &FileAuthStore, input: &AuthInput) -> Result<(), String> {
    fs::create_dir_all(store.dir())
        .map_err(|e| format!("cannot create {}: {e}", store.dir().display()))?;
    let profiles = json!({
        "version": 1,
        "profiles": input.raw.get("profiles").cloned().unwrap_or_else(|| json!({})),
    });
    write_json(&store.profiles_path(), &profiles)?;
    if let Some(state) = input.raw.get("state") {
        write_json(&store.state_path(), state)?;
    }
    Ok(())
}

fn write_json(path: &Path, value: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| format!("cannot serialize {}: {e}", path.display()))?;
    fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A scenario time or duration as the clock's whole milliseconds.
fn whole_ms(at: &str, ms: f64) -> Result<u64, String> {
    if ms.is_finite() && ms >= 0.0 && ms.fract() == 0.0 && ms <= 9_007_199_254_740_991.0 {
        // Proof of exactness: a non-negative integral value up to 2^53 - 1.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(ms as u64)
    } else {
        Err(format!(
            "{at}: expected a whole, non-negative number of milliseconds, got {ms}"
        ))
    }
}

fn store_error(at: &str, e: AuthStoreError) -> String {
    format!("{at}: {e}")
}

fn check(at: &str, expect: Option<&Value>, actual: &Value) -> Result<(), String> {
    let expected = expect.unwrap_or(&Value::Null);
    compare_at(&format!("{at}.expect"), expected, actual).map_err(|m| m.to_string())
}

fn run_step(
    manager: &AuthProfileManager,
    clock: &ManualClock,
    step: &AuthStep,
    expect: Option<&Value>,
    at: &str,
) -> Result<(), String> {
    let err = |e| store_error(at, e);
    match step {
        AuthStep::Order {
            provider,
            preferred,
            expect: _,
        } => {
            let order = manager
                .order(provider, preferred.as_deref(), None)
                .map_err(err)?;
            check(at, expect, &json!(order))
        }
        AuthStep::MarkFailure {
            profile,
            reason,
            model,
        } => manager
            .mark_failure(profile, *reason, model.as_deref())
            .map(drop)
            .map_err(err),
        AuthStep::MarkUsed { profile } => manager.mark_used(profile).map(drop).map_err(err),
        AuthStep::MarkGood { profile } => {
            // The step names no provider: the profile's own, as a successful run would pass.
            let snapshot = manager.snapshot().map_err(err)?;
            let Some(provider) = snapshot.profiles.get(profile).and_then(|c| c.provider()) else {
                return Ok(());
            };
            manager.mark_good(provider, profile).map(drop).map_err(err)
        }
        AuthStep::AdvanceClock { ms } => {
            clock.advance(whole_ms(&format!("{at}.ms"), *ms)?);
            Ok(())
        }
        AuthStep::ClearExpired => manager.clear_expired().map(drop).map_err(err),
        AuthStep::InCooldown {
            profile,
            model,
            expect: _,
        } => {
            let resting = manager
                .is_in_cooldown(profile, model.as_deref())
                .map_err(err)?;
            check(at, expect, &json!(resting))
        }
        AuthStep::Stats { profile, expect: _ } => {
            let snapshot = manager.snapshot().map_err(err)?;
            let actual = match snapshot.state.stats(profile) {
                Some(stats) => stats_view(
                    &serde_json::to_value(stats)
                        .map_err(|e| format!("{at}: cannot serialize stats: {e}"))?,
                ),
                // No stats: `null` expects hold, counters compare as 0, values as absent.
                None if expect.is_some_and(Value::is_null) => Value::Null,
                None => Value::Object(Map::new()),
            };
            check(at, expect, &actual)
        }
        AuthStep::UnavailableReason {
            profiles,
            expect: _,
        } => {
            let reason = manager.unavailable_reason(profiles).map_err(err)?;
            check(at, expect, &json!(reason.map(|r| r.as_str())))
        }
    }
}

/// The stored stats reduced to the fields a `stats` step may check.
fn stats_view(stats: &Value) -> Value {
    let mut view = Map::new();
    for field in STATS_FIELDS {
        if let Some(v) = stats.get(field) {
            view.insert(field.to_owned(), v.clone());
        }
    }
    Value::Object(view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::scenario::parse_case;
    use std::path::Path;

    fn case(input: Value) -> Case {
        let raw = json!({"kind": "auth", "name": "t", "input": input});
        parse_case(&raw, Path::new(".")).unwrap()
    }

    fn profiles() -> Value {
        json!({
            "openai:b": {"type": "api_key", "provider": "openai", "key": "k"},
            "openai:a": {"type": "api_key", "provider": "openai", "key": "k"}
        })
    }

    #[test]
    fn file_order_decides_ties_and_marks_persist() {
        let c = case(json!({"nowMs": 1000, "profiles": profiles(), "steps": [
            {"op": "order", "provider": "openai", "expect": ["openai:b", "openai:a"]},
            {"op": "markFailure", "profile": "openai:b", "reason": "rate_limit"},
            {"op": "stats", "profile": "openai:b", "expect": {"errorCount": 1, "cooldownUntil": 11000}},
            {"op": "stats", "profile": "openai:a", "expect": {"errorCount": 0, "cooldownUntil": null}},
            {"op": "stats", "profile": "openai:a", "expect": null},
            {"op": "order", "provider": "openai", "expect": ["openai:a", "openai:b"]},
            {"op": "unavailableReason", "profiles": ["openai:b"], "expect": "rate_limit"},
            {"op": "markGood", "profile": "openai:a"},
            {"op": "markGood", "profile": "openai:missing"}
        ]}));
        run(&c).unwrap();
    }

    #[test]
    fn a_wrong_expectation_names_the_step() {
        let c = case(json!({"nowMs": 1000, "profiles": profiles(), "steps": [
            {"op": "advanceClock", "ms": 5},
            {"op": "inCooldown", "profile": "openai:a", "expect": true}
        ]}));
        let err = run(&c).unwrap_err();
        assert!(err.starts_with("input.steps[1].expect"), "{err}");
        let c = case(json!({"nowMs": 1000, "profiles": profiles(), "steps": [
            {"op": "markFailure", "profile": "openai:a", "reason": "billing"},
            {"op": "stats", "profile": "openai:a", "expect": null}
        ]}));
        assert!(run(&c).unwrap_err().starts_with("input.steps[1].expect"));
    }

    #[test]
    fn bad_config_and_clock_values_fail_the_case() {
        let c = case(json!({"nowMs": 1000, "profiles": {},
            "config": {"auth": {"cooldowns": {"scheduleMs": []}}},
            "steps": [{"op": "clearExpired"}]}));
        let err = run(&c).unwrap_err();
        assert!(err.contains("auth.cooldowns.scheduleMs"), "{err}");
        let c = case(json!({"nowMs": 1000, "profiles": {},
            "steps": [{"op": "advanceClock", "ms": 1.5}]}));
        assert!(run(&c).unwrap_err().contains("input.steps[0].ms"));
    }
}
