//! A saved result to compare against: "before" figures for an "after" run — a new firmware,
//! scheduler or RAID layout. It may be a diskscope `--json` file (a run, a sweep, a suite's
//! card or a fleet) or fio's own JSON output (`--output-format=json` or `json+`): a local fio
//! run reads as a run, a client/server one as a fleet of its hosts. Only the figures needed
//! for the comparison are read, so files from older versions still load. The comparisons
//! themselves are `compare`'s. `BaselineFile` adds what the file says beside the figures:
//! what made it (`meta`) and, for a run, its periods, so a run can be compared period by
//! period and `--baseline` can say when the two come from different versions or hosts.

use std::path::Path;

use anyhow::{Result, bail};
use serde_json::Value;

use crate::fio::json::{self as fio_json, FioEntry};
use crate::fleet::hosts::{DEFAULT_PORT, Host};
use crate::model::Meta;
use crate::result_file;
use crate::settings::Settings;
use crate::suite::DirectionResult;
use crate::sweep::Dimension;

/// The figures of one run or step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub p50_ns: f64,
    pub p99_ns: f64,
}

impl Figures {
    fn from_json(v: &Value) -> Option<Figures> {
        Some(Figures {
            iops: v["iops"].as_f64()?,
            bw_bytes_per_s: v["bw_bytes_per_s"].as_f64()?,
            p50_ns: v["latency_ns"]["p50"].as_f64()?,
            p99_ns: v["latency_ns"]["p99"].as_f64()?,
        })
    }
}

/// A loaded baseline.
#[derive(Debug, Clone, PartialEq)]
pub enum Baseline {
    Run {
        label: String,
        total: Figures,
    },
    Sweep {
        label: String,
        dimension: Dimension,
        steps: Vec<(u64, Figures)>,
    },
    /// A fleet (diskscope's, or fio's client/server JSON): each host, and the sum.
    Fleet {
        label: String,
        hosts: Vec<(Host, Figures)>,
        aggregate: Figures,
    },
    /// A suite's card: per test name, the read and write medians (`None`: not run).
    Suite {
        label: String,
        suite: String,
        tests: Vec<(String, Option<CardFigures>, Option<CardFigures>)>,
    },
}

/// One direction of a saved card: the medians of its passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CardFigures {
    pub mb_per_s: f64,
    pub iops: f64,
    pub p99_ns: f64,
}

impl CardFigures {
    fn from_json(v: &Value) -> Option<CardFigures> {
        Some(CardFigures {
            mb_per_s: v["mb_per_s"]["median"].as_f64()?,
            iops: v["iops"]["median"].as_f64()?,
            p99_ns: v["latency_ns"]["p99"].as_f64()?,
        })
    }

    /// A direction of the card run now, as a saved one reads.
    pub fn of(d: &DirectionResult) -> CardFigures {
        CardFigures {
            mb_per_s: d.mb_per_s.median,
            iops: d.iops.median,
            p99_ns: d.latency_ns.p99 as f64,
        }
    }
}

impl Baseline {
    /// Reads a saved result: diskscope's run, sweep or fleet, or fio's JSON output.
    pub fn load(path: &Path) -> Result<Baseline> {
        let text = result_file::read_bounded("--baseline", path).map_err(anyhow::Error::msg)?;
        Baseline::from_text(path, &text)
    }

