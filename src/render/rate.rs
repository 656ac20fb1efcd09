//! What a rate-limited run says about its rate: whether the I/Os that were due went out, and
//! when they did not, whether the disk or the CPU held them back — in measured figures
//! ("asked 50.0k IOPS, doing 31.2k: the disk is saturated"). Shared by the text report, the
//! sweep table and the TUI.
//!
//! The judgement is on the timetable, not on the achieved rate. Workers never skip a slot, so
//! a disk that keeps up starts every I/O when it is due, and one that cannot falls behind:
//! slots come due (`Counts::due`, counted by the sampler from each worker's timetable) faster
//! than they are started (`Counts::issued`). The achieved rate alone cannot tell that apart
//! from I/Os simply not being due yet: `--rate 1` completes nothing in most 100 ms ticks,
//! `--rate 3 -t 4` gives each thread a slot every 1.3 s. A window falls behind when more
//! slots came due than were started by more than `SHORTFALL` of what came due and by more
//! than one slot per thread (each thread may be one slot late at a window's edge, and a
//! worker's count of started slots reaches the sampler up to 10 ms late).
//!
//! Behind, the workers were either blocked in I/O or on a CPU or waiting for one (a late
//! worker never sleeps). The kernel's schedstat gives the last two; when they are more than
//! half the workers' time, the CPU held the slots back, not the disk ("asked 100 IOPS, doing
//! 61: the CPU is the limit (1024 workers on 2 cores), not the disk").

use crate::findings::conditions::Pacing;
use crate::stats::seconds::Now;
use crate::stats::{Counts, IntervalFigures};
use crate::units::format_count_rate;

/// Started below due by more than this share of what came due (and more than one slot per
/// thread) is falling behind, not the jitter of a wake-up: the findings' rule, one for both
/// (`findings::thresholds::RATE_SHORTFALL`).
pub const SHORTFALL: f64 = crate::findings::thresholds::RATE_SHORTFALL;

/// The share of the workers' time on a CPU or waiting for one above which the CPU, not the
/// disk, held a late timetable back: more than the time they spent blocked in I/O.
pub const CPU_BOUND_SHARE: f64 = 0.5;

/// The figures a rate verdict reads: one window's, or one run's.
#[derive(Debug, Clone, Copy)]
pub struct RateFigures {
    /// The asked rate (0: unlimited).
    pub asked_iops: u64,
    /// Completed I/Os per second.
    pub achieved_iops: f64,
    pub counts: Counts,
    pub elapsed_s: f64,
    pub threads: usize,
}

/// Whether the I/Os that came due went out, and if not, what held them back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No rate, nothing due, or every due I/O started on time.
    KeptUp,
    /// Behind, with the workers mostly blocked in I/O.
    Disk,
    /// Behind, with the workers mostly on a CPU or waiting for one.
    Cpu,
}

impl RateFigures {
    /// A run's or window's figures: asked and achieved IOPS, its counts, its length, threads.
    pub fn new(
        asked_iops: u64,
        achieved_iops: f64,
        counts: Counts,
        elapsed_s: f64,
        threads: usize,
    ) -> RateFigures {
        RateFigures {
            asked_iops,
            achieved_iops,
            counts,
            elapsed_s,
            threads,
        }
    }

    /// A report window's figures (a line of the text report, a sweep step).
    pub fn window(r: &IntervalFigures) -> RateFigures {
        let s = &r.settings;
        RateFigures::new(s.rate_iops, r.iops, r.counts, r.elapsed_s, s.threads)
    }

    /// A live view's last whole second.
    pub fn now(n: &Now) -> RateFigures {
        let s = &n.settings;
        RateFigures::new(
            s.rate_iops,
            n.iops,
            n.counts,
            n.elapsed.as_secs_f64(),
            s.threads,
        )
    }

    /// Whether the timetable fell behind (the disk or the CPU).
    pub fn fell_behind(&self) -> bool {
        self.verdict() != Verdict::KeptUp
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        let c = &self.counts;
        let pacing = Pacing::of(self.asked_iops, c.due, c.issued, self.threads);
        if pacing != Pacing::BehindCap {
            return Verdict::KeptUp;
        }
        let worker_ns = self.threads as f64 * self.elapsed_s * 1e9;
        let on_cpu = (c.worker_cpu_ns + c.worker_runq_wait_ns) as f64;
        if worker_ns > 0.0 && on_cpu / worker_ns > CPU_BOUND_SHARE {
            Verdict::Cpu
        } else {
            Verdict::Disk
        }
    }

    /// "asked 50.0k IOPS, doing 31.2k: the disk is saturated" (or the CPU's line) when the
    /// run fell behind its timetable (`verb`: "doing" live, "did" after the run); `None` when
    /// it kept up or there is no rate.
    pub fn shortfall(&self, verb: &str, cpus: usize) -> Option<String> {
        let asked = format!(
            "asked {} IOPS, {verb} {}",
            format_count_rate(self.asked_iops as f64),
            format_count_rate(self.achieved_iops)
        );
        match self.verdict() {
            Verdict::KeptUp => None,
            Verdict::Disk => Some(format!("{asked}: the disk is saturated")),
            Verdict::Cpu => Some(format!(
                "{asked}: the CPU is the limit ({} workers on {cpus} cores), not the disk",
                self.threads
            )),
        }
    }

