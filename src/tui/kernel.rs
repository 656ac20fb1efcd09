//! The kernel's view beside the app's: the target's device in /proc/diskstats, sampled about
//! once a second of engine time and handed to the run screen as rates.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::state::Run;
use crate::diskstats::{self, DiskCounters};
use crate::stats::Snapshot;

/// How often the kernel's counters are read.
const KERNEL_EVERY: Duration = Duration::from_secs(1);
/// The kernel's counters for the target's device, sampled about once a second.
pub struct KernelSampler {
    pub device: Option<String>,
    pub proc_root: PathBuf,
    pub prev: Option<(Instant, DiskCounters)>,
    pub next_at: Duration,
}

impl KernelSampler {
    /// Called on every snapshot; at most once per `KERNEL_EVERY` of engine time it reads
    /// /proc/diskstats (not the target) and hands the rates to the run screen.
    pub fn on_snapshot(&mut self, s: &Snapshot, run: &mut Run) {
        if s.at < self.next_at {
            return;
        }
        self.next_at = s.at + KERNEL_EVERY;
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