    /// The baseline `text`, read from `path`, holds.
    fn from_text(path: &Path, text: &str) -> Result<Baseline> {
        let shown = path.display();
        let label = path
            .file_name()
            .map_or_else(|| shown.to_string(), |n| n.to_string_lossy().into_owned());
        let (docs, cut) = fio_json::scan(text);
        if docs.iter().any(fio_json::is_fio) {
            let out = fio_json::parse(text)
                .map_err(|e| anyhow::anyhow!("--baseline {shown}: fio's JSON, but {e}"))?;
            return Ok(Baseline::from_fio(label, &out));
        }
        let Some(v) = docs.into_iter().next() else {
            if cut {
                bail!("--baseline {shown}: {}", fio_json::CUT_SHORT);
            }
            bail!(
                "--baseline {shown}: not a JSON result; give a file saved with --json FILE, or fio's --output-format=json output"
            );
        };
        if v["fleet"].is_object() && v["hosts"].is_array() {
            return Ok(Baseline::from_fleet_json(label, &v));
        }
        if let (Some(suite), Some(tests)) = (v["suite"].as_str(), v["tests"].as_array()) {
            let tests = tests
                .iter()
                .filter_map(|t| {
                    let name = t["name"].as_str()?.to_string();
                    let read = CardFigures::from_json(&t["read"]);
                    let write = CardFigures::from_json(&t["write"]);
                    Some((name, read, write))
                })
                .collect();
            return Ok(Baseline::Suite {
                label,
                suite: suite.to_string(),
                tests,
            });
        }
        if let Some(steps) = v["steps"].as_array() {
            let dimension = match v["dimension"].as_str() {
                Some("threads") => Dimension::Threads,
                Some("bs") => Dimension::Bs,
                Some("iodepth") => Dimension::Iodepth,
                Some("rate") => Dimension::Rate,
                _ => bail!("--baseline {shown}: a sweep without a known dimension"),
            };
            let steps = steps
                .iter()
                .filter_map(|s| Some((step_value(dimension, s)?, Figures::from_json(s)?)))
                .collect();
            return Ok(Baseline::Sweep {
                label,
                dimension,
                steps,
            });
        }
        match Figures::from_json(&v["total"]) {
            Some(total) => Ok(Baseline::Run { label, total }),
            None => bail!("--baseline {shown}: not a diskscope JSON result (no total or steps)"),
        }
    }

    /// fio's output: a client/server run as a fleet of its hosts, a local one as a run.
    pub fn from_fio(label: String, out: &fio_json::FioOutput) -> Baseline {
        let finals = out.finals();
        if out.client_server {
            let hosts: Vec<(Host, Figures)> = out
                .hosts()
                .into_iter()
                .map(|(h, p)| {
                    let jobs: Vec<&FioEntry> = finals
                        .iter()
                        .copied()
                        .filter(|e| e.host.as_deref() == Some(h.as_str()) && e.port == p)
                        .collect();
                    let host = Host {
                        name: h,
                        port: p.unwrap_or(DEFAULT_PORT),
                    };
                    (host, fio_figures(&jobs))
                })
                .collect();
            let aggregate = sum_figures(hosts.iter().map(|(_, f)| *f));
            Baseline::Fleet {
                label,
                hosts,
                aggregate,
            }
        } else {
            Baseline::Run {
                label,
                total: fio_figures(&finals),
            }
        }
    }

    fn from_fleet_json(label: String, v: &Value) -> Baseline {
        let fig = |t: &Value| Figures {
            iops: t["iops"].as_f64().unwrap_or(0.0),
            bw_bytes_per_s: t["bw_bytes_per_s"].as_f64().unwrap_or(0.0),
            p50_ns: t["lat_p50_ns"].as_f64().unwrap_or(0.0),
            p99_ns: t["lat_p99_ns"]
                .as_f64()
                .or(t["worst_p99_ns"].as_f64())
                .unwrap_or(0.0),
        };
        let hosts = v["hosts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|h| h["total"].is_object() && h["state"] == "done")
            .filter_map(|h| {
                let host = Host {
                    name: h["host"].as_str()?.to_string(),
                    port: h["port"]
                        .as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .unwrap_or(DEFAULT_PORT),
                };
                Some((host, fig(&h["total"])))
            })
            .collect();
        Baseline::Fleet {
            label,
            hosts,
            aggregate: fig(&v["aggregate"]),
        }
    }

    /// The file's name, as the comparisons call it.
    pub fn label(&self) -> &str {
        match self {
            Baseline::Run { label, .. }
            | Baseline::Sweep { label, .. }
            | Baseline::Fleet { label, .. }
            | Baseline::Suite { label, .. } => label,
        }
    }

    /// The figures a single run compares with: a run's total, or a fleet's median host.
    pub fn run_figures(&self) -> Option<Figures> {
        match self {
            Baseline::Run { total, .. } => Some(*total),
            Baseline::Fleet { hosts, .. } if !hosts.is_empty() => {
                let mut v: Vec<Figures> = hosts.iter().map(|(_, f)| *f).collect();
                v.sort_by(|a, b| a.iops.total_cmp(&b.iops));
                Some(v[(v.len() - 1) / 2])
            }
            _ => None,
        }
    }

    /// The baseline's figures for a sweep step of `dimension` = `value`, if it has that step.
    pub fn step(&self, dimension: Dimension, value: u64) -> Option<Figures> {
        match self {
            Baseline::Sweep {
                dimension: d,
                steps,
                ..
            } if *d == dimension => steps.iter().find(|(v, _)| *v == value).map(|(_, f)| *f),
            _ => None,
        }
    }
}

/// A saved run's period: its settings (`None` for merged periods of different settings)
/// and figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavedPeriod {
    pub settings: Option<Settings>,
    pub figures: Figures,
}

