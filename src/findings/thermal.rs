//! Thermal throttling: throughput that fell ≥ 25% over a span in which the drive's
//! temperature rose to within 5 °C of its warning threshold or above (`thresholds`), and the
//! drive's own word for it — the NVMe SMART / Health log's thermal-management counters read
//! before and after the run. No temperature finding without a sensor reading and a warning
//! threshold; no counter sentence without both readings.
//!
//! Pure, over the interval series (one settings key compared with itself, as everywhere in
//! `findings`); a live consumer calls it again on the series it keeps.

use super::series::{Interval, Metric, Point, median, segments, window_median, window_start};
use super::thresholds::{SLOWDOWN_HOLD_S, SLOWDOWN_WINDOW_S, THROTTLE_MARGIN_C, THROTTLE_MIN_FALL};
use super::{Finding, kind, words};

/// The thermal-management fields of the NVMe SMART / Health Information log (log page 02h;
/// NVM Express Base Specification 1.3 and later, bytes 216–231): how many times, and for how
/// many seconds in all, the controller throttled because the composite temperature passed the
/// host-set Thermal Management Temperature 1 (light: "minimizing the impact on performance")
/// or 2 (heavy: "regardless of the impact on performance"). Only host-controlled thermal
/// management is counted there, so counters that did not move prove nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThermalCounters {
    pub tmt1_transitions: u32,
    pub tmt2_transitions: u32,
    pub tmt1_time_s: u32,
    pub tmt2_time_s: u32,
}

/// The counters read before and after a run (as root, through the NVMe admin passthrough).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CountersAround {
    pub before: ThermalCounters,
    pub after: ThermalCounters,
}

impl CountersAround {
    /// What the run added: (transitions, seconds) for TMT1 and for TMT2. A counter that went
    /// down (a power cycle between the reads) adds nothing.
    fn rise(&self) -> ((u32, u32), (u32, u32)) {
        let (b, a) = (self.before, self.after);
        (
            (
                a.tmt1_transitions.saturating_sub(b.tmt1_transitions),
                a.tmt1_time_s.saturating_sub(b.tmt1_time_s),
            ),
            (
                a.tmt2_transitions.saturating_sub(b.tmt2_transitions),
                a.tmt2_time_s.saturating_sub(b.tmt2_time_s),
            ),
        )
    }

    /// "it entered thermal management 3 times (TMT1, light) and once (TMT2, heavy), 41 s in
    /// all"; None when nothing rose.
    fn words(&self) -> Option<String> {
        let ((t1, s1), (t2, s2)) = self.rise();
        if t1 == 0 && t2 == 0 && s1 == 0 && s2 == 0 {
            return None;
        }
        let times = |n: u32| match n {
            1 => "once".to_string(),
            n => format!("{n} times"),
        };
        let mut parts = Vec::new();
        if t1 > 0 || s1 > 0 {
            parts.push(format!("{} (TMT1, light)", times(t1)));
        }
        if t2 > 0 || s2 > 0 {
            parts.push(format!("{} (TMT2, heavy)", times(t2)));
        }
        let total = u64::from(s1) + u64::from(s2);
        Some(format!(
            "it entered thermal management {}, {total} s in all",
            parts.join(" and ")
        ))
    }
}

/// The thermal findings of a series: one per settings key whose throughput fell by
/// THROTTLE_MIN_FALL as the drive reached its warning temperature, and the drive's counters
/// when they rose (in the same sentence, or alone when the temperature says nothing).
pub fn thermal_throttling(
    series: &[Interval],
    temp_warn_c: Option<f64>,
    counters: Option<CountersAround>,
) -> Vec<Finding> {
    let said = counters.and_then(|c| c.words());
    let mut out: Vec<Finding> = match temp_warn_c {
        Some(warn) if warn.is_finite() => segments(series)
            .iter()
            .filter_map(|seg| throttled(seg, warn))
            .collect(),
        _ => Vec::new(),
    };
    match (&said, out.is_empty()) {
        (Some(log), false) => {
            for f in &mut out {
                f.text
                    .push_str(&format!("; the drive's own log agrees: {log}"));
            }
        }
        (Some(log), true) => out.push(Finding::new(
            kind::THERMAL_THROTTLING,
            format!("the drive's own log says it throttled during the run: {log}"),
        )),
        (None, _) => {}
    }
    out
}

/// The first hot span of one key that the figures fell across, as a finding.
fn throttled(seg: &[Interval], warn_c: f64) -> Option<Finding> {
    let metric = Metric::for_drops(&seg[0]);
    let points: Vec<Point> = seg.iter().map(|iv| Point::of(iv, metric)).collect();
    let hot = |iv: &Interval| iv.temp_c.is_some_and(|t| t >= warn_c - THROTTLE_MARGIN_C);
    let key_start = points[0].start_s;
    // Each full window's (end, median), to find the best before the heat.
    let windows: Vec<(f64, f64)> = (0..points.len())
        .filter_map(|i| {
            let first = window_start(&points, i, SLOWDOWN_WINDOW_S, key_start)?;
            Some((points[i].end_s, window_median(&points, first, i)))
        })
        .collect();
    for (from, to) in hot_spans(seg, &points, hot) {
        let (start_s, end) = (points[from], points[to]);
        if end.end_s - start_s.start_s < SLOWDOWN_HOLD_S - 0.5 * (end.end_s - end.start_s) {
            continue;
        }
        let before = windows
            .iter()
            .filter(|(w_end, _)| *w_end <= start_s.start_s + 1e-9)
            .map(|(_, m)| *m)
            .fold(None, |b: Option<f64>, m| Some(b.map_or(m, |b| b.max(m))));
        let Some(before) = before.filter(|b| *b > 0.0) else {
            continue;
        };
        let rates: Vec<f64> = points[from..=to].iter().map(|p| p.rate).collect();
        let fell = 1.0 - median(&rates) / before;
        if fell < THROTTLE_MIN_FALL {
            continue;
        }
        let peak = seg[from..=to]
            .iter()
            .filter_map(|iv| iv.temp_c)
            .fold(f64::MIN, f64::max);
        let text = format!(
            "{} fell {} as the drive reached {} (warning {}): thermal throttling",
            metric.name(),
            words::pct(fell),
            words::celsius(peak),
            words::celsius(warn_c)
        );
        return Some(Finding::new(kind::THERMAL_THROTTLING, text).at(start_s.start_s));
    }
    None
}

/// Runs of hot intervals as (first, last) indices, joining runs less than a hold apart: a
/// throttling drive cools a little, speeds up and heats again, and that is one span.
fn hot_spans(
    seg: &[Interval],
    points: &[Point],
    hot: impl Fn(&Interval) -> bool,
) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (i, iv) in seg.iter().enumerate() {
        if !hot(iv) {
            continue;
        }
        match spans.last_mut() {
            Some(span) if points[i].start_s - points[span.1].end_s < SLOWDOWN_HOLD_S => span.1 = i,
            _ => spans.push((i, i)),
        }
    }
    spans
}

#[cfg(test)]
#[path = "thermal_tests.rs"]
mod tests;
