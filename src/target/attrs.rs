//! The inode attributes that forbid what a write run does, named as `lsattr` and `chattr`
//! name them: an immutable file (`chattr +i`) cannot be written, an append-only one
//! (`chattr +a`) only added to at its end, while diskscope writes in place; in an immutable
//! directory no scratch file can be made, and in an append-only one it could never be
//! renamed into place or removed again. Without this, the kernel's bare EPERM reads as a
//! sandbox or a permission problem, even for root. It only reads the flags (FS_IOC_GETFLAGS
//! through `sys`), of regular files and directories only: on a device node that ioctl would
//! go to the driver.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use nix::libc;

use super::shell::quote;
use crate::sys::{self, FS_APPEND_FL, FS_IMMUTABLE_FL};

/// Why the regular file at `path` cannot be written in place, as one line naming the
/// attribute and the way out; `None` when neither attribute is set, or the filesystem keeps
/// no attributes.
pub fn file_write_refusal(path: &Path) -> Option<String> {
    let flags = flags_of(path)?;
    let shown = path.display();
    let quoted = quote(&shown.to_string());
    if flags & FS_IMMUTABLE_FL != 0 {
        return Some(format!(
            "{shown}: the file is immutable (chattr +i), so nothing may write it, not even root; remove the attribute with chattr -i {quoted} or pick another target"
        ));
    }
    if flags & FS_APPEND_FL != 0 {
        return Some(format!(
            "{shown}: the file is append-only (chattr +a): it may only grow at its end, and diskscope writes inside it; remove the attribute with chattr -a {quoted} or pick another target"
        ));
    }
    None
}

/// Why no scratch file can be made in the directory `dir`, as one line; `None` when neither
/// attribute is set or the filesystem keeps none.
pub fn scratch_dir_refusal(dir: &Path) -> Option<String> {
    let flags = flags_of(dir)?;
    let shown = dir.display();
    let quoted = quote(&shown.to_string());
    if flags & FS_IMMUTABLE_FL != 0 {
        return Some(format!(
            "{shown}: the directory is immutable (chattr +i), so no scratch file can be created in it, not even by root; remove the attribute with chattr -i {quoted} or give another directory as TARGET"
        ));
    }
    if flags & FS_APPEND_FL != 0 {
        return Some(format!(
            "{shown}: the directory is append-only (chattr +a): a scratch file made there could never be renamed into place or removed; remove the attribute with chattr -a {quoted} or give another directory as TARGET"
        ));
    }
    None
}

/// The attribute flags of a regular file or directory at `path`; `None` for anything else,
/// or when they cannot be read.
fn flags_of(path: &Path) -> Option<u32> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() && !meta.is_dir() {
        return None;
    }
    // O_NONBLOCK: a FIFO swapped in since the check must not hang the open.
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() && !meta.is_dir() {
        return None;
    }
    sys::inode_flags(&file).ok()
}
