//! A saved run, sweep or suite's card (`--json FILE`) as `--show` prints it, from the
//! lenient typed reading of `saved_doc`, so a file from an older version (before a field
//! existed) still shows what it has, with the defaults it ran at.

use std::fmt::Write;

use super::text::describe_settings;
use crate::fio::raw::Lenient;
use crate::results::saved_doc::{
    SavedConfig, SavedLatency, SavedRun, SavedSide, SavedSuite, SavedSweep,
};
use crate::stats::{LatencySummary, ReadWrite, Side};
use crate::units::{format_bytes, format_latency_ns, visible};

fn f(n: Lenient) -> f64 {
    n.f64().unwrap_or(0.0)
}

fn u(n: Lenient) -> u64 {
    n.u64().unwrap_or(0)
}

/// The settings a saved config ran at, with the defaults of the versions before a field.
pub fn settings(c: &SavedConfig) -> crate::settings::Settings {
    crate::settings::Settings {
        threads: c.threads.u64().unwrap_or(1) as usize,
        iodepth: c.iodepth.u64().unwrap_or(1) as usize,
        bs: c.bs.u64().unwrap_or(4096),
        read_pct: c.read_pct.u64().unwrap_or(100).min(100) as u8,
        random_pct: c.random_pct.u64().unwrap_or(100).min(100) as u8,
        // Results from before the rate knob have no field: they ran unlimited.
        rate_iops: c.rate_iops.u64().unwrap_or(0),
        // And from before the distribution knob: uniform.
        random_distribution: c
            .random_distribution
            .0
            .as_deref()
            .and_then(|t| crate::settings::Distribution::parse(t).ok())
            .unwrap_or_default(),
        // And from before trims: none.
        trim_pct: c.trim_pct.u64().unwrap_or(0).min(100) as u8,
        // And from before polling: interrupts (the field is left out when off).
        hipri: c.is_hipri(),
    }
}

fn header(c: &SavedConfig) -> String {
    format!(
        "{}: {}, {}",
        visible(c.target.0.as_deref().unwrap_or("?")),
        if c.is_direct() {
            "O_DIRECT"
        } else {
            "buffered (page cache)"
        },
        describe_settings(&settings(c))
    )
}

fn latency_line(l: &SavedLatency) -> String {
    let f = |n: Lenient| format_latency_ns(f(n));
    format!(
        "latency: min {}  mean {}  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
        f(l.min),
        f(l.mean),
        f(l.p50),
        f(l.p90),
        f(l.p99),
        f(l.p999),
        f(l.max)
    )
}

/// A saved direction as the model's.
fn side(s: &SavedSide) -> Side {
    let l = &s.latency_ns;
    Side {
        ops: u(s.ops),
        bytes: u(s.bytes),
        iops: f(s.iops),
        bw_bytes_per_s: f(s.bw_bytes_per_s),
        latency_ns: LatencySummary {
            count: u(l.count),
            min: u(l.min),
            mean: f(l.mean),
            p50: u(l.p50),
            p90: u(l.p90),
            p99: u(l.p99),
            p999: u(l.p999),
            max: u(l.max),
        },
    }
}

pub fn run(v: &SavedRun) -> String {
    let mut out = format!("{}\n", header(&v.config));
    let t = &v.total;
    let _ = writeln!(
        out,
        "total over {:.1}s: {} ops, {:.0} IOPS, {}/s ({:.1} MB/s), {} transferred",
        f(t.elapsed_s),
        u(t.ops),
        f(t.iops),
        format_bytes(f(t.bw_bytes_per_s) as u64),
        f(t.bw_bytes_per_s) / 1e6,
        format_bytes(u(t.bytes))
    );
    if let (Some(r), Some(w)) = (&t.read, &t.write) {
        let rw = ReadWrite {
            read: side(r),
            write: side(w),
            trim: t.trim.as_deref().map(side).unwrap_or_default(),
        };
        for line in super::sides::summary_lines(&rw) {
            let _ = writeln!(out, "{line}");
        }
    }
    if u(t.latency_ns.count) > 0 {
        let _ = writeln!(out, "{}", latency_line(&t.latency_ns));
    }
    for th in v.threads.iter().take(16) {
        let _ = writeln!(
            out,
            "  thread {:>3}: {:>10} ops in {:>6.1}s, {:>9.0} IOPS, mean {}",
            u(th.id),
            u(th.ops),
            f(th.elapsed_s),
            f(th.iops),
            format_latency_ns(f(th.latency_mean_ns))
        );
    }
    let _ = writeln!(
        out,
        "not counted as ops: {} failed, {} short",
        u(t.errors),
        u(t.short_ios)
    );
    // The errors and the findings the run's own summary printed.
    super::text::error_lines(&mut out, &v.errors);
    if !v.findings.is_empty() {
        out.push_str("findings:\n");
        for f in &v.findings {
            let _ = writeln!(out, "  - {}", f.text);
        }
    }
    out
}