    /// The rate line of a summary: the shortfall, or "asked 5000 IOPS, did 4990"; `None`
    /// without a rate.
    pub fn rate_line(&self, cpus: usize) -> Option<String> {
        if self.asked_iops == 0 {
            return None;
        }
        Some(self.shortfall("did", cpus).unwrap_or_else(|| {
            format!(
                "asked {} IOPS, did {}",
                format_count_rate(self.asked_iops as f64),
                format_count_rate(self.achieved_iops)
            )
        }))
    }
}

/// The CPUs this process may run on, for the verdict's words.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-second window of `threads` workers asked `asked` IOPS, with `due` slots due and
    /// `issued` started, `done` completed, the workers `cpu_share` of their time on a CPU or
    /// waiting for one.
    fn window(
        asked: u64,
        threads: usize,
        due: u64,
        issued: u64,
        done: u64,
        cpu_share: f64,
    ) -> RateFigures {
        let worker_ns = threads as f64 * 1e9;
        RateFigures {
            asked_iops: asked,
            achieved_iops: done as f64,
            counts: Counts {
                ops: done,
                due,
                issued,
                worker_cpu_ns: (worker_ns * cpu_share * 0.2) as u64,
                worker_runq_wait_ns: (worker_ns * cpu_share * 0.8) as u64,
                ..Counts::default()
            },
            elapsed_s: 1.0,
            threads,
        }
    }

    #[test]
    fn nothing_due_yet_is_not_saturation() {
        // --rate 1: the first second has one slot, started; it may not have completed.
        assert_eq!(window(1, 1, 1, 1, 0, 0.0).verdict(), Verdict::KeptUp);
        // A window with no slot due at all, nothing done.
        assert_eq!(window(1, 1, 0, 0, 0, 0.0).shortfall("doing", 2), None);
        // --rate 3 -t 4: three slots in the second, each thread's share below one a second;
        // one still at the window's edge.
        assert_eq!(window(3, 4, 3, 2, 1, 0.0).verdict(), Verdict::KeptUp);
        // --rate 10 -t 64: ten slots across 64 threads, all started, half completed.
        assert_eq!(window(10, 64, 10, 10, 5, 0.0).verdict(), Verdict::KeptUp);
        // Long latencies at a high rate: completions trail, starts do not.
        assert_eq!(
            window(50_000, 8, 50_000, 49_990, 45_000, 0.01).verdict(),
            Verdict::KeptUp
        );
        // No rate: never.
        assert_eq!(window(0, 1, 0, 0, 10, 0.0).verdict(), Verdict::KeptUp);
    }

    #[test]
    fn a_growing_backlog_is_the_disk_or_the_cpu() {
        let disk = window(50_000, 4, 50_000, 31_000, 31_000, 0.1);
        assert_eq!(disk.verdict(), Verdict::Disk);
        let s = disk.shortfall("doing", 2).unwrap();
        assert!(s.starts_with("asked 50"), "{s}");
        assert!(
            s.contains("doing 31") && s.ends_with("the disk is saturated"),
            "{s}"
        );
        // 1024 workers on 2 cores, mostly runnable and waiting: the CPU.
        let cpu = window(100, 1024, 3_000, 1_500, 1_500, 0.9);
        assert_eq!(cpu.verdict(), Verdict::Cpu);
        let s = cpu.shortfall("doing", 2).unwrap();
        assert!(
            s.contains("the CPU is the limit (1024 workers on 2 cores), not the disk"),
            "{s}"
        );
        // Exactly at the tolerance: kept up; one beyond it: behind.
        assert_eq!(
            window(1000, 1, 1000, 970, 970, 0.0).verdict(),
            Verdict::KeptUp
        );
        assert_eq!(
            window(1000, 1, 1000, 969, 969, 0.0).verdict(),
            Verdict::Disk
        );
        // More than one slot per thread behind, but within 3%: kept up.
        assert_eq!(
            window(100_000, 1, 100_000, 97_500, 97_500, 0.0).verdict(),
            Verdict::KeptUp
        );
    }

    #[test]
    fn the_summary_line_says_what_was_asked_and_done() {
        let kept = window(5000, 1, 5000, 5000, 4990, 0.0);
        assert_eq!(kept.rate_line(2).unwrap(), "asked 5000 IOPS, did 4990");
        assert!(
            window(5000, 1, 5000, 3000, 3000, 0.0)
                .rate_line(2)
                .unwrap()
                .contains("did 3000: the disk is saturated")
        );
        assert_eq!(window(0, 1, 0, 0, 4990, 0.0).rate_line(2), None);
    }
}
