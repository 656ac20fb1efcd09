//! The hot loop of one worker thread: pick an offset, read or write one block, time it, count
//! it. Per I/O it touches only its own memory plus one load of the shared control generation
//! (and of the process's SIGCONT count): no lock, no allocation, no channel send. Only I/Os
//! that transferred the whole block count as ops, with their bytes and latency; short and
//! failed ones are counted apart, and so is an I/O the process was stopped during (its latency
//! would be the stop). Counters and latencies are appended to a small preallocated local batch,
//! moved into the worker's mailbox together when the batch is full or `FLUSH_EVERY` has
//! passed, and recorded into the interval's HdrHistogram by the sampler. A batch rather than a
//! per-thread histogram: merging a histogram costs its whole counts array (some 16k entries
//! at millisecond latencies), and 1024 workers doing that every 10 ms starved the sampler for
//! seconds on two cores; a batch costs what was recorded. Batches are transport (at most
//! 10 ms or `BATCH` values), never kept: every figure comes from the histograms.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};

use super::buffer::AlignedBuf;
use super::io::BlockIo;
use super::pattern::OffsetGen;
use super::stops;
use crate::settings::Settings;
use crate::stats::{Counts, IoErrorRecord};

/// How often a worker moves its latency batch into its mailbox, at the latest.
const FLUSH_EVERY: Duration = Duration::from_millis(10);
/// Latencies a worker collects before moving them into its mailbox.
const BATCH: usize = 256;
/// How many failed or short I/Os a run keeps in detail.
pub const KEPT_ERRORS: usize = 16;

/// What the controller tells all workers. `generation` changes whenever anything here does;
/// workers compare it once per I/O and re-read the rest only when it moved.
pub struct Control {
    pub generation: AtomicU64,
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
}

impl WorkerSlot {
    pub fn new(id: usize, index: usize) -> Self {
        WorkerSlot {
            id,
            index,
            mailbox: Mutex::new(Mailbox {
                latencies: Vec::with_capacity(BATCH),
                counts: Counts::default(),
                latency_sum_ns: 0,
                boundary: None,
            }),
            acked_generation: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            finished: AtomicBool::new(false),
        }
    }
}

/// What a worker hands the sampler, always together under one lock: the latencies of its
/// completed I/Os and its cumulative counters as of the last of them. Counters and latencies
/// change hands in the same critical section, so an interval's latency count is exactly its
/// op count (a counter published per I/O would run ahead of the latencies still in the
/// worker's batch). The counters are up to `FLUSH_EVERY` (or `BATCH` I/Os) behind the I/O.
pub struct Mailbox {
    pub latencies: Vec<u64>,
    pub counts: Counts,
    pub latency_sum_ns: u64,
    pub boundary: Option<Boundary>,
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
    pub at: Instant,
}

