use proptest::prelude::*;

use super::*;

/// A drop as the reference finds it: (at_s, before, rates while low, end).
type RefDrop = (f64, f64, Vec<(f64, f64)>, SlowdownEnd);

/// One-second intervals of random reads: `(seconds, IOPS)` runs in turn, key 1.
fn reads(runs: &[(usize, f64)]) -> Vec<Interval> {
    let mut out = Vec::new();
    for &(secs, iops) in runs {
        for _ in 0..secs {
            out.push(Interval {
                t_s: out.len() as f64 + 1.0,
                elapsed_s: 1.0,
                key: 1,
                ops: iops as u64,
                bytes: iops as u64 * 4096,
                ..Interval::default()
            });
        }
    }
    out
}

/// One-second intervals of sequential writes: `(seconds, bytes/s)` runs, written counted.
fn writes(runs: &[(usize, f64)], write_pct: u8) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::new();
    let mut written = 0u64;
    for &(secs, bw) in runs {
        for _ in 0..secs {
            let write_bytes = (bw * f64::from(write_pct) / 100.0) as u64;
            written += write_bytes;
            out.push(Interval {
                t_s: out.len() as f64 + 1.0,
                elapsed_s: 1.0,
                key: 1,
                ops: bw as u64 >> 20,
                bytes: bw as u64,
                write_bytes,
                written_bytes: written,
                write_pct,
                sequential: true,
                ..Interval::default()
            });
        }
    }
    out
}

fn found(series: &[Interval]) -> Vec<Finding> {
    slowdowns(series, SlowdownParams::default())
}

#[test]
fn a_cliff_is_found_where_it_began_once_the_low_median_has_held_ten_seconds() {
    let series = reads(&[(30, 10_000.0), (30, 5_900.0)]);
    let mut live = SlowdownDetector::new(SlowdownParams::default());
    // The 10-s median first falls below at 0:36 (six low seconds of ten); it must stay
    // below through 0:46 to count.
    for iv in &series[..45] {
        live.push(iv);
    }
    assert!(live.findings().is_empty(), "below for 9 s is not yet 10 s");
    live.push(&series[45]);
    assert_eq!(
        live.findings().len(),
        1,
        "found as the low median completes 10 s"
    );
    let f = found(&series);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, "slowdown");
    assert_eq!(f[0].at_s, Some(30.0));
    assert_eq!(f[0].written_bytes, None, "reads write nothing");
    assert_eq!(
        f[0].text,
        "IOPS fell 41% at 0:30 (10.0k IOPS → 5900 IOPS) and has stayed there"
    );
}

#[test]
fn drops_that_are_small_short_or_noise_are_not_slowdowns() {
    assert!(
        found(&reads(&[(30, 10_000.0), (30, 6_500.0)])).is_empty(),
        "to 65%"
    );
    assert!(
        found(&reads(&[(30, 10_000.0), (6, 1_000.0), (30, 10_000.0)])).is_empty(),
        "6 s"
    );
    // ±20% from second to second, in a pattern, for a minute.
    let noisy: Vec<(usize, f64)> = (0..60)
        .map(|i| {
            (
                1,
                10_000.0 * (1.0 + 0.2 * (((i * 7) % 5) as f64 / 2.0 - 1.0)),
            )
        })
        .collect();
    assert!(found(&reads(&noisy)).is_empty());
    // One stalled second in every ten is a pause, not a slowdown: the median ignores it.
    let stalls: Vec<(usize, f64)> = (0..60)
        .map(|i| (1, if i % 10 == 9 { 0.0 } else { 8e3 }))
        .collect();
    assert!(found(&reads(&stalls)).is_empty());
}

#[test]
fn a_cliff_that_recovers_says_until_when_and_reports_the_recovery() {
    let f = found(&reads(&[(30, 10_000.0), (20, 4_000.0), (30, 9_800.0)]));
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(
        f[0].text,
        "IOPS fell 60% at 0:30 (10.0k IOPS → 4000 IOPS) until 0:50"
    );
    assert_eq!((f[1].kind.as_str(), f[1].at_s), ("recovered", Some(50.0)));
    assert_eq!(f[1].text, "IOPS recovered at 0:50");
}

#[test]
fn a_settings_change_is_never_a_slowdown_and_ends_an_open_one() {
    let mut series = reads(&[(30, 10_000.0)]);
    let mut slower = reads(&[(30, 3_000.0)]);
    for iv in &mut slower {
        iv.t_s += 30.0;
        iv.key = 2;
    }
    series.extend(slower.iter().copied());
    assert!(
        found(&series).is_empty(),
        "a new key compares only with itself"
    );

    let mut series = reads(&[(30, 10_000.0), (30, 3_000.0)]);
    let mut next = reads(&[(30, 3_000.0)]);
    for iv in &mut next {
        iv.t_s += 60.0;
        iv.key = 2;
    }
    series.extend(next);
    let f = found(&series);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].text
            .ends_with("and stayed there until the settings changed at 1:00"),
        "{}",
        f[0].text
    );
}

