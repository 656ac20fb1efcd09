use std::time::{Duration, Instant};

use super::*;
use crate::disks::clock::{Clock, SharedSeconds};
use crate::disks::testing::snap;

fn identity(name: &str) -> Identity {
    Identity {
        name: name.into(),
        model: Some("QEMU HARDDISK".into()),
        link: None,
        device: Some(name.into()),
        config: ConfigReport::example(),
    }
}

/// Three targets for 3 s: `a` and `b` at 100 ops a tick taking 100 µs each, `c` at 40 taking
/// 400 µs; returns the collector after every second and each target's last snapshot, whose
/// totals are what its engine counted.
fn three() -> (Collector, Vec<Snapshot>, Vec<IntervalFigures>) {
    let origin = Instant::now();
    let rate = [100, 100, 40];
    let latency_ns = [100_000, 100_000, 400_000];
    let mut shared = SharedSeconds::new(Clock::new(origin, 3), 3);
    let mut c = Collector::new(3, 3600);
    let mut lasts = Vec::new();
    let mut aggregate_rows = Vec::new();
    for (i, &ops) in rate.iter().enumerate() {
        let mut last = snap(3000, ops);
        for n in 1..=30 {
            let mut s = snap(n * 100, ops);
            s.interval_latency = Latency::default();
            s.interval_latency.record_n(latency_ns[i], ops);
            let at = origin + Duration::from_millis(n * 100 + 7 * i as u64);
            for sec in shared.push(i, &s, at).1 {
                aggregate_rows.push(c.second(&sec).1);
            }
        }
        last.total.ops = 30 * ops;
        last.total.bytes = 30 * ops * 4096;
        last.total_elapsed = Duration::from_secs(3);
        lasts.push(last);
    }
    for i in 0..3 {
        for sec in shared.done(i) {
            aggregate_rows.push(c.second(&sec).1);
        }
    }
    (c, lasts, aggregate_rows)
}

fn finish(c: &Collector, lasts: &[Snapshot]) -> Report {
    let ids = [identity("a"), identity("b"), identity("c")];
    c.finish(&Finish {
        identities: &ids,
        lasts: lasts.iter().map(Some).collect(),
        periods: vec![None; 3],
        kernel: vec![None; 3],
        outlier_pct: 20.0,
        cpu_busy_pct: Some(12.0),
    })
    .unwrap()
}

#[test]
fn the_aggregate_is_the_targets_added_and_latency_merged_not_averaged() {
    let (c, lasts, rows) = three();
    let r = finish(&c, &lasts);
    assert_eq!(rows.len(), 3);
    // Each target's rows add up to its engine's count; the aggregate's rows to the sum.
    for t in &r.targets {
        let sum: u64 = t.run.intervals.iter().map(|i| i.counts.ops).sum();
        assert_eq!(sum, t.run.total.counts.ops, "{}", t.name);
    }
    assert_eq!(r.aggregate.counts.ops, 30 * 240);
    let rows_ops: u64 = r.aggregate.intervals.iter().map(|i| i.counts.ops).sum();
    assert_eq!(rows_ops, r.aggregate.counts.ops);
    // Rates add target by target; every second's aggregate rate is the rows' rates added.
    assert!(
        (r.aggregate.iops - 2400.0).abs() < 1e-6,
        "{}",
        r.aggregate.iops
    );
    for (k, row) in r.aggregate.intervals.iter().enumerate() {
        let sum: f64 = r.targets.iter().map(|t| t.run.intervals[k].iops).sum();
        assert!((row.iops - sum).abs() < 1e-6);
        assert_eq!(row.latency_ns.count, row.counts.ops);
    }
    // One histogram of every I/O, a latency per op: 1200 of the 7200 took 400 µs, so p99 is
    // c's and the mean is weighted by ops (150 µs), not the mean of the means (200 µs).
    let l = r.aggregate.latency_ns;
    assert_eq!(l.count, 7200);
    assert_eq!((l.min, l.p99, l.max), (100_000, 400_000, 400_000));
    assert!(
        l.p50.abs_diff(100_000) <= 100,
        "p50 {} (3 significant digits)",
        l.p50
    );
    assert!((l.mean - 150_000.0).abs() < 200.0, "{}", l.mean);
    assert_eq!(r.aggregate.cpu_busy_pct, Some(12.0));
}

#[test]
fn the_slow_target_is_named_against_the_median() {
    let (c, lasts, _) = three();
    let r = finish(&c, &lasts);
    assert_eq!(r.outliers, ["c"]);
    assert_eq!(r.aggregate.median_iops, 1000.0);
    assert_eq!(r.targets[2].below_median_pct, Some(60.0));
    assert_eq!(r.findings[0].text, "c 60% below the median of 3");
    assert_eq!(r.targets[0].below_median_pct, None);
}

#[test]
fn a_target_without_a_snapshot_is_an_error_naming_it() {
    let (c, lasts, _) = three();
    let ids = [identity("a"), identity("b"), identity("c")];
    let e = c
        .finish(&Finish {
            identities: &ids,
            lasts: vec![Some(&lasts[0]), None, Some(&lasts[2])],
            periods: vec![None; 3],
            kernel: vec![None; 3],
            outlier_pct: 20.0,
            cpu_busy_pct: None,
        })
        .unwrap_err();
    assert!(e.starts_with("b: "), "{e}");
}

#[test]
fn the_kernels_count_is_the_difference_of_two_readings() {
    let before = crate::diskstats::parse_diskstats(" 7 1 loop1 10 2 80 5 3 0 24 1 0 9 9\n");
    let after = crate::diskstats::parse_diskstats(" 7 1 loop1 110 4 880 9 3 1 32 1 0 19 19\n");
    let k = kernel_count(&before, &after, "loop1").unwrap();
    assert_eq!(
        (
            k.reads_completed,
            k.reads_merged,
            k.writes_completed,
            k.writes_merged
        ),
        (100, 2, 0, 1)
    );
    assert_eq!(k.ios(), 103);
    assert_eq!(kernel_count(&before, &after, "loop2"), None);
}
