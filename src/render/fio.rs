//! fio's own results as `--show` prints them: a local run one job a line with its latency
//! (saying which latency fio's percentiles describe); a client/server run is a fleet, shown
//! by `render::fleet` under `client_server_header`.

use std::fmt::Write;

use crate::fio::json::{FioEntry, FioOutput, PercentileBasis};
use crate::units::{format_bytes, format_latency_ns};

/// What fio's percentiles describe, in words.
pub fn basis(e: &FioEntry) -> &'static str {
    match e.basis {
        PercentileBasis::Lat => "total latency (lat)",
        PercentileBasis::Clat => "completion latency (clat: fio kept no lat percentiles)",
    }
}

/// The line above a client/server run's host table.
pub fn client_server_header(out: &FioOutput) -> String {
    format!(
        "{} client/server result, {} hosts; percentiles are {}",
        out.version,
        out.hosts().len(),
        out.finals().first().map_or("-", |e| basis(e))
    )
}

/// A local run: every job's totals and latency.
pub fn jobs(out: &FioOutput) -> String {
    let finals = out.finals();
    let mut text = String::new();
    let _ = writeln!(text, "{} result, {} job(s):", out.version, finals.len());
    for e in finals {
        let secs = e.runtime_ms as f64 / 1e3;
        let _ = writeln!(
            text,
            "{}: total over {secs:.1}s: {} ops, {:.0} IOPS, {}/s{}",
            e.jobname,
            e.ios(),
            e.iops(),
            format_bytes(e.bw_bytes_per_s() as u64),
            if e.error != 0 {
                format!(", fio error {}", e.error)
            } else {
                String::new()
            }
        );
        let _ = writeln!(
            text,
            "  latency: mean {}  p50 {}  p99 {}  (percentiles: {})",
            format_latency_ns(e.lat_mean_ns()),
            e.lat_p50_ns().map_or("-".into(), format_latency_ns),
            e.lat_p99_ns().map_or("-".into(), format_latency_ns),
            basis(e)
        );
    }
    text
}
