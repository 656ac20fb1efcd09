//! A disk's temperature sensor, where the kernel has one: the NVMe driver's hwmon device
//! (kernel 5.5+ with NVME_HWMON, under the controller, `class/nvme/nvmeX/hwmonN`, or under
//! the PCI function on the first kernels that had it) and `drivetemp`'s for SATA drives
//! (`hwmon/hwmonN` under the SCSI device; Documentation/hwmon/drivetemp.rst). [`find`] is
//! called once at open; [`TempReader::read_c`] is the cheap read meant for once a second, off
//! the I/O path, beside the kernel's counters: one `pread` of a small file into a fixed buffer.
//!
//! Listing a device only says whether it has a sensor and never reads it: drivetemp's
//! documentation warns that reading may reset some drives' spin-down timer. A missing sensor
//! is said once ("no temperature sensor"), never shown as 0 °C.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub use crate::model::disk::{SensorInfo, Thresholds};

use super::link::is_numbered;
use super::sysfs::{BlockDir, entries, read_attr, relative, resolve, subsystem};

/// Readings at or below this are the sensor saying "no value" (0 K), not a temperature.
const ABSOLUTE_ZERO_MILLI_C: i64 = -273_150;
/// Thresholds above this are unset (NVMe reports FFFFh kelvin, about 65,262 °C, for "none").
const MAX_PLAUSIBLE_MILLI_C: i64 = 200_000;

/// A temperature sensor found in sysfs.
#[derive(Debug, Clone, PartialEq)]
pub struct TempSensor {
    /// The hwmon device's `name`: `"nvme"`, `"drivetemp"`.
    pub name: String,
    /// `temp1_label` where the driver gives one (`"Composite"` for NVMe).
    pub label: Option<String>,
    /// The hwmon directory (`…/nvme0/hwmon2`).
    pub dir: PathBuf,
}

/// Parses a hwmon temperature (millidegrees Celsius, `"45850\n"`) into °C.
pub fn parse_milli_c(text: &str) -> Option<f64> {
    let milli: i64 = text.trim().parse().ok()?;
    (milli > ABSOLUTE_ZERO_MILLI_C).then_some(milli as f64 / 1000.0)
}

fn threshold(dir: &Path, file: &str) -> Option<f64> {
    let milli: i64 = read_attr(&dir.join(file))?.parse().ok()?;
    (milli > ABSOLUTE_ZERO_MILLI_C && milli <= MAX_PLAUSIBLE_MILLI_C)
        .then_some(milli as f64 / 1000.0)
}

impl TempSensor {
    /// Reads `temp1_max` and `temp1_crit` (for NVMe each is one admin command to the drive).
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            warn_c: threshold(&self.dir, "temp1_max"),
            crit_c: threshold(&self.dir, "temp1_crit"),
        }
    }

    /// Opens `temp1_input` for repeated reads.
    pub fn reader(&self) -> std::io::Result<TempReader> {
        Ok(TempReader {
            file: File::open(self.dir.join("temp1_input"))?,
            buf: [0; 32],
        })
    }

    /// What a listing or a report says of this sensor.
    pub fn info(&self, sys: &Path) -> SensorInfo {
        SensorInfo {
            present: true,
            name: Some(self.name.clone()),
            label: self.label.clone(),
            sysfs_path: Some(relative(sys, &self.dir)),
            reason: None,
        }
    }
}

/// An open `temp1_input`: each [`read_c`](TempReader::read_c) re-reads it from offset 0 (a
/// sysfs attribute is regenerated on a read at offset 0), without allocating.
#[derive(Debug)]
pub struct TempReader {
    file: File,
    buf: [u8; 32],
}

impl TempReader {
    /// The temperature now in °C; `None` when the driver fails the read (a drive in standby,
    /// a sensor error) or returns no temperature.
    pub fn read_c(&mut self) -> Option<f64> {
        let n = self.file.read_at(&mut self.buf, 0).ok()?;
        parse_milli_c(std::str::from_utf8(&self.buf[..n]).ok()?)
    }
}

