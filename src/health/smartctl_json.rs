//! smartctl's answer as a record: a pure function from its JSON text (`--json`, smartctl 7.0
//! and later) and its exit status. Field names are smartmontools' documented JSON output:
//! `smartctl.version`, `device.protocol`, `smart_status.passed`, `power_on_time.hours`,
//! `power_cycle_count`, `ata_smart_attributes.table[]` (`id`, `name`, `value`, `raw.value`,
//! `raw.string`), `nvme_smart_health_information_log`, `scsi_grown_defect_list`,
//! `scsi_error_counter_log`, and Seagate's FARM log (`seagate_farm_log.
//! page_1_drive_information.poh`, smartctl 7.4 and later).
//!
//! The exit status is a bit mask (smartctl(8), "EXIT STATUS"): bit 0, the command line did
//! not parse; bit 1, the device could not be opened or, with `-n standby`, was asleep; bit 2,
//! a SMART command failed (what was read is still used); bits 3 to 7 are the drive's own
//! verdicts (failing, attributes at threshold now or in the past, errors in its logs), which
//! the record carries in its figures.

use serde_json::Value;

use super::nvme_log::NvmeHealthLog;
use crate::model::health::{GapKind, HealthGap, HealthRead, HealthRecord, HealthSource, counter};

/// Exit status bit 0: the command line did not parse.
const BIT_COMMAND_LINE: i32 = 1 << 0;
/// Exit status bit 1: the device did not open, or was in a low-power mode.
const BIT_DEVICE_OPEN: i32 = 1 << 1;

/// The ATA counters the findings watch: id, key, the name smartmontools' drive database
/// gives the id on most drives.
const ATA_COUNTERS: [(u8, &str, &str); 5] = [
    (5, counter::REALLOCATED, "Reallocated_Sector_Ct"),
    (187, counter::REPORTED_UNCORRECT, "Reported_Uncorrect"),
    (197, counter::PENDING, "Current_Pending_Sector"),
    (198, counter::OFFLINE_UNCORRECTABLE, "Offline_Uncorrectable"),
    (199, counter::UDMA_CRC, "UDMA_CRC_Error_Count"),
];

/// ATA attributes whose normalized value is the share of rated life left, by the name the
/// drive database gives them (Samsung, Kingston/SandForce, Intel, Crucial/Micron, WD).
const ATA_LIFE_LEFT: [&str; 5] = [
    "Wear_Leveling_Count",
    "SSD_Life_Left",
    "Media_Wearout_Indicator",
    "Percent_Lifetime_Remain",
    "Remaining_Lifetime_Perc",
];

/// ATA attributes counting bytes written, by name, and the bytes in one unit (0: the drive's
/// logical block).
const ATA_WRITTEN: [(&str, u64); 4] = [
    ("Total_LBAs_Written", 0),
    ("Host_Writes_32MiB", 32 << 20),
    ("Host_Writes_GiB", 1 << 30),
    ("Lifetime_Writes_GiB", 1 << 30),
];

/// Seagate's FARM log's power-on hours in the answer of `smartctl --json -l farm`.
pub fn farm_hours(stdout: &str) -> Option<u64> {
    let json: Value = serde_json::from_str(stdout).ok()?;
    u64_at(&json, "/seagate_farm_log/page_1_drive_information/poh")
}

/// The answer of `smartctl --json … DEVICE` (its stdout and exit status) as a record of
/// `device`, or the one line saying why there is none.
pub fn parse(device: &str, stdout: &str, status: Option<i32>) -> HealthRead {
    let json: Value = match serde_json::from_str(stdout) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Err(not_json(device, stdout, status)),
    };
    let status = status
        .or_else(|| {
            json.pointer("/smartctl/exit_status")?
                .as_i64()
                .map(|s| s as i32)
        })
        .unwrap_or(0);
    if status & (BIT_COMMAND_LINE | BIT_DEVICE_OPEN) != 0 {
        return Err(refused(device, &json, status));
    }
    Ok(record(device, &json))
}

/// How much of a line that is not JSON is quoted.
const QUOTED_CHARS: usize = 60;

