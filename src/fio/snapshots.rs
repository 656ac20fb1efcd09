//! fio's entries grouped into snapshots — every job of one host at one moment — and a
//! snapshot's jobs summed. A job is an entry, not a name: fio writes one entry per job
//! (`numjobs=N` without `group_reporting` gives N entries of the same `jobname`), so jobs are
//! told apart by their place in a snapshot, never by name.
//!
//! A local run prints one whole document per snapshot. A client/server run lists every
//! host's snapshots in one `client_stats` array, each snapshot's jobs in fio's thread order
//! (stat.c `__show_run_stats` sends them so), and marks nothing between snapshots; a new one
//! starts at an entry that
//!
//! 1. lists its job options more often than the snapshot's first entry did: fio's client
//!    appends a job's options again at every snapshot (client.c `handle_job_opt`), so the
//!    k-th snapshot of a job lists k times as many as its first (a job's own count, as jobs
//!    differ in how many options they have) — decisive when both entries have options; else
//! 2. has a lower `groupid` than the entry before it (thread order is group order), or
//! 3. is the snapshot's first job again (same name and group) with a runtime at least
//!    `NEXT_SNAPSHOT_MS` past it: fio's status interval is at least a second (init.c refuses
//!    less), while the clones of one job start within milliseconds of each other.
//!
//! Without options, a finished first job repeated unchanged in the next snapshot of the same
//! group is not told from a clone: that snapshot is then read as part of the one before.
//!
//! Sums follow fio's `group_reporting` (stat.c `sum_thread_stats`): within a group, I/Os
//! and bytes add and the runtime is the longest; groups run one after another (`stonewall`),
//! so their runtimes add (a `new_group` without `stonewall` runs beside the others, which
//! fio's JSON does not say: its runtime is counted after theirs). Rates are the sum's I/Os
//! and bytes over its runtime; the mean latency is weighted by I/Os; percentiles do not
//! add, so a sum's are its worst job's.

use std::collections::HashMap;

use super::json::{DirStats, FioEntry, PercentileBasis, Snapshot};

/// How far past a snapshot's first job its next snapshot is at least: half of fio's
/// shortest status interval (1 s).
pub const NEXT_SNAPSHOT_MS: u64 = 500;

/// An entry with the number of job options listed with it (`None`: it had none).
pub type Marked = (FioEntry, Option<usize>);

/// `entries` (fio's order, every host mixed, "All clients" left out) as snapshots: each
/// host's in order, in the order of their first entries.
pub fn split(entries: Vec<Marked>) -> Vec<Snapshot> {
    let mut out: Vec<(Snapshot, Option<usize>)> = Vec::new();
    let mut open: HashMap<(Option<String>, Option<u16>), usize> = HashMap::new();
    // Each job's count of options in its first snapshot, by host and name: the k-th lists
    // k times as many (numjobs clones list the same).
    let mut first_listed: HashMap<(Option<String>, Option<u16>, String), usize> = HashMap::new();
    for (e, listed) in entries {
        let key = (e.host.clone(), e.port);
        let marker = listed.and_then(|n| {
            let first = *first_listed
                .entry((e.host.clone(), e.port, e.jobname.clone()))
                .or_insert(n);
            n.is_multiple_of(first).then_some(n / first)
        });
        match open.get(&key) {
            Some(&i) if !starts_next(&out[i].0, out[i].1, &e, marker) => out[i].0.jobs.push(e),
            _ => {
                open.insert(key, out.len());
                let snapshot = Snapshot {
                    host: e.host.clone(),
                    port: e.port,
                    jobs: vec![e],
                };
                out.push((snapshot, marker));
            }
        }
    }
    out.into_iter().map(|(s, _)| s).collect()
}

/// Whether `e` begins the snapshot after `s` (whose first entry's options were listed
/// `first_marker` times): the rules in the module's doc.
fn starts_next(
    s: &Snapshot,
    first_marker: Option<usize>,
    e: &FioEntry,
    marker: Option<usize>,
) -> bool {
    if let (Some(m0), Some(m)) = (first_marker, marker) {
        return m > m0;
    }
    let (first, last) = (&s.jobs[0], &s.jobs[s.jobs.len() - 1]);
    e.group < last.group
        || (e.jobname == first.jobname
            && e.group == first.group
            && e.runtime_ms >= first.runtime_ms + NEXT_SNAPSHOT_MS)
}

