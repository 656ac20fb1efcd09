//! What one worker's ring holds (which slot carries which request, which slots are free,
//! what was queued but not yet taken by the kernel), and the ring's error paths: a busy
//! kernel (EAGAIN, EBUSY: reap, then submit again) and a failed one (any other error of
//! `io_uring_enter`), after which the worker leaves the ring with nothing in flight before it
//! carries on with pread/pwrite.
//!
//! Why it matters: a request in flight points at one of the worker's buffers, and the kernel
//! writes into that buffer when the request completes, whether or not anyone still waits for
//! it. A worker that left its ring with requests in flight and then freed or reused the
//! buffers (a stop, a block-size change, the psync fallback) would let the kernel write into
//! memory that is no longer the buffer. So on a failure `wind_down` cancels what is in
//! flight, reaps until nothing is, and counts what it could not reap as `unfinished`; the
//! caller then keeps the ring and those buffers for the life of the process.

use std::io;
use std::time::{Duration, Instant};

use super::account::Outcome;
use super::op::Op;
use super::ring::{self, CANCEL_TAG, Ring};
use super::ring_fault::Call;
use super::uring::reap;
use super::worker::{Control, Timing, Worker, WorkerSlot};

/// Marks the `user_data` of a slot's linked sync (the slot's own number in the low bits).
pub(super) const SYNC_TAG: u64 = 1 << 62;

/// How long a busy kernel may keep refusing before it counts as a failure.
const BUSY_FOR: Duration = Duration::from_secs(2);
/// How long a failed ring is reaped before what it still holds is given up as `unfinished`.
const WIND_DOWN: Duration = Duration::from_secs(5);
/// Failed waits in a row after which reaping a failed ring stops.
const WAIT_FAILURES: u32 = 8;

/// What one slot's request is.
#[derive(Clone, Copy)]
pub(super) struct InFlight {
    pub offset: u64,
    pub op: Op,
    /// A write with its sync linked after it in this slot: the slot is free, and the write
    /// counted, when the sync completes.
    pub linked: bool,
    /// The linked write did not complete whole and was counted already; its sync comes back
    /// cancelled (the link broke) and counts nothing.
    pub write_counted: bool,
    /// A write whose sync was never handed to the kernel (the ring failed between them): it
    /// counts as cancelled when it completes, not as an op of `--fsync`.
    pub unsynced: bool,
    /// The linked write completed whole; the slot waits for its sync.
    pub write_done: bool,
    pub start: Instant,
    /// Its slot on the timetable, with a rate.
    pub due: Option<Instant>,
    /// The SIGCONT count at submission: a request the process was stopped during is not an op.
    pub continued: u64,
    /// A write's sequence number (`--verify`), or the sequence a read checks against
    /// (`u64::MAX`: none).
    pub seq: u64,
}

/// The requests of one `drive`: what each slot holds and which slots are free.
pub(super) struct Flight {
    pub meta: Vec<InFlight>,
    pub free: Vec<usize>,
    /// Whether the cancellation of everything in flight was sent.
    pub cancelling: bool,
    /// The `user_data` of what is queued on the ring and not yet taken by the kernel, in
    /// queue order (a busy kernel leaves it there); empty but on the error paths.
    pub unsent: Vec<u64>,
    /// When the kernel first refused what is in `unsent`.
    busy_since: Option<Instant>,
}

impl Flight {
    pub fn new(depth: usize) -> Flight {
        let idle = InFlight {
            offset: 0,
            op: Op::Read,
            linked: false,
            write_counted: false,
            unsynced: false,
            write_done: false,
            start: Instant::now(),
            due: None,
            continued: 0,
            seq: u64::MAX,
        };
        Flight {
            meta: vec![idle; depth],
            free: (0..depth).rev().collect(),
            cancelling: false,
            unsent: Vec::new(),
            busy_since: None,
        }
    }

    /// Slots holding a request (sent or still queued).
    pub fn in_flight(&self) -> usize {
        self.meta.len() - self.free.len()
    }

    /// Slots with a request in the kernel: in flight, less those whose request is still
    /// queued, or whose write is done and whose sync is.
    fn in_kernel(&self) -> usize {
        let waiting = |t: u64| match t & SYNC_TAG {
            _ if t == CANCEL_TAG => false,
            0 => true,
            _ => self.meta[(t & !SYNC_TAG) as usize].write_done,
        };
        self.in_flight() - self.unsent.iter().filter(|&&t| waiting(t)).count()
    }

    /// The kernel takes the queue in order: of `unsent`, the last `queued` are left.
    pub fn trim_unsent(&mut self, queued: usize) {
        let taken = self.unsent.len().saturating_sub(queued);
        self.unsent.drain(..taken);
    }
}

