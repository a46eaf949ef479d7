//! Arbitrary bytes as the auth-profile files of an agent directory, read by `FileAuthStore`.
//!
//! The input is up to three files separated by NUL bytes: `auth-profiles.json`,
//! `auth-state.json`, then the legacy `auth.json`; a file after the last NUL is absent. Files
//! that load write back (as the store's updates do) and load again to the same profiles and
//! state.
#![no_main]

use clawloop_core::auth_store::AuthStore;
use clawloop_runner::auth::FileAuthStore;
use libfuzzer_sys::fuzz_target;

thread_local! {
    static DIR: tempfile::TempDir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => panic!("no temporary directory: {error}"),
    };
}

fuzz_target!(|data: &[u8]| {
    DIR.with(|dir| {
        let agent = dir.path().join("agent");
        let _ = std::fs::remove_dir_all(&agent);
        if let Err(error) = std::fs::create_dir_all(&agent) {
            panic!("cannot create {}: {error}", agent.display());
        }
        let store = FileAuthStore::new(&agent);
        let paths = [
            store.profiles_path(),
            store.state_path(),
            store.legacy_path(),
        ];
        for (path, bytes) in paths.iter().zip(data.split(|&b| b == 0)) {
            if let Err(error) = std::fs::write(path, bytes) {
                panic!("cannot write {}: {error}", path.display());
            }
        }
        let Ok(snapshot) = store.load() else {
            return;
        };
        let profiles = match store.update_profiles(&mut |_| true) {
            Ok(profiles) => profiles,
            Err(error) => panic!("loaded profiles do not write back: {error}"),
        };
        assert_eq!(profiles, snapshot.profiles);
        if let Err(error) = store.update_state(&mut |_, _| true) {
            panic!("a loaded state does not write back: {error}");
        }
        match store.load() {
            Ok(again) => assert_eq!(again, snapshot, "the files changed through a write"),
            Err(error) => panic!("written files do not load: {error}"),
        }
    });
});
