//! The target made ready for a run, for the headless front door and the TUI alike: resolve
//! what the request names (device, file, directory or the default scratch file), lay out the
//! scratch file when needed, check that writing a device was really asked for, open it, and
//! describe it for the reports. It takes plain values (`TargetRequest`), never the command
//! line's config.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use crate::model::{ConfigReport, TargetFacts, TargetKind};
use crate::settings::Settings;
use crate::signals;
use crate::target::open::{self, OpenSpec, Target};
use crate::target::scratch::Scratch;
use crate::target::{cache, safety};
use crate::units::format_bytes;

/// The scratch file used when no target is given.
pub const SCRATCH_NAME: &str = "diskscope.scratch";
/// Default size of the scratch file.
pub const DEFAULT_SCRATCH_SIZE: u64 = 1 << 30;

/// What to make ready, as the command line (or the TUI's picker) asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetRequest {
    /// What to test; `None` is the scratch file in the current directory.
    pub target: Option<PathBuf>,
    /// Span of the target to use, or the scratch file's size.
    pub size: Option<u64>,
    /// Keep the scratch file after the run.
    pub keep: bool,
    /// O_DIRECT (true) or through the page cache.
    pub direct: bool,
    /// `None`: read-only. `Some("")`: writes allowed without naming a device.
    pub allow_write: Option<std::ffi::OsString>,
}

/// A target ready to benchmark, with the scratch file (if any) that must outlive the run.
pub struct Prepared {
    pub target: Arc<Target>,
    pub scratch: Option<Scratch>,
    /// A named regular file's lock (shared to read, exclusive to write), held for the run.
    _claim: Option<std::fs::File>,
}

/// The directory a scratch file is laid out in: the current one when no target is named, the
/// target itself when it is a directory; `None` when the target is a device or file.
pub fn scratch_dir(target: Option<&Path>) -> Option<PathBuf> {
    match target {
        None => Some(PathBuf::from(".")),
        Some(p) if p.is_dir() => Some(p.to_path_buf()),
        Some(_) => None,
    }
}

/// Opens what the request names, laying out a scratch file when it names none or a
/// directory; `progress(done, total)` follows the layout.
pub fn prepare(config: &TargetRequest, progress: &mut dyn FnMut(u64, u64)) -> Result<Prepared> {
    let write = config.allow_write.is_some();
    let spec = |span| OpenSpec {
        direct: config.direct,
        write,
        span,
    };
    let named = config.allow_write.as_deref().unwrap_or_default();
    if let Some(dir) = scratch_dir(config.target.as_deref()) {
        if write {
            safety::check_named_write(named, &[&dir.join(SCRATCH_NAME), &dir])?;
        }
        let size = config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
        let scratch = Scratch::prepare(&dir, SCRATCH_NAME, size, config.keep, progress, &|| {
            signals::received().is_some()
        })?;
        // The scratch file is ours: writing to it needs only --allow-write.
        let target = Arc::new(Target::open(scratch.path(), spec(None))?);
        return Ok(Prepared {
            target,
            scratch: Some(scratch),
            _claim: None,
        });
    }
    let path = config.target.as_deref().unwrap_or(Path::new("."));
    let is_device = std::fs::metadata(path)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false);
    if write && is_device {
        // Before any open for writing: named, and not mounted or held (O_EXCL checks again).
        safety::check_device_write(path, named)?;
    } else if write {
        safety::check_named_write(named, &[path])?;
    }
    let mut target = Target::open(path, spec(config.size))?;
    let claim = claim(&mut target, write)?;
    Ok(Prepared {
        target: Arc::new(target),
        scratch: None,
        _claim: claim,
    })
}

/// Takes the lock other diskscope runs take on their files (a scratch file is locked
/// exclusively for its whole run): shared to read, exclusive to write. A file another run
/// holds is never written; reading it beside that run is allowed, with a warning, since both
/// runs' figures then include each other's I/O.
fn claim(target: &mut Target, write: bool) -> Result<Option<std::fs::File>> {
    if target.kind != open::TargetKind::RegularFile {
        return Ok(None);
    }
    let Ok(file) = std::fs::File::open(&target.path) else {
        return Ok(None);
    };
    let taken = if write {
        file.try_lock()
    } else {
        file.try_lock_shared()
    };
    match taken {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) if write => anyhow::bail!(
            "{}: another diskscope run is using this file (it holds its lock); wait for that \
             run to end before writing to it",
            target.path.display()
        ),
        Err(std::fs::TryLockError::WouldBlock) => {
            target.warnings.push(
                "another diskscope run is using this file: both runs' figures include each \
                 other's I/O"
                    .into(),
            );
            Ok(None)
        }
        Err(std::fs::TryLockError::Error(_)) => Ok(None),
    }
}

/// The report's kind for an opened target.
pub fn kind_of(target: &Target, scratch: bool) -> TargetKind {
    match (scratch, target.kind) {
        (true, _) => TargetKind::ScratchFile,
        (false, open::TargetKind::BlockDevice) => TargetKind::BlockDevice,
        (false, open::TargetKind::RegularFile) => TargetKind::RegularFile,
    }
}

/// Describes the target for reports: its facts, warnings and the disk under it (link, queue
/// limits, sensor, read once here from sysfs), with `settings` for `duration` (the caller
/// adds the engine and the durability).
pub fn config_report(p: &Prepared, settings: Settings, duration: Option<Duration>) -> ConfigReport {
    let t = &p.target;
    let facts = TargetFacts {
        path: t.path.display().to_string(),
        kind: kind_of(t, p.scratch.is_some()),
        size_bytes: t.size_bytes,
        device_bytes: t.device_bytes,
        span_bytes: t.span_bytes,
        logical_block_size: t.logical_block_size,
        direct: t.direct,
        write_allowed: t.write,
    };
    let mut report = ConfigReport::new(facts, settings, duration);
    report.warnings = warnings(p);
    report.disk = super::facts::DiskFacts::for_path(&crate::sys::sysfs_root(), &t.path).report();
    report
}

/// What the target and its scratch file warn about, and whether the page cache is in play.
fn warnings(p: &Prepared) -> Vec<String> {
    let t = &p.target;
    let mut warnings = t.warnings.clone();
    warnings.extend(p.scratch.iter().flat_map(|s| s.notes().iter().cloned()));
    if !t.direct {
        let cached = cache::cached_bytes(t.main_fd(), t.span_bytes)
            .map(|b| {
                format!(
                    "; {} of the span ({:.0}%) was cached at the start",
                    format_bytes(b),
                    b as f64 * 100.0 / t.span_bytes as f64
                )
            })
            .unwrap_or_default();
        warnings.push(format!("buffered I/O: the page cache is in play, so cached data is measured, not the disk{cached}"));
    }
    warnings
}
