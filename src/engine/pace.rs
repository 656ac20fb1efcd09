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
//! disk kept up. Nothing here touches shared memory but the control generation and its futex
//! word: a worker waiting for its slot sleeps on the word until the slot is due, and a change
//! of settings wakes it at once. (Sleeping in 2 ms naps instead, to look at the generation,
//! cost 1024 paced workers 512k wake-ups a second: on two cores the workers' own naps were the
//! load that made them late.)
//!
//! The sampler reads each worker's `Timetable` to count the slots that came due in an
//! interval (`Counts::due`) beside those the worker started (`Counts::issued`): a backlog that
//! grows is a disk (or CPU) that cannot keep up, which the achieved rate alone cannot tell
//! apart from I/Os simply not being due yet (`--rate 1` in its first second).
//!
//! Paced workers take the niceness of all workers (`engine::niceness`: the process's own up
//! to one worker a CPU, lower beyond), so a waking worker may wait behind busy threads, and
//! that wait counts in the latency from the due time, as it would for an application.

use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

use super::control::Control;

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

    /// How many slots are due at `t` or before (0 before the first).
    pub fn due_by(&self, t: Instant) -> u64 {
        match t.checked_duration_since(self.start) {
            Some(d) => (d.as_nanos() as f64 / self.period_ns) as u64 + 1,
            None => 0,
        }
    }
}

/// A worker's timetables as the sampler counts them: the slots that came due under the ones
/// it has retired (at each change of settings, pause or stop), and the one in force.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timetable {
    /// Slots that came due under earlier timetables before each was retired.
    pub due_before: u64,
    /// The timetable in force; `None` without a rate, or while paused.
    pub pace: Option<Pace>,
}

impl Timetable {
    /// Slots due at `t` or before, since the worker started.
    pub fn due_by(&self, t: Instant) -> u64 {
        self.due_before + self.pace.map_or(0, |p| p.due_by(t))
    }

    /// Ends the timetable in force at `t`: what came due under it is counted, and no more.
    pub fn retire(&mut self, t: Instant) {
        self.due_before = self.due_by(t);
        self.pace = None;
    }
}

/// Sleeps until `due`; false when the control generation moved away from `seen` meanwhile
/// (the worker must take up the change instead). The sleep is on the control's futex word,
/// which every change of settings moves and wakes.
pub fn wait_until(due: Instant, control: &Control, seen: u64) -> bool {
    loop {
        // The word first, then the generation: a change published after this load moves the
        // word, so the futex wait below returns at once rather than missing it.
        let word = control.wake_word.load(Acquire);
        if control.generation.load(Acquire) != seen {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        crate::sys::futex_wait(&control.wake_word, word, due - now);
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

    #[test]
    fn due_counts_the_slots_whose_time_has_passed() {
        let t0 = Instant::now();
        // 1 IOPS on one thread: a slot at 0 s, 1 s, 2 s …
        let p = Pace::new(1, 1, 0, t0).unwrap();
        assert_eq!(p.due_by(t0), 1);
        assert_eq!(p.due_by(t0 + Duration::from_millis(999)), 1);
        assert_eq!(p.due_by(t0 + Duration::from_millis(2500)), 3);
        // 3 IOPS on 4 threads: each thread every 4/3 s; thread 3 first at 1 s.
        let p = Pace::new(3, 4, 3, t0).unwrap();
        assert_eq!(p.due_by(t0 + Duration::from_millis(999)), 0);
        assert_eq!(p.due_by(t0 + Duration::from_millis(1001)), 1);
        let total: u64 = (0..4)
            .map(|i| {
                Pace::new(3, 4, i, t0)
                    .unwrap()
                    .due_by(t0 + Duration::from_millis(2999))
            })
            .sum();
        assert_eq!(total, 9, "3 IOPS for 3 s");
        let mut tt = Timetable {
            due_before: 5,
            pace: Some(Pace::new(1, 1, 0, t0).unwrap()),
        };
        assert_eq!(tt.due_by(t0 + Duration::from_millis(1500)), 7);
        tt.retire(t0 + Duration::from_millis(1500));
        assert_eq!(
            tt.due_by(t0 + Duration::from_secs(60)),
            7,
            "nothing after retiring"
        );
    }

    #[test]
    fn a_change_wakes_a_worker_waiting_for_a_far_slot() {
        use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize};
        use std::sync::{Arc, Condvar, Mutex};
        let control = Arc::new(Control {
            generation: AtomicU64::new(7),
            wake_word: AtomicU32::new(0),
            state: Mutex::new(crate::engine::control::ControlState {
                settings: crate::settings::Settings::default(),
                paused: false,
            }),
            wake: Condvar::new(),
            errors: Mutex::new(Vec::new()),
            errors_kept: AtomicUsize::new(0),
            align: 4096,
            span: 1 << 20,
            fsync_every: 0,
            ioengine: crate::settings::IoEngine::Psync,
            checker: None,
            trim: false,
        });
        let c = control.clone();
        let start = Instant::now();
        let waiter =
            std::thread::spawn(move || wait_until(Instant::now() + Duration::from_secs(30), &c, 7));
        std::thread::sleep(Duration::from_millis(50));
        control.update(|_| {});
        assert!(!waiter.join().unwrap(), "woken by the change, not the slot");
        assert!(start.elapsed() < Duration::from_secs(5));
        // A slot already due returns at once.
        assert!(wait_until(Instant::now(), &control, 8));
    }
}
