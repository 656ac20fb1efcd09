//! A saved run, sweep or suite's card (`--json FILE`) as `--show` prints it. These read the
//! JSON field by field rather than as the model's types, so a file from an older version
//! (before a field existed) still shows what it has, with the defaults it ran at.

use std::fmt::Write;

use serde_json::Value;

use super::text::describe_settings;
use crate::units::{format_bytes, format_latency_ns};

fn header(c: &Value) -> String {
    let s = crate::settings::Settings {
        threads: c["threads"].as_u64().unwrap_or(1) as usize,
        iodepth: c["iodepth"].as_u64().unwrap_or(1) as usize,
        bs: c["bs"].as_u64().unwrap_or(4096),
        read_pct: c["read_pct"].as_u64().unwrap_or(100) as u8,
        random_pct: c["random_pct"].as_u64().unwrap_or(100) as u8,
        // Results from before the rate knob have no field: they ran unlimited.
        rate_iops: c["rate_iops"].as_u64().unwrap_or(0),
    };
    format!(
        "{}: {}, {}",
        c["target"].as_str().unwrap_or("?"),
        if c["direct"].as_bool().unwrap_or(true) {
            "O_DIRECT"
        } else {
            "buffered (page cache)"
        },
        describe_settings(&s)
    )
}

fn latency_line(l: &Value) -> String {
    let f = |k: &str| format_latency_ns(l[k].as_f64().unwrap_or(0.0));
    format!(
        "latency: min {}  mean {}  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
        f("min"),
        f("mean"),
        f("p50"),
        f("p90"),
        f("p99"),
        f("p999"),
        f("max")
    )
}

pub fn run(v: &Value) -> String {
    let mut out = format!("{}\n", header(&v["config"]));
    let t = &v["total"];
    let g = |k: &str| t[k].as_f64().unwrap_or(0.0);
    let _ = writeln!(
        out,
        "total over {:.1}s: {} ops, {:.0} IOPS, {}/s ({:.1} MB/s), {} transferred",
        g("elapsed_s"),
        t["ops"].as_u64().unwrap_or(0),
        g("iops"),
        format_bytes(g("bw_bytes_per_s") as u64),
        g("bw_bytes_per_s") / 1e6,
        format_bytes(t["bytes"].as_u64().unwrap_or(0))
    );
    if t["latency_ns"]["count"].as_u64().unwrap_or(0) > 0 {
        let _ = writeln!(out, "{}", latency_line(&t["latency_ns"]));
    }
    for th in v["threads"].as_array().into_iter().flatten().take(16) {
        let _ = writeln!(
            out,
            "  thread {:>3}: {:>10} ops in {:>6.1}s, {:>9.0} IOPS, mean {}",
            th["id"].as_u64().unwrap_or(0),
            th["ops"].as_u64().unwrap_or(0),
            th["elapsed_s"].as_f64().unwrap_or(0.0),
            th["iops"].as_f64().unwrap_or(0.0),
            format_latency_ns(th["latency_mean_ns"].as_f64().unwrap_or(0.0))
        );
    }
    let _ = writeln!(
        out,
        "not counted as ops: {} failed, {} short",
        t["errors"].as_u64().unwrap_or(0),
        t["short_ios"].as_u64().unwrap_or(0)
    );
    out
}

pub fn sweep(v: &Value) -> String {
    let dim = v["dimension"].as_str().unwrap_or("step");
    let mut out = format!("{}\nsweep of {dim}\n", header(&v["config"]));
    let _ = writeln!(
        out,
        "{:>11} {:>10} {:>10} {:>10} {:>10}",
        dim, "IO/s", "MiB/s", "p50", "p99"
    );
    for s in v["steps"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "{:>11} {:>10.0} {:>10.1} {:>10} {:>10}",
            s[dim].as_u64().unwrap_or(0),
            s["iops"].as_f64().unwrap_or(0.0),
            s["bw_bytes_per_s"].as_f64().unwrap_or(0.0) / (1 << 20) as f64,
            format_latency_ns(s["latency_ns"]["p50"].as_f64().unwrap_or(0.0)),
            format_latency_ns(s["latency_ns"]["p99"].as_f64().unwrap_or(0.0)),
        );
    }
    if let Some(s) = v["saturation"]["summary"].as_str() {
        let _ = writeln!(out, "{s}");
    }
    out
}

/// A suite's card: a row per test and direction, the medians of its passes with their
/// min–max, and p99 over every I/O of the passes; a direction not run says why.
pub fn suite(v: &Value) -> String {
    let mut out = format!(
        "{}: suite {}, median of {} passes of {:.1}s\n",
        v["config"]["target"].as_str().unwrap_or("?"),
        v["suite"].as_str().unwrap_or("?"),
        v["passes"].as_u64().unwrap_or(0),
        v["pass_time_s"].as_f64().unwrap_or(0.0)
    );
    let _ = writeln!(
        out,
        "{:<14} {:<5} {:>9} {:>19} {:>9} {:>10}",
        "test", "", "MB/s", "min–max", "IOPS", "p99"
    );
    for t in v["tests"].as_array().into_iter().flatten() {
        let name = t["name"].as_str().unwrap_or("?");
        for (dir, d) in [("read", &t["read"]), ("write", &t["write"])] {
            if d.is_null() {
                let why = t[format!("{dir}_not_run")].as_str().unwrap_or("not run");
                let _ = writeln!(out, "{name:<14} {dir:<5} {why}");
                continue;
            }
            let mb = |k: &str| d["mb_per_s"][k].as_f64().unwrap_or(0.0);
            // A test stopped short says how many passes it has, as the printed card does.
            let (ran, planned) = (
                d["passes"].as_array().map_or(0, Vec::len),
                v["passes"].as_u64(),
            );
            let short = match planned {
                Some(p) if (ran as u64) < p => format!("  ({ran} of {p} passes)"),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "{name:<14} {dir:<5} {:>9.1} {:>19} {:>9.0} {:>10}{short}",
                mb("median"),
                format!("{:.1}–{:.1}", mb("min"), mb("max")),
                d["iops"]["median"].as_f64().unwrap_or(0.0),
                format_latency_ns(d["latency_ns"]["p99"].as_f64().unwrap_or(0.0))
            );
        }
    }
    for n in v["notes"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "note: {}", n.as_str().unwrap_or(""));
    }
    out
}
