//! The latency-vs-load curve (vdbench's `iorate=curve`): one unlimited step finds the most
//! the disk does, then paced steps at fixed shares of it show how latency grows with load —
//! flat while the disk has room, then the hockey stick as queues form. Pure arithmetic over
//! step figures; the steps' rates are set by `SweepRunner` once the unlimited step is measured.
//!
//! **Where p99 leaves the flat part**: the first paced step whose p99 is more than
//! `FLAT_FACTOR` (2×) the p99 at the lightest paced step (10% of the maximum in a curve).
//! Twice the light-load tail is a queue the application can feel, and well clear of the
//! run-to-run noise of a p99 over a few seconds; the steps before it are "the flat part".

use super::{CurvePoint, LatencyCurve};
use crate::stats::IntervalFigures;
use crate::units::{format_count_rate, format_latency_ns};

/// The paced steps of a curve, in percent of the unlimited step's IOPS.
pub const CURVE_PCTS: [u32; 8] = [10, 30, 50, 70, 80, 90, 95, 100];
/// p99 leaves the flat part where it exceeds this many times its value at the lightest step.
pub const FLAT_FACTOR: f64 = 2.0;

/// The paced rates of a curve over a disk that did `max_iops` unlimited: `CURVE_PCTS` of it,
/// rounded, at least 1 I/O per second, strictly rising (a tiny maximum merges equal steps).
pub fn curve_rates(max_iops: f64) -> Vec<u64> {
    let mut rates: Vec<u64> = CURVE_PCTS
        .iter()
        .map(|&p| ((max_iops * f64::from(p) / 100.0).round() as u64).max(1))
        .collect();
    rates.dedup();
    rates
}

/// The curve of a rate sweep's steps (an unlimited step, if any, gives the maximum); `None`
/// without a paced step that did I/O.
pub fn latency_curve(steps: &[IntervalFigures]) -> Option<LatencyCurve> {
    let unlimited = steps.iter().find(|s| s.settings.rate_iops == 0);
    let paced: Vec<&IntervalFigures> = steps
        .iter()
        .filter(|s| s.settings.rate_iops > 0 && s.counts.ops > 0)
        .collect();
    let max_iops = match unlimited {
        Some(u) => u.iops,
        None => paced.iter().map(|s| s.iops).fold(0.0, f64::max),
    };
    if paced.is_empty() || max_iops <= 0.0 {
        return None;
    }
    // A curve's own steps are named by their share (95%, not the 96% that rounding a small
    // maximum makes of it); other rates by their ratio to the maximum.
    let nominal = curve_rates(max_iops);
    let pct_of = |rate: u64| match nominal.iter().position(|&r| r == rate) {
        Some(i) if unlimited.is_some() && nominal.len() == CURVE_PCTS.len() => {
            f64::from(CURVE_PCTS[i])
        }
        _ => rate as f64 * 100.0 / max_iops,
    };
    let points: Vec<CurvePoint> = paced
        .iter()
        .map(|s| CurvePoint {
            pct_of_max: pct_of(s.settings.rate_iops),
            asked_iops: s.settings.rate_iops,
            iops: s.iops,
            p50_ns: s.latency_ns.p50,
            p99_ns: s.latency_ns.p99,
        })
        .collect();
    let flat_p99_ns = points[0].p99_ns;
    let limit = flat_p99_ns as f64 * FLAT_FACTOR;
    let leaves_flat_at = points.iter().position(|p| p.p99_ns as f64 > limit);
    let summary = summary(&points, leaves_flat_at);
    Some(LatencyCurve {
        max_iops,
        points,
        flat_p99_ns,
        leaves_flat_at,
        summary,
    })
}

