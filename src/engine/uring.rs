//! The io_uring worker loop: one ring per worker, `iodepth` I/Os in flight on it, each with its
//! own aligned buffer and its own offset from the worker's generator (random offsets are
//! independent; sequential ones are consecutive blocks of the worker's stripe, as with fio).
//! Accounting, boundaries and kept errors are the psync loop's own (`worker::Worker`): only
//! a completion that moved the whole block is an op; a short or negative `res` is counted
//! apart with its offset and errno.
//!
//! Latency is from submission to reaping: the time is taken when a request is queued (just
//! before the `io_uring_enter` that submits it) and once when a batch of completions is
//! reaped. That is fio's total latency `lat`, not `clat`.
//!
//! With a rate (`pace`), the timetable governs submissions: a free slot is filled only when
//! its I/O is due, and while I/Os are in flight the worker waits for a completion or the next
//! slot, whichever comes first (a timed `io_uring_enter`). An I/O's latency is then counted
//! from its slot, its service time from its submission.
//!
//! Live changes: when the control generation moves, the worker stops submitting, reaps every
//! request still in flight (they count under the old settings, before the boundary), and only
//! then marks its boundary and takes the new settings, depth included. Pause, stop, reset and
//! the detection of a stopped process all go through the generation, so they too find no I/O
//! in flight once the worker has switched.
//!
//! What makes it fast was measured with the release binary on a 1 GiB scratch file, 4k random
//! reads, one thread at QD32, A/B runs of 3 s alternated (3-4 pairs, on a shared 2-core
//! machine, so IOPS were noisy; CPU seconds per I/O from time(1) were steadier), medians:
//! - one `io_uring_enter` per request as it is queued (fio's default, `iodepth_batch_submit=1`)
//!   against every free slot queued and submitted together: on this machine's virtio disk the
//!   batched form fell into waves — 32 completions reaped per enter, the device idle while the
//!   next 32 were queued — and did 84k IOPS at QD32 against fio's 102-115k; submitting each
//!   request at once keeps the device fed (kernel await 350 µs down to 180-230 µs) and did
//!   88-91k against 74-79k for batches of 4 or 8 (4 runs each, medians); at QD64 one and
//!   four per enter tied (108k). The price is CPU on a page-cached file: 1.96-2.18 µs per
//!   I/O against 1.56-1.61 batched. Kept: the disk is what is measured.
//! - registered buffers (`FIXED_BUFFERS`): O_DIRECT 5.0 µs against 5.35 (-7%); page-cached
//!   2.0 against 2.03 (no difference: the copy dominates). Kept.
//! - registered file (`FIXED_FILE`): O_DIRECT 4.4 µs against 4.7 (-6%). Kept.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::Ordering::Acquire;
use std::time::Instant;

use io_uring::{IoUring, cqueue, opcode, squeue, types};

use super::io::BlockIo;
use super::pace;
use super::stops;
use super::worker::{Control, Outcome, Timing, Worker, WorkerSlot, scramble};

/// Registered buffers (ReadFixed/WriteFixed): the kernel maps the pages once instead of at
/// every I/O. Falls back to plain reads and writes when registration is refused (the
/// RLIMIT_MEMLOCK of an unprivileged user).
const FIXED_BUFFERS: bool = true;
/// Registered file: the kernel skips the descriptor table lookup and reference count per I/O.
const FIXED_FILE: bool = true;

/// What one in-flight request is.
#[derive(Clone, Copy)]
struct InFlight {
    offset: u64,
    is_read: bool,
    start: Instant,
    /// Its slot on the timetable, with a rate.
    due: Option<Instant>,
    /// The SIGCONT count at submission: a request the process was stopped during is not an op.
    continued: u64,
}

/// One worker's ring and what is registered on it.
struct Ring {
    ring: IoUring,
    entries: usize,
    fixed_file: bool,
    /// The `Worker::bufs_epoch` whose buffers are registered; None: plain reads and writes.
    registered: Option<u64>,
    /// Whether the kernel takes a timeout with the wait (5.11+): with a rate, the worker then
    /// wakes for the next slot even while I/Os are in flight; without it, it submits the next
    /// slot after the next completion.
    ext_arg: bool,
}

