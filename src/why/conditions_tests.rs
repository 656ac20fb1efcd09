//! The findings a run's conditions forbid, through the tracker as the runs drive it (facts
//! from the run's description, one second at a time): page-cache reads and writes, a loop
//! device's "drive", a `--rate` cap filling "the link".

use super::*;
use crate::model::disk::{LinkInfo, LinkKind as Bus};

/// A 1 TiB target at `settings` (direct or `--buffered`), behind `link`, with a rotational
/// flag and a volatile write cache.
fn config(direct: bool, link: LinkInfo, settings: Settings) -> ConfigReport {
    let mut c = ConfigReport::example().with_settings(settings);
    c.target.direct = direct;
    c.target.span_bytes = 1 << 40;
    c.disk.link = link;
    c.disk.queue_limits = QueueLimits {
        write_cache: Some("write back".into()),
        rotational: Some(true),
        ..QueueLimits::default()
    };
    c
}

fn sata() -> LinkInfo {
    LinkInfo::bare(Bus::Sata, "SATA 6.0 Gb/s", None)
}

/// `seconds` seconds of `settings` at `iops` with a median latency of `p50_ns`, each slot of
/// a `--rate` timetable started on time; what was said.
fn run(config: &ConfigReport, seconds: usize, iops: u64, p50_ns: f64) -> Vec<String> {
    let s = config.settings;
    let mut t = Tracker::new(WhyFacts::of(config), SteadyParams::with_round(2.0));
    for i in 0..seconds {
        let writes = iops * u64::from(100 - s.read_pct.min(100)) / 100;
        let counts = Counts {
            ops: iops,
            bytes: iops * s.bs,
            write_ops: writes,
            write_bytes: writes * s.bs,
            read_ops: iops - writes,
            read_bytes: (iops - writes) * s.bs,
            due: if s.rate_iops > 0 { iops } else { 0 },
            issued: iops,
            ..Counts::default()
        };
        t.push(Second {
            t_s: (i + 1) as f64,
            elapsed_s: 1.0,
            key: 0,
            settings: s,
            counts,
            latency: None,
            p50_ns: Some(p50_ns),
            temp_c: None,
            kernel_queue: None,
            util_pct: None,
        });
    }
    t.report(None)
        .findings
        .into_iter()
        .map(|f| f.kind)
        .collect()
}

fn random(read_pct: u8) -> Settings {
    Settings {
        read_pct,
        random_pct: 100,
        ..Settings::default()
    }
}

#[test]
fn page_cache_reads_and_writes_judge_neither_the_rotational_flag_nor_the_drive_cache() {
    // Random reads at 2.62 µs: the page cache, under --buffered.
    let reads = run(&config(false, sata(), random(100)), 10, 300_000, 2_620.0);
    assert!(
        !reads.iter().any(|k| k == kind::ROTATIONAL_FLAG),
        "{reads:?}"
    );
    let writes = run(&config(false, sata(), random(0)), 3, 50_000, 20_000.0);
    assert!(
        !writes.iter().any(|k| k == kind::VOLATILE_WRITE_CACHE),
        "{writes:?}"
    );
    // The same with O_DIRECT: the disk's own timing and writes, and both speak.
    let reads = run(&config(true, sata(), random(100)), 10, 12_000, 80_000.0);
    assert!(
        reads.iter().any(|k| k == kind::ROTATIONAL_FLAG),
        "{reads:?}"
    );
    let writes = run(&config(true, sata(), random(0)), 3, 12_000, 80_000.0);
    assert!(
        writes.iter().any(|k| k == kind::VOLATILE_WRITE_CACHE),
        "{writes:?}"
    );
}

#[test]
fn a_loop_device_has_no_drive_whose_cache_or_platter_could_be_judged() {
    let looped = LinkInfo::bare(Bus::Loop, "loop device", None);
    let writes = run(
        &config(true, looped.clone(), random(0)),
        3,
        12_000,
        80_000.0,
    );
    assert!(
        !writes.iter().any(|k| k == kind::VOLATILE_WRITE_CACHE),
        "{writes:?}"
    );
    let reads = run(&config(true, looped, random(100)), 10, 12_000, 80_000.0);
    assert!(
        !reads.iter().any(|k| k == kind::ROTATIONAL_FLAG),
        "{reads:?}"
    );
}

#[test]
fn a_kept_rate_cap_is_not_the_link_and_a_missed_one_may_be() {
    // USB 2: a practical 40 MB/s. 37 IOPS of 1 MiB asked and done: the cap, not the link.
    let usb2 = LinkInfo {
        speed: Some("480".into()),
        ceiling_bytes_per_s: Some(48_000_000),
        ..LinkInfo::bare(Bus::Usb, "USB 2.0", None)
    };
    let capped = Settings {
        rate_iops: 37,
        bs: 1 << 20,
        random_pct: 0,
        ..Settings::default()
    };
    let said = run(&config(true, usb2.clone(), capped), 20, 37, 1e6);
    assert!(!said.iter().any(|k| k == kind::LINK_BOUND), "{said:?}");
    // Unpaced at the same figure: the link is the limit.
    let free = Settings {
        rate_iops: 0,
        ..capped
    };
    let said = run(&config(true, usb2, free), 20, 37, 1e6);
    assert!(said.iter().any(|k| k == kind::LINK_BOUND), "{said:?}");
}