/// smartctl printed something that is not its JSON: said in one short line, never the whole
/// answer (its compact JSON is one line of kilobytes).
fn not_json(device: &str, stdout: &str, status: Option<i32>) -> HealthGap {
    if stdout.contains("UNRECOGNIZED OPTION") {
        return HealthGap::new(
            GapKind::Failed,
            "smartctl is older than 7.0 and has no --json: upgrade smartmontools",
        );
    }
    let exit = status.map_or(String::new(), |s| format!(", exit status {s}"));
    let cut_short = serde_json::from_str::<Value>(stdout).is_err_and(|e| e.is_eof());
    if cut_short && stdout.trim_start().starts_with('{') {
        return HealthGap::new(
            GapKind::Failed,
            format!(
                "smartctl's JSON for {device} ended after {} bytes, cut short{exit}",
                stdout.len()
            ),
        );
    }
    let first = stdout.lines().map(str::trim).find(|l| !l.is_empty());
    let what = match first {
        Some(line) => format!("printed no JSON ({})", quoted(line)),
        None => "printed nothing".into(),
    };
    HealthGap::new(
        GapKind::Failed,
        format!("smartctl {what} for {device}{exit}"),
    )
}

/// The start of `line`, one line, at most `QUOTED_CHARS` characters.
fn quoted(line: &str) -> String {
    let line = crate::units::one_line(line);
    if line.chars().count() <= QUOTED_CHARS {
        return line.into_owned();
    }
    let head: String = line.chars().take(QUOTED_CHARS - 1).collect();
    format!("{head}…")
}

