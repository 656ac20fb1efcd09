use super::*;
use crate::findings::Finding;
use crate::model::RunReport;
use crate::model::disks::{Aggregate, AloneRun, KernelCount, TargetRun};
use crate::render::baseline::Baseline;
use crate::render::disks_compare::compare;
use crate::render::table::Tone;
use crate::settings::{IoEngine, Settings};
use crate::stats::{Counts, LatencySummary};

fn latency(p99_ns: u64) -> LatencySummary {
    LatencySummary {
        count: 1,
        min: 50_000,
        mean: 120_000.0,
        p50: 100_000,
        p90: 150_000,
        p99: p99_ns,
        p999: p99_ns,
        max: p99_ns,
    }
}

pub(crate) fn target(name: &str, iops: f64, below: Option<f64>) -> TargetRun {
    let mut run = RunReport::example();
    let ops = (iops * 10.0) as u64;
    run.total.elapsed_s = 10.0;
    run.total.iops = iops;
    run.total.bw_bytes_per_s = iops * 4096.0;
    run.total.counts = Counts {
        ops,
        bytes: ops * 4096,
        read_ops: ops,
        read_bytes: ops * 4096,
        ..Counts::default()
    };
    run.total.latency_ns = latency(900_000);
    let mut row = IntervalFigures {
        sides: None,
        t_s: 1.0,
        elapsed_s: 1.0,
        settings: Settings::default(),
        counts: run.total.counts,
        iops,
        bw_bytes_per_s: iops * 4096.0,
        latency_ns: latency(900_000),
        service_latency_ns: latency(900_000),
        left_out: Default::default(),
        temp_c: None,
        period: None,
    };
    row.counts.ops /= 10;
    run.intervals = vec![row];
    TargetRun {
        name: name.into(),
        model: Some("QEMU HARDDISK".into()),
        link: Some("virtio".into()),
        device: Some(name.into()),
        kernel: Some(KernelCount {
            reads_completed: ops,
            reads_merged: 1,
            ..KernelCount::default()
        }),
        below_median_pct: below,
        run,
    }
}

pub(crate) fn example() -> DisksReport {
    let targets = vec![
        target("loop1", 10_000.0, None),
        target("loop2", 9_800.0, None),
        target("loop3", 6_000.0, Some(38.8)),
    ];
    let aggregate = Aggregate {
        targets: 3,
        elapsed_s: 10.0,
        counts: Counts {
            ops: 258_000,
            bytes: 258_000 * 4096,
            ..Counts::default()
        },
        iops: 25_800.0,
        bw_bytes_per_s: 25_800.0 * 4096.0,
        latency_ns: latency(1_200_000),
        service_latency_ns: latency(1_200_000),
        median_iops: 9_800.0,
        cpu_busy_pct: Some(64.0),
        intervals: vec![targets[0].run.intervals[0].clone()],
        sides: None,
    };
    DisksReport {
        meta: Default::default(),
        disks: DisksConfig {
            targets: vec![
                "/dev/loop1".into(),
                "/dev/loop2".into(),
                "/dev/loop3".into(),
            ],
            settings: Settings {
                threads: 4,
                iodepth: 32,
                ..Settings::default()
            },
            duration_s: Some(10.0),
            ioengine: IoEngine::IoUring,
            ioengine_fallback: None,
            direct: true,
            write_allowed: false,
            outlier_pct: 20.0,
            each_then_all: false,
            latency_basis: crate::model::LATENCY_BASIS.into(),
        },
        targets,
        aggregate,
        outliers: vec!["loop3".into()],
        alone: None,
        findings: vec![Finding::new(
            "outlier",
            "loop3 39% below the median of 3".into(),
        )],
        interrupted_by: None,
        cpu: None,
    }
}

