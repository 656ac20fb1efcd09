//! One worker's io_uring: building it, registering its file and buffers, capping the kernel's
//! io-wq workers behind it, the submission entries the worker queues (reads, writes, the
//! datasync of `--fsync`, the cancellation at the end of a run), and the calls that submit and
//! wait. The loop that uses it is `uring`; nothing here counts or times an I/O.
//!
//! io-wq: a request the kernel cannot start without blocking (a block device whose request
//! tags are all taken, an fsync) is handed to the ring's io-wq, a pool of kernel threads of
//! this process. By default a pool grows to min(ring entries, 4 × CPUs) threads for such
//! "bounded" work: `-t 1024 -Q 256` on 2 CPUs ran 8,126 threads, most of them io-wq workers
//! blocked on a device queue that holds a few hundred requests anyway. `iowq_bounded_cap`
//! shares the kernel's own default out among the threads instead
//! (`IORING_REGISTER_IOWQ_MAX_WORKERS`, Linux 5.15).

use std::io;
use std::os::fd::RawFd;

use io_uring::{IoUring, opcode, squeue, types};

use super::discard;
use super::op::Op;
use super::ring_fault::{Call, Faults};
use super::worker::Worker;

/// Registered buffers (ReadFixed/WriteFixed): the kernel maps the pages once instead of at
/// every I/O. Falls back to plain reads and writes when registration is refused (the
/// RLIMIT_MEMLOCK of an unprivileged user).
const FIXED_BUFFERS: bool = true;
/// Registered file: the kernel skips the descriptor table lookup and reference count per I/O.
const FIXED_FILE: bool = true;

/// The `user_data` of the end-of-run cancellation; every other entry carries its slot.
pub(super) const CANCEL_TAG: u64 = u64::MAX;

/// The most io-wq workers for bounded work per ring with `threads` workers on `cpus` CPUs:
/// the kernel's per-ring default (4 per CPU) shared among the threads, at least one each. One
/// thread keeps the kernel's default; 1024 threads on 2 CPUs get one each.
pub fn iowq_bounded_cap(threads: usize, cpus: usize) -> u32 {
    let pool = 4 * cpus.max(1);
    pool.div_ceil(threads.max(1)).max(1) as u32
}

/// The CPUs this process may run on.
pub(super) fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One worker's ring and what is registered on it.
pub(super) struct Ring {
    pub ring: IoUring,
    /// The most requests (slots) the rings' queues were sized for.
    pub entries: usize,
    /// Set up with `IORING_SETUP_IOPOLL` (`hipri`): completions are polled for.
    pub polled: bool,
    fixed_file: bool,
    /// The `Worker::bufs_epoch` whose buffers are registered; None: plain reads and writes.
    registered: Option<u64>,
    /// The io-wq cap set, for the thread count it was set for.
    iowq_for_threads: Option<usize>,
    /// Whether the kernel takes a timeout with the wait (5.11+): with a rate, the worker then
    /// wakes for the next slot even while I/Os are in flight; without it, it submits the next
    /// slot after the next completion.
    pub ext_arg: bool,
    /// The test seam's faults (`ring_fault`); `None` in every real run.
    faults: Option<Faults>,
    /// Trims go through the ring (the kernel's block discard command, `discard::probe`);
    /// false: each is a BLKDISCARD from the worker's thread.
    pub uring_discard: bool,
}

/// How a hand-over to the kernel went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sent {
    /// Everything queued was taken.
    All,
    /// The kernel took less than was queued, or none (EAGAIN: it could not allocate a request;
    /// EBUSY: its completion queue overflowed). What is left stays queued: reap, then submit
    /// again.
    Busy,
}

/// `IORING_ENTER_GETEVENTS` and `IORING_ENTER_EXT_ARG` of io_uring_enter(2).
const ENTER_GETEVENTS: u32 = 1;
const ENTER_EXT_ARG: u32 = 8;

