//! Latency distributions: an HdrHistogram of nanoseconds (3 significant digits, growing as
//! needed) with the exact min and max beside it, and the summary people read off it.
//! Percentiles always come from the histogram and are clamped to the observed min and max,
//! since a bucket's upper edge can exceed the largest value actually seen.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Latencies in nanoseconds: an HdrHistogram for the distribution plus the exact min and max
/// (the histogram only knows them to its precision).
#[derive(Debug, Clone)]
pub struct Latency {
    hist: Histogram<u64>,
    min: u64,
    max: u64,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            // 3 significant digits, auto-resizing: a rare long stall is recorded, not dropped,
            // and the histogram stays small while latencies are short.
            hist: Histogram::new(3).expect("3 significant digits is a valid histogram precision"),
            min: u64::MAX,
            max: 0,
        }
    }
}

impl Latency {
    /// Records one latency. Allocates only when a value beyond the current range grows the
    /// histogram, which stops happening once the range of the run has been seen.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let ns = ns.max(1);
        let _ = self.hist.record(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Records `count` latencies of `ns` each.
    pub fn record_n(&mut self, ns: u64, count: u64) {
        if count == 0 {
            return;
        }
        let ns = ns.max(1);
        let _ = self.hist.record_n(ns, count);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Adds all of `other`.
    pub fn add(&mut self, other: &Latency) {
        if other.is_empty() {
            return;
        }
        // Auto-resizing histograms of equal precision always add.
        let _ = self.hist.add(&other.hist);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Empties it, keeping its allocation.
    pub fn reset(&mut self) {
        self.hist.reset();
        self.min = u64::MAX;
        self.max = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.hist.is_empty()
    }

    /// Number of latencies recorded.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The distribution, for drawing.
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.hist
    }

    /// The figures people read; all zero when empty.
    pub fn summary(&self) -> LatencySummary {
        LatencySummary::of(self)
    }

    /// The same distribution kept small, at two significant digits (1 % apart, where the
    /// histogram keeps 0.1 %): the buckets that hold a count, with the exact min and max. A
    /// wide distribution of millions of I/Os fills some 6,600 buckets at three digits (about
    /// 100 KiB) and about a thousand at two (some 17 KiB).
    pub fn compact(&self) -> CompactLatency {
        let mut coarse = Histogram::<u64>::new(2).expect("2 significant digits is valid");
        for v in self.hist.iter_recorded() {
            // Auto-resizing: a value beyond the range grows it.
            let _ = coarse.record_n(v.value_iterated_to(), v.count_at_value());
        }
        CompactLatency {
            buckets: coarse
                .iter_recorded()
                .map(|v| {
                    (
                        coarse.median_equivalent(v.value_iterated_to()),
                        v.count_at_value(),
                    )
                })
                .collect(),
            min: self.min,
            max: self.max,
        }
    }

    /// The histogram a `compact` one came from: every count at the middle of its two-digit
    /// bucket, so a percentile reads within 1 % of the original's (min and max exactly).
    pub fn from_compact(c: &CompactLatency) -> Latency {
        let mut l = Latency::default();
        for &(value, count) in &c.buckets {
            l.record_n(value, count);
        }
        if !l.is_empty() {
            l.min = c.min;
            l.max = c.max;
        }
        l
    }
}

/// A latency histogram kept as its recorded buckets (`Latency::compact`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactLatency {
    /// (a value of the bucket, how many latencies it holds), in increasing order.
    buckets: Vec<(u64, u64)>,
    min: u64,
    max: u64,
}

/// Latency figures of one interval or of a whole run, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
    /// Summarises latencies; all zero when there are none. Percentiles come from the
    /// histogram, clamped to the exact observed min and max.
    pub fn of(l: &Latency) -> Self {
        if l.is_empty() {
            return LatencySummary::default();
        }
        let (h, min, max) = (&l.hist, l.min, l.max);
        let q = |quantile: f64| h.value_at_quantile(quantile).clamp(min, max);
        LatencySummary {
            count: h.len(),
            min,
            mean: h.mean().clamp(min as f64, max as f64),
            p50: q(0.50),
            p90: q(0.90),
            p99: q(0.99),
            p999: q(0.999),
            max,
        }
    }
}

