//! The tracker against snapshots that keep their totals as the engine does: every change,
//! pause, reset and stop, and the bound, checked by adding the periods back up.

use std::time::Duration;

use super::*;
use crate::stats::Latency;

/// Makes snapshots the way the sampler does: 100 ms intervals, totals that grow by each one
/// (a stopped interval adds nothing, a paused one no time), zeroed by a reset.
#[derive(Default)]
struct Engine {
    seq: u64,
    at: Duration,
    total: Counts,
    total_elapsed: Duration,
}

const TICK: Duration = Duration::from_millis(100);

fn threads(n: usize) -> Settings {
    Settings {
        threads: n,
        ..Settings::default()
    }
}

impl Engine {
    fn snap(&mut self, s: Settings, ops: u64, lat_ns: u64, paused: bool, stop: bool) -> Snapshot {
        let mut latency = Latency::default();
        latency.record_n(lat_ns, ops);
        let interval = Counts {
            ops,
            bytes: ops * s.bs,
            read_ops: ops,
            read_bytes: ops * s.bs,
            ..Counts::default()
        };
        let elapsed = if stop { TICK * 30 } else { TICK };
        self.at += elapsed;
        let stopped = stop.then_some(TICK * 29);
        if !stop {
            self.total.add(&interval);
            if !paused {
                self.total_elapsed += elapsed;
            }
        }
        self.seq += 1;
        Snapshot {
            seq: self.seq,
            at: self.at,
            interval_elapsed: elapsed,
            settings: s,
            paused,
            stopped,
            interval,
            interval_latency: latency,
            interval_service_latency: None,
            total: self.total,
            total_elapsed: self.total_elapsed,
            total_latency: LatencySummary::default(),
            total_service_latency: LatencySummary::default(),
            total_left_out: LeftOut::default(),
            sides: Default::default(),
            threads: vec![],
            first_errors: vec![],
        }
    }

    fn run(&mut self, s: Settings, ops: u64, lat_ns: u64) -> Snapshot {
        self.snap(s, ops, lat_ns, false, false)
    }

    fn reset(&mut self) {
        self.total = Counts::default();
        self.total_elapsed = Duration::ZERO;
    }
}

/// The periods add up to the engine's totals: ops, bytes, measured time and latencies.
fn assert_adds_up(p: &Periods, e: &Engine) {
    let ops: u64 = p.list.iter().map(|p| p.counts.ops).sum();
    let bytes: u64 = p.list.iter().map(|p| p.counts.bytes).sum();
    let elapsed: f64 = p.list.iter().map(|p| p.elapsed_s).sum();
    let latencies: u64 = p.list.iter().map(|p| p.latency_ns.count).sum();
    assert_eq!(ops, e.total.ops);
    assert_eq!(bytes, e.total.bytes);
    assert_eq!(latencies, e.total.ops);
    assert!((elapsed - e.total_elapsed.as_secs_f64()).abs() < 1e-9);
    assert_eq!(p.latency_histogram.total(), e.total.ops);
}

#[test]
fn each_settings_change_begins_a_period_with_its_own_figures() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    let mut boundaries = vec![];
    for (n, ops, lat) in [(1, 100, 50_000), (2, 180, 60_000), (4, 300, 90_000)] {
        for _ in 0..10 {
            boundaries.push(t.push(&e.run(threads(n), ops, lat)));
        }
    }
    let p = t.report();
    assert_eq!(p.list.len(), 3);
    assert_eq!(boundaries[0], Boundary::Begins(Began::Start));
    assert_eq!(boundaries[10], Boundary::Begins(Began::Change));
    assert_eq!(boundaries[20], Boundary::Begins(Began::Change));
    assert_eq!(boundaries.iter().filter(|b| b.cuts()).count(), 3);
    for (i, (n, ops, lat)) in [(1, 100, 50_000), (2, 180, 60_000), (4, 300, 90_000)]
        .into_iter()
        .enumerate()
    {
        let q = &p.list[i];
        assert_eq!(q.settings, Some(threads(n)));
        assert_eq!(q.counts.ops, ops * 10);
        assert!((q.start_s - i as f64).abs() < 1e-9 && (q.end_s - (i + 1) as f64).abs() < 1e-9);
        assert!((q.iops - ops as f64 * 10.0).abs() < 1e-6, "{}", q.iops);
        assert_eq!((q.latency_ns.p50, q.latency_ns.p99), (lat, lat));
        assert_eq!(q.merged, 1);
    }
    assert_adds_up(&p, &e);
    assert_eq!(t.current_id(), 2);
    assert_eq!(t.index_of(1), Some(1));
}

