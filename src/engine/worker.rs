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

use std::sync::Arc;
use std::sync::atomic::Ordering::*;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};

pub use super::control::{BATCH, Boundary, Control, ControlState, Mailbox, WorkerSlot};

use super::buffer::AlignedBuf;
use super::io::BlockIo;
use super::pace::{self, Pace};
use super::pattern::OffsetGen;
use super::stops;
use super::uring;
use crate::settings::{IoEngine, Settings};
use crate::stats::{Counts, IoErrorRecord};

/// How often a worker moves its latency batch into its mailbox, at the latest.
const FLUSH_EVERY: Duration = Duration::from_millis(10);
/// How many failed or short I/Os a run keeps in detail.
pub const KEPT_ERRORS: usize = 16;

/// How one I/O ended.
pub(super) enum Outcome {
    /// All bytes transferred (and synced, when due): how many, which is the block size the
    /// I/O was submitted with (counted as such, so an I/O of an old block size counted under
    /// new settings would show as bytes ≠ ops × bs).
    Full(u64),
    /// Fewer bytes than asked: not an op.
    Short(usize),
    /// An errno, from the transfer or from the fdatasync after it.
    Failed(std::io::Error, &'static str),
}

/// Runs one worker until its slot's stop flag is set. `io` is its own descriptor; with the
/// io_uring engine and a real descriptor the worker keeps `iodepth` I/Os in flight on its own
/// ring (`uring`), otherwise one at a time with pread/pwrite.
pub fn run(slot: Arc<WorkerSlot>, control: Arc<Control>, mut io: Box<dyn BlockIo>) {
    yield_to_sampler();
    let mut w = Worker::new(control.align);
    match io
        .raw_fd()
        .filter(|_| control.ioengine == IoEngine::IoUring)
    {
        Some(fd) => {
            if let Err(e) = uring::run(&mut w, &slot, &control, &mut *io, fd) {
                w.local.errors += 1;
                keep_error(
                    &control,
                    slot.id,
                    "io_uring_setup",
                    0,
                    e.raw_os_error(),
                    || {
                        format!(
                            "this thread's ring: {}; it carries on with pread/pwrite",
                            describe_io_error(&e)
                        )
                    },
                );
                run_psync(&mut w, &slot, &control, &mut *io);
            }
        }
        None => run_psync(&mut w, &slot, &control, &mut *io),
    }
    w.flush(&slot);
    slot.finished.store(true, Release);
}

/// One I/O at a time: pread/pwrite on the worker's own descriptor.
/// With a rate, each I/O waits for its slot on the timetable (`pace`) unless it is late.
fn run_psync(w: &mut Worker, slot: &WorkerSlot, control: &Control, io: &mut dyn BlockIo) {
    while w.refresh(slot, control) {
        // A generation check per I/O: the only shared memory the loop reads, besides the
        // process-wide SIGCONT count, which changes only when the process was stopped.
        while control.generation.load(Acquire) == w.seen_generation {
            let due = match &mut w.pace {
                Some(p) => {
                    let due = p.take();
                    if !pace::wait_until(due, control, w.seen_generation) {
                        break;
                    }
                    Some(due)
                }
                None => None,
            };
            let Some((is_read, offset)) = w.next_io() else {
                break;
            };
            if !is_read {
                scramble(&mut w.bufs[0], &mut w.rng);
            }
            let continued = stops::continued();
            let start = Instant::now();
            let outcome = w.io_once(io, is_read, offset, control.fsync_every);
            let end = Instant::now();
            let stopped = stops::continued() != continued;
            w.settle(
                slot,
                control,
                outcome,
                is_read,
                offset,
                stopped,
                Timing::of(start, due, end),
            );
            w.maybe_flush(slot, end);
        }
    }
}

/// How long one I/O took: from submission, and with a rate from when it was due.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    pub service: Duration,
    /// From the I/O's slot on the timetable (`pace`); `None` without a rate.
    pub from_due: Option<Duration>,
}

impl Timing {
    /// Submitted at `start`, due at `due` (with a rate), completed at `end`.
    #[inline]
    pub fn of(start: Instant, due: Option<Instant>, end: Instant) -> Timing {
        Timing {
            service: end - start,
            from_due: due.map(|d| end.saturating_duration_since(d)),
        }
    }
}

