//! A saved result to compare against: "before" figures for an "after" run — a new firmware,
//! scheduler or RAID layout. It may be a diskscope `--json` file (a run, a sweep, a suite's
//! card or a fleet) or fio's own JSON output (`--output-format=json` or `json+`): a local fio
//! run of one group reads as a run (every job summed: a job is an entry), a client/server
//! one as a fleet of its hosts. Only the figures needed for the comparison are read
//! (`results::saved_doc`), with what the result measured (`conditions`), so a comparison of
//! unlike runs can say so. The comparisons themselves, and which kind of baseline a mode
//! takes (`fits`), are `compare`'s. `BaselineFile` adds what the file says beside the figures
//! (read by `results::baseline_file`): what made it (`meta`) and, for a run, its periods, so
//! a run can be compared period by period and `--baseline` can say when the two come from
//! different versions or hosts.

use std::path::Path;

use super::conditions::Conditions;
use crate::fleet::hosts::Host;
use crate::model::Meta;
use crate::results::baseline_file;
pub use crate::results::baseline_file::{Figures, SavedPeriod};
use crate::results::saved_doc::{
    self, Saved, SavedConfig, SavedDirection, SavedRun, SavedSuite, SavedSweep,
};
use crate::suite::DirectionResult;
use crate::sweep::Dimension;
use crate::units::visible;