#[test]
fn a_pause_ends_the_period_and_the_resume_begins_the_next() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    for _ in 0..5 {
        t.push(&e.run(threads(1), 10, 1000));
    }
    assert_eq!(
        t.push(&e.snap(threads(1), 0, 0, true, false)),
        Boundary::Pauses
    );
    for _ in 0..20 {
        assert_eq!(
            t.push(&e.snap(threads(1), 0, 0, true, false)),
            Boundary::Within
        );
    }
    // Settings moved while paused come with the resume.
    assert_eq!(
        t.push(&e.run(threads(2), 10, 1000)),
        Boundary::Begins(Began::Resume)
    );
    let p = t.report();
    assert_eq!(p.list.len(), 2);
    // The first period ends where it stopped running; paused time is in neither.
    assert!((p.list[0].end_s - 0.5).abs() < 1e-9);
    assert!((p.list[0].elapsed_s - 0.5).abs() < 1e-9);
    assert!((p.list[1].start_s - 2.6).abs() < 1e-9);
    assert!((p.list[0].iops - 100.0).abs() < 1e-6);
    assert_eq!(p.list[1].began, Began::Resume);
    assert_adds_up(&p, &e);
}

#[test]
fn a_resume_with_the_same_settings_is_still_a_new_period() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    t.push(&e.run(threads(1), 10, 1000));
    t.push(&e.snap(threads(1), 0, 0, true, false));
    t.push(&e.run(threads(1), 10, 1000));
    let p = t.report();
    assert_eq!(p.list.len(), 2);
    assert_eq!(p.list[0].settings, p.list[1].settings);
}

#[test]
fn a_reset_is_seen_in_the_totals_and_forgets_the_periods_before_it() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    for n in [1, 2] {
        for _ in 0..5 {
            t.push(&e.run(threads(n), 10, 1000));
        }
    }
    let before = t.current_id();
    e.reset();
    assert_eq!(
        t.push(&e.run(threads(2), 7, 1000)),
        Boundary::Begins(Began::Reset)
    );
    for _ in 0..4 {
        assert_eq!(t.push(&e.run(threads(2), 7, 1000)), Boundary::Within);
    }
    let p = t.report();
    assert_eq!(p.list.len(), 1);
    assert_eq!(p.list[0].began, Began::Reset);
    assert_eq!(p.reset_at_s, Some(1.0));
    assert_eq!(t.index_of(before), None);
    assert_eq!(t.index_of(t.current_id()), Some(0));
    assert_adds_up(&p, &e);
}

#[test]
fn a_reset_while_paused_waits_for_the_run_to_resume() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    t.push(&e.run(threads(1), 10, 1000));
    t.push(&e.snap(threads(1), 0, 0, true, false));
    e.reset();
    assert_eq!(
        t.push(&e.snap(threads(1), 0, 0, true, false)),
        Boundary::Within
    );
    assert_eq!(
        t.push(&e.run(threads(1), 10, 1000)),
        Boundary::Begins(Began::Reset)
    );
    assert_adds_up(&t.report(), &e);
}

#[test]
fn a_stop_stays_in_its_period_and_out_of_its_rates() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    for _ in 0..5 {
        t.push(&e.run(threads(1), 10, 1000));
    }
    assert_eq!(
        t.push(&e.snap(threads(1), 3, 3_000_000_000, false, true)),
        Boundary::Within
    );
    for _ in 0..5 {
        t.push(&e.run(threads(1), 10, 1000));
    }
    let p = t.report();
    assert_eq!(p.list.len(), 1);
    let q = &p.list[0];
    assert_eq!(q.left_out.stops, 1);
    assert_eq!(q.left_out.counts.ops, 3);
    assert!((q.elapsed_s - 1.0).abs() < 1e-9);
    assert!((q.end_s - 4.0).abs() < 1e-9);
    assert_eq!(q.latency_ns.max, 1000);
    assert_adds_up(&p, &e);
}

