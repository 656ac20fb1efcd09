//! A run on several targets as text and CSV: the header, a line a second (the aggregate and
//! each target's IOPS), and the summary — the per-target table (`rows`, in disks_table.rs:
//! defined once on the `table::Table` the fleet's hosts use, with the same outlier note; the
//! TUI draws its live rows from `live_table`), the aggregate, the outliers, and with
//! `--each-then-all` the alone/together table and what it shows. CSV rows carry a `target`
//! column, `all` for the aggregate's. Nothing here measures or reads a clock.

use std::fmt::Write;

use super::hosts::BelowMedianPct;

use super::text::{describe_settings, not_ops};
use crate::model::disks::{DisksConfig, DisksReport};
use crate::stats::IntervalFigures;
use crate::units::{format_bytes, format_count_rate, format_latency_ns, format_seconds};

#[path = "disks_table.rs"]
mod rows;
pub use rows::{COLUMNS, LIVE_COLUMNS, LiveRow, Totals, kernel_cell, live_table, target_table};

/// "loop1 loop2 '/data/a b'": the targets as shell words, so a path with a space stays one.
pub(super) fn target_words<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(crate::target::shell::quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// "3 targets: loop1 loop2 loop3; 4k random read, QD32 T4 on each (io_uring, O_DIRECT), 10 s".
pub fn header(c: &DisksConfig, names: &[String]) -> String {
    format!(
        "{} targets: {}; {} on each ({}, {}), {}{}",
        names.len(),
        target_words(names.iter().map(String::as_str)),
        describe_settings(&c.settings),
        c.ioengine.name(),
        if c.direct { "O_DIRECT" } else { "buffered" },
        c.duration_s.map_or("until stopped".into(), format_seconds),
        if c.each_then_all {
            " each alone, then all together"
        } else {
            ""
        }
    )
}

/// The line of one second: the aggregate, then each target's IOPS (`-` where it had no
/// snapshot in that second).
pub fn second_line(
    names: &[String],
    rows: &[Option<IntervalFigures>],
    all: &IntervalFigures,
) -> String {
    let each: Vec<String> = names
        .iter()
        .zip(rows)
        .map(|(n, r)| match r {
            Some(r) => format!("{n} {}", format_count_rate(r.iops)),
            None => format!("{n} -"),
        })
        .collect();
    format!(
        "{:>7.1}s  all {:>8} IOPS {:>10}/s p99 {:>9}{} │ {}",
        all.t_s,
        format_count_rate(all.iops),
        format_bytes(all.bw_bytes_per_s as u64),
        format_latency_ns(all.latency_ns.p99 as f64),
        not_ops(&all.counts, all.elapsed_s),
        each.join("  ")
    )
}

/// The per-target table, indented, an outlier's row saying how far below the median it is.
pub fn table_lines(targets: &[Totals]) -> String {
    let t = target_table(targets);
    let mut widths = vec![t.first_width(6), 9, 9, 9, 9, 11, 11];
    for i in [7, 8] {
        let longest = t
            .rows
            .iter()
            .filter_map(|r| r.cells.get(i))
            .map(|c| c.chars().count());
        widths.push(longest.max().unwrap_or(0).max(COLUMNS[i].header.len()));
    }
    let mut out = format!("  {}\n", t.header(&widths).trim_end());
    for row in &t.rows {
        let note = row.note.map_or(String::new(), |BelowMedianPct(p)| {
            format!("  << outlier: {p:.0}% below the median")
        });
        let _ = writeln!(out, "  {}{note}", t.row(row, &widths).trim_end());
    }
    out
}

/// The summary after a run: the table, the aggregate, the outliers, and with
/// `--each-then-all` the alone/together table; the findings last.
pub fn summary(r: &DisksReport) -> String {
    let mut out = String::new();
    if let Some(sig) = &r.interrupted_by {
        let _ = writeln!(out, "(stopped early by {sig})");
    }
    if let Some(alone) = &r.alone {
        out.push_str(&alone_together(r, alone));
    }
    if !r.targets.is_empty() {
        let what = if r.alone.is_some() {
            "all together"
        } else {
            "each target"
        };
        let _ = writeln!(out, "{what} (cumulative over its run):");
        let totals: Vec<Totals> = r.targets.iter().map(Totals::of).collect();
        out.push_str(&table_lines(&totals));
        let _ = writeln!(out, "{}", aggregate_line(r));
        out.push_str(&super::sides::disks_text(r));
        let _ = writeln!(out, "{}", outliers_line(r));
    }
    // Which target's I/Os failed or came back short (exit status 3 says only that some did).
    for t in r.targets.iter().filter(|t| t.run.had_io_errors()) {
        let c = &t.run.total.counts;
        let (failed, short) = (c.errors, c.short_ios);
        let _ = writeln!(
            out,
            "{}: not counted as ops: {failed} failed, {short} short",
            t.name
        );
        super::text::error_lines(&mut out, &t.run.errors);
    }
    for f in &r.findings {
        let _ = writeln!(out, "  {}", f.text);
    }
    out
}

/// "all 3: 312,000 IOPS, 1.2 GiB/s (each target's rate added), 3.1M ops; latency of every
/// I/O (merged): mean 410 µs, p99 1.20 ms; CPU 64% busy".
pub fn aggregate_line(r: &DisksReport) -> String {
    let a = &r.aggregate;
    format!(
        "all {}: {:.0} IOPS, {}/s (each target's rate added), {} ops, {}; latency of every I/O \
         (histograms merged): mean {}, p50 {}, p99 {}{}",
        a.targets,
        a.iops,
        format_bytes(a.bw_bytes_per_s as u64),
        a.counts.ops,
        format_bytes(a.counts.bytes),
        format_latency_ns(a.latency_ns.mean),
        format_latency_ns(a.latency_ns.p50 as f64),
        format_latency_ns(a.latency_ns.p99 as f64),
        a.cpu_busy_pct
            .map(|b| format!("; CPU {b:.0}% busy"))
            .unwrap_or_default()
    )
}

/// "outliers (more than 20% below the median 9951 IOPS): loop3".
pub fn outliers_line(r: &DisksReport) -> String {
    format!(
        "outliers (more than {:.0}% below the median {:.0} IOPS): {}",
        r.disks.outlier_pct,
        r.aggregate.median_iops,
        if r.outliers.is_empty() {
            "none".into()
        } else {
            r.outliers.join(", ")
        }
    )
}

/// Each target alone beside all together, and the sums.
pub(super) fn alone_together(r: &DisksReport, alone: &[crate::model::disks::AloneRun]) -> String {
    let mut out = String::from("alone, then all together (cumulative over each phase):\n");
    let w = alone
        .iter()
        .map(|a| a.target.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let _ = writeln!(
        out,
        "  {:<w$} {:>10} {:>10} {:>13} {:>13} {:>9}",
        "target", "alone IOPS", "alone MB/s", "together IOPS", "together MB/s", "CPU alone"
    );
    let mb = |b: f64| format!("{:.1}", b / 1e6);
    for a in alone {
        let t = r.targets.iter().find(|t| t.name == a.target.name);
        let total = &a.target.run.total;
        let _ = writeln!(
            out,
            "  {:<w$} {:>10.0} {:>10} {:>13} {:>13} {:>9}",
            a.target.name,
            total.iops,
            mb(total.bw_bytes_per_s),
            t.map_or("-".into(), |t| format!("{:.0}", t.run.total.iops)),
            t.map_or("-".into(), |t| mb(t.run.total.bw_bytes_per_s)),
            a.cpu_busy_pct.map_or("-".into(), |b| format!("{b:.0}%")),
        );
    }
    let sum_iops: f64 = alone.iter().map(|a| a.target.run.total.iops).sum();
    let sum_bw: f64 = alone
        .iter()
        .map(|a| a.target.run.total.bw_bytes_per_s)
        .sum();
    let together = (!r.targets.is_empty()).then_some(&r.aggregate);
    let _ = writeln!(
        out,
        "  {:<w$} {:>10.0} {:>10} {:>13} {:>13} {:>9}",
        "sum / all",
        sum_iops,
        mb(sum_bw),
        together.map_or("-".into(), |a| format!("{:.0}", a.iops)),
        together.map_or("-".into(), |a| mb(a.bw_bytes_per_s)),
        together
            .and_then(|a| a.cpu_busy_pct)
            .map_or("-".into(), |b| format!("{b:.0}%")),
    );
    out
}

/// The CSV of a run on several targets: a `target` column before a run's columns, every
/// target's seconds in order, then the aggregate's as `all`.
pub fn csv(r: &DisksReport) -> String {
    let mut out = csv_header() + "\n";
    for t in &r.targets {
        for row in &t.run.intervals {
            out.push_str(&csv_row(&t.name, row));
            out.push('\n');
        }
    }
    for row in &r.aggregate.intervals {
        out.push_str(&csv_row("all", row));
        out.push('\n');
    }
    out
}

/// `target,` and a run's CSV header.
pub fn csv_header() -> String {
    format!("target,{}", super::csv::header())
}

/// One CSV row of `target` (quoted as CSV quotes, `csv::field`), no newline.
pub fn csv_row(target: &str, r: &IntervalFigures) -> String {
    format!("{},{}", super::csv::field(target), super::csv::row(r))
}

#[cfg(test)]
#[path = "disks_tests.rs"]
pub(crate) mod tests;
