//! A saved run, sweep or suite's card (a diskscope `--json` file) to compare against: "before" figures for
//! an "after" run — a new firmware, scheduler or RAID layout. Only the figures needed for the
//! comparison are read, so files from older versions still load.

use std::path::Path;

use anyhow::{Result, bail};
use serde_json::Value;

use super::{RunReport, result_file};
use crate::stats::IntervalFigures;
use crate::suite::{Direction, DirectionResult, SuiteReport};
use crate::sweep::Dimension;
use crate::units::format_latency_ns;

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

    fn of(d: &DirectionResult) -> CardFigures {
        CardFigures {
            mb_per_s: d.mb_per_s.median,
            iops: d.iops.median,
            p99_ns: d.latency_ns.p99 as f64,
        }
    }
}

impl Baseline {
    /// Reads a `--json` file of a run or a sweep.
    pub fn load(path: &Path) -> Result<Baseline> {
        let shown = path.display();
        let text = result_file::read_bounded("--baseline", path).map_err(anyhow::Error::msg)?;
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!("--baseline {shown}: not a diskscope JSON result ({e})")
        })?;
        let label = path
            .file_name()
            .map_or_else(|| shown.to_string(), |n| n.to_string_lossy().into_owned());
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
                _ => bail!("--baseline {shown}: a sweep without a known dimension"),
            };
            let steps = steps
                .iter()
                .filter_map(|s| Some((s[dimension.name()].as_u64()?, Figures::from_json(s)?)))
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

fn change(now: f64, before: f64) -> String {
    if before > 0.0 {
        format!("{:+.0}%", (now / before - 1.0) * 100.0)
    } else {
        "n/a".into()
    }
}

/// "vs baseline run.json: IOPS 13.1k vs 12.3k (+7%), p99 150 µs vs 180 µs (-17%)".
pub fn compare_run(b: &Baseline, r: &RunReport) -> String {
    match b {
        Baseline::Run { label, total } => format!(
            "vs baseline {label}: IOPS {:.0} vs {:.0} ({}), p99 {} vs {} ({})",
            r.total.iops,
            total.iops,
            change(r.total.iops, total.iops),
            format_latency_ns(r.total.latency_ns.p99 as f64),
            format_latency_ns(total.p99_ns),
            change(r.total.latency_ns.p99 as f64, total.p99_ns)
        ),
        Baseline::Sweep { label, .. } => {
            format!("baseline {label} is a sweep; compare it with a sweep")
        }
        Baseline::Suite { label, .. } => {
            format!("baseline {label} is a suite's card; compare it with --suite")
        }
    }
}

/// A card against a saved one, test by test (by name) and direction: the medians' change.
pub fn compare_suite(b: &Baseline, r: &SuiteReport) -> String {
    let Baseline::Suite {
        label,
        suite,
        tests,
    } = b
    else {
        return format!(
            "baseline {} is not a suite's card; compare it with a run or sweep",
            match b {
                Baseline::Run { label, .. } | Baseline::Sweep { label, .. } => label,
                Baseline::Suite { label, .. } => label,
            }
        );
    };
    let mut out = format!("vs baseline {label} (suite {suite}), medians now vs then:\n");
    for t in &r.tests {
        let before = tests.iter().find(|(n, _, _)| *n == t.name);
        let mut cells = Vec::new();
        for d in [Direction::Read, Direction::Write] {
            let now = t.direction(d).ok().map(CardFigures::of);
            let then = before.and_then(|(_, r, w)| if d == Direction::Read { *r } else { *w });
            cells.push(match (now, then) {
                (Some(n), Some(b)) if t.random => format!(
                    "{} {:.0} vs {:.0} IOPS ({}), p99 {}",
                    d.name(),
                    n.iops,
                    b.iops,
                    change(n.iops, b.iops),
                    change(n.p99_ns, b.p99_ns)
                ),
                (Some(n), Some(b)) => format!(
                    "{} {:.1} vs {:.1} MB/s ({}), p99 {}",
                    d.name(),
                    n.mb_per_s,
                    b.mb_per_s,
                    change(n.mb_per_s, b.mb_per_s),
                    change(n.p99_ns, b.p99_ns)
                ),
                (Some(_), None) => format!("{} not in the baseline", d.name()),
                (None, Some(_)) => format!("{} not run now", d.name()),
                (None, None) => continue,
            });
        }
        out.push_str(&format!("  {:<14}{}\n", t.name, cells.join(" · ")));
    }
    out
}

/// "  (baseline 52000 IO/s, +6%)" for a sweep step, or nothing.
pub fn compare_step(b: &Baseline, d: Dimension, r: &IntervalFigures) -> String {
    match b.step(d, d.value(&r.settings)) {
        Some(f) => format!(
            "  (baseline {:.0} IO/s, {})",
            f.iops,
            change(r.iops, f.iops)
        ),
        None => String::new(),
    }
}
