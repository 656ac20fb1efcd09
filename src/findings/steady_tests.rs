use proptest::prelude::*;

use super::*;

/// One-second intervals at `iops` each (4 KiB I/Os), key 1, starting at `t0_s`.
fn run_at(t0_s: f64, key: u64, iops: &[f64]) -> Vec<Interval> {
    iops.iter()
        .enumerate()
        .map(|(i, &rate)| Interval {
            t_s: t0_s + i as f64 + 1.0,
            elapsed_s: 1.0,
            key,
            ops: rate.round() as u64,
            bytes: rate.round() as u64 * 4096,
            ..Interval::default()
        })
        .collect()
}

fn check(series: &[Interval]) -> SteadyCheck {
    SteadyCheck::over(series, SteadyParams::tui())
}

#[test]
fn a_flat_run_is_steady_from_its_first_round_once_five_rounds_are_in() {
    let series = run_at(0.0, 1, &[10_000.0; 12]);
    let live = check(&series[..9]);
    assert!(!live.reached(), "4 rounds and a half are not a window");
    assert_eq!(live.text(), "settling: 4 of 5 rounds, 0% per round");
    let c = check(&series[..10]);
    assert!(c.reached());
    assert_eq!(c.since_s(), Some(0.0));
    assert_eq!(c.window_span_s(), Some((0.0, 10.0)));
    assert_eq!(
        c.text(),
        "steady since 0:00 (5 × 2 s: range 0%, slope 0% of the mean)"
    );
    let s = c.state();
    assert_eq!(s.mean_iops, Some(10_000.0));
    assert_eq!(s.mean_bw_bytes_per_s, Some(10_000.0 * 4096.0));
    assert_eq!((s.excursion_pct, s.slope_pct), (Some(0.0), Some(0.0)));
    // Steady stays "since" its first window while it holds, as the window slides.
    assert_eq!(check(&series).since_s(), Some(0.0));
}

#[test]
fn a_slow_drift_inside_the_data_band_is_rejected_by_the_slope() {
    // +3.5% a round: five rounds span 14% of the mean (inside 20%), but the line's
    // excursion is 4 × 3.5% = 14% of the mean, over PTS's 10%.
    let iops: Vec<f64> = (0..20)
        .map(|i| 10_000.0 * (1.0 + 0.0175 * i as f64))
        .collect();
    let c = check(&run_at(0.0, 1, &iops));
    let w = c.window().unwrap();
    assert!(w.excursion_pct < 20.0, "{w:?}");
    assert!(w.slope_pct > 10.0, "{w:?}");
    assert!(!c.reached());
    assert_eq!(c.text(), "settling: +3% per round");
    let s = c.state();
    assert!(s.since_s.is_none() && s.mean_iops.is_none() && s.slope_pct.is_none());
}

#[test]
fn second_to_second_noise_of_20_percent_averages_out_within_rounds() {
    // +20%, −20% in turn: each 2-s round averages to the mean, so the run is steady.
    let iops: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 12_000.0 } else { 8_000.0 })
        .collect();
    assert!(check(&run_at(0.0, 1, &iops)).reached());
}

#[test]
fn round_to_round_noise_passes_inside_the_band_and_fails_outside() {
    let rounds = |spread: f64| -> Vec<f64> {
        // Rounds alternate mean ± spread/2 in a pattern with no trend: +, −, −, +, 0.
        [1.0, -1.0, -1.0, 1.0, 0.0]
            .iter()
            .flat_map(|s| [10_000.0 * (1.0 + s * spread / 2.0); 2])
            .collect()
    };
    let inside = check(&run_at(0.0, 1, &rounds(0.18)));
    assert!(inside.reached(), "{}", inside.text());
    assert!((inside.state().excursion_pct.unwrap() - 18.0).abs() < 0.01);
    let outside = check(&run_at(0.0, 1, &rounds(0.25)));
    assert!(!outside.reached());
    assert_eq!(
        outside.text(),
        "settling: range 25% of the mean (steady: ≤ 20%)"
    );
}

