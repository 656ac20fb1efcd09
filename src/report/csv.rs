//! CSV of the reporting intervals: one header line, one row per interval, plain numbers in
//! base units (seconds, bytes, nanoseconds) so spreadsheets need no unit parsing. `ops`,
//! `bytes` and the latencies count complete I/Os only; the columns after the latencies count
//! what is not in them (stop-spanning I/Os, and stopped time left out of the row).

use crate::stats::IntervalFigures;

pub const HEADER: &str = "t_s,elapsed_s,threads,iodepth,bs,read_pct,random_pct,ops,bytes,iops,bw_bytes_per_s,errors,short_ios,lat_min_ns,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,spanning_stop,syncs,stopped_s,left_out_s,left_out_ops";

/// One CSV row for an interval (no trailing newline).
pub fn row(r: &IntervalFigures) -> String {
    let l = &r.latency_ns;
    format!(
        "{:.3},{:.3},{},{},{},{},{},{},{},{:.1},{:.0},{},{},{},{:.0},{},{},{},{},{},{},{},{:.3},{:.3},{}",
        r.t_s,
        r.elapsed_s,
        r.settings.threads,
        r.settings.iodepth,
        r.settings.bs,
        r.settings.read_pct,
        r.settings.random_pct,
        r.counts.ops,
        r.counts.bytes,
        r.iops,
        r.bw_bytes_per_s,
        r.counts.errors,
        r.counts.short_ios,
        l.min,
        l.mean,
        l.p50,
        l.p90,
        l.p99,
        l.p999,
        l.max,
        r.counts.spanning_stop,
        r.counts.syncs,
        r.left_out.stopped.as_secs_f64(),
        r.left_out.elapsed.as_secs_f64(),
        r.left_out.counts.ops
    )
}

/// Sweep steps: the step number, then the same columns as an interval.
pub fn step_header() -> String {
    format!("step,{HEADER}")
}

/// One CSV row for a sweep step (no trailing newline).
pub fn step_row(index: usize, r: &IntervalFigures) -> String {
    format!("{index},{}", row(r))
}
