//! What the sampler and the workers share: the control state the sampler publishes (settings,
//! pause, a generation number that moves whenever they change), and each worker's slot with
//! the mailbox through which its counters and latencies travel together to the sampler.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use super::pace::Timetable;
use crate::settings::{IoEngine, Settings};
use crate::stats::{Counts, IoErrorRecord};

/// Latencies a worker collects before moving them into its mailbox.
pub const BATCH: usize = 256;

/// What the controller tells all workers. `generation` changes whenever anything here does;
/// workers compare it once per I/O and re-read the rest only when it moved.
pub struct Control {
    pub generation: AtomicU64,
    /// Moves with `generation`, as a futex word: a paced worker sleeping until its next slot
    /// (`pace::wait_until`) is woken through it the moment the settings change.
    pub wake_word: AtomicU32,
    pub state: Mutex<ControlState>,
    pub wake: Condvar,
    pub errors: Mutex<Vec<IoErrorRecord>>,
    pub errors_kept: AtomicUsize,
    /// Alignment for buffers: max(logical block size, 4096).
    pub align: usize,
    /// Bytes of the target in use.
    pub span: u64,
    /// fdatasync after every this many writes of a worker; 0: never.
    pub fsync_every: u32,
    /// How the workers drive the disk.
    pub ioengine: IoEngine,
    /// `--verify`: stamps every write and reads it back.
    pub checker: Option<std::sync::Arc<dyn super::check::Checker>>,
    /// The target was checked to take trims (`--trim`: a block device that discards, writes
    /// allowed): only then do the workers draw any, whatever `trim_pct` says.
    pub trim: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct ControlState {
    pub settings: Settings,
    pub paused: bool,
}

impl Control {
    /// Changes the state under the lock and publishes it.
    pub fn update(&self, f: impl FnOnce(&mut ControlState)) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut st);
        self.publish(st);
    }

    /// Publishes a state changed under `guard`: bumps the generation (workers re-read the
    /// state at their next I/O), wakes paused workers, releases the lock.
    pub fn publish(&self, guard: std::sync::MutexGuard<'_, ControlState>) {
        self.generation.fetch_add(1, Release);
        self.wake_word.fetch_add(1, Release);
        crate::sys::futex_wake_all(&self.wake_word);
        self.wake.notify_all();
        drop(guard);
    }
}

/// A worker's published state; written by the worker, read by the sampler. Aligned so two
/// workers' slots never share a cache line.
#[repr(align(128))]
pub struct WorkerSlot {
    pub id: usize,
    /// Position among active workers: which sequential stripe this worker walks.
    pub index: usize,
    /// Counters and latencies handed over since the sampler last emptied it, and where the
    /// worker switched to a new control generation.
    pub mailbox: Mutex<Mailbox>,
    /// The last control generation this worker has switched to (see `Boundary`).
    pub acked_generation: AtomicU64,
    /// Set by the controller to make this worker exit.
    pub stop: AtomicBool,
    /// Set by the worker as it exits.
    pub finished: AtomicBool,
    /// I/Os this worker has issued, stored as each is (its mailbox has them only as of the
    /// last hand-over): at the end, what a worker not waited for any longer still had.
    pub issued: AtomicU64,
    /// Set by the worker when its io_uring ring failed and it carries on with pread/pwrite,
    /// one I/O at a time, whatever the depth asked.
    pub fell_back: AtomicBool,
}

impl WorkerSlot {
    pub fn new(id: usize, index: usize) -> Self {
        WorkerSlot {
            id,
            index,
            mailbox: Mutex::new(Mailbox {
                latencies: Vec::with_capacity(BATCH),
                service: Vec::new(),
                counts: Counts::default(),
                latency_sum_ns: 0,
                boundary: None,
                cut_without: None,
                timetable: Timetable::default(),
            }),
            acked_generation: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            fell_back: AtomicBool::new(false),
            issued: AtomicU64::new(0),
        }
    }
}

/// What a worker hands the sampler, always together under one lock: the latencies of its
/// completed I/Os and its cumulative counters as of the last of them. Counters and latencies
/// change hands in the same critical section, so an interval's latency count is exactly its
/// op count (a counter published per I/O would run ahead of the latencies still in the
/// worker's batch). The counters are up to `FLUSH_EVERY` (or `BATCH` I/Os) behind the I/O.
///
/// `latencies` are what every figure reports: with a rate, from when each I/O was due (see
/// `pace`); without one, from submission. `service` holds, only with a rate, the same I/Os'
/// times from submission, in the same order; without a rate it stays empty (the two are the
/// same number, and carrying it twice would double the per-I/O cost for nothing).
pub struct Mailbox {
    pub latencies: Vec<u64>,
    pub service: Vec<u64>,
    pub counts: Counts,
    pub latency_sum_ns: u64,
    pub boundary: Option<Boundary>,
    /// Set by the sampler when it cut the interval of a generation change without this
    /// worker's boundary (the worker had not switched within its wait): until the worker
    /// switches to that generation, what it hands over belongs to an interval already cut.
    pub cut_without: Option<u64>,
    /// The worker's rate timetable as of its last switch, from which the sampler counts the
    /// slots due by the end of each interval (`Counts::due`), even while the worker is stuck
    /// in an I/O and hands nothing over.
    pub timetable: Timetable,
}

/// A worker's state at the moment it switched generation: everything before ran under the
/// old settings.
#[derive(Debug, Clone, Copy)]
pub struct Boundary {
    pub generation: u64,
    pub counts: Counts,
    pub latency_sum_ns: u64,
    /// How many of the mailbox's latencies came before the switch.
    pub latencies: usize,
    /// How many of the mailbox's service times came before the switch.
    pub service: usize,
    pub at: Instant,
}
