//! Write safety: nothing is written unless asked for, and never to anything in use. A write to
//! a block device needs the device named on the command line (`--allow-write=/dev/sdX`), and
//! every write target — device, regular file, or a kept scratch file — is refused when a write
//! to it would land under a mounted filesystem, active swap, an md/dm array or an attached
//! loop device, followed through partitions, holders and loop devices in both directions
//! (see `stack`; fio's string match of /etc/mtab misses all but the first step, fio issue
//! #1007). The kernel's O_EXCL open in `open` is the second, independent guard for devices.

use std::path::Path;

use anyhow::{Result, bail};

use super::discover::Roots;
use super::shell::quote;
use super::stack::{Node, Stack};

/// Whether `named` (typed by the user) names `path`: the same path, or one that resolves to
/// the same file (`/dev/disk/by-id/...` for `/dev/sdb`).
pub fn names_device(named: &str, path: &Path) -> bool {
    Path::new(named) == path
        || matches!((std::fs::canonicalize(named), std::fs::canonicalize(path)), (Ok(a), Ok(b)) if a == b)
}

/// Checks that the user named the block device at `path` in `named` (`--allow-write=...`);
/// whether it is in use is checked by `check_not_in_use` when it is opened for writing.
pub fn check_device_write(path: &Path, named: &str) -> Result<()> {
    let shown = path.display();
    let quoted = quote(&shown.to_string());
    if named.is_empty() {
        bail!(
            "{shown}: writing to a block device destroys its data; confirm by naming it: --allow-write={quoted}"
        );
    }
    if !names_device(named, path) {
        bail!(
            "{shown}: --allow-write names {named}, not this device; use --allow-write={quoted} to write here"
        );
    }
    Ok(())
}

/// Refuses a write to `path` (at `node`) when something in use sits above it according to
/// `roots`, naming the chain. Reads are never checked: they cannot corrupt what is on top.
pub fn check_not_in_use(path: &Path, node: Node, roots: &Roots) -> Result<()> {
    let shown = path.display().to_string();
    let stack = Stack::read(roots, &Node::at).map_err(|e| {
        anyhow::anyhow!("{shown}: cannot check whether it is in use ({e:#}); refusing to write")
    })?;
    if let Some(chain) = stack.refusal(node, &shown) {
        bail!(
            "{shown}: refusing to write: {chain}; writing under it would corrupt it — free it first (umount, swapoff, losetup -d, or stop the array) or pick another target"
        );
    }
    Ok(())
}
