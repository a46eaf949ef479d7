//! Reading `retry-after-ms` / `retry-after` response headers.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;

/// How long the server asks the client to wait, in ms: `retry-after-ms` (OpenAI's
/// millisecond header) wins over `retry-after`, which is either seconds (fractions allowed)
/// or an HTTP date (turned into a delay from `now`; a date in the past gives 0).
pub fn retry_after_ms(headers: &HeaderMap, now: SystemTime) -> Option<u64> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(parse_non_negative) {
        return Some(ms.round() as u64);
    }
    let value = header("retry-after")?;
    if let Some(seconds) = parse_non_negative(value) {
        return Some((seconds * 1000.0).round() as u64);
    }
    let at = parse_http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_millis();
    let at_ms = u128::from(at) * 1000;
    Some(u64::try_from(at_ms.saturating_sub(now)).unwrap_or(u64::MAX))
}

/// A finite, non-negative number below ~31 years in ms (anything larger is nonsense that
/// would overflow the casts above).
fn parse_non_negative(text: &str) -> Option<f64> {
    let value: f64 = text.parse().ok()?;
    (value.is_finite() && (0.0..1e12).contains(&value)).then_some(value)
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only
/// date format servers send today. Every field is range-checked (a leap second is allowed):
/// a date that does not exist (hour 99, 31 February) is no date, not a panic or a wrapped
/// number.
fn parse_http_date(text: &str) -> Option<u64> {
    let rest = text.split_once(", ")?.1;
    let mut parts = rest.split(' ');
    let day: u64 = parts.next()?.parse().ok()?;
    let month = match parts.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: u64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':');
    let hour: u64 = clock.next()?.parse().ok()?;
    let minute: u64 = clock.next()?.parse().ok()?;
    let second: u64 = clock.next()?.parse().ok()?;
    let valid = clock.next().is_none()
        && parts.next()? == "GMT"
        && parts.next().is_none()
        && (1970..=9999).contains(&year)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second <= 60;
    if !valid {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm), years from March.
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y % 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second)
}

/// The number of days of `month` (1–12) in `year` (Gregorian).
fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use std::time::Duration;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn seconds_ms_and_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "7")]), now),
            Some(7000)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "1.5")]), now),
            Some(1500)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "7"), ("retry-after-ms", "250")]),
                now
            ),
            Some(250)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:47 GMT")]),
                now
            ),
            Some(10_000)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:00 GMT")]),
                now
            ),
            Some(0)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "-1")]), now),
            None
        );
        assert_eq!(retry_after_ms(&headers(&[]), now), None);
    }

    #[test]
    fn dates_that_do_not_exist_are_no_retry_after() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777);
        for date in [
            "Sun, 06 Nov 1994 99:49:47 GMT",
            "Sun, 06 Nov 1994 18446744073709551615:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT",
            "Sun, 06 Nov 1994 08:49:47:12 GMT",
            "Tue, 31 Feb 1995 08:49:47 GMT",
            "Tue, 29 Feb 1995 08:49:47 GMT",
            "Sun, 06 Nov 1994 08:49:47 GMT extra",
        ] {
            assert_eq!(
                retry_after_ms(&headers(&[("retry-after", date)]), now),
                None,
                "{date}"
            );
        }
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Thu, 29 Feb 1996 00:00:00 GMT")]),
                now
            ),
            Some(41_440_223_000)
        );
    }
}