#[test]
fn a_write_cliff_names_the_cache_and_the_bytes_written() {
    let series = writes(&[(20, 2.1e9), (40, 480e6)], 100);
    let f = found(&series);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, "write_cache_cliff");
    assert_eq!(f[0].at_s, Some(20.0));
    assert_eq!(f[0].written_bytes, Some(42_000_000_000));
    assert_eq!(
        f[0].text,
        "write bandwidth fell from 2.10 GB/s to 480 MB/s after 39.1 GiB written and has stayed \
         there: the drive's fast write cache filled; 480 MB/s is its sustained write speed"
    );
}

#[test]
fn a_hot_drive_or_mixed_reads_keep_the_cache_out_of_it() {
    let mut series = writes(&[(20, 2.1e9), (40, 480e6)], 100);
    for (i, iv) in series.iter_mut().enumerate() {
        iv.temp_c = Some(if i < 20 { 60.0 } else { 78.0 });
    }
    let hot = SlowdownParams {
        temp_warn_c: Some(80.0),
        ..SlowdownParams::default()
    };
    let f = slowdowns(&series, hot);
    assert_eq!(f[0].kind, "slowdown");
    assert!(
        f[0].text
            .contains("(at that moment: 78 °C (warning 80 °C))"),
        "{}",
        f[0].text
    );
    assert!(
        f[0].text
            .ends_with("heat may be the cause rather than a full write cache")
    );
    // Without the warning threshold the same temperature is only reported.
    let f = found(&series);
    assert_eq!(f[0].kind, "write_cache_cliff");
    assert!(
        f[0].text.contains("(at that moment: 78 °C)"),
        "{}",
        f[0].text
    );

    let mixed = found(&writes(&[(20, 2.1e9), (40, 480e6)], 30));
    assert_eq!(mixed[0].kind, "slowdown");
    assert!(
        mixed[0]
            .text
            .starts_with("write bandwidth fell from 630 MB/s to 144 MB/s")
    );
    assert!(
        mixed[0]
            .text
            .ends_with("a filled fast write cache is one cause that looks like this")
    );
}

#[test]
fn the_kernels_queue_and_util_are_given_before_and_after() {
    let mut series = reads(&[(30, 10_000.0), (30, 5_000.0)]);
    for (i, iv) in series.iter_mut().enumerate() {
        iv.kernel_queue = Some(if i < 30 { 31.9 } else { 12.0 });
        iv.util_pct = Some(if i < 30 { 100.0 } else { 45.0 });
    }
    let f = found(&series);
    assert!(
        f[0].text
            .ends_with("(at that moment: kernel queue 31.9 → 12.0, util 100% → 45%)"),
        "{}",
        f[0].text
    );
}

#[test]
fn jittery_samples_and_unusable_intervals_change_nothing() {
    let mut series = reads(&[(30, 10_000.0), (30, 5_000.0)]);
    let mut t = 0.0;
    for (i, iv) in series.iter_mut().enumerate() {
        let elapsed = if i % 2 == 0 { 1.004 } else { 0.996 };
        t += elapsed;
        iv.t_s = t;
        iv.elapsed_s = elapsed;
        iv.ops = (iv.ops as f64 * elapsed) as u64;
    }
    let mut broken = series.clone();
    let mut zero = series[35];
    zero.elapsed_s = 0.0;
    broken.insert(35, zero);
    let mut nan = series[36];
    nan.t_s = f64::NAN;
    broken.insert(36, nan);
    let (a, b) = (found(&series), found(&broken));
    assert_eq!(a, b);
    assert_eq!(a.len(), 1);
    assert!((a[0].at_s.unwrap() - 30.0).abs() < 1e-9);
}

#[test]
fn an_early_dip_before_the_cliff_does_not_move_its_onset() {
    let f = found(&reads(&[
        (24, 10_000.0),
        (1, 2_000.0),
        (5, 10_000.0),
        (30, 4_000.0),
    ]));
    assert_eq!(f[0].at_s, Some(30.0));
}

