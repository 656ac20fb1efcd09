//! A baseline file with what it says beside the figures: what made it (`meta`) and, for a
//! run, its periods, read once through `saved_doc` with the baseline itself, so a run can be
//! compared period by period and `--baseline` can say when the two come from different
//! versions or hosts. The figures and their comparison are `baseline`'s and `compare`'s.

use std::path::Path;

use serde::Deserialize;

use super::{Baseline, Figures};
use crate::model::Meta;
use crate::render::saved_doc::{self, Saved, SavedPeriodDoc};
use crate::settings::Settings;

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
    /// Reads a saved result once (`saved_doc`): the baseline, its provenance and a run's
    /// periods. An error is one line naming the file.
    pub fn load(path: &Path) -> Result<BaselineFile, String> {
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
        Ok(BaselineFile {
            baseline: Baseline::from_saved(path, saved)?,
            meta,
            periods,
        })
    }
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
