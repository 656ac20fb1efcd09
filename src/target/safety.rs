//! Write safety: nothing is written unless asked for, and never to anything in use. A write to
//! a block device needs the device named on the command line (`--allow-write=/dev/sdX`), and
//! every write target — device, regular file, or a kept scratch file — is refused when a write
//! to it would land under a mounted filesystem, active swap, an md/dm array or an attached
//! loop device: above the target (a file backing a loop device, a disk's partitions, holders),
//! or beside it, under another name of the same bytes (a second loop device on an
//! overlapping window of the same file, the backing file of a loop device, a partition over
//! a loop's window of a disk), followed to the bottom of nested stacks (see `walk`; fio's
//! string match of /etc/mtab misses all but the first step, fio issue #1007). The kernel's
//! O_EXCL open in `open` is the second, independent guard for the target device itself; it
//! cannot see another loop device on the same file, which is why the walk goes beside.

use std::ffi::OsStr;
use std::path::Path;

use anyhow::{Result, bail};

use super::discover::Roots;
use super::overlap::ByteRange;
use super::shell::quote_path;
use super::stack::{Node, Stack, claimed_elsewhere};
use crate::exit::Refused;

/// Whether `named` (typed by the user) names `path`: the same path, or one that resolves to
/// the same file (`/dev/disk/by-id/...` for `/dev/sdb`).
pub fn names_device(named: &OsStr, path: &Path) -> bool {
    Path::new(named) == path
        || matches!((std::fs::canonicalize(named), std::fs::canonicalize(path)), (Ok(a), Ok(b)) if a == b)
}

/// Whether `named` (`--allow-write`'s comma list of names) names `path`: as a whole (a
/// name with a comma in it), or one of its names.
pub fn list_names_device(named: &OsStr, path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    names_device(named, path)
        || named
            .as_bytes()
            .split(|b| *b == b',')
            .any(|n| !n.is_empty() && names_device(OsStr::from_bytes(n), path))
}

/// Checks that the user named the block device at `path` in `named` (`--allow-write=...`, a
/// comma list when several devices are written); whether it is in use is checked by
/// `check_not_in_use` when it is opened for writing.
pub fn check_device_write(path: &Path, named: &OsStr) -> Result<()> {
    let shown = path.display();
    let quoted = quote_path(path);
    if named.is_empty() {
        return Err(Refused(format!(
            "{shown}: writing to a block device destroys its data; confirm by naming it: --allow-write={quoted}"
        ))
        .into());
    }
    if !list_names_device(named, path) {
        return Err(Refused(format!(
            "{shown}: --allow-write names {}, not this device; use --allow-write={quoted} to write here",
            quote_path(Path::new(named))
        ))
        .into());
    }
    Ok(())
}

/// Checks that `--allow-write=NAMED`, when it names anything, names what this run writes: a
/// regular file (`writes`: the file), or a scratch file (`writes`: the scratch file and the
/// directory it is laid out in). A name that is something else — a disk the admin meant
/// while the target is a file, another file — is a mistake to stop at, not a licence to
/// write whatever TARGET is: it would destroy a file the admin did not name.
pub fn check_named_write(named: &OsStr, writes: &[&Path]) -> Result<()> {
    if named.is_empty() || writes.iter().any(|p| same_place(Path::new(named), p)) {
        return Ok(());
    }
    let target = writes.first().map_or_else(String::new, |p| quote_path(p));
    let named = quote_path(Path::new(named));
    Err(Refused(format!(
        "{target}: --allow-write names {named}, not what this run writes; a file needs no name (--allow-write), or give {named} as TARGET"
    ))
    .into())
}

/// Whether two paths name one place, the last of which may not exist yet: the same path, the
/// same file (links resolved), or the same name in the same directory.
fn same_place(a: &Path, b: &Path) -> bool {
    if names_device(a.as_os_str(), b) {
        return true;
    }
    let parent = |p: &Path| {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
        std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()
    };
    a.file_name().is_some()
        && a.file_name() == b.file_name()
        && parent(a).is_some()
        && parent(a) == parent(b)
}

/// Refuses a write to the first `span_bytes` (`None`: all) of `path` (at `node`) when
/// something in use sits above those bytes or shares them under another name, according to
/// `roots`, naming the chain. Devices in the chain are asked whether someone else holds
/// them exclusively (`claimed_elsewhere`). Reads are never checked: they cannot corrupt
/// what is on top.
pub fn check_not_in_use(
    path: &Path,
    node: Node,
    span_bytes: Option<u64>,
    roots: &Roots,
) -> Result<()> {
    let shown = path.display().to_string();
    let stack = Stack::read(roots, &Node::at).map_err(|e| {
        anyhow::anyhow!("{shown}: cannot check whether it is in use ({e:#}); refusing to write")
    })?;
    // A file in an overlay mount is written in the real file of its layer.
    let node = stack.real_node(path, node);
    let range = span_bytes.map_or(ByteRange::ALL, ByteRange::upto);
    if let Some(chain) = stack.refusal_in(node, range, &shown, &claimed_elsewhere) {
        bail!(
            "{shown}: refusing to write: {chain}; writing there would corrupt it — free it first (umount, swapoff, losetup -d, or stop the array) or pick another target"
        );
    }
    Ok(())
}
