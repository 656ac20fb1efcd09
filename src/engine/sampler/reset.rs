//! `r`: the statistics start again — each worker's base moves to what it has handed over,
//! the totals' histograms and the kept errors are emptied; nothing of the workers stops.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use super::Sampler;
use crate::stats::{Counts, LeftOut};

impl Sampler {
    /// Starts the statistics again from what every worker has handed over.
    pub(super) fn reset(&mut self) {
        self.reap();
        self.workers.retain(|w| w.active || w.handle.is_some());
        for w in &mut self.workers {
            w.base = w.prev;
            w.active_time = Duration::ZERO;
        }
        for w in &mut self.workers {
            w.left_out = (Counts::default(), 0);
        }
        self.total_latency.reset();
        self.total_service.reset();
        self.total_sides.reset();
        self.total_elapsed = Duration::ZERO;
        self.left_out = LeftOut::default();
        let mut kept = self
            .control
            .errors
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        kept.clear();
        self.control.errors_kept.store(0, Relaxed);
    }
}
