//! Several targets made ready, all or none. Every target is checked before anything is laid
//! out or opened: that it exists, each device written named by `--allow-write`, nothing in use above or beside any
//! write target, and no target named twice under two names (the same device, file or
//! directory) — so one refusal refuses the run before a byte is written anywhere, naming the
//! target. Then each is prepared as a single target is (`target::prepare`: its scratch file
//! laid out in its directory, opened, O_EXCL on a device written); a failure drops those
//! prepared before it, which removes their scratch files.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use anyhow::{Result, bail};

use crate::target::discover::Roots;
use crate::target::open::{OpenSpec, Target};
use crate::target::prepare::{Prepared, TargetRequest, prepare};
use crate::target::safety;
use crate::target::stack::Node;

/// Checks every request as one run, before any is prepared (see the module's doc).
pub fn check_all(requests: &[TargetRequest]) -> Result<()> {
    let mut seen: Vec<(Node, &Path)> = Vec::new();
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
