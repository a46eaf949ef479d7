//! `clawloop auth remove <profileId>`: deletes a profile's credential and everything the state
//! remembers about it.

use clap::Args;
use clawloop_core::auth_store::AuthStore;
use clawloop_runner::auth::forget::forget_profile;

use super::{AuthContext, CmdError, say};

/// Arguments of `clawloop auth remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The profile to remove, e.g. `openai:default`.
    profile_id: String,
}

/// Runs `clawloop auth remove`.
pub fn run(args: &RemoveArgs) -> Result<(), CmdError> {
    let context = AuthContext::load()?;
    let id = &args.profile_id;
    let mut known: Option<Vec<String>> = None;
    context.store.update_profiles(&mut |profiles| {
        if profiles.profiles.shift_remove(id).is_some() {
            known = None;
            true
        } else {
            known = Some(profiles.profiles.keys().cloned().collect());
            false
        }
    })?;
    if let Some(known) = known {
        return Err(CmdError::usage(unknown_profile(id, &known)));
    }
    context
        .store
        .update_state(&mut |_, state| forget_profile(state, id))?;
    say(&format!("removed auth profile {id}"));
    Ok(())
}

/// `no auth profile x; known profiles: a, b` (or that there are none).
pub fn unknown_profile(id: &str, known: &[String]) -> String {
    if known.is_empty() {
        format!("no auth profile {id}: there are no stored profiles")
    } else {
        format!("no auth profile {id}; known profiles: {}", known.join(", "))
    }
}
