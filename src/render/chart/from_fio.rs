//! Adapters from fio's own JSON (plain, json+, client/server, one document per status
//! interval) to chart descriptions, so diskscope can be the fio user's plotter. Which chart
//! a file gets follows what it holds: a client/server run is a fleet (a bar per host); a
//! local run with status-interval snapshots is a run over time; one result per job is a bar
//! per job (reads and writes side by side), or, for more jobs than bars can be named, the
//! jobs ranked by IOPS. json+ output also carries latency bins, drawn as a distribution by
//! `from_fio_bins`.
//!
//! The figures come from `report::fio_json` (the reader `--show` uses) and
//! `fleet::results` (the same differencing of cumulative snapshots the fleet uses); only
//! what that reader leaves out — the job's options for the title, fio's date, the latency
//! bins — is read here from the JSON itself.

use serde_json::Value;

use super::spec::{
    Bar, BarChart, BarGroup, BarPanel, Chart, Heading, LineChart, Panel, Provenance, Scale, Series,
    XAxis, latency_unit, thousands,
};
use super::style::Tone;
use crate::fio::json::{self as fio_json, FioEntry, FioOutput};
use crate::fleet::hosts::{DEFAULT_PORT, Host};
use crate::fleet::results::{self, HostResult};
use crate::fleet::{FleetConfig, FleetReport};
use crate::units::format_count_rate;

/// More jobs than this get a ranked line instead of a named bar each.
pub const MAX_JOB_BARS: usize = 40;

/// "1 job", "4 jobs".
pub(super) fn jobs(n: usize) -> String {
    if n == 1 {
        "1 job".into()
    } else {
        format!("{} jobs", thousands(n as u64))
    }
}

/// What the file says about the test beyond the figures: fio's date and the options.
pub(super) struct Facts {
    version: String,
    time: Option<String>,
    /// "randread bs=4096 iodepth=32 numjobs=4 psync direct=1 fixture.img", from the options.
    options: String,
    filename: Option<String>,
}

pub(super) fn facts(out: &FioOutput, docs: &[Value]) -> Facts {
    let last = docs.last();
    let jobs = last.and_then(|d| d["jobs"].as_array().or(d["client_stats"].as_array()));
    let job_opts = jobs.and_then(|j| j.first()).map(|j| &j["job options"]);
    let opt = |k: &str| {
        job_opts
            .and_then(|o| o[k].as_str())
            .or_else(|| last.and_then(|d| d["global options"][k].as_str()))
    };
    let options: Vec<String> = [
        ("rw", ""),
        ("bs", "bs="),
        ("iodepth", "iodepth="),
        ("numjobs", "numjobs="),
        ("ioengine", ""),
        ("direct", "direct="),
        ("filename", ""),
    ]
    .iter()
    .filter_map(|(k, prefix)| opt(k).map(|v| format!("{prefix}{v}")))
    .collect();
    Facts {
        version: out.version.clone(),
        time: last.and_then(|d| d["time"].as_str()).map(str::to_string),
        options: options.join(" "),
        filename: opt("filename").map(str::to_string),
    }
}

impl Facts {
    /// The provenance: fio's version and date, and what drew it.
    fn provenance(&self, p: &Provenance) -> Provenance {
        Provenance {
            tool: format!("{}, drawn by {}", self.version, p.tool),
            date: p.date.clone().or(self.time.clone()),
            ..p.clone()
        }
    }

    pub(super) fn subtitle(&self, p: &Provenance) -> String {
        let p = self.provenance(p).describe();
        if self.options.is_empty() {
            p
        } else {
            format!("{} · {p}", self.options)
        }
    }
}

/// The last entry of every job of every host, in first-seen order, fio's "All clients" left
/// out (`FioOutput::finals`).
pub fn finals(out: &FioOutput) -> Vec<&FioEntry> {
    out.finals()
}

/// The hosts of a client/server run, in first-seen order (`FioOutput::hosts` through
/// `finals` above).
fn hosts(out: &FioOutput) -> Vec<Host> {
    let mut seen: Vec<Host> = Vec::new();
    for e in finals(out) {
        if let Some(h) = &e.host
            && !seen
                .iter()
                .any(|s| &s.name == h && Some(s.port) == e.port.or(Some(DEFAULT_PORT)))
        {
            seen.push(Host {
                name: h.clone(),
                port: e.port.unwrap_or(DEFAULT_PORT),
            });
        }
    }
    seen
}

