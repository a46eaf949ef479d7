//! The no-output watchdog's timeout (OpenClaw's `resolveCliNoOutputTimeoutMs`): a CLI that
//! writes nothing to stdout for this long is killed. Fresh sessions get more room than resumed
//! ones, because a fresh CLI may spend a while loading before its first line.

use std::time::Duration;

use super::settings::WatchdogProfileSettings;
use crate::config::ConfigError;

/// No configured or computed watchdog timeout is below this.
pub const MIN_WATCHDOG_MS: u64 = 1000;

/// One resolved watchdog profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WatchdogProfile {
    /// A fixed timeout, when configured.
    pub no_output_timeout_ms: Option<u64>,
    /// Fraction of the overall timeout.
    pub ratio: f64,
    /// Lower bound of the computed timeout.
    pub min_ms: u64,
    /// Upper bound of the computed timeout.
    pub max_ms: u64,
}

impl WatchdogProfile {
    /// Fresh sessions: 80 % of the overall timeout, between 180 s and 600 s.
    pub const FRESH: WatchdogProfile = WatchdogProfile {
        no_output_timeout_ms: None,
        ratio: 0.8,
        min_ms: 180_000,
        max_ms: 600_000,
    };

    /// Resumed sessions: 30 % of the overall timeout, between 60 s and 180 s.
    pub const RESUME: WatchdogProfile = WatchdogProfile {
        no_output_timeout_ms: None,
        ratio: 0.3,
        min_ms: 60_000,
        max_ms: 180_000,
    };

    /// `settings` over `defaults`, clamped as OpenClaw does: the ratio to 0.05–0.95, every
    /// duration to at least 1 s, and `min ≤ max`. `path` names the profile in errors.
    pub(crate) fn resolve(
        settings: Option<&WatchdogProfileSettings>,
        defaults: WatchdogProfile,
        path: &str,
    ) -> Result<WatchdogProfile, ConfigError> {
        let Some(s) = settings else {
            return Ok(defaults);
        };
        let ms = |key: &str, value: Option<f64>| -> Result<Option<u64>, ConfigError> {
            match value {
                None => Ok(None),
                Some(v) if v.is_finite() && v >= 0.0 => {
                    // `as` saturates; the value is finite and non-negative here.
                    Ok(Some((v.floor() as u64).max(MIN_WATCHDOG_MS)))
                }
                Some(_) => Err(ConfigError {
                    path: format!("{path}.{key}"),
                    message: "must be a number of milliseconds, 0 or more".into(),
                }),
            }
        };
        let ratio = match s.no_output_timeout_ratio {
            None => defaults.ratio,
            Some(r) if r.is_finite() => r.clamp(0.05, 0.95),
            Some(_) => {
                return Err(ConfigError {
                    path: format!("{path}.noOutputTimeoutRatio"),
                    message: "must be a finite number".into(),
                });
            }
        };
        let min_ms = ms("minMs", s.min_ms)?.unwrap_or(defaults.min_ms);
        let max_ms = ms("maxMs", s.max_ms)?.unwrap_or(defaults.max_ms);
        Ok(WatchdogProfile {
            no_output_timeout_ms: ms("noOutputTimeoutMs", s.no_output_timeout_ms)?,
            ratio,
            min_ms: min_ms.min(max_ms),
            max_ms: min_ms.max(max_ms),
        })
    }

    /// The timeout for a run whose overall limit is `overall` (`None` = no limit): the fixed
    /// value, else `overall × ratio` within `[min, max]`; never more than `overall − 1 s`
    /// (at least 1 s), so the watchdog fires before the overall timeout would.
    pub fn timeout(&self, overall: Option<Duration>) -> Duration {
        let Some(overall) = overall else {
            return Duration::from_millis(self.no_output_timeout_ms.unwrap_or(self.max_ms));
        };
        let overall_ms = u64::try_from(overall.as_millis()).unwrap_or(u64::MAX);
        let cap = overall_ms.saturating_sub(1000).max(MIN_WATCHDOG_MS);
        let chosen = match self.no_output_timeout_ms {
            Some(fixed) => fixed,
            None => {
                let computed = (overall_ms as f64 * self.ratio).floor() as u64;
                computed.clamp(self.min_ms, self.max_ms)
            }
        };
        Duration::from_millis(chosen.min(cap))
    }
}

/// The watchdog profiles of a backend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CliWatchdog {
    /// Runs that start a new CLI session.
    pub fresh: WatchdogProfile,
    /// Runs that resume a CLI session.
    pub resume: WatchdogProfile,
}

impl Default for CliWatchdog {
    fn default() -> Self {
        CliWatchdog {
            fresh: WatchdogProfile::FRESH,
            resume: WatchdogProfile::RESUME,
        }
    }
}

impl CliWatchdog {
    /// The profile of a fresh (`resume == false`) or resumed run.
    pub fn profile(&self, resume: bool) -> &WatchdogProfile {
        if resume { &self.resume } else { &self.fresh }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn secs(s: u64) -> Option<Duration> {
        Some(Duration::from_secs(s))
    }

    #[test]
    fn computed_timeouts_follow_openclaws_formula() {
        let fresh = WatchdogProfile::FRESH;
        // 600 s × 0.8 = 480 s, inside [180, 600].
        assert_eq!(fresh.timeout(secs(600)), Duration::from_secs(480));
        // 100 s × 0.8 = 80 s → raised to 180 s → capped at 99 s.
        assert_eq!(fresh.timeout(secs(100)), Duration::from_secs(99));
        assert_eq!(fresh.timeout(secs(3600)), Duration::from_secs(600));
        assert_eq!(fresh.timeout(None), Duration::from_secs(600));
        let resume = WatchdogProfile::RESUME;
        assert_eq!(resume.timeout(secs(600)), Duration::from_secs(180));
        assert_eq!(resume.timeout(secs(300)), Duration::from_secs(90));
        // The cap never goes below one second.
        assert_eq!(
            resume.timeout(Some(Duration::from_millis(500))),
            Duration::from_secs(1)
        );
    }

    #[test]
    fn settings_are_clamped() {
        let settings = WatchdogProfileSettings {
            no_output_timeout_ms: Some(10.0),
            no_output_timeout_ratio: Some(2.0),
            min_ms: Some(90_000.0),
            max_ms: Some(30_000.0),
        };
        let profile =
            WatchdogProfile::resolve(Some(&settings), WatchdogProfile::FRESH, "p").unwrap();
        assert_eq!(
            profile,
            WatchdogProfile {
                no_output_timeout_ms: Some(1000),
                ratio: 0.95,
                min_ms: 30_000,
                max_ms: 90_000,
            }
        );
        assert_eq!(profile.timeout(secs(600)), Duration::from_secs(1));
        let bad = WatchdogProfileSettings {
            min_ms: Some(-1.0),
            ..WatchdogProfileSettings::default()
        };
        assert_eq!(
            WatchdogProfile::resolve(Some(&bad), WatchdogProfile::FRESH, "p")
                .err()
                .map(|e| e.path),
            Some("p.minMs".to_owned())
        );
    }
}
