//! The workers' CPU priority: as fair to the rest of the machine as fio's threads, and never
//! so heavy together that the screen and the sampler fall behind.
//!
//! Each worker runs at the niceness diskscope was started with while the process's workers
//! are no more than its CPUs: on a server whose other work keeps every core busy, a worker then
//! gets the share of a CPU a fio job gets, and the figures agree with fio's. (Every worker at
//! nice 19, as before, measured 60–110 IOPS against fio's 3,900–8,100 on the same file beside
//! six busy loops on this project's 2-CPU VM: a weight of 15 against 1,024.)
//! With more workers than CPUs, each steps down by as many nice levels as make their combined
//! scheduler weight that of one normal thread per CPU — the kernel's weights fall by about
//! 1.25× a level (`sched_prio_to_weight`, kernel/sched/core.c) — so a thousand workers on two
//! CPUs are at 19, where scripts/bench-load measured the screen on time (frame interval p99
//! 191 ms at 1024 threads on 2 CPUs, against 834 ms with workers at nice 5).
//!
//! Every worker counts itself in `WORKERS` while it runs, several targets' engines together,
//! and looks again at each hand-over (every 10 ms at most), so a thread added live re-weighs
//! the others within one hand-over. The threads of a surface scan and a burn-in do their I/O
//! outside the engine and enlist the same way, so they too share a CPU as fio's jobs would
//! (in the TUI they would otherwise inherit the screen's nice -5); they set theirs once, at
//! their start, so of more burn-in threads than CPUs the first are a level or two less nice.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Workers running in this process, every engine's.
static WORKERS: AtomicUsize = AtomicUsize::new(0);

/// The niceness diskscope was started with (before the UI raised its own).
static BASE: OnceLock<i32> = OnceLock::new();

/// The kernel's weight ratio between neighbouring nice levels.
const WEIGHT_STEP: f64 = 1.25;
/// The lowest priority there is.
const NICEST: i32 = 19;

/// Remembers this thread's niceness as the one workers start from. Call it before the UI
/// raises its own; without the call, the first worker's niceness at its start is used.
pub fn remember_base() {
    BASE.get_or_init(crate::sys::thread_niceness);
}

/// How many nice levels below the base `workers` workers go on `cpus` CPUs: none up to one a
/// CPU, then enough that their weights together are one normal thread's per CPU.
pub fn levels_below(workers: usize, cpus: usize) -> i32 {
    let over = workers as f64 / cpus.max(1) as f64;
    if over <= 1.0 {
        return 0;
    }
    (over.ln() / WEIGHT_STEP.ln())
        .ceil()
        .min(f64::from(NICEST + 20)) as i32
}

/// A worker's place in `WORKERS`, and the niceness it last set.
pub struct Fair {
    niced_for: usize,
}

impl Fair {
    /// Counts the calling worker in and sets its niceness.
    pub fn enlist() -> Fair {
        WORKERS.fetch_add(1, Relaxed);
        let mut f = Fair { niced_for: 0 };
        f.reweigh();
        f
    }

    /// Sets this worker's niceness again when the number of workers changed.
    #[inline]
    pub(super) fn reweigh(&mut self) {
        let n = WORKERS.load(Relaxed);
        if n == self.niced_for {
            return;
        }
        self.niced_for = n;
        let base = *BASE.get_or_init(crate::sys::thread_niceness);
        let below = levels_below(n, super::ring::cpus());
        crate::sys::set_thread_niceness((base + below).min(NICEST));
    }
}

impl Drop for Fair {
    fn drop(&mut self) {
        WORKERS.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::levels_below;

    #[test]
    fn workers_step_down_only_beyond_one_a_cpu() {
        assert_eq!(levels_below(1, 2), 0);
        assert_eq!(levels_below(2, 2), 0);
        assert_eq!(levels_below(16, 16), 0);
        // 4 on 2 CPUs: 2× over, 1.25^4 = 2.44 ≥ 2 > 1.25^3.
        assert_eq!(levels_below(4, 2), 4);
        // 64 on 2: 32×, 1.25^16 = 35.5.
        assert_eq!(levels_below(64, 2), 16);
        // A thousand on 2 would need 28 levels: all the way down (clamped by the caller).
        assert!(levels_below(1024, 2) >= 19);
        assert_eq!(levels_below(1, 0), 0);
    }

    #[test]
    fn their_weights_together_stay_near_one_thread_a_cpu() {
        // The kernel's table: 1024 at nice 0, about 1.25× less a level.
        let weight = |nice: i32| 1024.0 / 1.25f64.powi(nice);
        for cpus in [1, 2, 8, 64] {
            for workers in [cpus + 1, 2 * cpus, 10 * cpus, 100 * cpus] {
                let n = levels_below(workers, cpus);
                let together = workers as f64 * weight(n);
                assert!(
                    together <= cpus as f64 * 1024.0 * 1.0001,
                    "{workers} on {cpus}: {together}"
                );
                // One level fewer would weigh more than a thread a CPU.
                assert!(workers as f64 * weight(n - 1) > cpus as f64 * 1024.0);
            }
        }
    }
}
