//! Discovery of every block device on the machine, as the kernel describes it in sysfs and
//! procfs. This module owns the walk of `sys/block` and the read-only access probe of device
//! nodes; the text parsers live in [`super::parse`], the sysfs readers in [`super::sysfs`], and
//! each disk's link, queue limits and sensor come from [`super::link`],
//! [`super::queue_limits`] and [`super::hwmon`]. It must not write anywhere, open a device for
//! writing, or keep a device open: it only describes.
//!
//! All roots are injectable ([`Roots`]; `Roots::system` honours `SYSFS_PATH`) so tests run
//! against fixture trees, through unit seams and through the real binary.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use super::access::{Access, access_from_errno, probe_access};
use super::hwmon::{SensorInfo, sensor_info};
use super::link::{LinkInfo, link_of};
use super::parse::natural_cmp;
pub use super::parse::{
    Mount, parse_dev_numbers, parse_flag, parse_mountinfo, parse_scheduler, unescape_octal,
};
use super::queue_limits::{self, QueueLimits};
pub use super::sysfs::Roots;
use super::sysfs::{BlockDir, read_attr, resolve};

/// Everything diskscope knows about one block device before touching it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// What carries the data, and its ceiling (a partition: its disk's link).
    pub link: LinkInfo,
    /// The block layer's limits (a partition: its disk's queue).
    pub queue_limits: QueueLimits,
    /// Whether the disk has a temperature sensor; listing never reads it.
    pub temperature_sensor: SensorInfo,
    /// The drive's own health record, where `--list` read it (disks only; a partition shares
    /// its disk's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<crate::model::health::DeviceHealth>,
}

/// Whole disk or partition; serialized as `"disk"` / `"partition"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Disk,
    Partition,
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

/// What a partition takes from its disk: the queue, the identity and the physical facts.
#[derive(Debug, Clone)]
struct Shared {
    model: Option<String>,
    vendor: Option<String>,
    logical_block_size: u32,
    physical_block_size: u32,
    rotational: bool,
    scheduler: Option<String>,
    nr_requests: Option<u32>,
    link: LinkInfo,
    queue_limits: QueueLimits,
    temperature_sensor: SensorInfo,
}

impl Shared {
    /// Reads a disk's directory (`sys/block/<name>`).
    fn read(disk_dir: &Path, name: &str, roots: &Roots) -> Shared {
        let q = disk_dir.join("queue");
        let num = |file: &str| read_attr(&q.join(file)).and_then(|t| t.parse::<u32>().ok());
        let block = BlockDir {
            name: name.to_string(),
            disk: name.to_string(),
            disk_dir: resolve(disk_dir),
        };
        Shared {
            model: read_attr(&disk_dir.join("device").join("model")),
            vendor: read_attr(&disk_dir.join("device").join("vendor")),
            logical_block_size: num("logical_block_size").unwrap_or(512),
            physical_block_size: num("physical_block_size").unwrap_or(512),
            rotational: read_attr(&q.join("rotational"))
                .and_then(|t| parse_flag(&t))
                .unwrap_or(false),
            scheduler: read_attr(&q.join("scheduler")).and_then(|t| parse_scheduler(&t)),
            nr_requests: num("nr_requests"),
            link: link_of(&roots.sys, &block),
            queue_limits: queue_limits::read(&block),
            temperature_sensor: sensor_info(&roots.sys, &block),
        }
    }

    /// What the disk `p` already read.
    fn of(p: &DeviceInfo) -> Shared {
        Shared {
            model: p.model.clone(),
            vendor: p.vendor.clone(),
            logical_block_size: p.logical_block_size,
            physical_block_size: p.physical_block_size,
            rotational: p.rotational,
            scheduler: p.scheduler.clone(),
            nr_requests: p.nr_requests,
            link: p.link.clone(),
            queue_limits: p.queue_limits.clone(),
            temperature_sensor: p.temperature_sensor.clone(),
        }
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
    let (shared, removable) = match parent {
        Some(p) => (Shared::of(p), flag("removable").unwrap_or(p.removable)),
        None => (
            Shared::read(dir, name, roots),
            flag("removable").unwrap_or(false),
        ),
    };
    let node = roots.dev.join(name);
    Ok(DeviceInfo {
        name: name.to_string(),
        path: node.to_string_lossy().into_owned(),
        kind,
        parent: parent.map(|p| p.name.clone()),
        model: shared.model,
        vendor: shared.vendor,
        size_bytes: sectors.saturating_mul(512),
        logical_block_size: shared.logical_block_size,
        physical_block_size: shared.physical_block_size,
        rotational: shared.rotational,
        scheduler: shared.scheduler,
        nr_requests: shared.nr_requests,
        removable,
        read_only: flag("ro").unwrap_or(false),
        major_minor,
        mountpoints: Vec::new(),
        holders: read_holders(&dir.join("holders")),
        access: probe_access(&node),
        link: shared.link,
        queue_limits: shared.queue_limits,
        temperature_sensor: shared.temperature_sensor,
        health: None,
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
    let entries = fs::read_dir(&block).with_context(|| {
        format!(
            "{}: cannot list the block devices (sysfs is read from $SYSFS_PATH when it is set, \
             else /sys)",
            block.display()
        )
    })?;
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
