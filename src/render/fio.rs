//! fio's own results as `--show` prints them: a local run group by group — every job of a
//! group summed (a job is an entry: `numjobs=3` is three), then each job — with its latency,
//! saying which latency fio's percentiles describe and whose they are, and for a job that
//! read and wrote (randrw, rw) each direction apart, as fio reports it; a client/server run
//! is a fleet, shown by `render::fleet` under `client_server_header`.

use std::fmt::Write;

use crate::fio::json::{FioEntry, FioOutput, PercentileBasis, Snapshot};
use crate::units::{format_bytes, format_latency_ns};

/// Jobs listed one by one in each group; the rest are in the group's sum, and said.
pub const MAX_JOB_LINES: usize = 16;

/// What fio's percentiles describe, in words.
pub fn basis(e: &FioEntry) -> &'static str {
    match e.basis {
        PercentileBasis::Lat => "total latency (lat)",
        PercentileBasis::Clat => "completion latency (clat: fio kept no lat percentiles)",
    }
}

/// "1 job", "3 jobs".
pub fn jobs_word(n: usize) -> String {
    if n == 1 {
        "1 job".into()
    } else {
        format!("{n} jobs")
    }
}

/// The line above a client/server run's host table.
pub fn client_server_header(out: &FioOutput) -> String {
    let finals = out.finals();
    let per_host: Vec<usize> = finals.iter().map(|s| s.jobs.len()).collect();
    let mut jobs = match (per_host.iter().min(), per_host.iter().max()) {
        (Some(a), Some(b)) if a == b => format!("{} each", jobs_word(*a)),
        (Some(a), Some(b)) => format!("{a} to {b} jobs each"),
        _ => "no jobs".into(),
    };
    if let Some(n) = out.summed_by_fio() {
        jobs = format!(
            "{} (fio's group_reporting: each a group of {n} jobs summed by fio)",
            jobs.replace("jobs", "entries").replace("1 job", "1 entry")
        );
    }
    let sum = finals.first().map(|s| s.sum());
    format!(
        "{} client/server result, {} hosts, {jobs} (a host's figures are its jobs summed); percentiles are {}{}",
        out.version,
        out.hosts().len(),
        sum.as_ref().map_or("-", basis),
        if per_host.iter().any(|&n| n > 1) {
            ", a host's p99 its worst job's (fio keeps them per job)"
        } else {
            ""
        }
    )
}

/// A local run: each group's jobs summed, then each job.
pub fn jobs(out: &FioOutput) -> String {
    let mut text = String::new();
    let Some(last) = out.finals().into_iter().next_back() else {
        let _ = writeln!(text, "{} result: no jobs", out.version);
        return text;
    };
    let groups = last.groups();
    let reported = match out.summed_by_fio() {
        Some(n) => {
            format!(" (fio's group_reporting: fio summed each group's jobs, numjobs={n}, into one)")
        }
        None => String::new(),
    };
    let _ = writeln!(
        text,
        "{} result, {}{reported}{}:",
        out.version,
        jobs_word(last.jobs.len()),
        if groups.len() > 1 {
            format!(
                " in {} groups run one after another (stonewall)",
                groups.len()
            )
        } else {
            String::new()
        }
    );
    for g in &groups {
        let group = last.group(*g);
        let indent = if groups.len() > 1 {
            let _ = writeln!(text, "group {g}, {}:", jobs_word(group.jobs.len()));
            "  "
        } else {
            ""
        };
        group_lines(&mut text, &group, indent);
    }
    if groups.len() > 1 {
        let all = last.sum();
        let _ = writeln!(
            text,
            "all groups, one after another: {} ops over {:.1}s, {:.0} IOPS on average",
            all.ios(),
            all.runtime_ms as f64 / 1e3,
            all.iops()
        );
    }
    text
}

/// One group: its sum (when it has several jobs), then its jobs.
fn group_lines(text: &mut String, group: &Snapshot, indent: &str) {
    let n = group.jobs.len();
    if n > 1 {
        let sum = group.sum();
        let _ = writeln!(text, "{indent}{} together: {}", jobs_word(n), totals(&sum));
        latency_lines(text, &format!("{indent}  "), &sum, true);
    }
    let inner = if n > 1 {
        format!("{indent}  ")
    } else {
        indent.to_string()
    };
    for e in group.jobs.iter().take(MAX_JOB_LINES) {
        let _ = writeln!(text, "{inner}{}: {}", e.jobname, totals(e));
        latency_lines(text, &format!("{inner}  "), e, false);
    }
    if n > MAX_JOB_LINES {
        let _ = writeln!(
            text,
            "{inner}… and {} more jobs (counted in the sum above)",
            n - MAX_JOB_LINES
        );
    }
}

fn totals(e: &FioEntry) -> String {
    format!(
        "total over {:.1}s: {} ops{}, {:.0} IOPS, {}/s{}",
        e.runtime_ms as f64 / 1e3,
        e.ios(),
        if both_directions(e) {
            format!(" ({} reads, {} writes)", e.read.ios, e.write.ios)
        } else {
            String::new()
        },
        e.iops(),
        format_bytes(e.bw_bytes_per_s() as u64),
        if e.error != 0 {
            format!(", fio error {}", e.error)
        } else {
            String::new()
        }
    )
}

/// Whether the entry both read and wrote (fio's randrw, rw, readwrite).
fn both_directions(e: &FioEntry) -> bool {
    e.read.ios > 0 && e.write.ios > 0
}

/// The latency, after `indent`: one line for a job that read or wrote; for one that did both,
/// a line per direction with fio's own percentiles of that direction (fio keeps none of both
/// together: the larger of the two, unlabelled, was neither), then the mean of both.
fn latency_lines(text: &mut String, indent: &str, e: &FioEntry, worst: bool) {
    if !both_directions(e) {
        let _ = writeln!(text, "{indent}{}", latency(e, worst));
        return;
    }
    for (name, d) in [("read", &e.read), ("write", &e.write)] {
        let pct = |v: Option<f64>| v.map_or("-".into(), format_latency_ns);
        let _ = writeln!(
            text,
            "{indent}{name:<5} {:>8.0} IOPS {:>12}  mean {:>8}  p50 {:>8}  p99 {:>8}",
            d.iops,
            format!("{}/s", format_bytes(d.bw_bytes_per_s as u64)),
            format_latency_ns(d.lat_mean_ns),
            pct(d.lat_p50_ns),
            pct(d.lat_p99_ns),
        );
    }
    let _ = writeln!(
        text,
        "{indent}latency: mean {} of both; percentiles each direction's own, {}{}",
        format_latency_ns(e.lat_mean_ns()),
        basis(e),
        if worst {
            ", the worst job's (fio keeps them per job)"
        } else {
            ""
        }
    );
}

/// The latency line; a sum's percentiles are its worst job's (`worst`), and say so.
fn latency(e: &FioEntry, worst: bool) -> String {
    format!(
        "latency: mean {}  p50 {}  p99 {}  (percentiles: {}{})",
        format_latency_ns(e.lat_mean_ns()),
        e.lat_p50_ns().map_or("-".into(), format_latency_ns),
        e.lat_p99_ns().map_or("-".into(), format_latency_ns),
        basis(e),
        if worst {
            "; the worst job's, as fio keeps them per job"
        } else {
            ""
        }
    )
}
