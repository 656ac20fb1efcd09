//! The saturation finder: where a sweep's curve stops paying. The metric is IOPS for a thread
//! sweep and bandwidth for a block-size sweep (IOPS fall as blocks grow). A step "adds" when it
//! beats the best before it by more than `GAIN_THRESHOLD`; the curve saturates at the first
//! step within that threshold of the best. When that step is the last one, the last step still
//! added more than the threshold, so the sweep ended on a rising curve: it did not saturate,
//! and the finding says so and suggests the next range instead of naming a saturation point.
//! Pure arithmetic over step figures; nothing here runs I/O.

use super::spec::{SweepSpec, max_value};
use super::{Dimension, Saturation, Verdict};
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

/// Finds where `steps` saturate; `None` for no steps or no I/O in any.
pub fn saturation(dimension: Dimension, steps: &[IntervalFigures]) -> Option<Saturation> {
    let m = |s: &IntervalFigures| metric(dimension, s);
    let best = steps.iter().map(m).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    let last = steps.len() - 1;
    let step = steps
        .iter()
        .position(|s| m(s) * (1.0 + GAIN_THRESHOLD) >= best)?;
    let (verdict, summary) = if last == 0 {
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
mod tests {
    use super::*;
    use crate::settings::Settings;
    use crate::stats::{Counts, LatencySummary};

    fn step(threads: usize, iops: f64, p99: u64) -> IntervalFigures {
        IntervalFigures {
            sides: None,
            period: None,
            t_s: 0.0,
            settings: Settings {
                threads,
                ..Settings::default()
            },
            elapsed_s: 3.0,
            counts: Counts::default(),
            iops,
            bw_bytes_per_s: iops * 4096.0,
            latency_ns: LatencySummary {
                p99,
                ..LatencySummary::default()
            },
            service_latency_ns: LatencySummary::default(),
            left_out: Default::default(),
            temp_c: None,
        }
    }

    fn curve(points: &[(usize, f64)]) -> Vec<IntervalFigures> {
        points
            .iter()
            .map(|&(t, iops)| step(t, iops, 100_000))
            .collect()
    }

    #[test]
    fn a_flattening_curve_saturates_at_the_first_step_near_the_best() {
        let steps = vec![
            step(1, 10_000.0, 100_000),
            step(4, 35_000.0, 120_000),
            step(16, 56_000.0, 300_000),
            step(64, 60_000.0, 960_000),
        ];
        let s = saturation(Dimension::Threads, &steps).unwrap();
        assert!(s.saturated());
        assert_eq!((s.step, s.value), (2, 16));
        assert_eq!(
            s.summary,
            "saturates at 16 threads (56.0k IOPS); 64 threads add 7% IOPS for 3.2x the p99 latency"
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["saturated"], true);
        assert_eq!(json["threads"], 16);
        assert!(json["suggest"].is_null());
        assert!(saturation(Dimension::Threads, &[]).is_none());
        assert!(saturation(Dimension::Threads, &curve(&[(1, 0.0), (2, 0.0)])).is_none());
    }

    #[test]
    fn two_steps_still_rising_are_not_a_saturation() {
        // The case from the issue: 1 → 2 threads gained 44%, which said "saturates at 2".
        let s = saturation(Dimension::Threads, &curve(&[(1, 10_000.0), (2, 14_400.0)])).unwrap();
        assert!(!s.saturated(), "{}", s.summary);
        assert!(!s.summary.contains("saturates at"), "{}", s.summary);
        assert_eq!(
            s.summary,
            "no saturation within this sweep: still rising at 2 threads (+44% IOPS over 1 thread); \
             try --sweep threads=2..32"
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["saturated"], false);
        assert_eq!(json["still_rising_at"]["threads"], 2);
        assert_eq!(json["suggest"], "threads=2..32");
        assert!(json.get("threads").is_none(), "no saturation value: {json}");
    }

    #[test]
    fn a_curve_rising_to_the_end_suggests_the_next_range() {
        let points: Vec<(usize, f64)> =
            (0..7).map(|i| (1 << i, 1000.0 * 1.31f64.powi(i))).collect();
        let s = saturation(Dimension::Threads, &curve(&points)).unwrap();
        assert_eq!(s.step, 6);
        assert!(
            s.summary.ends_with(
                "still rising at 64 threads (+31% IOPS over 32 threads); try --sweep threads=64..1024"
            ),
            "{}",
            s.summary
        );
        // At the limit there is no next range to suggest.
        let top = saturation(Dimension::Threads, &curve(&[(512, 1000.0), (1024, 2000.0)])).unwrap();
        assert!(
            top.summary
                .ends_with("1024 threads is the most diskscope runs"),
            "{}",
            top.summary
        );
        assert_eq!(
            top.verdict,
            Verdict::Rising {
                over_step: 0,
                over_value: 512,
                gain_pct: Some(100.0),
                suggest: None
            }
        );
    }

    #[test]
    fn noise_on_a_plateau_is_not_a_rise_but_a_last_jump_is() {
        // ±4% wobble after 4 threads: saturated at 4, whatever the last step does within noise.
        let wobble = curve(&[
            (1, 100.0),
            (2, 190.0),
            (4, 300.0),
            (8, 312.0),
            (16, 296.0),
            (32, 318.0),
        ]);
        let s = saturation(Dimension::Threads, &wobble).unwrap();
        assert!(s.saturated(), "{}", s.summary);
        assert_eq!(s.value, 4);
        // A dip at the end after a rise: the peak before it is the saturation.
        let dip = saturation(
            Dimension::Threads,
            &curve(&[(1, 100.0), (2, 150.0), (4, 200.0), (8, 190.0)]),
        )
        .unwrap();
        assert!(dip.saturated() && dip.value == 4, "{}", dip.summary);
        assert!(
            dip.summary.contains("8 threads lose 5% IOPS"),
            "{}",
            dip.summary
        );
        // Flat from the start: saturated at the first step.
        let flat = saturation(
            Dimension::Threads,
            &curve(&[(1, 100.0), (2, 101.0), (4, 99.0)]),
        )
        .unwrap();
        assert!(flat.saturated() && flat.step == 0, "{}", flat.summary);
        // A plateau, then a jump well beyond the noise at the last step: still rising, measured
        // against the best earlier step (not the dip just before).
        let jump = saturation(
            Dimension::Threads,
            &curve(&[(1, 100.0), (2, 200.0), (4, 210.0), (8, 190.0), (16, 260.0)]),
        )
        .unwrap();
        assert!(!jump.saturated());
        assert!(
            jump.summary.contains("(+24% IOPS over 4 threads)"),
            "{}",
            jump.summary
        );
    }

    #[test]
    fn block_size_sweeps_are_judged_by_bandwidth() {
        let mk = |bs: u64, mib_s: f64| IntervalFigures {
            period: None,
            settings: Settings {
                bs,
                ..Settings::default()
            },
            bw_bytes_per_s: mib_s * (1 << 20) as f64,
            iops: mib_s * (1 << 20) as f64 / bs as f64,
            ..step(1, 0.0, 0)
        };
        let rising = [mk(4096, 100.0), mk(16384, 300.0), mk(65536, 700.0)];
        let s = saturation(Dimension::Bs, &rising).unwrap();
        assert!(!s.saturated());
        assert!(
            s.summary
                .ends_with("(+133% bandwidth over 16k); try --sweep bs=64k..1M"),
            "{}",
            s.summary
        );
        let flat = [mk(4096, 100.0), mk(16384, 480.0), mk(65536, 500.0)];
        let s = saturation(Dimension::Bs, &flat).unwrap();
        assert!(s.saturated() && s.value == 16384, "{}", s.summary);
    }

    #[test]
    fn one_step_is_not_a_curve() {
        let s = saturation(Dimension::Threads, &curve(&[(1, 5000.0)])).unwrap();
        assert_eq!(s.verdict, Verdict::OneStep);
        assert!(
            s.summary
                .starts_with("only one step measured (1 thread: 5000 IOPS)"),
            "{}",
            s.summary
        );
    }
}