pub(super) struct Worker {
    pub rng: SmallRng,
    pub local: Counts,
    latency_sum_ns: u64,
    /// `local` as of the last hand-over to the mailbox.
    handed: Counts,
    /// Latencies (ns) not yet moved to the mailbox; never grows past `BATCH`. With a rate,
    /// from when each I/O was due; else from submission.
    batch: Vec<u64>,
    /// With a rate only: the same I/Os' service times (from submission), in the same order.
    service_batch: Vec<u64>,
    /// The timetable when a rate is set.
    pub pace: Option<Pace>,
    /// Whether this thread's timer slack was tightened for pacing.
    slack_tightened: bool,
    pub seen_generation: u64,
    pub settings: Settings,
    pattern: Option<OffsetGen>,
    /// One aligned buffer per I/O in flight (`iodepth` of them), `bs` bytes each.
    pub bufs: Vec<AlignedBuf>,
    /// Bumped whenever `bufs` is reallocated (a ring re-registers them).
    pub bufs_epoch: u64,
    next_flush: Instant,
    /// Full writes since the last fdatasync (`--fsync`).
    writes_since_sync: u32,
}

impl Worker {
    fn new(align: usize) -> Self {
        Worker {
            rng: SmallRng::from_rng(&mut rand::rng()),
            local: Counts::default(),
            latency_sum_ns: 0,
            handed: Counts::default(),
            batch: Vec::with_capacity(BATCH),
            service_batch: Vec::with_capacity(BATCH),
            pace: None,
            slack_tightened: false,
            seen_generation: u64::MAX,
            settings: Settings::default(),
            pattern: None,
            bufs: vec![AlignedBuf::new(0, align)],
            bufs_epoch: 0,
            next_flush: Instant::now() + FLUSH_EVERY,
            writes_since_sync: 0,
        }
    }

    /// Whether the next I/O reads, and its offset; None before the first settings.
    #[inline]
    pub fn next_io(&mut self) -> Option<(bool, u64)> {
        let read_pct = u32::from(self.settings.read_pct);
        let is_read =
            read_pct == 100 || (read_pct > 0 && self.rng.random_range(0..100u32) < read_pct);
        let offset = self.pattern.as_mut()?.next_offset(&mut self.rng);
        Some((is_read, offset))
    }

    /// One read or write of the whole buffer at `offset`, then the fdatasync when due.
    #[inline]
    fn io_once(
        &mut self,
        io: &mut dyn BlockIo,
        is_read: bool,
        offset: u64,
        fsync_every: u32,
    ) -> Outcome {
        let buf = &mut self.bufs[0];
        let want = buf.len();
        let done = if is_read {
            io.read_at(buf, offset)
        } else {
            io.write_at(buf, offset)
        };
        match done {
            Err(e) => Outcome::Failed(e, if is_read { "read" } else { "write" }),
            Ok(n) if n < want => Outcome::Short(n),
            Ok(n) if is_read => Outcome::Full(n as u64),
            Ok(n) => self.after_full_write(io, fsync_every, n as u64),
        }
    }

    /// After every `fsync_every`-th full write, an fdatasync whose time belongs to that write
    /// (like fio's `fsync=N`, the I/O that triggers the sync waits for it).
    #[inline]
    pub fn after_full_write(
        &mut self,
        io: &mut dyn BlockIo,
        fsync_every: u32,
        bytes: u64,
    ) -> Outcome {
        if fsync_every == 0 {
            return Outcome::Full(bytes);
        }
        self.writes_since_sync += 1;
        if self.writes_since_sync < fsync_every {
            return Outcome::Full(bytes);
        }
        self.writes_since_sync = 0;
        match io.sync_data() {
            Ok(()) => {
                self.local.syncs += 1;
                Outcome::Full(bytes)
            }
            Err(e) => Outcome::Failed(e, "fdatasync"),
        }
    }

