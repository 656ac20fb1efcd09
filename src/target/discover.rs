//! Discovery of every block device on the machine, as the kernel describes it in sysfs and
//! procfs. This module owns the walk of `sys/block`, the pure parsers for the small text files
//! found there and in `proc/self/mountinfo`, and the read-only access probe of device nodes. It
//! must not write anywhere, open a device for writing, or keep a device open: it only describes.
//!
//! All roots are injectable ([`Roots`]) so tests run against fixture trees; parsing is done by
//! pure functions over text so every format quirk is unit-testable.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

/// Everything diskscope knows about one block device before touching it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceInfo {
    /// Kernel name, e.g. `sda1`, `nvme0n1`, `md0`, `loop0`.
    pub name: String,
    /// Device node path: the dev root joined with the name (`/dev/sda1` on a real system).
    pub path: String,
    /// Whole disk or partition.
    pub kind: DeviceKind,
    /// The disk a partition belongs to; `None` for disks.
    pub parent: Option<String>,
    /// `device/model`, trimmed; partitions carry their disk's model.
    pub model: Option<String>,
    /// `device/vendor`, trimmed; partitions carry their disk's vendor.
    pub vendor: Option<String>,
    /// Size in bytes (sysfs `size` counts 512-byte sectors whatever the block size).
    pub size_bytes: u64,
    /// `queue/logical_block_size` (of the parent disk for partitions); 512 when unknown.
    pub logical_block_size: u32,
    /// `queue/physical_block_size` (of the parent disk for partitions); 512 when unknown.
    pub physical_block_size: u32,
    /// `queue/rotational` is `1`.
    pub rotational: bool,
    /// The active I/O scheduler, the bracketed entry of `queue/scheduler`.
    pub scheduler: Option<String>,
    /// `queue/nr_requests`.
    pub nr_requests: Option<u32>,
    /// `removable` is `1` (of the parent disk for partitions).
    pub removable: bool,
    /// `ro` is `1`.
    pub read_only: bool,
    /// Major and minor numbers from the `dev` file.
    pub major_minor: (u32, u32),
    /// Mount points of this device, of its partitions and of its holders, recursively.
    pub mountpoints: Vec<String>,
    /// Names found in this device's `holders/` directory (e.g. `md0`, `dm-0`).
    pub holders: Vec<String>,
    /// Whether the current user can open the device node for reading.
    pub access: Access,
}

/// Whole disk or partition; serialized as `"disk"` / `"partition"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Disk,
    Partition,
}

/// Result of probing the device node with a read-only open.
///
/// Serialized as the string `"ok"` or as `{"denied": "<reason>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Ok,
    Denied(String),
}

impl Access {
    /// True when the device node could be opened for reading.
    pub fn is_ok(&self) -> bool {
        matches!(self, Access::Ok)
    }
}

/// The filesystem roots discovery reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    /// Where sysfs is mounted (`/sys`).
    pub sys: PathBuf,
    /// Where procfs is mounted (`/proc`).
    pub proc: PathBuf,
    /// Where device nodes live (`/dev`).
    pub dev: PathBuf,
}

