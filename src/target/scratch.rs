//! The scratch file: what diskscope tests when given no device, so that one command works on
//! any machine. It is laid out full of random data — a sparse or fallocated file would let
//! reads return zeros without touching the disk, and zeros compress.
//!
//! Several runs may meet in one directory, so the file is only ever touched under an
//! exclusive `flock` held for the whole run: a second run finds it held and stops with a clear
//! line, never truncating, laying out or removing it. A new file is created under a private
//! name, locked, and only then renamed into place (RENAME_NOREPLACE), so no one can see it
//! unlocked; after locking an existing file, the path is checked to still be that file (the
//! previous holder may have removed it). A run removes only a file it created itself, and
//! only unless `--keep`; a file found in place is reused only when its layout mark says
//! diskscope completed it (`scratch_mark`), and is otherwise refused, never overwritten.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use nix::fcntl::{PosixFadviseAdvice, posix_fadvise};
use nix::libc;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::scratch_mark::{self, Verdict};
use super::shell::quote;
use crate::units::{format_block_size, format_bytes};

const CHUNK: usize = 1 << 20;
/// Times the open–lock–check cycle is retried when other runs create or remove the file
/// under our feet.
const ATTEMPTS: usize = 20;

/// A laid-out scratch file, locked for as long as it lives; removed on drop when this run
/// created it and it is not kept.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    /// Holds the lock; also identifies the file for the removal check.
    file: File,
    created: bool,
    keep: bool,
    notes: Vec<String>,
}

impl Scratch {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the user should know about this file (reused, or kept but not reusable).
    pub fn notes(&self) -> &[String] {
        &self.notes
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
        if size < 512 {
            bail!(
                "{}: --size {size} is smaller than one disk block (512 bytes at least, 4k on most disks); give a larger --size",
                path.display()
            );
        }
        for _ in 0..ATTEMPTS {
            if let Some(file) = open_existing(&path)? {
                lock(&file, &path)?;
                if same_file(&file, &path) {
                    return reuse(path, file, size, keep);
                }
                continue;
            }
            if let Some(file) = create_locked(dir, &path)? {
                return lay_out(path, file, size, keep, progress, cancelled);
            }
        }
        bail!(
            "{}: other programs keep creating and removing this file; give another directory",
            path.display()
        )
    }
}

/// Opens the file at `path` read-only without following links; `None` if there is none.
fn open_existing(path: &Path) -> Result<Option<File>> {
    let shown = path.display();
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Ok(m) if m.file_type().is_symlink() => bail!(
            "{shown}: is a symbolic link; remove it or give another directory (diskscope never writes through links)"
        ),
        Ok(m) if !m.is_file() => {
            bail!("{shown}: exists and is not a regular file; remove it or give another directory")
        }
        _ => {}
    }
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(file_error(path, "cannot open the scratch file", &e)),
    }
}

/// Takes the exclusive lock without waiting; a lock held by another run is refused with the
/// reason and the way out.
fn lock(file: &File, path: &Path) -> Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => bail!(
            "{}: another diskscope run is using this scratch file (it holds its lock); wait for that run to end, or give another directory as TARGET",
            path.display()
        ),
        Err(TryLockError::Error(e)) => Err(file_error(path, "cannot lock the scratch file", &e)),
    }
}

/// Whether `path` still names the open `file` (not removed or replaced since it was opened).
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Creates an empty, locked file at `path` atomically: made under a private name, locked,
/// then renamed into place without replacing anything. `None` when another run got there
/// first.
fn create_locked(dir: &Path, path: &Path) -> Result<Option<File>> {
    // An immutable directory refuses the file with a bare EPERM; an append-only one takes it
    // but keeps it there forever, unrenamed. Name the attribute before making anything.
    if let Some(why) = super::attrs::scratch_dir_refusal(dir) {
        bail!("{why}");
    }
    let private = dir.join(format!(".diskscope.scratch.{}", std::process::id()));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&private)
        .map_err(|e| file_error(path, "cannot create the scratch file", &e))?;
    let placed = file
        .try_lock()
        .map_err(io::Error::from)
        .and_then(|()| place(&private, path));
    let _ = std::fs::remove_file(&private);
    match placed {
        Ok(true) => Ok(Some(file)),
        Ok(false) => Ok(None),
        Err(e) => Err(file_error(path, "cannot create the scratch file", &e)),
    }
}

