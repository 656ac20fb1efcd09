//! Which bytes of a file are really on the disk. A hole (never written) and an unwritten
//! extent (reserved by `fallocate` but never written) both read back as zeros that the
//! filesystem makes up without touching the disk, so a benchmark over them measures nothing.
//! This module asks the filesystem for the file's extent map (the FIEMAP ioctl, as
//! `filefrag` does; see the kernel's Documentation/filesystems/fiemap.rst) and falls back to
//! `lseek(SEEK_DATA/SEEK_HOLE)` where FIEMAP is not supported (tmpfs), which finds holes but
//! cannot see unwritten extents. It only reads the map; it never changes the file.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use nix::libc;
use nix::unistd::{Whence, lseek};

/// How much of `[0, len)` of a file is holes and how much is unwritten extents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Allocation {
    /// Bytes with no extent at all (read as zeros).
    pub hole_bytes: u64,
    /// Bytes in extents flagged FIEMAP_EXTENT_UNWRITTEN (allocated, read as zeros).
    pub unwritten_bytes: u64,
    /// Whether unwritten extents could be seen at all (false on the SEEK_HOLE fallback).
    pub unwritten_known: bool,
}

/// The allocation of `[0, len)` of `file`: FIEMAP when the filesystem supports it, else
/// SEEK_DATA/SEEK_HOLE; an error when neither works.
pub fn allocation(file: &File, len: u64) -> io::Result<Allocation> {
    match fiemap_allocation(file, len) {
        Ok(a) => Ok(a),
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => seek_allocation(file, len),
        Err(e) => Err(e),
    }
}

/// `_IOWR('f', 11, struct fiemap)`: the header below is 32 bytes.
// The request's type is the C library's (unsigned long in glibc, int in musl); the kernel
// reads it as an unsigned int, so the bits are what matter.
const FS_IOC_FIEMAP: libc::Ioctl = 0xC020_660Bu32 as libc::Ioctl;
const FIEMAP_FLAG_SYNC: u32 = 0x1;
const FIEMAP_EXTENT_LAST: u32 = 0x1;
const FIEMAP_EXTENT_UNWRITTEN: u32 = 0x800;
/// Extents asked for per ioctl call.
const BATCH: usize = 128;

/// `struct fiemap_extent` of linux/fiemap.h (56 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct FiemapExtent {
    fe_logical: u64,
    fe_physical: u64,
    fe_length: u64,
    fe_reserved64: [u64; 2],
    fe_flags: u32,
    fe_reserved: [u32; 3],
}

/// `struct fiemap` with room for `BATCH` extents after its header.
#[repr(C)]
struct Fiemap {
    fm_start: u64,
    fm_length: u64,
    fm_flags: u32,
    fm_mapped_extents: u32,
    fm_extent_count: u32,
    fm_reserved: u32,
    fm_extents: [FiemapExtent; BATCH],
}

fn fiemap_allocation(file: &File, len: u64) -> io::Result<Allocation> {
    let mut out = Allocation {
        unwritten_known: true,
        ..Allocation::default()
    };
    let mut pos = 0u64;
    let mut mapped = 0u64;
    while pos < len {
        let mut map = Fiemap {
            fm_start: pos,
            fm_length: len - pos,
            // Delayed-allocation data is flushed first, so it shows as the extent it becomes.
            fm_flags: FIEMAP_FLAG_SYNC,
            fm_mapped_extents: 0,
            fm_extent_count: BATCH as u32,
            fm_reserved: 0,
            fm_extents: [FiemapExtent::default(); BATCH],
        };
        // SAFETY: FS_IOC_FIEMAP reads the header and writes at most fm_extent_count extents
        // into fm_extents, which has exactly that many; `map` lives across the call.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP, &mut map as *mut Fiemap) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = (map.fm_mapped_extents as usize).min(BATCH);
        if n == 0 {
            break;
        }
        let mut last = false;
        for e in &map.fm_extents[..n] {
            let start = e.fe_logical.max(pos).min(len);
            let end = e.fe_logical.saturating_add(e.fe_length).min(len);
            let bytes = end.saturating_sub(start);
            mapped += bytes;
            if e.fe_flags & FIEMAP_EXTENT_UNWRITTEN != 0 {
                out.unwritten_bytes += bytes;
            }
            pos = pos.max(end);
            last |= e.fe_flags & FIEMAP_EXTENT_LAST != 0;
        }
        if last {
            break;
        }
    }
    out.hole_bytes = len - mapped.min(len);
    Ok(out)
}

/// Holes by SEEK_DATA/SEEK_HOLE; unwritten extents stay unknown.
fn seek_allocation(file: &File, len: u64) -> io::Result<Allocation> {
    let fd = file;
    let mut data = 0u64;
    let mut pos = 0i64;
    let end = i64::try_from(len).unwrap_or(i64::MAX);
    while pos < end {
        let start = match lseek(fd, pos, Whence::SeekData) {
            Ok(s) => s,
            Err(nix::errno::Errno::ENXIO) => break,
            Err(e) => return Err(e.into()),
        };
        if start >= end {
            break;
        }
        let stop = lseek(fd, start, Whence::SeekHole)?.min(end);
        data += (stop - start) as u64;
        pos = stop;
    }
    Ok(Allocation {
        hole_bytes: len - data.min(len),
        unwritten_bytes: 0,
        unwritten_known: false,
    })
}
