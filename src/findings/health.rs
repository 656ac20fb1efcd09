//! What the drive's own record says, in words: whether "new" is new (hours, power cycles,
//! bytes written; SMART's hours against Seagate's FARM log), whether it is failing or worn
//! (bad sectors, media errors, its own verdict, NVMe critical warnings, endurance, spare),
//! and what moved while the run went (`changes`, in `health_changes`). `verdict` sums a record up in the one word
//! the HEALTH column shows. Every limit is in `thresholds`, with its source.

use super::thresholds::{
    HEALTH_ENDURANCE_USED_PCT, HEALTH_FARM_SLACK_HOURS, HEALTH_NOT_NEW_HOURS,
    HEALTH_NOT_NEW_WRITTEN_BYTES, HEALTH_WORN_USED_PCT, HOURS_PER_YEAR,
};
use super::words::{decimal_bytes, grouped};
use super::{Finding, kind};
use crate::model::health::{
    DeviceHealth, HealthRead, HealthRecord, Verdict, counter, critical_warning as cw,
};

/// What a counter means, for its finding: key, words for one, words for many, the verdict it
/// gives, and what it says about the drive.
pub(super) struct Meaning {
    pub(super) key: &'static str,
    pub(super) one: &'static str,
    pub(super) many: &'static str,
    pub(super) verdict: Verdict,
    pub(super) means: &'static str,
}

pub(super) const MEANINGS: [Meaning; 9] = [
    Meaning {
        key: counter::PENDING,
        one: "sector pending reallocation",
        many: "sectors pending reallocation",
        verdict: Verdict::Failing,
        means: "the drive could not read what was stored there, which may be lost",
    },
    Meaning {
        key: counter::OFFLINE_UNCORRECTABLE,
        one: "uncorrectable sector",
        many: "uncorrectable sectors",
        verdict: Verdict::Failing,
        means: "found by the drive's own scan; what was stored there is lost",
    },
    Meaning {
        key: counter::REPORTED_UNCORRECT,
        one: "uncorrectable error reported to the host",
        many: "uncorrectable errors reported to the host",
        verdict: Verdict::Failing,
        means: "reads the drive could not correct",
    },
    Meaning {
        key: counter::MEDIA_ERRORS,
        one: "media error",
        many: "media errors",
        verdict: Verdict::Failing,
        means: "data the drive could not recover",
    },
    Meaning {
        key: counter::UNCORRECTED_READ,
        one: "uncorrected read error",
        many: "uncorrected read errors",
        verdict: Verdict::Failing,
        means: "reads the drive could not correct",
    },
    Meaning {
        key: counter::UNCORRECTED_WRITE,
        one: "uncorrected write error",
        many: "uncorrected write errors",
        verdict: Verdict::Failing,
        means: "writes the drive could not complete",
    },
    Meaning {
        key: counter::REALLOCATED,
        one: "reallocated sector",
        many: "reallocated sectors",
        verdict: Verdict::Worn,
        means: "replaced by spares; a count that grows means the surface is going",
    },
    Meaning {
        key: counter::GROWN_DEFECTS,
        one: "grown defect",
        many: "grown defects",
        verdict: Verdict::Worn,
        means: "blocks remapped since it left the factory; a list that grows means the surface is going",
    },
    Meaning {
        key: counter::UDMA_CRC,
        one: "UDMA CRC error",
        many: "UDMA CRC errors",
        verdict: Verdict::Ok,
        means: "the cable or backplane, not the drive",
    },
];

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// "has run 23,456 hours (2.7 years) over 1,204 power cycles and written 412 TB", when the
/// record shows real use.
fn not_new(r: &HealthRecord) -> Option<Finding> {
    let used = r.power_on_hours.is_some_and(|h| h >= HEALTH_NOT_NEW_HOURS)
        || r.written_bytes
            .is_some_and(|b| b >= HEALTH_NOT_NEW_WRITTEN_BYTES);
    if !used {
        return None;
    }
    let mut text = String::from("has run");
    match r.power_on_hours {
        Some(h) => text.push_str(&format!(
            " {} hours ({:.1} years)",
            grouped(h),
            h as f64 / HOURS_PER_YEAR
        )),
        None => text.push_str(" for an unknown time"),
    }
    if let Some(c) = r.power_cycles {
        text.push_str(&format!(
            " over {}",
            count(c, "power cycle", "power cycles")
        ));
    }
    if let Some(b) = r.written_bytes {
        text.push_str(&format!(" and written {}", decimal_bytes(b as f64)));
    }
    Some(Finding::new(kind::HEALTH_NOT_NEW, text))
}

