use super::*;
use crate::fio::json::{DirStats, PercentileBasis};

/// A read-only snapshot: `ios` 4 KiB reads in `ms`, mean latency `lat_ns`.
fn snap(ms: u64, ios: u64, lat_ns: f64) -> FioEntry {
    FioEntry {
        host: None,
        port: None,
        jobname: "diskscope".into(),
        error: 0,
        read: DirStats {
            io_bytes: ios * 4096,
            ios,
            runtime_ms: ms,
            lat_mean_ns: lat_ns,
            lat_p99_ns: Some(lat_ns * 3.0),
            ..DirStats::default()
        },
        write: DirStats::default(),
        trim: DirStats::default(),
        runtime_ms: ms,
        basis: PercentileBasis::Lat,
        group: 0,
        job_count: 1,
    }
}

fn host(name: &str) -> Host {
    Host {
        name: name.into(),
        port: 8765,
    }
}

/// A host that ran 2 s at `iops`.
fn done(name: &str, iops: u64) -> HostResult {
    host_result(
        &host(name),
        &[snap(1000, iops, 100.0), snap(2000, 2 * iops, 100.0)],
        None,
    )
}

#[test]
fn snapshots_become_intervals_not_relabelled_totals() {
    // Cumulative: 1000 ops at 1 s (mean 100 ns), 3000 at 2 s (mean 200 ns), the final
    // repeated at 2 s as fio does.
    let e = [
        snap(1000, 1000, 100.0),
        snap(2000, 3000, 200.0),
        snap(2000, 3000, 200.0),
    ];
    let iv = intervals(&e);
    assert_eq!(iv.len(), 2);
    assert_eq!(iv[0].figures.ops, 1000);
    assert_eq!(iv[1].figures.ops, 2000);
    assert_eq!(iv[1].figures.iops, 2000.0);
    assert_eq!(iv[1].figures.bytes, 2000 * 4096);
    // The second second's own mean: (3000 × 200 − 1000 × 100) / 2000 = 250 ns.
    assert!((iv[1].figures.lat_mean_ns - 250.0).abs() < 1e-9);
    // Intervals add up to the total.
    let r = host_result(&host("a"), &e, None);
    let sum: u64 = r.intervals.iter().map(|i| i.figures.ops).sum();
    assert_eq!(Some(sum), r.total.map(|t| t.ops));
    assert_eq!(r.total.unwrap().iops, 1500.0);
}

#[test]
fn hosts_more_than_the_share_below_the_median_are_outliers() {
    // Median of 1000, 1000, 900, 790, 500 is 900; 20% below it is 720: only "e" is below,
    // "d" at 790 is 12% below and stays.
    let mut hosts = vec![
        done("a", 1000),
        done("b", 1000),
        done("c", 900),
        done("d", 790),
        done("e", 500),
        host_result(&host("f"), &[], Some("cannot connect".into())),
    ];
    let agg = aggregate(&mut hosts, 20.0);
    let flagged: Vec<&str> = hosts
        .iter()
        .filter(|h| h.outlier)
        .map(|h| h.host.as_str())
        .collect();
    assert_eq!(flagged, ["e"]);
    assert_eq!(agg.median_iops, 900.0);
    assert_eq!((agg.hosts_done, agg.hosts_failed), (5, 1));
    // With a 10% share, "d" (12% below) is flagged too.
    let agg10 = aggregate(&mut hosts, 10.0);
    let flagged: Vec<&str> = hosts
        .iter()
        .filter(|h| h.outlier)
        .map(|h| h.host.as_str())
        .collect();
    assert_eq!(flagged, ["d", "e"]);
    // The aggregate is the sum of the finished hosts; the failed one adds nothing.
    assert_eq!(agg10.ops, 2 * (1000 + 1000 + 900 + 790 + 500));
    assert_eq!(agg10.iops, 4190.0);
    assert_eq!(agg10.worst_p99_ns, Some(300.0));
}

#[test]
fn one_host_is_never_an_outlier_and_failed_hosts_sort_last() {
    let mut one = vec![done("a", 10)];
    aggregate(&mut one, 20.0);
    assert!(!one[0].outlier);
    let mut hosts = vec![
        host_result(&host("x"), &[], Some("down".into())),
        done("a", 10),
        done("b", 30),
    ];
    sort_hosts(&mut hosts);
    let order: Vec<&str> = hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(order, ["b", "a", "x"]);
    let fleet = fleet_intervals(&hosts);
    assert_eq!(fleet.len(), 2);
    assert_eq!(fleet[0].figures.ops, 40);
    assert_eq!(fleet[1].figures.iops, 40.0);
}

#[test]
fn median_of_even_and_odd() {
    assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    assert_eq!(median(vec![]), 0.0);
}

#[test]
fn hosts_reading_their_page_caches_are_never_outliers() {
    let fleet = |direct| FleetConfig {
        target: "/dev/sdb".into(),
        hosts: Vec::new(),
        settings: crate::settings::Settings::default(),
        ioengine: crate::settings::IoEngine::IoUring,
        direct,
        duration_s: 10.0,
        write_allowed: false,
        outlier_pct: 20.0,
        fio_version: None,
        latency_basis: String::new(),
    };
    let hosts = || vec![done("a", 1000), done("b", 1000), done("c", 100)];
    let direct = report(fleet(true), hosts(), String::new());
    assert_eq!(direct.outliers, ["c"]);
    // --buffered: the same figures are page caches', and the table says no outlier.
    let buffered = report(fleet(false), hosts(), String::new());
    assert!(buffered.outliers.is_empty(), "{:?}", buffered.outliers);
    assert!(buffered.hosts.iter().all(|h| !h.outlier));
}
