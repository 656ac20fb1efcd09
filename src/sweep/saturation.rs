//! The saturation finder: where a sweep's curve stops paying. The metric is IOPS for a thread
//! sweep and bandwidth for a block-size sweep (IOPS fall as blocks grow). A step "adds" when it
//! beats the best before it by more than `GAIN_THRESHOLD`; the curve saturates at the first
//! step within that threshold of the best. When that step is the last one, the last step still
//! added more than the threshold, so the sweep ended on a rising curve: it did not saturate,
//! and the finding says so and suggests the next range instead of naming a saturation point.
//! Pure arithmetic over step figures; nothing here runs I/O.

use super::spec::{SweepSpec, max_value};
use super::{Dimension, Saturation, Verdict};
use crate::findings::conditions::{Conditions, Detector, Pacing};
use crate::stats::IntervalFigures;
use crate::units::format_count_rate;

/// A step adds to the curve when it beats the best earlier step by more than this share.
pub const GAIN_THRESHOLD: f64 = 0.10;
/// A suggested next range spans this factor (64 threads → 1024).
const NEXT_RANGE_FACTOR: u64 = 16;

/// The figure a sweep of `dimension` is judged by.
fn metric(dimension: Dimension, s: &IntervalFigures) -> f64 {
    match dimension {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => s.iops,
        Dimension::Bs => s.bw_bytes_per_s,
    }
}

/// "56.0k IOPS" / "412 MiB/s".
fn figure(dimension: Dimension, s: &IntervalFigures) -> String {
    match dimension {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => {
            format!("{} IOPS", format_count_rate(s.iops))
        }
        Dimension::Bs => format!("{:.0} MiB/s", s.bw_bytes_per_s / (1 << 20) as f64),
    }
}

/// Finds where `steps` saturate; `None` for no steps or no I/O in any, or where the
/// conditions table does not let a saturation speak (`--buffered`: the page cache's curve).
/// A step near the best that kept its `--rate` cap names the cap, never a saturation.
pub fn saturation(
    dimension: Dimension,
    steps: &[IntervalFigures],
    base: &Conditions,
) -> Option<Saturation> {
    if !base.with_rows(steps.len()).allows(Detector::Saturation) {
        return None;
    }
    let m = |s: &IntervalFigures| metric(dimension, s);
    let best = steps.iter().map(m).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    let last = steps.len() - 1;
    let near_best = |s: &IntervalFigures| m(s) * (1.0 + GAIN_THRESHOLD) >= best;
    let step = steps.iter().position(near_best)?;
    let capped = steps.iter().position(|s| near_best(s) && at_cap(s));
    let (verdict, summary) = if let Some(c) = capped {
        let rate_iops = steps[c].settings.rate_iops;
        let summary = at_rate_cap(dimension, &steps[c]);
        return Some(Saturation {
            step: c,
            dimension,
            value: dimension.value(&steps[c].settings),
            iops: steps[c].iops,
            bw_bytes_per_s: steps[c].bw_bytes_per_s,
            verdict: Verdict::AtRateCap { rate_iops },
            summary,
        });
    } else if last == 0 {
        (Verdict::OneStep, one_step(dimension, &steps[0]))
    } else if step == last {
        rising(dimension, steps)
    } else {
        (Verdict::Saturated, saturated(dimension, steps, step))
    };
    let at = &steps[step];
    Some(Saturation {
        step,
        dimension,
        value: dimension.value(&at.settings),
        iops: at.iops,
        bw_bytes_per_s: at.bw_bytes_per_s,
        verdict,
        summary,
    })
}

/// The step kept its `--rate` cap: its timetable did not fall behind.
fn at_cap(s: &IntervalFigures) -> bool {
    let p = Pacing::of(
        s.settings.rate_iops,
        s.counts.due,
        s.counts.issued,
        s.settings.threads,
    );
    p == Pacing::AtCap
}

/// "no saturation point: from 1 thread on the steps kept the --rate cap of 500 IOPS, so the
/// cap, not the disk, is the limit; …".
fn at_rate_cap(dimension: Dimension, s: &IntervalFigures) -> String {
    format!(
        "no saturation point: from {} on the steps kept the --rate cap of {} IOPS, so the cap, \
         not the disk, is the limit; sweep without --rate to find where the disk saturates",
        dimension.describe(dimension.value(&s.settings)),
        format_count_rate(s.settings.rate_iops as f64),
    )
}

fn one_step(dimension: Dimension, s: &IntervalFigures) -> String {
    format!(
        "only one step measured ({}: {}): a saturation curve needs at least two",
        dimension.describe(dimension.value(&s.settings)),
        figure(dimension, s)
    )
}

/// "saturates at 16 threads (56.0k IOPS); 64 threads add 7% IOPS for 3.2x the p99 latency".
fn saturated(dimension: Dimension, steps: &[IntervalFigures], step: usize) -> String {
    let sat = &steps[step];
    let last = &steps[steps.len() - 1];
    let describe = |s: &IntervalFigures| dimension.describe(dimension.value(&s.settings));
    let gain = (metric(dimension, last) / metric(dimension, sat) - 1.0) * 100.0;
    let p99 = if sat.latency_ns.p99 > 0 {
        last.latency_ns.p99 as f64 / sat.latency_ns.p99 as f64
    } else {
        0.0
    };
    let (gained, plural) = match dimension {
        Dimension::Threads => ("IOPS", true),
        Dimension::Iodepth | Dimension::Rate => ("IOPS", false),
        Dimension::Bs => ("bandwidth", false),
    };
    let verb = match (gain >= 0.0, plural) {
        (true, true) => "add",
        (true, false) => "adds",
        (false, true) => "lose",
        (false, false) => "loses",
    };
    format!(
        "saturates at {} ({}); {} {verb} {:.0}% {gained} for {p99:.1}x the p99 latency",
        describe(sat),
        figure(dimension, sat),
        describe(last),
        gain.abs(),
    )
}

/// The verdict and sentence for a curve still rising at its last step.
fn rising(dimension: Dimension, steps: &[IntervalFigures]) -> (Verdict, String) {
    let last = steps.len() - 1;
    let m = |s: &IntervalFigures| metric(dimension, s);
    let over_step = (0..last).fold(0, |b, i| if m(&steps[i]) > m(&steps[b]) { i } else { b });
    let value = dimension.value(&steps[last].settings);
    let over_value = dimension.value(&steps[over_step].settings);
    let over = m(&steps[over_step]);
    let gain_pct = (over > 0.0).then(|| (m(&steps[last]) / over - 1.0) * 100.0);
    let top = max_value(dimension);
    let suggest = (value < top).then(|| {
        SweepSpec::doubling_text(
            dimension,
            value,
            value.saturating_mul(NEXT_RANGE_FACTOR).min(top),
        )
    });
    let what = match dimension {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => "IOPS",
        Dimension::Bs => "bandwidth",
    };
    let gain = match gain_pct {
        Some(g) => format!("+{g:.0}% {what} over {}", dimension.describe(over_value)),
        None => "the steps before it did no I/O".to_string(),
    };
    let next = match &suggest {
        Some(s) => format!("try --sweep {s}"),
        None => format!("{} is the most diskscope runs", dimension.describe(value)),
    };
    let summary = format!(
        "no saturation within this sweep: still rising at {} ({gain}); {next}",
        dimension.describe(value)
    );
    let verdict = Verdict::Rising {
        over_step,
        over_value,
        gain_pct,
        suggest,
    };
    (verdict, summary)
}

#[cfg(test)]
#[path = "saturation_tests.rs"]
mod tests;
