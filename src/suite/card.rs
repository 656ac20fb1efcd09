//! The card's rows, computed from the passes a test ran (`model::suite` holds the figures'
//! types): for MB/s and IOPS the median of the passes with their min–max spread and the best
//! pass beside it (CrystalDiskMark reports only the best; diskscope leads with the median),
//! and latency from the passes' histograms merged — a p99 over every I/O of every pass, never
//! an average of per-pass p99s and never from stored samples. A direction that did not run
//! carries the reason instead of figures.

use super::{Direction, DirectionResult, Plan, TestResult};
use crate::model::ConfigReport;
use crate::model::finding::Finding;
use crate::stats::{IntervalFigures, Latency};
use crate::why::{WhyFacts, step_findings};

/// Builds the card's rows from the passes measured so far (`results[i]` and `latencies[i]`
/// are `plan.passes[i]`). A direction with no measured pass says `pending` (why it has no
/// figures yet: "not run yet", "not run: the suite was stopped").
pub fn rows(
    plan: &Plan,
    results: &[IntervalFigures],
    latencies: &[Latency],
    pending: &str,
) -> Vec<TestResult> {
    plan.tests()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let direction = |d: Direction| -> (Option<DirectionResult>, Option<String>) {
                if d == Direction::Write
                    && let Some(why) = &plan.write_refusal
                {
                    return (None, Some(why.clone()));
                }
                let picked: Vec<usize> = plan
                    .passes
                    .iter()
                    .enumerate()
                    .filter(|(k, p)| p.test == i && p.direction == d && *k < results.len())
                    .map(|(k, _)| k)
                    .collect();
                if picked.is_empty() {
                    return (None, Some(pending.to_string()));
                }
                let passes: Vec<IntervalFigures> =
                    picked.iter().map(|&k| results[k].clone()).collect();
                let lats: Vec<&Latency> = picked.iter().map(|&k| &latencies[k]).collect();
                (Some(DirectionResult::of(&passes, &lats)), None)
            };
            let (read, read_not_run) = direction(Direction::Read);
            let (write, write_not_run) = direction(Direction::Write);
            let iodepth_run = plan.depth_run(t);
            TestResult {
                name: t.name(),
                bs: t.bs,
                iodepth: t.iodepth,
                iodepth_run,
                threads: t.threads,
                random: t.random,
                read,
                read_not_run,
                write,
                write_not_run,
                note: (iodepth_run != t.iodepth).then(|| {
                    format!("ran at Q{iodepth_run}: io_uring is not in use, psync keeps one I/O in flight")
                }),
            }
        })
        .collect()
}

/// What the card's tests crossed (the link, the queue's limits at each test's settings, the
/// link at its ceiling in the busiest pass): every pass of every test and direction judged
/// as one series of steps.
pub fn findings(config: &ConfigReport, tests: &[TestResult]) -> Vec<Finding> {
    let passes: Vec<IntervalFigures> = tests
        .iter()
        .flat_map(|t| [&t.read, &t.write])
        .flatten()
        .flat_map(|d| d.passes.iter().cloned())
        .collect();
    step_findings(&WhyFacts::of(config), &passes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{IoEngine, Settings};
    use crate::stats::Counts;
    use crate::suite::{Spread, SuiteName, Timing};

    /// A pass of `mb` MB/s of 1 MiB reads over one second, each I/O at `lat_ns`.
    fn pass(mb: f64, lat_ns: u64) -> (IntervalFigures, Latency) {
        let bw = mb * 1e6;
        let ops = (bw / (1 << 20) as f64).round() as u64;
        let mut l = Latency::default();
        l.record_n(lat_ns, ops);
        let f = IntervalFigures {
            sides: None,
            period: None,
            t_s: 1.0,
            elapsed_s: 1.0,
            settings: Settings::default(),
            counts: Counts {
                ops,
                bytes: ops << 20,
                read_ops: ops,
                read_bytes: ops << 20,
                ..Counts::default()
            },
            iops: ops as f64,
            bw_bytes_per_s: bw,
            latency_ns: l.summary(),
            service_latency_ns: l.summary(),
            left_out: Default::default(),
            temp_c: None,
        };
        (f, l)
    }

    #[test]
    fn medians_spreads_and_best_come_from_the_passes() {
        assert_eq!(
            Spread::of(&[300.0, 100.0, 200.0]),
            Spread {
                median: 200.0,
                min: 100.0,
                max: 300.0,
                best: 300.0
            }
        );
        assert_eq!(Spread::of(&[4.0, 1.0, 3.0, 2.0]).median, 2.5);
        assert!((Spread::of(&[90.0, 100.0, 110.0]).width_pct() - 20.0).abs() < 1e-9);
        // Three passes; the slow middle one is the median, the p99 is over all I/Os: 1%+ of
        // them took 5 ms (the third pass's), so the merged p99 is 5 ms though two passes'
        // own p99s are 1 ms.
        let (a, la) = pass(1000.0, 1_000_000);
        let (b, lb) = pass(800.0, 1_000_000);
        let (c, lc) = pass(1200.0, 5_000_000);
        let d = DirectionResult::of(&[a.clone(), b, c], &[&la, &lb, &lc]);
        assert_eq!(d.mb_per_s.median, 1000.0);
        assert_eq!((d.mb_per_s.min, d.mb_per_s.best), (800.0, 1200.0));
        assert_eq!(d.iops.median, a.iops);
        assert_eq!(d.latency_ns.p99, 5_000_000);
        assert_eq!(d.latency_ns.count, d.counts.ops);
        let mean = (la.count() + lb.count()) as f64 * 1e6 + lc.count() as f64 * 5e6;
        let mean = mean / d.counts.ops as f64;
        assert!(
            (d.latency_ns.mean - mean).abs() / mean < 0.001,
            "{}",
            d.latency_ns.mean
        );
        assert_eq!(d.passes.len(), 3);
    }

    #[test]
    fn rows_group_passes_by_test_and_say_why_writes_did_not_run() {
        let t = Timing {
            passes: 2,
            ..Timing::default()
        };
        let plan = Plan::new(
            SuiteName::Real,
            t,
            Some("not run: add --allow-write".into()),
            IoEngine::Psync,
        );
        let (p1, l1) = pass(100.0, 1000);
        let (p2, l2) = pass(300.0, 1000);
        let (p3, l3) = pass(50.0, 1000);
        let rows = rows(&plan, &[p1, p2, p3], &[l1, l2, l3], "not run yet");
        assert_eq!(rows[0].name, "SEQ1M Q1T1");
        let r0 = rows[0].read.as_ref().unwrap();
        assert_eq!((r0.mb_per_s.median, r0.passes.len()), (200.0, 2));
        assert_eq!(
            rows[0].write_not_run.as_deref(),
            Some("not run: add --allow-write")
        );
        // The second test has one pass so far.
        assert_eq!(rows[1].read.as_ref().unwrap().passes.len(), 1);
        assert_eq!(rows[1].note, None);
        let rows = super::rows(&plan, &[], &[], "not run: stopped");
        assert_eq!(
            rows[1].direction(Direction::Read).unwrap_err(),
            "not run: stopped"
        );
    }
}
