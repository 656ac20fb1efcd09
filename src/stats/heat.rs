//! The history behind the latency heatmap: one log2 latency histogram per second of running
//! time, built from the snapshots' own interval histograms (no latency is kept one by one).
//! Paused and stopped intervals are not running time and are left out, as in `seconds`.

use std::collections::VecDeque;
use std::time::Duration;

use super::log2::Log2Histogram;
use super::snapshot::Snapshot;

/// Length of a column.
pub const COLUMN: Duration = Duration::from_secs(1);
/// Columns kept: ten minutes.
pub const COLUMNS: usize = 600;

/// Per-second log2 histograms, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Heat {
    pub columns: VecDeque<Log2Histogram>,
    current: Log2Histogram,
    current_elapsed: Duration,
}

impl Heat {
    /// Adds a snapshot's interval, already bucketed as `h`; closes a column once it holds a
    /// second of running time.
    pub fn push(&mut self, s: &Snapshot, h: &Log2Histogram) {
        if s.paused || s.stopped.is_some() {
            return;
        }
        self.current.add(h);
        self.current_elapsed += s.interval_elapsed;
        if self.current_elapsed >= COLUMN {
            if self.columns.len() == COLUMNS {
                self.columns.pop_front();
            }
            self.columns.push_back(std::mem::take(&mut self.current));
            self.current_elapsed = Duration::ZERO;
        }
    }
}
