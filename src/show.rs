//! `--show FILE`: any saved result printed in diskscope's summary form — a run, sweep or
//! suite's card (`--json FILE`), a fleet, or fio's own JSON output, local or client/server (per host,
//! with the hosts' seconds differenced from fio's snapshots when it has them). Reading only:
//! nothing runs. A run or sweep is read field by field from the JSON, so files from older
//! versions still show what they have.

use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::fio::json::{self as fio_json, FioEntry, FioOutput, PercentileBasis};
use crate::fleet::FleetReport;
use crate::fleet::hosts::Host;
use crate::fleet::results;
use crate::result_file;
use crate::units::{format_bytes, format_latency_ns};

/// The text `--show` prints for `path`.
pub fn show(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let text = result_file::read_bounded("--show", path)?;
    let (docs, cut) = fio_json::scan(&text);
    if docs.iter().any(fio_json::is_fio) {
        let out = fio_json::parse(&text).map_err(|e| format!("--show {shown}: {e}"))?;
        return Ok(show_fio(&out));
    }
    let Some(v) = docs.into_iter().next() else {
        if cut {
            return Err(format!("--show {shown}: {}", fio_json::CUT_SHORT));
        }
        return Err(format!(
            "--show {shown}: holds no JSON result; give a file saved with --json FILE, or fio's --output-format=json output"
        ));
    };
    if v["fleet"].is_object() && v["hosts"].is_array() {
        let r: FleetReport = serde_json::from_value(v)
            .map_err(|e| format!("--show {shown}: a fleet result diskscope cannot read ({e})"))?;
        return Ok(format!(
            "{}\n{}",
            crate::render::fleet::header(&r.fleet),
            crate::render::fleet::summary(&r)
        ));
    }
    if v["config"]["target"].is_string() && v["suite"].is_string() && v["tests"].is_array() {
        return Ok(show_suite(&v));
    }
    if v["config"]["target"].is_string() && v["steps"].is_array() {
        return Ok(show_sweep(&v));
    }
    if v["config"]["target"].is_string() && v["total"].is_object() {
        return Ok(show_run(&v));
    }
    Err(format!(
        "--show {shown}: not a diskscope or fio result (no total, steps, hosts or fio jobs in it)"
    ))
}

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
        crate::render::text::describe_settings(&s)
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

fn show_run(v: &Value) -> String {
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

fn show_sweep(v: &Value) -> String {
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
fn show_suite(v: &Value) -> String {
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
            let _ = writeln!(
                out,
                "{name:<14} {dir:<5} {:>9.1} {:>19} {:>9.0} {:>10}",
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

/// fio's output: per host as a fleet when it has hosts, else one line per job.
fn show_fio(out: &FioOutput) -> String {
    let basis = |e: &FioEntry| match e.basis {
        PercentileBasis::Lat => "total latency (lat)",
        PercentileBasis::Clat => "completion latency (clat: fio kept no lat percentiles)",
    };
    let finals = out.finals();
    let mut text = String::new();
    if out.client_server {
        let hosts: Vec<Host> = out
            .hosts()
            .into_iter()
            .map(|(name, port)| Host {
                name,
                port: port.unwrap_or(crate::fleet::hosts::DEFAULT_PORT),
            })
            .collect();
        let mut rows: Vec<results::HostResult> = hosts
            .iter()
            .map(|h| {
                let mine: Vec<FioEntry> = out
                    .entries
                    .iter()
                    .filter(|e| !e.is_all_clients() && e.host.as_deref() == Some(&h.name))
                    .cloned()
                    .collect();
                let failure = mine
                    .iter()
                    .rev()
                    .find(|e| e.error != 0)
                    .map(|e| format!("fio error {}", e.error));
                results::host_result(h, &mine, failure)
            })
            .collect();
        let pct = crate::fleet::DEFAULT_OUTLIER_PCT;
        let aggregate = results::aggregate(&mut rows, pct);
        results::sort_hosts(&mut rows);
        let _ = writeln!(
            text,
            "{} client/server result, {} hosts; percentiles are {}",
            out.version,
            hosts.len(),
            finals.first().map_or("-", |e| basis(e))
        );
        let report = FleetReport {
            fleet: crate::fleet::FleetConfig {
                target: String::new(),
                hosts,
                settings: Default::default(),
                ioengine: Default::default(),
                direct: true,
                duration_s: 0.0,
                write_allowed: false,
                outlier_pct: pct,
                fio_version: Some(out.version.clone()),
                latency_basis: String::new(),
            },
            intervals: results::fleet_intervals(&rows),
            outliers: rows
                .iter()
                .filter(|h| h.outlier)
                .map(|h| h.host.clone())
                .collect(),
            hosts: rows,
            aggregate,
            job_file: String::new(),
            interrupted_by: None,
        };
        text.push_str(&crate::render::fleet::summary(&report));
        return text;
    }
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
