//! Trims (`--trim`): discarding a block of a block device. With psync, the BLKDISCARD ioctl
//! on the worker's descriptor, as fio's sync engines trim; with io_uring, the block layer's
//! discard command (`IORING_OP_URING_CMD` with `BLOCK_URING_CMD_DISCARD`, Linux 6.12), which
//! runs asynchronously beside the reads and writes in flight. A ring finds out once whether
//! the kernel has the command (`probe`); where it does not, each trim of that ring is a
//! BLKDISCARD from the worker's thread, in between its submissions. Both need the
//! descriptor open for writing, which a run that may trim has (a trim is a write). A
//! discard points at no memory: the kernel holds no buffer of the worker's for it.

use std::io;
use std::os::fd::RawFd;

use std::time::Instant;

use io_uring::{IoUring, opcode, squeue, types};

use super::op::Op;
use super::stops;
use super::worker::{Control, Outcome, Timing, Worker, WorkerSlot};

/// BLKDISCARD: `_IO(0x12, 119)`, its argument a pointer to `[start, length]` in bytes.
const BLKDISCARD: nix::libc::c_ulong = 0x1277;
/// `BLOCK_URING_CMD_DISCARD` of linux/blkdev.h: `_IO(0x12, 0)`.
const BLOCK_URING_CMD_DISCARD: u32 = 0x1200;
/// A test seam: `1` makes every ring find no io_uring discard, so the BLKDISCARD fallback
/// of the ring path runs on a kernel that has the command.
pub const NO_URING_DISCARD_ENV: &str = "DISKSCOPE_NO_URING_DISCARD";

/// Discards `len` bytes at `offset` of the block device open as `fd` (BLKDISCARD).
pub fn blkdiscard(fd: RawFd, offset: u64, len: u64) -> io::Result<()> {
    let range: [u64; 2] = [offset, len];
    // SAFETY: BLKDISCARD reads two u64s from the pointer, which `range` holds for the call.
    let rc = unsafe { nix::libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The io_uring entry that discards `len` bytes at `offset` on `target`: the start in the
/// entry's `addr`, the length in its first command word (`addr3`).
pub fn uring_entry(target: Target, offset: u64, len: u64) -> squeue::Entry {
    let mut cmd = [0u8; 16];
    cmd[..8].copy_from_slice(&len.to_ne_bytes());
    match target {
        Target::Fixed => opcode::UringCmd16::new(types::Fixed(0), BLOCK_URING_CMD_DISCARD),
        Target::Fd(fd) => opcode::UringCmd16::new(types::Fd(fd), BLOCK_URING_CMD_DISCARD),
    }
    .addr(Some(offset))
    .cmd(cmd)
    .build()
}

/// Which file an entry names: the ring's registered one, or a plain descriptor.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Fixed,
    Fd(RawFd),
}

/// Whether `ring` (empty: nothing in flight) can discard through io_uring: a discard of zero
/// bytes is sent and waited for. A kernel with the command validates the range and refuses
/// the empty one (EINVAL), discarding nothing; one without it refuses the command itself
/// (EOPNOTSUPP).
pub fn probe(ring: &mut IoUring, target: Target) -> bool {
    if std::env::var(NO_URING_DISCARD_ENV).is_ok_and(|v| v == "1") {
        return false;
    }
    let entry = uring_entry(target, 0, 0).user_data(PROBE_TAG);
    // SAFETY: the entry points at no memory.
    if unsafe { ring.submission().push(&entry) }.is_err() || ring.submit_and_wait(1).is_err() {
        return false;
    }
    let mut answer = None;
    for cqe in ring.completion() {
        if cqe.user_data() == PROBE_TAG {
            answer = Some(cqe.result());
        }
    }
    matches!(answer, Some(0)) || answer == Some(-nix::libc::EINVAL)
}

/// The probe's `user_data`: no slot's.
const PROBE_TAG: u64 = u64::MAX - 1;

impl Worker {
    /// One trim done at once on a ring without io_uring's discard: issued, BLKDISCARD'd and
    /// counted here, between the ring's submissions, taking no slot.
    pub(super) fn trim_now(
        &mut self,
        slot: &WorkerSlot,
        control: &Control,
        fd: RawFd,
        offset: u64,
    ) {
        let due = self.issue(slot);
        let continued = stops::continued();
        let len = self.settings.bs;
        let start = Instant::now();
        let outcome = match blkdiscard(fd, offset, len) {
            Ok(()) => Outcome::Full(len),
            Err(e) => Outcome::Failed(e, "trim"),
        };
        let end = Instant::now();
        let stopped = stops::continued() != continued;
        let timing = Timing::of(start, due, end);
        self.settle(slot, control, outcome, Op::Trim, offset, stopped, timing);
        self.maybe_flush(slot, end);
    }
}
