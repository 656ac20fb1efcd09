//! An NVMe drive's SMART / Health Information log (Get Log Page, Log Identifier 02h), parsed
//! whole by a pure function from its 512 bytes. The layout is the NVM Express Base
//! Specification's, "SMART / Health Information (Log Identifier 02h)" (section 5.14.1.2 in
//! revision 1.4, 5.16.1.3 in 2.0): every field little-endian; the counters from byte 32 on are
//! 128-bit; data units are thousands of 512-byte units (a value of 1 is 512,000 bytes).
//!
//! The read itself is `target::nvme_log::read_smart_log`, a thin wrapper over the admin
//! passthrough ioctl (`NVME_IOCTL_ADMIN_CMD` on `/dev/nvmeN`, root only); its thermal fields
//! are parsed there (`parse_smart_log`) and reused here, so no offset is written twice.

use std::path::Path;

use crate::model::health::{HealthRecord, HealthSource, counter};
use crate::target::nvme_log::{SMART_LOG_BYTES, parse_smart_log, read_smart_log};

/// Critical Warning (byte 0) bits, as the specification names them.
pub use crate::model::health::critical_warning as warning;

/// Bytes in one data unit: 1,000 × 512 bytes.
pub const DATA_UNIT_BYTES: u128 = 512_000;

/// The log, every field the specification defines up to the thermal-management counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NvmeHealthLog {
    pub critical_warning: u8,
    /// Kelvin; 0 where the drive does not report it.
    pub composite_temp_k: u16,
    pub available_spare: u8,
    pub available_spare_threshold: u8,
    pub percentage_used: u8,
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub host_read_commands: u128,
    pub host_write_commands: u128,
    pub controller_busy_minutes: u128,
    pub power_cycles: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    pub error_log_entries: u128,
    pub warning_temp_minutes: u32,
    pub critical_temp_minutes: u32,
}

fn u128_at(buf: &[u8], at: usize) -> u128 {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&buf[at..at + 16]);
    u128::from_le_bytes(bytes)
}

/// Parses the log; `None` when `buf` is shorter than 512 bytes.
pub fn parse(buf: &[u8]) -> Option<NvmeHealthLog> {
    let thermal = parse_smart_log(buf)?;
    Some(NvmeHealthLog {
        critical_warning: buf[0],
        composite_temp_k: u16::from_le_bytes([buf[1], buf[2]]),
        available_spare: buf[3],
        available_spare_threshold: buf[4],
        percentage_used: buf[5],
        data_units_read: u128_at(buf, 32),
        data_units_written: u128_at(buf, 48),
        host_read_commands: u128_at(buf, 64),
        host_write_commands: u128_at(buf, 80),
        controller_busy_minutes: u128_at(buf, 96),
        power_cycles: u128_at(buf, 112),
        power_on_hours: u128_at(buf, 128),
        unsafe_shutdowns: u128_at(buf, 144),
        media_errors: u128_at(buf, 160),
        error_log_entries: u128_at(buf, 176),
        warning_temp_minutes: thermal.warning_temp_minutes,
        critical_temp_minutes: thermal.critical_temp_minutes,
    })
}

