//! What moved in the drive's own record between two reads during a run: a watched counter
//! that rose (with what it means), an NVMe critical warning bit or a FAILING verdict that
//! appeared, a count that went down (a reset, or a drive that does not tell the truth), and
//! another drive answering in place of the first. What a single record says is `health`'s.

use super::health::{MEANINGS, self_failed};
use super::words::{clock, grouped};
use super::{Finding, kind};
use crate::model::health::{HealthRecord, counter};

/// Counters whose rise during a run is said, beyond those with a meaning above.
const ALSO_WATCHED: [(&str, &str, &str); 3] = [
    (counter::NON_MEDIUM, "non-medium error", "non-medium errors"),
    (
        counter::ERROR_LOG_ENTRIES,
        "error log entry",
        "error log entries",
    ),
    (
        counter::UNSAFE_SHUTDOWNS,
        "unsafe shutdown",
        "unsafe shutdowns",
    ),
];

/// What moved between two reads of the record, found by the later one `at_s` seconds into
/// the run; `whole_run` when the two are the run's start and end (then the words say "during
/// the run" rather than a time).
pub fn changes(
    before: &HealthRecord,
    after: &HealthRecord,
    at_s: f64,
    whole_run: bool,
) -> Vec<Finding> {
    let when = if whole_run {
        "during the run".to_string()
    } else {
        format!("at {}", clock(at_s))
    };
    if let (Some(a), Some(b)) = (&before.serial, &after.serial)
        && a != b
    {
        let text = format!(
            "another drive answered {when}: its serial number is not the one read at the start, \
             so its figures are not compared with those"
        );
        return vec![Finding::new(kind::HEALTH_CHANGED, text).at(at_s)];
    }
    let mut out = went_down(before, after, &when, at_s);
    let watched = MEANINGS
        .iter()
        .map(|m| (m.key, m.one, m.many, Some(m)))
        .chain(ALSO_WATCHED.iter().map(|(k, o, m)| (*k, *o, *m, None)));
    for (key, one, many, meaning) in watched {
        let (Some(a), Some(b)) = (before.counter(key), after.counter(key)) else {
            continue;
        };
        if b <= a {
            continue;
        }
        let mut text = format!(
            "{} new {}",
            grouped(b - a),
            if b - a == 1 { one } else { many }
        );
        text.push_str(&format!(" {when}"));
        if key == counter::UDMA_CRC {
            text.push_str(": the cable or backplane, not the drive");
        } else if let Some(m) = meaning {
            text.push_str(&format!(": {}", m.means));
        }
        out.push(Finding::new(kind::HEALTH_CHANGED, text).at(at_s));
    }
    let new_bits = after.critical_warning.unwrap_or(0) & !before.critical_warning.unwrap_or(0);
    if new_bits != 0 {
        let text = format!("critical warning 0x{new_bits:02x} set {when}");
        out.push(Finding::new(kind::HEALTH_CHANGED, text).at(at_s));
    }
    if self_failed(after) && before.passed != Some(false) {
        let text = format!("the drive's SMART self-assessment turned to FAILING {when}");
        out.push(Finding::new(kind::HEALTH_CHANGED, text).at(at_s));
    }
    out
}

/// Counters and hours that went down between two reads: a drive's own counts only rise, so
/// its record was reset (by a tool or a firmware update) or it does not tell the truth.
fn went_down(before: &HealthRecord, after: &HealthRecord, when: &str, at_s: f64) -> Vec<Finding> {
    let mut fell: Vec<(String, u64, u64)> = before
        .counters
        .iter()
        .filter_map(|c| {
            let now = after.counter(&c.key)?;
            (now < c.value).then(|| (c.name.clone(), c.value, now))
        })
        .collect();
    if let (Some(a), Some(b)) = (before.power_on_hours, after.power_on_hours)
        && b < a
    {
        fell.insert(0, ("power-on hours".into(), a, b));
    }
    fell.into_iter()
        .map(|(name, a, b)| {
            let text = format!(
                "{name} went down from {} to {} {when}: a drive's own counts only rise, so its \
                 record was reset or it does not tell the truth",
                grouped(a),
                grouped(b)
            );
            Finding::new(kind::HEALTH_CHANGED, text).at(at_s)
        })
        .collect()
}