/// SMART's hours well short of the FARM log's: "SMART says 12 hours, the drive's FARM log
/// says 23,456: the SMART hours were reset".
fn hours_reset(r: &HealthRecord) -> Option<Finding> {
    let (smart, farm) = (r.power_on_hours?, r.farm_power_on_hours?);
    let (s, f) = (grouped(smart), grouped(farm));
    let text = if farm > smart.saturating_add(HEALTH_FARM_SLACK_HOURS) {
        format!("SMART says {s} hours, the drive's FARM log says {f}: the SMART hours were reset")
    } else if smart > farm.saturating_add(HEALTH_FARM_SLACK_HOURS) {
        // The other way round is no reset of SMART, but the drive's two records of its own
        // age disagree all the same: one of them is not what the drive lived.
        format!(
            "SMART says {s} hours, the drive's FARM log says {f}: its two records of its age \
             disagree, so neither can be taken as its age (a FARM log that was cleared or \
             another drive's would read so)"
        )
    } else {
        return None;
    };
    Some(Finding::new(kind::HEALTH_HOURS_RESET, text))
}

fn counter_findings(r: &HealthRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &MEANINGS {
        let Some(n) = r.counter(m.key).filter(|n| *n > 0) else {
            continue;
        };
        let k = match m.verdict {
            Verdict::Failing => kind::HEALTH_FAILING,
            Verdict::Worn => kind::HEALTH_WORN,
            _ => kind::HEALTH_CABLE,
        };
        let life = if m.key == counter::UDMA_CRC {
            " over its life"
        } else {
            ""
        };
        let text = format!("{}{life}: {}", count(n, m.one, m.many), m.means);
        out.push(Finding::new(k, text));
    }
    out
}

/// Endurance, spare and critical warnings (NVMe, or an ATA SSD's wear attribute).
fn wear_findings(r: &HealthRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    let warn = r.critical_warning.unwrap_or(0);
    let used = r.percentage_used.unwrap_or(0);
    if used >= HEALTH_ENDURANCE_USED_PCT {
        let bit = if warn & cw::RELIABILITY_DEGRADED != 0 {
            "; its critical warning 0x04 (reliability degraded) says this, not that it failed \
             (smartmontools#537)"
        } else {
            ""
        };
        let text = format!(
            "has used {used}% of its rated endurance: past the writes its maker rates it for; \
             it still works, but wear errors become likelier{bit}"
        );
        out.push(Finding::new(kind::HEALTH_WORN, text));
    } else if used >= HEALTH_WORN_USED_PCT {
        let text = format!("has used {used}% of its rated endurance: near its rated writes");
        out.push(Finding::new(kind::HEALTH_WORN, text));
    }
    if let (Some(spare), Some(threshold)) = (r.available_spare_pct, r.available_spare_threshold_pct)
        && spare < threshold
    {
        let text = format!(
            "available spare {spare}% is below its threshold of {threshold}%: the drive is \
             running out of blocks to replace worn ones"
        );
        out.push(Finding::new(kind::HEALTH_FAILING, text));
    }
    let endurance_only = used >= HEALTH_ENDURANCE_USED_PCT;
    // The spare's own figures, where the record has them, already said it in full.
    let spare_said = out.iter().any(|f| f.text.starts_with("available spare"));
    for (bit, what) in [
        (
            cw::SPARE_BELOW_THRESHOLD,
            "the available spare is below its threshold: the drive is running out of blocks to replace worn ones",
        ),
        (cw::TEMPERATURE, "a temperature is outside its thresholds"),
        (
            cw::RELIABILITY_DEGRADED,
            "reliability degraded (media or internal errors)",
        ),
        (cw::READ_ONLY, "the media is read-only"),
        (
            cw::VOLATILE_BACKUP_FAILED,
            "the volatile memory backup failed",
        ),
        (
            cw::PMR_READ_ONLY,
            "the persistent memory region is read-only",
        ),
    ] {
        if warn & bit == 0
            || (bit == cw::RELIABILITY_DEGRADED && endurance_only)
            || (bit == cw::SPARE_BELOW_THRESHOLD && spare_said)
        {
            continue;
        }
        let text = format!("critical warning 0x{bit:02x}: {what}");
        out.push(Finding::new(kind::HEALTH_WARNING, text));
    }
    out
}