/// How one I/O ended.
enum Outcome {
    /// All bytes transferred (and synced, when due).
    Full,
    /// Fewer bytes than asked: not an op.
    Short(usize),
    /// An errno, from the transfer or from the fdatasync after it.
    Failed(std::io::Error, &'static str),
}

/// Runs one worker until its slot's stop flag is set. `io` is its own descriptor.
pub fn run(slot: Arc<WorkerSlot>, control: Arc<Control>, mut io: Box<dyn BlockIo>) {
    yield_to_sampler();
    let mut w = Worker {
        rng: SmallRng::from_rng(&mut rand::rng()),
        local: Counts::default(),
        latency_sum_ns: 0,
        batch: Vec::with_capacity(BATCH),
        seen_generation: u64::MAX,
        settings: Settings::default(),
        pattern: None,
        buf: AlignedBuf::new(0, control.align),
        next_flush: Instant::now() + FLUSH_EVERY,
        writes_since_sync: 0,
    };
    while w.refresh(&slot, &control) {
        let read_pct = u32::from(w.settings.read_pct);
        // A generation check per I/O: the only shared memory the loop reads, besides the
        // process-wide SIGCONT count, which changes only when the process was stopped.
        while control.generation.load(Acquire) == w.seen_generation {
            let is_read =
                read_pct == 100 || (read_pct > 0 && w.rng.random_range(0..100u32) < read_pct);
            let Some(pattern) = w.pattern.as_mut() else {
                break;
            };
            let offset = pattern.next_offset(&mut w.rng);
            if !is_read {
                scramble(&mut w.buf, &mut w.rng);
            }
            let continued = stops::continued();
            let start = Instant::now();
            let outcome = w.io_once(&mut *io, is_read, offset, control.fsync_every);
            let end = Instant::now();
            match outcome {
                // The process was stopped while this I/O ran: its latency is mostly the stop.
                Outcome::Full if stops::continued() != continued => w.local.spanning_stop += 1,
                Outcome::Full => w.count_full(is_read, end.duration_since(start)),
                Outcome::Short(n) => {
                    w.local.short_ios += 1;
                    let want = w.buf.len();
                    let op = if is_read { "read" } else { "write" };
                    keep_error(&control, slot.id, op, offset, None, || {
                        format!("short {op}: {n} of {want} bytes")
                    });
                }
                Outcome::Failed(e, op) => {
                    w.local.errors += 1;
                    keep_error(&control, slot.id, op, offset, e.raw_os_error(), || {
                        describe_io_error(&e)
                    });
                }
            }
            if w.batch.len() == BATCH || end >= w.next_flush {
                w.flush(&slot);
                w.next_flush = end + FLUSH_EVERY;
            }
        }
    }
    w.flush(&slot);
    slot.finished.store(true, Release);
}

struct Worker {
    rng: SmallRng,
    local: Counts,
    latency_sum_ns: u64,
    /// Latencies (ns) not yet moved to the mailbox; never grows past `BATCH`.
    batch: Vec<u64>,
    seen_generation: u64,
    settings: Settings,
    pattern: Option<OffsetGen>,
    buf: AlignedBuf,
    next_flush: Instant,
    /// Full writes since the last fdatasync (`--fsync`).
    writes_since_sync: u32,
}

impl Worker {
    /// One read or write of the whole buffer at `offset`; after every `fsync_every`-th full
    /// write, an fdatasync whose time belongs to that write (like fio's `fsync=N`, the I/O
    /// that triggers the sync waits for it).
    #[inline]
    fn io_once(
        &mut self,
        io: &mut dyn BlockIo,
        is_read: bool,
        offset: u64,
        fsync_every: u32,
    ) -> Outcome {
        let want = self.buf.len();
        let done = if is_read {
            io.read_at(&mut self.buf, offset)
        } else {
            io.write_at(&self.buf, offset)
        };
        match done {
            Err(e) => Outcome::Failed(e, if is_read { "read" } else { "write" }),
            Ok(n) if n < want => Outcome::Short(n),
            Ok(_) if is_read || fsync_every == 0 => Outcome::Full,
            Ok(_) => {
                self.writes_since_sync += 1;
                if self.writes_since_sync < fsync_every {
                    return Outcome::Full;
                }
                self.writes_since_sync = 0;
                match io.sync_data() {
                    Ok(()) => {
                        self.local.syncs += 1;
                        Outcome::Full
                    }
                    Err(e) => Outcome::Failed(e, "fdatasync"),
                }
            }
        }
    }

    /// Counts one complete I/O: an op, its bytes, its latency.
    #[inline]
    fn count_full(&mut self, is_read: bool, latency: Duration) {
        let ns = latency.as_nanos() as u64;
        let n = self.buf.len() as u64;
        self.batch.push(ns);
        self.latency_sum_ns += ns;
        self.local.ops += 1;
        self.local.bytes += n;
        if is_read {
            self.local.read_ops += 1;
            self.local.read_bytes += n;
        } else {
            self.local.write_ops += 1;
            self.local.write_bytes += n;
        }
    }

