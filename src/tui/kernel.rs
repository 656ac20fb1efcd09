//! The kernel's view beside the app's: the target's device in /proc/diskstats, read each time
//! the run screen closes a one-second window of running time, so the kernel's column and the
//! app's ("IOPS now") cover the same second. A pause or a stop restarts the kernel's count,
//! so a second of the kernel's never spans time the app leaves out.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::state::Run;
use crate::diskstats::members::{self, Member};
use crate::diskstats::{self, DiskCounters, KernelRates};
use crate::stats::Snapshot;

/// The kernel's counters for the target's device and its members, sampled about once a second.
pub struct KernelSampler {
    pub device: Option<String>,
    /// The devices under the target when it is an md or dm array (empty otherwise).
    pub members: Vec<Member>,
    pub proc_root: PathBuf,
    /// The last reading of /proc/diskstats: every device's counters.
    pub prev: Option<(Instant, Vec<(String, DiskCounters)>)>,
    /// The run screen's window count at the last reading.
    pub windows: u64,
}

impl KernelSampler {
    /// A sampler for `device`, with its members found under `sys_root`.
    pub fn new(device: Option<String>, proc_root: &Path, sys_root: &Path) -> KernelSampler {
        let members = device
            .as_deref()
            .map(|d| members::members(sys_root, d))
            .unwrap_or_default();
        KernelSampler {
            device,
            members,
            proc_root: proc_root.to_path_buf(),
            prev: None,
            windows: 0,
        }
    }

    /// Called after the run screen took in snapshot `s`: when that closed a window it reads
    /// /proc/diskstats (not the target) once, and hands the rates of the target's device and
    /// of each member to the run screen.
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
        let counters = std::fs::read_to_string(self.proc_root.join("diskstats"))
            .ok()
            .map(|text| diskstats::parse_diskstats(&text));
        let rates_of = |name: &str| -> Option<KernelRates> {
            let (t0, c0) = self.prev.as_ref()?;
            let find = |all: &[(String, DiskCounters)]| {
                all.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
            };
            Some(diskstats::rates(
                &find(c0)?,
                &find(counters.as_ref()?)?,
                now - *t0,
            ))
        };
        let device = self.device.as_deref().and_then(rates_of);
        let members = self
            .members
            .iter()
            .map(|m| (m.clone(), rates_of(&m.name)))
            .collect();
        self.prev = counters.map(|c| (now, c));
        run.set_kernel(device);
        run.kernel.members = members;
    }
}
