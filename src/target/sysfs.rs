//! Reading sysfs: the roots every read goes through ([`Roots`]; sysfs itself honours
//! `SYSFS_PATH` through [`crate::sys::sysfs_root`]), small attribute readers that turn a
//! missing or garbled file into `None`, and the resolution of a block device name or a
//! major:minor pair to its directory, its disk and its `device` directory. Nothing here writes,
//! and nothing here is meant for the I/O path: these are the facts read at open.

use std::fs;
use std::path::{Component, Path, PathBuf};

/// The filesystem roots discovery and the fact readers read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    /// Where sysfs is mounted (`/sys`, or `$SYSFS_PATH`).
    pub sys: PathBuf,
    /// Where procfs is mounted (`/proc`).
    pub proc: PathBuf,
    /// Where device nodes live (`/dev`).
    pub dev: PathBuf,
}

impl Roots {
    /// The roots of the running system: `$SYSFS_PATH` or `/sys`, `/proc`, `/dev`.
    pub fn system() -> Roots {
        Roots {
            sys: crate::sys::sysfs_root(),
            proc: PathBuf::from("/proc"),
            dev: PathBuf::from("/dev"),
        }
    }

    /// The running kernel's own roots, `/sys`, `/proc`, `/dev`, whatever `SYSFS_PATH` says:
    /// for the check that a write target is not in use, which must see this machine's
    /// holders and loop devices, never a tree that stands in for them.
    pub fn machine() -> Roots {
        Roots {
            sys: PathBuf::from("/sys"),
            proc: PathBuf::from("/proc"),
            dev: PathBuf::from("/dev"),
        }
    }

    /// `base/sys`, `base/proc` and `base/dev`: the layout of a fixture tree.
    pub fn under(base: &Path) -> Roots {
        Roots {
            sys: base.join("sys"),
            proc: base.join("proc"),
            dev: base.join("dev"),
        }
    }
}

/// Reads one sysfs attribute, trimmed; `None` when missing, unreadable or empty.
pub fn read_attr(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let trimmed = text.trim();
    if trimmed.is_empty() {
        None
    } else {
        Some(trimmed.to_string())
    }
}

/// An attribute parsed as a number; `None` when missing or not a number.
pub fn read_num<T: std::str::FromStr>(path: &Path) -> Option<T> {
    read_attr(path)?.parse().ok()
}

