//! The physical facts of a run's target, read once at open: which block device carries it (the
//! device itself, or for a regular file the device under its filesystem), that device's link
//! and ceiling, its queue limits, its temperature sensor and, for NVMe, the controller whose
//! thermal log can be read. Plain data for reports and findings; nothing here touches the I/O
//! path, and nothing here fails: a fact that cannot be read is `None` or says why. (Named
//! `DiskFacts` to stay apart from `model::TargetFacts`, the target's size and mode; `report`
//! is what results carry of these.)

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::disk::{DiskReport, TemperatureInfo};

use super::hwmon::{self, SensorInfo, TempSensor, Thresholds};
use super::link::{LinkInfo, is_numbered, link_of};
use super::queue_limits::{self, QueueLimits};
use super::sysfs::BlockDir;

/// What sysfs says of the block device under a target.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskFacts {
    /// The block device the facts are of (`"sda1"`, `"vda"`, `"loop0"`); `None` when the
    /// target has none (a file on tmpfs, NFS, or btrfs's anonymous devices).
    pub device: Option<String>,
    /// Its disk (`"sda"` for `"sda1"`).
    pub disk: Option<String>,
    pub link: LinkInfo,
    pub queue_limits: QueueLimits,
    pub temperature_sensor: SensorInfo,
    /// The sensor's limits, read at open (empty without a sensor).
    pub thresholds: Thresholds,
    /// The NVMe controller (`"nvme0"`) whose SMART log holds the throttling counters.
    pub nvme_controller: Option<String>,
}

/// The block device behind `path`: the device itself for a block device node, else the device
/// holding the file's filesystem. `Err` says why there is none, in words.
pub fn block_of_path(sys: &Path, path: &Path) -> Result<BlockDir, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    BlockDir::by_numbers(sys, major as u32, minor as u32).ok_or_else(|| {
        format!(
            "{}: its filesystem has no block device in sysfs ({major}:{minor}: tmpfs, NFS, \
             btrfs and overlay have none)",
            path.display()
        )
    })
}

impl DiskFacts {
    /// The facts of the target at `path`, read under the sysfs root `sys`.
    pub fn for_path(sys: &Path, path: &Path) -> DiskFacts {
        match block_of_path(sys, path) {
            Ok(block) => DiskFacts::for_block(sys, &block),
            Err(reason) => DiskFacts {
                link: LinkInfo::unknown(&reason),
                temperature_sensor: SensorInfo {
                    reason: Some(format!("no temperature sensor ({reason})")),
                    ..SensorInfo::default()
                },
                ..DiskFacts::default()
            },
        }
    }

    /// The facts of a block device found in sysfs.
    pub fn for_block(sys: &Path, block: &BlockDir) -> DiskFacts {
        let sensor = hwmon::find(block);
        DiskFacts {
            device: Some(block.name.clone()),
            disk: Some(block.disk.clone()),
            link: link_of(sys, block),
            queue_limits: queue_limits::read(block),
            temperature_sensor: match &sensor {
                Ok(s) => s.info(sys),
                Err(reason) => SensorInfo {
                    reason: Some(reason.clone()),
                    ..SensorInfo::default()
                },
            },
            thresholds: sensor.map(|s| s.thresholds()).unwrap_or_default(),
            nvme_controller: nvme_controller(block),
        }
    }
}

impl DiskFacts {
    /// What a run's `config` says of the disk.
    pub fn report(&self) -> DiskReport {
        DiskReport {
            block_device: self.device.clone(),
            link: self.link.clone(),
            queue_limits: self.queue_limits.clone(),
            temperature: TemperatureInfo {
                sensor: self.temperature_sensor.clone(),
                thresholds: self.thresholds,
            },
            nvme_controller: self.nvme_controller.clone(),
        }
    }
}

/// The temperature sensor of the device behind `path`, ready to be read once a second.
pub fn sensor_for_path(sys: &Path, path: &Path) -> Result<TempSensor, String> {
    hwmon::find(&block_of_path(sys, path)?)
}

/// The NVMe controller a namespace hangs from: its `device` directory is the controller
/// (`…/nvme/nvme0`); for a multipath namespace, the first controller of its subsystem.
pub fn nvme_controller(block: &BlockDir) -> Option<String> {
    let device = block.device_dir()?;
    let name = device.file_name()?.to_string_lossy().into_owned();
    if is_numbered(&name, "nvme") {
        return Some(name);
    }
    if name.starts_with("nvme-subsys") {
        return super::sysfs::entries(&device)
            .into_iter()
            .find(|n| is_numbered(n, "nvme"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_does_not_exist_says_so() {
        let sys = tempfile::tempdir().unwrap();
        let facts = DiskFacts::for_path(sys.path(), Path::new("/nonexistent/x"));
        assert_eq!(facts.device, None);
        assert!(
            facts
                .link
                .note
                .as_deref()
                .unwrap()
                .contains("/nonexistent/x")
        );
        assert!(!facts.temperature_sensor.present);
        assert!(
            facts
                .temperature_sensor
                .reason
                .unwrap()
                .starts_with("no temperature sensor")
        );
    }

    #[test]
    fn a_file_whose_device_sysfs_does_not_know_says_so() {
        let sys = tempfile::tempdir().unwrap();
        let file = tempfile::NamedTempFile::new().unwrap();
        let err = block_of_path(sys.path(), file.path()).unwrap_err();
        assert!(err.contains("no block device in sysfs"), "{err}");
    }
}
