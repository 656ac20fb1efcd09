//! The hot loop of one worker thread: pick an offset, read, write or trim one block, time it,
//! count it. Per I/O it touches only its own memory plus one load of the shared control generation
//! (and of the process's SIGCONT count): no lock, no allocation, no channel send. Only I/Os
//! that transferred the whole block count as ops, with their bytes and latency; short and
//! failed ones are counted apart, and so is an I/O the process was stopped during (its latency
//! would be the stop). How an I/O is counted lives in `account`, how the counts and latencies
//! reach the sampler in `handover`; the io_uring loop in `uring`. This file owns the worker's
//! state, its psync loop, and taking up new settings.

use std::sync::Arc;
use std::sync::atomic::Ordering::*;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub use super::account::{Outcome, Timing};
pub use super::control::{BATCH, Control, ControlState, WorkerSlot};

use super::account::{describe_io_error, keep_error};
use super::buffer::BufferSet;
use super::check::Verifier;
use super::io::BlockIo;
use super::niceness::Fair;
use super::offsets::Heat;
use super::op::Op;
use super::pace::{self, Pace, Timetable};
use super::pattern::OffsetGen;
use super::stops;
use super::uring;
use crate::settings::{IoEngine, Settings};
use crate::stats::Counts;

/// How often a worker moves its latency batch into its mailbox, at the latest.
pub(super) const FLUSH_EVERY: Duration = Duration::from_millis(10);

/// Runs one worker until its slot's stop flag is set. `io` is its own descriptor; with the
/// io_uring engine and a real descriptor the worker keeps `iodepth` I/Os in flight on its own
/// ring (`uring`), otherwise one at a time with pread/pwrite.
pub fn run(slot: Arc<WorkerSlot>, control: Arc<Control>, mut io: Box<dyn BlockIo>) {
    let mut w = Worker::new(control.align, control.trim);
    w.verifier = (control.checker.as_ref()).map(|c| Verifier::new(c.worker(slot.index)));
    match io
        .raw_fd()
        .filter(|_| control.ioengine == IoEngine::IoUring)
    {
        Some(fd) => {
            if let Err(failed) = uring::run(&mut w, &slot, &control, fd) {
                // Not an I/O (the requests in flight were settled or counted unfinished), so
                // not among `errors`; kept in the list, and the thread is marked as fallen back.
                keep_error(
                    &control,
                    slot.id,
                    failed.call,
                    0,
                    failed.error.raw_os_error(),
                    || {
                        format!(
                            "{} failed {}: {}; this thread carries on with pread/pwrite, one I/O \
                         at a time",
                            failed.call,
                            failed.doing,
                            describe_io_error(&failed.error)
                        )
                    },
                );
                if !slot.stop.load(Acquire) {
                    slot.fell_back.store(true, Release); // else it only stops
                }
                run_psync(&mut w, &slot, &control, &mut *io);
            }
        }
        None => run_psync(&mut w, &slot, &control, &mut *io),
    }
    w.finish(&slot);
}

/// One I/O at a time: pread/pwrite on the worker's own descriptor.
/// With a rate, each I/O waits for its slot on the timetable (`pace`) unless it is late.
fn run_psync(w: &mut Worker, slot: &WorkerSlot, control: &Control, io: &mut dyn BlockIo) {
    while w.refresh(slot, control) {
        // A generation check per I/O: the only shared memory the loop reads, besides the
        // process-wide SIGCONT count, which changes only when the process was stopped.
        while control.generation.load(Acquire) == w.seen_generation {
            if let Some(due) = w.pace.map(|p| p.peek())
                && !w.idle_until(slot, control, due)
            {
                break;
            }
            let Some((op, offset)) = w.next_io() else {
                break;
            };
            let due = w.issue(slot);
            let seq = w.prepare(0, op, offset);
            let continued = stops::continued();
            let start = Instant::now();
            let outcome = w.io_once(io, op, offset, control.fsync_every);
            let end = Instant::now();
            let stopped = stops::continued() != continued;
            let full = matches!(outcome, Outcome::Full(_));
            w.settle(
                slot,
                control,
                outcome,
                op,
                offset,
                stopped,
                Timing::of(start, due, end),
            );
            if full {
                w.after_io(control, slot, 0, op, offset, seq);
            }
            w.maybe_flush(slot, end);
        }
    }
}

