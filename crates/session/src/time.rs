//! ISO-8601 timestamps as JavaScript writes and reads them.
//!
//! Entries carry `new Date().toISOString()` strings (`2025-12-08T22:41:05.306Z`) while the
//! messages rebuilt from them carry Unix milliseconds, so both directions are needed. Written
//! by hand because the format is tiny and fixed; a date crate would be the only reason to pull
//! one in.

/// Milliseconds per day.
const MS_PER_DAY: u64 = 86_400_000;

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (`Date.prototype.toISOString`).
pub fn format_iso(ms: u64) -> String {
    let days = ms / MS_PER_DAY;
    let rem = ms % MS_PER_DAY;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// Parses an ISO-8601 date-time into Unix milliseconds, as `new Date(s).getTime()` does for the
/// forms pi writes: `YYYY-MM-DD`, optionally `THH:MM`, `:SS`, a fraction, and `Z` or `±HH:MM`.
///
/// `None` where JavaScript gives `NaN`, and for times before 1970 (messages hold unsigned
/// milliseconds). A time without a zone is read as UTC (JavaScript would use local time; pi
/// never writes one).
pub fn parse_iso(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<u64> {
        let digits = b.get(from..from + len)?;
        digits.iter().try_fold(0u64, |acc, d| {
            d.is_ascii_digit().then(|| acc * 10 + u64::from(d - b'0'))
        })
    };
    let sep = |at: usize, c: u8| b.get(at) == Some(&c);
    let year = num(0, 4)?;
    let month = num(5, 2).filter(|m| sep(4, b'-') && (1..=12).contains(m))?;
    let day = num(8, 2).filter(|d| sep(7, b'-') && *d >= 1 && *d <= days_in_month(year, month))?;
    let mut ms = days_from_civil(year, month, day)? * MS_PER_DAY;
    if b.len() == 10 {
        return Some(ms);
    }
    if !sep(10, b'T') {
        return None;
    }
    let hour = num(11, 2).filter(|h| *h < 24)?;
    let minute = num(14, 2).filter(|m| sep(13, b':') && *m < 60)?;
    let mut at = 16;
    let mut second = 0;
    let mut millis = 0;
    if sep(at, b':') {
        second = num(at + 1, 2).filter(|s| *s < 60)?;
        at += 3;
        if sep(at, b'.') {
            at += 1;
            let start = at;
            while b.get(at).is_some_and(u8::is_ascii_digit) {
                // Only the first three digits count; JavaScript truncates the rest.
                if at - start < 3 {
                    millis = millis * 10 + u64::from(b[at] - b'0');
                }
                at += 1;
            }
            match at - start {
                0 => return None,
                1 => millis *= 100,
                2 => millis *= 10,
                _ => {}
            }
        }
    }
    ms += ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    match b.get(at..) {
        Some(b"") | Some(b"Z") => Some(ms),
        Some([sign @ (b'+' | b'-'), ..]) if b.len() == at + 6 && sep(at + 3, b':') => {
            let offset = (num(at + 1, 2)? * 60 + num(at + 4, 2)?) * 60_000;
            // `+02:00` is two hours ahead of UTC, so UTC is the local time minus the offset.
            if *sign == b'+' {
                ms.checked_sub(offset)
            } else {
                Some(ms + offset)
            }
        }
        _ => None,
    }
}

fn is_leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date in or after 1970 (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    let y = if month <= 2 {
        year.checked_sub(1)?
    } else {
        year
    };
    let era = y / 400;
    let yoe = y % 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

/// The date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn formats_like_to_iso_string() {
        assert_eq!(format_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso(1_700_000_000_000), "2023-11-14T22:13:20.000Z");
        assert_eq!(format_iso(1_709_210_096_789), "2024-02-29T12:34:56.789Z");
    }

    #[test]
    fn parses_what_it_formats() {
        for ms in [
            0,
            1,
            999,
            86_399_999,
            1_700_000_000_000,
            1_709_210_096_789,
            4_102_444_800_000,
        ] {
            assert_eq!(parse_iso(&format_iso(ms)), Some(ms), "{ms}");
        }
    }

    #[test]
    fn parses_other_javascript_forms() {
        let base = parse_iso("2025-12-08T22:41:05.306Z");
        assert_eq!(base, Some(1_765_233_665_306));
        assert_eq!(parse_iso("2025-12-08T22:41:05.3061234Z"), base);
        assert_eq!(parse_iso("2025-12-09T00:41:05.306+02:00"), base);
        assert_eq!(parse_iso("2025-12-08T20:41:05.306-02:00"), base);
        assert_eq!(parse_iso("2025-12-08T22:41:05.3Z"), Some(1_765_233_665_300));
        assert_eq!(parse_iso("2025-12-08T22:41Z"), Some(1_765_233_660_000));
        assert_eq!(parse_iso("2025-12-08"), Some(1_765_152_000_000));
    }

    #[test]
    fn rejects_what_javascript_rejects() {
        for bad in [
            "",
            "…",
            "2025-13-01",
            "2025-02-30T00:00:00Z",
            "2025-12-08T25:00:00Z",
            "2025-12-08T22:41:05.Z",
            "2025-12-08 22:41:05Z",
            "2025-12-08T22:41:05Zjunk",
            "1969-12-31T23:59:59.999Z",
            "20x5-12-08",
        ] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
    }
}
