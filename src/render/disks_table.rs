//! The per-target tables of a run on several targets, defined once on the `table::Table` the
//! fleet's hosts use (with the same outlier note): the final table of each target's totals
//! (`target_table`, from a report or a saved file) and the live one the TUI draws of each
//! target's last second (`live_table`).

use super::super::hosts::BelowMedianPct;
use super::super::table::{Align, Column, Row, Table, Tone};
use crate::model::disks::TargetRun;
use crate::stats::IntervalFigures;
use crate::units::{format_count_rate, format_latency_ns};

const fn col(header: &'static str, align: Align) -> Column {
    Column { header, align }
}

/// The final table's columns: cumulative over each target's run.
pub const COLUMNS: &[Column] = &[
    col("target", Align::Left),
    col("IOPS", Align::Right),
    col("MiB/s", Align::Right),
    col("mean lat", Align::Right),
    col("p99 lat", Align::Right),
    col("ops", Align::Right),
    col("kernel", Align::Right),
    col("link", Align::Left),
    col("model", Align::Left),
];

/// The live table's columns: the last second of each target.
pub const LIVE_COLUMNS: &[Column] = &[
    col("target", Align::Left),
    col("IOPS now", Align::Right),
    col("MB/s", Align::Right),
    col("p99", Align::Right),
    col("%util", Align::Right),
    col("link", Align::Left),
    col("model", Align::Left),
];

/// One target as the live screen shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRow {
    pub name: String,
    pub model: Option<String>,
    pub link: Option<String>,
    /// Its last second: `None` before the first.
    pub now: Option<IntervalFigures>,
    /// The kernel's %util of its device over the same second.
    pub util_pct: Option<f64>,
    /// Set when it is an outlier now: how far below the median, percent.
    pub below_median_pct: Option<f64>,
}

/// The live rows, in the order given.
pub fn live_table(rows: &[LiveRow]) -> Table<BelowMedianPct> {
    Table {
        columns: LIVE_COLUMNS,
        rows: rows.iter().map(live_row).collect(),
    }
}

fn live_row(r: &LiveRow) -> Row<BelowMedianPct> {
    let dash = || "-".to_string();
    let (iops, mb, p99) = match &r.now {
        Some(f) => (
            format_count_rate(f.iops),
            format!("{:.1}", f.bw_bytes_per_s / 1e6),
            format_latency_ns(f.latency_ns.p99 as f64),
        ),
        None => (dash(), dash(), dash()),
    };
    Row {
        cells: vec![
            r.name.clone(),
            iops,
            mb,
            p99,
            r.util_pct.map_or_else(dash, |u| format!("{u:.0}")),
            r.link.clone().unwrap_or_else(dash),
            r.model.clone().unwrap_or_default(),
        ],
        message: None,
        note: r.below_median_pct.map(BelowMedianPct),
        tone: if r.below_median_pct.is_some() {
            Tone::Warn
        } else {
            Tone::Plain
        },
    }
}

/// What a final row shows of a target: from a report (`of`) or a saved file
/// (`disks_saved`), so both print the one table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub name: String,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub mean_ns: f64,
    pub p99_ns: f64,
    pub ops: u64,
    /// The kernel's count of a device target; a file's device in brackets (that count is
    /// not the file's alone); `-` when unknown.
    pub kernel: String,
    pub link: Option<String>,
    pub model: Option<String>,
    pub below_median_pct: Option<f64>,
}

impl Totals {
    pub fn of(t: &TargetRun) -> Totals {
        let total = &t.run.total;
        Totals {
            name: t.name.clone(),
            iops: total.iops,
            bw_bytes_per_s: total.bw_bytes_per_s,
            mean_ns: total.latency_ns.mean,
            p99_ns: total.latency_ns.p99 as f64,
            ops: total.counts.ops,
            kernel: kernel_cell(&t.name, t.device.as_deref(), t.kernel.map(|k| k.ios())),
            link: t.link.clone(),
            model: t.model.clone(),
            below_median_pct: t.below_median_pct,
        }
    }
}

/// The kernel column's cell (see `Totals::kernel`).
pub fn kernel_cell(name: &str, device: Option<&str>, ios: Option<u64>) -> String {
    match (device, ios) {
        (Some(d), Some(k)) if d == name => k.to_string(),
        (Some(d), _) => format!("({d})"),
        (None, _) => "-".into(),
    }
}

/// One row per target, in the order given: its totals, the kernel's count of it (completed
/// and merged), its link and model; an outlier flagged with how far below.
pub fn target_table(targets: &[Totals]) -> Table<BelowMedianPct> {
    Table {
        columns: COLUMNS,
        rows: targets.iter().map(target_row).collect(),
    }
}

fn target_row(t: &Totals) -> Row<BelowMedianPct> {
    Row {
        cells: vec![
            t.name.clone(),
            format!("{:.0}", t.iops),
            format!("{:.1}", t.bw_bytes_per_s / (1 << 20) as f64),
            format_latency_ns(t.mean_ns),
            format_latency_ns(t.p99_ns),
            t.ops.to_string(),
            t.kernel.clone(),
            t.link.clone().unwrap_or_else(|| "-".into()),
            t.model.clone().unwrap_or_default(),
        ],
        message: (t.ops == 0).then(|| "did no I/O".to_string()),
        note: t.below_median_pct.map(BelowMedianPct),
        tone: if t.below_median_pct.is_some() {
            Tone::Warn
        } else {
            Tone::Plain
        },
    }
}