/// The chart fio's output in `text` calls for; an error says what is missing.
pub fn fio_chart(text: &str, p: &Provenance) -> Result<Chart, String> {
    let out = fio_json::parse(text)?;
    let docs: Vec<Value> = fio_json::documents(text)
        .into_iter()
        .filter(fio_json::is_fio)
        .collect();
    let f = facts(&out, &docs);
    if out.client_server {
        let fleet = fleet_of(&out);
        let mut chart = super::from_cards::fleet_chart(&fleet, &f.provenance(p));
        chart.heading.title = format!(
            "fio client/server, {} on {} hosts: IOPS per host",
            f.filename.as_deref().unwrap_or("the job's target"),
            fleet.hosts.len()
        );
        chart.heading.subtitle = f.subtitle(p);
        return Ok(Chart::Bars(chart));
    }
    let finals = finals(&out);
    if finals.is_empty() {
        return Err("fio's JSON holds no job".into());
    }
    if out.entries.len() > finals.len() && finals.len() <= MAX_JOB_BARS {
        return Ok(Chart::Lines(over_time(&out, &finals, &f, p)));
    }
    if finals.len() > MAX_JOB_BARS {
        return Ok(Chart::Lines(ranked(&finals, &f, p)));
    }
    Ok(Chart::Bars(job_bars(&finals, &f, p)))
}