pub(super) struct Worker {
    pub rng: SmallRng,
    pub local: Counts,
    pub(super) latency_sum_ns: u64,
    /// `local` as of the last hand-over to the mailbox.
    pub(super) handed: Counts,
    /// Latencies (ns) not yet moved to the mailbox; never grows past `BATCH`. With a rate,
    /// from when each I/O was due; else from submission.
    pub(super) batch: Vec<u64>,
    /// With a rate only: the same I/Os' service times (from submission), in the same order.
    pub(super) service_batch: Vec<u64>,
    /// The timetable when a rate is set.
    pub pace: Option<Pace>,
    /// The timetables as the sampler counts them (`Counts::due`); mirrored in the mailbox.
    pub(super) timetable: Timetable,
    /// Whether this thread's timer slack was tightened for pacing.
    slack_tightened: bool,
    pub seen_generation: u64,
    pub settings: Settings,
    pattern: Option<OffsetGen>,
    /// One aligned buffer per I/O in flight (`iodepth` of them), `bs` bytes each.
    pub bufs: BufferSet,
    /// Bumped whenever `bufs` is reallocated (a ring re-registers them).
    pub bufs_epoch: u64,
    /// Requests a failed ring may still hold on `bufs` (`flight::wind_down`): while it is not
    /// 0 the buffers are never freed.
    pub(super) kernel_holds: usize,
    pub(super) next_flush: Instant,
    /// This thread's scheduler statistics (CPU and run-queue wait), read every
    /// `SCHEDSTAT_EVERY` at a hand-over, and the reading when the worker started.
    pub(super) schedstat: Option<(crate::sys::ThreadSchedstat, (u64, u64))>,
    pub(super) next_schedstat: Instant,
    /// Full writes since the last fdatasync (`--fsync`).
    writes_since_sync: u32,
    /// `--verify`: the stamper and the backlog of writes to read back.
    pub verifier: Option<Verifier>,
    /// The sequence the read `next_io` chose was written with, when it reads a write back.
    pub(super) expect: Option<u64>,
    /// This worker counted among the process's workers, at the niceness their number asks.
    pub(super) fair: Fair,
    /// The target was checked to discard (`Control::trim`): only then is a trim drawn.
    pub(super) may_trim: bool,
}

impl Worker {
    fn new(align: usize, may_trim: bool) -> Self {
        let schedstat = crate::sys::ThreadSchedstat::open()
            .and_then(|s| s.read().map(|at_start| (s, at_start)));
        Worker {
            rng: SmallRng::from_rng(&mut rand::rng()),
            local: Counts::default(),
            latency_sum_ns: 0,
            handed: Counts::default(),
            batch: Vec::with_capacity(BATCH),
            service_batch: Vec::with_capacity(BATCH),
            pace: None,
            timetable: Timetable::default(),
            slack_tightened: false,
            seen_generation: u64::MAX,
            settings: Settings::default(),
            pattern: None,
            bufs: BufferSet::new(0, 0, align),
            bufs_epoch: 0,
            kernel_holds: 0,
            next_flush: Instant::now() + FLUSH_EVERY,
            schedstat,
            next_schedstat: Instant::now(),
            writes_since_sync: 0,
            verifier: None,
            expect: None,
            fair: Fair::enlist(),
            may_trim,
        }
    }

    /// What the next I/O does, and its offset; None before the first settings.
    #[inline]
    pub fn next_io(&mut self) -> Option<(Op, u64)> {
        let op = Op::draw(&self.settings, self.may_trim, &mut self.rng);
        if let Some(v) = self.verifier.as_mut().filter(|_| self.pattern.is_some()) {
            let back = v.next_read(op == Op::Read);
            self.expect = back.map(|(_, seq)| seq);
            if let Some((at, _)) = back {
                return Some((Op::Read, at));
            }
        }
        let (offset, heat) = self.pattern.as_mut()?.next(&mut self.rng);
        if let Some(heat) = heat {
            self.local.random_issued += 1;
            self.local.top1_issued += u64::from(heat == Heat::Top1);
            self.local.top10_issued += u64::from(heat != Heat::Rest);
        }
        Some((op, offset))
    }

    /// Counts an I/O as issued (and says so in `slot.issued` at once, so the run's end can
    /// count what a worker it stopped waiting for still had, handed over or not) and, with a
    /// rate, takes the next slot of the timetable for it; returns when it was due (`None`
    /// without a rate).
    #[inline]
    pub fn issue(&mut self, slot: &WorkerSlot) -> Option<Instant> {
        self.local.issued += 1;
        slot.issued.store(self.local.issued, Release);
        Some(self.pace.as_mut()?.take())
    }

