//! How one finished I/O is counted by its worker: a complete one as an op with its bytes and
//! latency (from submission, or with a rate from its due time, the service time kept apart);
//! a short, failed or cancelled one apart, the first few with their offset and errno; one the
//! process was stopped during as neither. Shared by the psync and io_uring loops, so both
//! count alike. Touches only the worker's own counters, and the shared list of kept errors
//! while it is not full.

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use super::control::{Control, WorkerSlot};
use super::op::Op;
use super::worker::Worker;
use crate::stats::IoErrorRecord;

/// How many failed or short I/Os a run keeps in detail.
pub const KEPT_ERRORS: usize = 16;

/// How one I/O ended.
pub enum Outcome {
    /// All bytes transferred (and synced, when due): how many, which is the block size the
    /// I/O was submitted with (counted as such, so an I/O of an old block size counted under
    /// new settings would show as bytes ≠ ops × bs).
    Full(u64),
    /// Fewer bytes than asked: not an op.
    Short(usize),
    /// An errno, from the transfer or from the fdatasync after it.
    Failed(std::io::Error, &'static str),
    /// Cancelled at the end of the run before it finished (or, for a write, before its sync
    /// did): not an op and not an error.
    Cancelled,
}

/// How long one I/O took: from submission, and with a rate from when it was due.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
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

impl Worker {
    /// Counts how one I/O ended: a complete one as an op with its latency (unless the process
    /// was stopped while it ran: its latency would be mostly the stop); a short or failed one
    /// apart, with its offset and errno; a cancelled one as cancelled.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn settle(
        &mut self,
        slot: &WorkerSlot,
        control: &Control,
        outcome: Outcome,
        op: Op,
        offset: u64,
        stopped: bool,
        timing: Timing,
    ) {
        self.local.busy_ns += timing.service.as_nanos() as u64;
        match outcome {
            Outcome::Full(_) if stopped => self.local.spanning_stop += 1,
            Outcome::Full(n) => self.count_full(op, n, timing),
            Outcome::Short(n) => {
                self.local.short_ios += 1;
                let want = self.settings.bs;
                let op = op.name();
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
            Outcome::Cancelled => self.local.cancelled += 1,
        }
    }

    /// Counts one complete I/O: an op, its bytes, its latency (and with a rate its service
    /// time apart).
    #[inline]
    fn count_full(&mut self, op: Op, n: u64, timing: Timing) {
        let service = timing.service.as_nanos() as u64;
        let ns = match timing.from_due {
            Some(d) => {
                self.service_batch.push(service);
                d.as_nanos() as u64
            }
            None => service,
        };
        // The direction rides in the latency's top bits: the sampler splits reads, writes
        // and trims with no second batch (see `stats::sides`).
        self.batch.push(op.tag(ns));
        self.latency_sum_ns += ns;
        self.local.ops += 1;
        self.local.bytes += n;
        let l = &mut self.local;
        let (ops, bytes) = match op {
            Op::Read => (&mut l.read_ops, &mut l.read_bytes),
            Op::Write => (&mut l.write_ops, &mut l.write_bytes),
            Op::Trim => (&mut l.trim_ops, &mut l.trim_bytes),
        };
        *ops += 1;
        *bytes += n;
    }
}

/// Keeps the details of a failed or short I/O (`op`: "read", "write", "trim" or "fdatasync") while
/// fewer than `KEPT_ERRORS` are kept.
#[cold]
pub(super) fn keep_error(
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

/// "I/O error" rather than std's "Input/output error (os error 5)": the errno is kept apart.
pub(super) fn describe_io_error(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => nix::errno::Errno::from_raw(n).desc().to_string(),
        None => e.to_string(),
    }
}