#[test]
fn thousands_of_changes_merge_the_oldest_and_still_add_up() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    // Alternating 1 and 2 threads, with a slow latency in the first ten periods only.
    let changes = 1000;
    let mut merged_by_hand = Latency::default();
    for k in 0..changes {
        let lat = if k < 10 { 5_000_000 } else { 1000 + k as u64 };
        let s = e.run(threads(1 + k % 2), 10, lat);
        if k < changes - MAX_PERIODS + 1 {
            merged_by_hand.add(&s.interval_latency);
        }
        t.push(&s);
    }
    let p = t.report();
    assert_eq!(p.list.len(), MAX_PERIODS);
    let oldest = &p.list[0];
    assert_eq!(oldest.merged, changes - MAX_PERIODS + 1);
    assert_eq!(p.merged_away(), changes - MAX_PERIODS);
    // Their settings differed: the merged row has none.
    assert_eq!(oldest.settings, None);
    assert!(
        p.list[1..]
            .iter()
            .all(|q| q.merged == 1 && q.settings.is_some())
    );
    // Percentiles from the merged histogram, as if merged at once (within the 1 % of the
    // compacted histograms), and the unmerged rows' exact.
    let (got, want) = (oldest.latency_ns, merged_by_hand.summary());
    assert_eq!(
        (got.count, got.min, got.max),
        (want.count, want.min, want.max)
    );
    for (g, w) in [
        (got.p50, want.p50),
        (got.p99, want.p99),
        (got.p999, want.p999),
    ] {
        assert!((g as f64 - w as f64).abs() <= w as f64 * 0.01, "{g} vs {w}");
    }
    assert_eq!(
        p.list[1].latency_ns.p50,
        1000 + (changes - MAX_PERIODS + 1) as u64
    );
    assert_eq!(oldest.began, Began::Start);
    assert!((oldest.start_s - 0.0).abs() < 1e-9);
    assert_eq!(p.list[1].start_s, oldest.end_s);
    assert_adds_up(&p, &e);
    // Ids of merged periods map to the merged row, the others to their own.
    assert_eq!(t.index_of(0), Some(0));
    assert_eq!(t.index_of(changes - MAX_PERIODS), Some(0));
    assert_eq!(t.index_of(changes - MAX_PERIODS + 1), Some(1));
    assert_eq!(t.index_of(changes - 1), Some(MAX_PERIODS - 1));
}

#[test]
fn merged_periods_of_one_setting_keep_it() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    for _ in 0..MAX_PERIODS + 5 {
        t.push(&e.run(threads(4), 10, 1000));
        t.push(&e.snap(threads(4), 0, 0, true, false));
    }
    let p = t.report();
    assert_eq!(p.list.len(), MAX_PERIODS);
    assert_eq!(p.list[0].settings, Some(threads(4)));
    assert_eq!(p.list[0].merged, 6);
    assert_adds_up(&p, &e);
}

#[test]
fn a_saved_period_reads_back() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    t.push(&e.run(threads(3), 10, 1000));
    let p = t.report();
    let text = serde_json::to_string(&p).unwrap();
    assert!(
        text.starts_with(r#"{"periods":[{"began":"start","settings":{"threads":3,"#),
        "{text}"
    );
    assert!(
        text.contains(r#""latency_log2_ns":[0,0,0,0,0,0,0,0,0,10]"#),
        "{text}"
    );
    let back: Periods = serde_json::from_str(&text).unwrap();
    assert_eq!(back, p);
}

/// Read-only periods keep no sides of their own; merged with mixed ones (past
/// `MAX_PERIODS`), each side still holds exactly its direction's ops.
#[test]
fn merged_rows_of_read_only_and_mixed_periods_keep_each_sides_count() {
    let (mut e, mut t) = (Engine::default(), PeriodTracker::default());
    for k in 0..MAX_PERIODS + 20 {
        let mut s = e.run(threads(1 + k % 2), 10, 1000);
        if k % 3 == 0 {
            // 6 reads of 1 µs and 4 writes of 9 µs.
            let (mut r, mut w) = (Latency::default(), Latency::default());
            r.record_n(1000, 6);
            w.record_n(9000, 4);
            s.interval.read_ops = 6;
            s.interval.write_ops = 4;
            s.interval_latency.reset();
            s.interval_latency.add(&r);
            s.interval_latency.add(&w);
            s.sides.interval_read = r;
            s.sides.interval_write = w;
        }
        t.push(&s);
    }
    let p = t.report();
    let first = &p.list[0];
    assert!(first.merged > 1, "{first:?}");
    let rw = first
        .sides
        .expect("a merged row of reads and writes has sides");
    assert_eq!(rw.read.latency_ns.count, first.counts.read_ops);
    assert_eq!(rw.write.latency_ns.count, first.counts.write_ops);
    assert_eq!(rw.write.latency_ns.min, 9000);
    for q in &p.list {
        if let Some(rw) = q.sides {
            assert_eq!(
                rw.read.latency_ns.count + rw.write.latency_ns.count,
                q.counts.ops
            );
        }
    }
}