/// A baseline with what its file says beside the figures.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineFile {
    pub baseline: Baseline,
    /// What made it; unknown (`Meta::default()`) for fio's output and older files.
    pub meta: Meta,
    /// A run's periods, in order; empty for other results and files from before periods.
    pub periods: Vec<SavedPeriod>,
}

impl BaselineFile {
    /// Reads a saved result once: the baseline, its provenance and a run's periods.
    pub fn load(path: &Path) -> Result<BaselineFile> {
        let text = result_file::read_bounded("--baseline", path).map_err(anyhow::Error::msg)?;
        let baseline = Baseline::from_text(path, &text)?;
        let v = fio_json::scan(&text)
            .0
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        let meta = serde_json::from_value(v["meta"].clone()).unwrap_or_default();
        let periods = v["periods"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                Some(SavedPeriod {
                    settings: serde_json::from_value(p["settings"].clone()).ok(),
                    figures: Figures::from_json(p)?,
                })
            })
            .collect();
        Ok(BaselineFile {
            baseline,
            meta,
            periods,
        })
    }
}

/// One run's figures from fio's jobs: rates added, the worst percentile (fio keeps them per
/// job; with `group_reporting` there is one).
fn fio_figures(jobs: &[&FioEntry]) -> Figures {
    Figures {
        iops: jobs.iter().map(|e| e.iops()).sum(),
        bw_bytes_per_s: jobs.iter().map(|e| e.bw_bytes_per_s()).sum(),
        p50_ns: jobs
            .iter()
            .filter_map(|e| e.lat_p50_ns())
            .fold(0.0, f64::max),
        p99_ns: jobs
            .iter()
            .filter_map(|e| e.lat_p99_ns())
            .fold(0.0, f64::max),
    }
}

/// A fleet's sum: rates added, the worst host's percentiles.
fn sum_figures(f: impl Iterator<Item = Figures>) -> Figures {
    f.fold(
        Figures {
            iops: 0.0,
            bw_bytes_per_s: 0.0,
            p50_ns: 0.0,
            p99_ns: 0.0,
        },
        |a, b| Figures {
            iops: a.iops + b.iops,
            bw_bytes_per_s: a.bw_bytes_per_s + b.bw_bytes_per_s,
            p50_ns: a.p50_ns.max(b.p50_ns),
            p99_ns: a.p99_ns.max(b.p99_ns),
        },
    )
}

/// A saved step's value of `dimension`; a rate is saved as `rate_iops`, absent (0,
/// unlimited) in files from before the rate knob.
fn step_value(dimension: Dimension, step: &Value) -> Option<u64> {
    match dimension {
        Dimension::Rate => Some(step["rate_iops"].as_u64().unwrap_or(0)),
        d => step[d.name()].as_u64(),
    }
}

/// "+7%": `now` against `before`, or "n/a" when there was nothing before.
pub(super) fn change(now: f64, before: f64) -> String {
    if before > 0.0 {
        format!("{:+.0}%", (now / before - 1.0) * 100.0)
    } else {
        "n/a".into()
    }
}
