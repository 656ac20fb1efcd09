//! How busy the CPU was: the machine's, from the first line of /proc/stat (all cores, in
//! USER_HZ ticks since boot), and this process's user and system seconds (getrusage). A
//! phase of the alone/together comparison reads both at its start and end; the difference
//! says whether the CPU may have been what limited the disks together.

use std::path::Path;

/// The machine's CPU time so far, summed over its cores, in ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// Every state: user, nice, system, idle, iowait, irq, softirq, steal.
    pub total: u64,
    /// Not running anything: idle and iowait (waiting for I/O is idle time to the CPU).
    pub idle: u64,
}

impl CpuTimes {
    /// Parses the `cpu ` line of /proc/stat's text; `None` when it is missing or garbled.
    /// guest and guest_nice are already counted in user and nice, so they are left out.
    pub fn parse(stat: &str) -> Option<CpuTimes> {
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        let v: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .take(8)
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        if v.len() < 5 {
            return None;
        }
        Some(CpuTimes {
            total: v.iter().sum(),
            idle: v[3] + v[4],
        })
    }

    /// The machine's, from `proc_root/stat`.
    pub fn read(proc_root: &Path) -> Option<CpuTimes> {
        CpuTimes::parse(&std::fs::read_to_string(proc_root.join("stat")).ok()?)
    }

    /// Percent of all cores busy between `earlier` and `self`; `None` when no time passed.
    pub fn busy_pct_since(&self, earlier: &CpuTimes) -> Option<f64> {
        let total = self.total.checked_sub(earlier.total)?;
        let idle = self.idle.checked_sub(earlier.idle)?;
        (total > 0).then(|| (total.saturating_sub(idle)) as f64 * 100.0 / total as f64)
    }
}

/// The process's user and system CPU seconds so far (getrusage; zero if it fails).
pub fn process_seconds() -> (f64, f64) {
    use nix::sys::resource::{UsageWho, getrusage};
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    getrusage(UsageWho::RUSAGE_SELF)
        .map(|u| (secs(u.user_time()), secs(u.system_time())))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_is_what_was_neither_idle_nor_waiting() {
        let a = CpuTimes::parse("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4 5\n").unwrap();
        assert_eq!(
            a,
            CpuTimes {
                total: 1000,
                idle: 850
            }
        );
        // 400 ticks later: 330 user, 30 system, 20 idle, 20 iowait: 90% busy.
        let b = CpuTimes::parse("cpu  430 0 80 820 70 0 0 0 0 0\n").unwrap();
        assert_eq!(b.busy_pct_since(&a), Some(90.0));
        assert_eq!(a.busy_pct_since(&a), None);
        assert_eq!(a.busy_pct_since(&b), None);
        assert_eq!(CpuTimes::parse("cpu  1 2 x 4 5\n"), None);
        assert_eq!(CpuTimes::parse("intr 1 2 3\n"), None);
        assert_eq!(CpuTimes::parse("cpu  1 2 3\n"), None);
    }
}