#[test]
fn a_settings_change_starts_the_check_over() {
    let mut series = run_at(0.0, 1, &[10_000.0; 12]);
    series.extend(run_at(12.0, 2, &[3_000.0; 10]));
    let mid = check(&series[..13]);
    assert!(
        !mid.reached(),
        "one second at the new settings is not steady"
    );
    assert_eq!(mid.text(), "settling: 0 of 5 rounds");
    let after = check(&series);
    assert!(after.reached());
    assert_eq!(
        after.since_s(),
        Some(12.0),
        "the window starts at the change"
    );
    assert_eq!(after.state().mean_iops, Some(3_000.0));
}

#[test]
fn a_drop_loses_steady_and_a_new_level_regains_it_later() {
    let mut iops = vec![10_000.0; 12];
    iops.extend([5_000.0; 12]);
    let series = run_at(0.0, 1, &iops);
    assert!(!check(&series[..14]).reached());
    let c = check(&series);
    assert!(c.reached());
    assert_eq!(c.since_s(), Some(12.0));
}

#[test]
fn time_running_backwards_restarts_and_bad_intervals_are_skipped() {
    let mut series = run_at(0.0, 1, &[10_000.0; 10]);
    let mut bad = series[3];
    bad.elapsed_s = 0.0;
    series.insert(4, bad);
    let mut nan = series[3];
    nan.t_s = f64::NAN;
    series.insert(5, nan);
    assert!(
        check(&series).reached(),
        "unusable intervals change nothing"
    );
    series.extend(run_at(0.0, 1, &[10_000.0; 3]));
    assert!(
        !check(&series).reached(),
        "a clock that went back is a new run"
    );
}

#[test]
fn rounds_end_at_the_nearest_interval_edge_on_jittery_samples() {
    for elapsed in [0.9998, 1.0003] {
        let series: Vec<Interval> = (1..=10)
            .map(|i| Interval {
                t_s: i as f64 * elapsed,
                elapsed_s: elapsed,
                key: 7,
                ops: 5_000,
                bytes: 5_000 * 4096,
                ..Interval::default()
            })
            .collect();
        let c = check(&series);
        assert!(c.reached(), "{elapsed}: ten samples are five 2-s rounds");
        let (from, to) = c.window_span_s().unwrap();
        assert!((to - from - 10.0 * elapsed).abs() < 1e-9);
        // The rate is over the real elapsed time, not the nominal second.
        assert!((c.state().mean_iops.unwrap() - 5_000.0 / elapsed).abs() < 1e-6);
    }
}

