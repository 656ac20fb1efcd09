//! The scratch file: what diskscope tests when given no device, so that one command works on
//! any machine. It is laid out full of random data — a sparse file would let reads return
//! zeros without touching the disk, and zeros compress — and removed when the run ends unless
//! the user asked to keep it. An existing scratch file of the right size is reused.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use nix::fcntl::{PosixFadviseAdvice, posix_fadvise};
use nix::libc;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::units::format_bytes;

const CHUNK: usize = 1 << 20;

/// A laid-out scratch file; removed on drop unless kept.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    keep: bool,
}

impl Scratch {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lays out (or reuses) `dir/name` with `size` bytes of random data. `progress(done,
    /// total)` is called after each MiB; `cancelled()` is polled so Ctrl-C can stop a long
    /// layout, in which case the partial file is removed.
    pub fn prepare(
        dir: &Path,
        name: &str,
        size: u64,
        keep: bool,
        progress: &mut dyn FnMut(u64, u64),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Scratch> {
        let path = dir.join(name);
        let shown = path.display();
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                bail!(
                    "{shown}: is a symbolic link; remove it or give another directory (diskscope never writes through links)"
                )
            }
            Ok(m) if !m.is_file() => bail!(
                "{shown}: exists and is not a regular file; remove it or give another directory"
            ),
            Ok(m) if m.len() == size && m.blocks() * 512 >= size => {
                return Ok(Scratch { path, keep });
            }
            _ => {}
        }
        let free = nix::sys::statvfs::statvfs(dir)
            .map(|s| s.blocks_available() * s.fragment_size())
            .map_err(|e| match e {
                nix::errno::Errno::ENOENT => {
                    anyhow::anyhow!("{}: no such directory", dir.display())
                }
                e => anyhow::anyhow!("{}: cannot read free space: {e}", dir.display()),
            })?;
        let existing = std::fs::metadata(&path)
            .map(|m| m.blocks() * 512)
            .unwrap_or(0);
        if free + existing < size {
            bail!(
                "{}: only {} free, the scratch file needs {}; free some space, use a smaller --size, or give another directory",
                dir.display(),
                format_bytes(free),
                format_bytes(size)
            );
        }
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => anyhow::anyhow!(
                    "{shown}: cannot create the scratch file ({e}); run in a writable directory or give one as TARGET"
                ),
                _ => anyhow::anyhow!("{shown}: cannot create the scratch file: {e}"),
            })?;
        // Until the layout succeeds, dropping the guard removes the partial file.
        let mut scratch = Scratch {
            path: path.clone(),
            keep: false,
        };
        fill(&file, size, progress, cancelled)
            .map_err(|e| anyhow::anyhow!("{shown}: laying out the scratch file: {e}"))?;
        scratch.keep = keep;
        Ok(scratch)
    }
}

fn fill(
    file: &File,
    size: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancelled: &dyn Fn() -> bool,
) -> std::io::Result<()> {
    file.set_len(0)?;
    let mut rng = SmallRng::from_rng(&mut rand::rng());
    let mut chunk = vec![0u8; CHUNK];
    let mut writer = file;
    let mut done = 0u64;
    while done < size {
        if cancelled() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted",
            ));
        }
        let n = (size - done).min(CHUNK as u64) as usize;
        rng.fill_bytes(&mut chunk[..n]);
        writer.write_all(&chunk[..n])?;
        done += n as u64;
        progress(done, size);
    }
    file.sync_all()?;
    // The data is on disk: drop it from the page cache so a --buffered run starts cold and
    // the cache is not left full of it.
    let _ = posix_fadvise(file, 0, 0, PosixFadviseAdvice::POSIX_FADV_DONTNEED);
    Ok(())
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