impl Roots {
    /// The roots of the running system: `/sys`, `/proc`, `/dev`.
    pub fn system() -> Roots {
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

/// One line of `proc/self/mountinfo`, reduced to what discovery needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub major: u32,
    pub minor: u32,
    /// Mount point with octal escapes (`\040` etc.) decoded.
    pub mount_point: String,
}

/// The active scheduler of a `queue/scheduler` line: `"mq-deadline [none]"` gives `"none"`; a
/// lone unbracketed name is taken as is; anything else gives `None`.
pub fn parse_scheduler(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    for word in &words {
        if let Some(inner) = word.strip_prefix('[').and_then(|w| w.strip_suffix(']'))
            && !inner.is_empty()
        {
            return Some(inner.to_string());
        }
    }
    match words.as_slice() {
        [only] if !only.contains('[') && !only.contains(']') => Some((*only).to_string()),
        _ => None,
    }
}

/// `"8:1\n"` gives `(8, 1)`.
pub fn parse_dev_numbers(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// `"1\n"` gives `true`, `"0"` gives `false`, anything else `None`.
pub fn parse_flag(text: &str) -> Option<bool> {
    match text.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// Decodes the `\NNN` octal escapes the kernel uses in mountinfo for space, tab, newline and
/// backslash. Invalid escapes are kept literally.
pub fn unescape_octal(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() {
            let digits = &bytes[i + 1..i + 4];
            if digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                let value = digits
                    .iter()
                    .fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
                if let Ok(byte) = u8::try_from(value) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses `proc/self/mountinfo`: field 3 is `major:minor`, field 5 the mount point. Malformed
/// lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (major, minor) = parse_dev_numbers(fields.get(2)?)?;
            let mount_point = unescape_octal(fields.get(4)?);
            Some(Mount {
                major,
                minor,
                mount_point,
            })
        })
        .collect()
}

/// Maps the errno of a failed read-only open to an [`Access`] verdict.
pub fn access_from_errno(errno: i32) -> Access {
    match nix::errno::Errno::from_raw(errno) {
        nix::errno::Errno::EACCES | nix::errno::Errno::EPERM => {
            Access::Denied("permission denied".to_string())
        }
        nix::errno::Errno::ENOENT => Access::Denied("no device node".to_string()),
        other => Access::Denied(other.desc().to_string()),
    }
}

/// Opens `path` read-only (std opens with `O_RDONLY | O_CLOEXEC`) and closes it at once.
pub fn probe_access(path: &Path) -> Access {
    match fs::File::open(path) {
        Ok(_file) => Access::Ok,
        Err(err) => match err.raw_os_error() {
            Some(errno) => access_from_errno(errno),
            None => Access::Denied(err.to_string()),
        },
    }
}

/// Drops devices of size 0 (unconfigured zram, unattached loop) unless `all`.
pub fn visible(devs: Vec<DeviceInfo>, all: bool) -> Vec<DeviceInfo> {
    if all {
        return devs;
    }
    devs.into_iter().filter(|d| d.size_bytes > 0).collect()
}

/// The device whose `path` is exactly `path`; a bare name without `/` (`"sda"`) matches `name`.
/// Symlinks such as `/dev/disk/by-id/...` must be resolved by the caller.
pub fn find_by_path<'a>(devs: &'a [DeviceInfo], path: &str) -> Option<&'a DeviceInfo> {
    devs.iter().find(|d| d.path == path).or_else(|| {
        if path.contains('/') {
            None
        } else {
            devs.iter().find(|d| d.name == path)
        }
    })
}

/// True when the device, one of its partitions or one of its holders is mounted.
pub fn mounted_anywhere(dev: &DeviceInfo) -> bool {
    !dev.mountpoints.is_empty()
}

/// Reads one sysfs attribute, trimmed; `None` when missing, unreadable or empty.
fn read_attr(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let trimmed = text.trim();
    if trimmed.is_empty() {
        None
    } else {
        Some(trimmed.to_string())
    }
}

fn read_required(path: &Path) -> anyhow::Result<String> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text.trim().to_string())
}

/// Names in a `holders/` directory; empty when it does not exist.
fn read_holders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort_by(|a, b| natural_cmp(a, b));
    names
}

/// Orders names with digit runs compared as numbers, so that `loop2` < `loop10`.
fn natural_cmp(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let ord = match (x, y) {
            ((true, dx), (true, dy)) => {
                let (tx, ty) = (dx.trim_start_matches('0'), dy.trim_start_matches('0'));
                tx.len().cmp(&ty.len()).then(tx.cmp(ty))
            }
            ((_, sx), (_, sy)) => sx.cmp(sy),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    ca.len().cmp(&cb.len()).then(a.cmp(b))
}

/// Queue attributes shared by a disk and its partitions.
#[derive(Debug, Clone)]
struct Queue {
    logical_block_size: u32,
    physical_block_size: u32,
    rotational: bool,
    scheduler: Option<String>,
    nr_requests: Option<u32>,
}

fn read_queue(disk_dir: &Path) -> Queue {
    let q = disk_dir.join("queue");
    let num = |file: &str| read_attr(&q.join(file)).and_then(|t| t.parse::<u32>().ok());
    Queue {
        logical_block_size: num("logical_block_size").unwrap_or(512),
        physical_block_size: num("physical_block_size").unwrap_or(512),
        rotational: read_attr(&q.join("rotational"))
            .and_then(|t| parse_flag(&t))
            .unwrap_or(false),
        scheduler: read_attr(&q.join("scheduler")).and_then(|t| parse_scheduler(&t)),
        nr_requests: num("nr_requests"),
    }
}

/// What one sysfs directory says about one device, before mounts are resolved.
struct Raw {
    info: DeviceInfo,
    partitions: Vec<String>,
}

fn read_device(
    dir: &Path,
    name: &str,
    kind: DeviceKind,
    parent: Option<&DeviceInfo>,
    roots: &Roots,
) -> anyhow::Result<DeviceInfo> {
    let dev_file = dir.join("dev");
    let dev_text = read_required(&dev_file)?;
    let major_minor = parse_dev_numbers(&dev_text)
        .with_context(|| format!("unexpected contents {dev_text:?} in {}", dev_file.display()))?;
    let size_file = dir.join("size");
    let size_text = read_required(&size_file)?;
    let sectors: u64 = size_text.parse().with_context(|| {
        format!(
            "unexpected contents {size_text:?} in {}",
            size_file.display()
        )
    })?;
    let flag = |file: &str| read_attr(&dir.join(file)).and_then(|t| parse_flag(&t));
    let (model, vendor, queue, removable) = match parent {
        Some(p) => (
            p.model.clone(),
            p.vendor.clone(),
            Queue {
                logical_block_size: p.logical_block_size,
                physical_block_size: p.physical_block_size,
                rotational: p.rotational,
                scheduler: p.scheduler.clone(),
                nr_requests: p.nr_requests,
            },
            flag("removable").unwrap_or(p.removable),
        ),
        None => (
            read_attr(&dir.join("device").join("model")),
            read_attr(&dir.join("device").join("vendor")),
            read_queue(dir),
            flag("removable").unwrap_or(false),
        ),
    };
    let node = roots.dev.join(name);
    Ok(DeviceInfo {
        name: name.to_string(),
        path: node.to_string_lossy().into_owned(),
        kind,
        parent: parent.map(|p| p.name.clone()),
        model,
        vendor,
        size_bytes: sectors.saturating_mul(512),
        logical_block_size: queue.logical_block_size,
        physical_block_size: queue.physical_block_size,
        rotational: queue.rotational,
        scheduler: queue.scheduler,
        nr_requests: queue.nr_requests,
        removable,
        read_only: flag("ro").unwrap_or(false),
        major_minor,
        mountpoints: Vec::new(),
        holders: read_holders(&dir.join("holders")),
        access: probe_access(&node),
    })
}

/// Partition subdirectories of a disk directory (those holding a `partition` file), ordered by
/// partition number.
fn partition_dirs(disk_dir: &Path) -> anyhow::Result<Vec<(String, u64)>> {
    let entries =
        fs::read_dir(disk_dir).with_context(|| format!("listing {}", disk_dir.display()))?;
    let mut parts = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", disk_dir.display()))?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let Some(number) = read_attr(&path.join("partition")) else {
            continue;
        };
        let number = number.parse::<u64>().unwrap_or(u64::MAX);
        parts.push((entry.file_name().to_string_lossy().into_owned(), number));
    }
    parts.sort_by(|(na, a), (nb, b)| a.cmp(b).then_with(|| natural_cmp(na, nb)));
    Ok(parts)
}

