//! The user's date and time for the prompt's `## Current Date & Time` section, in OpenClaw's
//! wording (`date-time.ts` `formatUserTime`): `Monday, January 5th, 2026 - 3:04 PM`.
//!
//! The zone comes from the caller (config), never from the process's `TZ`; its rules come from
//! the tz database bundled into the binary, so the same input renders the same text anywhere.

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// 12- or 24-hour clock (OpenClaw's `ResolvedTimeFormat`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HourFormat {
    /// `3:04 PM`.
    #[default]
    Twelve,
    /// `15:04`.
    TwentyFour,
}

/// The user's zone and, optionally, the moment to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserTime {
    /// IANA zone name (`Europe/Berlin`); an unknown name falls back to `UTC` with a warning.
    pub timezone: String,
    /// Milliseconds since the Unix epoch; `None` shows the zone only (a prompt without the time
    /// stays byte-identical across turns, which keeps provider prompt caches warm).
    pub now_ms: Option<u64>,
    /// How hours are written.
    pub hour_format: HourFormat,
}

impl UserTime {
    /// The zone and the time read from `clock` now.
    pub fn now(
        timezone: impl Into<String>,
        clock: &dyn clawloop_core::Clock,
        hour_format: HourFormat,
    ) -> Self {
        UserTime {
            timezone: timezone.into(),
            now_ms: Some(clock.now_ms()),
            hour_format,
        }
    }
}

/// A zone resolved for the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedTime {
    /// The zone name shown.
    pub timezone: String,
    /// The formatted moment, when one was given.
    pub formatted: Option<String>,
    /// Set when the configured zone was unknown.
    pub warning: Option<String>,
}

/// Resolves the zone (OpenClaw's `resolveUserTimezone`, minus its host-zone fallback: the
/// process's zone is never consulted) and formats the moment.
pub(crate) fn resolve_user_time(user_time: &UserTime) -> ResolvedTime {
    let requested = user_time.timezone.trim();
    let (timezone, zone, warning) = match TimeZone::get(requested) {
        Ok(zone) if !requested.is_empty() => (requested.to_owned(), zone, None),
        _ => (
            "UTC".to_owned(),
            TimeZone::UTC,
            Some(format!(
                "unknown time zone {requested:?} in the system prompt; using UTC"
            )),
        ),
    };
    let formatted = user_time
        .now_ms
        .and_then(|ms| format_user_time(ms, &zone, user_time.hour_format));
    ResolvedTime {
        timezone,
        formatted,
        warning,
    }
}

/// `Weekday, Month Dth, YYYY - h:mm AM` (or `HH:mm` on a 24-hour clock).
fn format_user_time(now_ms: u64, zone: &TimeZone, hour_format: HourFormat) -> Option<String> {
    let ms = i64::try_from(now_ms).ok()?;
    let zoned = Timestamp::from_millisecond(ms)
        .ok()?
        .to_zoned_datetime(zone.clone());
    let day = zoned.day();
    let date = zoned.strftime("%A, %B").to_string();
    let time = match hour_format {
        HourFormat::Twelve => zoned.strftime("%-I:%M %p").to_string(),
        HourFormat::TwentyFour => zoned.strftime("%H:%M").to_string(),
    };
    Some(format!(
        "{date} {day}{}, {} - {time}",
        ordinal_suffix(day),
        zoned.year()
    ))
}

fn ordinal_suffix(day: i8) -> &'static str {
    if (11..=13).contains(&day) {
        return "th";
    }
    match day % 10 {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    }
}
