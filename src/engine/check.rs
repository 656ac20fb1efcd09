//! `--verify` as the engine sees it: a `Checker` the front door plugs in (the stamps live in
//! `verify`, above the engine), and each worker's backlog of its own writes to read back.
//! With a checker, every write is stamped in its buffer instead of scrambled, and once it
//! completes whole its offset and sequence join the worker's backlog; a read takes the oldest
//! entry of the backlog instead of a new offset while there is one, and every I/O does when
//! the backlog holds `BACKLOG` (fio's `verify_backlog`: a pure-write run reads back every
//! write, at most `BACKLOG` behind). A read of a backlog entry is checked in place when it
//! completes whole; what fails is kept with the run's other errors (offset, what was found).
//! The backlog is preallocated and cleared at every change of settings (the block size may
//! change): no allocation, no lock per I/O.

use std::collections::VecDeque;

use super::account::keep_error;
use super::op::Op;
use super::worker::{Control, Worker, WorkerSlot, scramble};

/// Writes a worker keeps to read back, at most.
pub const BACKLOG: usize = 32;

/// What the front door plugs in: one `WorkerCheck` per worker.
pub trait Checker: Send + Sync {
    /// The stamper and checker of worker `index`.
    fn worker(&self, index: usize) -> Box<dyn WorkerCheck>;
}

/// One worker's stamper and checker: its own state, never shared per I/O.
pub trait WorkerCheck: Send {
    /// Stamps `buf`, about to be written at `offset`; returns the write's sequence number.
    fn stamp(&mut self, buf: &mut [u8], offset: u64) -> u64;
    /// A stamped write of `bytes` completed whole.
    fn wrote(&mut self, _bytes: u64) {}
    /// Checks `buf`, read back at `offset`, written with sequence `seq` by this worker;
    /// returns the first bad unit's offset and what it holds, if any.
    fn check(&mut self, buf: &[u8], offset: u64, seq: u64) -> Option<(u64, String)>;
    /// Hands over what it found (off the per-I/O path, with the worker's counts).
    fn flush(&mut self);
}

/// A worker's checker and its backlog.
pub struct Verifier {
    pub check: Box<dyn WorkerCheck>,
    backlog: VecDeque<(u64, u64)>,
}

impl Verifier {
    pub fn new(check: Box<dyn WorkerCheck>) -> Verifier {
        Verifier {
            check,
            backlog: VecDeque::with_capacity(BACKLOG),
        }
    }

    /// The write to read back now, if this I/O is to be a verify read: a read while the
    /// backlog holds anything, any I/O when it is full. Returns (offset, sequence).
    #[inline]
    pub fn next_read(&mut self, is_read: bool) -> Option<(u64, u64)> {
        if self.backlog.len() >= BACKLOG || is_read {
            self.backlog.pop_front()
        } else {
            None
        }
    }

    /// A write that completed whole, to read back later.
    #[inline]
    pub fn written(&mut self, offset: u64, seq: u64) {
        if self.backlog.len() < BACKLOG {
            self.backlog.push_back((offset, seq));
        }
    }

    /// Forgets the backlog (new settings: the block size may have changed).
    pub fn clear(&mut self) {
        self.backlog.clear();
    }
}

impl Worker {
    /// Makes buffer `i` ready for the I/O at `offset`: a write is stamped (with a checker) or
    /// scrambled; returns the write's sequence number, or for a read the sequence of the
    /// write it reads back (`u64::MAX`: an ordinary read).
    #[inline]
    pub(super) fn prepare(&mut self, i: usize, op: Op, offset: u64) -> u64 {
        match op {
            Op::Read => return self.expect.take().unwrap_or(u64::MAX),
            Op::Trim => return u64::MAX, // no data: nothing to stamp or scramble
            Op::Write => {}
        }
        match &mut self.verifier {
            Some(v) => v.check.stamp(self.bufs.get_mut(i), offset),
            None => {
                scramble(self.bufs.get_mut(i), &mut self.rng);
                0
            }
        }
    }

    /// After an I/O on buffer `i` that moved the whole block: a stamped write joins the
    /// backlog, a read of a write is checked; what fails is kept with the run's errors.
    #[inline]
    pub(super) fn after_io(
        &mut self,
        control: &Control,
        slot: &WorkerSlot,
        i: usize,
        op: Op,
        offset: u64,
        seq: u64,
    ) {
        let Some(v) = &mut self.verifier else {
            return;
        };
        if op == Op::Write {
            v.check.wrote(self.bufs.get_mut(i).len() as u64);
            v.written(offset, seq);
        } else if op == Op::Read
            && seq != u64::MAX
            && let Some((at, what)) = v.check.check(self.bufs.get_mut(i), offset, seq)
        {
            keep_error(control, slot.id, "verify", at, None, || what);
        }
    }

    /// Hands over what the checker found (with the counts, every `FLUSH_EVERY`).
    pub(super) fn flush_check(&mut self) {
        if let Some(v) = &mut self.verifier {
            v.check.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing;
    impl WorkerCheck for Nothing {
        fn stamp(&mut self, _: &mut [u8], _: u64) -> u64 {
            0
        }
        fn check(&mut self, _: &[u8], _: u64, _: u64) -> Option<(u64, String)> {
            None
        }
        fn flush(&mut self) {}
    }

    #[test]
    fn reads_take_the_oldest_write_and_a_full_backlog_forces_one() {
        let mut v = Verifier::new(Box::new(Nothing));
        assert_eq!(v.next_read(true), None, "nothing written yet");
        v.written(4096, 1);
        v.written(8192, 2);
        assert_eq!(
            v.next_read(false),
            None,
            "a write goes on while there is room"
        );
        assert_eq!(v.next_read(true), Some((4096, 1)));
        for i in 0..BACKLOG as u64 {
            v.written(i * 4096, i);
        }
        assert_eq!(
            v.next_read(false),
            Some((8192, 2)),
            "full: the next I/O reads back"
        );
        v.clear();
        assert_eq!(v.next_read(true), None);
    }
}