/// The sensor of `block`'s disk, or the reason there is none.
pub fn find(block: &BlockDir) -> Result<TempSensor, String> {
    let Some(device) = block.device_dir() else {
        return Err(format!(
            "no temperature sensor ({}: a virtual device)",
            block.disk
        ));
    };
    let candidates = places(&device);
    candidates
        .iter()
        .find_map(|dir| hwmon_in(dir))
        .ok_or_else(|| {
            let hint = if subsystem(&device).as_deref() == Some("virtio") {
                "virtio: the drive behind it belongs to the host"
            } else if block.disk.starts_with("nvme") {
                "the kernel's NVMe hwmon needs 5.5+ with NVME_HWMON"
            } else if block.disk.starts_with("sd") {
                "drivetemp is not loaded, or the drive reports none"
            } else {
                "none found under the device"
            };
            format!("no temperature sensor ({hint})")
        })
}

/// [`find`] as plain data for a listing.
pub fn sensor_info(sys: &Path, block: &BlockDir) -> SensorInfo {
    match find(block) {
        Ok(sensor) => sensor.info(sys),
        Err(reason) => SensorInfo {
            reason: Some(reason),
            ..SensorInfo::default()
        },
    }
}

/// Where a disk's sensor can sit: its device directory (an NVMe controller, a SCSI device),
/// the PCI function above an NVMe controller, and every controller of a multipath subsystem.
fn places(device: &Path) -> Vec<PathBuf> {
    let mut out = vec![device.to_path_buf()];
    let name = device
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.starts_with("nvme-subsys") {
        for c in entries(device)
            .into_iter()
            .filter(|c| is_numbered(c, "nvme"))
        {
            out.push(resolve(&device.join(c)));
        }
    }
    let controllers = out.clone();
    for c in controllers {
        let parent = c
            .parent()
            .filter(|p| p.file_name().is_some_and(|n| n == "nvme"));
        if let Some(function) = parent.and_then(Path::parent) {
            out.push(function.to_path_buf());
        }
    }
    out
}

/// A hwmon device with `temp1_input` directly in `dir` (`hwmonN`) or in its `hwmon/` glue
/// directory.
fn hwmon_in(dir: &Path) -> Option<TempSensor> {
    let direct = entries(dir).into_iter().map(|n| dir.join(n));
    let glue = entries(&dir.join("hwmon"))
        .into_iter()
        .map(|n| dir.join("hwmon").join(n));
    direct
        .chain(glue)
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| is_numbered(&n.to_string_lossy(), "hwmon"))
        })
        .find(|p| p.join("temp1_input").exists())
        .map(|p| TempSensor {
            name: read_attr(&p.join("name")).unwrap_or_else(|| "hwmon".into()),
            label: read_attr(&p.join("temp1_label")),
            dir: resolve(&p),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn millidegrees_and_the_values_that_are_not_temperatures() {
        assert_eq!(parse_milli_c("45850\n"), Some(45.85));
        assert_eq!(parse_milli_c("-5000"), Some(-5.0));
        assert_eq!(parse_milli_c("0"), Some(0.0));
        assert_eq!(parse_milli_c("-273150"), None);
        assert_eq!(parse_milli_c(""), None);
        assert_eq!(parse_milli_c("hot"), None);
    }

    #[test]
    fn the_reader_rereads_the_file_each_time() {
        let dir = tempfile::tempdir().unwrap();
        let hw = dir.path().join("hwmon3");
        fs::create_dir_all(&hw).unwrap();
        fs::write(hw.join("temp1_input"), "41000\n").unwrap();
        fs::write(hw.join("temp1_max"), "65261850\n").unwrap();
        fs::write(hw.join("temp1_crit"), "84850\n").unwrap();
        let sensor = hwmon_in(dir.path()).unwrap();
        let mut reader = sensor.reader().unwrap();
        assert_eq!(reader.read_c(), Some(41.0));
        fs::write(hw.join("temp1_input"), "79000\n").unwrap();
        assert_eq!(reader.read_c(), Some(79.0));
        fs::write(hw.join("temp1_input"), "").unwrap();
        assert_eq!(reader.read_c(), None);
        // FFFFh kelvin is "no threshold", not 65,262 °C.
        assert_eq!(
            sensor.thresholds(),
            Thresholds {
                warn_c: None,
                crit_c: Some(84.85)
            }
        );
    }
}
