//! Async counterparts of the [`SessionStore`] operations: each runs the blocking operation —
//! file reads and writes, and waits for the store's or a transcript's lock — on the Tokio
//! runtime's blocking pool, so awaiting one never blocks a runtime worker thread.
//!
//! Every method must be awaited within a Tokio runtime. Dropping the future does not stop an
//! operation already running on the pool: a change started is finished or fails as a whole,
//! as its blocking form guarantees.

use crate::blocking::run_blocking;
use crate::error::SessionError;
use crate::options::SessionOptions;
use crate::store::{SessionRecord, SessionStore, StoredSession};
use crate::transcript::Transcript;

impl SessionStore {
    /// [`SessionStore::list`] on the blocking pool.
    pub async fn list_async(&self) -> Result<Vec<StoredSession>, SessionError> {
        let store = self.clone();
        run_blocking(&self.store_path(), move || store.list()).await
    }

    /// [`SessionStore::find_by_key`] on the blocking pool.
    pub async fn find_by_key_async(
        &self,
        key: &str,
    ) -> Result<Option<SessionRecord>, SessionError> {
        let (store, key) = (self.clone(), key.to_owned());
        run_blocking(&self.store_path(), move || store.find_by_key(&key)).await
    }

    /// [`SessionStore::find_by_id_prefix`] on the blocking pool.
    pub async fn find_by_id_prefix_async(
        &self,
        prefix: &str,
    ) -> Result<Option<StoredSession>, SessionError> {
        let (store, prefix) = (self.clone(), prefix.to_owned());
        run_blocking(&self.store_path(), move || store.find_by_id_prefix(&prefix)).await
    }

    /// [`SessionStore::set`] on the blocking pool.
    pub async fn set_async(&self, key: &str, record: SessionRecord) -> Result<(), SessionError> {
        let (store, key) = (self.clone(), key.to_owned());
        run_blocking(&self.store_path(), move || store.set(&key, record)).await
    }

    /// [`SessionStore::update`] on the blocking pool; `change` runs there, under the store's
    /// lock.
    pub async fn update_async(
        &self,
        key: &str,
        change: impl FnOnce(&mut SessionRecord) + Send + 'static,
    ) -> Result<SessionRecord, SessionError> {
        let (store, key) = (self.clone(), key.to_owned());
        run_blocking(&self.store_path(), move || store.update(&key, change)).await
    }

    /// [`SessionStore::new_session_for_key`] on the blocking pool.
    pub async fn new_session_for_key_async(
        &self,
        key: &str,
        options: SessionOptions,
    ) -> Result<Transcript, SessionError> {
        let (store, key) = (self.clone(), key.to_owned());
        run_blocking(&self.store_path(), move || {
            store.new_session_for_key(&key, options)
        })
        .await
    }

    /// [`SessionStore::fork`] on the blocking pool.
    pub async fn fork_async(
        &self,
        source_key: &str,
        leaf_id: Option<&str>,
        new_key: &str,
        options: SessionOptions,
    ) -> Result<Transcript, SessionError> {
        let store = self.clone();
        let (source_key, leaf_id, new_key) = (
            source_key.to_owned(),
            leaf_id.map(str::to_owned),
            new_key.to_owned(),
        );
        run_blocking(&self.store_path(), move || {
            store.fork(&source_key, leaf_id.as_deref(), &new_key, options)
        })
        .await
    }

    /// [`SessionStore::delete`] on the blocking pool (its wait for the transcript's writer
    /// included).
    pub async fn delete_async(&self, key: &str) -> Result<Option<SessionRecord>, SessionError> {
        let (store, key) = (self.clone(), key.to_owned());
        run_blocking(&self.store_path(), move || store.delete(&key)).await
    }
}