/// Walks `sys/block` (entries may be symlinks, as in the real sysfs, or plain directories) and
/// each disk's partition subdirectories, and resolves mount points through
/// `proc/self/mountinfo` by major:minor. The result lists each disk followed by its partitions.
///
/// Fails when `sys/block` or `proc/self/mountinfo` cannot be read (without mounts, nothing could
/// tell a mounted device from a free one), or when a device's `dev` or `size` is garbled.
/// Missing optional attributes (model, scheduler, ...) never fail. Mounts of filesystems
/// without a block device of their own (btrfs subvolumes report an anonymous `0:N`) are not
/// matched.
pub fn discover(roots: &Roots) -> anyhow::Result<Vec<DeviceInfo>> {
    let block = roots.sys.join("block");
    let entries = fs::read_dir(&block).with_context(|| format!("listing {}", block.display()))?;
    let mut disk_names = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", block.display()))?;
        disk_names.push(entry.file_name().to_string_lossy().into_owned());
    }
    disk_names.sort_by(|a, b| natural_cmp(a, b));

    let mountinfo = roots.proc.join("self").join("mountinfo");
    let mounts = parse_mountinfo(
        &fs::read_to_string(&mountinfo)
            .with_context(|| format!("reading {}", mountinfo.display()))?,
    );

    let mut raws: Vec<Raw> = Vec::new();
    for disk in &disk_names {
        let dir = block.join(disk);
        // A directory without `dev` is not a block device (or vanished while we looked).
        if !dir.join("dev").exists() {
            continue;
        }
        let info = read_device(&dir, disk, DeviceKind::Disk, None, roots)?;
        let mut parts = Vec::new();
        for (part, _) in partition_dirs(&dir)? {
            let pinfo = read_device(
                &dir.join(&part),
                &part,
                DeviceKind::Partition,
                Some(&info),
                roots,
            )?;
            parts.push(Raw {
                info: pinfo,
                partitions: Vec::new(),
            });
        }
        let names = parts.iter().map(|p| p.info.name.clone()).collect();
        raws.push(Raw {
            info,
            partitions: names,
        });
        raws.extend(parts);
    }

    let index: HashMap<&str, usize> = raws
        .iter()
        .enumerate()
        .map(|(i, r)| (r.info.name.as_str(), i))
        .collect();
    let resolved: Vec<Vec<String>> = (0..raws.len())
        .map(|i| {
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            collect_mounts(i, &raws, &index, &mounts, &mut seen, &mut out);
            out
        })
        .collect();
    let mut devs: Vec<DeviceInfo> = raws.into_iter().map(|r| r.info).collect();
    for (dev, mps) in devs.iter_mut().zip(resolved) {
        dev.mountpoints = mps;
    }
    Ok(devs)
}

