//! A fleet's results: each host's cumulative fio snapshots turned into its totals and
//! per-second intervals, the fleet's aggregate, and the hosts that fall behind.
//!
//! Cumulative and interval figures are kept apart (fio issue #130 mixed them): a snapshot
//! says what a host did since its start; an interval is the difference of two consecutive
//! snapshots, divided by the difference of their runtimes, never a snapshot relabelled. The
//! aggregate is computed here from the hosts' final figures — ops and bytes are sums,
//! IOPS the sum of each host's rate, mean latency weighted by ops — not taken from fio's
//! "All clients", which with `--status-interval` sums only the first snapshot. Percentiles
//! do not add up across hosts, so the fleet's p99 is said as the worst host's.
//!
//! Outliers: hosts whose IOPS is more than `outlier_pct` below the median of the hosts that
//! finished, flagged by name (`findings::outliers`, the rule a run's disks share).

pub use crate::model::fleet::{Aggregate, Figures, HostResult, HostState, Interval};

use super::hosts::{DEFAULT_PORT, Host};
use crate::findings::conditions::{Conditions, Detector};
use crate::fio::json::{FioEntry, FioOutput};
use crate::model::fleet::{FleetConfig, FleetReport};

/// A host's totals and intervals from its snapshots (in order, all of one job).
pub fn host_result(host: &Host, entries: &[FioEntry], failure: Option<String>) -> HostResult {
    let total = entries.last().filter(|e| e.ios() > 0).map(|e| Figures {
        elapsed_s: e.runtime_ms as f64 / 1e3,
        ops: e.ios(),
        bytes: e.io_bytes(),
        iops: per_s(e.ios(), e.runtime_ms),
        bw_bytes_per_s: per_s(e.io_bytes(), e.runtime_ms),
        lat_mean_ns: e.lat_mean_ns(),
        lat_p50_ns: e.lat_p50_ns(),
        lat_p99_ns: e.lat_p99_ns(),
    });
    HostResult {
        host: host.name.clone(),
        port: host.port,
        state: if failure.is_some() {
            HostState::Failed
        } else {
            HostState::Done
        },
        reason: failure,
        total,
        intervals: intervals(entries),
        outlier: false,
    }
}

fn per_s(n: u64, ms: u64) -> f64 {
    if ms == 0 {
        0.0
    } else {
        n as f64 * 1e3 / ms as f64
    }
}

/// Consecutive cumulative snapshots differenced into intervals; a snapshot whose runtime
/// did not advance (fio repeats the last one as the final result) adds none.
pub fn intervals(entries: &[FioEntry]) -> Vec<Interval> {
    let mut out = Vec::new();
    let mut prev: Option<&FioEntry> = None;
    for e in entries {
        let (ms0, ops0, bytes0, sum0) = prev.map_or((0, 0, 0, 0.0), |p| {
            (
                p.runtime_ms,
                p.ios(),
                p.io_bytes(),
                p.lat_mean_ns() * p.ios() as f64,
            )
        });
        if e.runtime_ms <= ms0 || e.ios() < ops0 {
            continue;
        }
        let (ms, ops) = (e.runtime_ms - ms0, e.ios() - ops0);
        let bytes = e.io_bytes().saturating_sub(bytes0);
        let lat_sum = e.lat_mean_ns() * e.ios() as f64 - sum0;
        out.push(Interval {
            t_s: e.runtime_ms as f64 / 1e3,
            figures: Figures {
                elapsed_s: ms as f64 / 1e3,
                ops,
                bytes,
                iops: per_s(ops, ms),
                bw_bytes_per_s: per_s(bytes, ms),
                lat_mean_ns: if ops > 0 {
                    (lat_sum / ops as f64).max(0.0)
                } else {
                    0.0
                },
                lat_p50_ns: None,
                lat_p99_ns: None,
            },
        });
        prev = Some(e);
    }
    out
}

/// The median of `v` (0 when empty).
pub fn median(v: Vec<f64>) -> f64 {
    crate::findings::series::median(&v)
}

/// Flags the finished hosts more than `pct` % below the median IOPS of the finished hosts
/// (with at least two of them), by the rule a run's disks are judged by
/// (`findings::outliers`); returns the aggregate. A host that finished without doing any
/// I/O has no figure to judge (its row says so).
pub fn aggregate(hosts: &mut [HostResult], pct: f64) -> Aggregate {
    let done: Vec<Figures> = hosts
        .iter()
        .filter(|h| h.state == HostState::Done)
        .filter_map(|h| h.total)
        .collect();
    let figures: Vec<Option<f64>> = hosts
        .iter()
        .map(|h| match h.state {
            HostState::Done => h.total.map(|t| t.iops),
            HostState::Failed => None,
        })
        .collect();
    let verdict = crate::findings::outliers::judge(&figures, pct);
    for (h, below) in hosts.iter_mut().zip(&verdict.below_pct) {
        h.outlier = below.is_some();
    }
    let med = verdict.median;
    let ops: u64 = done.iter().map(|f| f.ops).sum();
    Aggregate {
        hosts_done: hosts.iter().filter(|h| h.state == HostState::Done).count(),
        hosts_failed: hosts
            .iter()
            .filter(|h| h.state == HostState::Failed)
            .count(),
        ops,
        bytes: done.iter().map(|f| f.bytes).sum(),
        iops: done.iter().map(|f| f.iops).sum(),
        bw_bytes_per_s: done.iter().map(|f| f.bw_bytes_per_s).sum(),
        lat_mean_ns: if ops > 0 {
            done.iter()
                .map(|f| f.lat_mean_ns * f.ops as f64)
                .sum::<f64>()
                / ops as f64
        } else {
            0.0
        },
        worst_p99_ns: done.iter().filter_map(|f| f.lat_p99_ns).reduce(f64::max),
        median_iops: med,
    }
}

