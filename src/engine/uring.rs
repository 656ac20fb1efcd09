//! The io_uring worker loop: one ring per worker (`ring`), `iodepth` requests in flight on it,
//! each with its own aligned buffer and its own offset from the worker's generator (random
//! offsets are independent; sequential ones are consecutive blocks of the worker's stripe, as
//! with fio). Accounting, boundaries and kept errors are the psync loop's own (`account`):
//! only a completion that moved the whole block is an op; a short or negative `res` is
//! counted apart with its offset and errno.
//!
//! Latency is from submission to reaping: the time is taken when a request is queued (just
//! before the `io_uring_enter` that submits it) and once when a batch of completions is
//! reaped. That is fio's total latency `lat`, not `clat`.
//!
//! `--fsync N`: every N-th write issued is linked (`IOSQE_IO_LINK`) to an `IORING_OP_FSYNC`
//! with `IORING_FSYNC_DATASYNC` in the same slot: the kernel starts the sync when that write
//! has completed, so it covers it and every write completed before, while the other slots go
//! on; the kernel merges syncs that overlap into fewer device flushes. The write counts (an
//! op, with the sync's time in its latency, as with psync) when its sync completes; a write
//! that failed breaks the link and its sync comes back cancelled, counted once as the write's
//! failure. A slot thus holds one active request, the write or then its sync, as fio's
//! `iodepth` counts its syncs among its I/Os. fio (engines/io_uring.c; io_u.c `get_rw_ddir`)
//! queues its sync after every N-th write *issued*, with no link or drain flag: it may start,
//! and end, before that write does, and fio before 3.38 sends far fewer than N asks at depth
//! (see `scripts/bench-vs-fio` case e). Measured against fio 3.41 at QD8 on this VM (3 pairs):
//! a sync in a slot of its own, linked and held idle while its write ran, did 0.72-0.84x fio;
//! the sync sent by the worker once it had reaped the write (no link) lost the round trip;
//! sharing the write's slot, 0.85x at QD8 and QD32 (fsync 1, a loaded machine, README).
//!
//! With a rate (`pace`), the timetable governs submissions: a free slot is filled only when
//! its I/O is due, and while I/Os are in flight the worker waits for a completion or the next
//! slot, whichever comes first (a timed `io_uring_enter`). An I/O's latency is then counted
//! from its slot, its service time from its submission.
//!
//! Live changes: when the control generation moves, the worker stops submitting, reaps every
//! request still in flight (they count under the old settings, before the boundary), and only
//! then marks its boundary and takes the new settings, depth included; a deeper queue, or
//! polling turned on or off (`hipri`), gets a new ring, built on the empty old one's close.
//! Pause, stop, reset and the detection of a stopped process all go through the generation,
//! so they too find no I/O in flight once the worker has switched. When the worker is told to
//! stop (the run's end, or fewer threads), what is still in flight is cancelled rather than
//! waited for (on a polled ring, which takes no cancellation, reaped as it completes): at
//! `-t 1024 -Q 256` a quarter of a million requests waited in the kernel's queues and the run
//! overran `-T 3s` by 1.5 s reaping them. Cancelled requests count as `cancelled`.
//!
//! Errors of the ring itself (`flight`): EAGAIN or EBUSY from `io_uring_enter` (no memory
//! for a request just now, completions to reap first) are waited out, reaping between tries,
//! for up to 2 s; any other error, or a kernel busy longer, ends the ring's use. Then what is
//! in flight is cancelled and reaped before the worker goes on (with pread/pwrite, one I/O at
//! a time; the thread is marked as fallen back, which the header and the summary say, and the
//! error names the call and what it was doing); what cannot be reaped is counted `unfinished`
//! and the ring and its buffers are kept, never freed, as the kernel may still write into them.
//! `DISKSCOPE_URING_FAULT` (`ring_fault`) injects these errors for the tests.
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
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::Ordering::Acquire;
use std::time::Instant;

use io_uring::squeue;

use super::flight::{self, Failure, Flight, InFlight, SYNC_TAG};
use super::op::Op;
use super::ring::{self, CANCEL_TAG, Ring, Sent};
use super::ring_fault::Call;
use super::stops;
use super::worker::{Control, Outcome, Timing, Worker, WorkerSlot};