impl Ring {
    /// A ring for up to `slots` requests in flight, each a request or a linked write and
    /// sync. The submission queue holds one slot's pair left queued by a busy kernel plus the
    /// cancellation; the completion queue holds two completions per slot (a write and its
    /// sync, with `--fsync`) plus the cancellation's own, so it never overflows between reaps
    /// (an overflow makes the next submission fail with EBUSY).
    pub fn new(slots: usize, fd: RawFd, polled: bool, trim: bool) -> io::Result<Ring> {
        let faults = Faults::from_env()?;
        let sq = (slots + 2).next_power_of_two() as u32;
        let cq = (2 * slots + 1).next_power_of_two().max(sq as usize) as u32;
        // Only this thread submits, and it reaps in its own loop: no IPI per completion
        // (coop taskrun, single issuer; kernels before 6.0 refuse them, then plain). Measured
        // at T1 QD32 O_DIRECT, 3 pairs: 88-98k IOPS against 84-91k plain; defer taskrun
        // gained nothing more.
        // Polled (`hipri`), IORING_SETUP_IOPOLL: completions are polled from the device's
        // queue in io_uring_enter (the thread spins there instead of sleeping for an
        // interrupt). Such a wait takes no timeout: the kernel polls until a completion.
        let builder = || {
            let mut b = IoUring::builder();
            if polled {
                b.setup_iopoll();
            }
            b
        };
        let mut ring = builder()
            .setup_coop_taskrun()
            .setup_single_issuer()
            .setup_cqsize(cq)
            .build(sq)
            .or_else(|_| builder().setup_cqsize(cq).build(sq))?;
        let fixed_file = FIXED_FILE && ring.submitter().register_files(&[fd]).is_ok();
        let ext_arg = ring.params().is_feature_ext_arg() && !polled;
        let target = match fixed_file {
            true => discard::Target::Fixed,
            false => discard::Target::Fd(fd),
        };
        let uring_discard = trim && discard::probe(&mut ring, target);
        Ok(Ring {
            uring_discard,
            ext_arg,
            ring,
            polled,
            entries: slots,
            fixed_file,
            registered: None,
            iowq_for_threads: None,
            faults,
        })
    }

    /// The error the test seam injects into this call, if any.
    #[inline]
    fn fault(&mut self, call: Call) -> Option<io::Error> {
        self.faults.as_mut().and_then(|f| f.check(call))
    }

    /// Whether the test seam makes this round of reaping a failed ring find nothing.
    pub fn held(&mut self) -> bool {
        self.fault(Call::Hold).is_some()
    }

    /// Submission entries queued and not yet taken by the kernel.
    pub fn queued(&mut self) -> usize {
        self.ring.submission().len()
    }

    /// Caps the io-wq behind this ring for `threads` workers (once per thread count; a
    /// kernel without the call keeps its default).
    pub fn cap_iowq(&mut self, threads: usize) {
        if self.iowq_for_threads == Some(threads) {
            return;
        }
        self.iowq_for_threads = Some(threads);
        // [bounded, unbounded]; 0 leaves the unbounded (network, pipes) limit alone.
        let mut max = [iowq_bounded_cap(threads, cpus()), 0];
        let _ = self.ring.submitter().register_iowq_max_workers(&mut max);
    }

