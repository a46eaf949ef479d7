//! Times of the auth store (ms since the epoch) in the user's local time zone.

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// `2026-11-26 22:41:07 CET` in the zone of `TZ` or `/etc/localtime` (UTC when neither
/// names a zone); a time outside the calendar's range is shown as the raw number.
pub fn format_local_ms(ms: f64) -> String {
    // Store times are integral JS numbers; a fraction or a huge value is shown as stored.
    #[allow(clippy::cast_possible_truncation)]
    let whole = ms as i64;
    match Timestamp::from_millisecond(whole) {
        Ok(ts) => ts
            .to_zoned_datetime(TimeZone::system())
            .strftime("%Y-%m-%d %H:%M:%S %Z")
            .to_string(),
        Err(_) => format!("{ms} ms since the epoch"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_times_are_shown_raw() {
        assert!(format_local_ms(1e300).ends_with(" ms since the epoch"));
        assert!(format_local_ms(1_700_000_000_000.0).starts_with("2023-11-1"));
    }
}
