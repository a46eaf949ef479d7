//! An [`AuthStore`] in memory: for tests and for embedders that keep credentials elsewhere.

use clawloop_core::auth_store::{AuthProfiles, AuthSnapshot, AuthState, AuthStore, AuthStoreError};
use parking_lot::Mutex;

/// Auth profiles and state held in memory; updates are serialized by a mutex.
#[derive(Debug, Default)]
pub struct InMemoryAuthStore {
    data: Mutex<AuthSnapshot>,
}

impl InMemoryAuthStore {
    /// A store holding `profiles` and `state`.
    pub fn new(profiles: AuthProfiles, state: AuthState) -> Self {
        InMemoryAuthStore {
            data: Mutex::new(AuthSnapshot { profiles, state }),
        }
    }
}

impl AuthStore for InMemoryAuthStore {
    fn load(&self) -> Result<AuthSnapshot, AuthStoreError> {
        Ok(self.data.lock().clone())
    }

    fn update_state(
        &self,
        update: &mut dyn FnMut(&AuthProfiles, &mut AuthState) -> bool,
    ) -> Result<AuthSnapshot, AuthStoreError> {
        let mut data = self.data.lock();
        let AuthSnapshot { profiles, state } = &mut *data;
        // Work on a copy so the update's result is all-or-nothing, as with the files.
        let mut next = state.clone();
        if update(profiles, &mut next) {
            *state = next;
        }
        Ok(data.clone())
    }

    fn update_profiles(
        &self,
        update: &mut dyn FnMut(&mut AuthProfiles) -> bool,
    ) -> Result<AuthProfiles, AuthStoreError> {
        let mut data = self.data.lock();
        let mut next = data.profiles.clone();
        if update(&mut next) {
            data.profiles = next;
        }
        Ok(data.profiles.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn updates_apply_only_when_reported_changed() {
        let store = InMemoryAuthStore::default();
        let snapshot = store
            .update_state(&mut |_, state| {
                state.stats_mut("p").error_count = Some(3);
                false
            })
            .unwrap();
        assert!(snapshot.state.is_empty());
        store
            .update_state(&mut |_, state| {
                state.stats_mut("p").error_count = Some(3);
                true
            })
            .unwrap();
        store
            .update_profiles(&mut |profiles| {
                profiles.extra.insert("note".into(), serde_json::json!(1));
                true
            })
            .unwrap();
        let loaded = store.load().unwrap();
        assert_eq!(loaded.state.stats("p").unwrap().error_count, Some(3));
        assert_eq!(loaded.profiles.extra["note"], serde_json::json!(1));
    }
}
