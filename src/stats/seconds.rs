//! The "now" figures of a live view: whole one-second windows of running time, and what is
//! read off them — the last window's IOPS, bandwidth and latency, each thread's share of that
//! same window, the peak window and the average over the windows so far. Everything on one
//! screen comes from the same windows, so the thread rows add up to "IOPS now" and the
//! average (a weighted mean of the windows) can never exceed the peak. Paused and stopped
//! intervals are not running time and are left out. At a period's start (`restart`) the
//! peak and average begin again, from the windows that lie wholly in the new period: they
//! are the current setting's (the window in progress then, which straddles the change, still
//! becomes "now", marked `mixed_settings`, but counts toward neither).

use std::collections::HashMap;
use std::time::Duration;

use super::latency::LatencySummary;
use super::sides::ReadWrite;
use super::snapshot::{Counts, Snapshot, per_second};
use super::window::Window;
use crate::settings::Settings;

/// Length of a window.
pub const SECOND: Duration = Duration::from_secs(1);

/// One thread's part of the last complete window.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRow {
    pub id: usize,
    pub active: bool,
    pub ops_per_s: f64,
    /// Mean latency of the thread's I/Os in the window; None when it did none.
    pub latency_mean_ns: Option<f64>,
    /// Average number of the thread's I/Os in flight over the window: the time its I/Os
    /// spent in flight divided by the window's length (Little's law), so at depth 32 it says
    /// how many of the 32 were really out. An I/O's time counts in the window it completed in.
    pub in_flight: f64,
    /// Operations since the start or reset.
    pub total_ops: u64,
}

/// The last complete window.
#[derive(Debug, Clone, PartialEq)]
pub struct Now {
    /// The window's counts, real length and settings (of its last snapshot).
    pub counts: Counts,
    pub elapsed: Duration,
    pub settings: Settings,
    /// Whether the window ran under more than one setting (a change fell inside it).
    pub mixed_settings: bool,
    /// Whether the window began in an earlier period (`restart`: a change, a resume or a
    /// reset fell inside it); it is not the current period's.
    pub straddles: bool,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub latency: LatencySummary,
    /// Reads and writes apart, where the window did both.
    pub sides: Option<ReadWrite>,
    pub threads: Vec<ThreadRow>,
}

/// Rolling one-second windows over a run's snapshots.
#[derive(Debug, Clone, Default)]
pub struct Seconds {
    current: Window,
    /// Each thread's (ops, latency sum in ns) when the current window began.
    base: HashMap<usize, (u64, f64)>,
    pub now: Option<Now>,
    /// Complete windows so far: a change tells a consumer that `now` moved on.
    pub windows: u64,
    pub peak_iops: f64,
    done_ops: u64,
    done_bytes: u64,
    done_elapsed: Duration,
    /// The window in progress began before the current period: not its peak or average.
    straddles: bool,
}

impl Seconds {
    /// Adds a snapshot; completes a window once it holds a second of running time.
    pub fn push(&mut self, s: &Snapshot) {
        if s.paused || s.stopped.is_some() {
            return;
        }
        self.current.push(s);
        if self.current.elapsed < SECOND {
            return;
        }
        let w = self.current.take();
        let iops = w.iops();
        let straddles = std::mem::take(&mut self.straddles);
        if !straddles {
            self.peak_iops = self.peak_iops.max(iops);
            self.done_ops += w.counts.ops;
            self.done_bytes += w.counts.bytes;
            self.done_elapsed += w.elapsed;
        }
        let threads = s
            .threads
            .iter()
            .map(|t| {
                let sum = t.latency_mean_ns * t.total.ops as f64;
                let (ops0, sum0) = self
                    .base
                    .insert(t.id, (t.total.ops, sum))
                    .unwrap_or_default();
                let ops = t.total.ops.saturating_sub(ops0);
                ThreadRow {
                    id: t.id,
                    active: t.active,
                    ops_per_s: per_second(ops, w.elapsed),
                    latency_mean_ns: (ops > 0).then(|| (sum - sum0) / ops as f64),
                    in_flight: (sum - sum0).max(0.0) / w.elapsed.as_nanos().max(1) as f64,
                    total_ops: t.total.ops,
                }
            })
            .collect();
        self.windows += 1;
        self.now = Some(Now {
            counts: w.counts,
            elapsed: w.elapsed,
            settings: s.settings,
            mixed_settings: w.mixed_settings,
            straddles,
            iops,
            bw_bytes_per_s: w.bw(),
            latency: w.latency_summary(),
            sides: w.sides.figures(&w.counts, w.elapsed),
            threads,
        });
    }

    /// Begins the peak and the average again where a period begins; the window in progress
    /// straddles the change and counts toward neither.
    pub fn restart(&mut self) {
        self.peak_iops = 0.0;
        self.done_ops = 0;
        self.done_bytes = 0;
        self.done_elapsed = Duration::ZERO;
        self.straddles = self.current.snapshots > 0;
    }

    /// IOPS over all complete windows (None before the first).
    pub fn avg_iops(&self) -> Option<f64> {
        (!self.done_elapsed.is_zero()).then(|| per_second(self.done_ops, self.done_elapsed))
    }

    /// Bytes per second over all complete windows (None before the first).
    pub fn avg_bw(&self) -> Option<f64> {
        (!self.done_elapsed.is_zero()).then(|| per_second(self.done_bytes, self.done_elapsed))
    }
}
