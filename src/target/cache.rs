//! How much of a target sits in the page cache right now (like fincore), and evicting it.
//! Only matters for --buffered runs, where cached blocks are served from memory and the
//! numbers stop being the disk's.

use std::fs::File;
use std::num::NonZeroUsize;
use std::os::fd::AsFd;

use nix::fcntl::{PosixFadviseAdvice, posix_fadvise};
use nix::sys::mman::{MapFlags, ProtFlags, mmap, munmap};

/// Bytes mapped and checked at a time, to keep mincore's result vector small.
const WINDOW: u64 = 1 << 30;

/// Bytes of the first `len` bytes of `file` that are in the page cache.
pub fn cached_bytes(file: &File, len: u64) -> nix::Result<u64> {
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .unwrap_or(4096) as u64;
    let mut cached = 0u64;
    let mut offset = 0u64;
    while offset < len {
        let n = (len - offset).min(WINDOW);
        let Some(map_len) = NonZeroUsize::new(n as usize) else {
            break;
        };
        // SAFETY: a read-only shared mapping of a file we hold open; it is only passed to
        // mincore (which reads page-table state, not the memory) and unmapped below.
        let addr = unsafe {
            mmap(
                None,
                map_len,
                ProtFlags::PROT_READ,
                MapFlags::MAP_SHARED,
                file.as_fd(),
                offset as i64,
            )?
        };
        let pages = n.div_ceil(page) as usize;
        let mut vec = vec![0u8; pages];
        // SAFETY: addr/len describe the mapping just created; vec holds one byte per page.
        let rc = unsafe { nix::libc::mincore(addr.as_ptr(), n as usize, vec.as_mut_ptr()) };
        // SAFETY: unmapping exactly the region mapped above.
        let _ = unsafe { munmap(addr, n as usize) };
        if rc != 0 {
            return Err(nix::errno::Errno::last());
        }
        cached += vec.iter().filter(|&&b| b & 1 == 1).count() as u64 * page;
        offset += n;
    }
    Ok(cached.min(len))
}

/// Asks the kernel to drop the file's (or device's) cached pages. Dirty pages cannot be
/// dropped, so they are written back first (fdatasync works on a read-only descriptor).
pub fn drop_cache(file: &File) -> nix::Result<()> {
    nix::unistd::fdatasync(file)?;
    posix_fadvise(file, 0, 0, PosixFadviseAdvice::POSIX_FADV_DONTNEED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn reading_a_file_caches_it_and_dropping_evicts_it() {
        let mut f = tempfile::NamedTempFile::new_in(".").unwrap();
        f.write_all(&vec![7u8; 4 << 20]).unwrap();
        f.as_file().sync_all().unwrap();
        let file = f.reopen().unwrap();
        drop_cache(&file).unwrap();
        let after_drop = cached_bytes(&file, 4 << 20).unwrap();
        let mut buf = Vec::new();
        (&file).read_to_end(&mut buf).unwrap();
        let after_read = cached_bytes(&file, 4 << 20).unwrap();
        assert_eq!(after_read, 4 << 20);
        assert!(after_drop < after_read, "{after_drop} vs {after_read}");
    }
}
