//! Reads and writes apart as text: a line per direction under the totals of a run (and of
//! each target of several), with its ops, IOPS, bandwidth and p50/p99 from its own
//! histogram — what fio prints as its `read:` and `write:` blocks, fitted to 80 columns —
//! and the same for each of several targets and for all of them together. A
//! run that did one direction only has no such lines (its totals are that direction's).

use super::baseline::{Figures, change};
use crate::model::disks::DisksReport;
use crate::stats::{LatencySummary, ReadWrite, Side};
use crate::units::{format_bytes, format_latency_ns, visible};

/// "  read        8916 ops      4458 IOPS   17.4 MiB/s  p50   182 µs  p99  1.90 ms", then
/// the write line; at most 76 columns.
pub fn summary_lines(rw: &ReadWrite) -> Vec<String> {
    // Each direction that ran (reads and trims alone show no empty write line).
    rw.both()
        .iter()
        .filter(|(_, side)| side.ops > 0)
        .map(|(name, side)| side_line(name, side))
        .collect()
}

/// Several targets' reads and writes apart: each target's two lines under its name, then
/// all targets' (rates added, latencies merged); empty when they did not both read and
/// write.
pub fn disks_text(r: &DisksReport) -> String {
    let named = r
        .targets
        .iter()
        .map(|t| (visible(&t.name).into_owned(), t.run.total.sides.as_ref()))
        .chain([(
            format!("all {}", r.aggregate.targets),
            r.aggregate.sides.as_ref(),
        )]);
    let mut out = String::new();
    for (name, rw) in named {
        let Some(rw) = rw else { continue };
        out.push_str(&format!("{name}, reads and writes apart:\n"));
        for line in summary_lines(rw) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Each direction against a baseline's, a line each after the totals' comparison:
/// "\n  read:  IOPS 9327 vs 9100 (+2%), p99 106 µs vs 98.8 µs (+7%)".
pub fn versus(now: &ReadWrite, then: &[Figures; 2]) -> String {
    let mut out = String::new();
    // A baseline keeps reads and writes apart; trims have nothing to be compared with.
    for ((name, side), before) in now.both().iter().zip(then).take(2) {
        let p99 = side.latency_ns.p99 as f64;
        out.push_str(&format!(
            "\n  {:<6} IOPS {:.0} vs {:.0} ({}), p99 {} vs {} ({})",
            format!("{name}:"),
            side.iops,
            before.iops,
            change(side.iops, before.iops),
            format_latency_ns(p99),
            format_latency_ns(before.p99_ns),
            change(p99, before.p99_ns)
        ));
    }
    out
}

fn side_line(name: &str, s: &Side) -> String {
    format!(
        "  {name:<5} {:>10} ops {:>9.0} IOPS {:>12}  p50 {:>8}  p99 {:>8}",
        s.ops,
        s.iops,
        format!("{}/s", format_bytes(s.bw_bytes_per_s as u64)),
        latency(&s.latency_ns, s.latency_ns.p50),
        latency(&s.latency_ns, s.latency_ns.p99),
    )
}

/// A percentile of `l`, or "-" when it holds no latency.
pub fn latency(l: &LatencySummary, ns: u64) -> String {
    if l.count == 0 {
        "-".into()
    } else {
        format_latency_ns(ns as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Counts, Latency};
    use std::time::Duration;

    #[test]
    fn each_direction_has_its_own_line_within_80_columns() {
        let counts = Counts {
            ops: 12_852_000_000,
            bytes: 1 << 50,
            read_ops: 8_916_000_000,
            read_bytes: 1 << 49,
            write_ops: 3_936_000_000,
            write_bytes: 1 << 49,
            ..Counts::default()
        };
        let (mut r, mut w) = (Latency::default(), Latency::default());
        r.record_n(182_000, 10);
        w.record_n(1_900_000_000, 10);
        let rw = ReadWrite::of(
            &counts,
            Duration::from_secs(1),
            [r.summary(), w.summary(), Default::default()],
        )
        .expect("both ran");
        let lines = summary_lines(&rw);
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with("  read ") && lines[0].contains("8916000000 ops"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("  write") && lines[1].contains("p99   1.90 s"),
            "{lines:?}"
        );
        for l in &lines {
            assert!(
                l.chars().count() <= 80,
                "{} columns: {l}",
                l.chars().count()
            );
        }
    }
}
