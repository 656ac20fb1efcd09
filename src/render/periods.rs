//! A run's periods as text: a row each — the settings in admin words ("4k random read QD1
//! T4"), where it started, its measured time, IOPS, MB/s, p50 and p99 — which the summary
//! prints before the whole-run totals when the settings changed during the run
//! (`story_lines`; one period reads as it always has). `period_words` is also what a
//! chart's shaded periods and the baseline's period rows are called.

use std::fmt::Write;

use super::text::describe_settings;
use crate::model::RunReport;
use crate::settings::Settings;
use crate::stats::{Began, Period};
use crate::units::{format_block_size, format_count_rate, format_latency_ns};

/// "4k random read QD1 T4", "64k sequential 70% read QD8 T2 at 5000 IOPS", "… QD1 T1
/// polled": a period's settings as admins quote them, depth and threads always written.
pub fn period_words(s: &Settings) -> String {
    let skew = match s.random_distribution {
        d if d.is_skewed() => format!(" {}", d.label()),
        _ => String::new(),
    };
    let pattern = match s.random_pct {
        100 => format!("random{skew}"),
        0 => "sequential".to_string(),
        p => format!("{p}% random{skew}"),
    };
    let mix = super::text::mix_words(s, false);
    let rate = match s.rate_iops {
        0 => String::new(),
        r => format!(" at {} IOPS", format_count_rate(r as f64)),
    };
    let polled = if s.hipri { " polled" } else { "" };
    format!(
        "{} {pattern} {mix} QD{} T{}{polled}{rate}",
        format_block_size(s.bs),
        s.iodepth,
        s.threads
    )
}

/// Running time a period needs for its rates to be printed: half a row, as a row's sliver
/// joins the row before (`tui::state::rows`). Settings passed through while keys were pressed
/// (nine periods of 0.0 s, one at 65,412 IOPS) keep their counts, in the totals and the JSON,
/// but a rate over a few milliseconds says nothing.
pub const RATE_MIN_S: f64 = 0.5;

/// Whether `p` ran long enough (`RATE_MIN_S`) for its rates to mean anything.
pub fn has_rate(p: &Period) -> bool {
    p.elapsed_s >= RATE_MIN_S
}

/// What a period's row calls it: its settings, ", resumed" after a pause (a resume with
/// the same settings is a period of its own), or for merged periods how many.
pub fn period_name(p: &Period) -> String {
    let name = match (p.settings, p.merged) {
        (Some(s), 1) => period_words(&s),
        (Some(s), n) => format!("{} ({n} periods)", period_words(&s)),
        (None, n) => format!("{n} periods merged, settings differed"),
    };
    match p.began {
        Began::Resume => format!("{name}, resumed"),
        _ => name,
    }
}

/// The table of the run's periods, or `None` when the run had one (then the totals are the
/// period's, and the summary reads as it always has). A row fits `width` columns: when the
/// longest settings would not, each period's settings go on a line of their own above its
/// figures.
pub fn period_table(r: &RunReport, width: usize) -> Option<String> {
    let list = &r.periods.list;
    if list.len() < 2 {
        return None;
    }
    let names: Vec<String> = list.iter().map(period_name).collect();
    let wide = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    // The indent, the number and its gap (6 columns), the settings, then the figures.
    let apart = 6 + wide + FIGURES_WIDTH > width;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "periods (one per setting, pause or reset; rates over each one's own time):"
    );
    let head = figures("from", "for", "IOPS", "MB/s", "p50", "p99");
    if apart {
        let _ = writeln!(out, "  {:>2}  settings", "#");
        let _ = writeln!(out, "    {head}");
    } else {
        let _ = writeln!(out, "  {:>2}  {:<wide$}{head}", "#", "settings");
    }
    for (i, (p, name)) in list.iter().zip(&names).enumerate() {
        let lat = |ns: u64| {
            if p.latency_ns.count > 0 && has_rate(p) {
                format_latency_ns(ns as f64)
            } else {
                "-".into()
            }
        };
        let rate = |v: f64, digits: usize| match has_rate(p) {
            true => format!("{v:.digits$}"),
            false => "-".into(),
        };
        let row = figures(
            &format!("{:.1}s", p.start_s),
            &format!("{:.1}s", p.elapsed_s),
            &rate(p.iops, 0),
            &rate(p.bw_bytes_per_s / 1e6, 1),
            &lat(p.latency_ns.p50),
            &lat(p.latency_ns.p99),
        );
        if apart {
            let _ = writeln!(out, "  {:>2}  {name}", i + 1);
            let _ = writeln!(out, "    {row}");
        } else {
            let _ = writeln!(out, "  {:>2}  {name:<wide$}{row}", i + 1);
        }
        side_rows(&mut out, p, wide, apart);
    }
    footnotes(&mut out, r);
    Some(out)
}