/// A 128-bit counter as a u64, saturating (no drive will count past it, but a corrupt page
/// must not wrap).
fn sat(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl NvmeHealthLog {
    /// Bytes written by the host: data units × 512,000.
    pub fn written_bytes(&self) -> u128 {
        self.data_units_written.saturating_mul(DATA_UNIT_BYTES)
    }

    /// Bytes read by the host.
    pub fn read_bytes(&self) -> u128 {
        self.data_units_read.saturating_mul(DATA_UNIT_BYTES)
    }

    /// The log as a record of `device`, read by `source` (diskscope's ioctl, or smartctl's
    /// figures of the same log).
    pub fn record(&self, device: &str, source: HealthSource) -> HealthRecord {
        let mut r = HealthRecord {
            source: Some(source),
            device: device.into(),
            protocol: Some("NVMe".into()),
            power_on_hours: Some(sat(self.power_on_hours)),
            power_cycles: Some(sat(self.power_cycles)),
            written_bytes: Some(sat(self.written_bytes())),
            read_bytes: Some(sat(self.read_bytes())),
            temperature_c: (self.composite_temp_k != 0)
                .then(|| f64::from(self.composite_temp_k) - 273.15),
            percentage_used: Some(u32::from(self.percentage_used)),
            available_spare_pct: Some(u32::from(self.available_spare)),
            available_spare_threshold_pct: Some(u32::from(self.available_spare_threshold)),
            critical_warning: Some(self.critical_warning),
            ..HealthRecord::default()
        };
        r.set_counter(
            counter::MEDIA_ERRORS,
            "media errors",
            None,
            sat(self.media_errors),
        );
        r.set_counter(
            counter::ERROR_LOG_ENTRIES,
            "error log entries",
            None,
            sat(self.error_log_entries),
        );
        r.set_counter(
            counter::UNSAFE_SHUTDOWNS,
            "unsafe shutdowns",
            None,
            sat(self.unsafe_shutdowns),
        );
        let raw: [(&str, u128); 17] = [
            ("critical_warning", self.critical_warning.into()),
            ("composite_temperature_k", self.composite_temp_k.into()),
            ("available_spare", self.available_spare.into()),
            (
                "available_spare_threshold",
                self.available_spare_threshold.into(),
            ),
            ("percentage_used", self.percentage_used.into()),
            ("data_units_read", self.data_units_read),
            ("data_units_written", self.data_units_written),
            ("host_read_commands", self.host_read_commands),
            ("host_write_commands", self.host_write_commands),
            ("controller_busy_time_minutes", self.controller_busy_minutes),
            ("power_cycles", self.power_cycles),
            ("power_on_hours", self.power_on_hours),
            ("unsafe_shutdowns", self.unsafe_shutdowns),
            ("media_errors", self.media_errors),
            ("error_log_entries", self.error_log_entries),
            (
                "warning_temp_time_minutes",
                self.warning_temp_minutes.into(),
            ),
            (
                "critical_temp_time_minutes",
                self.critical_temp_minutes.into(),
            ),
        ];
        r.raw = raw
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        r
    }
}

/// Reads the log of controller `controller` (`"nvme0"`) under `dev` (`/dev`) as a record;
/// `None` where the ioctl cannot (not root, no such controller).
pub fn read(dev: &Path, controller: &str) -> Option<HealthRecord> {
    let buf = read_smart_log(dev, controller)?;
    let device = dev.join(controller).display().to_string();
    let mut r = parse(&buf[..SMART_LOG_BYTES])?.record(&device, HealthSource::NvmeLog);
    // Every field of the page is a number; only its temperature can be none.
    super::sanity::drop_unreadable(None, &mut r);
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page as a drive writes it, built field by field from the specification's layout.
    fn page(fill: impl FnOnce(&mut [u8; 512])) -> [u8; 512] {
        let mut buf = [0u8; 512];
        buf[1..3].copy_from_slice(&310u16.to_le_bytes()); // 36.85 °C
        buf[3] = 100;
        buf[4] = 10;
        buf[5] = 3;
        fill(&mut buf);
        buf
    }

    fn put(buf: &mut [u8], at: usize, v: u128) {
        buf[at..at + 16].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn every_field_sits_where_the_specification_puts_it() {
        let buf = page(|b| {
            for (i, at) in (32..192).step_by(16).enumerate() {
                put(b, at, 1000 + i as u128);
            }
            b[192..196].copy_from_slice(&7u32.to_le_bytes());
            b[196..200].copy_from_slice(&2u32.to_le_bytes());
        });
        let log = parse(&buf).unwrap();
        assert_eq!(log.composite_temp_k, 310);
        assert_eq!(
            (log.available_spare, log.available_spare_threshold),
            (100, 10)
        );
        assert_eq!(log.percentage_used, 3);
        assert_eq!(
            [
                log.data_units_read,
                log.data_units_written,
                log.host_read_commands,
                log.host_write_commands,
                log.controller_busy_minutes,
                log.power_cycles,
                log.power_on_hours,
                log.unsafe_shutdowns,
                log.media_errors,
                log.error_log_entries
            ],
            [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009]
        );
        assert_eq!(
            (log.warning_temp_minutes, log.critical_temp_minutes),
            (7, 2)
        );
        assert_eq!(parse(&buf[..511]), None);
    }

    #[test]
    fn the_128_bit_counters_are_read_whole_and_saturate_into_the_record() {
        // A counter past 2^64 is read as 128 bits (its high half matters)…
        let big = (1u128 << 64) + 5;
        let buf = page(|b| {
            put(b, 48, big);
            put(b, 128, u128::MAX);
            put(b, 32, 2);
        });
        let log = parse(&buf).unwrap();
        assert_eq!(log.data_units_written, big);
        assert_eq!(log.power_on_hours, u128::MAX);
        // …each unit is 1,000 × 512 bytes…
        assert_eq!(log.read_bytes(), 1_024_000);
        let record = log.record("/dev/nvme0", HealthSource::NvmeLog);
        assert_eq!(record.read_bytes, Some(1_024_000));
        // …and the record's u64 saturates instead of wrapping.
        assert_eq!(record.written_bytes, Some(u64::MAX));
        assert_eq!(record.power_on_hours, Some(u64::MAX));
        assert_eq!(record.raw["data_units_written"], big.to_string());
    }

    #[test]
    fn every_critical_warning_bit_is_kept() {
        for bit in [
            warning::SPARE_BELOW_THRESHOLD,
            warning::TEMPERATURE,
            warning::RELIABILITY_DEGRADED,
            warning::READ_ONLY,
            warning::VOLATILE_BACKUP_FAILED,
            warning::PMR_READ_ONLY,
        ] {
            let log = parse(&page(|b| b[0] = bit)).unwrap();
            assert_eq!(log.critical_warning, bit);
            let r = log.record("/dev/nvme0", HealthSource::NvmeLog);
            assert_eq!(r.critical_warning, Some(bit));
        }
        assert_eq!(
            parse(&page(|b| b[0] = 0x3f)).unwrap().critical_warning,
            0x3f
        );
    }

    #[test]
    fn the_record_carries_the_figures_and_the_counters() {
        let buf = page(|b| {
            put(b, 112, 1204);
            put(b, 128, 23_456);
            put(b, 144, 17);
            put(b, 160, 2);
            put(b, 176, 40);
            put(b, 48, 805_000_000); // 412.16 TB
        });
        let r = parse(&buf)
            .unwrap()
            .record("/dev/nvme0", HealthSource::NvmeLog);
        assert_eq!(r.power_on_hours, Some(23_456));
        assert_eq!(r.power_cycles, Some(1204));
        assert_eq!(r.written_bytes, Some(412_160_000_000_000));
        assert_eq!(r.counter(counter::MEDIA_ERRORS), Some(2));
        assert_eq!(r.counter(counter::ERROR_LOG_ENTRIES), Some(40));
        assert_eq!(r.counter(counter::UNSAFE_SHUTDOWNS), Some(17));
        assert!((r.temperature_c.unwrap() - 36.85).abs() < 1e-9);
        assert_eq!(r.percentage_used, Some(3));
        assert_eq!(r.protocol.as_deref(), Some("NVMe"));
    }

    #[test]
    fn no_record_from_what_is_not_an_nvme_controller() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("nvme0"), b"").unwrap();
        assert_eq!(read(dir.path(), "nvme0"), None);
        assert_eq!(read(dir.path(), "sda"), None);
    }
}