/// Runs the worker on io_uring until its slot's stop flag is set. Fails when a ring cannot be
/// built or fails under it; then nothing of this worker's is in flight on the ring, or what
/// the kernel still holds was counted `unfinished` and the ring and the buffers it may write
/// into are kept for the life of the process, and the caller may carry on with other buffers.
pub(super) fn run(
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    fd: RawFd,
) -> Result<(), Failure> {
    let mut ring: Option<Ring> = None;
    while w.refresh(slot, control) {
        let depth = w.settings.iodepth.max(1);
        let polled = w.settings.hipri;
        if ring
            .as_ref()
            .is_none_or(|r| r.entries < depth || r.polled != polled)
        {
            drop(ring.take()); // the old ring is empty: close it before building the next
            let trim = control.trim && !polled;
            ring = Some(Ring::new(depth, fd, polled, trim).map_err(Failure::setup)?);
        }
        let r = ring.as_mut().expect("built above");
        r.cap_iowq(w.settings.threads);
        r.register(w);
        let mut f = Flight::new(depth);
        let driven = catch_unwind(AssertUnwindSafe(|| drive(r, w, slot, control, fd, &mut f)));
        let failure = match driven {
            Ok(Ok(())) => continue,
            Ok(Err(failure)) => failure,
            Err(panic) => {
                // A bug: what the ring holds is unknown, so it and the buffers are kept for
                // good rather than freed under the kernel by the unwinding.
                std::mem::forget(ring.take());
                w.abandon_buffers(control.align);
                resume_unwind(panic);
            }
        };
        if flight::wind_down(r, w, slot, control, &mut f) > 0 {
            // The kernel may still write into these buffers and post to this ring: neither is
            // ever freed.
            std::mem::forget(ring.take());
            w.abandon_buffers(control.align);
        }
        return Err(failure);
    }
    // Everything is settled and handed over: say so before the ring is torn down. Unmapping
    // it waits for the process's memory-map lock, which a thousand exiting workers at nice 19
    // queue for; counted in, the last interval of `-t 1024 -Q 4 -T 2s` ran 3-15 s.
    w.finish(slot);
    drop(ring);
    Ok(())
}

/// Keeps `depth` slots busy until the generation moves, then reaps the rest (or cancels them,
/// when the worker must stop). Returns with nothing in flight, or with the failure that
/// stopped it (then `flight::wind_down` settles what is in flight).
fn drive(
    r: &mut Ring,
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    fd: RawFd,
    f: &mut Flight,
) -> Result<(), Failure> {
    loop {
        if !f.unsent.is_empty() {
            // The kernel took less than was queued: reap, then hand it the rest.
            flight::retry_busy(r, w, slot, control, f)?;
            continue;
        }
        let submitting = control.generation.load(Acquire) == w.seen_generation;
        if submitting {
            fill(r, w, slot, control, f, fd)?;
        } else if !f.cancelling && f.in_flight() > 0 && slot.stop.load(Acquire) && !r.polled {
            // A polled ring takes no cancellation (the kernel refuses it there): what is in
            // flight on it is reaped as it completes, within the run's stop grace.
            f.cancelling = true;
            f.unsent.push(CANCEL_TAG);
            let sent = r.cancel_all();
            f.trim_unsent(r.queued());
            sent.map_err(|e| Failure::enter(e, Call::Cancel))?;
        }
        if !f.unsent.is_empty() {
            continue; // the kernel was busy: handled at the top
        }
        // The next slot, when a rate holds back a free slot.
        let next_due = match &w.pace {
            Some(p) if submitting && !f.free.is_empty() => Some(p.peek()),
            _ => None,
        };
        if f.in_flight() == 0 {
            match next_due {
                // Nothing in flight and the next I/O not due yet: sleep until it is.
                Some(due) => {
                    w.idle_until(slot, control, due);
                    continue;
                }
                None => return Ok(()), // nothing in flight, and not submitting
            }
        }
        if !submitting {
            // Draining: what is done is handed over before each wait, so a worker the run
            // stops waiting for (`STOP_GRACE`) leaves only what is really unfinished.
            w.flush(slot);
        }
        // A polled ring waits by polling until the slot is due (`Ring::wait_until`).
        let waited = match next_due.filter(|_| r.ext_arg || r.polled) {
            Some(due) => r.wait_until(due),
            None => r.wait(),
        };
        match waited {
            Err(e) if !ring::busy(&e) => return Err(Failure::enter(e, Call::Wait)),
            _ => reap(r, w, slot, control, f),
        }
    }
}