/// A client/server run as a fleet: each host's snapshots differenced into seconds and
/// totals, as `--show` reads it, fio's "All clients" left out.
pub fn fleet_of(out: &FioOutput) -> FleetReport {
    let pct = crate::fleet::DEFAULT_OUTLIER_PCT;
    let hosts = hosts(out);
    let mut rows: Vec<HostResult> = hosts
        .iter()
        .map(|h| {
            let mine: Vec<FioEntry> = out
                .entries
                .iter()
                .filter(|e| !e.is_all_clients() && e.host.as_deref() == Some(h.name.as_str()))
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
    let aggregate = results::aggregate(&mut rows, pct);
    results::sort_hosts(&mut rows);
    FleetReport {
        // fio's output carries fio's provenance, not diskscope's.
        meta: crate::model::Meta::default(),
        fleet: FleetConfig {
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
    }
}

/// A local run with status-interval snapshots: each job's snapshots differenced into
/// intervals, the jobs' k-th intervals added up (ops and bytes summed, the mean latency
/// weighted by ops), drawn over time.
fn over_time(out: &FioOutput, finals: &[&FioEntry], f: &Facts, p: &Provenance) -> LineChart {
    let per_job: Vec<Vec<results::Interval>> = finals
        .iter()
        .map(|fin| {
            let mine: Vec<FioEntry> = out
                .entries
                .iter()
                .filter(|e| e.jobname == fin.jobname && e.host == fin.host)
                .cloned()
                .collect();
            results::intervals(&mine)
        })
        .collect();
    let n = per_job.iter().map(Vec::len).min().unwrap_or(0);
    let sum = |k: usize| {
        let (mut ops, mut iops, mut bw, mut lat) = (0u64, 0.0, 0.0, 0.0);
        for j in &per_job {
            let x = &j[k].figures;
            ops += x.ops;
            iops += x.iops;
            bw += x.bw_bytes_per_s;
            lat += x.lat_mean_ns * x.ops as f64;
        }
        let mean = if ops > 0 { lat / ops as f64 } else { f64::NAN };
        (per_job[0][k].t_s, iops, bw, mean)
    };
    let rows: Vec<(f64, f64, f64, f64)> = (0..n).map(sum).collect();
    let max_ns = rows
        .iter()
        .map(|r| r.3)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let (unit, per) = latency_unit(max_ns);
    let panel = |name: String, pts: Vec<(f64, f64)>, tone| Panel {
        y_label: name.clone(),
        series: vec![Series::line(name, pts, tone).dots_when_few()],
        reference: None,
        log_y: false,
    };
    LineChart {
        heading: Heading {
            title: format!("fio, {}: IOPS, MB/s and mean latency per interval", jobs(finals.len())),
            subtitle: f.subtitle(p),
            finding: None,
            footnotes: vec![
                "each point is the difference of two of fio's cumulative status-interval snapshots, over the runtime between them".into(),
                "fio's percentiles are cumulative over the whole job, so no interval has a p99 of its own: the latency drawn is each interval's mean".into(),
            ],
        },
        x: XAxis {
            label: "fio runtime (s)".into(),
            scale: Scale::Linear,
            ticks: None,
            divide_by: 1.0,
        },
        panels: vec![
            panel("IOPS".into(), rows.iter().map(|r| (r.0, r.1)).collect(), Tone::Primary),
            panel("MB/s (10⁶ bytes/s)".into(), rows.iter().map(|r| (r.0, r.2 / 1e6)).collect(), Tone::Primary),
            panel(format!("mean latency ({unit})"), rows.iter().map(|r| (r.0, r.3 / per)).collect(), Tone::Secondary),
        ],
        spans: Vec::new(),
        marks: Vec::new(),
    }
}

fn caveats(finals: &[&FioEntry]) -> Vec<String> {
    let mut notes: Vec<String> = finals
        .iter()
        .filter(|e| e.error != 0)
        .take(5)
        .map(|e| format!("{} ended with fio error {}", e.jobname, e.error))
        .collect();
    notes.push("each figure is fio's own, over the job's runtime".into());
    notes
}

/// One group per job: reads and writes side by side (a direction no job did is left out),
/// IOPS above, MB/s below.
fn job_bars(finals: &[&FioEntry], f: &Facts, p: &Provenance) -> BarChart {
    let reads = finals.iter().any(|e| e.read.ios > 0);
    let writes = finals.iter().any(|e| e.write.ios > 0);
    let panel = |y_label: &str,
                 of: &dyn Fn(&crate::fio::json::DirStats) -> f64,
                 fmt: &dyn Fn(f64) -> String| BarPanel {
        y_label: y_label.into(),
        groups: finals
            .iter()
            .map(|e| BarGroup {
                label: e.jobname.clone(),
                bars: [
                    (reads, &e.read, Tone::Primary),
                    (writes, &e.write, Tone::Tertiary),
                ]
                .into_iter()
                .filter(|(wanted, _, _)| *wanted)
                .map(|(_, d, tone)| Bar {
                    value: Some(of(d)),
                    spread: None,
                    tone,
                    label: fmt(of(d)),
                })
                .collect(),
            })
            .collect(),
        lines: Vec::new(),
    };
    let mut legend = Vec::new();
    if reads {
        legend.push((Tone::Primary, "read".to_string()));
    }
    if writes {
        legend.push((Tone::Tertiary, "write".to_string()));
    }
    BarChart {
        heading: Heading {
            title: format!("fio, {}: IOPS and MB/s per job", jobs(finals.len())),
            subtitle: f.subtitle(p),
            finding: None,
            footnotes: caveats(finals),
        },
        panels: vec![
            panel("IOPS", &|d| d.iops, &format_count_rate),
            panel(
                "MB/s (10⁶ bytes/s)",
                &|d| d.bw_bytes_per_s / 1e6,
                &super::from_cards::mb_words,
            ),
        ],
        legend,
    }
}

/// Many jobs: their IOPS ranked from the highest, with the median drawn; a line, since
/// thousands of bars cannot be told apart (it is thinned to the pixel columns).
fn ranked(finals: &[&FioEntry], f: &Facts, p: &Provenance) -> LineChart {
    let mut iops: Vec<f64> = finals.iter().map(|e| e.iops()).collect();
    iops.sort_by(|a, b| b.total_cmp(a));
    let median = iops[iops.len() / 2];
    let pts = iops
        .iter()
        .enumerate()
        .map(|(k, v)| ((k + 1) as f64, *v))
        .collect();
    LineChart {
        heading: Heading {
            title: format!(
                "fio, {} jobs ranked by IOPS",
                thousands(finals.len() as u64)
            ),
            subtitle: f.subtitle(p),
            finding: Some(format!(
                "highest {} IOPS, median {}, lowest {}; all jobs together {} IOPS",
                format_count_rate(iops[0]),
                format_count_rate(median),
                format_count_rate(iops[iops.len() - 1]),
                format_count_rate(iops.iter().sum())
            )),
            footnotes: caveats(finals),
        },
        x: XAxis {
            label: "job, ranked from the highest IOPS".into(),
            scale: Scale::Linear,
            ticks: None,
            divide_by: 1.0,
        },
        panels: vec![Panel {
            y_label: "IOPS".into(),
            series: vec![Series::line("IOPS", pts, Tone::Primary)],
            reference: Some((median, format!("median {} IOPS", format_count_rate(median)))),
            log_y: false,
        }],
        spans: Vec::new(),
        marks: Vec::new(),
    }
}