/// `jobs` summed as fio's `group_reporting` would (see the module's doc); one job is
/// returned as it is, with fio's own rates.
pub fn sum(jobs: &[FioEntry]) -> Option<FioEntry> {
    let first = jobs.first()?;
    if jobs.len() == 1 {
        return Some(first.clone());
    }
    // (group, [read, write, trim], runtime)
    let mut groups: Vec<(u64, [DirStats; 3], u64)> = Vec::new();
    for j in jobs {
        let dirs = [j.read, j.write, j.trim];
        match groups.iter_mut().find(|g| g.0 == j.group) {
            Some(g) => {
                for (sum, d) in g.1.iter_mut().zip(&dirs) {
                    *sum = together(sum, d);
                }
                g.2 = g.2.max(job_runtime(j));
            }
            None => groups.push((j.group, dirs, job_runtime(j))),
        }
    }
    let (mut all, mut runtime_ms) = ([DirStats::default(); 3], 0);
    for (_, dirs, ms) in &groups {
        for (sum, d) in all.iter_mut().zip(dirs) {
            *sum = after(sum, d);
        }
        runtime_ms += ms;
    }
    let [read, write, trim] = all;
    let same_name = jobs.iter().all(|j| j.jobname == first.jobname);
    Some(FioEntry {
        host: first.host.clone(),
        port: first.port,
        jobname: if same_name {
            first.jobname.clone()
        } else {
            format!("{} jobs", jobs.len())
        },
        error: jobs.iter().map(|j| j.error).find(|&e| e != 0).unwrap_or(0),
        read: rated(read),
        write: rated(write),
        trim: rated(trim),
        runtime_ms,
        basis: if jobs.iter().all(|j| j.basis == PercentileBasis::Lat) {
            PercentileBasis::Lat
        } else {
            PercentileBasis::Clat
        },
        group: first.group,
        job_count: jobs.iter().map(|j| j.job_count).sum(),
    })
}

/// A job's own runtime in a sum: its directions' (fio's `job_runtime` of a job that has not
/// started yet can be the status interval, with no I/O).
fn job_runtime(j: &FioEntry) -> u64 {
    j.read
        .runtime_ms
        .max(j.write.runtime_ms)
        .max(j.trim.runtime_ms)
}

/// Two directions that ran at the same time (one group): the longer runtime.
fn together(a: &DirStats, b: &DirStats) -> DirStats {
    DirStats {
        runtime_ms: a.runtime_ms.max(b.runtime_ms),
        ..added(a, b)
    }
}

/// Two directions that ran one after the other (two groups): the runtimes add.
fn after(a: &DirStats, b: &DirStats) -> DirStats {
    DirStats {
        runtime_ms: a.runtime_ms + b.runtime_ms,
        ..added(a, b)
    }
}

/// Counts added, the mean weighted by I/Os, the worst percentiles; rates and runtime left
/// to the caller.
fn added(a: &DirStats, b: &DirStats) -> DirStats {
    let ios = a.ios + b.ios;
    let worst = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    };
    DirStats {
        io_bytes: a.io_bytes + b.io_bytes,
        ios,
        short_ios: a.short_ios + b.short_ios,
        runtime_ms: 0,
        iops: 0.0,
        bw_bytes_per_s: 0.0,
        lat_mean_ns: if ios > 0 {
            (a.lat_mean_ns * a.ios as f64 + b.lat_mean_ns * b.ios as f64) / ios as f64
        } else {
            0.0
        },
        lat_p50_ns: worst(a.lat_p50_ns, b.lat_p50_ns),
        lat_p99_ns: worst(a.lat_p99_ns, b.lat_p99_ns),
    }
}

/// A sum's rates: its I/Os and bytes over its runtime.
fn rated(d: DirStats) -> DirStats {
    let per_s = |n: u64| {
        if d.runtime_ms > 0 {
            n as f64 * 1e3 / d.runtime_ms as f64
        } else {
            0.0
        }
    };
    DirStats {
        iops: per_s(d.ios),
        bw_bytes_per_s: per_s(d.io_bytes),
        ..d
    }
}
