//! The kernel's view beside the app's: the target's device in /proc/diskstats, read each time
//! the run screen closes a one-second window of running time, so the kernel's column and the
//! app's ("IOPS now") cover the same second. A pause or a stop restarts the kernel's count,
//! so a second of the kernel's never spans time the app leaves out.

use std::path::PathBuf;
use std::time::Instant;

use super::state::Run;
use crate::diskstats::{self, DiskCounters};
use crate::stats::Snapshot;

/// The kernel's counters for the target's device, sampled about once a second.
pub struct KernelSampler {
    pub device: Option<String>,
    pub proc_root: PathBuf,
    pub prev: Option<(Instant, DiskCounters)>,
    /// The run screen's window count at the last reading.
    pub windows: u64,
}

impl KernelSampler {
    /// Called after the run screen took in snapshot `s`: when that closed a window it reads
    /// /proc/diskstats (not the target) and hands the rates to the run screen.
    pub fn on_snapshot(&mut self, s: &Snapshot, run: &mut Run) {
        if s.paused || s.stopped.is_some() {
            self.prev = None;
            return;
        }
        if run.seconds.windows == self.windows {
            return;
        }
        self.windows = run.seconds.windows;
        let now = Instant::now();
        let counters = self
            .device
            .as_ref()
            .and_then(|d| diskstats::read_counters(&self.proc_root, d).ok());
        let rates = match (&self.prev, &counters) {
            (Some((t0, c0)), Some(c1)) => Some(diskstats::rates(c0, c1, now - *t0)),
            _ => None,
        };
        self.prev = counters.map(|c| (now, c));
        run.set_kernel(rates);
    }
}
