//! The trim columns of a CSV row (`--trim`), after the hot-spot columns: the asked share
//! (`trim_pct`), the trims done (`trim_ops`, every row), and where the row did more than one
//! kind of I/O the trims' own IOPS, bandwidth (bytes discarded per second) and latency p50
//! and p99 from their own histogram — empty otherwise and in a row without trims, as the read and write columns are (a
//! row of trims alone has them in its `lat_` columns). Last of all `hipri`: 1 where the row's
//! completions were polled (`--hipri`, the TUI's `P`), else 0.

use serde::Serialize;

use super::csv::Fixed;
use crate::stats::IntervalFigures;

#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct TrimColumns {
    trim_pct: u8,
    trim_ops: u64,
    trim_iops: Option<Fixed<1>>,
    trim_bw_bytes_per_s: Option<Fixed<0>>,
    trim_lat_p50_ns: Option<u64>,
    trim_lat_p99_ns: Option<u64>,
    hipri: u8,
}

impl TrimColumns {
    pub(super) fn of(r: &IntervalFigures) -> TrimColumns {
        let apart = r.sides.as_ref().map(|rw| rw.trim).filter(|t| !t.is_none());
        TrimColumns {
            trim_pct: r.settings.trim_pct,
            trim_ops: r.counts.trim_ops,
            trim_iops: apart.map(|t| Fixed(t.iops)),
            trim_bw_bytes_per_s: apart.map(|t| Fixed(t.bw_bytes_per_s)),
            trim_lat_p50_ns: apart.map(|t| t.latency_ns.p50),
            trim_lat_p99_ns: apart.map(|t| t.latency_ns.p99),
            hipri: u8::from(r.settings.hipri),
        }
    }
}
