//! The sentences of `slowdown`: what a drop and a recovery say, with the temperature, the
//! kernel's queue and %util beside them. Words only; the rule lives in `slowdown`.

use super::{Facts, Slowdown, SlowdownEnd};
use crate::findings::series::Metric;
use crate::findings::thresholds::THROTTLE_MARGIN_C;
use crate::findings::{Finding, kind, words};
use crate::units::format_bytes;

/// The sentence for one drop.
pub fn slowdown_finding(d: &Slowdown, temp_warn_c: Option<f64>) -> Finding {
    let after = d.after();
    let hot = match (d.facts_after.temp_c, temp_warn_c) {
        (Some(t), Some(warn)) => t >= warn - THROTTLE_MARGIN_C,
        _ => false,
    };
    let how_long = match d.end {
        SlowdownEnd::Open => "and has stayed there".to_string(),
        SlowdownEnd::Recovered { at_s } => format!("until {}", words::clock(at_s)),
        SlowdownEnd::SettingsChanged { at_s } => {
            format!(
                "and stayed there until the settings changed at {}",
                words::clock(at_s)
            )
        }
    };
    let context = context_words(d, temp_warn_c);
    let (kind, text) = if d.metric == Metric::WriteBandwidth {
        let fell = format!(
            "write bandwidth fell from {} to {} after {} written {how_long}{context}",
            words::bytes_per_s(d.before),
            words::bytes_per_s(after),
            format_bytes(d.written_bytes)
        );
        match (hot, d.write_pct, d.end) {
            (true, _, _) => (
                kind::SLOWDOWN,
                format!(
                    "{fell}: the drive is hot, so heat may be the cause rather than a full write cache"
                ),
            ),
            (false, 100, SlowdownEnd::Recovered { .. }) => (
                kind::WRITE_CACHE_CLIFF,
                format!(
                    "{fell}: a fast write cache that filled and was emptied again looks like this"
                ),
            ),
            (false, 100, _) => (
                kind::WRITE_CACHE_CLIFF,
                format!(
                    "{fell}: the drive's fast write cache filled; {} is its sustained write speed",
                    words::bytes_per_s(after)
                ),
            ),
            (false, _, _) => (
                kind::SLOWDOWN,
                format!(
                    "{fell}: with reads mixed in, a filled fast write cache is one cause that looks like this"
                ),
            ),
        }
    } else {
        let fell = 1.0 - after / d.before;
        let text = format!(
            "{} fell {} at {} ({} → {}) {how_long}{context}",
            d.metric.name(),
            words::pct(fell),
            words::clock(d.at_s),
            d.metric.format(d.before),
            d.metric.format(after)
        );
        (kind::SLOWDOWN, text)
    };
    let f = Finding::new(kind, text).at(d.at_s);
    if d.metric == Metric::WriteBandwidth {
        f.written(d.written_bytes)
    } else {
        f
    }
}

/// " (at that moment: 79 °C (warning 80 °C), kernel queue 32.0 → 31.8, util 100% → 100%)",
/// or nothing when no fact is known.
fn context_words(d: &Slowdown, temp_warn_c: Option<f64>) -> String {
    let was = |f: fn(&Facts) -> Option<f64>| d.facts_before.as_ref().and_then(f);
    let mut parts = Vec::new();
    if let Some(t) = d.facts_after.temp_c {
        parts.push(match temp_warn_c {
            Some(warn) => format!("{} (warning {})", words::celsius(t), words::celsius(warn)),
            None => words::celsius(t),
        });
    }
    if let Some(q) = d.facts_after.kernel_queue {
        parts.push(match was(|f| f.kernel_queue) {
            Some(b) => format!("kernel queue {b:.1} → {q:.1}"),
            None => format!("kernel queue {q:.1}"),
        });
    }
    if let Some(u) = d.facts_after.util_pct {
        parts.push(match was(|f| f.util_pct) {
            Some(b) => format!("util {b:.0}% → {u:.0}%"),
            None => format!("util {u:.0}%"),
        });
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" (at that moment: {})", parts.join(", "))
    }
}

/// "IOPS recovered at 2:05".
pub fn recovered_finding(d: &Slowdown, at_s: f64) -> Finding {
    let text = format!("{} recovered at {}", d.metric.name(), words::clock(at_s));
    Finding::new(kind::RECOVERED, text).at(at_s)
}
