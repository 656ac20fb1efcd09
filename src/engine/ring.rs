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
    pub entries: usize,
    fixed_file: bool,
    /// The `Worker::bufs_epoch` whose buffers are registered; None: plain reads and writes.
    registered: Option<u64>,
    /// The io-wq cap set, for the thread count it was set for.
    iowq_for_threads: Option<usize>,
    /// Whether the kernel takes a timeout with the wait (5.11+): with a rate, the worker then
    /// wakes for the next slot even while I/Os are in flight; without it, it submits the next
    /// slot after the next completion.
    pub ext_arg: bool,
}

impl Ring {
    pub fn new(depth: usize, fd: RawFd) -> io::Result<Ring> {
        // Each request is submitted as it is queued, so the submission queue is empty between
        // pushes and the cancellation at the end always finds room; the completion queue has
        // twice the entries, room for every request and the cancellation's own completion.
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
            iowq_for_threads: None,
        })
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
            .map(|i| {
                let b = w.bufs.get_mut(i);
                nix::libc::iovec {
                    iov_base: b.as_mut_ptr().cast(),
                    iov_len: b.len(),
                }
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
    pub fn entry(
        &self,
        w: &mut Worker,
        fd: RawFd,
        i: usize,
        is_read: bool,
        offset: u64,
    ) -> squeue::Entry {
        let buf = w.bufs.get_mut(i);
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

    /// Queues `entry` and hands it to the kernel. The caller keeps at most `entries`
    /// requests in flight, so the queue has room.
    ///
    /// # Safety
    /// Whatever the entry points at (its buffer) must stay valid until its completion is
    /// reaped.
    pub unsafe fn push(&mut self, entry: &squeue::Entry) -> io::Result<()> {
        // SAFETY: the caller's promise, and the queue is drained by every submit.
        unsafe { self.ring.submission().push(entry) }
            .map_err(|_| io::Error::other("the submission queue is full"))?;
        submit(&mut self.ring)
    }

    /// Queues a linked pair (the first entry carries `IO_LINK`) and hands both to the kernel
    /// in one call, so the link holds.
    ///
    /// # Safety
    /// As for `push`, for both entries.
    pub unsafe fn push_pair(
        &mut self,
        first: &squeue::Entry,
        second: &squeue::Entry,
    ) -> io::Result<()> {
        // SAFETY: the caller's promise; the queue is drained by every submit, and a ring holds
        // at least two entries when pairs are sent.
        unsafe {
            self.ring
                .submission()
                .push_multiple(&[first.clone(), second.clone()])
        }
        .map_err(|_| io::Error::other("the submission queue is full"))?;
        submit(&mut self.ring)
    }

    /// Asks the kernel to cancel every request in flight on this ring (Linux 5.19): those not
    /// yet started complete with ECANCELED (EINTR for one an io-wq worker was running); those
    /// already at the device complete as usual. An older kernel fails the cancellation itself
    /// with EINVAL, and the requests complete as usual.
    pub fn cancel_all(&mut self) -> io::Result<()> {
        let entry = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(CANCEL_TAG);
        // SAFETY: a cancellation points at no memory.
        unsafe { self.push(&entry) }
    }
}

/// Hands the kernel what was queued; a signal interrupting the call is retried.
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
pub(super) fn wait(ring: &mut IoUring) -> io::Result<()> {
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
pub(super) fn wait_until(ring: &mut IoUring, due: std::time::Instant) -> io::Result<()> {
    let wait = due
        .saturating_duration_since(std::time::Instant::now())
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

#[cfg(test)]
mod tests {
    use super::iowq_bounded_cap;

    #[test]
    fn the_kernels_io_wq_default_is_shared_among_threads() {
        assert_eq!(iowq_bounded_cap(1, 2), 8, "one thread keeps 4 per CPU");
        assert_eq!(iowq_bounded_cap(4, 2), 2);
        assert_eq!(iowq_bounded_cap(3, 2), 3);
        assert_eq!(iowq_bounded_cap(1024, 2), 1, "at least one each");
        assert_eq!(iowq_bounded_cap(0, 0), 4);
    }
}