pub fn sweep(v: &SavedSweep) -> String {
    let dim = v.dimension.0.as_deref().unwrap_or("step");
    let mut out = format!("{}\nsweep of {dim}\n", header(&v.config));
    let _ = writeln!(
        out,
        "{:>11} {:>10} {:>10} {:>10} {:>10}",
        dim, "IO/s", "MiB/s", "p50", "p99"
    );
    for s in &v.steps {
        let _ = writeln!(
            out,
            "{:>11} {:>10.0} {:>10.1} {:>10} {:>10}",
            s.value(dim).unwrap_or(0),
            f(s.iops),
            f(s.bw_bytes_per_s) / (1 << 20) as f64,
            format_latency_ns(f(s.latency_ns.p50)),
            format_latency_ns(f(s.latency_ns.p99)),
        );
    }
    if let Some(s) = v.saturation.as_ref().and_then(|s| s.summary.0.as_deref()) {
        let _ = writeln!(out, "{s}");
    }
    out
}

/// A suite's card: a row per test and direction, the medians of its passes with their
/// min–max, and p99 over every I/O of the passes; a direction not run says why.
pub fn suite(v: &SavedSuite) -> String {
    let mut out = format!(
        "{}: suite {}, median of {} passes of {:.1}s{}\n",
        visible(v.config.target.0.as_deref().unwrap_or("?")),
        v.suite.0.as_deref().unwrap_or("?"),
        u(v.passes),
        f(v.pass_time_s),
        if v.config.is_hipri() { ", polled" } else { "" }
    );
    let _ = writeln!(
        out,
        "{:<14} {:<5} {:>9} {:>19} {:>9} {:>10}",
        "test", "", "MB/s", "min–max", "IOPS", "p99"
    );
    for t in &v.tests {
        let name = t.name.0.as_deref().unwrap_or("?");
        for (dir, d, not_run) in [
            ("read", &t.read, &t.read_not_run),
            ("write", &t.write, &t.write_not_run),
        ] {
            let Some(d) = d else {
                let why = not_run.0.as_deref().unwrap_or("not run");
                let _ = writeln!(out, "{name:<14} {dir:<5} {why}");
                continue;
            };
            // A test stopped short says how many passes it has, as the printed card does.
            let (ran, planned) = (d.passes.len() as u64, v.passes.u64());
            let mut short = match planned {
                Some(p) if ran < p => format!("  ({ran} of {p} passes)"),
                _ => String::new(),
            };
            if let Some(n) = d.errors.u64().filter(|&n| n > 0) {
                short.push_str(&format!("  ({n} I/Os failed, not in the figures)"));
            }
            // No completed I/O: no latency to show (not "0 ns").
            let p99 = match d.latency_ns.count.u64() {
                Some(0) => "-".to_string(),
                _ => format_latency_ns(f(d.latency_ns.p99)),
            };
            let _ = writeln!(
                out,
                "{name:<14} {dir:<5} {:>9.1} {:>19} {:>9.0} {:>10}{}",
                f(d.mb_per_s.median),
                format!("{:.1}–{:.1}", f(d.mb_per_s.min), f(d.mb_per_s.max)),
                f(d.iops.median),
                p99,
                short
            );
        }
    }
    for n in &v.notes {
        let _ = writeln!(out, "note: {}", n.0.as_deref().unwrap_or(""));
    }
    out
}
