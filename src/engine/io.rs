//! The seam between the workers and the target: positional reads, writes and discards on one
//! worker's own descriptor, the fdatasync of `--fsync`, and how much written data the page cache still
//! holds for it. The real implementation is a `File` (pread/pwrite through std's `FileExt`,
//! fdatasync, cachestat); tests plug in targets that fail with chosen errnos, which a healthy
//! disk cannot produce.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileExt;

/// One worker's handle on the target.
pub trait BlockIo: Send {
    /// Reads into `buf` at byte `offset`; returns the bytes read (fewer at end of file).
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// Writes `buf` at byte `offset`; returns the bytes written.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize>;
    /// Forces written data to stable storage (fdatasync). A target with no cache of its own
    /// (a test double) has nothing to do.
    fn sync_data(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Bytes of the target the page cache holds dirty or under writeback: written, not yet on
    /// the device. `None` when it cannot be known (no cachestat before Linux 6.5).
    fn pending_writeback_bytes(&self) -> Option<u64> {
        None
    }
    /// Discards `len` bytes at `offset` (`--trim`): BLKDISCARD on a block device. A target
    /// that cannot (a test double) says so.
    fn discard(&mut self, offset: u64, len: u64) -> io::Result<()> {
        let _ = (offset, len);
        Err(io::Error::from_raw_os_error(nix::libc::EOPNOTSUPP))
    }
    /// The descriptor the io_uring engine submits on. `None` (test doubles): the worker
    /// drives this handle through `read_at`/`write_at`, one I/O at a time.
    fn raw_fd(&self) -> Option<RawFd> {
        None
    }
}

impl BlockIo for File {
    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        FileExt::read_at(self, buf, offset)
    }
    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        FileExt::write_at(self, buf, offset)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        File::sync_data(self)
    }
    fn pending_writeback_bytes(&self) -> Option<u64> {
        cachestat_pending(self)
    }
    fn discard(&mut self, offset: u64, len: u64) -> io::Result<()> {
        super::discard::blkdiscard(self.as_raw_fd(), offset, len)
    }
    fn raw_fd(&self) -> Option<RawFd> {
        Some(self.as_raw_fd())
    }
}

/// cachestat(2)'s number. Every syscall added since Linux 5.1 (number 424) has one number
/// on all architectures but alpha, which is not a target here; the libc crate does not name
/// it for every architecture yet.
const SYS_CACHESTAT: nix::libc::c_long = 451;

/// `struct cachestat_range` of cachestat(2): off 0, len 0 means the whole file.
#[repr(C)]
struct CachestatRange {
    off: u64,
    len: u64,
}

/// `struct cachestat` of cachestat(2), counts in pages.
#[repr(C)]
#[derive(Default)]
struct Cachestat {
    nr_cache: u64,
    nr_dirty: u64,
    nr_writeback: u64,
    nr_evicted: u64,
    nr_recently_evicted: u64,
}

/// Dirty plus under-writeback bytes of `file` in the page cache, from cachestat(2) (Linux 6.5;
/// the same syscall number on every architecture, as all syscalls added since 5.1 have).
fn cachestat_pending(file: &File) -> Option<u64> {
    let range = CachestatRange { off: 0, len: 0 };
    let mut stat = Cachestat::default();
    // SAFETY: both pointers are to live, correctly laid out structs for the call's duration.
    let rc = unsafe {
        nix::libc::syscall(
            SYS_CACHESTAT,
            file.as_raw_fd(),
            &range as *const CachestatRange,
            &mut stat as *mut Cachestat,
            0u32,
        )
    };
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()?;
    (rc == 0).then(|| (stat.nr_dirty + stat.nr_writeback) * page as u64)
}

/// Opens a fresh, independent handle on the target for each new worker (no shared file
/// offset or descriptor state between threads).
pub trait IoOpener: Send + Sync {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>>;
}
