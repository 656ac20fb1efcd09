//! Opening what we benchmark: a block device or a regular file. Finds its size (the
//! BLKGETSIZE64 ioctl for devices, whose st_size is 0) and logical block size (BLKSSZGET, or
//! for a file the block size of the device under its filesystem), probes that O_DIRECT really
//! works, and hands each worker a descriptor of its own — of the same file or device the
//! checks were made on. Before any open for writing, the stack (`safety`) and the file's
//! immutable and append-only attributes (`attrs`) are checked. Every failure becomes one
//! sentence naming the path, the problem and the fix.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use nix::libc;

use super::attrs;
use super::discover::Roots;
use super::extents::allocation;
use super::safety;
use super::shell::quote_path;
use super::stack::Node;
use crate::engine::Geometry;
use crate::engine::buffer::AlignedBuf;
use crate::engine::io::{BlockIo, IoOpener};
use crate::units::{format_block_size, format_bytes};

nix::ioctl_read!(blk_getsize64, 0x12, 114, u64);
nix::ioctl_read_bad!(blk_sszget, 0x1268, libc::c_int);

/// What kind of thing the target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    BlockDevice,
    RegularFile,
}

/// How to open a target.
#[derive(Debug, Clone, Copy)]
pub struct OpenSpec {
    /// Use O_DIRECT.
    pub direct: bool,
    /// Open for writing (the caller has checked that writing was allowed).
    pub write: bool,
    /// Bytes to use from the start; `None` is all of it.
    pub span: Option<u64>,
}

/// An opened target. Workers get their own descriptors through `IoOpener`.
#[derive(Debug)]
pub struct Target {
    pub path: PathBuf,
    pub kind: TargetKind,
    /// Size of the whole device or file.
    pub size_bytes: u64,
    /// Bytes the offsets cover, from 0: a whole number of logical blocks.
    pub span_bytes: u64,
    pub logical_block_size: u32,
    /// Size of the block device the target is or lives on, when known (a file on tmpfs has
    /// none): the span is shown against it.
    pub device_bytes: Option<u64>,
    pub direct: bool,
    pub write: bool,
    /// Things the user should know about the numbers (sparse file, small span, …).
    pub warnings: Vec<String>,
    /// What the checks were made on: every worker's descriptor must open this same file or
    /// device, not whatever the path names by then (a retargeted symlink, a replaced file).
    node: Node,
    /// Held open for the whole run. For a device opened for writing it carries O_EXCL, so
    /// the kernel refuses it while mounted or in use, and nobody can mount it meanwhile.
    main_fd: File,
}

