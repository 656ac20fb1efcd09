use super::*;
use crate::disks::testing::snap;

#[test]
fn snapshots_fall_in_the_second_they_end_in_with_half_a_tick_of_slack() {
    let ms = Duration::from_millis;
    assert_eq!(second_of(ms(0)), 1);
    assert_eq!(second_of(ms(1000)), 1);
    assert_eq!(second_of(ms(1049)), 1);
    assert_eq!(second_of(ms(1051)), 2);
    assert_eq!(second_of(ms(2050)), 2);
    assert_eq!(second_of(ms(2051)), 3);
}

#[test]
fn each_engine_is_put_on_the_group_clock_by_its_earliest_hand_over() {
    let origin = Instant::now();
    let mut c = Clock::new(origin, 2);
    // Engine 1 started 300 ms after the origin; its first snapshot was handed over 5 ms late,
    // its second on time: the start is taken from the second.
    let ms = Duration::from_millis;
    assert_eq!(c.end_of(1, &snap(100, 1), origin + ms(405)), ms(405));
    assert_eq!(c.end_of(1, &snap(200, 1), origin + ms(500)), ms(500));
    assert_eq!(c.end_of(1, &snap(300, 1), origin + ms(620)), ms(600));
    assert_eq!(c.end_of(0, &snap(100, 1), origin + ms(100)), ms(100));
}

/// Two engines, the second started 430 ms after the first, each handing over a snapshot of
/// `ops(i, n)` ops every 100 ms for `secs` seconds; returns the seconds handed out.
fn two_engines(secs: u64, ops: impl Fn(usize, u64) -> u64) -> (Vec<Second>, [u64; 2]) {
    let origin = Instant::now();
    let mut s = SharedSeconds::new(Clock::new(origin, 2), 2);
    let starts = [0u64, 430];
    let mut out = Vec::new();
    let mut totals = [0u64; 2];
    // Interleave the engines as they would arrive, by group time.
    let mut events: Vec<(u64, usize, u64)> = (0..2)
        .flat_map(|i| (1..=secs * 10).map(move |n| (starts[i] + n * 100, i, n)))
        .collect();
    events.sort();
    for (t, i, n) in events {
        let o = ops(i, n);
        totals[i] += o;
        let received = origin + Duration::from_millis(t);
        out.extend(s.push(i, &snap(n * 100, o), received).1);
    }
    out.extend(s.done(0));
    out.extend(s.done(1));
    (out, totals)
}

#[test]
fn the_seconds_of_every_target_add_up_to_its_totals_and_line_up_on_one_clock() {
    let (seconds, totals) = two_engines(5, |i, n| 10 * (i as u64 + 1) + n % 3);
    let indexes: Vec<u64> = seconds.iter().map(|s| s.index).collect();
    assert_eq!(indexes, [1, 2, 3, 4, 5, 6]);
    for (i, total) in totals.iter().enumerate() {
        let sum: u64 = seconds.iter().map(|s| s.windows[i].counts.ops).sum();
        assert_eq!(sum, *total, "target {i}");
        let lat: u64 = seconds.iter().map(|s| s.windows[i].latency.count()).sum();
        assert_eq!(lat, *total, "target {i}: a latency per op");
    }
    // Second 2 of the late engine holds its snapshots ending at 1.1 … 2.0 s of the group's
    // clock (its own 0.67 … 1.57 s), ten of them: the same second as the first engine's.
    let s2 = &seconds[1];
    assert_eq!(s2.windows[0].snapshots, 10);
    assert_eq!(s2.windows[1].snapshots, 10);
    assert_eq!(s2.ends[1], Some(Duration::from_millis(2030)));
    // Its first second started with it: 6 snapshots (0.53 … 1.03 s), 0.6 s of running time.
    assert_eq!(seconds[0].windows[1].snapshots, 6);
    assert_eq!(seconds[0].windows[1].elapsed, Duration::from_millis(600));
    // The first engine ended in second 5; the late one's last snapshots make second 6.
    assert_eq!(seconds[5].windows[0].snapshots, 0);
    assert_eq!(seconds[5].windows[1].snapshots, 4);
}

