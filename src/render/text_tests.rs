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
