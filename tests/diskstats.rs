//! `/proc/diskstats` and `/sys/block/<dev>/stat` parsing across kernel versions, and the
//! iostat-style rate arithmetic on hand-computed samples.

use std::path::{Path, PathBuf};
use std::time::Duration;

use diskscope::diskstats::{DiskCounters, parse_diskstats, parse_stat_file, rates, read_counters};
use proptest::prelude::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

fn base_counters() -> DiskCounters {
    DiskCounters {
        reads_completed: 11,
        reads_merged: 22,
        sectors_read: 33,
        read_ticks_ms: 44,
        writes_completed: 55,
        writes_merged: 66,
        sectors_written: 77,
        write_ticks_ms: 88,
        in_flight: 9,
        io_ticks_ms: 100,
        time_in_queue_ms: 111,
        ..DiskCounters::default()
    }
}

#[test]
fn fourteen_field_lines_before_4_18() {
    let text = "   8       0 sda 11 22 33 44 55 66 77 88 9 100 111\n";
    assert_eq!(
        parse_diskstats(text),
        vec![("sda".to_string(), base_counters())]
    );
}

#[test]
fn eighteen_field_lines_add_discards() {
    let text = "   8       0 sda 11 22 33 44 55 66 77 88 9 100 111 12 13 14 15\n";
    let expected = DiskCounters {
        discards_completed: Some(12),
        discards_merged: Some(13),
        sectors_discarded: Some(14),
        discard_ticks_ms: Some(15),
        ..base_counters()
    };
    assert_eq!(parse_diskstats(text), vec![("sda".to_string(), expected)]);
}

#[test]
fn twenty_field_lines_add_flushes() {
    let text = " 259       0 nvme0n1 11 22 33 44 55 66 77 88 9 100 111 12 13 14 15 16 17\n";
    let parsed = parse_diskstats(text);
    assert_eq!(parsed.len(), 1);
    let (name, c) = &parsed[0];
    assert_eq!(name, "nvme0n1");
    assert_eq!(c.discard_ticks_ms, Some(15));
    assert_eq!(c.flushes_completed, Some(16));
    assert_eq!(c.flush_ticks_ms, Some(17));
    assert_eq!(c.time_in_queue_ms, 111);
}

#[test]
fn mixed_file_keeps_order_and_skips_garbage() {
    let text = "\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
   8       0 sda 11 22 33 44 55 66 77 88 9 100 111
not a diskstats line
   8       1 sda1 1 2 3
   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
";
    let parsed = parse_diskstats(text);
    let names: Vec<&str> = parsed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["loop0", "sda", "sdb"]);
    assert_eq!(parsed[0].1.flushes_completed, Some(0));
    assert_eq!(parsed[1].1.discards_completed, None);
    assert_eq!(parsed[2].1.discard_ticks_ms, Some(15));
    assert_eq!(parsed[2].1.flushes_completed, None);
}

#[test]
fn stat_file_variants() {
    assert_eq!(
        parse_stat_file("   11 22 33 44 55 66 77 88 9 100 111\n"),
        Some(base_counters())
    );
    assert_eq!(
        parse_stat_file("11 22 33 44 55 66 77 88 9 100 111 1 2 3 4")
            .and_then(|c| c.sectors_discarded),
        Some(3)
    );
    assert_eq!(
        parse_stat_file("11 22 33 44 55 66 77 88 9 100 111 1 2 3 4 5 6")
            .and_then(|c| c.flush_ticks_ms),
        Some(6)
    );
    assert_eq!(parse_stat_file("11 22 33"), None);
}

#[test]
fn fixture_stat_file_agrees_with_proc_diskstats() {
    let proc = fixture("nvme").join("proc");
    let from_proc = read_counters(&proc, "nvme0n1").expect("read_counters");
    let stat = std::fs::read_to_string(fixture("nvme").join("sys/block/nvme0n1/stat"))
        .expect("stat fixture");
    assert_eq!(parse_stat_file(&stat), Some(from_proc));
    assert_eq!(from_proc.reads_completed, 183_412);
    assert_eq!(from_proc.sectors_written, 55_012_312);
    assert_eq!(from_proc.flush_ticks_ms, Some(1540));
    let p2 = read_counters(&proc, "nvme0n1p2").expect("partition");
    assert_eq!(p2.time_in_queue_ms, 853_460);
}

#[test]
fn read_counters_errors_name_device_and_file() {
    let proc = fixture("nvme").join("proc");
    let err = read_counters(&proc, "sdz").expect_err("absent device");
    let msg = format!("{err:#}");
    assert!(msg.contains("sdz") && msg.contains("diskstats"), "{msg}");
    let err = read_counters(&fixture("loop").join("proc"), "loop0").expect_err("no file");
    assert!(format!("{err:#}").contains("diskstats"), "{err:#}");
}

#[test]
fn real_proc_diskstats_parses() {
    let text = std::fs::read_to_string("/proc/diskstats").expect("read /proc/diskstats");
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(parse_diskstats(&text).len(), lines);
}