/// Own mounts, then those of partitions, then those of holders; each device visited once.
fn collect_mounts(
    i: usize,
    raws: &[Raw],
    index: &HashMap<&str, usize>,
    mounts: &[Mount],
    seen: &mut HashSet<usize>,
    out: &mut Vec<String>,
) {
    if !seen.insert(i) {
        return;
    }
    let dev = &raws[i];
    let (major, minor) = dev.info.major_minor;
    for m in mounts {
        if m.major == major && m.minor == minor && !out.contains(&m.mount_point) {
            out.push(m.mount_point.clone());
        }
    }
    for next in dev.partitions.iter().chain(dev.info.holders.iter()) {
        if let Some(&j) = index.get(next.as_str()) {
            collect_mounts(j, raws, index, mounts, seen, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_takes_bracketed_entry() {
        assert_eq!(
            parse_scheduler("mq-deadline [none]\n").as_deref(),
            Some("none")
        );
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber bfq ").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(parse_scheduler("none").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("none kyber"), None);
        assert_eq!(parse_scheduler(""), None);
        assert_eq!(parse_scheduler("[]"), None);
    }

    #[test]
    fn dev_numbers_parse_and_reject() {
        assert_eq!(parse_dev_numbers("8:1\n"), Some((8, 1)));
        assert_eq!(parse_dev_numbers("259:0"), Some((259, 0)));
        assert_eq!(parse_dev_numbers("8"), None);
        assert_eq!(parse_dev_numbers("a:1"), None);
        assert_eq!(parse_dev_numbers("8:-1"), None);
    }

    #[test]
    fn flags() {
        assert_eq!(parse_flag("1\n"), Some(true));
        assert_eq!(parse_flag("0"), Some(false));
        assert_eq!(parse_flag("yes"), None);
    }

    #[test]
    fn octal_escapes_are_decoded() {
        assert_eq!(unescape_octal(r"/mnt/my\040disk"), "/mnt/my disk");
        assert_eq!(unescape_octal(r"/a\011b\012c\134d"), "/a\tb\nc\\d");
        assert_eq!(unescape_octal(r"/trailing\04"), r"/trailing\04");
        assert_eq!(unescape_octal(r"/bad\089"), r"/bad\089");
        assert_eq!(unescape_octal(r"\"), r"\");
        assert_eq!(unescape_octal(""), "");
    }

    #[test]
    fn mountinfo_fields_3_and_5() {
        let text = "\
36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
29 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
40 29 8:17 / /mnt/my\\040disk rw - ext4 /dev/sdb1 rw
garbage line
41 29 x:y / /nope rw - tmpfs tmpfs rw
";
        let mounts = parse_mountinfo(text);
        assert_eq!(
            mounts,
            vec![
                Mount {
                    major: 98,
                    minor: 0,
                    mount_point: "/mnt2".into()
                },
                Mount {
                    major: 259,
                    minor: 2,
                    mount_point: "/".into()
                },
                Mount {
                    major: 8,
                    minor: 17,
                    mount_point: "/mnt/my disk".into()
                },
            ]
        );
    }

    #[test]
    fn errno_mapping() {
        assert_eq!(
            access_from_errno(nix::errno::Errno::EACCES as i32),
            Access::Denied("permission denied".into())
        );
        assert_eq!(
            access_from_errno(nix::errno::Errno::EPERM as i32),
            Access::Denied("permission denied".into())
        );
        assert_eq!(
            access_from_errno(nix::errno::Errno::ENOENT as i32),
            Access::Denied("no device node".into())
        );
        assert_eq!(
            access_from_errno(nix::errno::Errno::ENOMEDIUM as i32),
            Access::Denied(nix::errno::Errno::ENOMEDIUM.desc().into())
        );
    }

    #[test]
    fn natural_order() {
        let mut names = vec![
            "loop10", "sdaa", "loop2", "sdb", "sda", "nvme10n1", "nvme2n1",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            vec![
                "loop2", "loop10", "nvme2n1", "nvme10n1", "sda", "sdaa", "sdb"
            ]
        );
    }

    #[test]
    fn access_serializes_as_documented() {
        assert_eq!(
            serde_json::to_string(&Access::Ok).ok().as_deref(),
            Some("\"ok\"")
        );
        assert_eq!(
            serde_json::to_string(&Access::Denied("permission denied".into()))
                .ok()
                .as_deref(),
            Some(r#"{"denied":"permission denied"}"#)
        );
        assert_eq!(
            serde_json::to_string(&DeviceKind::Partition)
                .ok()
                .as_deref(),
            Some("\"partition\"")
        );
    }
}