    /// Counts how one I/O ended: a complete one as an op with its latency (unless the process
    /// was stopped while it ran: its latency would be mostly the stop); a short or failed one
    /// apart, with its offset and errno.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn settle(
        &mut self,
        slot: &WorkerSlot,
        control: &Control,
        outcome: Outcome,
        is_read: bool,
        offset: u64,
        stopped: bool,
        timing: Timing,
    ) {
        match outcome {
            Outcome::Full(_) if stopped => self.local.spanning_stop += 1,
            Outcome::Full(n) => self.count_full(is_read, n, timing),
            Outcome::Short(n) => {
                self.local.short_ios += 1;
                let want = self.settings.bs;
                let op = if is_read { "read" } else { "write" };
                keep_error(control, slot.id, op, offset, None, || {
                    format!("short {op}: {n} of {want} bytes")
                });
            }
            Outcome::Failed(e, op) => {
                self.local.errors += 1;
                keep_error(control, slot.id, op, offset, e.raw_os_error(), || {
                    describe_io_error(&e)
                });
            }
        }
    }

    /// Counts one complete I/O: an op, its bytes, its latency (and with a rate its service
    /// time apart).
    #[inline]
    fn count_full(&mut self, is_read: bool, n: u64, timing: Timing) {
        let service = timing.service.as_nanos() as u64;
        let ns = match timing.from_due {
            Some(d) => {
                self.service_batch.push(service);
                d.as_nanos() as u64
            }
            None => service,
        };
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

    /// Moves the batch to the mailbox when it is full or `FLUSH_EVERY` has passed.
    #[inline]
    pub fn maybe_flush(&mut self, slot: &WorkerSlot, now: Instant) {
        if self.batch.len() >= BATCH || now >= self.next_flush {
            self.flush(slot);
            self.next_flush = now + FLUSH_EVERY;
        }
    }

    /// Takes up the current control state: waits while paused, rebuilds the offset generator
    /// and buffers for new settings. Returns false when the worker must exit. The caller has
    /// no I/O in flight: everything before the boundary ran under the old settings.
    pub fn refresh(&mut self, slot: &WorkerSlot, control: &Control) -> bool {
        let mut st = control.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            // Read under the lock, so the generation and the state belong together.
            let generation = control.generation.load(Acquire);
            self.mark_boundary(slot, generation);
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
            let depth = s.iodepth.max(1);
            if s.bs as usize != self.bufs[0].len() || depth != self.bufs.len() {
                self.bufs = (0..depth)
                    .map(|_| {
                        let mut b = AlignedBuf::new(s.bs as usize, control.align);
                        self.rng.fill_bytes(&mut b);
                        b
                    })
                    .collect();
                self.bufs_epoch += 1;
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
        // Every change starts a fresh timetable: no backlog carried over a pause or a new rate.
        self.pace = Pace::new(s.rate_iops, s.threads, slot.index, Instant::now());
        if self.pace.is_some() && !self.slack_tightened {
            self.slack_tightened = true;
            pace::tighten_timer_slack();
        }
        true
    }

    /// Hands over everything done so far (under the old generation) and marks it as done
    /// before `generation`, which the worker takes up.
    fn mark_boundary(&mut self, slot: &WorkerSlot, generation: u64) {
        let mut mailbox = self.hand_over(slot);
        self.seen_generation = generation;
        if mailbox.cut_without.is_some_and(|g| g <= generation) {
            mailbox.cut_without = None;
        }
        mailbox.boundary = Some(Boundary {
            generation: self.seen_generation,
            counts: self.local,
            latency_sum_ns: self.latency_sum_ns,
            latencies: mailbox.latencies.len(),
            service: mailbox.service.len(),
            at: Instant::now(),
        });
        drop(mailbox);
        slot.acked_generation.store(self.seen_generation, Release);
    }

    /// Moves the latency batch and the counters into the mailbox.
    fn flush(&mut self, slot: &WorkerSlot) {
        drop(self.hand_over(slot));
    }

    /// Moves the batch and the counters into the mailbox, and returns it still locked. When
    /// the sampler already cut the interval of this worker's settings (`cut_without`), the
    /// complete I/Os since the last hand-over are counted as `after_switch` instead of ops:
    /// the interval they belong to is gone, and the next one runs under other settings.
    fn hand_over<'a>(&mut self, slot: &'a WorkerSlot) -> std::sync::MutexGuard<'a, Mailbox> {
        let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
        if mailbox
            .cut_without
            .is_some_and(|g| self.seen_generation < g)
        {
            self.set_aside_since_hand_over();
        } else {
            mailbox.latencies.extend_from_slice(&self.batch);
            mailbox.service.extend_from_slice(&self.service_batch);
        }
        self.batch.clear();
        self.service_batch.clear();
        mailbox.counts = self.local;
        mailbox.latency_sum_ns = self.latency_sum_ns;
        self.handed = self.local;
        mailbox
    }

    /// Turns the complete I/Os since the last hand-over into `after_switch`: out of the ops,
    /// bytes and latency sum (their latencies, the batch, are dropped by the caller).
    fn set_aside_since_hand_over(&mut self) {
        let late = self.local.since(&self.handed);
        let l = &mut self.local;
        l.ops -= late.ops;
        l.bytes -= late.bytes;
        l.read_ops -= late.read_ops;
        l.read_bytes -= late.read_bytes;
        l.write_ops -= late.write_ops;
        l.write_bytes -= late.write_bytes;
        l.after_switch += late.ops;
        self.latency_sum_ns -= self.batch.iter().sum::<u64>();
    }
}

/// Refreshes write data so the device cannot compress or deduplicate it: a new random word at
/// the start of every 512-byte sector (the rest of the buffer is random from allocation).
#[inline]
pub(super) fn scramble(buf: &mut [u8], rng: &mut SmallRng) {
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