#[test]
fn the_summary_is_a_table_a_total_and_the_outliers() {
    let r = example();
    let text = summary(&r);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "each target (cumulative over its run):");
    assert_eq!(
        lines[1],
        "  target      IOPS     MiB/s  mean lat   p99 lat         ops      kernel link   model"
    );
    assert_eq!(
        lines[2],
        "  loop1      10000      39.1    120 µs    900 µs      100000      100001 virtio QEMU HARDDISK"
    );
    assert!(
        lines[4].ends_with("QEMU HARDDISK  << outlier: 39% below the median"),
        "{}",
        lines[4]
    );
    assert!(lines[5].starts_with("all 3: 25800 IOPS, 100.8 MiB/s (each target's rate added)"));
    assert!(
        lines[5].ends_with("p99 1.20 ms; CPU 64% busy"),
        "{}",
        lines[5]
    );
    assert_eq!(
        lines[6],
        "outliers (more than 20% below the median 9800 IOPS): loop3"
    );
    assert_eq!(lines[7], "  loop3 39% below the median of 3");
}

#[test]
fn alone_and_together_sit_side_by_side_with_their_sums() {
    let mut r = example();
    r.disks.each_then_all = true;
    r.alone = Some(
        ["loop1", "loop2", "loop3"]
            .iter()
            .map(|n| AloneRun {
                target: target(n, 20_000.0, None),
                cpu_busy_pct: Some(40.0),
            })
            .collect(),
    );
    let text = summary(&r);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "alone, then all together (cumulative over each phase):"
    );
    assert_eq!(
        lines[1],
        "  target       alone IOPS alone MB/s together IOPS together MB/s CPU alone"
    );
    assert_eq!(
        lines[4],
        "  loop3             20000       81.9          6000          24.6       40%"
    );
    assert_eq!(
        lines[5],
        "  sum / all         60000      245.8         25800         105.7       64%"
    );
    assert_eq!(lines[6], "all together (cumulative over its run):");
}

#[test]
fn a_line_a_second_and_the_header_name_every_target() {
    let r = example();
    let names: Vec<String> = r.targets.iter().map(|t| t.name.clone()).collect();
    assert_eq!(
        header(&r.disks, &names),
        "3 targets: loop1 loop2 loop3; 4k random read, QD32 T4 on each (io_uring, O_DIRECT), 10 s"
    );
    let rows = vec![Some(r.targets[0].run.intervals[0].clone()), None, None];
    let line = second_line(&names, &rows, &r.aggregate.intervals[0]);
    assert!(line.starts_with("    1.0s  all    10.0k IOPS"), "{line}");
    assert!(line.ends_with("│ loop1 10.0k  loop2 -  loop3 -"), "{line}");
}