/// Fills the free slots with new requests, each submitted as it is queued (a write due a sync
/// with its sync); with a rate, only what is due by now. Stops at a busy kernel, leaving what
/// it did not take in `f.unsent`. A trim on a ring without io_uring's discard is done at once
/// (BLKDISCARD), taking no slot.
fn fill(
    r: &mut Ring,
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    f: &mut Flight,
    fd: RawFd,
) -> Result<(), Failure> {
    let continued = stops::continued();
    while let Some(&i) = f.free.last() {
        if w.pace.is_some_and(|p| p.peek() > Instant::now()) {
            break;
        }
        let Some((op, offset)) = w.next_io() else {
            break;
        };
        if op == Op::Trim && !r.uring_discard {
            w.trim_now(slot, control, fd, offset);
            // Done at once, it frees no slot to end the loop: the generation does, as in
            // the psync loop (else a run's end or new settings wait for a run of trims).
            if control.generation.load(Acquire) != w.seen_generation {
                break;
            }
            continue;
        }
        f.free.pop();
        let linked = op == Op::Write && w.sync_due(control.fsync_every);
        let seq = w.prepare(i, op, offset);
        let entry = r.entry(w, fd, i, op, offset);
        f.meta[i] = InFlight {
            offset,
            op,
            linked,
            write_counted: false,
            unsynced: false,
            write_done: false,
            start: Instant::now(),
            due: w.issue(slot),
            continued,
            seq,
        };
        let sent = if linked {
            let sync = r.sync_entry(fd, i as u64 | SYNC_TAG);
            f.unsent.extend([i as u64, i as u64 | SYNC_TAG]);
            // SAFETY: buffer `i` stays allocated and untouched until its completion is reaped:
            // buffers are replaced only in `refresh` with nothing in flight, and after a
            // failure only once `flight::wind_down` has reaped every request (else they are
            // never freed); a sync points at no memory.
            unsafe { r.push(&[entry.flags(squeue::Flags::IO_LINK), sync]) }
        } else {
            f.unsent.push(i as u64);
            // SAFETY: as above, buffer `i` outlives the request until it is reaped (a trim
            // points at no memory).
            unsafe { r.push(&[entry]) }
        };
        match sent {
            Ok(Sent::All) => f.unsent.clear(),
            Ok(Sent::Busy) => {
                f.trim_unsent(r.queued());
                break;
            }
            Err(e) => {
                f.trim_unsent(r.queued());
                return Err(Failure::enter(e, Call::Submit));
            }
        }
    }
    Ok(())
}

/// Counts every completion waiting on the ring. A write linked to a sync is counted when its
/// sync completes (or at once, if it failed and broke the link); its slot is free then.
pub(super) fn reap(
    r: &mut Ring,
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    f: &mut Flight,
) {
    let end = Instant::now();
    let stopped_now = stops::continued();
    let mut cq = r.ring.completion();
    cq.sync();
    for cqe in &mut cq {
        let tag = cqe.user_data();
        if tag == CANCEL_TAG {
            continue;
        }
        let (i, is_sync) = ((tag & !SYNC_TAG) as usize, tag & SYNC_TAG != 0);
        let m = f.meta[i];
        if is_sync || !m.linked {
            f.free.push(i);
        }
        if is_sync && m.write_counted {
            continue;
        }
        let outcome = if m.unsynced {
            Outcome::Cancelled // its sync was never sent: not an op of `--fsync`
        } else {
            outcome(w, cqe.result(), &m, is_sync, f.cancelling)
        };
        if m.linked && !is_sync {
            if matches!(outcome, Outcome::Full(_)) {
                f.meta[i].write_done = true;
                continue; // counted when its sync completes
            }
            f.meta[i].write_counted = true;
        }
        let stopped = stopped_now != m.continued;
        let full = matches!(outcome, Outcome::Full(_));
        w.settle(
            slot,
            control,
            outcome,
            m.op,
            m.offset,
            stopped,
            Timing::of(m.start, m.due, end),
        );
        if full && !is_sync {
            w.after_io(control, slot, i, m.op, m.offset, m.seq);
        }
    }
    drop(cq);
    w.maybe_flush(slot, end);
}
/// How a completion ended: all of `bs` moved, fewer, an errno, or cancelled at the end; for a
/// sync, done (counted) or its errno.
#[inline]
fn outcome(w: &mut Worker, res: i32, m: &InFlight, is_sync: bool, cancelling: bool) -> Outcome {
    let cancelled = cancelling && matches!(-res, nix::libc::ECANCELED | nix::libc::EINTR);
    if cancelled {
        return Outcome::Cancelled;
    }
    if is_sync {
        return if res < 0 {
            Outcome::Failed(io::Error::from_raw_os_error(-res), "fdatasync")
        } else {
            w.local.syncs += 1;
            Outcome::Full(w.settings.bs)
        };
    }
    if res < 0 {
        Outcome::Failed(io::Error::from_raw_os_error(-res), m.op.name())
    } else if m.op == Op::Trim {
        // A discard completes with 0, not a count: the whole block was discarded.
        Outcome::Full(w.settings.bs)
    } else if (res as u64) < w.settings.bs {
        Outcome::Short(res as usize)
    } else {
        Outcome::Full(res as u64)
    }
}
