//! What the state remembers about a profile that is being removed: its usage statistics, its
//! place in stored orders and its `lastGood` marks. Left behind, they would outlive the
//! credential and apply to a later profile given the same id.

use clawloop_core::auth_store::AuthState;

/// Removes every trace of `profile_id` from `state`; true when something was removed. An order
/// list left empty goes too (an empty stored order would hide the provider's profiles).
pub fn forget_profile(state: &mut AuthState, profile_id: &str) -> bool {
    let mut changed = false;
    if let Some(usage) = state.usage_stats.as_mut() {
        changed |= usage.shift_remove(profile_id).is_some();
    }
    if let Some(order) = state.order.as_mut() {
        for ids in order.values_mut() {
            let before = ids.len();
            ids.retain(|id| id != profile_id);
            changed |= ids.len() != before;
        }
        let before = order.len();
        order.retain(|_, ids| !ids.is_empty());
        changed |= order.len() != before;
    }
    if let Some(last_good) = state.last_good.as_mut() {
        let before = last_good.len();
        last_good.retain(|_, id| id != profile_id);
        changed |= last_good.len() != before;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn forgets_stats_order_and_last_good_of_one_profile_only() -> Result<(), serde_json::Error> {
        let mut state: AuthState = serde_json::from_value(json!({
            "version": 1,
            "order": {"openai": ["openai:a", "openai:b"], "x": ["openai:a"]},
            "lastGood": {"openai": "openai:a", "y": "y:1"},
            "usageStats": {"openai:a": {"errorCount": 2}, "openai:b": {"lastUsed": 5}}
        }))?;
        assert!(forget_profile(&mut state, "openai:a"));
        assert_eq!(
            serde_json::to_value(&state)?,
            json!({
                "version": 1,
                "order": {"openai": ["openai:b"]},
                "lastGood": {"y": "y:1"},
                "usageStats": {"openai:b": {"lastUsed": 5}}
            })
        );
        assert!(!forget_profile(&mut state, "openai:a"));
        Ok(())
    }
}