/// The drive's own verdict is FAILING. For NVMe, smartctl derives that verdict from the
/// critical warning bits, which are judged one by one instead (a drive at 100% used sets bit
/// 0x04 while it works: smartmontools#537).
pub(super) fn self_failed(r: &HealthRecord) -> bool {
    r.passed == Some(false) && r.critical_warning.is_none()
}

/// Whether the record holds anything that says if the drive is sound: its own verdict, a
/// watched counter, wear, spare or NVMe's critical warning. A USB bridge that passes no SMART
/// through leaves only identity and perhaps hours, which say nothing of that.
fn says_soundness(r: &HealthRecord) -> bool {
    r.passed.is_some()
        || !r.counters.is_empty()
        || r.percentage_used.is_some()
        || r.critical_warning.is_some()
        || r.available_spare_pct.is_some()
}

/// Everything a record says, in reading order: failing first, then worn, then its age.
pub fn record_findings(r: &HealthRecord) -> Vec<Finding> {
    let mut out = Vec::new();
    if verdict(r) == Verdict::Unknown {
        out.push(Finding::new(
            kind::HEALTH_UNKNOWN,
            "its answer holds no SMART verdict, error counter or wear figure: nothing here \
             says whether it is sound (a USB bridge that passes no SMART through answers so)"
                .into(),
        ));
    }
    if self_failed(r) {
        out.push(Finding::new(
            kind::HEALTH_FAILING,
            "the drive's own SMART self-assessment says FAILING: copy its data off now".into(),
        ));
    }
    out.extend(counter_findings(r));
    out.extend(wear_findings(r));
    out.extend(hours_reset(r));
    out.extend(not_new(r));
    let rank = |f: &Finding| match f.kind.as_str() {
        kind::HEALTH_FAILING | kind::HEALTH_WARNING | kind::HEALTH_UNKNOWN => 0,
        kind::HEALTH_HOURS_RESET => 1,
        kind::HEALTH_WORN => 2,
        _ => 3,
    };
    out.sort_by_key(rank);
    out
}

/// The one word for a record: failing, worn or ok; unknown where nothing in it says which.
pub fn verdict(r: &HealthRecord) -> Verdict {
    let warn = r.critical_warning.unwrap_or(0);
    let used = r.percentage_used.unwrap_or(0);
    let failing_bits = cw::SPARE_BELOW_THRESHOLD
        | cw::READ_ONLY
        | cw::VOLATILE_BACKUP_FAILED
        | if used >= HEALTH_ENDURANCE_USED_PCT {
            0
        } else {
            cw::RELIABILITY_DEGRADED
        };
    let spare_low = matches!(
        (r.available_spare_pct, r.available_spare_threshold_pct),
        (Some(s), Some(t)) if s < t
    );
    let by_counter = |v: Verdict| {
        MEANINGS
            .iter()
            .any(|m| m.verdict == v && r.counter(m.key).is_some_and(|n| n > 0))
    };
    if self_failed(r) || warn & failing_bits != 0 || spare_low || by_counter(Verdict::Failing) {
        Verdict::Failing
    } else if used >= HEALTH_WORN_USED_PCT || by_counter(Verdict::Worn) || hours_reset(r).is_some()
    {
        Verdict::Worn
    } else if says_soundness(r) {
        Verdict::Ok
    } else {
        Verdict::Unknown
    }
}

/// One read judged: the verdict, the hours, the record or the gap, and the findings.
pub fn device_health(read: HealthRead) -> DeviceHealth {
    match read {
        Ok(record) => DeviceHealth {
            status: verdict(&record),
            power_on_hours: record.power_on_hours,
            findings: record_findings(&record),
            record: Some(record),
            gap: None,
        },
        Err(gap) => DeviceHealth {
            status: Verdict::Unknown,
            power_on_hours: None,
            record: None,
            findings: Vec::new(),
            gap: Some(gap),
        },
    }
}

#[cfg(test)]
#[path = "health_tests.rs"]
mod tests;
