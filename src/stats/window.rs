//! A `Window` merges consecutive snapshots into one longer interval — the one-second lines of
//! the headless report, a sweep step, the TUI's recent-latency histogram. Rates divide by the
//! sum of the snapshots' real elapsed times.

use std::time::Duration;

use super::latency::{Latency, LatencySummary};
use super::snapshot::{Counts, Snapshot, per_second};
use crate::settings::Settings;

/// Interval data merged from consecutive snapshots.
#[derive(Debug, Clone)]
pub struct Window {
    /// Engine time at the end of the last merged snapshot.
    pub end: Duration,
    /// Sum of the merged intervals' real lengths.
    pub elapsed: Duration,
    pub counts: Counts,
    pub latency: Latency,
    /// Settings of the last merged snapshot.
    pub settings: Option<Settings>,
    /// How many snapshots were merged.
    pub snapshots: usize,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            end: Duration::ZERO,
            elapsed: Duration::ZERO,
            counts: Counts::default(),
            latency: Latency::default(),
            settings: None,
            snapshots: 0,
        }
    }
}

impl Window {
    /// Adds one snapshot's interval.
    pub fn push(&mut self, s: &Snapshot) {
        self.end = s.at;
        self.elapsed += s.interval_elapsed;
        self.counts.add(&s.interval);
        // Both histograms auto-resize, so adding cannot fail on range.
        self.latency.add(&s.interval_latency);
        self.settings = Some(s.settings);
        self.snapshots += 1;
    }

    /// Returns the merged window and starts an empty one.
    pub fn take(&mut self) -> Window {
        std::mem::take(self)
    }

    pub fn iops(&self) -> f64 {
        per_second(self.counts.ops, self.elapsed)
    }

    pub fn bw(&self) -> f64 {
        per_second(self.counts.bytes, self.elapsed)
    }

    pub fn latency_summary(&self) -> LatencySummary {
        self.latency.summary()
    }
}