/// "p99 stays within 310 µs up to 70% of max (22.1k IOPS), 4.10 ms at 80%, 9.8 ms at 100%".
fn summary(points: &[CurvePoint], leaves: Option<usize>) -> String {
    let lat = |ns: u64| format_latency_ns(ns as f64);
    let pct = |p: &CurvePoint| format!("{:.0}%", p.pct_of_max);
    let last = points[points.len() - 1];
    let within = |upto: usize| {
        let top = points[..=upto].iter().map(|p| p.p99_ns).max().unwrap_or(0);
        let p = points[upto];
        format!(
            "p99 stays within {} up to {} of max ({} IOPS)",
            lat(top),
            pct(&p),
            format_count_rate(p.iops)
        )
    };
    match leaves {
        None => format!(
            "{}: it never leaves the flat part (2x the {} at {})",
            within(points.len() - 1),
            lat(points[0].p99_ns),
            pct(&points[0])
        ),
        Some(k) => {
            let steep = points[k];
            let mut s = if k == 0 {
                unreachable!("the lightest step is the reference")
            } else {
                format!(
                    "{}, {} at {}",
                    within(k - 1),
                    lat(steep.p99_ns),
                    pct(&steep)
                )
            };
            if k + 1 < points.len() {
                s += &format!(", {} at {}", lat(last.p99_ns), pct(&last));
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use crate::stats::{Counts, LatencySummary};

    fn step(rate_iops: u64, iops: f64, p99: u64) -> IntervalFigures {
        IntervalFigures {
            sides: None,
            period: None,
            t_s: 0.0,
            elapsed_s: 3.0,
            settings: Settings {
                rate_iops,
                ..Settings::default()
            },
            counts: Counts {
                ops: (iops * 3.0) as u64,
                ..Counts::default()
            },
            iops,
            bw_bytes_per_s: iops * 4096.0,
            latency_ns: LatencySummary {
                p50: p99 / 3,
                p99,
                ..LatencySummary::default()
            },
            service_latency_ns: LatencySummary::default(),
            left_out: Default::default(),
            temp_c: None,
        }
    }

    #[test]
    fn rates_are_the_fractions_of_the_maximum() {
        assert_eq!(
            curve_rates(31_600.0),
            vec![3160, 9480, 15_800, 22_120, 25_280, 28_440, 30_020, 31_600]
        );
        assert_eq!(curve_rates(3.0), vec![1, 2, 3]);
    }

    #[test]
    fn p99_leaves_the_flat_part_beyond_twice_its_light_load_value() {
        let max = 31_600.0;
        let mut steps = vec![step(0, max, 9_000_000)];
        let p99 = [250, 260, 280, 300, 700, 1500, 4100, 9800];
        for (r, p) in curve_rates(max).into_iter().zip(p99) {
            steps.push(step(r, r as f64, p * 1000));
        }
        let c = latency_curve(&steps).unwrap();
        assert_eq!(c.points.len(), 8);
        assert_eq!(c.flat_p99_ns, 250_000);
        // 700 µs > 2 × 250 µs: the 80% step.
        assert_eq!(c.leaves_flat_at, Some(4));
        assert_eq!(
            c.summary,
            "p99 stays within 300 µs up to 70% of max (22.1k IOPS), 700 µs at 80%, 9.80 ms at 100%"
        );
        // Flat all the way.
        let flat: Vec<_> = steps
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.latency_ns.p99 = s.latency_ns.p99.min(400_000);
                s
            })
            .collect();
        let c = latency_curve(&flat).unwrap();
        assert_eq!(c.leaves_flat_at, None);
        assert!(
            c.summary.contains("never leaves the flat part"),
            "{}",
            c.summary
        );
        assert!(c.summary.contains("up to 100% of max"), "{}", c.summary);
        // A small maximum: the steps keep their names (68 of 71.4 is the 95% step).
        let mut small = vec![step(0, 71.4, 20_000_000)];
        for r in curve_rates(71.4) {
            small.push(step(r, r as f64, 400_000));
        }
        let c = latency_curve(&small).unwrap();
        let pcts: Vec<f64> = c.points.iter().map(|p| p.pct_of_max).collect();
        assert_eq!(pcts, [10.0, 30.0, 50.0, 70.0, 80.0, 90.0, 95.0, 100.0]);
        // Only the unlimited step: no curve.
        assert_eq!(latency_curve(&steps[..1]), None);
    }
}
