//! The hot loop of one worker thread: pick an offset, read or write one block, time it, count
//! it. Per I/O it touches only its own memory plus one load of the shared control generation:
//! no lock, no allocation, no channel send. Counters are published with plain atomic stores
//! (each has a single writer). Latencies are appended to a small preallocated local batch,
//! moved into the worker's mailbox when the batch is full or `FLUSH_EVERY` has passed, and
//! recorded into the interval's HdrHistogram by the sampler. A batch rather than a
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
/// workers' counters never share a cache line.
#[repr(align(128))]
pub struct WorkerSlot {
    pub id: usize,
    /// Position among active workers: which sequential stripe this worker walks.
    pub index: usize,
    pub ops: AtomicU64,
    pub bytes: AtomicU64,
    pub read_ops: AtomicU64,
    pub read_bytes: AtomicU64,
    pub write_ops: AtomicU64,
    pub write_bytes: AtomicU64,
    pub errors: AtomicU64,
    pub short_ios: AtomicU64,
    pub latency_sum_ns: AtomicU64,
    /// Latencies handed over since the sampler last emptied it, and where the worker switched
    /// to a new control generation.
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
            ops: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            read_ops: AtomicU64::new(0),
            read_bytes: AtomicU64::new(0),
            write_ops: AtomicU64::new(0),
            write_bytes: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            short_ios: AtomicU64::new(0),
            latency_sum_ns: AtomicU64::new(0),
            mailbox: Mutex::new(Mailbox {
                latencies: Vec::with_capacity(BATCH),
                boundary: None,
            }),
            acked_generation: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            finished: AtomicBool::new(false),
        }
    }

    /// The counters as last published, and the latency sum.
    pub fn read_counts(&self) -> (Counts, u64) {
        (
            Counts {
                ops: self.ops.load(Relaxed),
                bytes: self.bytes.load(Relaxed),
                read_ops: self.read_ops.load(Relaxed),
                read_bytes: self.read_bytes.load(Relaxed),
                write_ops: self.write_ops.load(Relaxed),
                write_bytes: self.write_bytes.load(Relaxed),
                errors: self.errors.load(Relaxed),
                short_ios: self.short_ios.load(Relaxed),
            },
            self.latency_sum_ns.load(Relaxed),
        )
    }
}

/// What a worker hands the sampler: latencies in ns, and the point where it took up a new
/// control generation, so the sampler can cut an interval exactly there.
pub struct Mailbox {
    pub latencies: Vec<u64>,
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
    };
    while w.refresh(&slot, &control) {
        let read_pct = u32::from(w.settings.read_pct);
        // A generation check per I/O: the only shared memory the loop reads.
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
            let start = Instant::now();
            let result = if is_read {
                io.read_at(&mut w.buf, offset)
            } else {
                io.write_at(&w.buf, offset)
            };
            let end = Instant::now();
            let want = w.buf.len();
            match result {
                Ok(n) => {
                    let ns = end.duration_since(start).as_nanos() as u64;
                    w.batch.push(ns);
                    w.latency_sum_ns += ns;
                    w.local.ops += 1;
                    w.local.bytes += n as u64;
                    if is_read {
                        w.local.read_ops += 1;
                        w.local.read_bytes += n as u64;
                    } else {
                        w.local.write_ops += 1;
                        w.local.write_bytes += n as u64;
                    }
                    if n < want {
                        w.local.short_ios += 1;
                        keep_error(&control, slot.id, is_read, offset, None, || {
                            let what = if is_read { "read" } else { "write" };
                            format!("short {what}: {n} of {want} bytes")
                        });
                    }
                }
                Err(e) => {
                    w.local.errors += 1;
                    keep_error(&control, slot.id, is_read, offset, e.raw_os_error(), || {
                        describe_io_error(&e)
                    });
                }
            }
            w.publish(&slot);
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
}

impl Worker {
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
        self.publish(slot);
        let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
        mailbox.latencies.extend_from_slice(&self.batch);
        self.batch.clear();
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

    /// Publishes the counters: plain stores, since this thread is their only writer.
    #[inline]
    fn publish(&self, slot: &WorkerSlot) {
        let c = &self.local;
        slot.ops.store(c.ops, Relaxed);
        slot.bytes.store(c.bytes, Relaxed);
        slot.read_ops.store(c.read_ops, Relaxed);
        slot.read_bytes.store(c.read_bytes, Relaxed);
        slot.write_ops.store(c.write_ops, Relaxed);
        slot.write_bytes.store(c.write_bytes, Relaxed);
        slot.errors.store(c.errors, Relaxed);
        slot.short_ios.store(c.short_ios, Relaxed);
        slot.latency_sum_ns.store(self.latency_sum_ns, Relaxed);
    }

    /// Moves the latency batch into the mailbox.
    fn flush(&mut self, slot: &WorkerSlot) {
        if self.batch.is_empty() {
            return;
        }
        let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
        mailbox.latencies.extend_from_slice(&self.batch);
        drop(mailbox);
        self.batch.clear();
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

/// Keeps the details of a failed or short I/O while fewer than `KEPT_ERRORS` are kept.
#[cold]
fn keep_error(
    control: &Control,
    thread: usize,
    is_read: bool,
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
            op: if is_read { "read" } else { "write" },
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
    // SAFETY: setpriority on this thread's own tid with a valid niceness has no memory effects.
    unsafe {
        let tid = nix::libc::gettid();
        let _ = nix::libc::setpriority(nix::libc::PRIO_PROCESS, tid as nix::libc::id_t, 19);
    }
}

/// "I/O error" rather than std's "Input/output error (os error 5)": the errno is kept apart.
fn describe_io_error(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => nix::errno::Errno::from_raw(n).desc().to_string(),
        None => e.to_string(),
    }
}