/// smartctl's own messages, errors first.
fn messages(json: &Value) -> Vec<String> {
    let all = json
        .pointer("/smartctl/messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let text = |m: &Value| m.get("string").and_then(Value::as_str).map(str::to_string);
    let is_error = |m: &Value| m.get("severity").and_then(Value::as_str) == Some("error");
    let mut out: Vec<String> = all
        .iter()
        .filter(|m| is_error(m))
        .filter_map(text)
        .collect();
    out.extend(all.iter().filter(|m| !is_error(m)).filter_map(text));
    out
}

/// Bit 0 or 1 set: the drive was asleep (with `-n standby`), or could not be read.
fn refused(device: &str, json: &Value, status: i32) -> HealthGap {
    let said = messages(json);
    let asleep = said.iter().any(|m| {
        let m = m.to_ascii_uppercase();
        m.contains("STANDBY") || m.contains("SLEEP")
    });
    if asleep {
        return HealthGap::new(
            GapKind::Standby,
            format!("{device} is asleep (standby): not woken to read its record"),
        );
    }
    let why = said
        .first()
        .map(|m| crate::units::one_line(m).into_owned())
        .unwrap_or_else(|| format!("exit status {status}"));
    HealthGap::new(
        GapKind::Failed,
        format!("smartctl could not read {device}: {why}"),
    )
}

fn u64_at(json: &Value, pointer: &str) -> Option<u64> {
    let v = json.pointer(pointer)?;
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        .or_else(|| v.as_str().and_then(leading_number))
}

fn str_at(json: &Value, pointer: &str) -> Option<String> {
    json.pointer(pointer)?
        .as_str()
        .map(|s| s.trim().to_string())
}

/// The leading integer of an attribute's raw string ("12 (Min/Max 20/45)" → 12).
fn leading_number(s: &str) -> Option<u64> {
    let digits: String = s.trim().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Everything the JSON says of the drive.
fn record(device: &str, json: &Value) -> HealthRecord {
    let version = json
        .pointer("/smartctl/version")
        .and_then(Value::as_array)
        .map(|v| {
            let parts: Vec<String> = v
                .iter()
                .filter_map(Value::as_u64)
                .map(|n| n.to_string())
                .collect();
            parts.join(".")
        });
    let nvme = json.get("nvme_smart_health_information_log").map(nvme_log);
    let mut r = match nvme {
        Some(log) => log.record(device, HealthSource::Smartctl),
        None => HealthRecord {
            source: Some(HealthSource::Smartctl),
            device: device.into(),
            ..HealthRecord::default()
        },
    };
    if let Some(c) = json.pointer("/nvme_smart_health_information_log/temperature") {
        r.temperature_c = c.as_f64();
    }
    r.source_version = version;
    r.protocol = str_at(json, "/device/protocol").or(r.protocol);
    r.model = str_at(json, "/model_name").or_else(|| str_at(json, "/scsi_model_name"));
    r.serial = str_at(json, "/serial_number");
    r.passed = json
        .pointer("/smart_status/passed")
        .and_then(Value::as_bool);
    r.power_on_hours = u64_at(json, "/power_on_time/hours").or(r.power_on_hours);
    r.power_cycles = u64_at(json, "/power_cycle_count")
        .or_else(|| {
            u64_at(
                json,
                "/scsi_start_stop_cycle_counter/accumulated_start_stop_cycles",
            )
        })
        .or(r.power_cycles);
    if r.temperature_c.is_none() {
        r.temperature_c = json.pointer("/temperature/current").and_then(Value::as_f64);
    }
    r.farm_power_on_hours = u64_at(json, "/seagate_farm_log/page_1_drive_information/poh");
    if let Some(table) = json
        .pointer("/ata_smart_attributes/table")
        .and_then(Value::as_array)
    {
        let block = u64_at(json, "/logical_block_size").unwrap_or(512);
        ata_attributes(&mut r, table, block);
    }
    scsi_counters(&mut r, json);
    super::sanity::drop_unreadable(json.get("nvme_smart_health_information_log"), &mut r);
    r
}

/// The NVMe log as smartctl prints it (temperature in °C there, read separately).
fn nvme_log(log: &Value) -> NvmeHealthLog {
    let n = |k: &str| u64_at(log, &format!("/{k}")).unwrap_or(0);
    let wide = |k: &str| u128::from(n(k));
    let byte = |k: &str| u8::try_from(n(k)).unwrap_or(u8::MAX);
    NvmeHealthLog {
        critical_warning: byte("critical_warning"),
        composite_temp_k: 0,
        available_spare: byte("available_spare"),
        available_spare_threshold: byte("available_spare_threshold"),
        percentage_used: byte("percentage_used"),
        data_units_read: wide("data_units_read"),
        data_units_written: wide("data_units_written"),
        host_read_commands: wide("host_reads"),
        host_write_commands: wide("host_writes"),
        controller_busy_minutes: wide("controller_busy_time"),
        power_cycles: wide("power_cycles"),
        power_on_hours: wide("power_on_hours"),
        unsafe_shutdowns: wide("unsafe_shutdowns"),
        media_errors: wide("media_errors"),
        error_log_entries: wide("num_err_log_entries"),
        warning_temp_minutes: u32::try_from(n("warning_temp_time")).unwrap_or(u32::MAX),
        critical_temp_minutes: u32::try_from(n("critical_comp_time")).unwrap_or(u32::MAX),
    }
}

/// The ATA attribute table: every raw value kept, the watched counters, hours and cycles
/// where `power_on_time` is missing, wear and bytes written.
fn ata_attributes(r: &mut HealthRecord, table: &[Value], block: u64) {
    for attr in table {
        let Some(id) = attr.get("id").and_then(Value::as_u64) else {
            continue;
        };
        let name = attr.get("name").and_then(Value::as_str).unwrap_or("?");
        let raw_string = attr.pointer("/raw/string").and_then(Value::as_str);
        let raw = raw_string
            .and_then(leading_number)
            .or_else(|| attr.pointer("/raw/value").and_then(Value::as_u64));
        let shown = raw_string
            .map(str::to_string)
            .or_else(|| raw.map(|v| v.to_string()))
            .unwrap_or_default();
        r.raw.insert(format!("{id} {name}"), shown);
        let Some(raw) = raw else { continue };
        if let Some((id, key, _)) = ATA_COUNTERS.iter().find(|(i, _, _)| u64::from(*i) == id) {
            r.set_counter(key, name, Some(*id), raw);
        }
        match id {
            9 if r.power_on_hours.is_none() => r.power_on_hours = Some(raw),
            12 if r.power_cycles.is_none() => r.power_cycles = Some(raw),
            _ => {}
        }
        if ATA_LIFE_LEFT.contains(&name)
            && let Some(value) = attr.get("value").and_then(Value::as_u64)
        {
            r.percentage_used = Some(100u32.saturating_sub(value.min(100) as u32));
        }
        if let Some((_, unit)) = ATA_WRITTEN.iter().find(|(n, _)| *n == name) {
            let unit = if *unit == 0 { block } else { *unit };
            r.written_bytes = Some(raw.saturating_mul(unit));
        }
        if name == "Total_LBAs_Read" {
            r.read_bytes = Some(raw.saturating_mul(block));
        }
    }
}

/// SAS: the grown defect list, non-medium errors, uncorrected read and write errors, and
/// the bytes the error counter log says were processed.
fn scsi_counters(r: &mut HealthRecord, json: &Value) {
    if let Some(n) = u64_at(json, "/scsi_grown_defect_list") {
        r.set_counter(counter::GROWN_DEFECTS, "grown defect list", None, n);
    }
    let non_medium = u64_at(json, "/scsi_nonmedium_error_count")
        .or_else(|| u64_at(json, "/scsi_nonmedium_error/count"));
    if let Some(n) = non_medium {
        r.set_counter(counter::NON_MEDIUM, "non-medium errors", None, n);
    }
    for (dir, key) in [
        ("read", counter::UNCORRECTED_READ),
        ("write", counter::UNCORRECTED_WRITE),
    ] {
        let at = format!("/scsi_error_counter_log/{dir}/total_uncorrected_errors");
        if let Some(n) = u64_at(json, &at) {
            r.set_counter(key, &format!("uncorrected {dir} errors"), None, n);
        }
    }
    let gb = |dir: &str| {
        let v = json.pointer(&format!(
            "/scsi_error_counter_log/{dir}/gigabytes_processed"
        ))?;
        let gb = v.as_f64().or_else(|| v.as_str()?.trim().parse().ok())?;
        Some((gb * 1e9) as u64)
    };
    if r.written_bytes.is_none() {
        r.written_bytes = gb("write");
    }
    if r.read_bytes.is_none() {
        r.read_bytes = gb("read");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORN: &str = include_str!("../../tests/fixtures/smartctl/sata-ssd-worn.json");
    const STANDBY: &str = include_str!("../../tests/fixtures/smartctl/standby.json");

    #[test]
    fn the_exit_status_is_read_as_a_bit_mask() {
        // Bits 2 to 7 come with a record: a SMART command failed, the drive's own verdicts,
        // errors in its logs.
        for status in [0, 4, 8, 16, 32, 64, 128, 4 | 64] {
            let r = parse("/dev/sda", WORN, Some(status));
            assert!(r.is_ok(), "status {status}: {r:?}");
        }
        // Bit 0 (command line) or bit 1 (open failed, asleep) mean nothing was read, whatever
        // the other bits say.
        for status in [1, 2, 3, 2 | 64] {
            let gap = parse("/dev/sda", WORN, Some(status)).unwrap_err();
            assert_eq!(gap.kind, GapKind::Failed, "status {status}");
        }
        let asleep = parse("/dev/sda", STANDBY, Some(2)).unwrap_err();
        assert_eq!(asleep.kind, GapKind::Standby);
        assert_eq!(
            asleep.text,
            "/dev/sda is asleep (standby): not woken to read its record"
        );
        // Killed by a signal: the JSON's own exit_status speaks.
        assert!(parse("/dev/sda", STANDBY, None).is_err());
    }

    #[test]
    fn the_watched_ata_counters_are_found_by_id_and_keep_the_drives_name() {
        let r = parse("/dev/sda", WORN, Some(0)).unwrap();
        assert_eq!(r.counter(counter::REALLOCATED), Some(12));
        assert_eq!(r.counter(counter::UDMA_CRC), Some(0));
        let crc = r
            .counters
            .iter()
            .find(|c| c.key == counter::UDMA_CRC)
            .unwrap();
        assert_eq!(
            (crc.id, crc.name.as_str()),
            (Some(199), "UDMA_CRC_Error_Count")
        );
        assert_eq!(r.power_on_hours, Some(31002));
        assert_eq!(r.percentage_used, Some(93));
        assert_eq!(r.raw.len(), 7, "every attribute kept: {:?}", r.raw);
    }

    #[test]
    fn raw_strings_with_more_than_a_number_give_their_leading_count() {
        assert_eq!(leading_number("12 (Min/Max 20/45)"), Some(12));
        assert_eq!(leading_number(" 7"), Some(7));
        assert_eq!(leading_number("n/a"), None);
    }

    #[test]
    fn what_is_not_json_is_quoted_short() {
        let long = format!("garbage {}", "x".repeat(500));
        let gap = parse("/dev/sda", &long, Some(0)).unwrap_err();
        assert!(gap.text.chars().count() < 120, "{}", gap.text);
        assert!(gap.text.contains("(garbage xxx"), "{}", gap.text);
        let cut = parse("/dev/sda", &WORN[..100], Some(0)).unwrap_err();
        assert_eq!(
            cut.text,
            "smartctl's JSON for /dev/sda ended after 100 bytes, cut short, exit status 0"
        );
    }
}
