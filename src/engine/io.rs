//! The seam between the workers and the target: positional reads and writes on one worker's
//! own descriptor. The real implementation is a `File` (pread/pwrite through std's `FileExt`);
//! tests plug in targets that fail with chosen errnos, which a healthy disk cannot produce.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// One worker's handle on the target.
pub trait BlockIo: Send {
    /// Reads into `buf` at byte `offset`; returns the bytes read (fewer at end of file).
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// Writes `buf` at byte `offset`; returns the bytes written.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize>;
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
}

/// Opens a fresh, independent handle on the target for each new worker (no shared file
/// offset or descriptor state between threads).
pub trait IoOpener: Send + Sync {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>>;
}
