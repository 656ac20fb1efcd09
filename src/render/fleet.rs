//! A fleet as text: the header, a line when a host changes state, a line a second with the
//! fleet's live rate (fio's ETA figures, rounded as fio prints them), and the final table —
//! one row per host, sorted, outliers named — with the aggregate and the fleet's seconds.
//! The final figures are cumulative over each host's run and say so.

use std::fmt::Write;

use super::hosts::{BelowMedianPct, host_table, outliers_line};
use crate::fleet::live::{Board, HostStatus};
use crate::fleet::{FleetConfig, FleetReport};
use crate::render::text::describe_settings;
use crate::units::{format_bytes, format_count_rate, format_latency_ns, format_seconds};

/// "fleet of 3 hosts: /srv/disk.img, 4k random read, 1 thread (psync, O_DIRECT), 10 s".
pub fn header(c: &FleetConfig) -> String {
    format!(
        "fleet of {} host{}: {}, {} ({}, {}), {}{}",
        c.hosts.len(),
        if c.hosts.len() == 1 { "" } else { "s" },
        crate::units::visible(&c.target),
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
        crate::units::visible(&c.target),
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
    out.push_str(&host_lines(r));
    let _ = writeln!(out, "{}", total_line(r));
    if a.hosts_done >= 2 {
        let _ = writeln!(out, "{}", outliers_line(r, "more than"));
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

/// The host table, indented, an outlier's row saying how far below the median it is.
fn host_lines(r: &FleetReport) -> String {
    let table = host_table(r);
    let widths = [table.first_width(4), 9, 9, 10, 10, 11];
    let mut out = format!("  {}\n", table.header(&widths));
    for row in &table.rows {
        let note = row.note.map_or(String::new(), |BelowMedianPct(p)| {
            format!("  << outlier: {p:.0}% below the median")
        });
        let _ = writeln!(out, "  {}{note}", table.row(row, &widths));
    }
    out
}

/// The aggregate: sums of the hosts, the mean weighted by ops, the worst host's p99.
fn total_line(r: &FleetReport) -> String {
    let a = &r.aggregate;
    if a.hosts_done == 0 {
        return "fleet total: no host finished".into();
    }
    format!(
        "fleet total: {:.0} IOPS, {}/s (sums of the hosts), {} ops, {}; mean latency {} (weighted by ops), worst host p99 {}",
        a.iops,
        format_bytes(a.bw_bytes_per_s as u64),
        a.ops,
        format_bytes(a.bytes),
        format_latency_ns(a.lat_mean_ns),
        a.worst_p99_ns.map_or("-".into(), format_latency_ns)
    )
}