    /// Waits for a slot due at `due`; false when the settings changed meanwhile. A wait of
    /// a millisecond or more hands over what is done first, so the sampler's count of issued
    /// slots is never a sleep behind its count of due ones.
    #[inline]
    pub fn idle_until(&mut self, slot: &WorkerSlot, control: &Control, due: Instant) -> bool {
        let now = Instant::now();
        if due <= now {
            return true;
        }
        if due - now >= Duration::from_millis(1) && self.local != self.handed {
            self.flush(slot);
        }
        pace::wait_until(due, control, self.seen_generation)
    }

    /// One read or write of the whole buffer at `offset`, then the fdatasync when due; or a
    /// trim of the block there (no fdatasync: a discard is not in the page cache).
    #[inline]
    fn io_once(&mut self, io: &mut dyn BlockIo, op: Op, offset: u64, fsync_every: u32) -> Outcome {
        let buf = self.bufs.get_mut(0);
        let want = buf.len();
        let done = match op {
            Op::Read => io.read_at(buf, offset),
            Op::Write => io.write_at(buf, offset),
            Op::Trim => io.discard(offset, want as u64).map(|()| want),
        };
        match done {
            Err(e) => Outcome::Failed(e, op.name()),
            Ok(n) if n < want => Outcome::Short(n),
            Ok(n) if op != Op::Write => Outcome::Full(n as u64),
            Ok(n) if self.sync_due(fsync_every) => match io.sync_data() {
                Ok(()) => {
                    self.local.syncs += 1;
                    Outcome::Full(n as u64)
                }
                Err(e) => Outcome::Failed(e, "fdatasync"),
            },
            Ok(n) => Outcome::Full(n as u64),
        }
    }

    /// Counts one full write; true when it is the `fsync_every`-th since the last sync, so an
    /// fdatasync must follow before the write counts (its time is in the write's latency, as
    /// the I/O that triggers fio's `fsync=N` waits for it).
    #[inline]
    pub fn sync_due(&mut self, fsync_every: u32) -> bool {
        if fsync_every == 0 {
            return false;
        }
        self.writes_since_sync += 1;
        if self.writes_since_sync < fsync_every {
            return false;
        }
        self.writes_since_sync = 0;
        true
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
            if s.bs as usize != self.bufs.len() || depth != self.bufs.count() {
                self.new_buffers(depth, s.bs as usize, control.align);
            }
            self.pattern = Some(OffsetGen::new(
                control.span,
                s.bs,
                s.random_pct,
                s.random_distribution,
                slot.index,
                s.threads,
            ));
            self.settings = s;
            if let Some(v) = &mut self.verifier {
                v.clear();
            }
        }
        // Every change starts a fresh timetable: no backlog carried over a pause or a new rate.
        self.pace = Pace::new(s.rate_iops, s.threads, slot.index, Instant::now());
        self.publish_timetable(slot);
        if self.pace.is_some() && !self.slack_tightened {
            self.slack_tightened = true;
            pace::tighten_timer_slack();
        }
        true
    }
}

impl Worker {
    /// Replaces the buffers with `count` fresh ones of `len` bytes. The old ones are freed only
    /// when no request holds them (`kernel_holds`): else they are kept, never to be reused.
    fn new_buffers(&mut self, count: usize, len: usize, align: usize) {
        let old = std::mem::replace(&mut self.bufs, BufferSet::new(count, len, align));
        if self.kernel_holds > 0 {
            debug_assert_eq!(
                self.kernel_holds, 0,
                "buffers replaced with requests in flight"
            );
            std::mem::forget(old);
            self.kernel_holds = 0;
        }
        let rng = &mut self.rng;
        self.bufs.fill_with(|b| rng.fill_bytes(b));
        self.bufs_epoch += 1;
    }

    /// After a failed ring that may still write into the buffers: keeps them for the life of
    /// the process and goes on with fresh ones of the same shape.
    pub(super) fn abandon_buffers(&mut self, align: usize) {
        std::mem::forget(std::mem::replace(
            &mut self.bufs,
            BufferSet::new(0, 0, align),
        ));
        self.kernel_holds = 0;
        let (count, len) = (self.settings.iodepth.max(1), self.settings.bs as usize);
        self.new_buffers(count, len, align);
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
