//! Median and 90th percentile of a sample set.

use serde::{Deserialize, Serialize};

/// The median and the 90th percentile of some samples (nearest rank: a value that occurred).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The middle value (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The smallest value at least 90 % of the samples are not above.
    pub p90: f64,
}

/// The summary of `samples`; `None` when there are none (or one is NaN).
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|s| s.is_nan()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    // Nearest rank: ceil(0.9 n), 1-based.
    let rank = (n * 9).div_ceil(10).max(1);
    Some(Summary {
        median,
        p90: sorted[rank - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn odd_even_and_single_counts() {
        assert_eq!(
            summarize(&[5.0, 1.0, 3.0]),
            Some(Summary {
                median: 3.0,
                p90: 5.0
            })
        );
        assert_eq!(
            summarize(&[4.0, 1.0, 3.0, 2.0]),
            Some(Summary {
                median: 2.5,
                p90: 4.0
            })
        );
        assert_eq!(
            summarize(&[7.0]),
            Some(Summary {
                median: 7.0,
                p90: 7.0
            })
        );
    }

    #[test]
    fn p90_is_the_nearest_rank() {
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(summarize(&ten).map(|s| s.p90), Some(9.0));
        let twenty: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        assert_eq!(
            summarize(&twenty),
            Some(Summary {
                median: 10.5,
                p90: 18.0
            })
        );
        let eleven: Vec<f64> = (1..=11).map(f64::from).collect();
        assert_eq!(summarize(&eleven).map(|s| s.p90), Some(10.0));
    }

    #[test]
    fn empty_or_nan_has_no_summary() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[1.0, f64::NAN]), None);
    }
}
