//! CSV of the reporting intervals: one header line, one row per interval, plain numbers in
//! base units (seconds, bytes, nanoseconds) so spreadsheets need no unit parsing. `ops`,
//! `bytes` and the latencies count complete I/Os only; the columns after the latencies count
//! what is not in them (stop-spanning I/Os, and stopped time left out of the row). The last
//! columns came with the rate knob: the asked rate (0: unlimited) and the service time's p50
//! and p99 (from submission; the `lat_` columns count from the due time when a rate is set).

use crate::stats::IntervalFigures;
use crate::suite::{Direction, SuiteReport};

pub const HEADER: &str = "t_s,elapsed_s,threads,iodepth,bs,read_pct,random_pct,ops,bytes,iops,bw_bytes_per_s,errors,short_ios,lat_min_ns,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,spanning_stop,syncs,stopped_s,left_out_s,left_out_ops,rate_iops,service_p50_ns,service_p99_ns";

/// One CSV row for an interval (no trailing newline).
pub fn row(r: &IntervalFigures) -> String {
    let l = &r.latency_ns;
    format!(
        "{:.3},{:.3},{},{},{},{},{},{},{},{:.1},{:.0},{},{},{},{:.0},{},{},{},{},{},{},{},{:.3},{:.3},{},{},{},{}",
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
        r.left_out.counts.ops,
        r.settings.rate_iops,
        r.service_latency_ns.p50,
        r.service_latency_ns.p99
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

/// A suite: one row per test and direction; a direction that did not run has empty figures
/// and the reason in `not_run`.
pub const SUITE_HEADER: &str = "suite,test,direction,bs,iodepth,iodepth_run,threads,random,passes,mb_per_s,mb_per_s_min,mb_per_s_max,mb_per_s_best,iops,iops_min,iops_max,iops_best,ops,bytes,errors,short_ios,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_max_ns,not_run";

/// The rows of a suite (no trailing newlines).
pub fn suite_rows(r: &SuiteReport) -> Vec<String> {
    let mut rows = Vec::new();
    for t in &r.tests {
        for d in [Direction::Read, Direction::Write] {
            let head = format!(
                "{},{},{},{},{},{},{},{}",
                r.suite.name(),
                t.name,
                d.name(),
                t.bs,
                t.iodepth,
                t.iodepth_run,
                t.threads,
                t.random
            );
            let row = match t.direction(d) {
                Ok(f) => {
                    let l = &f.latency_ns;
                    format!(
                        "{head},{},{:.2},{:.2},{:.2},{:.2},{:.1},{:.1},{:.1},{:.1},{},{},{},{},{:.0},{},{},{},",
                        f.passes.len(),
                        f.mb_per_s.median,
                        f.mb_per_s.min,
                        f.mb_per_s.max,
                        f.mb_per_s.best,
                        f.iops.median,
                        f.iops.min,
                        f.iops.max,
                        f.iops.best,
                        f.counts.ops,
                        f.counts.bytes,
                        f.counts.errors,
                        f.counts.short_ios,
                        l.mean,
                        l.p50,
                        l.p99,
                        l.max
                    )
                }
                // A reason never holds a comma or a quote, but quote it anyway.
                Err(why) => format!("{head},0,,,,,,,,,,,,,,,,,\"{}\"", why.replace('"', "'")),
            };
            rows.push(row);
        }
    }
    rows
}