/// Under the rows: how many periods were too short for a rate, which had I/Os fail, and how
/// many the oldest row merges.
fn footnotes(out: &mut String, r: &RunReport) {
    let list = &r.periods.list;
    let short = list.iter().filter(|p| !has_rate(p)).count();
    if short > 0 {
        let _ = writeln!(
            out,
            "  ({short} of them ran under {}s, settings passed through while keys were pressed: too short for a rate; their I/Os count in the totals)",
            RATE_MIN_S
        );
    }
    let failed: Vec<String> = list
        .iter()
        .enumerate()
        .filter(|(_, p)| p.counts.errors > 0)
        .map(|(i, p)| format!("{} in {}", p.counts.errors, i + 1))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "  (I/Os failed, not in the rates: {}; the errors are under the totals)",
            failed.join(", ")
        );
    }
    let merged = r.periods.merged_away();
    if merged > 0 {
        let _ = writeln!(
            out,
            "  (the run had more than {} periods: the oldest {} are merged into row 1, their figures from their merged counts and histograms)",
            crate::stats::periods::MAX_PERIODS,
            list[0].merged
        );
    }
}

/// Under a period that both read and wrote, a row per direction in the same columns, the
/// direction named where the period's start is.
fn side_rows(out: &mut String, p: &Period, wide: usize, apart: bool) {
    for (name, side) in p.sides.iter().flat_map(|rw| rw.both()) {
        let lat = |ns| super::sides::latency(&side.latency_ns, ns);
        let row = figures(
            name,
            "",
            &format!("{:.0}", side.iops),
            &format!("{:.1}", side.bw_bytes_per_s / 1e6),
            &lat(side.latency_ns.p50),
            &lat(side.latency_ns.p99),
        );
        if apart {
            let _ = writeln!(out, "    {row}");
        } else {
            let _ = writeln!(out, "  {:>2}  {:<wide$}{row}", "", "");
        }
    }
}

/// Columns the figures of a period's row take after its settings.
const FIGURES_WIDTH: usize = 52;

/// A row's figures, each right-aligned in its column (`FIGURES_WIDTH` wide).
fn figures(from: &str, dur: &str, iops: &str, mb: &str, p50: &str, p99: &str) -> String {
    format!(" {from:>7} {dur:>7} {iops:>7} {mb:>7} {p50:>9} {p99:>9}")
}

/// "each target (cumulative over its run):", or after a reset the line that says when, and
/// "… since the reset": every figure below, the kernel's count included, covers that time.
/// Ends with a newline.
pub fn totals_title(what: &str, reset_at_s: Option<f64>) -> String {
    match reset_at_s {
        None => format!("{what} (cumulative over its run):\n"),
        Some(t) => format!(
            "statistics reset at {t:.1}s: everything below covers the run since then\n{what} \
             (cumulative since the reset):\n"
        ),
    }
}

/// "statistics reset at 12.3s: …" when they were.
pub fn reset_line(r: &RunReport) -> Option<String> {
    r.periods
        .reset_at_s
        .map(|t| format!("statistics reset at {t:.1}s: everything below covers the run since then"))
}

