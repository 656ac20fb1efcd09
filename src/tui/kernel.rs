//! The kernel's view and the why beside the app's figures: each time the run screen closes a
//! one-second window of running time, the run's live `why` reads the target's second once
//! (/proc/diskstats, not the target, and the drive's temperature) and is fed that window, so
//! the kernel's column and the app's ("IOPS now") cover the same second and the findings and
//! the steady mark move with them. A pause or a stop restarts the kernel's count and begins
//! a new stretch for the findings, so neither spans time the app leaves out; a reset of the
//! statistics (the screen's windows start over) does the same.

use super::state::Run;
use crate::stats::Snapshot;
use crate::why::Live;

/// The run's live why, sampled about once a second.
pub struct KernelSampler {
    live: Live,
    /// The run screen's window count at the last reading.
    windows: u64,
}

impl KernelSampler {
    pub fn new(live: Live) -> KernelSampler {
        KernelSampler { live, windows: 0 }
    }

    /// Called after the run screen took in snapshot `s`: when that closed a window it reads
    /// the target's second and hands the kernel's rates, the members' and the why to the run
    /// screen.
    pub fn on_snapshot(&mut self, s: &Snapshot, run: &mut Run) {
        run.why.written_bytes += s.interval.write_bytes;
        if s.paused || s.stopped.is_some() {
            self.live.halted();
            return;
        }
        if run.stopping {
            // The workers are winding down: what is left of the run is not a second of it.
            return;
        }
        if run.seconds.windows < self.windows {
            // The statistics were reset: the screen's windows start over.
            self.live.reset();
        }
        if run.seconds.windows == self.windows {
            return;
        }
        self.windows = run.seconds.windows;
        let Some(now) = run.seconds.now.clone() else {
            return;
        };
        let news = self.live.on_window(&now, s.at.as_secs_f64());
        run.set_kernel(self.live.latest.kernel);
        run.kernel.members = self.live.latest.members.clone();
        run.why.update(&self.live, &news.findings);
    }
}
