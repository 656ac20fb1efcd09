//! The target's second: what the kernel and the drive say about the target's device, read
//! once a second by whoever consumes the engine's snapshots (the TUI's run screen, the
//! headless printer), never by a worker or the sampler. One read of `/proc/diskstats` gives
//! the device's iostat-style rates (and each md/dm member's) since the last read; one
//! `pread` of the drive's hwmon `temp1_input` gives its temperature.
//!
//! This module owns when and what is read; the arithmetic is `diskstats`', the sensor is
//! found by `target::facts`. It keeps no history and judges nothing: consumers put the
//! figures beside their own and hand them to `why`. A temperature source can be injected
//! (`Thermometer`), so a test can drive the real sampler with a sensor it controls.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::diskstats::members::{self, Member};
use crate::diskstats::{self, DiskCounters, KernelRates};
use crate::target::hwmon::TempReader;

/// Something that says the drive's temperature now, °C; `None` when it cannot.
pub trait Thermometer: Send {
    fn read_c(&mut self) -> Option<f64>;
}

impl Thermometer for TempReader {
    fn read_c(&mut self) -> Option<f64> {
        TempReader::read_c(self)
    }
}

/// One second of the target's device, as the kernel and the sensor saw it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceSecond {
    /// The device's rates since the previous read; `None` on the first read after a start or
    /// restart, or when the device is not in /proc/diskstats.
    pub kernel: Option<KernelRates>,
    /// The md/dm members' rates over the same stretch (empty for a plain disk).
    pub members: Vec<(Member, Option<KernelRates>)>,
    /// The drive's temperature, °C; `None` without a sensor or when the read failed.
    pub temp_c: Option<f64>,
}

/// Reads the target's second.
pub struct Sensors {
    /// The device's name in /proc/diskstats; `None` when the target has none (tmpfs).
    device: Option<String>,
    members: Vec<Member>,
    proc_root: PathBuf,
    prev: Option<(Instant, Vec<(String, DiskCounters)>)>,
    thermometer: Option<Box<dyn Thermometer>>,
}

impl Sensors {
    /// The sensors of the target at `path`: its device in `proc_root/diskstats` (by major and
    /// minor number), the device's md/dm members and its temperature sensor under `sys_root`
    /// (the machine's is `crate::sys::sysfs_root()`, which honours `SYSFS_PATH`).
    pub fn open(path: &Path, proc_root: &Path, sys_root: &Path) -> Sensors {
        let device = diskstats::devmap::device_of(path, proc_root);
        let thermometer = crate::target::facts::sensor_for_path(sys_root, path)
            .ok()
            .and_then(|s| s.reader().ok())
            .map(|r| Box::new(r) as Box<dyn Thermometer>);
        Sensors::new(device, proc_root, sys_root, thermometer)
    }

    /// Sensors of `device` (its diskstats name) with `thermometer` as the temperature source.
    pub fn new(
        device: Option<String>,
        proc_root: &Path,
        sys_root: &Path,
        thermometer: Option<Box<dyn Thermometer>>,
    ) -> Sensors {
        let members = device
            .as_deref()
            .map(|d| members::members(sys_root, d))
            .unwrap_or_default();
        Sensors {
            device,
            members,
            proc_root: proc_root.to_path_buf(),
            prev: None,
            thermometer,
        }
    }

    /// The device's name in /proc/diskstats.
    pub fn device(&self) -> Option<&str> {
        self.device.as_deref()
    }

    /// The md/dm members under the device.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// True when a temperature source was found (or injected).
    pub fn has_thermometer(&self) -> bool {
        self.thermometer.is_some()
    }

    /// Forgets the last counters: after a pause or a stop, the next second's rates must not
    /// span time the app leaves out, so the next read only starts a new second.
    pub fn restart(&mut self) {
        self.prev = None;
    }

    /// Reads /proc/diskstats once and the sensor once: the rates since the last read, and
    /// the temperature now.
    pub fn read(&mut self) -> DeviceSecond {
        let now = Instant::now();
        let counters = std::fs::read_to_string(self.proc_root.join("diskstats"))
            .ok()
            .map(|text| diskstats::parse_diskstats(&text));
        let rates_of = |name: &str| -> Option<KernelRates> {
            let (t0, c0) = self.prev.as_ref()?;
            let find = |all: &[(String, DiskCounters)]| {
                all.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
            };
            Some(diskstats::rates(
                &find(c0)?,
                &find(counters.as_ref()?)?,
                now - *t0,
            ))
        };
        let kernel = self.device.as_deref().and_then(rates_of);
        let members = self
            .members
            .iter()
            .map(|m| (m.clone(), rates_of(&m.name)))
            .collect();
        self.prev = counters.map(|c| (now, c));
        let temp_c = self.thermometer.as_mut().and_then(|t| t.read_c());
        DeviceSecond {
            kernel,
            members,
            temp_c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<Option<f64>>);

    impl Thermometer for Fixed {
        fn read_c(&mut self) -> Option<f64> {
            if self.0.is_empty() {
                None
            } else {
                self.0.remove(0)
            }
        }
    }

    fn diskstats(dir: &Path, reads: u64, ticks_ms: u64) {
        let line = format!(
            "   8       0 sda {reads} 0 {} 0 0 0 0 0 0 {ticks_ms} {ticks_ms}\n",
            reads * 8
        );
        std::fs::write(dir.join("diskstats"), line).unwrap();
    }

    #[test]
    fn a_second_is_the_kernels_rates_since_the_last_read_and_the_temperature_now() {
        let proc = tempfile::tempdir().unwrap();
        let sys = tempfile::tempdir().unwrap();
        diskstats(proc.path(), 100, 10);
        let thermo = Fixed(vec![Some(41.0), None, Some(79.0)]);
        let mut s = Sensors::new(
            Some("sda".into()),
            proc.path(),
            sys.path(),
            Some(Box::new(thermo)),
        );
        let first = s.read();
        assert_eq!(first.kernel, None, "one reading is not a rate");
        assert_eq!(first.temp_c, Some(41.0));
        diskstats(proc.path(), 300, 20);
        let second = s.read();
        let k = second.kernel.expect("two readings make a rate");
        assert!(k.r_per_s > 0.0 && k.util_pct > 0.0, "{k:?}");
        assert_eq!(
            second.temp_c, None,
            "a failed read is no temperature, not 0"
        );
        s.restart();
        let third = s.read();
        assert_eq!(third.kernel, None, "a restart begins a new second");
        assert_eq!(third.temp_c, Some(79.0));
    }

    #[test]
    fn a_target_without_a_device_or_sensor_reads_nothing() {
        let proc = tempfile::tempdir().unwrap();
        let mut s = Sensors::new(None, proc.path(), proc.path(), None);
        assert!(!s.has_thermometer());
        assert_eq!(s.read(), DeviceSecond::default());
    }
}