/// Gives `private` the name `path` unless `path` exists: rename with RENAME_NOREPLACE, or a
/// hard link where the filesystem (or a kernel before 3.15) lacks that flag. False when `path`
/// exists.
fn place(private: &Path, path: &Path) -> io::Result<bool> {
    let result = match crate::sys::rename_noreplace(private, path) {
        Err(nix::errno::Errno::EINVAL | nix::errno::Errno::ENOSYS) => {
            std::fs::hard_link(private, path)
        }
        other => other.map_err(io::Error::from),
    };
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// A file found in place: used only when diskscope completed its layout at this size.
fn reuse(path: PathBuf, file: File, size: u64, keep: bool) -> Result<Scratch> {
    let shown = path.display();
    let rm = format!("rm -- {}", quote(&shown.to_string()));
    let verdict = scratch_mark::check(&file)
        .map_err(|e| file_error(&path, "cannot check the scratch file's layout", &e))?;
    match verdict {
        Verdict::Complete { size_bytes } if size_bytes == size => Ok(Scratch {
            notes: vec![format!(
                "reused the scratch file a run kept (--keep) at {}; it is left in place",
                quote(&shown.to_string())
            )],
            path,
            file,
            created: false,
            keep,
        }),
        Verdict::Complete { size_bytes } => bail!(
            "{shown}: a scratch file kept by another run ({}) is here, and --size {} was asked for; reuse it with --size {}, remove it ({rm}), or give another directory",
            format_bytes(size_bytes),
            format_block_size(size),
            format_block_size(size_bytes)
        ),
        Verdict::Unmarked { no_xattr_support } => bail!(
            "{shown}: exists, but diskscope did not complete its layout ({}), so reads of it may never touch the disk; remove it ({rm}) or give another directory",
            if no_xattr_support {
                "this filesystem keeps no extended attributes, where diskscope marks a finished layout"
            } else {
                "no layout mark: a run was stopped while laying it out, or another program made it"
            }
        ),
        Verdict::Changed(why) => bail!(
            "{shown}: a kept scratch file, changed since diskscope laid it out ({why}); remove it ({rm}) or give another directory"
        ),
    }
}

/// A file this run created: checks the free space, fills it, marks it complete.
fn lay_out(
    path: PathBuf,
    file: File,
    size: u64,
    keep: bool,
    progress: &mut dyn FnMut(u64, u64),
    cancelled: &dyn Fn() -> bool,
) -> Result<Scratch> {
    // Until the layout is complete, dropping the guard removes the partial file.
    let mut scratch = Scratch {
        path,
        file,
        created: true,
        keep: false,
        notes: vec![],
    };
    let dir = scratch.path.parent().unwrap_or(Path::new("."));
    let free = nix::sys::statvfs::statvfs(dir)
        .map(|s| s.blocks_available() * s.fragment_size())
        .map_err(|e| file_error(dir, "cannot read the free space", &e.into()))?;
    if free < size {
        bail!(
            "{}: only {} free, the scratch file needs {}; free some space, use a smaller --size, or give another directory",
            dir.display(),
            format_bytes(free),
            format_bytes(size)
        );
    }
    fill(&scratch.file, size, progress, cancelled)
        .map_err(|e| file_error(&scratch.path, "laying out the scratch file failed", &e))?;
    match scratch_mark::write(&scratch.file, size) {
        Ok(()) => {}
        Err(_) if keep => scratch.notes.push(
            "this filesystem keeps no layout mark (no extended attributes), so a later run will not reuse the kept file".into(),
        ),
        Err(_) => {}
    }
    scratch.keep = keep;
    Ok(scratch)
}

/// One line for a failed file operation, by errno: a read-only filesystem, a permission, a
/// full disk or quota are different problems with different fixes.
fn file_error(path: &Path, what: &str, e: &io::Error) -> anyhow::Error {
    let shown = path.display();
    let dir = path.parent().map(|d| d.display().to_string());
    let dir = quote(dir.as_deref().filter(|d| !d.is_empty()).unwrap_or("."));
    match e.raw_os_error() {
        Some(libc::EROFS) => anyhow::anyhow!(
            "{shown}: {what}: the filesystem is mounted read-only (EROFS); give a directory on a writable filesystem as TARGET"
        ),
        Some(libc::EACCES) | Some(libc::EPERM) => anyhow::anyhow!(
            "{shown}: {what}: permission denied ({}); run where you may write, or give a writable directory as TARGET",
            if e.raw_os_error() == Some(libc::EACCES) {
                "EACCES"
            } else {
                "EPERM"
            }
        ),
        Some(libc::ENOSPC) => anyhow::anyhow!(
            "{shown}: {what}: the filesystem is full (ENOSPC); free space in {dir}, use a smaller --size, or give another directory"
        ),
        Some(libc::EDQUOT) => anyhow::anyhow!(
            "{shown}: {what}: your disk quota is used up (EDQUOT); use a smaller --size or give another directory"
        ),
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => {
            anyhow::anyhow!("{dir}: no such directory; give an existing directory as TARGET")
        }
        _ => anyhow::anyhow!("{shown}: {what}: {e}"),
    }
}

fn fill(
    file: &File,
    size: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancelled: &dyn Fn() -> bool,
) -> io::Result<()> {
    let mut rng = SmallRng::from_rng(&mut rand::rng());
    let mut chunk = vec![0u8; CHUNK];
    let mut writer = file;
    let mut done = 0u64;
    while done < size {
        if cancelled() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
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
        // Only our own file, only if the name still points at it, and still under our lock.
        if self.created && !self.keep && same_file(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
