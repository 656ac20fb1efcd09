use super::*;

#[test]
fn settings_read_as_a_phrase() {
    let s = Settings {
        threads: 4,
        iodepth: 1,
        bs: 65536,
        read_pct: 70,
        random_pct: 0,
        rate_iops: 0,
        random_distribution: Default::default(),
        trim_pct: 0,
        hipri: false,
    };
    assert_eq!(
        describe_settings(&s),
        "64k sequential 70% read / 30% write, 4 threads"
    );
    let deep = Settings {
        iodepth: 32,
        ..Settings::default()
    };
    assert_eq!(describe_settings(&deep), "4k random read, QD32 T1");
    assert_eq!(
        describe_settings(&Settings::default()),
        "4k random read, 1 thread"
    );
}

#[test]
fn trims_read_as_their_share_of_all_ios() {
    let with = |trim_pct, read_pct| Settings {
        trim_pct,
        read_pct,
        ..Settings::default()
    };
    assert_eq!(
        mix_words(&with(30, 50), true),
        "35% read / 35% write / 30% trim"
    );
    assert_eq!(mix_words(&with(25, 100), false), "75% read / 25% trim");
    assert_eq!(mix_words(&with(50, 0), false), "50% write / 50% trim");
    assert_eq!(mix_words(&with(100, 70), true), "trim");
    assert_eq!(
        describe_settings(&with(10, 100)),
        "4k random 90% read / 10% trim, 1 thread"
    );
    assert_eq!(
        super::super::periods::period_words(&with(20, 0)),
        "4k random 80% write / 20% trim QD1 T1"
    );
}

fn report(final_settings: Settings) -> RunReport {
    RunReport {
        final_settings,
        ..RunReport::example()
    }
}

#[test]
fn summary_names_the_final_settings_only_when_they_changed() {
    let same = summary(&report(Settings::default()), true);
    assert!(!same.contains("settings at the end"), "{same}");
    let changed = summary(
        &report(Settings {
            threads: 8,
            ..Settings::default()
        }),
        true,
    );
    assert!(
        changed.contains("settings at the end: 4k random read, 8 threads"),
        "{changed}"
    );
}

#[test]
fn a_second_of_reads_and_writes_shows_each_directions_rate_and_p99_in_80_columns() {
    use crate::stats::sides::{ReadWrite, Side};
    let side = |iops: f64, p99: u64| Side {
        ops: iops as u64,
        bytes: iops as u64 * 4096,
        iops,
        bw_bytes_per_s: iops * 4096.0,
        latency_ns: crate::stats::LatencySummary {
            count: iops as u64,
            p99,
            ..Default::default()
        },
    };
    let mut f = crate::stats::Window::default().figures();
    f.t_s = 12.0;
    f.elapsed_s = 1.0;
    f.iops = 13_900.0;
    f.bw_bytes_per_s = 54.3e6;
    f.latency_ns.count = 13_900;
    let alone = interval_line(&f);
    assert!(alone.contains("lat mean"), "{alone}");
    f.sides = Some(ReadWrite {
        read: side(9_730.0, 1_440_000),
        write: side(4_170.0, 11_500_000),
        trim: Default::default(),
    });
    let both = interval_line(&f);
    assert!(
        both.contains("r  9730 p99 1.44 ms") && both.contains("w  4170 p99 11.5 ms"),
        "{both}"
    );
    assert!(!both.contains("lat mean"), "{both}");
    let mut trims = f.clone();
    trims.sides = trims.sides.map(|rw| ReadWrite {
        write: Default::default(),
        trim: side(2_000.0, 3_200_000),
        ..rw
    });
    let line = interval_line(&trims);
    assert!(
        line.contains("r  9730 p99 1.44 ms  t  2000 p99 3.20 ms") && !line.contains(" w "),
        "{line}"
    );
    assert!(line.chars().count() <= 80, "{line}");
    assert!(
        both.chars().count() <= 80,
        "{} columns: {both}",
        both.chars().count()
    );
}

/// A period of a few key presses holds a handful of I/Os: its hot-spot share (100 % against
/// a promised 90.6 %) is left out of the summary, as its rates are from the periods table.
#[test]
fn a_period_too_short_for_a_rate_has_no_hot_spot_line() {
    use crate::model::hot_spots::HotSpots;
    use crate::settings::Distribution;
    use crate::stats::periods::{Began, Period};
    use crate::stats::{Counts, LatencySummary, LeftOut};
    let zipf = Settings {
        random_distribution: Distribution::Zipf { theta_milli: 1300 },
        ..Settings::default()
    };
    let period = |start_s: f64, elapsed_s: f64, random: u64, top1: u64| Period {
        sides: None,
        began: Began::Change,
        settings: Some(zipf),
        merged: 1,
        start_s,
        end_s: start_s + elapsed_s,
        elapsed_s,
        counts: Counts {
            ops: random,
            bytes: random * 4096,
            random_issued: random,
            top1_issued: top1,
            top10_issued: top1,
            ..Counts::default()
        },
        iops: random as f64 / elapsed_s,
        bw_bytes_per_s: random as f64 * 4096.0 / elapsed_s,
        latency_ns: LatencySummary::default(),
        service_latency_ns: LatencySummary::default(),
        left_out: LeftOut::default(),
    };
    let mut r = RunReport::example();
    r.periods.list = vec![period(0.0, 5.0, 50_000, 45_000), period(5.0, 0.004, 3, 3)];
    r.hot_spots = HotSpots::of_all(&r.periods.list, 1 << 30);
    assert_eq!(r.hot_spots.len(), 2, "both are in the JSON");
    let text = summary(&r, true);
    assert!(text.contains("hot spots, period 1, zipf 1.3"), "{text}");
    assert!(!text.contains("hot spots, period 2"), "{text}");
}
