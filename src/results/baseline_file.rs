//! A `--baseline` file read once through `saved_doc`: the saved result itself, what made it
//! (`meta`) and, for a run, its periods' settings and figures, so a run can be compared period
//! by period and `--baseline` can say when the two come from different versions or hosts.
//! Turning the saved result into the figures compared (`render::baseline::Baseline`) and the
//! comparisons themselves (`render::compare`) are render's.

use std::path::Path;

use serde::Deserialize;

use super::saved_doc::{self, Saved, SavedPeriodDoc};
use crate::model::Meta;
use crate::settings::Settings;

/// The figures of one run or step, as a baseline holds them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub p50_ns: f64,
    pub p99_ns: f64,
}

/// A saved run's period: its settings (`None` for merged periods of different settings)
/// and figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavedPeriod {
    pub settings: Option<Settings>,
    pub figures: Figures,
}

/// A baseline file as read: the result, and what the file says beside its figures.
#[derive(Debug)]
pub struct BaselineDoc {
    pub saved: Saved,
    /// What made it; unknown (`Meta::default()`) for fio's output and older files.
    pub meta: Meta,
    /// A run's periods, in order; empty for other results and files from before periods.
    pub periods: Vec<SavedPeriod>,
}

/// Reads a saved result once (`saved_doc`): the result, its provenance and a run's periods.
/// An error is one line naming the file.
pub fn read(path: &Path) -> Result<BaselineDoc, String> {
    let saved = saved_doc::read("--baseline", path)?;
    let (meta, periods) = match &saved {
        Saved::Fio(_) => (Meta::default(), Vec::new()),
        Saved::Disks(v) => (
            v.get("meta")
                .and_then(|m| Meta::deserialize(m).ok())
                .unwrap_or_default(),
            Vec::new(),
        ),
        Saved::Fleet(r) => (r.meta.clone(), Vec::new()),
        Saved::Suite(s) => (s.meta.clone(), Vec::new()),
        Saved::Sweep(s) => (s.meta.clone(), Vec::new()),
        Saved::Run(r) => (
            r.meta.clone(),
            r.periods.iter().filter_map(period).collect(),
        ),
    };
    Ok(BaselineDoc {
        saved,
        meta,
        periods,
    })
}

/// A saved period's settings and figures; `None` without its rates and percentiles.
fn period(p: &SavedPeriodDoc) -> Option<SavedPeriod> {
    Some(SavedPeriod {
        settings: p.settings,
        figures: Figures {
            iops: p.iops.f64()?,
            bw_bytes_per_s: p.bw_bytes_per_s.f64()?,
            p50_ns: p.latency_ns.p50.f64()?,
            p99_ns: p.latency_ns.p99.f64()?,
        },
    })
}
