//! The drive's own health record in text: `--health`'s report (the source, the figures, the
//! watched counters, the findings), the run header's one line, and the summary's line on the
//! record at the start and the end. Strings from the drive (model, serial, smartctl's
//! messages) are escaped here, at the terminal boundary.

use crate::findings::words::{celsius, decimal_bytes, grouped};
use crate::model::health::{DeviceHealth, HealthAround, HealthRecord};
use crate::units::visible;

/// The record's figures in one line: "23,456 h, 1,204 power cycles, 412 TB written, 36 °C".
pub fn figures(r: &HealthRecord) -> String {
    let mut parts = Vec::new();
    if let Some(h) = r.power_on_hours {
        parts.push(format!("{} h on", grouped(h)));
    }
    if let Some(h) = r.farm_power_on_hours {
        parts.push(format!("FARM {} h", grouped(h)));
    }
    if let Some(c) = r.power_cycles {
        parts.push(format!("{} power cycles", grouped(c)));
    }
    if let Some(b) = r.written_bytes {
        parts.push(format!("{} written", decimal_bytes(b as f64)));
    }
    if let Some(b) = r.read_bytes {
        parts.push(format!("{} read", decimal_bytes(b as f64)));
    }
    if let Some(t) = r.temperature_c {
        parts.push(celsius(t));
    }
    if let Some(u) = r.percentage_used {
        parts.push(format!("{u}% of rated endurance used"));
    }
    if let (Some(s), Some(t)) = (r.available_spare_pct, r.available_spare_threshold_pct) {
        parts.push(format!("spare {s}% (threshold {t}%)"));
    }
    if parts.is_empty() {
        return "no figures".into();
    }
    parts.join(", ")
}

/// `head` then `text`'s words, wrapped at 80 columns, continued after `indent`.
fn wrapped(head: &str, text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = head.to_string();
    for word in text.split(' ') {
        if line.chars().count() + 1 + word.chars().count() > 80 && line.trim() != head.trim() {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}{word}");
        } else {
            line.push(' ');
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The watched counters: "Reallocated_Sector_Ct 0, Current_Pending_Sector 0, …".
fn counters(r: &HealthRecord) -> String {
    let parts: Vec<String> = r
        .counters
        .iter()
        .map(|c| match c.id {
            Some(id) => format!("{} ({id}) {}", visible(&c.name), grouped(c.value)),
            None => format!("{} {}", visible(&c.name), grouped(c.value)),
        })
        .collect();
    parts.join(", ")
}

/// "smartctl 7.4, ATA, Samsung SSD 870 EVO, serial S5Y…".
fn identity(r: &HealthRecord) -> String {
    let mut parts = vec![r.source_text()];
    parts.extend(r.protocol.iter().map(|p| visible(p).into_owned()));
    parts.extend(r.model.iter().map(|m| visible(m).into_owned()));
    parts.extend(r.serial.iter().map(|s| format!("serial {}", visible(s))));
    parts.join(", ")
}

/// `--health`'s report on one drive: `label` (the target as typed, or the device).
pub fn report(label: &str, h: &DeviceHealth) -> String {
    let label = visible(label);
    let Some(r) = &h.record else {
        let why = h.gap.as_ref().map_or("no record", |g| g.text.as_str());
        return format!("{label}: {}\n", visible(why));
    };
    // For NVMe, smartctl's verdict is the critical warning bits, shown as they are.
    let own = if r.critical_warning.is_some() {
        None
    } else {
        r.passed
    };
    let verdict = match own {
        Some(true) => "; its own verdict: PASSED",
        Some(false) => "; its own verdict: FAILING",
        None => "",
    };
    let mut out = format!("{label}: {}{verdict}\n", h.status.word());
    let from = format!("{} ({})", visible(&r.device), identity(r));
    out.push_str(&wrapped("  read from", &from, "    "));
    out.push_str(&wrapped(" ", &figures(r), "    "));
    if !r.counters.is_empty() {
        out.push_str(&wrapped("  counters:", &counters(r), "    "));
    }
    if r.critical_warning.is_some_and(|w| w != 0) {
        out.push_str(&format!(
            "  critical warning: 0x{:02x}\n",
            r.critical_warning.unwrap_or(0)
        ));
    }
    if h.findings.is_empty() {
        out.push_str("  findings: none\n");
    } else {
        out.push_str("  findings:\n");
        for f in &h.findings {
            out.push_str(&wrapped("    -", &f.text, "      "));
        }
    }
    out
}

/// The run header's line: "health: ok (smartctl 7.4): 23,456 h on, 1,204 power cycles, …",
/// or why there is no record.
pub fn header_line(h: &DeviceHealth) -> String {
    match (&h.record, &h.gap) {
        (Some(r), _) => format!(
            "health: {} ({}): {}",
            h.status.word(),
            r.source_text(),
            figures(r)
        ),
        (None, Some(g)) => format!("health: {}", visible(&g.text)),
        (None, None) => "health: not read".into(),
    }
}

/// The summary's line on the record around the run: how often it was read and what it
/// says at the end (the findings list says what moved).
pub fn around_line(h: &HealthAround) -> String {
    let times = if h.reads == 1 {
        "once".to_string()
    } else {
        format!("{} times", h.reads)
    };
    match (&h.start, &h.end) {
        (Some(_), Some(end)) => format!(
            "health: read {times} ({}); at the end {}",
            end.source_text(),
            figures(end)
        ),
        (Some(start), None) => {
            let why = h
                .note
                .as_deref()
                .map_or(String::new(), |n| format!("; {}", visible(n)));
            format!(
                "health: read at the start only ({}): {}{why}",
                start.source_text(),
                figures(start)
            )
        }
        _ => format!(
            "health: {}",
            visible(h.note.as_deref().unwrap_or("not read"))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::health::HealthSource;

    fn record() -> HealthRecord {
        HealthRecord {
            source: Some(HealthSource::Smartctl),
            source_version: Some("7.3".into()),
            power_on_hours: Some(4012),
            power_cycles: Some(61),
            ..HealthRecord::default()
        }
    }

    #[test]
    fn without_an_end_read_the_start_figures_come_before_why_not_after_it() {
        let h = HealthAround {
            start: Some(record()),
            end: None,
            note: Some(
                "not read at the end: smartctl did not answer for /dev/sda within 10 s: \
                 stopped it"
                    .into(),
            ),
            reads: 1,
        };
        assert_eq!(
            around_line(&h),
            "health: read at the start only (smartctl 7.3): 4,012 h on, 61 power cycles; not \
             read at the end: smartctl did not answer for /dev/sda within 10 s: stopped it"
        );
    }
}
