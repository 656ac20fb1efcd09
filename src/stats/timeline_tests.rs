//! The timeline against made-up intervals: every scale sums to the same operations, bytes
//! and time; a column keeps the peak percentile; a day of intervals stays bounded and whole;
//! a stop keeps the clock even.

use super::*;

const TICK: Duration = Duration::from_millis(100);

/// The `i`-th interval of a run with `ops` I/Os of `bytes` each and a p99 of `p99_ns`; the
/// ticks are a little uneven, as the sampler's are.
fn sample(i: u64, ops: u64, p99_ns: u64) -> Sample {
    let jitter = Duration::from_micros((i * 7919) % 900);
    let mut latency = Log2Histogram::default();
    latency.counts[17] = ops;
    Sample {
        at: TICK * (i as u32 + 1) + jitter,
        elapsed: TICK,
        ops,
        bytes: ops * 4096,
        p50_ns: p99_ns / 2,
        p99_ns,
        latency,
    }
}

fn totals(c: &Columns) -> (u64, u64, Duration, u64) {
    c.buckets.iter().fold((0, 0, Duration::ZERO, 0), |t, b| {
        (
            t.0 + b.ops,
            t.1 + b.bytes,
            t.2 + b.elapsed,
            t.3 + b.latency.total(),
        )
    })
}

#[test]
fn every_scale_sums_the_same_operations_bytes_and_time() {
    let mut t = Timeline::default();
    let n = 250u64; // 25 s: every scale still holds the whole run
    let mut want = (0, 0, Duration::ZERO, 0);
    for i in 0..n {
        let ops = 1000 + i * 3;
        t.push(&sample(i, ops, 100_000 + i));
        want = (
            want.0 + ops,
            want.1 + ops * 4096,
            want.2 + TICK,
            want.3 + ops,
        );
    }
    for zoom in [Zoom::Interval, Zoom::Second, Zoom::TenSeconds, Zoom::Whole] {
        let c = t.columns(zoom, 1000);
        assert_eq!(totals(&c), want, "{zoom:?}");
    }
    assert_eq!(t.columns(Zoom::Interval, 1000).buckets.len(), n as usize);
    // 25 s of seconds: 25 or 26 columns (the clock's first second may hold a part).
    let seconds = t.columns(Zoom::Second, 1000).buckets;
    assert!((25..=26).contains(&seconds.len()), "{}", seconds.len());
    // A rate is the sum over the time: the 10th second holds 10 intervals of 0.1 s.
    let b = &seconds[10];
    assert_eq!(b.intervals, 10, "{b:?}");
    assert!((b.iops() - b.ops as f64 / b.elapsed.as_secs_f64()).abs() < 1e-9);
}

#[test]
fn a_column_keeps_the_highest_percentile_never_an_average() {
    let mut t = Timeline::default();
    for i in 0..20 {
        let p99 = if i == 13 { 9_000_000 } else { 100_000 };
        t.push(&sample(i, 100, p99));
    }
    let c = t.columns(Zoom::TenSeconds, 10);
    assert_eq!(c.buckets.len(), 1);
    assert_eq!(c.buckets[0].max_p99_ns, 9_000_000);
    assert_eq!(c.buckets[0].max_p50_ns, 4_500_000);
}

#[test]
fn a_day_of_intervals_stays_bounded_and_whole() {
    let mut t = Timeline::default();
    let day = 24 * 3600 * 10u64;
    let mut ops_sum = 0u64;
    for i in 0..day {
        let ops = 10 + i % 7;
        ops_sum += ops;
        t.push(&sample(i, ops, 50_000));
        if i % 36_000 == 0 {
            assert!(t.held() <= 3 * RING + WHOLE, "{} at {i}", t.held());
        }
    }
    assert!(t.held() <= 3 * RING + WHOLE, "{}", t.held());
    // The whole run is still all there, to the operation.
    let whole = t.columns(Zoom::Whole, 80);
    assert!(whole.buckets.len() <= 80);
    assert_eq!(totals(&whole).0, ops_sum);
    assert_eq!(totals(&whole).2, TICK * day as u32);
    // Each column stands for the same stretch, and 80 of them cover the day, barely.
    let per = whole.per_column.expect("a span");
    assert!(per * 80 >= Duration::from_secs(24 * 3600), "{per:?}");
    assert!(per * 40 < Duration::from_secs(24 * 3600), "{per:?}");
    // The fixed scales hold their last RING buckets.
    assert_eq!(t.columns(Zoom::Second, 10_000).buckets.len(), RING);
    let last = t.columns(Zoom::TenSeconds, 1).buckets;
    assert_eq!(last[0].end, sample(day - 1, 0, 0).at);
}

#[test]
fn a_stop_leaves_empty_columns_so_the_clock_stays_even() {
    let mut t = Timeline::default();
    for i in 0..30 {
        t.push(&sample(i, 100, 1));
    }
    // Nothing for five seconds (the process was stopped), then more.
    for i in 80..90 {
        t.push(&sample(i, 100, 1));
    }
    let c = t.columns(Zoom::Second, 100).buckets;
    let empty = c.iter().filter(|b| b.intervals == 0).count();
    assert!((4..=5).contains(&empty), "{c:?}");
    assert_eq!(c.iter().map(|b| b.ops).sum::<u64>(), 4000);
}

#[test]
fn zoom_cycles_through_every_scale() {
    let mut z = Zoom::default();
    let mut seen = vec![z];
    for _ in 0..4 {
        z = z.next();
        seen.push(z);
    }
    assert_eq!(seen.first(), seen.last());
    assert_eq!(
        seen[..4],
        [Zoom::Interval, Zoom::Second, Zoom::TenSeconds, Zoom::Whole]
    );
}
