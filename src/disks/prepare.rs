//! Several targets made ready, all or none. Every target is checked before anything is laid
//! out or opened: that it exists, each device written named by `--allow-write`, nothing in
//! use above or beside any write target, and no target named twice under two names (the same
//! device, file or directory, or the same bytes below two devices or files: `check_apart`,
//! reads included) — so one refusal refuses the run before a byte is written anywhere,
//! naming the target. Then each is prepared as a single target is (`target::prepare`: its
//! scratch file laid out in its directory, opened, O_EXCL on a device written); a failure
//! drops those prepared before it, which removes their scratch files.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use anyhow::{Result, bail};

use crate::target::discover::Roots;
use crate::target::open::{OpenSpec, Target};
use crate::target::overlap::ByteRange;
use crate::target::prepare::{Prepared, TargetRequest, prepare};
use crate::target::safety;
use crate::target::shell::quote_path;
use crate::target::stack::{Node, Stack};
use crate::units::visible;

/// Checks every request as one run, before any is prepared (see the module's doc).
pub fn check_all(requests: &[TargetRequest]) -> Result<()> {
    let mut seen: Vec<(Node, &Path)> = Vec::new();
    // Read once for every pair, and only when two devices or files are given.
    let mut stack: Option<Option<Stack>> = None;
    let mut spans: Vec<(Node, &Path, ByteRange)> = Vec::new();
    for r in requests {
        let Some(path) = r.target.as_deref() else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(path) else {
            // Missing or unreadable: said as opening it would say it, before any other
            // target's scratch file is laid out.
            let spec = OpenSpec {
                direct: r.direct,
                write: false,
                span: None,
            };
            Target::open(path, spec)?;
            continue;
        };
        let node = Node::of(&meta);
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == node) {
            bail!(
                "{}: the same {} as {}; give each target once",
                path.display(),
                if meta.is_dir() {
                    "directory"
                } else {
                    "device or file"
                },
                first.display()
            );
        }
        seen.push((node, path));
        if !meta.is_dir() {
            let span = r.size.map_or(ByteRange::ALL, ByteRange::upto);
            if !spans.is_empty() {
                let stack =
                    stack.get_or_insert_with(|| Stack::read(&Roots::machine(), &Node::at).ok());
                check_apart(stack.as_ref(), (node, path, span), &spans)?;
            }
            spans.push((node, path, span));
        }
        let Some(named) = r.allow_write.as_deref() else {
            continue;
        };
        if meta.file_type().is_block_device() {
            safety::check_device_write(path, named)?;
        }
        if !meta.is_dir() {
            safety::check_not_in_use(path, node, r.size, &Roots::machine())?;
        }
    }
    Ok(())
}

/// Refuses `this` target when it is the same storage as one of `before` under another name: a
/// device and a loop device on it or on its file, two loop devices on overlapping windows of
/// one file, a partition and its disk, two paths to one disk. Measured together they would
/// be counted as two disks. Without the kernel's view of the devices (`stack`: /sys or /proc
/// unreadable) only the same node is caught, by the caller.
fn check_apart(
    stack: Option<&Stack>,
    this: (Node, &Path, ByteRange),
    before: &[(Node, &Path, ByteRange)],
) -> Result<()> {
    let Some(stack) = stack else {
        return Ok(());
    };
    let (node, path, span) = this;
    for &(other, other_path, other_span) in before {
        let Some((place, bytes)) = stack.shared_storage(node, span, other, other_span) else {
            continue;
        };
        let shown = |p: &Path| quote_path(p);
        let place = if place.is_empty() {
            String::new()
        } else {
            format!(
                " (both reach bytes {} of {})",
                bytes.describe(),
                visible(&place)
            )
        };
        bail!(
            "{}: the same storage as {}{place}; measured together they would count as two disks — give each once",
            shown(path),
            shown(other_path)
        );
    }
    Ok(())
}

/// Prepares every request (after `check_all`); `progress(i, done, total)` follows target
/// `i`'s scratch layout.
pub fn prepare_all(
    requests: &[TargetRequest],
    progress: &mut dyn FnMut(usize, u64, u64),
) -> Result<Vec<Prepared>> {
    check_all(requests)?;
    let mut ready = Vec::with_capacity(requests.len());
    for (i, r) in requests.iter().enumerate() {
        ready.push(prepare(r, &mut |done, total| progress(i, done, total))?);
    }
    Ok(ready)
}