/// The detector written the slow way: whole history, every window recomputed, the best
/// earlier median searched afresh. Returns (at_s, before, after, end) per drop.
fn reference(series: &[Interval], p: SlowdownParams) -> Vec<(f64, f64, f64, SlowdownEnd)> {
    let usable: Vec<&Interval> = series.iter().filter(|iv| iv.usable()).collect();
    let mut segments: Vec<Vec<&Interval>> = Vec::new();
    for (i, iv) in usable.iter().enumerate() {
        if i == 0 || iv.key != usable[i - 1].key || iv.t_s < usable[i - 1].t_s {
            segments.push(Vec::new());
        }
        segments.last_mut().unwrap().push(iv);
    }
    let mut out: Vec<RefDrop> = Vec::new();
    for (s, seg) in segments.iter().enumerate() {
        let metric = Metric::for_drops(seg[0]);
        let pts: Vec<Point> = seg.iter().map(|iv| Point::of(iv, metric)).collect();
        let key_start = pts[0].start_s;
        let mut medians: Vec<Option<(usize, f64)>> = Vec::new();
        // (onset_s, end of the first window past the line) while crossing, not yet held.
        let (mut low, mut crossing) = (false, None::<(f64, f64)>);
        for i in 0..pts.len() {
            let win = window_start(&pts, i, p.window_s, key_start);
            medians.push(win.map(|f| (f, window_median(&pts, f, i))));
            if low {
                out.last_mut()
                    .unwrap()
                    .2
                    .push((pts[i].start_s, pts[i].rate));
            }
            let Some((first, m)) = medians[i] else {
                continue;
            };
            let best = (0..i)
                .filter_map(|j| medians[j].map(|(_, mj)| (pts[j].end_s, mj)))
                .filter(|(end, _)| *end <= pts[first].start_s + 1e-9)
                .map(|(_, mj)| mj)
                .fold(None, |b: Option<f64>, mj| Some(b.map_or(mj, |b| b.max(mj))));
            let Some(best) = best else { continue };
            let thr = p.fraction * if low { out.last().unwrap().1 } else { best };
            let past = if low { m >= thr } else { m < thr };
            if !past {
                crossing = None;
                continue;
            }
            let (o, since) = *crossing.get_or_insert_with(|| {
                let j = if low {
                    onset(&pts, first, i, |r| r >= thr)
                } else {
                    onset(&pts, first, i, |r| r < thr)
                };
                (pts[j].start_s, pts[i].end_s)
            });
            if pts[i].end_s - since < p.hold_s - 0.5 * (pts[i].end_s - pts[i].start_s) {
                continue;
            }
            crossing = None;
            if low {
                let d = out.last_mut().unwrap();
                d.2.retain(|(start, _)| *start < o - 1e-9);
                d.3 = SlowdownEnd::Recovered { at_s: o };
            } else {
                let rates = (0..=i).filter(|&j| pts[j].start_s >= o - 1e-9);
                let rates = rates.map(|j| (pts[j].start_s, pts[j].rate)).collect();
                out.push((o, best, rates, SlowdownEnd::Open));
            }
            low = !low;
        }
        if low && let Some(next) = segments.get(s + 1) {
            out.last_mut().unwrap().3 = SlowdownEnd::SettingsChanged {
                at_s: next[0].start_s(),
            };
        }
    }
    out.into_iter()
        .map(|(at, before, rates, end)| {
            (
                at,
                before,
                median(&rates.iter().map(|r| r.1).collect::<Vec<_>>()),
                end,
            )
        })
        .collect()
}

proptest! {
    /// Fed live, the detector finds exactly what the slow definition finds over the whole
    /// history, and never takes back a drop it has reported.
    #[test]
    fn live_agrees_with_the_definition_and_never_retracts(
        steps in prop::collection::vec(
            (1u64..3, 1_000.0f64..50_000.0, 0.0f64..0.5, 0.1f64..1.2, 10usize..90, 0.0f64..0.25),
            1..5),
        jitter in 0.0f64..0.01,
    ) {
        let mut series = Vec::new();
        let mut t = 0.0;
        for (k, (key, level, noise, cliff, len, wobble_share)) in steps.into_iter().enumerate() {
            for i in 0..len {
                let elapsed = 1.0 + if i % 3 == 0 { jitter } else { -jitter / 2.0 };
                t += elapsed;
                let in_cliff = i >= len / 3 && i < len * 2 / 3 + (k % 2) * len / 3;
                let wobble = ((i * 7 + k) % 5) as f64 / 4.0 - 0.5;
                let stall = ((i * 13 + k) % 17) as f64 / 17.0 < wobble_share;
                let rate = if stall { 0.0 } else { level * if in_cliff { cliff } else { 1.0 } * (1.0 + noise * wobble) };
                series.push(Interval { t_s: t, elapsed_s: elapsed, key, ops: (rate * elapsed) as u64, ..Interval::default() });
            }
        }
        let p = SlowdownParams::default();
        let mut live = SlowdownDetector::new(p);
        let mut seen: Vec<f64> = Vec::new();
        for iv in &series {
            live.push(iv);
            let now: Vec<f64> = live.drops().iter().map(|d| d.at_s).collect();
            prop_assert!(now.starts_with(&seen), "retracted: {:?} then {:?}", seen, now);
            seen = now;
        }
        let got: Vec<(f64, f64, f64, SlowdownEnd)> =
            live.drops().iter().map(|d| (d.at_s, d.before, d.after(), d.end)).collect();
        prop_assert_eq!(got, reference(&series, p));
    }
}

#[test]
fn nonsense_parameters_never_panic() {
    let series = reads(&[(30, 10_000.0), (30, 1_000.0)]);
    for bad in [0.0, -10.0, f64::NAN, f64::INFINITY] {
        let params = [
            SlowdownParams {
                window_s: bad,
                ..SlowdownParams::default()
            },
            SlowdownParams {
                hold_s: bad,
                ..SlowdownParams::default()
            },
            SlowdownParams {
                fraction: bad,
                ..SlowdownParams::default()
            },
            SlowdownParams {
                temp_warn_c: Some(bad),
                ..SlowdownParams::default()
            },
        ];
        for p in params {
            let _ = slowdowns(&series, p);
        }
    }
}
