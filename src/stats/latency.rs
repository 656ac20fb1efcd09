//! Latency distributions: an HdrHistogram of nanoseconds (3 significant digits, growing as
//! needed) and the summary people read off it. Percentiles always come from the histogram and
//! are clamped to the observed min and max, since a bucket's upper edge can exceed the largest
//! value actually seen.

use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency histogram in nanoseconds.
pub type LatencyHistogram = Histogram<u64>;

/// An empty latency histogram: 3 significant digits, auto-resizing so a rare long stall is
/// recorded rather than dropped, and small while latencies are short.
pub fn new_histogram() -> LatencyHistogram {
    Histogram::new(3).expect("3 significant digits is a valid histogram precision")
}

/// Latency figures of one interval or of a whole run, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    /// How many latencies the figures come from.
    pub count: u64,
    pub min: u64,
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

impl LatencySummary {
    /// Summarises a histogram; all zero when it is empty.
    pub fn of(h: &LatencyHistogram) -> Self {
        if h.is_empty() {
            return LatencySummary::default();
        }
        let (min, max) = (h.min(), h.max());
        let q = |quantile: f64| h.value_at_quantile(quantile).clamp(min, max);
        LatencySummary {
            count: h.len(),
            min,
            mean: h.mean(),
            p50: q(0.50),
            p90: q(0.90),
            p99: q(0.99),
            p999: q(0.999),
            max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        let s = LatencySummary::of(&h);
        assert_eq!(s.count, 1000);
        assert_eq!(s.min, 1000);
        assert_eq!(s.max, 1_000_000);
        assert!((s.mean - 500_500.0).abs() / 500_500.0 < 0.001);
        // 3 significant digits: within 0.1% of the exact order statistic.
        for (got, exact) in [(s.p50, 500_000.0), (s.p90, 900_000.0), (s.p99, 990_000.0)] {
            assert!((got as f64 - exact).abs() / exact <= 0.001, "{got} vs {exact}");
        }
    }

    #[test]
    fn percentiles_are_clamped_to_observed_values() {
        let mut h = new_histogram();
        h.record(123_456_789).unwrap();
        let s = LatencySummary::of(&h);
        assert_eq!((s.min, s.p50, s.p99, s.p999, s.max), (123_456_789, 123_456_789, 123_456_789, 123_456_789, 123_456_789));
        assert_eq!(LatencySummary::of(&new_histogram()), LatencySummary::default());
    }
}
