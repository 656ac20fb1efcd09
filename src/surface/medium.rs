//! Which medium a scan read, kept with a stopped scan so that it is resumed only on the same
//! one: a path names whatever is there now (a loop device re-attached to another file, a disk
//! swapped into the same bay, a `/dev/disk/by-path` link, a file replaced), and a map resumed
//! on another medium would show the first one's cells as this one's.
//!
//! A block device is known by its size and, from sysfs (`/sys/dev/block/MAJ:MIN`, under
//! `SYSFS_PATH`), its serial and world-wide name where the kernel gives them (a partition:
//! its disk's, with its start); a loop device by the file (device and inode, asked of the
//! kernel) or device under it and the window of it; a regular file by its filesystem's device
//! and its inode. Read from the descriptor the run holds, so a symlink names what it points at.

use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use nix::libc;
use serde::{Deserialize, Serialize};

use crate::units::format_bytes;

/// What the scan read, as far as this machine can tell one medium from another.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Medium {
    pub size_bytes: u64,
    /// A disk's serial number (sysfs `device/serial` or `serial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// A disk's world-wide name (sysfs `wwid` or `device/wwid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwid: Option<String>,
    /// A partition's first sector on its disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_start: Option<u64>,
    /// A loop device's backing: "file DEV:INODE from byte OFFSET" or "device MAJ:MIN from
    /// byte OFFSET", with " for LIMIT bytes" where the loop device has a size limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing: Option<String>,
    /// A regular file's filesystem device and inode: "DEV:INODE".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// The first sysfs attribute of `names` under `dir` that holds text, trimmed.
fn attr(dir: &Path, names: &[&str]) -> Option<String> {
    (names.iter())
        .filter_map(|n| std::fs::read_to_string(dir.join(n)).ok())
        .map(|t| t.trim().to_string())
        .find(|t| !t.is_empty())
}

/// A loop device's backing, asked of the kernel; `None` for other devices.
fn loop_backing(fd: &File) -> Option<String> {
    let info = crate::sys::loop_status64(fd).ok()?;
    let under = if info.lo_rdevice != 0 {
        let (ma, mi) = (libc::major(info.lo_rdevice), libc::minor(info.lo_rdevice));
        format!("device {ma}:{mi}")
    } else {
        format!("file {}:{}", info.lo_device, info.lo_inode)
    };
    let limit = match info.lo_sizelimit {
        0 => String::new(),
        n => format!(" for {n} bytes"),
    };
    Some(format!("{under} from byte {}{limit}", info.lo_offset))
}

impl Medium {
    /// The medium behind `fd`, a target of `size_bytes`, read from the sysfs at `sys`.
    pub fn of(fd: &File, size_bytes: u64, sys: &Path) -> Medium {
        let mut out = Medium {
            size_bytes,
            ..Medium::default()
        };
        let Ok(meta) = fd.metadata() else {
            return out;
        };
        if !meta.file_type().is_block_device() {
            out.file = Some(format!("{}:{}", meta.dev(), meta.ino()));
            return out;
        }
        let (ma, mi) = (libc::major(meta.rdev()), libc::minor(meta.rdev()));
        let mut dir: PathBuf = sys.join(format!("dev/block/{ma}:{mi}"));
        if let Some(start) = attr(&dir, &["start"]) {
            out.partition_start = start.parse().ok();
            dir = dir.join("..");
        }
        out.serial = attr(&dir, &["device/serial", "serial"]);
        out.wwid = attr(&dir, &["wwid", "device/wwid"]);
        out.backing = loop_backing(fd);
        out
    }

    /// What differs between the medium a scan was kept for (`self`) and `now`, in words;
    /// `None` when they are the same.
    pub fn differs(&self, now: &Medium) -> Option<String> {
        let pair = |what: &str, a: &Option<String>, b: &Option<String>| {
            (a != b).then(|| {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
                format!("{what} {} then, {} now", show(a), show(b))
            })
        };
        let start = |v: Option<u64>| v.map(|s| s.to_string());
        if self.size_bytes != now.size_bytes {
            return Some(format!(
                "its size was {} then, {} now",
                format_bytes(self.size_bytes),
                format_bytes(now.size_bytes)
            ));
        }
        pair("serial", &self.serial, &now.serial)
            .or_else(|| pair("world-wide name", &self.wwid, &now.wwid))
            .or_else(|| {
                let (a, b) = (start(self.partition_start), start(now.partition_start));
                pair("partition start", &a, &b)
            })
            .or_else(|| pair("loop device backed by", &self.backing, &now.backing))
            .or_else(|| pair("file (device:inode)", &self.file, &now.file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_known_by_its_inode_and_a_disk_by_its_serial() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, [0u8; 4096]).unwrap();
        std::fs::write(&b, [0u8; 4096]).unwrap();
        let sys = dir.path();
        let ma = Medium::of(&File::open(&a).unwrap(), 4096, sys);
        let mb = Medium::of(&File::open(&b).unwrap(), 4096, sys);
        assert_eq!(ma.differs(&ma.clone()), None);
        let why = ma.differs(&mb).unwrap_or_default();
        assert!(why.starts_with("file (device:inode) "), "{why}");
        let disk = |serial: &str| Medium {
            size_bytes: 1 << 40,
            serial: Some(serial.into()),
            ..Medium::default()
        };
        assert_eq!(
            disk("WD-1").differs(&disk("WD-2")).as_deref(),
            Some("serial WD-1 then, WD-2 now")
        );
        let smaller = Medium {
            size_bytes: 1 << 30,
            ..disk("WD-1")
        };
        assert_eq!(
            disk("WD-1").differs(&smaller).as_deref(),
            Some("its size was 1 TiB then, 1 GiB now")
        );
    }
}