/// A loaded baseline: its figures, what it measured (`conditions`) and, in `label`, the
/// file's name as shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Baseline {
    Run {
        label: String,
        total: Figures,
        conditions: Conditions,
        /// "a single run", "fio's output of one run".
        holds: String,
        /// Its reads and writes apart (read, write), where it did both.
        sides: Option<[Figures; 2]>,
    },
    Sweep {
        label: String,
        dimension: Dimension,
        steps: Vec<(u64, Figures)>,
        conditions: Conditions,
    },
    /// A fleet (diskscope's, or fio's client/server JSON): each host, and the sum.
    Fleet {
        label: String,
        hosts: Vec<(Host, Figures)>,
        aggregate: Figures,
        conditions: Conditions,
    },
    /// A suite's card: per test name, the read and write medians (`None`: not run).
    Suite {
        label: String,
        suite: String,
        tests: Vec<(String, Option<CardFigures>, Option<CardFigures>)>,
        conditions: Conditions,
    },
    /// fio's output of groups run one after another (`stonewall`): a series no diskscope
    /// run is, kept only to be refused in words.
    FioGroups { label: String, groups: usize },
    /// A run on several targets: each target's total by name, and the aggregate
    /// (`render::disks_compare`).
    Disks {
        label: String,
        targets: Vec<(String, Figures)>,
        aggregate: Figures,
        conditions: Conditions,
        /// The most periods any of its targets went through (settings changed live, a
        /// pause): above one, its totals mix settings.
        periods: usize,
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
    fn from_saved(d: &SavedDirection) -> Option<CardFigures> {
        Some(CardFigures {
            mb_per_s: d.mb_per_s.median.f64()?,
            iops: d.iops.median.f64()?,
            p99_ns: d.latency_ns.p99.f64()?,
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

/// What a saved config measured (`conditions`).
pub(super) fn saved_conditions(c: &SavedConfig) -> Conditions {
    let s = super::saved::settings(c);
    let mut cond = Conditions::of_settings(
        &s,
        c.ioengine.0.as_deref(),
        c.target.0.as_deref().unwrap_or("?"),
        c.is_direct(),
    );
    cond.ioengine = c.ioengine.0.clone();
    cond.fsync_every = Some(c.fsync_every.u64().unwrap_or(0) as u32);
    cond
}

impl Baseline {
    /// Reads a saved result: diskscope's run, sweep, card or fleet, or fio's JSON output.
    /// An error is one line naming the file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        Baseline::from_saved(path, saved_doc::read("--baseline", path)?)
    }

    /// The baseline a result read from `path` holds.
    fn from_saved(path: &Path, saved: Saved) -> Result<Baseline, String> {
        let label = visible(&path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ))
        .into_owned();
        Ok(match saved {
            Saved::Fio(out) => Baseline::from_fio(label, &out),
            Saved::Fleet(r) => Baseline::from_fleet(label, &r),
            Saved::Suite(s) => Baseline::from_suite(label, &s),
            Saved::Sweep(s) => Baseline::from_sweep(label, &s).ok_or_else(|| {
                format!(
                    "--baseline {}: a sweep without a known dimension",
                    visible(&path.display().to_string())
                )
            })?,
            Saved::Run(r) => Baseline::from_run(label, &r),
            Saved::Disks(v) => super::disks_compare::baseline_of(label, &v),
        })
    }

    fn from_suite(label: String, s: &SavedSuite) -> Baseline {
        let tests = s
            .tests
            .iter()
            .filter_map(|t| {
                let name = t.name.0.clone()?;
                let read = t.read.as_ref().and_then(CardFigures::from_saved);
                let write = t.write.as_ref().and_then(CardFigures::from_saved);
                Some((name, read, write))
            })
            .collect();
        let c = saved_conditions(&s.config);
        Baseline::Suite {
            label,
            suite: s.suite.0.clone().unwrap_or_default(),
            tests,
            conditions: c.of_card(),
        }
    }

    /// A saved sweep; `None` when its dimension is none diskscope knows.
    fn from_sweep(label: String, s: &SavedSweep) -> Option<Baseline> {
        let dimension = match s.dimension.0.as_deref() {
            Some("threads") => Dimension::Threads,
            Some("bs") => Dimension::Bs,
            Some("iodepth") => Dimension::Iodepth,
            Some("rate") => Dimension::Rate,
            _ => return None,
        };
        let steps = s
            .steps
            .iter()
            .filter_map(|st| {
                let f = Figures {
                    iops: st.iops.f64()?,
                    bw_bytes_per_s: st.bw_bytes_per_s.f64()?,
                    p50_ns: st.latency_ns.p50.f64()?,
                    p99_ns: st.latency_ns.p99.f64()?,
                };
                Some((st.value(dimension.name())?, f))
            })
            .collect();
        Some(Baseline::Sweep {
            label,
            dimension,
            steps,
            conditions: saved_conditions(&s.config).without(dimension.name()),
        })
    }

    fn from_run(label: String, r: &SavedRun) -> Baseline {
        let t = &r.total;
        let total = Figures {
            iops: t.iops.f64().unwrap_or(0.0),
            bw_bytes_per_s: t.bw_bytes_per_s.f64().unwrap_or(0.0),
            p50_ns: t.latency_ns.p50.f64().unwrap_or(0.0),
            p99_ns: t.latency_ns.p99.f64().unwrap_or(0.0),
        };
        let side = |s: &saved_doc::SavedSide| Figures {
            iops: s.iops.f64().unwrap_or(0.0),
            bw_bytes_per_s: s.bw_bytes_per_s.f64().unwrap_or(0.0),
            p50_ns: s.latency_ns.p50.f64().unwrap_or(0.0),
            p99_ns: s.latency_ns.p99.f64().unwrap_or(0.0),
        };
        Baseline::Run {
            label,
            total,
            conditions: saved_conditions(&r.config),
            holds: "a single run".into(),
            sides: t
                .read
                .as_ref()
                .zip(t.write.as_ref())
                .map(|(r, w)| [side(r), side(w)]),
        }
    }

    /// The file's name as shown.
    pub fn label(&self) -> &str {
        match self {
            Baseline::Run { label, .. }
            | Baseline::Sweep { label, .. }
            | Baseline::Fleet { label, .. }
            | Baseline::Suite { label, .. }
            | Baseline::FioGroups { label, .. }
            | Baseline::Disks { label, .. } => label,
        }
    }

    /// What the baseline measured (nothing recorded for fio's groups).
    pub fn conditions(&self) -> Conditions {
        match self {
            Baseline::Run { conditions, .. }
            | Baseline::Sweep { conditions, .. }
            | Baseline::Fleet { conditions, .. }
            | Baseline::Suite { conditions, .. }
            | Baseline::Disks { conditions, .. } => conditions.clone(),
            Baseline::FioGroups { .. } => Conditions::default(),
        }
    }

    /// What it holds, in words, for a refusal.
    pub fn holds(&self) -> String {
        match self {
            Baseline::Run { holds, .. } => holds.clone(),
            Baseline::Sweep { dimension, .. } => format!("a sweep of {}", dimension.name()),
            Baseline::Fleet { hosts, .. } => format!("a fleet's result ({} hosts)", hosts.len()),
            Baseline::Suite { suite, .. } => format!("suite {suite}'s card"),
            Baseline::FioGroups { groups, .. } => {
                format!("fio's output of {groups} groups run one after another (stonewall)")
            }
            Baseline::Disks { targets, .. } => {
                format!("a run on {} targets at once", targets.len())
            }
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
    /// Reads a saved result once (`results::baseline_file`): the baseline, its provenance and
    /// a run's periods. An error is one line naming the file.
    pub fn load(path: &Path) -> Result<BaselineFile, String> {
        let doc = baseline_file::read(path)?;
        Ok(BaselineFile {
            baseline: Baseline::from_saved(path, doc.saved)?,
            meta: doc.meta,
            periods: doc.periods,
        })
    }
}

#[path = "baseline_hosts.rs"]
mod hosts;

/// "+7%": `now` against `before`, or "n/a" when there was nothing before.
pub(super) fn change(now: f64, before: f64) -> String {
    if before > 0.0 {
        format!("{:+.0}%", (now / before - 1.0) * 100.0)
    } else {
        "n/a".into()
    }
}
