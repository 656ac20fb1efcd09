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
    let s = saturation(Dimension::Threads, &steps, &Conditions::default()).unwrap();
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
    assert!(saturation(Dimension::Threads, &[], &Conditions::default()).is_none());
    assert!(
        saturation(
            Dimension::Threads,
            &curve(&[(1, 0.0), (2, 0.0)]),
            &Conditions::default()
        )
        .is_none()
    );
}

#[test]
fn two_steps_still_rising_are_not_a_saturation() {
    // The case from the issue: 1 → 2 threads gained 44%, which said "saturates at 2".
    let s = saturation(
        Dimension::Threads,
        &curve(&[(1, 10_000.0), (2, 14_400.0)]),
        &Conditions::default(),
    )
    .unwrap();
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
    let points: Vec<(usize, f64)> = (0..7).map(|i| (1 << i, 1000.0 * 1.31f64.powi(i))).collect();
    let s = saturation(Dimension::Threads, &curve(&points), &Conditions::default()).unwrap();
    assert_eq!(s.step, 6);
    assert!(
        s.summary.ends_with(
            "still rising at 64 threads (+31% IOPS over 32 threads); try --sweep threads=64..1024"
        ),
        "{}",
        s.summary
    );
    // At the limit there is no next range to suggest.
    let top = saturation(
        Dimension::Threads,
        &curve(&[(512, 1000.0), (1024, 2000.0)]),
        &Conditions::default(),
    )
    .unwrap();
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
    let s = saturation(Dimension::Threads, &wobble, &Conditions::default()).unwrap();
    assert!(s.saturated(), "{}", s.summary);
    assert_eq!(s.value, 4);
    // A dip at the end after a rise: the peak before it is the saturation.
    let dip = saturation(
        Dimension::Threads,
        &curve(&[(1, 100.0), (2, 150.0), (4, 200.0), (8, 190.0)]),
        &Conditions::default(),
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
        &Conditions::default(),
    )
    .unwrap();
    assert!(flat.saturated() && flat.step == 0, "{}", flat.summary);
    // A plateau, then a jump well beyond the noise at the last step: still rising, measured
    // against the best earlier step (not the dip just before).
    let jump = saturation(
        Dimension::Threads,
        &curve(&[(1, 100.0), (2, 200.0), (4, 210.0), (8, 190.0), (16, 260.0)]),
        &Conditions::default(),
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
        sides: None,
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
    let s = saturation(Dimension::Bs, &rising, &Conditions::default()).unwrap();
    assert!(!s.saturated());
    assert!(
        s.summary
            .ends_with("(+133% bandwidth over 16k); try --sweep bs=64k..1M"),
        "{}",
        s.summary
    );
    let flat = [mk(4096, 100.0), mk(16384, 480.0), mk(65536, 500.0)];
    let s = saturation(Dimension::Bs, &flat, &Conditions::default()).unwrap();
    assert!(s.saturated() && s.value == 16384, "{}", s.summary);
}

#[test]
fn one_step_is_not_a_curve() {
    let s = saturation(
        Dimension::Threads,
        &curve(&[(1, 5000.0)]),
        &Conditions::default(),
    )
    .unwrap();
    assert_eq!(s.verdict, Verdict::OneStep);
    assert!(
        s.summary
            .starts_with("only one step measured (1 thread: 5000 IOPS)"),
        "{}",
        s.summary
    );
}

#[test]
fn a_sweep_that_kept_its_rate_cap_names_the_cap_never_a_saturation() {
    // --rate 500: every step did its 500 IOPS, every due slot started on time.
    let capped: Vec<IntervalFigures> = [1, 2, 4, 8]
        .into_iter()
        .map(|t| {
            let mut s = step(t, 500.0, 100_000);
            s.settings.rate_iops = 500;
            s.counts.due = 1500;
            s.counts.issued = 1500;
            s
        })
        .collect();
    let s = saturation(Dimension::Threads, &capped, &Conditions::default()).unwrap();
    assert_eq!(s.verdict, Verdict::AtRateCap { rate_iops: 500 });
    assert!(!s.summary.contains("saturates at"), "{}", s.summary);
    assert!(
        s.summary.starts_with(
            "no saturation point: from 1 thread on the steps kept the --rate cap of 500 IOPS"
        ),
        "{}",
        s.summary
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["saturated"], false);
    assert_eq!(json["at_rate_cap"]["threads"], 1);
    assert_eq!(json["rate_iops"], 500);
    // Behind the cap from the first step (the disk could not do 500): the disk's curve.
    let behind: Vec<IntervalFigures> = capped
        .iter()
        .zip([100.0, 190.0, 200.0, 205.0])
        .map(|(s, iops)| {
            let mut s = s.clone();
            s.iops = iops;
            s.counts.issued = (iops * 3.0) as u64;
            s
        })
        .collect();
    let s = saturation(Dimension::Threads, &behind, &Conditions::default()).unwrap();
    assert!(s.saturated(), "{}", s.summary);
    // --buffered: the page cache's curve names nothing.
    let buffered = Conditions {
        direct: false,
        ..Conditions::default()
    };
    assert!(saturation(Dimension::Threads, &behind, &buffered).is_none());
}