/// What made a worker leave its ring: the call, what it was doing, the error.
#[derive(Debug)]
pub struct Failure {
    /// The system call: "io_uring_setup" or "io_uring_enter".
    pub call: &'static str,
    /// What the call was for, in words.
    pub doing: &'static str,
    pub error: io::Error,
}

impl Failure {
    pub(super) fn setup(error: io::Error) -> Failure {
        Failure {
            call: "io_uring_setup",
            doing: "building this thread's ring",
            error,
        }
    }

    pub(super) fn enter(error: io::Error, call: Call) -> Failure {
        let doing = match call {
            Call::Submit => "submitting a request",
            Call::Wait | Call::Hold => "waiting for completions",
            Call::Cancel => "cancelling the requests in flight",
        };
        Failure {
            call: "io_uring_enter",
            doing,
            error,
        }
    }
}

/// The kernel took less than was queued: reaps what has completed (waiting for a completion
/// when the kernel holds a request, else a millisecond), then submits the rest again. Fails
/// when the kernel is still busy after `BUSY_FOR`, or fails otherwise.
pub(super) fn retry_busy(
    r: &mut Ring,
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    f: &mut Flight,
) -> Result<(), Failure> {
    let since = *f.busy_since.get_or_insert_with(Instant::now);
    let call = if f.unsent.contains(&CANCEL_TAG) {
        Call::Cancel
    } else {
        Call::Submit
    };
    if since.elapsed() > BUSY_FOR {
        let e = io::Error::from_raw_os_error(nix::libc::EAGAIN);
        return Err(Failure::enter(e, call));
    }
    if f.in_kernel() > 0 {
        match r.wait_reaping(Duration::from_millis(2)) {
            Err(e) if !ring::busy(&e) => return Err(Failure::enter(e, Call::Wait)),
            _ => reap(r, w, slot, control, f),
        }
    } else {
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = r.submit(call);
    f.trim_unsent(r.queued());
    sent.map_err(|e| Failure::enter(e, call))?;
    if f.unsent.is_empty() {
        f.busy_since = None;
    }
    Ok(())
}

/// Leaves the ring after a failure with nothing of this worker's in flight: cancels what the
/// kernel holds (sending what is queued with the cancellation, so it is cancelled too; a
/// polled ring takes no cancellation, and what it holds is reaped as it completes), takes
/// back what stays queued (never sent: cancelled), and reaps until no slot is in flight.
/// Returns how many requests the kernel may still hold, counted `unfinished`: 0 unless
/// reaping failed or outlasted `WIND_DOWN`, and then the ring and the buffers must be kept.
pub(super) fn wind_down(
    r: &mut Ring,
    w: &mut Worker,
    slot: &WorkerSlot,
    control: &Control,
    f: &mut Flight,
) -> usize {
    if f.in_kernel() > 0 && !r.polled {
        f.cancelling = true;
        f.unsent.push(CANCEL_TAG);
        let _ = r.cancel_all();
        f.trim_unsent(r.queued());
    }
    take_back_unsent(w, slot, control, f);
    let deadline = Instant::now() + WIND_DOWN;
    let mut failed = 0;
    while f.in_flight() > 0 && Instant::now() < deadline && failed < WAIT_FAILURES {
        match r.wait_reaping(Duration::from_millis(100)) {
            Err(e) if !ring::busy(&e) => failed += 1,
            _ if r.held() => failed += 1,
            _ => {
                failed = 0;
                reap(r, w, slot, control, f);
                continue;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let left = f.in_flight();
    w.local.unfinished += left as u64;
    w.kernel_holds = left;
    w.flush(slot);
    left
}

/// What stays queued is never handed to the kernel now: a slot whose request is queued is
/// free, the request cancelled; a write whose sync is queued counts as cancelled when it
/// completes.
fn take_back_unsent(w: &mut Worker, slot: &WorkerSlot, control: &Control, f: &mut Flight) {
    let unsent = std::mem::take(&mut f.unsent);
    for &tag in unsent.iter().filter(|&&t| t != CANCEL_TAG) {
        let i = (tag & !SYNC_TAG) as usize;
        let sync_only = tag & SYNC_TAG != 0 && !unsent.contains(&(i as u64));
        if sync_only && !f.meta[i].write_done {
            // Its write is in the kernel: when it completes it frees the slot, as cancelled.
            f.meta[i].linked = false;
            f.meta[i].unsynced = true;
            continue;
        }
        if tag & SYNC_TAG != 0 && !sync_only {
            continue; // the slot's request is taken back with its own tag
        }
        f.free.push(i);
        let m = f.meta[i];
        let timing = Timing::of(m.start, m.due, Instant::now());
        w.settle(
            slot,
            control,
            Outcome::Cancelled,
            m.op,
            m.offset,
            false,
            timing,
        );
    }
}