/// What an empty latency figure shows: an interval with no I/O has no latency, and "0 ns"
/// would read as a measurement.
pub const NO_LATENCY: &str = "–";

impl LatencySummary {
    /// `pick` of the summary for people, in adaptive units (`units::format_latency_ns`), or
    /// `NO_LATENCY` when it holds no latencies.
    pub fn show(&self, pick: impl Fn(&LatencySummary) -> f64) -> String {
        if self.count == 0 {
            NO_LATENCY.to_string()
        } else {
            crate::units::format_latency_ns(pick(self))
        }
    }
}

/// A mean latency of `ops` I/Os for people, or `NO_LATENCY` when there were none.
pub fn show_mean_ns(mean_ns: f64, ops: u64) -> String {
    if ops == 0 {
        NO_LATENCY.to_string()
    } else {
        crate::units::format_latency_ns(mean_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values() {
        let mut h = Latency::default();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert_eq!(s.min, 1000);
        assert_eq!(s.max, 1_000_000);
        assert!((s.mean - 500_500.0).abs() / 500_500.0 < 0.001);
        // 3 significant digits: within 0.1% of the exact order statistic.
        for (got, exact) in [(s.p50, 500_000.0), (s.p90, 900_000.0), (s.p99, 990_000.0)] {
            assert!(
                (got as f64 - exact).abs() / exact <= 0.001,
                "{got} vs {exact}"
            );
        }
    }

    #[test]
    fn no_latencies_show_a_dash_not_zero() {
        let empty = Latency::default().summary();
        assert_eq!(empty.show(|l| l.mean), "–");
        assert_eq!(empty.show(|l| l.p99 as f64), "–");
        assert_eq!(show_mean_ns(0.0, 0), "–");
        let mut one = Latency::default();
        one.record(250_000);
        assert_eq!(one.summary().show(|l| l.p99 as f64), "250 µs");
        assert_eq!(show_mean_ns(1500.0, 3), "1.50 µs");
    }

    #[test]
    fn percentiles_are_clamped_to_observed_values() {
        let mut h = Latency::default();
        h.record(123_456_789);
        let s = h.summary();
        assert_eq!(
            (s.min, s.p50, s.p99, s.p999, s.max),
            (
                123_456_789,
                123_456_789,
                123_456_789,
                123_456_789,
                123_456_789
            )
        );
        assert_eq!(Latency::default().summary(), LatencySummary::default());
        let mut merged = Latency::default();
        merged.add(&h);
        merged.add(&Latency::default());
        assert_eq!(merged.summary(), s);
    }

    /// A compacted histogram keeps its counts, min and max, and its percentiles within 1 %;
    /// a wide distribution of two million I/Os fits in about a thousand buckets.
    #[test]
    fn compacting_keeps_the_figures_within_a_percent() {
        let mut h = Latency::default();
        let mut x: u64 = 12345;
        for _ in 0..2_000_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            // Exponential around 70 µs, one in 200 stalled 5 ms to 150 ms.
            let ns = if u < 0.005 {
                5e6 + u * 3e10
            } else {
                40_000.0 - 30_000.0 * (1.0 - u).ln()
            };
            h.record(ns as u64);
        }
        let c = h.compact();
        assert!(c.buckets.len() < 1200, "{} buckets", c.buckets.len());
        let (a, b) = (h.summary(), Latency::from_compact(&c).summary());
        assert_eq!((b.count, b.min, b.max), (a.count, a.min, a.max));
        for (x, y) in [
            (a.p50, b.p50),
            (a.p90, b.p90),
            (a.p99, b.p99),
            (a.p999, b.p999),
        ] {
            assert!((x as f64 - y as f64).abs() <= x as f64 * 0.01, "{x} vs {y}");
        }
        assert_eq!(
            Latency::from_compact(&Latency::default().compact()).summary(),
            LatencySummary::default()
        );
    }
}
