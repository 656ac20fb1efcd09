//! The conditions table, end to end: one run whose every figure would make every detector
//! speak (a SATA link trained at half speed and full, 4 MiB blocks past `max_sectors_kb`, more
//! in flight than the queue holds, writes to a volatile cache, a rotational flag with 80 µs
//! random reads, a write cliff while the drive heats up, a target far below its peers, disks
//! that fall short together, a sweep that flattens) is judged under each condition a run can
//! have — buffered, at a `--rate` cap, behind one, a loop device, a virtual disk, a file on a
//! filesystem, several targets, one row — and the test asserts which detectors spoke. Every
//! detector is asked through `findings::conditions::ask` (or, for a sweep, the gate inside
//! `sweep::saturation`), the same calls the runs make.

use std::collections::BTreeSet;

use diskscope::findings::Interval;
use diskscope::findings::collect::{RunFacts, all_findings};
use diskscope::findings::conditions::{Conditions, DETECTORS, Detector, Device, Pacing, ask};
use diskscope::findings::link::{LinkInput, LinkKind};
use diskscope::findings::queue::{Observed, QueueLimits, QueueSettings};
use diskscope::findings::surface::{SurfaceFacts, detect};
use diskscope::findings::{outliers, shared_limit};
use diskscope::settings::Settings;
use diskscope::stats::IntervalFigures;
use diskscope::surface::fold::{Completion, Fold};
use diskscope::surface::plan::ScanPlan;
use diskscope::sweep::{Dimension, saturation};

/// `rows` seconds of half writes of 4 MiB: 295 MB/s at 60 °C for the first half, then a
/// third of that at 79 °C.
fn series(rows: usize) -> Vec<Interval> {
    let half = rows.div_ceil(2) as u64;
    let mut written = 0;
    (0..rows as u64)
        .map(|i| {
            let bytes: u64 = if i < half { 295_000_000 } else { 98_000_000 };
            written += bytes / 2;
            Interval {
                t_s: i as f64 + 1.0,
                elapsed_s: 1.0,
                key: 1,
                ops: bytes / (4 << 20),
                bytes,
                write_bytes: bytes / 2,
                written_bytes: written,
                write_pct: 50,
                temp_c: Some(if i < half { 60.0 } else { 79.0 }),
                ..Interval::default()
            }
        })
        .collect()
}

/// A whole rotational disk's surface scan whose curve is flat, with a stretch at 16 MiB reading
/// at a hundredth of the rest and a read error at 40 MiB.
fn surface_report() -> diskscope::model::surface::SurfaceReport {
    let plan = ScanPlan::full(64 << 20, 1 << 20, 64);
    let mut fold = Fold::new(&plan, "/dev/sdz", 8);
    for i in 0..64u64 {
        let ms = if i == 16 { 500 } else { 5 };
        fold.add(&Completion {
            offset: i << 20,
            len: 1 << 20,
            latency_ns: ms * 8_000_000,
            service_ns: ms * 1_000_000,
            busy_ns: ms * 1_000_000,
            result: if i == 40 {
                Err("Input/output error (os error 5)".into())
            } else {
                Ok(())
            },
        });
    }
    fold.finish(1.0, true)
}

fn step(threads: usize, iops: f64) -> IntervalFigures {
    let mut f = diskscope::stats::Window::default().figures();
    f.settings = Settings {
        threads,
        ..Settings::default()
    };
    f.elapsed_s = 3.0;
    f.iops = iops;
    f.bw_bytes_per_s = iops * 4096.0;
    f
}

/// Every detector's findings under `c` (with `c.rows` rows of the series), as detector names.
fn spoke(c: &Conditions) -> BTreeSet<&'static str> {
    let link = LinkInput {
        kind: LinkKind::Sata,
        speed: Some("3.0 Gbps".into()),
        max_speed: Some("6.0 Gbps".into()),
        ceiling_bytes_per_s: Some(300e6),
        max_ceiling_bytes_per_s: Some(600e6),
        ..LinkInput::default()
    };
    let limits = QueueLimits {
        max_sectors_kb: Some(1280),
        nr_requests: Some(32),
        write_cache: Some("write back".into()),
        rotational: Some(true),
        ..QueueLimits::default()
    };
    let settings = QueueSettings {
        bs_bytes: 4 << 20,
        threads: 1,
        iodepth: 64,
        write_pct: 50,
        random_pct: 100,
        fsync_every: 0,
    };
    let observed = Observed {
        read_latency_p50_ns: Some(80_000.0),
        span_bytes: Some(1 << 40),
    };
    let series = series(c.rows);
    let facts = RunFacts {
        series: &series,
        link: Some(&link),
        queue: Some((&limits, &settings, &observed)),
        temp_warn_c: Some(80.0),
        counters: None,
        conditions: *c,
    };
    let mut found = all_findings(&facts);
    let peers = [Some(100.0), Some(100.0), Some(30.0)];
    found.extend(ask(c, Detector::Outlier, || {
        let v = outliers::judge(&peers, 20.0);
        v.outliers()
            .into_iter()
            .map(|i| outliers::finding(&format!("loop{i}"), v.below_pct[i].unwrap(), 3))
            .collect::<Vec<_>>()
    }));
    found.extend(ask(c, Detector::SharedLimit, || {
        shared_limit::findings(&shared_limit::AloneTogether {
            alone_sum_bw_bytes_per_s: 2e9,
            together_bw_bytes_per_s: 1e9,
            cpu_busy_pct: None,
            shared_parents: vec![],
        })
    }));
    let facts = SurfaceFacts {
        rotational: Some(true),
        span_share: Some(1.0),
    };
    found.extend(detect(&surface_report(), &facts, c));
    let mut out: BTreeSet<&'static str> = found.iter().map(|f| detector_of(&f.kind)).collect();
    let steps: Vec<IntervalFigures> = [(1, 10_000.0), (2, 19_000.0), (4, 20_000.0), (8, 20_500.0)]
        .into_iter()
        .take(c.rows.max(1))
        .map(|(t, iops)| step(t, iops))
        .collect();
    if saturation(Dimension::Threads, &steps, c).is_some() {
        out.insert("saturation");
    }
    out
}

