//! Adapters from fio's own JSON (plain, json+, client/server, one document per status
//! interval) to chart descriptions, so diskscope can be the fio user's plotter. Which chart
//! a file gets follows what it holds: a client/server run is a fleet (a bar per host); a
//! local run with status-interval snapshots is a run over time; one result per job is a bar
//! per job (reads and writes side by side), or, for more jobs than bars can be named, the
//! jobs ranked by IOPS. json+ output also carries latency bins, drawn as a distribution by
//! `from_fio_bins`.
//!
//! The figures come from `fio::json` (the reader `--show` uses: its snapshots, a job an
//! entry, every job of a snapshot summed) and `fleet::results` (the same differencing of
//! cumulative snapshots, and the same fleet of a client/server run, as `--show`); only what
//! that reader leaves out — fio's date, the latency bins — is read here from the JSON
//! itself.

use serde_json::Value;

use super::spec::{
    Bar, BarChart, BarGroup, BarPanel, Chart, Heading, LineChart, Panel, Provenance, Scale, Series,
    XAxis, latency_unit, thousands,
};
use super::style::Tone;
use crate::fio::json::{self as fio_json, FioEntry, FioOutput};
use crate::fleet::results;
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

/// The chart fio's output in `text` calls for; an error says what is missing.
pub fn fio_chart(text: &str, p: &Provenance) -> Result<Chart, String> {
    let out = fio_json::parse(text)?;
    let docs: Vec<Value> = fio_json::documents(text)
        .into_iter()
        .filter(fio_json::is_fio)
        .collect();
    let f = facts(&out, &docs);
    if out.client_server {
        let fleet = results::from_fio(&out, crate::fleet::DEFAULT_OUTLIER_PCT);
        let mut chart = super::from_cards::fleet_chart(&fleet, &f.provenance(p));
        chart.heading.title = format!(
            "fio client/server, {} on {} hosts: IOPS per host",
            f.filename.as_deref().unwrap_or("the job's target"),
            fleet.hosts.len()
        );
        chart.heading.subtitle = f.subtitle(p);
        return Ok(Chart::Bars(chart));
    }
    let finals = out.final_jobs();
    if finals.is_empty() {
        return Err("fio's JSON holds no job".into());
    }
    if out.snapshots.len() > 1 && finals.len() <= MAX_JOB_BARS {
        return Ok(Chart::Lines(over_time(&out, finals.len(), &f, p)));
    }
    if finals.len() > MAX_JOB_BARS {
        return Ok(Chart::Lines(ranked(&finals, &f, p)));
    }
    Ok(Chart::Bars(job_bars(&finals, &f, p)))
}

/// A local run with status-interval snapshots: each snapshot's jobs summed (as fio's
/// `group_reporting` would: a job is an entry), consecutive sums differenced into intervals
/// (`fleet::results::intervals`, as the fleet does), drawn over time.
fn over_time(out: &FioOutput, jobs: usize, f: &Facts, p: &Provenance) -> LineChart {
    let sums: Vec<FioEntry> = out
        .snapshots_of(None, None)
        .iter()
        .map(|s| s.sum())
        .collect();
    let rows: Vec<(f64, f64, f64, f64)> = results::intervals(&sums)
        .iter()
        .map(|i| {
            let x = &i.figures;
            let mean = if x.ops > 0 { x.lat_mean_ns } else { f64::NAN };
            (i.t_s, x.iops, x.bw_bytes_per_s, mean)
        })
        .collect();
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
            title: format!("fio, {}: IOPS, MB/s and mean latency per interval", self::jobs(jobs)),
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

/// The jobs' names, told apart when several share one (`numjobs` clones): "fixture #2".
fn labels(finals: &[&FioEntry]) -> Vec<String> {
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    let repeated = |name: &str| finals.iter().filter(|e| e.jobname == name).nth(1).is_some();
    finals
        .iter()
        .map(|e| {
            let n = seen.entry(e.jobname.as_str()).or_default();
            *n += 1;
            if repeated(&e.jobname) {
                format!("{} #{n}", e.jobname)
            } else {
                e.jobname.clone()
            }
        })
        .collect()
}

/// One group per job: reads and writes side by side (a direction no job did is left out),
/// IOPS above, MB/s below.
fn job_bars(finals: &[&FioEntry], f: &Facts, p: &Provenance) -> BarChart {
    let reads = finals.iter().any(|e| e.read.ios > 0);
    let writes = finals.iter().any(|e| e.write.ios > 0);
    let names = labels(finals);
    let panel = |y_label: &str,
                 of: &dyn Fn(&crate::fio::json::DirStats) -> f64,
                 fmt: &dyn Fn(f64) -> String| BarPanel {
        y_label: y_label.into(),
        groups: finals
            .iter()
            .zip(&names)
            .map(|(e, name)| BarGroup {
                label: name.clone(),
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