impl Target {
    /// Opens `path` per `spec`, or explains in one sentence why it cannot be used.
    pub fn open(path: &Path, spec: OpenSpec) -> Result<Target> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| describe_open_error(path, &e, spec))?;
        let ft = meta.file_type();
        let kind = if ft.is_block_device() {
            TargetKind::BlockDevice
        } else if ft.is_file() {
            TargetKind::RegularFile
        } else if ft.is_dir() {
            bail!(
                "{shown}: is a directory; give a file or a block device (a directory as TARGET holds the scratch file)"
            );
        } else {
            bail!(
                "{shown}: not a regular file or block device; give a disk such as /dev/sdb or a file"
            );
        };
        let node = Node::of(&meta);
        if spec.write {
            // Before any open for writing: nothing in use may sit above it or share its bytes, on
            // this machine's own sysfs (SYSFS_PATH must not hide a holder).
            safety::check_not_in_use(path, node, spec.span, &Roots::machine())?;
            if let Some(why) = (kind == TargetKind::RegularFile)
                .then(|| attrs::file_write_refusal(path))
                .flatten()
            {
                bail!("{why}");
            }
        }
        if spec.write && kind == TargetKind::BlockDevice {
            // O_EXCL on a block device: EBUSY while mounted or held by md/dm/swap.
            let excl = open_raw(path, spec, libc::O_EXCL)
                .map_err(|e| describe_open_error(path, &e, spec))?;
            return Self::finish(path, kind, spec, excl);
        }
        let fd = open_raw(path, spec, 0).map_err(|e| describe_open_error(path, &e, spec))?;
        if spec.write && fd.metadata().map(|m| Node::of(&m)).ok() != Some(node) {
            bail!("{shown}: was replaced while it was being opened; run again");
        }
        Self::finish(path, kind, spec, fd)
    }

    fn finish(path: &Path, kind: TargetKind, spec: OpenSpec, fd: File) -> Result<Target> {
        let shown = path.display();
        let (size_bytes, mut lbs, device_bytes) = measure(path, kind, &fd)?;
        let mut warnings = Vec::new();
        if spec.direct {
            let (probed, failed) = probe_direct(&fd, lbs, size_bytes).map_err(|_| {
                anyhow::anyhow!("{shown}: the filesystem refuses O_DIRECT (EINVAL); try --buffered")
            })?;
            lbs = probed;
            if let Some(e) = failed {
                warnings.push(format!(
                    "the first block (offset 0) could not be read: {e}; a read error there is \
                     counted as any other"
                ));
            }
        }
        let span_bytes = span_of(path, spec.span, size_bytes, lbs)?;
        if let Some(s) = spec.span.filter(|&s| s != span_bytes) {
            warnings.push(format!(
                "--size {s} is not a whole number of {lbs}-byte blocks: {span_bytes} bytes are used"
            ));
        }
        if let Some(dev) = device_bytes.filter(|&d| span_bytes < d / 10) {
            warnings.push(format!(
                "small span: {} of the {} device; short seeks over a small part of a disk give higher numbers than the whole disk would",
                format_bytes(span_bytes),
                format_bytes(dev)
            ));
        }
        if device_bytes.is_none() {
            warnings.push(
                "no block device under this file (tmpfs, network or FUSE filesystem): the numbers are not a disk's".into(),
            );
        }
        if kind == TargetKind::RegularFile {
            warnings.extend(not_on_disk(path, &fd, span_bytes));
        }
        Ok(Target {
            path: path.to_path_buf(),
            kind,
            size_bytes,
            span_bytes,
            logical_block_size: lbs,
            device_bytes,
            direct: spec.direct,
            write: spec.write,
            warnings,
            node: Node::of(&fd.metadata()?),
            main_fd: fd,
        })
    }

    /// The geometry the engine validates settings against.
    pub fn geometry(&self) -> Geometry {
        Geometry {
            span: self.span_bytes,
            logical_block_size: self.logical_block_size,
            direct: self.direct,
            write_allowed: self.write,
        }
    }

    /// The descriptor held for the run.
    pub fn main_fd(&self) -> &File {
        &self.main_fd
    }
}

impl IoOpener for Target {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        let spec = OpenSpec {
            direct: self.direct,
            write: self.write,
            span: None,
        };
        let file = open_raw(&self.path, spec, 0)?;
        if Node::of(&file.metadata()?) != self.node {
            return Err(io::Error::other(format!(
                "{}: now names another file or device than the one checked at the start; run again",
                self.path.display()
            )));
        }
        Ok(Box::new(file))
    }
}

fn open_raw(path: &Path, spec: OpenSpec, extra_flags: i32) -> io::Result<File> {
    let mut flags = libc::O_CLOEXEC | extra_flags;
    if spec.direct {
        flags |= libc::O_DIRECT;
    }
    OpenOptions::new()
        .read(true)
        .write(spec.write)
        .custom_flags(flags)
        .open(path)
}