/// The run setting by setting before its totals: the reset, the periods' table and the
/// totals' label ("all periods together"); with one period, the settings at the end when a
/// reset left them different from the start.
pub fn story_lines(out: &mut String, r: &RunReport, width: usize) {
    if let Some(line) = reset_line(r) {
        let _ = writeln!(out, "{line}");
    }
    match period_table(r, width) {
        Some(table) => {
            out.push_str(&table);
            let _ = writeln!(out, "all periods together:");
        }
        None if r.final_settings != r.config.settings => {
            let _ = writeln!(
                out,
                "settings at the end: {}",
                describe_settings(&r.final_settings)
            );
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Counts, LatencySummary, LeftOut, Periods};

    fn period(threads: usize, start_s: f64, ops: u64, p99: u64) -> Period {
        let s = Settings {
            threads,
            ..Settings::default()
        };
        Period {
            sides: None,
            began: Began::Change,
            settings: Some(s),
            merged: 1,
            start_s,
            end_s: start_s + 10.0,
            elapsed_s: 10.0,
            counts: Counts {
                ops,
                bytes: ops * 4096,
                ..Counts::default()
            },
            iops: ops as f64 / 10.0,
            bw_bytes_per_s: ops as f64 * 4096.0 / 10.0,
            latency_ns: LatencySummary {
                count: ops,
                p50: p99 / 2,
                p99,
                ..LatencySummary::default()
            },
            service_latency_ns: LatencySummary::default(),
            left_out: LeftOut::default(),
        }
    }

    #[test]
    fn settings_read_as_admins_quote_them() {
        let s = Settings {
            threads: 4,
            ..Settings::default()
        };
        assert_eq!(period_words(&s), "4k random read QD1 T4");
        let polled = Settings { hipri: true, ..s };
        assert_eq!(period_words(&polled), "4k random read QD1 T4 polled");
        let mixed = Settings {
            bs: 65536,
            iodepth: 8,
            read_pct: 70,
            random_pct: 0,
            rate_iops: 5000,
            random_distribution: Default::default(),
            trim_pct: 0,
            hipri: false,
            threads: 2,
        };
        assert_eq!(
            period_words(&mixed),
            "64k sequential 70% read QD8 T2 at 5000 IOPS"
        );
    }

    /// Settings passed through while a key was held: their periods keep their counts but
    /// show no rate, where 0.004 s made 65,412 IOPS.
    #[test]
    fn a_period_of_milliseconds_shows_no_rate() {
        let mut r = RunReport::example();
        let mut blip = period(67, 10.0, 262, 90_000);
        blip.elapsed_s = 0.004;
        blip.iops = 65_412.0;
        r.periods.list = vec![period(64, 0.0, 98_700, 210_000), blip];
        let table = period_table(&r, 80).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[3].split_whitespace().collect::<Vec<_>>(),
            [
                "2", "4k", "random", "read", "QD1", "T67", "10.0s", "0.0s", "-", "-", "-", "-"
            ],
            "{table}"
        );
        assert!(!table.contains("65412"), "{table}");
        assert!(table.contains("1 of them ran under 0.5s"), "{table}");
    }

    #[test]
    fn a_row_per_period_and_none_for_one() {
        let mut r = RunReport::example();
        r.periods = Periods {
            list: vec![period(1, 0.0, 98_700, 210_000)],
            ..Periods::default()
        };
        assert_eq!(period_table(&r, 80), None);
        r.periods.list.push(period(4, 10.0, 361_000, 480_000));
        let table = period_table(&r, 80).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert_eq!(
            lines[2],
            "   1  4k random read QD1 T1    0.0s   10.0s    9870    40.4    105 µs    210 µs"
        );
        assert_eq!(
            lines[3],
            "   2  4k random read QD1 T4   10.0s   10.0s   36100   147.9    240 µs    480 µs"
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{table}");
        // A period whose I/Os failed says how many under the rows (its rate counts none).
        r.periods.list[1].counts.errors = 1_676_550;
        let table = period_table(&r, 80).unwrap();
        assert!(
            table.contains("(I/Os failed, not in the rates: 1676550 in 2;"),
            "{table}"
        );
        r.periods.list[1].counts.errors = 0;
        r.periods.list[1].began = Began::Resume;
        assert!(
            period_table(&r, 80)
                .unwrap()
                .contains("4k random read QD1 T4, resumed")
        );
        r.periods.list[0].merged = 7;
        r.periods.list[0].settings = None;
        let table = period_table(&r, 80).unwrap();
        assert!(
            table.contains("7 periods merged, settings differed"),
            "{table}"
        );
        assert!(
            table.contains("the oldest 7 are merged into row 1"),
            "{table}"
        );
    }

    #[test]
    fn a_period_that_read_and_wrote_has_a_row_per_direction() {
        let mut r = RunReport::example();
        let mut mixed = period(4, 10.0, 1000, 480_000);
        let side = |ops: u64, p99: u64| crate::stats::Side {
            ops,
            bytes: ops * 4096,
            iops: ops as f64 / 10.0,
            bw_bytes_per_s: ops as f64 * 4096.0 / 10.0,
            latency_ns: LatencySummary {
                count: ops,
                p50: p99 / 2,
                p99,
                ..LatencySummary::default()
            },
        };
        mixed.sides = Some(crate::stats::ReadWrite {
            read: side(700, 300_000),
            write: side(300, 900_000),
            trim: Default::default(),
        });
        r.periods.list = vec![period(1, 0.0, 98_700, 210_000), mixed];
        let table = period_table(&r, 80).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 6, "{table}");
        let words = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words(lines[4]), "read 70 0.3 150 µs 300 µs", "{table}");
        assert_eq!(words(lines[5]), "write 30 0.1 450 µs 900 µs", "{table}");
        // The direction sits in the column of the period's start, its figures under theirs.
        let col = |l: &str, w: &str| {
            l.find(w)
                .map(|i| l[..i].chars().count() + w.chars().count())
        };
        assert_eq!(col(lines[4], "70"), col(lines[1], "IOPS"), "{table}");
    }

    /// Settings too long to sit beside the figures in 80 columns go on a line of their own.
    #[test]
    fn long_settings_go_above_their_figures() {
        let mut r = RunReport::example();
        let mut paced = period(2, 10.0, 5000, 480_000);
        paced.settings = Some(Settings {
            bs: 65536,
            iodepth: 8,
            read_pct: 70,
            random_pct: 0,
            rate_iops: 5000,
            random_distribution: Default::default(),
            trim_pct: 0,
            hipri: false,
            threads: 2,
        });
        r.periods = Periods {
            list: vec![period(1, 0.0, 98_700, 210_000), paced],
            ..Periods::default()
        };
        let table = period_table(&r, 80).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{table}");
        assert_eq!(
            lines[5], "   2  64k sequential 70% read QD8 T2 at 5000 IOPS",
            "{table}"
        );
        assert!(lines[6].trim_start().starts_with("10.0s"), "{table}");
        assert!(lines[2].trim_start().starts_with("from"), "{table}");
        // A wider terminal keeps a row a period.
        let wide = period_table(&r, 120).unwrap();
        assert_eq!(wide.lines().count(), 4, "{wide}");
    }
}
