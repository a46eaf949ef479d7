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
