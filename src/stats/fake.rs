//! Test only: snapshots made the way the engine's sampler makes them — 100 ms ticks, totals
//! that grow by each interval (a paused one adds no time), zeroed by a reset — for the tests
//! that drive a consumer (headless's rows, the run screen) through a run's periods.

use std::time::Duration;

use super::{Counts, Latency, LatencySummary, LeftOut, Snapshot};
use crate::settings::Settings;

/// One sampler tick.
pub const TICK: Duration = Duration::from_millis(100);

/// A pretend engine: its clock and totals.
#[derive(Debug, Default)]
pub struct FakeEngine {
    seq: u64,
    at: Duration,
    total: Counts,
    total_elapsed: Duration,
}

impl FakeEngine {
    /// The next tick under `s` with `ops` reads of 100 µs, paused or running.
    pub fn tick(&mut self, s: Settings, ops: u64, paused: bool) -> Snapshot {
        let mut latency = Latency::default();
        latency.record_n(100_000, ops);
        let interval = Counts {
            ops,
            bytes: ops * s.bs,
            read_ops: ops,
            read_bytes: ops * s.bs,
            ..Counts::default()
        };
        self.at += TICK;
        self.total.add(&interval);
        if !paused {
            self.total_elapsed += TICK;
        }
        self.seq += 1;
        Snapshot {
            seq: self.seq,
            at: self.at,
            interval_elapsed: TICK,
            settings: s,
            paused,
            stopped: None,
            interval,
            interval_latency: latency,
            interval_service_latency: None,
            total: self.total,
            total_elapsed: self.total_elapsed,
            total_latency: LatencySummary::default(),
            total_service_latency: LatencySummary::default(),
            total_left_out: LeftOut::default(),
            sides: Default::default(),
            threads: vec![],
            first_errors: vec![],
        }
    }

    /// The statistics are reset: the totals start again from zero.
    pub fn reset(&mut self) {
        self.total = Counts::default();
        self.total_elapsed = Duration::ZERO;
    }
}
