//! "3 min ago": how long ago a time was, in the largest unit that fits.

/// `then_ms` relative to `now_ms`, e.g. `just now`, `3 min ago`, `2 h ago`, `5 days ago`; a
/// time in the future (a clock that moved back) reads `just now`, an unknown (0) one `never`.
pub fn relative(then_ms: u64, now_ms: u64) -> String {
    if then_ms == 0 {
        return "never".to_owned();
    }
    let seconds = now_ms.saturating_sub(then_ms) / 1000;
    let (minute, hour, day) = (60, 60 * 60, 24 * 60 * 60);
    match seconds {
        s if s < minute => "just now".to_owned(),
        s if s < hour => format!("{} min ago", s / minute),
        s if s < day => format!("{} h ago", s / hour),
        s if s < 2 * day => "1 day ago".to_owned(),
        s => format!("{} days ago", s / day),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn picks_the_largest_unit_that_fits() {
        let now = 1_800_000_000_000;
        let cases: Vec<String> = [0, 59, 60, 185, 3600, 86_399, 86_400, 3 * 86_400]
            .iter()
            .map(|s: &u64| relative(now - s * 1000, now))
            .collect();
        assert_eq!(
            cases,
            [
                "just now",
                "just now",
                "1 min ago",
                "3 min ago",
                "1 h ago",
                "23 h ago",
                "1 day ago",
                "3 days ago"
            ]
        );
        assert_eq!(relative(now + 5000, now), "just now");
        assert_eq!(relative(0, now), "never");
    }
}