    /// Registers the worker's buffers if they changed since the last registration.
    pub fn register(&mut self, w: &mut Worker) {
        if !FIXED_BUFFERS || self.registered == Some(w.bufs_epoch) {
            return;
        }
        let sub = self.ring.submitter();
        if self.registered.take().is_some() {
            let _ = sub.unregister_buffers();
        }
        let iovecs: Vec<nix::libc::iovec> = (0..w.bufs.count())
            .map(|i| nix::libc::iovec {
                iov_base: w.bufs.slot_ptr(i).cast(),
                iov_len: w.bufs.len(),
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
    pub fn entry(&self, w: &Worker, fd: RawFd, i: usize, op: Op, offset: u64) -> squeue::Entry {
        // The slot's own pointer, not a slice of it: the kernel writes it once submitted.
        let (ptr, len) = (w.bufs.slot_ptr(i), w.bufs.len() as u32);
        let fixed = self.registered.is_some();
        let is_read = match op {
            Op::Read => true,
            Op::Write => false,
            Op::Trim => {
                let target = match self.fixed_file {
                    true => discard::Target::Fixed,
                    false => discard::Target::Fd(fd),
                };
                return discard::uring_entry(target, offset, u64::from(len)).user_data(i as u64);
            }
        };
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

    /// The fdatasync of `--fsync`, carrying `user_data`: `IORING_OP_FSYNC` with
    /// `IORING_FSYNC_DATASYNC`, as fio sends it.
    pub fn sync_entry(&self, fd: RawFd, user_data: u64) -> squeue::Entry {
        let e = if self.fixed_file {
            opcode::Fsync::new(types::Fixed(0))
        } else {
            opcode::Fsync::new(types::Fd(fd))
        };
        e.flags(types::FsyncFlags::DATASYNC)
            .build()
            .user_data(user_data)
    }

    /// Queues `entries` (a request, or a write with `IO_LINK` and its sync) and hands them to
    /// the kernel in one call, so a link holds. The caller leaves nothing queued before (it
    /// submits again after `Busy` before pushing more), and keeps at most `entries` slots in
    /// flight, so the queue has room.
    ///
    /// # Safety
    /// Whatever the entries point at (their buffer) must stay valid until their completions
    /// are reaped.
    pub unsafe fn push(&mut self, entries: &[squeue::Entry]) -> io::Result<Sent> {
        // SAFETY: the caller's promise.
        unsafe { self.ring.submission().push_multiple(entries) }
            .map_err(|_| io::Error::other("the submission queue is full"))?;
        self.submit(Call::Submit)
    }

    /// Hands the kernel what is queued: `Busy` when it took less (EAGAIN, EBUSY, a partial
    /// count), an error for anything else; a signal interrupting the call is retried.
    pub fn submit(&mut self, call: Call) -> io::Result<Sent> {
        let queued = self.queued();
        let got = match self.fault(call) {
            Some(e) => Err(e),
            None => loop {
                match self.ring.submit() {
                    Err(e) if e.raw_os_error() == Some(nix::libc::EINTR) => continue,
                    other => break other,
                }
            },
        };
        match got {
            Ok(n) if n >= queued => Ok(Sent::All),
            Ok(_) => Ok(Sent::Busy),
            Err(e) if busy(&e) => Ok(Sent::Busy),
            Err(e) => Err(e),
        }
    }

    /// Asks the kernel to cancel every request in flight on this ring (Linux 5.19): those not
    /// yet started complete with ECANCELED (EINTR for one an io-wq worker was running); those
    /// already at the device complete as usual. An older kernel fails the cancellation itself
    /// with EINVAL, and the requests complete as usual. Anything left queued is submitted with
    /// it (and so cancelled too).
    pub fn cancel_all(&mut self) -> io::Result<Sent> {
        let entry = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(CANCEL_TAG);
        // SAFETY: a cancellation points at no memory; the queue has room for it beside a
        // pair left queued (`new`).
        unsafe { self.ring.submission().push(&entry) }
            .map_err(|_| io::Error::other("the submission queue is full"))?;
        self.submit(Call::Cancel)
    }

    /// Waits for at least one completion, submitting nothing (what is left queued stays
    /// queued); with the kernel's timeout, at most `limit` (a polled ring, whose kernel takes
    /// no timeout, polls until then: `poll_until`). A signal or the timeout ending the wait
    /// is not an error; EAGAIN and EBUSY are returned (the caller retries).
    pub fn wait_reaping(&mut self, limit: std::time::Duration) -> io::Result<()> {
        if let Some(e) = self.fault(Call::Wait) {
            return Err(e);
        }
        if self.polled {
            return self.poll_until(std::time::Instant::now() + limit);
        }
        let got = if self.ext_arg {
            let ts = types::Timespec::from(limit);
            let args = types::SubmitArgs::new().timespec(&ts);
            // SAFETY: `args` lives across the call; nothing is submitted.
            unsafe {
                self.ring
                    .submitter()
                    .enter(0, 1, ENTER_GETEVENTS | ENTER_EXT_ARG, Some(&args))
            }
        } else {
            // SAFETY: no argument pointer; nothing is submitted.
            unsafe {
                self.ring
                    .submitter()
                    .enter::<nix::libc::sigset_t>(0, 1, ENTER_GETEVENTS, None)
            }
        };
        match got {
            Err(e) if matches!(e.raw_os_error(), Some(nix::libc::EINTR | nix::libc::ETIME)) => {
                Ok(())
            }
            other => other.map(drop),
        }
    }

    /// Waits for at least one completion; a signal (SIGCONT after a stop) interrupting the
    /// wait is not an error. Nothing is queued here (every push was taken or retried).
    pub fn wait(&mut self) -> io::Result<()> {
        if let Some(e) = self.fault(Call::Wait) {
            return Err(e);
        }
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(nix::libc::EINTR) => {
                    if !self.ring.completion().is_empty() {
                        return Ok(());
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits for a completion or until `due` (a rate's next slot), whichever comes first, but
    /// never longer than 2 ms so a change of settings is noticed.
    pub fn wait_until(&mut self, due: std::time::Instant) -> io::Result<()> {
        let wait = due
            .saturating_duration_since(std::time::Instant::now())
            .min(std::time::Duration::from_millis(2));
        if wait.is_zero() {
            return Ok(());
        }
        if let Some(e) = self.fault(Call::Wait) {
            return Err(e);
        }
        if self.polled {
            return self.poll_until(std::time::Instant::now() + wait);
        }
        let ts = types::Timespec::from(wait);
        let args = types::SubmitArgs::new().timespec(&ts);
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(nix::libc::ETIME | nix::libc::EINTR)) => {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

impl Ring {
    /// A polled ring's wait for a completion or `until`, whichever comes first: its kernel
    /// takes no timeout (it polls until a completion), so the thread polls the device's
    /// queue once per `io_uring_enter` (GETEVENTS with no minimum: one pass) and looks at the
    /// clock between passes. It spins, as polling does anyway.
    fn poll_until(&mut self, until: std::time::Instant) -> io::Result<()> {
        loop {
            // SAFETY: no argument pointer; nothing is submitted.
            let polled = unsafe {
                self.ring
                    .submitter()
                    .enter::<nix::libc::sigset_t>(0, 0, ENTER_GETEVENTS, None)
            };
            match polled {
                Err(e) if e.raw_os_error() != Some(nix::libc::EINTR) => return Err(e),
                _ if !self.ring.completion().is_empty() => return Ok(()),
                _ if std::time::Instant::now() >= until => return Ok(()),
                _ => std::hint::spin_loop(),
            }
        }
    }
}

/// Whether an error of io_uring_enter means "reap, then try again": EAGAIN (no memory for a
/// request just now) or EBUSY (completions waiting to be reaped).
pub(super) fn busy(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(nix::libc::EAGAIN | nix::libc::EBUSY))
}

#[cfg(test)]
mod tests {
    use super::{Ring, iowq_bounded_cap};

    /// With `--fsync` a slot completes twice (the write, then its sync) and the end's
    /// cancellation once more: the completion queue holds all of them between two reaps, at
    /// every depth (at a power of two, twice the submission queue of old did not).
    #[test]
    fn the_completion_queue_holds_two_per_slot_and_the_cancellation() {
        if super::super::ioengine::probe().is_err() {
            return;
        }
        let file = std::fs::File::open("/proc/self/exe").unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        for slots in [1, 2, 3, 4, 8, 31, 32, 256] {
            let r = Ring::new(slots, fd, false, false).unwrap();
            let p = r.ring.params();
            assert!(
                p.cq_entries() as usize > 2 * slots,
                "{slots}: {}",
                p.cq_entries()
            );
            assert!(
                p.sq_entries() as usize >= slots + 2,
                "{slots}: {}",
                p.sq_entries()
            );
        }
    }

    #[test]
    fn the_kernels_io_wq_default_is_shared_among_threads() {
        assert_eq!(iowq_bounded_cap(1, 2), 8, "one thread keeps 4 per CPU");
        assert_eq!(iowq_bounded_cap(4, 2), 2);
        assert_eq!(iowq_bounded_cap(3, 2), 3);
        assert_eq!(iowq_bounded_cap(1024, 2), 1, "at least one each");
        assert_eq!(iowq_bounded_cap(0, 0), 4);
    }
}
