//! Snapshots made up for the unit tests of `disks`.

use std::time::Duration;

use crate::settings::Settings;
use crate::stats::{Counts, Latency, Snapshot};

/// A 100-ms snapshot of `ops` 4k reads ending at `at_ms` on its engine's clock.
pub fn snap(at_ms: u64, ops: u64) -> Snapshot {
    let mut lat = Latency::default();
    lat.record_n(100_000 + ops, ops);
    let interval = Counts {
        ops,
        bytes: ops * 4096,
        read_ops: ops,
        read_bytes: ops * 4096,
        ..Counts::default()
    };
    Snapshot {
        seq: at_ms / 100,
        at: Duration::from_millis(at_ms),
        interval_elapsed: Duration::from_millis(100),
        settings: Settings::default(),
        paused: false,
        stopped: None,
        interval,
        interval_latency: lat,
        interval_service_latency: None,
        total: interval,
        total_elapsed: Duration::from_millis(at_ms),
        total_latency: Default::default(),
        total_service_latency: Default::default(),
        total_left_out: Default::default(),
        sides: Default::default(),
        threads: vec![],
        first_errors: vec![],
    }
}