/// The size of the target, its logical block size, and the size of the device it is or lies
/// on (when it has one); a target of size 0 is refused.
fn measure(path: &Path, kind: TargetKind, fd: &File) -> Result<(u64, u32, Option<u64>)> {
    let shown = path.display();
    let (size_bytes, lbs, device_bytes) = match kind {
        TargetKind::BlockDevice => {
            let (size, lbs) = device_geometry(fd)
                .map_err(|e| anyhow::anyhow!("{shown}: cannot read the device size: {e}"))?;
            (size, lbs, Some(size))
        }
        TargetKind::RegularFile => {
            let (lbs, device) = backing_device(fd);
            (fd.metadata()?.len(), lbs, device)
        }
    };
    if size_bytes == 0 {
        match kind {
            TargetKind::BlockDevice => bail!(
                "{shown}: the device has size 0 (no medium, or an unconfigured loop/zram device); pick another with --list"
            ),
            TargetKind::RegularFile => bail!(
                "{shown}: the file is empty (0 bytes); give a larger file, or a directory to lay out a scratch file in"
            ),
        }
    }
    Ok((size_bytes, lbs, device_bytes))
}

/// The bytes the offsets cover: `--size` (or all of `size_bytes`) rounded down to whole
/// `lbs`-byte blocks; a size beyond the target or below one block is refused.
fn span_of(path: &Path, asked: Option<u64>, size_bytes: u64, lbs: u32) -> Result<u64> {
    let shown = path.display();
    let span_bytes = match asked {
        None => size_bytes,
        Some(s) if s <= size_bytes => s,
        Some(s) => bail!(
            "{shown}: --size {} is larger than the target ({}); use at most --size {}",
            format_bytes(s),
            format_bytes(size_bytes),
            format_block_size(size_bytes)
        ),
    };
    let span_bytes = span_bytes / u64::from(lbs) * u64::from(lbs);
    if span_bytes == 0 {
        match asked {
            Some(s) => bail!(
                "{shown}: --size {s} is smaller than one {lbs}-byte block; give at least --size {lbs}"
            ),
            None => bail!(
                "{shown}: {size_bytes} bytes is smaller than one {lbs}-byte block; give a larger target"
            ),
        }
    }
    Ok(span_bytes)
}

/// One sentence for a failed open: the path, what went wrong, what to do.
fn describe_open_error(path: &Path, e: &io::Error, spec: OpenSpec) -> anyhow::Error {
    let shown = path.display();
    match e.raw_os_error() {
        Some(libc::ENOENT) => anyhow::anyhow!(
            "{shown}: no such file or device; check the path (diskscope --list shows the disks)"
        ),
        Some(libc::EPERM) if nix::unistd::geteuid().is_root() => anyhow::anyhow!(
            "{shown}: operation not permitted even as root (EPERM: a sandbox, container or security policy blocks it); pick another target"
        ),
        Some(libc::EACCES) | Some(libc::EPERM) => anyhow::anyhow!(
            "{shown}: permission denied; run as root or get read access to it (e.g. the disk group)"
        ),
        Some(libc::EINVAL) if spec.direct => {
            anyhow::anyhow!("{shown}: the filesystem refuses O_DIRECT (EINVAL); try --buffered")
        }
        Some(libc::EBUSY) => anyhow::anyhow!(
            "{shown}: the device is in use (mounted, or part of a RAID, LVM or swap); refusing to write to it — unmount it or pick another disk"
        ),
        Some(libc::EROFS) => anyhow::anyhow!(
            "{shown}: read-only (EROFS); drop --allow-write to read it, or remount it read-write"
        ),
        Some(libc::ENOMEDIUM) => anyhow::anyhow!("{shown}: no medium in the drive"),
        Some(libc::ENXIO) | Some(libc::ENODEV) => {
            anyhow::anyhow!("{shown}: no such device behind this node; check diskscope --list")
        }
        _ => anyhow::anyhow!("{shown}: cannot open: {e}"),
    }
}

