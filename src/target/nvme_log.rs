//! An NVMe drive's own account of heat: the SMART / Health Information log (Get Log Page
//! 02h, NVMe Base Specification, "SMART / Health Information (Log Identifier 02h)"), read
//! through the admin passthrough ioctl on the controller's character device (`/dev/nvme0`),
//! which needs root. The thermal-management transition counts and total times (TMT1, TMT2)
//! are the drive saying that it throttled; read before and after a run, their rise is stronger
//! evidence than a temperature alone. The parser is pure and tested on a fixture buffer; the
//! read fails quietly (`None`) without root, on other drives, or on any error.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The log's length in bytes.
pub const SMART_LOG_BYTES: usize = 512;
/// Get Log Page's identifier for SMART / Health Information.
const SMART_LOG_ID: u8 = 0x02;
/// The namespace identifier that means "the controller as a whole".
const ALL_NAMESPACES: u32 = 0xffff_ffff;

/// The thermal part of the SMART / Health Information log.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThermalLog {
    /// Bytes 1–2: the composite temperature (reported in kelvin), in °C; `None` for 0 K.
    pub composite_temp_c: Option<f64>,
    /// Byte 0: critical warning bits; bit 1 is "temperature above an over-temperature or
    /// below an under-temperature threshold".
    pub critical_warning: u8,
    /// Bytes 192–195: minutes spent at or above the warning composite temperature (WCTEMP).
    pub warning_temp_minutes: u32,
    /// Bytes 196–199: minutes spent at or above the critical composite temperature (CCTEMP).
    pub critical_temp_minutes: u32,
    /// Bytes 216–219: times the controller entered light throttling (TMT1).
    pub tmt1_transitions: u32,
    /// Bytes 220–223: times it entered heavy throttling (TMT2).
    pub tmt2_transitions: u32,
    /// Bytes 224–227: seconds spent throttling at TMT1.
    pub tmt1_total_s: u32,
    /// Bytes 228–231: seconds spent throttling at TMT2.
    pub tmt2_total_s: u32,
}

/// How much more the drive throttled between two readings of its log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThrottleDelta {
    pub tmt1_transitions: u32,
    pub tmt2_transitions: u32,
    pub tmt1_s: u32,
    pub tmt2_s: u32,
}

impl ThrottleDelta {
    /// True when the drive reports any throttling in the interval.
    pub fn throttled(&self) -> bool {
        *self != ThrottleDelta::default()
    }
}

fn u16_at(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([buf[at], buf[at + 1]])
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

/// Parses the thermal fields of a SMART / Health Information log (little-endian, as NVMe
/// defines every field); `None` when `buf` is shorter than the log.
pub fn parse_smart_log(buf: &[u8]) -> Option<ThermalLog> {
    if buf.len() < SMART_LOG_BYTES {
        return None;
    }
    let kelvin = u16_at(buf, 1);
    Some(ThermalLog {
        composite_temp_c: (kelvin != 0).then(|| f64::from(kelvin) - 273.15),
        critical_warning: buf[0],
        warning_temp_minutes: u32_at(buf, 192),
        critical_temp_minutes: u32_at(buf, 196),
        tmt1_transitions: u32_at(buf, 216),
        tmt2_transitions: u32_at(buf, 220),
        tmt1_total_s: u32_at(buf, 224),
        tmt2_total_s: u32_at(buf, 228),
    })
}

impl ThermalLog {
    /// What changed since `before` (counters that went backwards, as after a controller reset,
    /// count as zero).
    pub fn since(&self, before: &ThermalLog) -> ThrottleDelta {
        ThrottleDelta {
            tmt1_transitions: self
                .tmt1_transitions
                .saturating_sub(before.tmt1_transitions),
            tmt2_transitions: self
                .tmt2_transitions
                .saturating_sub(before.tmt2_transitions),
            tmt1_s: self.tmt1_total_s.saturating_sub(before.tmt1_total_s),
            tmt2_s: self.tmt2_total_s.saturating_sub(before.tmt2_total_s),
        }
    }
}

/// Reads the log of NVMe controller `controller` (`"nvme0"`) through `<dev>/<controller>`;
/// `None` without root, for a name that is not an NVMe controller, or on any error.
pub fn read_thermal_log(dev: &Path, controller: &str) -> Option<ThermalLog> {
    if !super::link::is_numbered(controller, "nvme") {
        return None;
    }
    let file = std::fs::File::open(dev.join(controller)).ok()?;
    let mut buf = [0u8; SMART_LOG_BYTES];
    crate::sys::nvme_get_log_page(&file, SMART_LOG_ID, ALL_NAMESPACES, &mut buf)?;
    parse_smart_log(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log as a drive that has throttled would return it: 352 K (78.85 °C), 3 and 1
    /// transitions, 95 and 4 seconds, 2 minutes above WCTEMP.
    fn fixture() -> [u8; SMART_LOG_BYTES] {
        let mut buf = [0u8; SMART_LOG_BYTES];
        buf[0] = 0b10;
        buf[1..3].copy_from_slice(&352u16.to_le_bytes());
        buf[3] = 100; // available spare: not a thermal field, must not leak in
        buf[192..196].copy_from_slice(&2u32.to_le_bytes());
        buf[216..220].copy_from_slice(&3u32.to_le_bytes());
        buf[220..224].copy_from_slice(&1u32.to_le_bytes());
        buf[224..228].copy_from_slice(&95u32.to_le_bytes());
        buf[228..232].copy_from_slice(&4u32.to_le_bytes());
        buf
    }

    #[test]
    fn the_thermal_fields_sit_where_the_specification_puts_them() {
        let log = parse_smart_log(&fixture()).unwrap();
        assert!((log.composite_temp_c.unwrap() - 78.85).abs() < 1e-9);
        assert_eq!(log.critical_warning, 0b10);
        assert_eq!(log.warning_temp_minutes, 2);
        assert_eq!(log.critical_temp_minutes, 0);
        assert_eq!((log.tmt1_transitions, log.tmt2_transitions), (3, 1));
        assert_eq!((log.tmt1_total_s, log.tmt2_total_s), (95, 4));
        assert_eq!(parse_smart_log(&fixture()[..511]), None);
        let mut cold = fixture();
        cold[1..3].copy_from_slice(&0u16.to_le_bytes());
        assert_eq!(parse_smart_log(&cold).unwrap().composite_temp_c, None);
    }

    #[test]
    fn a_rise_in_the_counters_is_throttling() {
        let before = parse_smart_log(&fixture()).unwrap();
        let mut later = fixture();
        later[216..220].copy_from_slice(&5u32.to_le_bytes());
        later[224..228].copy_from_slice(&130u32.to_le_bytes());
        let after = parse_smart_log(&later).unwrap();
        let delta = after.since(&before);
        assert_eq!(
            delta,
            ThrottleDelta {
                tmt1_transitions: 2,
                tmt2_transitions: 0,
                tmt1_s: 35,
                tmt2_s: 0
            }
        );
        assert!(delta.throttled());
        assert!(!before.since(&before).throttled());
        // A reset controller's counters go back to zero: no negative throttling.
        assert!(!before.since(&after).throttled());
    }

    #[test]
    fn no_log_from_what_is_not_an_nvme_controller() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("nvme0"), b"").unwrap();
        assert_eq!(read_thermal_log(dir.path(), "nvme0"), None);
        assert_eq!(read_thermal_log(dir.path(), "sda"), None);
        assert_eq!(read_thermal_log(dir.path(), "../nvme0"), None);
    }
}