#[test]
fn a_second_is_handed_out_only_when_every_target_is_past_it() {
    let origin = Instant::now();
    let ms = Duration::from_millis;
    let mut s = SharedSeconds::new(Clock::new(origin, 2), 2);
    for n in 1..=12 {
        let (_, done) = s.push(0, &snap(n * 100, 1), origin + ms(n * 100));
        assert!(done.is_empty(), "target 1 has said nothing yet");
    }
    let (_, done) = s.push(1, &snap(1200, 1), origin + ms(1200));
    assert_eq!(done.len(), 1);
    // Target 1's only snapshot so far ended in second 2: its first second is empty.
    assert_eq!(done[0].windows[1].snapshots, 0);
    assert_eq!(done[0].windows[0].counts.ops, 10);
}

#[test]
fn once_closing_the_last_snapshots_join_the_current_second_and_paused_time_is_not_run_time() {
    let origin = Instant::now();
    let ms = Duration::from_millis;
    let mut s = SharedSeconds::new(Clock::new(origin, 1), 1);
    let mut out = Vec::new();
    for n in 1..=10 {
        out.extend(s.push(0, &snap(n * 100, 5), origin + ms(n * 100)).1);
    }
    s.close();
    // The final snapshot, 80 ms later, would open second 2.
    out.extend(s.push(0, &snap(1080, 2), origin + ms(1080)).1);
    out.extend(s.done(0));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].windows[0].counts.ops, 52);
    assert_eq!(out[0].windows[0].snapshots, 11);

    let mut s = SharedSeconds::new(Clock::new(origin, 1), 1);
    let mut paused = snap(200, 0);
    paused.paused = true;
    s.push(0, &snap(100, 5), origin + ms(100));
    s.push(0, &paused, origin + ms(200));
    let second = s.done(0);
    assert_eq!(second[0].windows[0].elapsed, ms(100));
    assert_eq!(second[0].windows[0].snapshots, 2);
}

#[test]
fn a_reset_forgets_what_was_not_handed_out_and_numbering_goes_on() {
    let origin = Instant::now();
    let ms = Duration::from_millis;
    let mut s = SharedSeconds::new(Clock::new(origin, 1), 1);
    for n in 1..=15 {
        s.push(0, &snap(n * 100, 1), origin + ms(n * 100));
    }
    s.reset();
    let mut out = Vec::new();
    for n in 16..=31 {
        out.extend(s.push(0, &snap(n * 100, 1), origin + ms(n * 100)).1);
    }
    let indexes: Vec<u64> = out.iter().map(|s| s.index).collect();
    assert_eq!(indexes, [2, 3]);
    // Second 2 after the reset: only what came after it (1.6 … 2.0 s).
    assert_eq!(out[0].windows[0].counts.ops, 5);
}

#[test]
fn a_settings_change_cuts_the_row_so_no_row_mixes_two_settings() {
    // A slider moved at 1.45 s: the old setting's 0.45 s make a row of their own, and the
    // new setting's seconds count from the change, each row naming its period.
    let origin = Instant::now();
    let ms = Duration::from_millis;
    let mut s = SharedSeconds::new(Clock::new(origin, 1), 1);
    let mut out = Vec::new();
    for n in 1..=35u64 {
        let mut sn = snap(n * 100, 1);
        if n > 14 {
            sn.settings.threads = 2;
        }
        out.extend(s.push(0, &sn, origin + ms(n * 100)).1);
    }
    out.extend(s.done(0));
    for second in &out {
        assert!(!second.windows[0].mixed_settings, "second {}", second.index);
    }
    let rows: Vec<(u64, Option<usize>)> = out
        .iter()
        .map(|s| (s.windows[0].counts.ops, s.periods[0]))
        .collect();
    // 1.0 s, 0.4 s under T1; then 1.45 … 2.45 s, 2.45 … 3.45 s and the last 0.05 s
    // (after the slack) under T2.
    assert_eq!(
        rows,
        [
            (10, Some(0)),
            (4, Some(0)),
            (10, Some(1)),
            (10, Some(1)),
            (1, Some(1))
        ]
    );
    assert_eq!(s.periods(0).report().list.len(), 2);
}
