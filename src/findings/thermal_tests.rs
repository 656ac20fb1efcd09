use super::*;

/// One-second intervals of random reads: `(seconds, IOPS, °C)` runs, key 1.
fn run(runs: &[(usize, f64, Option<f64>)]) -> Vec<Interval> {
    let mut out = Vec::new();
    for &(secs, iops, temp_c) in runs {
        for _ in 0..secs {
            out.push(Interval {
                t_s: out.len() as f64 + 1.0,
                elapsed_s: 1.0,
                key: 1,
                ops: iops as u64,
                bytes: iops as u64 * 4096,
                temp_c,
                ..Interval::default()
            });
        }
    }
    out
}

fn heating() -> Vec<Interval> {
    run(&[
        (20, 10_000.0, Some(60.0)),
        (20, 10_000.0, Some(72.0)),
        (10, 6_200.0, Some(77.0)),
        (20, 6_200.0, Some(79.0)),
    ])
}

#[test]
fn a_fall_as_the_drive_reaches_its_warning_temperature_is_throttling() {
    let f = thermal_throttling(&heating(), Some(80.0), None);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, "thermal_throttling");
    assert_eq!(f[0].at_s, Some(40.0), "where the drive came within 5 °C");
    assert_eq!(
        f[0].text,
        "IOPS fell 38% as the drive reached 79 °C (warning 80 °C): thermal throttling"
    );
}

#[test]
fn no_sensor_or_no_warning_threshold_means_no_temperature_finding() {
    let mut blind = heating();
    for iv in &mut blind {
        iv.temp_c = None;
    }
    assert!(thermal_throttling(&blind, Some(80.0), None).is_empty());
    assert!(thermal_throttling(&heating(), None, None).is_empty());
    assert!(thermal_throttling(&heating(), Some(f64::NAN), None).is_empty());
}

#[test]
fn heat_without_a_fall_and_a_fall_without_heat_are_not_throttling() {
    let steady_hot = run(&[(30, 10_000.0, Some(60.0)), (30, 9_000.0, Some(79.0))]);
    assert!(
        thermal_throttling(&steady_hot, Some(80.0), None).is_empty(),
        "10% is not 25%"
    );
    let cool_cliff = run(&[(30, 10_000.0, Some(60.0)), (30, 3_000.0, Some(70.0))]);
    assert!(
        thermal_throttling(&cool_cliff, Some(80.0), None).is_empty(),
        "74.9 °C is not hot"
    );
    let brief = run(&[
        (30, 10_000.0, Some(60.0)),
        (5, 3_000.0, Some(79.0)),
        (30, 10_000.0, Some(60.0)),
    ]);
    assert!(
        thermal_throttling(&brief, Some(80.0), None).is_empty(),
        "5 s is not a span"
    );
}

#[test]
fn a_settings_change_into_a_hot_drive_is_not_throttling() {
    let mut series = run(&[(30, 10_000.0, Some(60.0))]);
    let mut next = run(&[(30, 3_000.0, Some(79.0))]);
    for iv in &mut next {
        iv.t_s += 30.0;
        iv.key = 2;
    }
    series.extend(next);
    assert!(thermal_throttling(&series, Some(80.0), None).is_empty());
}

#[test]
fn a_drive_that_throttles_in_bursts_is_one_finding() {
    let mut runs = vec![(30, 10_000.0, Some(60.0))];
    for _ in 0..6 {
        runs.push((4, 5_000.0, Some(78.0)));
        runs.push((2, 8_000.0, Some(73.0)));
    }
    let f = thermal_throttling(&run(&runs), Some(80.0), None);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].at_s, Some(30.0));
    assert!(
        f[0].text
            .starts_with("IOPS fell 50% as the drive reached 78 °C"),
        "{}",
        f[0].text
    );
}

#[test]
fn the_drives_own_counters_confirm_or_speak_alone() {
    let around = CountersAround {
        before: ThermalCounters {
            tmt1_transitions: 4,
            tmt1_time_s: 100,
            ..ThermalCounters::default()
        },
        after: ThermalCounters {
            tmt1_transitions: 7,
            tmt2_transitions: 1,
            tmt1_time_s: 135,
            tmt2_time_s: 6,
        },
    };
    let f = thermal_throttling(&heating(), Some(80.0), Some(around));
    assert_eq!(f.len(), 1);
    assert!(
        f[0].text.ends_with(
            "thermal throttling; the drive's own log agrees: it entered thermal management \
             3 times (TMT1, light) and once (TMT2, heavy), 41 s in all"
        ),
        "{}",
        f[0].text
    );
    let mut blind = heating();
    for iv in &mut blind {
        iv.temp_c = None;
    }
    let f = thermal_throttling(&blind, None, Some(around));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].at_s, None);
    assert!(
        f[0].text
            .starts_with("the drive's own log says it throttled during the run: ")
    );

    // Counters that did not move, or went back (a power cycle), add nothing.
    let still = CountersAround {
        before: around.after,
        after: around.after,
    };
    assert!(thermal_throttling(&blind, None, Some(still)).is_empty());
    let back = CountersAround {
        before: around.after,
        after: around.before,
    };
    assert!(thermal_throttling(&blind, None, Some(back)).is_empty());
    let f = thermal_throttling(&heating(), Some(80.0), Some(still));
    assert!(f[0].text.ends_with("thermal throttling"), "{}", f[0].text);
}

#[test]
fn write_work_is_judged_by_write_bandwidth() {
    let mut series = heating();
    for iv in &mut series {
        iv.write_pct = 100;
        iv.write_bytes = iv.bytes;
    }
    let f = thermal_throttling(&series, Some(80.0), None);
    assert!(
        f[0].text.starts_with("write bandwidth fell 38%"),
        "{}",
        f[0].text
    );
}
