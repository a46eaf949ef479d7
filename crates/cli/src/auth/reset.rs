//! `clawloop auth reset [<profileId>|--all]`: ends cooldowns and disabled windows and clears the
//! error counters (the runner's `clearAuthProfileCooldown`); last-used times stay, so the
//! round-robin order is unchanged. Prints what changed.

use clap::Args;
use clawloop_core::auth_store::{AuthStore, ProfileUsageStats};
use clawloop_runner::auth::mark::clear_cooldown;

use super::remove::unknown_profile;
use super::{AuthContext, Failure, format_local_ms, say};

/// Arguments of `clawloop auth reset`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").required(true))]
pub struct ResetArgs {
    /// The profile to reset.
    #[arg(group = "target")]
    profile_id: Option<String>,
    /// Reset every profile.
    #[arg(long, group = "target")]
    all: bool,
}

/// Runs `clawloop auth reset`.
pub fn run(args: &ResetArgs) -> Result<(), Failure> {
    let context = AuthContext::load()?;
    let mut changes: Vec<(String, ProfileUsageStats)> = Vec::new();
    let mut unknown: Option<Vec<String>> = None;
    // The store may run the closure more than once: each run starts afresh.
    context.store.update_state(&mut |profiles, state| {
        changes.clear();
        unknown = None;
        let targets: Vec<String> = match &args.profile_id {
            Some(id) if profiles.get(id).is_none() && state.stats(id).is_none() => {
                unknown = Some(profiles.profiles.keys().cloned().collect());
                return false;
            }
            Some(id) => vec![id.clone()],
            None => state
                .usage_stats
                .as_ref()
                .map(|usage| usage.keys().cloned().collect())
                .unwrap_or_default(),
        };
        for id in targets {
            let Some(before) = state.stats(&id).cloned() else {
                continue;
            };
            if describe(&before).is_empty() {
                continue;
            }
            let mut after = state.clone();
            clear_cooldown(&mut after, &id);
            if after.stats(&id) != Some(&before) {
                *state = after;
                changes.push((id, before));
            }
        }
        !changes.is_empty()
    })?;
    if let (Some(id), Some(known)) = (&args.profile_id, unknown) {
        return Err(Failure::usage(unknown_profile(id, &known)));
    }
    if changes.is_empty() {
        match &args.profile_id {
            Some(id) => say(&format!("{id}: nothing to reset")),
            None => say("nothing to reset"),
        }
    }
    for (id, before) in &changes {
        say(&format!("{id}: {}", describe(before).join(", ")));
    }
    Ok(())
}

/// What a reset takes away from `before`; empty when there is nothing to clear.
fn describe(before: &ProfileUsageStats) -> Vec<String> {
    let reason = |r: Option<clawloop_core::FailoverReason>| {
        r.map_or_else(String::new, |r| format!(" ({})", r.as_str()))
    };
    let mut parts = Vec::new();
    if let Some(until) = before.cooldown_until.filter(|t| *t > 0.0) {
        parts.push(format!(
            "cooldown until {}{} cleared",
            format_local_ms(until),
            reason(before.cooldown_reason)
        ));
    }
    if let Some(until) = before.disabled_until.filter(|t| *t > 0.0) {
        parts.push(format!(
            "disabled until {}{} cleared",
            format_local_ms(until),
            reason(before.disabled_reason)
        ));
    }
    match before.error_count {
        Some(n) if n > 0 => parts.push(format!("error count {n} → 0")),
        _ => {}
    }
    if before
        .failure_counts
        .as_ref()
        .is_some_and(|c| !c.is_empty())
    {
        parts.push("failure counts cleared".to_owned());
    }
    parts
}