#[test]
fn sequential_work_is_judged_and_named_by_bandwidth() {
    let mut series = run_at(0.0, 1, &[1_000.0; 10]);
    for iv in &mut series {
        iv.sequential = true;
    }
    let state = check(&series).state();
    assert_eq!(state.metric, SteadyMetric::Bandwidth);
    let json = serde_json::to_string(&state).unwrap();
    assert!(json.contains(r#""metric":"bandwidth""#), "{json}");
}

#[test]
fn no_io_is_never_steady() {
    let c = check(&run_at(0.0, 1, &[0.0; 12]));
    assert!(!c.reached());
    assert_eq!(c.text(), "settling: no I/O completed");
}

#[test]
fn the_json_has_null_members_until_reached() {
    let json = serde_json::to_value(check(&run_at(0.0, 1, &[9.0; 3])).state()).unwrap();
    for key in ["since_s", "mean_iops", "excursion_pct", "slope_pct"] {
        assert!(json[key].is_null(), "{key}: {json}");
    }
    assert_eq!(json["reached"], false);
    assert_eq!(json["round_s"], 2.0);
    assert_eq!(json["rounds"], 5);
    let json = serde_json::to_value(check(&run_at(0.0, 1, &[9.0; 10])).state()).unwrap();
    assert_eq!(json["since_s"], 0.0);
    assert_eq!(json["mean_iops"], 9.0);
}

#[test]
fn until_steady_ends_when_steady_or_at_max_and_says_why() {
    let steady = check(&run_at(0.0, 1, &[100.0; 10]));
    assert_eq!(until_steady(&steady, 10.0, 60.0), UntilSteady::Steady);
    let iops: Vec<f64> = (0..60).map(|i| 100.0 + 10.0 * i as f64).collect();
    let drifting = check(&run_at(0.0, 1, &iops));
    assert_eq!(until_steady(&drifting, 30.0, 60.0), UntilSteady::Running);
    assert_eq!(
        until_steady(&drifting, 60.0, 60.0),
        UntilSteady::NeverSettled
    );
    let text = drifting.never_settled_text(60.0);
    assert!(
        text.starts_with("never settled in 60 s (last 5 × 2 s: range "),
        "{text}"
    );
    assert!(text.ends_with("steady: ≤ 20% and ≤ 10%)"), "{text}");
    let young = check(&run_at(0.0, 1, &[100.0; 4]));
    assert_eq!(
        young.never_settled_text(4.0),
        "never settled in 4 s (only 2 of 5 rounds of 2 s at the last settings)"
    );
}

#[test]
fn a_bad_round_length_falls_back_instead_of_dividing_by_it() {
    for bad in [0.0, -2.0, f64::NAN, f64::INFINITY] {
        assert_eq!(SteadyParams::with_round(bad).round_s, 5.0);
    }
}

/// The check written the slow way from the definition: split into settings, cut rounds, and
/// judge every full window; the run is steady since the first window of the last unbroken
/// stretch of passing windows that reaches the end.
fn reference(series: &[Interval], p: SteadyParams) -> (bool, Option<f64>) {
    let usable: Vec<&Interval> = series.iter().filter(|iv| iv.usable()).collect();
    let mut seg_start = 0;
    for i in 1..usable.len() {
        if usable[i].key != usable[i - 1].key || usable[i].t_s < usable[i - 1].t_s {
            seg_start = i;
        }
    }
    let mut rounds: Vec<(f64, f64, u64)> = Vec::new(); // (start, elapsed, ops)
    let mut cur: Option<(f64, f64, u64)> = None;
    for iv in &usable[seg_start.min(usable.len())..] {
        let c = cur.get_or_insert((iv.start_s(), 0.0, 0));
        c.1 += iv.elapsed_s;
        c.2 += iv.ops;
        if c.1 >= p.round_s - 0.5 * iv.elapsed_s {
            rounds.push(*c);
            cur = None;
        }
    }
    let passes = |w: &[(f64, f64, u64)]| {
        let v: Vec<f64> = w.iter().map(|r| r.2 as f64 / r.1).collect();
        pts_figures(&v).is_some_and(|(mean, exc, slope)| {
            exc / mean * 100.0 <= p.max_excursion_pct
                && (slope * (v.len() - 1) as f64).abs() / mean * 100.0 <= p.max_slope_pct
        })
    };
    let mut since = None;
    for end in p.rounds..=rounds.len() {
        let w = &rounds[end - p.rounds..end];
        if !passes(w) {
            since = None;
        } else if since.is_none() {
            since = Some(w[0].0);
        }
    }
    (since.is_some(), since)
}

proptest! {
    /// Live, fed one interval at a time, the check agrees with the slow definition, whatever
    /// the levels, noise, sample jitter and settings changes.
    #[test]
    fn live_agrees_with_the_definition(
        steps in prop::collection::vec((1u64..4, 500.0f64..2_000.0, 0.0f64..0.3, 4usize..30), 1..6),
        jitter in 0.0f64..0.01,
    ) {
        let mut series = Vec::new();
        let mut t = 0.0;
        for (k, (key, level, noise, len)) in steps.into_iter().enumerate() {
            for i in 0..len {
                let elapsed = 1.0 + if i % 2 == 0 { jitter } else { -jitter };
                t += elapsed;
                let wobble = ((i * 7 + k * 3) % 5) as f64 / 4.0 - 0.5;
                series.push(Interval {
                    t_s: t,
                    elapsed_s: elapsed,
                    key,
                    ops: (level * (1.0 + noise * wobble) * elapsed) as u64,
                    ..Interval::default()
                });
            }
        }
        let p = SteadyParams::tui();
        let mut live = SteadyCheck::new(p);
        for (i, iv) in series.iter().enumerate() {
            live.push(iv);
            let (reached, since) = reference(&series[..=i], p);
            prop_assert_eq!(live.reached(), reached);
            prop_assert_eq!(live.since_s(), since);
        }
    }
}