/// The last component of the `subsystem` link of a sysfs device directory (`virtio`, `pci`,
/// `usb`, `scsi`, `block` …); `None` when the directory has none.
pub fn subsystem(dir: &Path) -> Option<String> {
    let target = fs::read_link(dir.join("subsystem")).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// The last component of the `driver` link (`uas`, `usb-storage`, `nvme`, `ahci` …).
pub fn driver(dir: &Path) -> Option<String> {
    let target = fs::read_link(dir.join("driver")).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// Names of the entries of `dir` (files, directories and links), sorted; empty when it
/// cannot be read.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|it| {
            it.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort_by(|a, b| super::parse::natural_cmp(a, b));
    names
}

/// `path` with its symbolic links resolved, or `path` itself when it cannot be (a fixture
/// tree built of plain directories resolves to itself).
pub fn resolve(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `path` with links resolved, relative to the sysfs root, for reports
/// (`devices/pci0000:00/0000:00:1d.0`); the resolved path when it is not under the root.
pub fn relative(sys: &Path, path: &Path) -> String {
    let (root, path) = (resolve(sys), resolve(path));
    let rel = path.strip_prefix(&root).unwrap_or(&path);
    rel.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A block device as sysfs places it: its own directory, and the directory of its disk (the
/// same for a disk; the parent directory for a partition, where `queue/` and `device` live).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDir {
    /// The kernel name (`sda1`, `nvme0n1`, `md0`).
    pub name: String,
    /// The kernel name of its disk (`sda` for `sda1`).
    pub disk: String,
    /// `sys/block/<disk>` with links resolved.
    pub disk_dir: PathBuf,
}

impl BlockDir {
    /// A device by kernel name: a disk under `sys/block`, else a partition found through
    /// `sys/class/block/<name>` or as a subdirectory of a disk in `sys/block`.
    pub fn by_name(sys: &Path, name: &str) -> Option<BlockDir> {
        if name.is_empty() || name.contains('/') {
            return None;
        }
        let disk = sys.join("block").join(name);
        if disk.join("dev").exists() {
            return Some(BlockDir {
                name: name.to_string(),
                disk: name.to_string(),
                disk_dir: resolve(&disk),
            });
        }
        let class = sys.join("class").join("block").join(name);
        if class.join("partition").exists() {
            return Self::partition(name, &resolve(&class));
        }
        entries(&sys.join("block")).into_iter().find_map(|d| {
            let dir = sys.join("block").join(&d).join(name);
            dir.join("partition")
                .exists()
                .then(|| Self::partition(name, &resolve(&dir)))?
        })
    }

    /// A device by major:minor, through `sys/dev/block/M:m` (the kernel's index of every
    /// block device).
    pub fn by_numbers(sys: &Path, major: u32, minor: u32) -> Option<BlockDir> {
        let link = sys
            .join("dev")
            .join("block")
            .join(format!("{major}:{minor}"));
        let dir = fs::canonicalize(&link).ok()?;
        let name = dir.file_name()?.to_string_lossy().into_owned();
        if dir.join("partition").exists() {
            Self::partition(&name, &dir)
        } else {
            Some(BlockDir {
                disk: name.clone(),
                name,
                disk_dir: dir,
            })
        }
    }

    fn partition(name: &str, dir: &Path) -> Option<BlockDir> {
        let disk_dir = dir.parent()?.to_path_buf();
        Some(BlockDir {
            name: name.to_string(),
            disk: disk_dir.file_name()?.to_string_lossy().into_owned(),
            disk_dir,
        })
    }

    /// The disk's `device` directory with links resolved (`…/0000:3d:00.0/nvme/nvme0`,
    /// `…/2:0:0:0`); `None` for virtual devices (loop, md, dm, zram), which have none.
    pub fn device_dir(&self) -> Option<PathBuf> {
        fs::canonicalize(self.disk_dir.join("device")).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_partition_is_found_under_its_disk_and_by_numbers() {
        let root = tempfile::tempdir().unwrap();
        let sys = root.path();
        let disk = sys.join("devices/pci0000:00/0000:00:17.0/ata1/block/sda");
        fs::create_dir_all(disk.join("sda1")).unwrap();
        fs::write(disk.join("dev"), "8:0\n").unwrap();
        fs::write(disk.join("sda1/dev"), "8:1\n").unwrap();
        fs::write(disk.join("sda1/partition"), "1\n").unwrap();
        fs::create_dir_all(sys.join("block")).unwrap();
        fs::create_dir_all(sys.join("dev/block")).unwrap();
        symlink(
            "../devices/pci0000:00/0000:00:17.0/ata1/block/sda",
            sys.join("block/sda"),
        )
        .unwrap();
        symlink(
            "../../devices/pci0000:00/0000:00:17.0/ata1/block/sda/sda1",
            sys.join("dev/block/8:1"),
        )
        .unwrap();
        let by_name = BlockDir::by_name(sys, "sda1").unwrap();
        assert_eq!(by_name.disk, "sda");
        assert_eq!(by_name.disk_dir, fs::canonicalize(&disk).unwrap());
        assert_eq!(BlockDir::by_numbers(sys, 8, 1), Some(by_name));
        assert_eq!(BlockDir::by_name(sys, "sda").unwrap().name, "sda");
        assert_eq!(BlockDir::by_name(sys, "sdz"), None);
        assert_eq!(BlockDir::by_name(sys, "../etc"), None);
        assert_eq!(BlockDir::by_numbers(sys, 8, 99), None);
        assert_eq!(
            relative(sys, &fs::canonicalize(&disk).unwrap()),
            "devices/pci0000:00/0000:00:17.0/ata1/block/sda"
        );
    }

    #[test]
    fn attributes_that_are_missing_or_garbled_are_none() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("n"), "42\n").unwrap();
        fs::write(dir.path().join("bad"), "4x2\n").unwrap();
        fs::write(dir.path().join("empty"), "\n").unwrap();
        assert_eq!(read_num::<u32>(&dir.path().join("n")), Some(42));
        assert_eq!(read_num::<u32>(&dir.path().join("bad")), None);
        assert_eq!(read_attr(&dir.path().join("empty")), None);
        assert_eq!(read_attr(&dir.path().join("missing")), None);
        assert_eq!(subsystem(dir.path()), None);
    }
}