/// The fleet's seconds: the k-th interval of every finished host added up (each host's
/// seconds run on its own clock, started within a moment of the others).
pub fn fleet_intervals(hosts: &[HostResult]) -> Vec<Interval> {
    let done: Vec<&HostResult> = hosts
        .iter()
        .filter(|h| h.state == HostState::Done)
        .collect();
    let n = done.iter().map(|h| h.intervals.len()).max().unwrap_or(0);
    (0..n)
        .map(|k| {
            let these: Vec<&Interval> = done.iter().filter_map(|h| h.intervals.get(k)).collect();
            let ops: u64 = these.iter().map(|i| i.figures.ops).sum();
            let lat: f64 = these
                .iter()
                .map(|i| i.figures.lat_mean_ns * i.figures.ops as f64)
                .sum();
            Interval {
                t_s: these.iter().map(|i| i.t_s).fold(0.0, f64::max),
                figures: Figures {
                    elapsed_s: these
                        .iter()
                        .map(|i| i.figures.elapsed_s)
                        .fold(0.0, f64::max),
                    ops,
                    bytes: these.iter().map(|i| i.figures.bytes).sum(),
                    iops: these.iter().map(|i| i.figures.iops).sum(),
                    bw_bytes_per_s: these.iter().map(|i| i.figures.bw_bytes_per_s).sum(),
                    lat_mean_ns: if ops > 0 { lat / ops as f64 } else { 0.0 },
                    lat_p50_ns: None,
                    lat_p99_ns: None,
                },
            }
        })
        .collect()
}

/// The fleet's report from its hosts' results: the outliers flagged (by `fleet.outlier_pct`),
/// the aggregate, the hosts sorted, the fleet's seconds.
pub fn report(fleet: FleetConfig, mut hosts: Vec<HostResult>, job_file: String) -> FleetReport {
    let aggregate = aggregate(&mut hosts, fleet.outlier_pct);
    // The outlier rule speaks only where the findings' table lets it (`findings::conditions`):
    // hosts that read their page caches (`--buffered`) are not their disks.
    let c = Conditions {
        direct: fleet.direct,
        rows: 1,
        targets: hosts.len(),
        ..Conditions::default()
    };
    if !c.allows(Detector::Outlier) {
        hosts.iter_mut().for_each(|h| h.outlier = false);
    }
    sort_hosts(&mut hosts);
    let outliers = hosts
        .iter()
        .filter(|h| h.outlier)
        .map(|h| h.host.clone())
        .collect();
    FleetReport {
        // The front door stamps its own run's provenance.
        meta: crate::model::Meta::default(),
        intervals: fleet_intervals(&hosts),
        fleet,
        hosts,
        aggregate,
        outliers,
        job_file,
        interrupted_by: None,
    }
}

/// fio's own client/server output read as a fleet (`--show fio.json`): each host's
/// snapshots, every job of a snapshot summed (`Snapshot::sum`: a job is an entry, so
/// `numjobs=3` counts three), differenced into its seconds; a host with a fio error failed;
/// what fio's output does not say (the target, the settings) is left empty.
pub fn from_fio(out: &FioOutput, outlier_pct: f64) -> FleetReport {
    let hosts: Vec<Host> = out
        .hosts()
        .into_iter()
        .map(|(name, port)| Host {
            name,
            port: port.unwrap_or(DEFAULT_PORT),
        })
        .collect();
    let rows = out
        .hosts()
        .iter()
        .zip(&hosts)
        .map(|((name, port), h)| {
            let sums: Vec<FioEntry> = out
                .snapshots_of(Some(name), *port)
                .iter()
                .map(|s| s.sum())
                .collect();
            let failure = sums
                .iter()
                .rev()
                .find(|e| e.error != 0)
                .map(|e| format!("fio error {}", e.error));
            host_result(h, &sums, failure)
        })
        .collect();
    let fleet = FleetConfig {
        target: out.option("filename").unwrap_or_default().to_string(),
        hosts,
        settings: Default::default(),
        ioengine: Default::default(),
        direct: true,
        duration_s: 0.0,
        write_allowed: false,
        outlier_pct,
        fio_version: Some(out.version.clone()),
        latency_basis: String::new(),
    };
    report(fleet, rows, String::new())
}

/// Finished hosts by IOPS, highest first, then the failed ones in their given order.
pub fn sort_hosts(hosts: &mut [HostResult]) {
    hosts.sort_by(|a, b| {
        let key = |h: &HostResult| match h.state {
            HostState::Done => h.total.map_or(0.0, |t| t.iops),
            HostState::Failed => f64::NEG_INFINITY,
        };
        key(b).total_cmp(&key(a))
    });
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
