//! An NVMe drive's own account of heat: the SMART / Health Information log (Get Log Page
//! 02h, NVMe Base Specification, "SMART / Health Information (Log Identifier 02h)"), read
//! through the admin passthrough ioctl on the controller's character device (`/dev/nvme0`),
//! which needs root. The thermal-management transition counts and total times (TMT1, TMT2)
//! are the drive saying that it throttled; read before and after a run, their rise is stronger
//! evidence than a temperature alone. The parser is pure and tested on a fixture buffer; the
//! read fails quietly (`None`) without root, on other drives, or on any error.

use std::path::Path;

pub use crate::model::disk::{ThermalLog, ThrottleDelta};

/// The log's length in bytes.
pub const SMART_LOG_BYTES: usize = 512;
/// Get Log Page's identifier for SMART / Health Information.
const SMART_LOG_ID: u8 = 0x02;
/// The namespace identifier that means "the controller as a whole".
const ALL_NAMESPACES: u32 = 0xffff_ffff;

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

/// Reads the log of NVMe controller `controller` (`"nvme0"`) through `<dev>/<controller>`;
/// `None` without root, for a name that is not an NVMe controller, or on any error.
pub fn read_thermal_log(dev: &Path, controller: &str) -> Option<ThermalLog> {
    parse_smart_log(&read_smart_log(dev, controller)?)
}

/// The 512 bytes of the SMART / Health Information log of NVMe controller `controller`
/// (`"nvme0"`), through `<dev>/<controller>` and the admin passthrough ioctl; `None` without
/// root, for a name that is not an NVMe controller, or on any error. `health::nvme_log`
/// parses the whole page, `parse_smart_log` its thermal fields.
pub fn read_smart_log(dev: &Path, controller: &str) -> Option<[u8; SMART_LOG_BYTES]> {
    if !super::link::is_numbered(controller, "nvme") {
        return None;
    }
    let file = std::fs::File::open(dev.join(controller)).ok()?;
    let mut buf = [0u8; SMART_LOG_BYTES];
    crate::sys::nvme_get_log_page(&file, SMART_LOG_ID, ALL_NAMESPACES, &mut buf)?;
    Some(buf)
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