fn detector_of(kind: &str) -> &'static str {
    match kind {
        "link_below_max" | "link_usb2" => "link_below_max",
        "link_bound" | "above_link" => "link_bound",
        "queue_split" => "queue_split",
        "kernel_queue" => "kernel_queue",
        "volatile_write_cache" => "volatile_write_cache",
        "rotational_flag" => "rotational_flag",
        "slowdown" | "write_cache_cliff" | "recovered" => "slowdown",
        "thermal_throttling" => "thermal",
        "outlier" => "outlier",
        "shared_limit" | "independent" | "cpu_limit" | "shared_parent" => "shared_limit",
        "surface_read_errors" | "surface_slow_region" | "surface_slow_reads" => "surface_regions",
        "surface_flat_curve" | "surface_falling_flash" => "surface_curve",
        other => panic!("a finding of no detector in the table: {other}"),
    }
}

#[test]
fn every_detector_speaks_only_under_its_conditions() {
    let base = Conditions {
        rows: 60,
        ..Conditions::default()
    };
    let everything_alone = [
        "link_below_max",
        "link_bound",
        "queue_split",
        "kernel_queue",
        "volatile_write_cache",
        "rotational_flag",
        "slowdown",
        "thermal",
        "saturation",
        "surface_regions",
        "surface_curve",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        everything_alone.iter().chain(extra).copied().collect()
    };
    #[rustfmt::skip]
    let table: Vec<(&str, Conditions, Vec<&'static str>)> = vec![
        ("a drive, O_DIRECT, unpaced", base, with(&[])),
        ("a file on a drive's filesystem (judged by its drive)", base, with(&[])),
        ("--buffered", Conditions { direct: false, ..base }, vec!["link_below_max"]),
        ("at its --rate cap", base.paced(Pacing::AtCap),
            vec!["link_below_max", "queue_split", "volatile_write_cache", "rotational_flag",
                 "surface_regions", "surface_curve"]),
        ("behind its --rate cap (the disk set the pace)", base.paced(Pacing::BehindCap), with(&[])),
        ("a loop device (or a file on one)", Conditions { device: Device::NoDrive, ..base },
            vec!["queue_split", "kernel_queue", "slowdown", "saturation", "surface_regions"]),
        ("a virtual disk", Conditions { device: Device::Virtual, ..base },
            vec!["queue_split", "kernel_queue", "rotational_flag", "slowdown", "saturation",
                 "surface_regions"]),
        ("several targets", Conditions { targets: 3, ..base }, with(&["outlier", "shared_limit"])),
        ("one row (-T 1s)", base.with_rows(1),
            vec!["link_below_max", "queue_split", "kernel_queue", "volatile_write_cache",
                 "rotational_flag", "saturation", "surface_regions", "surface_curve"]),
        ("several targets at their cap", Conditions { targets: 3, ..base }.paced(Pacing::AtCap),
            vec!["link_below_max", "queue_split", "volatile_write_cache", "rotational_flag",
                 "outlier", "surface_regions", "surface_curve"]),
    ];
    let mut failures = Vec::new();
    for (name, c, expected) in &table {
        let got = spoke(c);
        let expected: BTreeSet<&str> = expected.iter().copied().collect();
        if got != expected {
            failures.push(format!("{name}: spoke {got:?}, expected {expected:?}"));
        }
        // The table and the gate agree: what spoke was allowed.
        for d in DETECTORS {
            let name_of = format!("{d:?}");
            if !c.allows(d) {
                assert!(
                    !got.iter()
                        .any(|g| g.replace('_', "") == name_of.to_lowercase()),
                    "{name}: {d:?} spoke outside its conditions"
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