impl Ring {
    fn new(depth: usize, fd: RawFd) -> io::Result<Ring> {
        let entries = depth.next_power_of_two() as u32;
        // Only this thread submits, and it reaps in its own loop: no IPI per completion
        // (coop taskrun, single issuer; kernels before 6.0 refuse them, then plain). Measured
        // at T1 QD32 O_DIRECT, 3 pairs: 88-98k IOPS against 84-91k plain; defer taskrun
        // gained nothing more.
        let ring = IoUring::builder()
            .setup_coop_taskrun()
            .setup_single_issuer()
            .build(entries)
            .or_else(|_| IoUring::builder().build(entries))?;
        let fixed_file = FIXED_FILE && ring.submitter().register_files(&[fd]).is_ok();
        let entries = ring.params().sq_entries() as usize;
        let ext_arg = ring.params().is_feature_ext_arg();
        Ok(Ring {
            ext_arg,
            ring,
            entries,
            fixed_file,
            registered: None,
        })
    }

    /// Registers the worker's buffers if they changed since the last registration.
    fn register(&mut self, w: &mut Worker) {
        if !FIXED_BUFFERS || self.registered == Some(w.bufs_epoch) {
            return;
        }
        let sub = self.ring.submitter();
        if self.registered.take().is_some() {
            let _ = sub.unregister_buffers();
        }
        let iovecs: Vec<nix::libc::iovec> = w
            .bufs
            .iter_mut()
            .map(|b| nix::libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        // SAFETY: the buffers stay allocated until `Worker::refresh` replaces them, which
        // bumps the epoch; they are re-registered before any further submission, and no
        // request is in flight across a refresh.
        if unsafe { sub.register_buffers(&iovecs) }.is_ok() {
            self.registered = Some(w.bufs_epoch);
        }
    }

    /// The submission entry for request `i`: read or write of buffer `i` at `offset`.
    fn entry(
        &self,
        w: &mut Worker,
        fd: RawFd,
        i: usize,
        is_read: bool,
        offset: u64,
    ) -> squeue::Entry {
        let buf = &mut w.bufs[i];
        let (ptr, len) = (buf.as_mut_ptr(), buf.len() as u32);
        let fixed = self.registered.is_some();
        macro_rules! op {
            ($target:expr) => {
                match (is_read, fixed) {
                    (true, true) => opcode::ReadFixed::new($target, ptr, len, i as u16)
                        .offset(offset)
                        .build(),
                    (true, false) => opcode::Read::new($target, ptr, len).offset(offset).build(),
                    (false, true) => opcode::WriteFixed::new($target, ptr, len, i as u16)
                        .offset(offset)
                        .build(),
                    (false, false) => opcode::Write::new($target, ptr, len).offset(offset).build(),
                }
            };
        }
        let e = if self.fixed_file {
            op!(types::Fixed(0))
        } else {
            op!(types::Fd(fd))
        };
        e.user_data(i as u64)
    }
}

/// Runs the worker on io_uring until its slot's stop flag is set. Fails only when a ring
/// cannot be built (then nothing is in flight and the caller may carry on another way).
pub(super) fn run(
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    io: &mut dyn BlockIo,
    fd: RawFd,
) -> io::Result<()> {
    let mut ring: Option<Ring> = None;
    while w.refresh(slot, control) {
        let depth = w.settings.iodepth.max(1);
        if ring.as_ref().is_none_or(|r| r.entries < depth) {
            drop(ring.take()); // the old ring is empty: close it before building the next
            ring = Some(Ring::new(depth, fd)?);
        }
        let r = ring.as_mut().expect("built above");
        r.register(w);
        drive(r, w, slot, control, io, fd, depth)?;
    }
    Ok(())
}

/// Keeps `depth` requests in flight until the generation moves, then reaps the rest.
fn drive(
    r: &mut Ring,
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    io: &mut dyn BlockIo,
    fd: RawFd,
    depth: usize,
) -> io::Result<()> {
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut meta = vec![
        InFlight {
            offset: 0,
            is_read: true,
            start: Instant::now(),
            due: None,
            continued: 0,
        };
        depth
    ];
    loop {
        let submitting = control.generation.load(Acquire) == w.seen_generation;
        if submitting && !free.is_empty() {
            let continued = stops::continued();
            while let Some(i) = free.pop() {
                // With a rate, only what is due by now goes out.
                let due = match &mut w.pace {
                    Some(p) if p.peek() > Instant::now() => {
                        free.push(i);
                        break;
                    }
                    Some(p) => Some(p.take()),
                    None => None,
                };
                let Some((is_read, offset)) = w.next_io() else {
                    free.push(i);
                    break;
                };
                if !is_read {
                    scramble(&mut w.bufs[i], &mut w.rng);
                }
                let entry = r.entry(w, fd, i, is_read, offset);
                meta[i] = InFlight {
                    offset,
                    is_read,
                    start: Instant::now(),
                    due,
                    continued,
                };
                // SAFETY: buffer `i` stays allocated and untouched until its completion is
                // reaped; the queue has room, since at most `depth <= entries` are in flight.
                unsafe { r.ring.submission().push(&entry) }.expect("room for every request");
                submit(&mut r.ring)?;
            }
        }
        // The next slot, when a rate holds back a free slot.
        let next_due = match &w.pace {
            Some(p) if submitting && !free.is_empty() => Some(p.peek()),
            _ => None,
        };
        if free.len() == depth {
            match next_due {
                // Nothing in flight and the next I/O not due yet: sleep until it is.
                Some(due) => {
                    pace::wait_until(due, control, w.seen_generation);
                    continue;
                }
                None => return Ok(()), // nothing in flight, and not submitting
            }
        }
        match next_due.filter(|_| r.ext_arg) {
            Some(due) => wait_until(&mut r.ring, due)?,
            None => wait(&mut r.ring)?,
        }
        let end = Instant::now();
        let stopped_now = stops::continued();
        let mut cq = r.ring.completion();
        cq.sync();
        for cqe in &mut cq {
            let i = cqe.user_data() as usize;
            let m = meta[i];
            let outcome = outcome(w, io, control.fsync_every, &cqe, m.is_read);
            let stopped = stopped_now != m.continued;
            w.settle(
                slot,
                control,
                outcome,
                m.is_read,
                m.offset,
                stopped,
                Timing::of(m.start, m.due, end),
            );
            free.push(i);
        }
        drop(cq);
        w.maybe_flush(slot, end);
    }
}

/// How a completion ended: all of `bs` moved (then the fdatasync when due), fewer, or an errno.
#[inline]
fn outcome(
    w: &mut Worker,
    io: &mut dyn BlockIo,
    fsync_every: u32,
    cqe: &cqueue::Entry,
    is_read: bool,
) -> Outcome {
    let res = cqe.result();
    let op = if is_read { "read" } else { "write" };
    if res < 0 {
        Outcome::Failed(io::Error::from_raw_os_error(-res), op)
    } else if (res as u64) < w.settings.bs {
        Outcome::Short(res as usize)
    } else if is_read {
        Outcome::Full(res as u64)
    } else {
        w.after_full_write(io, fsync_every, res as u64)
    }
}

/// Hands the kernel the request just queued; a signal interrupting the call is retried.
fn submit(ring: &mut IoUring) -> io::Result<()> {
    loop {
        match ring.submit() {
            Err(e) if e.raw_os_error() == Some(nix::libc::EINTR) => continue,
            other => return other.map(drop),
        }
    }
}

/// Waits for at least one completion; a signal (SIGCONT after a stop) interrupting the wait
/// is not an error.
fn wait(ring: &mut IoUring) -> io::Result<()> {
    loop {
        match ring.submit_and_wait(1) {
            Ok(_) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(nix::libc::EINTR) => {
                if !ring.completion().is_empty() {
                    return Ok(());
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Waits for a completion or until `due` (a rate's next slot), whichever comes first, but
/// never longer than 2 ms so a change of settings is noticed.
fn wait_until(ring: &mut IoUring, due: Instant) -> io::Result<()> {
    let wait = due
        .saturating_duration_since(Instant::now())
        .min(std::time::Duration::from_millis(2));
    if wait.is_zero() {
        return Ok(());
    }
    let ts = types::Timespec::from(wait);
    let args = types::SubmitArgs::new().timespec(&ts);
    match ring.submitter().submit_with_args(1, &args) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(nix::libc::ETIME | nix::libc::EINTR)) => Ok(()),
        Err(e) => Err(e),
    }
}