#[allow(clippy::too_many_arguments)] // one argument per counter the rates read
fn sample(
    reads: u64,
    sectors_read: u64,
    read_ticks: u64,
    writes: u64,
    sectors_written: u64,
    write_ticks: u64,
    io_ticks: u64,
    queue: u64,
) -> DiskCounters {
    DiskCounters {
        reads_completed: reads,
        sectors_read,
        read_ticks_ms: read_ticks,
        writes_completed: writes,
        sectors_written,
        write_ticks_ms: write_ticks,
        io_ticks_ms: io_ticks,
        time_in_queue_ms: queue,
        ..DiskCounters::default()
    }
}

#[test]
fn rates_match_hand_computed_iostat_numbers() {
    let prev = sample(1000, 80_000, 500, 200, 16_000, 300, 1000, 2000);
    let cur = sample(1500, 100_480, 1500, 300, 18_048, 500, 1500, 3200);
    let r = rates(&prev, &cur, Duration::from_secs(2));
    assert_eq!(r.r_per_s, 250.0);
    assert_eq!(r.w_per_s, 50.0);
    assert_eq!(r.r_bytes_per_s, 5_242_880.0); // 20480 sectors * 512 / 2 s
    assert_eq!(r.w_bytes_per_s, 524_288.0); // 2048 sectors * 512 / 2 s
    assert_eq!(r.avg_queue_depth, 0.6); // 1200 ms / 2000 ms
    assert_eq!(r.await_ms, Some(2.0)); // (1000 + 200) ms / 600 ios
    assert_eq!(r.util_pct, 25.0); // 500 ms / 2000 ms
}

#[test]
fn sub_second_interval() {
    let prev = sample(0, 0, 0, 0, 0, 0, 0, 0);
    let cur = sample(0, 0, 0, 40, 8, 10, 125, 250);
    let r = rates(&prev, &cur, Duration::from_millis(250));
    assert_eq!(r.r_per_s, 0.0);
    assert_eq!(r.w_per_s, 160.0);
    assert_eq!(r.w_bytes_per_s, 16_384.0);
    assert_eq!(r.await_ms, Some(0.25));
    assert_eq!(r.avg_queue_depth, 1.0);
    assert_eq!(r.util_pct, 50.0);
}

#[test]
fn util_is_clamped_to_100() {
    let prev = sample(0, 0, 0, 0, 0, 0, 1000, 0);
    let cur = sample(1, 0, 0, 0, 0, 0, 4000, 0);
    let r = rates(&prev, &cur, Duration::from_secs(2));
    assert_eq!(r.util_pct, 100.0);
}

#[test]
fn no_io_means_no_await() {
    let c = sample(7, 8, 9, 10, 11, 12, 13, 14);
    let r = rates(&c, &c, Duration::from_secs(1));
    assert_eq!(r.await_ms, None);
    assert_eq!((r.r_per_s, r.w_per_s, r.util_pct), (0.0, 0.0, 0.0));
}

#[test]
fn counters_going_backwards_saturate_to_zero() {
    let prev = sample(5000, 9000, 700, 400, 800, 60, 3000, 9000);
    let cur = sample(10, 20, 5, 500, 900, 80, 100, 50);
    let r = rates(&prev, &cur, Duration::from_secs(1));
    assert_eq!(r.r_per_s, 0.0);
    assert_eq!(r.r_bytes_per_s, 0.0);
    assert_eq!(r.w_per_s, 100.0);
    assert_eq!(r.w_bytes_per_s, 51_200.0);
    assert_eq!(r.await_ms, Some(0.2)); // only the write ticks moved: 20 ms / 100 ios
    assert_eq!(r.util_pct, 0.0);
    assert_eq!(r.avg_queue_depth, 0.0);
}

proptest! {
    #[test]
    fn rates_are_finite_and_bounded(
        a in proptest::array::uniform8(any::<u64>()),
        b in proptest::array::uniform8(any::<u64>()),
        ms in 0u64..100_000_000,
    ) {
        let prev = sample(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        let cur = sample(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
        let r = rates(&prev, &cur, Duration::from_millis(ms));
        for v in [r.r_per_s, r.w_per_s, r.r_bytes_per_s, r.w_bytes_per_s, r.avg_queue_depth] {
            prop_assert!(v.is_finite() && v >= 0.0);
        }
        prop_assert!((0.0..=100.0).contains(&r.util_pct));
        if let Some(w) = r.await_ms {
            prop_assert!(w.is_finite() && w >= 0.0);
        }
    }

    #[test]
    fn twenty_field_line_round_trips(v in proptest::array::uniform17(any::<u64>())) {
        let line = format!(
            "8 0 sda {}",
            v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
        );
        let parsed = parse_diskstats(&line);
        prop_assert_eq!(parsed.len(), 1);
        let c = parsed[0].1;
        prop_assert_eq!(
            [c.reads_completed, c.reads_merged, c.sectors_read, c.read_ticks_ms,
             c.writes_completed, c.writes_merged, c.sectors_written, c.write_ticks_ms,
             c.in_flight, c.io_ticks_ms, c.time_in_queue_ms],
            [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]]
        );
        prop_assert_eq!(
            [c.discards_completed, c.discards_merged, c.sectors_discarded,
             c.discard_ticks_ms, c.flushes_completed, c.flush_ticks_ms],
            [Some(v[11]), Some(v[12]), Some(v[13]), Some(v[14]), Some(v[15]), Some(v[16])]
        );
    }
}