    /// Takes up the current control state: waits while paused, rebuilds the offset generator
    /// and buffer for new settings. Returns false when the worker must exit.
    fn refresh(&mut self, slot: &WorkerSlot, control: &Control) -> bool {
        let mut st = control.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            // Read under the lock, so the generation and the state belong together.
            self.seen_generation = control.generation.load(Acquire);
            self.mark_boundary(slot);
            if slot.stop.load(Acquire) {
                return false;
            }
            if !st.paused {
                break;
            }
            st = control.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        let s = st.settings;
        drop(st);
        if self.pattern.is_none() || s != self.settings {
            if s.bs as usize != self.buf.len() || self.pattern.is_none() {
                self.buf = AlignedBuf::new(s.bs as usize, control.align);
                self.rng.fill_bytes(&mut self.buf);
            }
            self.pattern = Some(OffsetGen::new(
                control.span,
                s.bs,
                s.random_pct,
                slot.index,
                s.threads,
            ));
            self.settings = s;
        }
        true
    }

    /// Hands over everything done so far and marks it as done before `seen_generation`.
    fn mark_boundary(&mut self, slot: &WorkerSlot) {
        let mut mailbox = self.hand_over(slot);
        mailbox.boundary = Some(Boundary {
            generation: self.seen_generation,
            counts: self.local,
            latency_sum_ns: self.latency_sum_ns,
            latencies: mailbox.latencies.len(),
            at: Instant::now(),
        });
        drop(mailbox);
        slot.acked_generation.store(self.seen_generation, Release);
    }

    /// Moves the latency batch and the counters into the mailbox.
    fn flush(&mut self, slot: &WorkerSlot) {
        drop(self.hand_over(slot));
    }

    /// Moves the batch and the counters into the mailbox, and returns it still locked.
    fn hand_over<'a>(&mut self, slot: &'a WorkerSlot) -> std::sync::MutexGuard<'a, Mailbox> {
        let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
        mailbox.latencies.extend_from_slice(&self.batch);
        mailbox.counts = self.local;
        mailbox.latency_sum_ns = self.latency_sum_ns;
        self.batch.clear();
        mailbox
    }
}

/// Refreshes write data so the device cannot compress or deduplicate it: a new random word at
/// the start of every 512-byte sector (the rest of the buffer is random from allocation).
#[inline]
fn scramble(buf: &mut [u8], rng: &mut SmallRng) {
    for sector in buf.chunks_exact_mut(512) {
        sector[..8].copy_from_slice(&rng.next_u64().to_ne_bytes());
    }
}

/// Keeps the details of a failed or short I/O (`op`: "read", "write" or "fdatasync") while fewer than `KEPT_ERRORS` are kept.
#[cold]
fn keep_error(
    control: &Control,
    thread: usize,
    op: &'static str,
    offset: u64,
    errno: Option<i32>,
    message: impl FnOnce() -> String,
) {
    if control.errors_kept.load(Relaxed) >= KEPT_ERRORS {
        return;
    }
    let mut kept = control.errors.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() < KEPT_ERRORS {
        kept.push(IoErrorRecord {
            thread,
            op,
            offset,
            errno,
            message: message(),
        });
        control.errors_kept.store(kept.len(), Relaxed);
    }
}

/// Lowers this worker's CPU priority to nice 19 (any user may lower its own). With hundreds
/// of workers on a few cores the sampler and the UI still wake on time; the workers lose
/// nothing when no other process wants the CPU, and I/O time is not CPU time. Measured with
/// scripts/bench-load at 1024 threads on 2 cores: frame interval p99 834 ms with workers at
/// nice 5 and the UI at 0; 245 ms at nice 10 with the UI at -5; 191 ms at nice 19.
fn yield_to_sampler() {
    crate::sys::set_thread_niceness(19);
}

/// "I/O error" rather than std's "Input/output error (os error 5)": the errno is kept apart.
fn describe_io_error(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => nix::errno::Errno::from_raw(n).desc().to_string(),
        None => e.to_string(),
    }
}
