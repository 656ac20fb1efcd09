//! The layout mark: how a later run knows a kept scratch file is one diskscope finished laying
//! out, not a file of the same name made by someone else (`fallocate -l 1G diskscope.scratch`)
//! or left half-written by a killed run. The mark is an extended attribute written only after
//! the random data is synced, naming the size laid out. An attribute survives a truncation
//! or a hole punched by another program, so it is never trusted alone: a file is complete only
//! when the mark, its size and its extent map (no holes, no unwritten extents, see `extents`)
//! all agree. Filesystems without user attributes get no mark, so their files are never reused.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use nix::libc;

use super::extents::allocation;
use crate::units::format_bytes;

const NAME: &str = "user.diskscope.layout";
const PREFIX: &str = "diskscope layout v1 size=";

/// What a scratch file found on disk is, judged by its mark, size and extents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Laid out by diskscope with `size` bytes and unchanged since.
    Complete { size_bytes: u64 },
    /// No mark: not laid out by diskscope, or its layout never finished. The flag says the
    /// filesystem cannot hold a mark at all.
    Unmarked { no_xattr_support: bool },
    /// Marked, but changed since (truncated, holes punched, extents made unwritten).
    Changed(String),
}

/// Marks `file` as a complete layout of `size_bytes`. Fails with ENOTSUP/EOPNOTSUPP where
/// the filesystem keeps no user attributes.
pub fn write(file: &File, size_bytes: u64) -> io::Result<()> {
    let name = CString::new(NAME).map_err(io::Error::other)?;
    let value = format!("{PREFIX}{size_bytes}");
    // SAFETY: name is NUL-terminated; value points at value.len() readable bytes; both live
    // across the call, which only reads them.
    let rc = unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            name.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The size named by the mark on `file`, if it has one.
fn read(file: &File) -> io::Result<Option<u64>> {
    let name = CString::new(NAME).map_err(io::Error::other)?;
    let mut buf = [0u8; 128];
    // SAFETY: name is NUL-terminated; the kernel writes at most buf.len() bytes into buf,
    // which lives across the call.
    let n = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENODATA) | Some(libc::ERANGE) => Ok(None),
            _ => Err(e),
        };
    }
    let text = String::from_utf8_lossy(&buf[..n as usize]).into_owned();
    Ok(text.strip_prefix(PREFIX).and_then(|s| s.parse().ok()))
}

/// Judges `file`: complete only when its mark, its size and its extent map agree.
pub fn check(file: &File) -> io::Result<Verdict> {
    let marked = match read(file) {
        Ok(Some(size)) => size,
        Ok(None) => {
            return Ok(Verdict::Unmarked {
                no_xattr_support: false,
            });
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOTSUP)) => {
            return Ok(Verdict::Unmarked {
                no_xattr_support: true,
            });
        }
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    if len != marked {
        return Ok(Verdict::Changed(format!(
            "laid out with {}, now {}",
            format_bytes(marked),
            format_bytes(len)
        )));
    }
    let a = allocation(file, len)?;
    let damage: Vec<String> = [
        (a.hole_bytes, "holes"),
        (a.unwritten_bytes, "unwritten extents"),
    ]
    .iter()
    .filter(|(bytes, _)| *bytes > 0)
    .map(|(bytes, what)| format!("{} of {what}", format_bytes(*bytes)))
    .collect();
    if !damage.is_empty() {
        return Ok(Verdict::Changed(damage.join(" and ")));
    }
    Ok(Verdict::Complete { size_bytes: len })
}