/// Warnings for the parts of `[0, span)` of a file that reads would never fetch from the disk:
/// holes, and extents reserved by fallocate but never written (FIEMAP). Falls back to the
/// allocated block count when the filesystem can map neither.
fn not_on_disk(path: &Path, fd: &File, span: u64) -> Vec<String> {
    let fix = format!(
        "lay the file out with data first (e.g. dd if=/dev/urandom of={} bs=1M count={} conv=notrunc)",
        quote_path(path),
        span.div_ceil(1 << 20)
    );
    let (holes, unwritten) = match allocation(fd, span) {
        Ok(a) => (a.hole_bytes, a.unwritten_bytes),
        Err(_) => {
            let allocated = fd.metadata().map(|m| m.blocks() * 512).unwrap_or(span);
            (span.saturating_sub(allocated), 0)
        }
    };
    let mut out = Vec::new();
    // A few per cent of holes is noise (a tail, a small gap); more skews the numbers.
    if holes > span / 20 {
        out.push(format!(
            "sparse file: only {} of {} is allocated; holes read as zeros without touching the disk; {fix}",
            format_bytes(span - holes),
            format_bytes(span)
        ));
    }
    if unwritten > 0 {
        out.push(format!(
            "unwritten extents: reads of unwritten extents never touch the disk: {unwritten} of {span} bytes are unwritten ({}); {fix}",
            format_bytes(unwritten)
        ));
    }
    out
}

/// Size in bytes and logical block size of a block device.
fn device_geometry(fd: &File) -> nix::Result<(u64, u32)> {
    let mut size = 0u64;
    let mut lbs: libc::c_int = 0;
    // SAFETY: both ioctls write one value of the declared type through the pointer, which
    // points at a live local of that type; the descriptor is an open block device.
    unsafe {
        blk_getsize64(fd.as_raw_fd(), &mut size)?;
        blk_sszget(fd.as_raw_fd(), &mut lbs)?;
    }
    Ok((size, u32::try_from(lbs).unwrap_or(512).max(512)))
}

/// The logical block size and size in bytes of the block device holding a file, from sysfs;
/// 512 and unknown when the filesystem has no block device (tmpfs, NFS…).
fn backing_device(fd: &File) -> (u32, Option<u64>) {
    let Ok(meta) = fd.metadata() else {
        return (512, None);
    };
    let dev = meta.dev();
    let base = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
    let read = |p: String| {
        std::fs::read_to_string(p)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
    };
    let size = read(format!("{base}/size")).map(|sectors| sectors * 512);
    // A partition has no queue/ of its own: its disk's is one level up.
    let lbs = read(format!("{base}/queue/logical_block_size"))
        .or_else(|| read(format!("{base}/../queue/logical_block_size")))
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(512);
    (lbs, size)
}

/// Checks that an O_DIRECT read of one block works, trying the expected block size and then
/// 4096 (some filesystems need page alignment). Returns the block size that worked, and the
/// error of a probe read the kernel took but the device failed (`Err` only for EINVAL).
fn probe_direct(fd: &File, lbs: u32, size: u64) -> io::Result<(u32, Option<io::Error>)> {
    use std::os::unix::fs::FileExt;
    let mut last = None;
    for candidate in [lbs, 4096] {
        if u64::from(candidate) > size {
            continue;
        }
        let mut buf = AlignedBuf::new(candidate as usize, 4096);
        match fd.read_at(&mut buf[..candidate as usize], 0) {
            Ok(_) => return Ok((candidate, None)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            // Anything but EINVAL came from below the alignment checks: the read reached the
            // device and the block failed (a bad sector at offset 0). O_DIRECT works; the
            // block is for the run to count (a surface scan maps it), not a reason to refuse.
            Err(e) => return Ok((candidate, Some(e))),
        }
    }
    // A target smaller than any probe size is reported by the caller as "smaller than one
    // block"; otherwise O_DIRECT is refused.
    match last {
        Some(e) => Err(e),
        None => Ok((lbs, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_never_opens_a_file_put_in_the_targets_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, vec![7u8; 64 << 10]).unwrap();
        let spec = OpenSpec {
            direct: false,
            write: false,
            span: None,
        };
        let target = Target::open(&path, spec).unwrap();
        assert!(target.open_io().is_ok());
        // Another file renamed over the checked one, between the checks and a worker's open.
        let other = dir.path().join("other");
        std::fs::write(&other, vec![9u8; 64 << 10]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let err = target.open_io().err().expect("the new file is refused");
        assert!(
            err.to_string().contains("now names another file or device"),
            "{err}"
        );
    }
}