#[test]
fn the_csv_has_a_target_column_and_the_aggregate_as_all() {
    let mut r = example();
    r.targets[1].name = "/srv/a,b".into();
    let text = csv(&r);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(
        lines[0].starts_with("target,t_s,elapsed_s,threads,"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("loop1,1.000,1.000,1,"), "{}", lines[1]);
    assert!(lines[2].starts_with("\"/srv/a,b\",1.000,"), "{}", lines[2]);
    assert!(lines[4].starts_with("all,"), "{}", lines[4]);
    let columns = |l: &str| {
        ::csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(l.as_bytes())
            .records()
            .next()
            .unwrap()
            .unwrap()
            .len()
    };
    assert!(lines.iter().all(|l| columns(l) == columns(lines[0])));
}

#[test]
fn the_live_table_marks_the_outlier_and_dashes_what_is_not_known() {
    let rows = [
        LiveRow {
            name: "sdb".into(),
            model: None,
            link: Some("SATA 6 Gb/s".into()),
            now: Some(example().targets[0].run.intervals[0].clone()),
            util_pct: Some(99.6),
            below_median_pct: None,
        },
        LiveRow {
            name: "sdc".into(),
            model: Some("ST4000".into()),
            link: None,
            now: None,
            util_pct: None,
            below_median_pct: Some(41.0),
        },
    ];
    let t = live_table(&rows);
    assert_eq!(
        t.rows[0].cells,
        ["sdb", "10.0k", "41.0", "900 µs", "100", "SATA 6 Gb/s", ""]
    );
    assert_eq!(t.rows[1].cells, ["sdc", "-", "-", "-", "-", "-", "ST4000"]);
    assert_eq!(t.rows[1].note, Some(BelowMedianPct(41.0)));
    assert_eq!(t.rows[1].tone, Tone::Warn);
}

#[test]
fn a_baseline_compares_target_by_target_or_each_against_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut before = example();
    before.targets[0].run.total.iops = 12_500.0;
    before.targets.remove(1);
    let path = dir.path().join("before.json");
    std::fs::write(&path, serde_json::to_string(&before).unwrap()).unwrap();
    let b = Baseline::load(&path).unwrap();
    let text = compare(&b, 0, &example());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "vs baseline before.json, target by target:");
    assert_eq!(
        lines[1],
        "  loop1 IOPS 10000 vs 12500 (-20%), p99 900 µs vs 900 µs (+0%)"
    );
    assert_eq!(lines[2], "  loop2 not in the baseline");
    assert!(
        lines[4].starts_with("  all   IOPS 25800 vs 25800"),
        "{}",
        lines[4]
    );

    let run = dir.path().join("run.json");
    std::fs::write(&run, serde_json::to_string(&RunReport::example()).unwrap()).unwrap();
    let text = compare(&Baseline::load(&run).unwrap(), 0, &example());
    assert!(
        text.starts_with(
            "vs baseline run.json (its total), each target:\n  loop1 IOPS 10000 vs 0 (n/a)"
        ),
        "{text}"
    );
}

#[test]
fn a_baseline_whose_targets_changed_settings_says_its_totals_mix_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut before = serde_json::to_value(example()).unwrap();
    before["targets"][0]["periods"] = serde_json::json!([{}, {}, {}]);
    let path = dir.path().join("story.json");
    std::fs::write(&path, before.to_string()).unwrap();
    let text = compare(&Baseline::load(&path).unwrap(), 0, &example());
    assert!(
        text.starts_with("baseline story.json went through 3 periods on a target"),
        "{text}"
    );
    assert!(
        text.contains("this run 0: the totals below mix them"),
        "{text}"
    );
    // A baseline of one setting against a run of one: no such line.
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, serde_json::to_string(&example()).unwrap()).unwrap();
    let text = compare(&Baseline::load(&plain).unwrap(), 0, &example());
    assert!(text.starts_with("vs baseline plain.json"), "{text}");
}

#[test]
fn the_summary_names_the_target_whose_ios_failed_or_came_back_short() {
    // A file target truncated under the run: exit status 3, and the summary must say which
    // target and what the first short read was, as a single run's summary does.
    let mut r = example();
    r.targets[1].run.total.counts.short_ios = 1028622;
    r.targets[1].run.errors = vec![crate::stats::IoErrorRecord {
        thread: 0,
        op: "read",
        offset: 248852480,
        errno: None,
        message: "short read: 0 of 4096 bytes".into(),
    }];
    let text = summary(&r);
    let name = &r.targets[1].name;
    assert!(
        text.contains(&format!(
            "{name}: not counted as ops: 0 failed, 1028622 short\n  thread 0 read at offset 248852480: short read: 0 of 4096 bytes\n"
        )),
        "{text}"
    );
    assert_eq!(text.matches("not counted as ops").count(), 1, "{text}");
}

#[test]
fn a_target_with_a_space_is_one_shell_word_in_the_header() {
    let r = example();
    let names = vec!["/data/a b".to_string(), "loop2".to_string()];
    let line = header(&r.disks, &names);
    assert!(line.starts_with("2 targets: '/data/a b' loop2; "), "{line}");
}
