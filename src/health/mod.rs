//! The drive's own record of its health, read from outside the I/O path: for an NVMe drive
//! its SMART / Health log through the admin ioctl (root; `nvme_log`), else through
//! smartmontools' `smartctl` (`smartctl`, its JSON read by `smartctl_json`); for what keeps no
//! record (a loop device, a virtio disk, an md array) one line says so. A run reads it at its
//! start, once a minute and at its end on a thread of its own (`watch`); `--list`, the picker
//! and `--health` read it once (`read_listed`, `read_all`).
//!
//! This module owns which device is asked and how; what the figures mean is
//! `findings::health`'s, and the record is `model::health`'s plain data. Nothing here reads
//! what could wake a sleeping drive or start a self-test.

pub mod nvme_log;
pub mod sanity;
pub mod smartctl;
pub mod smartctl_json;
pub mod watch;

use std::path::{Path, PathBuf};

use crate::findings::health::device_health;
use crate::model::disk::LinkKind;
use crate::model::health::{DeviceHealth, GapKind, HealthGap, HealthRead};
use crate::target::discover::{DeviceInfo, DeviceKind};
use crate::target::facts::{DiskFacts, nvme_controller};
use crate::target::sysfs::BlockDir;

/// Which drive to ask, and through what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthTarget {
    /// The whole disk (`"sda"`, `"nvme0n1"`); `None` when the target has no block device.
    pub disk: Option<String>,
    pub link: LinkKind,
    /// The NVMe controller (`"nvme0"`) of an NVMe disk.
    pub nvme_controller: Option<String>,
    /// Where device nodes are (`/dev`).
    pub dev_root: PathBuf,
}

impl HealthTarget {
    /// The drive under a run's target, from its facts.
    pub fn of_facts(facts: &DiskFacts) -> HealthTarget {
        HealthTarget {
            disk: facts.disk.clone(),
            link: facts.link.kind,
            nvme_controller: facts.nvme_controller.clone(),
            dev_root: PathBuf::from("/dev"),
        }
    }

    /// A listed disk (`--list`, the picker), its controller found under `sys`.
    pub fn of_device(sys: &Path, dev: &DeviceInfo) -> HealthTarget {
        let block = BlockDir::by_name(sys, &dev.name);
        HealthTarget {
            disk: Some(dev.name.clone()),
            link: dev.link.kind,
            nvme_controller: block.as_ref().and_then(nvme_controller),
            dev_root: Path::new(&dev.path)
                .parent()
                .map_or_else(|| PathBuf::from("/dev"), Path::to_path_buf),
        }
    }

    /// Why this device keeps no SMART record, when it keeps none: "loop device".
    pub fn no_smart(&self) -> Option<&'static str> {
        if self.disk.is_none() {
            return Some("no block device");
        }
        match self.link {
            LinkKind::Loop => Some("loop device"),
            LinkKind::Zram | LinkKind::Ram => Some("RAM disk"),
            LinkKind::Virtio => Some("virtio disk"),
            LinkKind::Xen | LinkKind::Hyperv => Some("virtual disk"),
            LinkKind::Network => Some("network block device"),
            LinkKind::Md => Some("md array: each member keeps its own"),
            LinkKind::Dm => Some("device-mapper device: each disk under it keeps its own"),
            LinkKind::Virtual => Some("virtual device"),
            LinkKind::Pcie | LinkKind::Sata | LinkKind::Sas | LinkKind::Usb => None,
            LinkKind::Unknown => None,
        }
    }
}

/// Reads the record of `target` once: the NVMe log as root, else smartctl.
pub fn read(target: &HealthTarget) -> HealthRead {
    if let Some(why) = target.no_smart() {
        return Err(HealthGap::new(
            GapKind::NoSmart,
            format!("no SMART data ({why})"),
        ));
    }
    let disk = target.disk.as_deref().unwrap_or_default();
    if let Some(ctrl) = &target.nvme_controller {
        if let Some(record) = nvme_log::read(&target.dev_root, ctrl) {
            return Ok(record);
        }
        let node = target.dev_root.join(ctrl).display().to_string();
        let why = if nix::unistd::geteuid().is_root() {
            "could not be read"
        } else {
            "needs root"
        };
        return smartctl::read(&node).map_err(|gap| match gap.kind {
            GapKind::NoSmartctl => HealthGap::new(
                GapKind::NoSmartctl,
                format!(
                    "the NVMe log of {node} {why}; without it, {}",
                    smartctl::absent_text()
                ),
            ),
            _ => gap,
        });
    }
    smartctl::read(&target.dev_root.join(disk).display().to_string())
}

/// Reads every target side by side, each judged; each read is bounded by smartctl's
/// timeout, so one hung drive holds up the others no longer than that.
pub fn read_all(targets: Vec<HealthTarget>) -> Vec<DeviceHealth> {
    std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .map(|t| s.spawn(move || device_health(read(t))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| device_health(Err(failed()))))
            .collect()
    })
}

fn failed() -> HealthGap {
    HealthGap::new(GapKind::Failed, "the health read failed")
}

/// `--list` and the picker: each disk's health, read into its row (partitions share their
/// disk's).
pub fn read_listed(devices: &mut [DeviceInfo]) {
    let sys = crate::sys::sysfs_root();
    let disks: Vec<usize> = (0..devices.len())
        .filter(|i| devices[*i].kind == DeviceKind::Disk)
        .collect();
    let targets = disks
        .iter()
        .map(|i| HealthTarget::of_device(&sys, &devices[*i]))
        .collect();
    for (i, h) in disks.into_iter().zip(read_all(targets)) {
        devices[i].health = Some(h);
    }
}
