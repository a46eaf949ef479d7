//! `clawloop auth remove <profileId | provider>`: deletes a profile's credential — or every
//! profile of a provider, as `auth add <provider>` names it — and everything the state
//! remembers about them.

use clap::Args;
use clawloop_core::auth_store::{AuthProfiles, AuthStore};
use clawloop_runner::auth::forget::forget_profile;
use clawloop_runner::auth::provider_key;

use super::{AuthContext, Failure, say};

/// Arguments of `clawloop auth remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The profile to remove, e.g. `openai:default`, or a provider (`openai`) to remove all
    /// of its profiles.
    #[arg(value_name = "PROFILE_ID|PROVIDER")]
    profile_id: String,
}

/// Runs `clawloop auth remove`.
pub fn run(args: &RemoveArgs) -> Result<(), Failure> {
    let context = AuthContext::load()?;
    let target = &args.profile_id;
    let mut removed: Vec<String> = Vec::new();
    let mut known: Vec<String> = Vec::new();
    context.store.update_profiles(&mut |profiles| {
        removed = matching(profiles, target);
        if removed.is_empty() {
            known = profiles.profiles.keys().cloned().collect();
            return false;
        }
        for id in &removed {
            profiles.profiles.shift_remove(id);
        }
        true
    })?;
    if removed.is_empty() {
        let message = unknown_profile(target, &known);
        // A bare word may have meant a provider: say that none of its profiles is stored.
        let message = if target.contains(':') {
            message
        } else {
            message.replacen("no auth profile ", "no auth profile or provider ", 1)
        };
        return Err(Failure::usage(message));
    }
    context.store.update_state(&mut |_, state| {
        removed
            .iter()
            .fold(false, |changed, id| forget_profile(state, id) | changed)
    })?;
    for id in &removed {
        say(&format!("removed auth profile {id}"));
    }
    Ok(())
}

/// The profile ids `target` names: itself when it is a stored id, else every profile of the
/// provider `target` (compared as the runner compares providers).
fn matching(profiles: &AuthProfiles, target: &str) -> Vec<String> {
    if profiles.profiles.contains_key(target) {
        return vec![target.to_owned()];
    }
    if target.contains(':') {
        return Vec::new();
    }
    let provider = provider_key(target);
    profiles
        .profiles
        .iter()
        .filter(|(id, credential)| {
            let stored = credential
                .provider()
                .or_else(|| id.split_once(':').map(|(p, _)| p));
            stored.is_some_and(|p| provider_key(p) == provider)
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// `no auth profile x; known profiles: a, b` (or that there are none).
pub fn unknown_profile(id: &str, known: &[String]) -> String {
    if known.is_empty() {
        format!("no auth profile {id}: there are no stored profiles")
    } else {
        format!("no auth profile {id}; known profiles: {}", known.join(", "))
    }
}
