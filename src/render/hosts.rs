//! The fleet's host table, defined once for the text summary and the TUI's fleet screen:
//! finished hosts by IOPS with their IOPS, MiB/s, mean and p99 latency and ops (cumulative
//! over each host's run), an outlier flagged with how far below the median it is, a host
//! that did nothing or failed said in words — and the outliers line under it.

use super::table::{Align, Column, Row, Table, Tone};
use crate::model::fleet::{FleetReport, HostResult, HostState};
use crate::units::format_latency_ns;

/// The columns, in order; a form may show the first few.
pub const COLUMNS: &[Column] = &[
    Column {
        header: "host",
        align: Align::Left,
    },
    Column {
        header: "IOPS",
        align: Align::Right,
    },
    Column {
        header: "MiB/s",
        align: Align::Right,
    },
    Column {
        header: "mean lat",
        align: Align::Right,
    },
    Column {
        header: "p99 lat",
        align: Align::Right,
    },
    Column {
        header: "ops",
        align: Align::Right,
    },
];

/// What a host's row is flagged with: it is an outlier, this many percent below the median.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BelowMedianPct(pub f64);

/// One row per host, in the report's order (finished by IOPS, then the failed).
pub fn host_table(r: &FleetReport) -> Table<BelowMedianPct> {
    Table {
        columns: COLUMNS,
        rows: r
            .hosts
            .iter()
            .map(|h| host_row(h, r.aggregate.median_iops))
            .collect(),
    }
}

fn host_row(h: &HostResult, median_iops: f64) -> Row<BelowMedianPct> {
    let label = h.label();
    let message = |m: String, tone| Row {
        cells: vec![label.clone()],
        message: Some(m),
        note: None,
        tone,
    };
    match (h.state, h.total) {
        (HostState::Done, Some(t)) => Row {
            cells: vec![
                label.clone(),
                format!("{:.0}", t.iops),
                format!("{:.1}", t.bw_bytes_per_s / (1 << 20) as f64),
                format_latency_ns(t.lat_mean_ns),
                t.lat_p99_ns.map_or("-".into(), format_latency_ns),
                t.ops.to_string(),
            ],
            message: None,
            note: h
                .outlier
                .then(|| BelowMedianPct((1.0 - t.iops / median_iops) * 100.0)),
            tone: if h.outlier { Tone::Warn } else { Tone::Plain },
        },
        (HostState::Done, None) => message("did no I/O".into(), Tone::Plain),
        (HostState::Failed, _) => message(
            format!("failed: {}", h.reason.as_deref().unwrap_or("failed")),
            Tone::Error,
        ),
    }
}

/// "outliers (more than 20% below the median 9951 IOPS): none" — `more_than` is how the form
/// says "more than" ("over" where room is short).
pub fn outliers_line(r: &FleetReport, more_than: &str) -> String {
    format!(
        "outliers ({more_than} {:.0}% below the median {:.0} IOPS): {}",
        r.fleet.outlier_pct,
        r.aggregate.median_iops,
        if r.outliers.is_empty() {
            "none".to_string()
        } else {
            r.outliers.join(", ")
        }
    )
}
