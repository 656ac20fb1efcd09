//! A fleet as text: the header, a line when a host changes state, a line a second with the
//! fleet's live rate (fio's ETA figures, rounded as fio prints them), and the final table —
//! one row per host, sorted, outliers named — with the aggregate and the fleet's seconds.
//! The final figures are cumulative over each host's run and say so.

use std::fmt::Write;

use crate::fleet::live::{Board, HostStatus};
use crate::fleet::results::HostState;
use crate::fleet::{FleetConfig, FleetReport};
use crate::render::text::describe_settings;
use crate::units::{format_bytes, format_count_rate, format_latency_ns, format_seconds};

/// "fleet of 3 hosts: /srv/disk.img, 4k random read, 1 thread (psync, O_DIRECT), 10 s".
pub fn header(c: &FleetConfig) -> String {
    format!(
        "fleet of {} host{}: {}, {} ({}, {}), {}{}",
        c.hosts.len(),
        if c.hosts.len() == 1 { "" } else { "s" },
        c.target,
        describe_settings(&c.settings),
        c.ioengine.name(),
        if c.direct { "O_DIRECT" } else { "buffered" },
        format_seconds(c.duration_s),
        c.fio_version
            .as_ref()
            .map(|v| format!("; {v} here"))
            .unwrap_or_default()
    )
}

/// "fleet 4 hosts · /dev/nvme0n1 · 4k random read, QD32 T4 · io_uring · 10 s": the header
/// short enough for an 80-column screen.
pub fn short_header(c: &FleetConfig) -> String {
    format!(
        "fleet {} hosts · {} · {} · {}{} · {}",
        c.hosts.len(),
        c.target,
        describe_settings(&c.settings),
        c.ioengine.name(),
        if c.direct { "" } else { " buffered" },
        format_seconds(c.duration_s)
    )
}

/// "  127.0.0.2: running"/ "  127.0.0.5: failed: cannot connect …".
pub fn state_line(b: &Board, i: usize) -> String {
    let row = &b.rows[i];
    match &row.status {
        HostStatus::Failed(why) => format!("  {}: failed: {why}", row.label),
        s => format!("  {}: {}", row.label, s.word()),
    }
}

/// The live line of a second: the sum of the hosts' last ETA rates.
pub fn live_line(b: &Board) -> String {
    let (running, done, failed) = b.counts();
    format!(
        "{:>5}s  fleet {:>8} IOPS now (fio's ETA, sum of hosts)  running {running}, done {done}, failed {failed} of {}",
        b.seconds,
        format_count_rate(b.live_iops()),
        b.rows.len()
    )
}

/// The final table and aggregate.
pub fn summary(r: &FleetReport) -> String {
    let mut out = String::new();
    let a = &r.aggregate;
    if let Some(sig) = &r.interrupted_by {
        let _ = writeln!(out, "(stopped early by {sig})");
    }
    let _ = writeln!(
        out,
        "fleet: {} of {} hosts finished (cumulative over each host's run):",
        a.hosts_done,
        r.hosts.len()
    );
    let width = r
        .hosts
        .iter()
        .map(|h| label(h).len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "  {:<width$} {:>9} {:>9} {:>10} {:>10} {:>11}",
        "host", "IOPS", "MiB/s", "mean lat", "p99 lat", "ops"
    );
    for h in &r.hosts {
        let name = label(h);
        match (h.state, h.total) {
            (HostState::Done, Some(t)) => {
                let _ = writeln!(
                    out,
                    "  {name:<width$} {:>9.0} {:>9.1} {:>10} {:>10} {:>11}{}",
                    t.iops,
                    t.bw_bytes_per_s / (1 << 20) as f64,
                    format_latency_ns(t.lat_mean_ns),
                    t.lat_p99_ns.map_or("-".into(), format_latency_ns),
                    t.ops,
                    if h.outlier {
                        format!(
                            "  << outlier: {:.0}% below the median",
                            (1.0 - t.iops / a.median_iops) * 100.0
                        )
                    } else {
                        String::new()
                    }
                );
            }
            (HostState::Done, None) => {
                let _ = writeln!(out, "  {name:<width$} did no I/O");
            }
            (HostState::Failed, _) => {
                let why = h.reason.as_deref().unwrap_or("failed");
                let _ = writeln!(out, "  {name:<width$} failed: {why}");
            }
        }
    }
    if a.hosts_done > 0 {
        let _ = writeln!(
            out,
            "fleet total: {:.0} IOPS, {}/s (sums of the hosts), {} ops, {}; mean latency {} (weighted by ops), worst host p99 {}",
            a.iops,
            format_bytes(a.bw_bytes_per_s as u64),
            a.ops,
            format_bytes(a.bytes),
            format_latency_ns(a.lat_mean_ns),
            a.worst_p99_ns.map_or("-".into(), format_latency_ns)
        );
    } else {
        let _ = writeln!(out, "fleet total: no host finished");
    }
    if a.hosts_done >= 2 {
        let _ = writeln!(
            out,
            "outliers (more than {:.0}% below the median {:.0} IOPS): {}",
            r.fleet.outlier_pct,
            a.median_iops,
            if r.outliers.is_empty() {
                "none".to_string()
            } else {
                r.outliers.join(", ")
            }
        );
    }
    if !r.intervals.is_empty() {
        let secs: Vec<String> = r
            .intervals
            .iter()
            .take(30)
            .map(|i| format_count_rate(i.figures.iops))
            .collect();
        let _ = writeln!(
            out,
            "fleet IOPS per second (each host's seconds differenced from fio's snapshots, added up): {}{}",
            secs.join(" "),
            if r.intervals.len() > 30 { " …" } else { "" }
        );
    }
    out
}

fn label(h: &crate::fleet::results::HostResult) -> String {
    crate::fleet::hosts::Host {
        name: h.host.clone(),
        port: h.port,
    }
    .label()
}
