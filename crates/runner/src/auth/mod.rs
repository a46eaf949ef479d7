//! Auth profiles (SPEC §8.5; reference `openclaw-runner.md` §13): which credential a run
//! uses, in what order, and how long a failed one rests.
//!
//! * [`config`] — the `[auth]` config table;
//! * [`files`] / [`memory`] — [`AuthStore`](clawloop_core::auth_store::AuthStore)
//!   implementations (OpenClaw's `auth-profiles.json` + `auth-state.json`, or memory);
//! * [`eligibility`], [`order`], [`cooldown`], [`mark`], [`unavailable`] — the decisions, as
//!   pure functions of the stored data, the config and a time;
//! * [`forget`] — clearing a removed profile out of the state;
//! * [`AuthProfileManager`] — those decisions applied to a store at the clock's time.
//!
//! Not re-created: OpenClaw's usage probe for `openai-codex` rate limits
//! (`chatgpt.com/backend-api/wham/usage`); clawloop sends no traffic there and uses the
//! configured schedule for every provider.

mod atomic_write;
pub mod config;
pub mod cooldown;
pub mod eligibility;
mod file_lock;
pub mod files;
pub mod forget;
mod manager;
pub mod mark;
pub mod memory;
pub mod order;
mod provider;
mod secret;
pub mod unavailable;

pub use config::{AuthConfig, AuthConfigError, AuthMode, AuthProfileConfig, CooldownsConfig};
pub use eligibility::EligibilityReason;
pub use files::FileAuthStore;
pub use manager::AuthProfileManager;
pub use memory::InMemoryAuthStore;
pub use provider::{is_cooldown_bypassed, provider_key};
pub use secret::{COMMAND_REF_PROVIDER, SecretError, credential_secret};
