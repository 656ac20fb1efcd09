//! What smartctl's JSON says that cannot be a reading is not taken as one. A field of the
//! NVMe log that is missing, a string, negative or fractional is not read as 0 (a
//! `critical_warning` of "bad" once read as "no warning", and the drive as ok), and a
//! temperature outside what any drive survives is not shown as one. Each field dropped is
//! named in the record's raw fields under `unreadable`, so `--health --json` says what was
//! left out and why the verdict may be unknown.

use serde_json::Value;

use crate::model::health::{HealthRecord, counter};

/// Temperatures a drive can report and still be read as a temperature, in °C (a choice: the
/// widest rated range of storage parts, JEDEC's extended industrial −55 to 125 °C, with room
/// above for a drive past its own critical point, which should still be shown).
const PLAUSIBLE_C: std::ops::RangeInclusive<f64> = -55.0..=200.0;

/// The NVMe log's fields that judge the drive, and what each one fills in the record.
const JUDGING: [&str; 9] = [
    "critical_warning",
    "available_spare",
    "available_spare_threshold",
    "percentage_used",
    "media_errors",
    "num_err_log_entries",
    "unsafe_shutdowns",
    "power_on_hours",
    "power_cycles",
];

/// Whether `v` is a whole number ≥ 0, as every field of the NVMe log is.
fn whole(v: &Value) -> bool {
    v.as_u64().is_some() || v.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
}

/// Drops from `r` what the NVMe `log` did not give as a whole number, and a temperature that
/// cannot be one; returns the names dropped.
pub fn drop_unreadable(log: Option<&Value>, r: &mut HealthRecord) -> Vec<String> {
    let mut dropped = Vec::new();
    if let Some(log) = log {
        for key in JUDGING {
            if log.get(key).is_some_and(whole) {
                continue;
            }
            dropped.push(key.to_string());
            match key {
                "critical_warning" => r.critical_warning = None,
                "percentage_used" => r.percentage_used = None,
                "available_spare" | "available_spare_threshold" => {
                    r.available_spare_pct = None;
                    r.available_spare_threshold_pct = None;
                }
                "power_on_hours" => r.power_on_hours = None,
                "power_cycles" => r.power_cycles = None,
                "media_errors" => forget(r, counter::MEDIA_ERRORS),
                "num_err_log_entries" => forget(r, counter::ERROR_LOG_ENTRIES),
                _ => forget(r, counter::UNSAFE_SHUTDOWNS),
            }
        }
    }
    if let Some(t) = r.temperature_c.filter(|t| !PLAUSIBLE_C.contains(t)) {
        dropped.push(format!("temperature ({t} °C)"));
        r.temperature_c = None;
    }
    if !dropped.is_empty() {
        r.raw.insert("unreadable".into(), dropped.join(", "));
    }
    dropped
}

fn forget(r: &mut HealthRecord, key: &str) {
    r.counters.retain(|c| c.key != key);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_that_is_no_whole_number_is_dropped_not_read_as_zero() {
        let log = serde_json::json!({
            "critical_warning": "bad", "available_spare": 100, "available_spare_threshold": 10,
            "percentage_used": -3, "media_errors": 0, "num_err_log_entries": 1.5,
            "unsafe_shutdowns": 2, "power_on_hours": 7
        });
        let mut r = HealthRecord {
            critical_warning: Some(0),
            percentage_used: Some(0),
            available_spare_pct: Some(100),
            available_spare_threshold_pct: Some(10),
            power_on_hours: Some(7),
            power_cycles: Some(0),
            temperature_c: Some(99_999.0),
            ..HealthRecord::default()
        };
        r.set_counter(counter::ERROR_LOG_ENTRIES, "error log entries", None, 1);
        r.set_counter(counter::MEDIA_ERRORS, "media errors", None, 0);
        let dropped = drop_unreadable(Some(&log), &mut r);
        assert_eq!(
            dropped,
            [
                "critical_warning",
                "percentage_used",
                "num_err_log_entries",
                "power_cycles",
                "temperature (99999 °C)"
            ]
        );
        assert_eq!((r.critical_warning, r.percentage_used), (None, None));
        assert_eq!((r.power_cycles, r.power_on_hours), (None, Some(7)));
        assert_eq!(r.available_spare_pct, Some(100));
        assert_eq!(r.counter(counter::ERROR_LOG_ENTRIES), None);
        assert_eq!(r.counter(counter::MEDIA_ERRORS), Some(0));
        assert_eq!(r.temperature_c, None);
        assert!(r.raw["unreadable"].starts_with("critical_warning, percentage_used"));
    }

    #[test]
    fn a_sound_log_loses_nothing() {
        let log = serde_json::json!({
            "critical_warning": 0, "available_spare": 100, "available_spare_threshold": 10,
            "percentage_used": 3, "media_errors": 0, "num_err_log_entries": 0,
            "unsafe_shutdowns": 2, "power_on_hours": 7, "power_cycles": 9
        });
        let mut r = HealthRecord {
            temperature_c: Some(-20.0),
            ..HealthRecord::default()
        };
        assert!(drop_unreadable(Some(&log), &mut r).is_empty());
        assert_eq!(r.temperature_c, Some(-20.0));
        assert!(!r.raw.contains_key("unreadable"));
    }
}
