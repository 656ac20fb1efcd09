//! A `Window` merges consecutive snapshots into one longer interval — the one-second lines of
//! the headless report, a sweep step, the TUI's recent-latency histogram. Rates divide by the
//! sum of the snapshots' real elapsed times. A snapshot in which the process was stopped adds
//! nothing to the rates or latencies; it is tallied in `left_out`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::latency::{Latency, LatencySummary};
use super::sides::{ReadWrite, SideLatency};
use super::snapshot::{Counts, LeftOut, Snapshot, per_second};
use crate::settings::Settings;

/// Interval data merged from consecutive snapshots.
#[derive(Debug, Clone)]
pub struct Window {
    /// Engine time at the end of the last merged snapshot.
    pub end: Duration,
    /// Sum of the merged intervals' real lengths, stopped and paused ones excluded.
    pub elapsed: Duration,
    pub counts: Counts,
    /// Latency from the due time with a rate, else from submission (see `Snapshot`).
    pub latency: Latency,
    /// Service time, from submission.
    pub service_latency: Latency,
    /// `latency` split: reads' and writes' apart.
    pub sides: SideLatency,
    /// The merged snapshots in which the process was stopped.
    pub left_out: LeftOut,
    /// Settings of the last merged snapshot.
    pub settings: Option<Settings>,
    /// How many snapshots were merged.
    pub snapshots: usize,
    /// Whether the merged snapshots ran under more than one setting.
    pub mixed_settings: bool,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            end: Duration::ZERO,
            elapsed: Duration::ZERO,
            counts: Counts::default(),
            latency: Latency::default(),
            service_latency: Latency::default(),
            sides: SideLatency::default(),
            left_out: LeftOut::default(),
            settings: None,
            snapshots: 0,
            mixed_settings: false,
        }
    }
}

impl Window {
    /// Adds one snapshot's interval.
    pub fn push(&mut self, s: &Snapshot) {
        self.end = s.at;
        self.mixed_settings |= self.settings.is_some_and(|old| old != s.settings);
        self.settings = Some(s.settings);
        self.snapshots += 1;
        if let Some(stopped) = s.stopped {
            self.left_out.add(stopped, s.interval_elapsed, &s.interval);
            return;
        }
        if !s.paused {
            self.elapsed += s.interval_elapsed;
        }
        self.counts.add(&s.interval);
        // Both histograms auto-resize, so adding cannot fail on range.
        self.latency.add(&s.interval_latency);
        self.service_latency.add(s.service_latency());
        self.sides
            .add_interval(&s.interval_latency, s.sides.interval_each(), &s.interval);
    }

    /// Adds all of `later`, a window that followed this one.
    pub fn absorb(&mut self, later: Window) {
        if later.snapshots == 0 {
            return;
        }
        self.end = self.end.max(later.end);
        self.elapsed += later.elapsed;
        self.counts.add(&later.counts);
        self.latency.add(&later.latency);
        self.service_latency.add(&later.service_latency);
        self.sides.add(&later.sides);
        self.left_out.merge(&later.left_out);
        self.mixed_settings |= later.mixed_settings
            || self
                .settings
                .is_some_and(|s| later.settings.is_some_and(|l| l != s));
        self.settings = later.settings.or(self.settings);
        self.snapshots += later.snapshots;
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

/// The figures of one window: a reporting interval or a sweep step. Interval values only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalFigures {
    /// The run's period this interval belongs to (its index in the report's `periods`): a
    /// run's intervals are cut where a period ends, so none spans two. `None` for a sweep's
    /// step or a suite's pass, and in files from before periods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<usize>,
    /// Engine time at the end of the window: wall clock since the start, stops included.
    pub t_s: f64,
    /// The window's real length.
    pub elapsed_s: f64,
    #[serde(flatten)]
    pub settings: Settings,
    #[serde(flatten)]
    pub counts: Counts,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// From when each I/O was due with a rate (coordinated omission corrected); from
    /// submission without one.
    pub latency_ns: LatencySummary,
    /// From submission to completion reaped; the same as `latency_ns` without a rate (files
    /// from before the rate knob have none: it reads as zeros).
    #[serde(default)]
    pub service_latency_ns: LatencySummary,
    /// Stopped intervals inside the window, not in the figures above.
    #[serde(default)]
    pub left_out: LeftOut,
    /// The drive's temperature at the window's end, °C, where the consumer read a sensor
    /// (`sensors`); null without one (the run's `config.temperature` says why), never 0.
    pub temp_c: Option<f64>,
    /// Reads and writes apart (`read` and `write`, each with ops, bytes, IOPS, bandwidth and
    /// latency), where the window both read and wrote; absent otherwise.
    #[serde(flatten)]
    pub sides: Option<ReadWrite>,
}

impl Window {
    /// What people read off this window.
    pub fn figures(&self) -> IntervalFigures {
        IntervalFigures {
            period: None,
            t_s: self.end.as_secs_f64(),
            elapsed_s: self.elapsed.as_secs_f64(),
            settings: self.settings.unwrap_or_default(),
            counts: self.counts,
            iops: self.iops(),
            bw_bytes_per_s: self.bw(),
            latency_ns: self.latency_summary(),
            service_latency_ns: self.service_latency.summary(),
            left_out: self.left_out,
            temp_c: None,
            sides: self.sides.figures(&self.counts, self.elapsed),
        }
    }
}
