//! The rate knob's timetable: with `rate_iops` set, each worker issues its share of the rate
//! at fixed times — worker `i` of `T` at `t0 + i/rate + k·T/rate` — whatever the disk does.
//! An I/O's latency is then counted from the time it was *due*, not from when it finally went
//! out: when the disk stalls, the I/Os that should have started during the stall are late, and
//! their lateness is latency the application would have seen. Timing from submission instead
//! (the "coordinated omission" of most rate-limited benchmarks) would count one slow I/O and
//! hide the queue behind it. The service time, from submission, is kept beside it.
//!
//! A timetable starts when the worker takes up its settings (`Worker::refresh`), so every
//! change — rate, threads, pause, a stop of the process — starts a fresh one rather than
//! leaving a backlog from before. A worker that falls behind issues as fast as it can until it
//! is back on the timetable; it never skips a slot, so the achieved rate tells whether the
//! disk kept up. Nothing here touches shared memory but the control generation, read while
//! waiting so a change is taken up promptly even at a low rate.
//!
//! Paced workers keep the nice 19 of all workers, so a waking worker may wait behind busy
//! threads of normal priority, and that wait counts in the latency from the due time, as it
//! would for an application. Running them at the process's niceness instead was tried: an
//! A/B at 8k IOPS on this project's VM (3 pairs) could not tell, the virtual disk's own stalls
//! dominating either arm, and workers paced above what the disk does are busy, so at normal
//! priority a thousand of them would starve the UI as unlimited ones did. Not kept.

use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

use super::control::Control;

/// Longest single sleep while waiting for a slot: a change of settings is noticed within it.
const NAP: Duration = Duration::from_millis(2);

/// One worker's timetable.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    start: Instant,
    period_ns: f64,
    /// Slots handed out so far.
    k: u64,
}

impl Pace {
    /// The timetable of worker `index` of `threads` sharing `rate_iops`, from `now`; `None`
    /// when the rate is unlimited (0). The workers' slots interleave evenly.
    pub fn new(rate_iops: u64, threads: usize, index: usize, now: Instant) -> Option<Pace> {
        if rate_iops == 0 {
            return None;
        }
        let threads = threads.max(1) as f64;
        let period_ns = threads * 1e9 / rate_iops as f64;
        let offset_ns = period_ns * (index as f64 % threads) / threads;
        Some(Pace {
            start: now + Duration::from_nanos(offset_ns as u64),
            period_ns,
            k: 0,
        })
    }

    /// When the next I/O is due.
    #[inline]
    pub fn peek(&self) -> Instant {
        self.start + Duration::from_nanos((self.k as f64 * self.period_ns) as u64)
    }

    /// Takes the next slot and returns when it is due.
    #[inline]
    pub fn take(&mut self) -> Instant {
        let due = self.peek();
        self.k += 1;
        due
    }
}

/// Sleeps until `due`, in naps of at most `NAP`; false when the control generation moved
/// away from `seen` meanwhile (the worker must take up the change instead).
pub fn wait_until(due: Instant, control: &Control, seen: u64) -> bool {
    loop {
        if control.generation.load(Acquire) != seen {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        std::thread::sleep((due - now).min(NAP));
    }
}

/// Asks the kernel to wake this thread's sleeps on time: the default timer slack (50 µs)
/// would be added to every paced I/O's latency, since its clock starts at the slot.
pub fn tighten_timer_slack() {
    crate::sys::set_timer_slack_ns(1_000);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_interleave_and_share_the_rate() {
        let t0 = Instant::now();
        assert!(Pace::new(0, 4, 0, t0).is_none());
        // 4 threads at 4000 IOPS: each every 1 ms, offset by 250 µs.
        let mut slots: Vec<Duration> = Vec::new();
        for i in 0..4 {
            let mut p = Pace::new(4000, 4, i, t0).unwrap();
            for _ in 0..1000 {
                slots.push(p.take() - t0);
            }
        }
        slots.sort();
        assert_eq!(slots.len(), 4000);
        // 4000 slots in one second, 250 µs apart (to the nanosecond rounding).
        for w in slots.windows(2) {
            let gap = (w[1] - w[0]).as_nanos() as i64;
            assert!((gap - 250_000).abs() <= 1, "{gap}");
        }
        assert!(slots[3999] < Duration::from_secs(1));
    }
}
