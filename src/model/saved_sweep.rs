//! A saved sweep read back: the fields as they are, and the finding rebuilt from its JSON,
//! which keys the swept value by the dimension's name (`{"saturated": true, "threads": 16}`,
//! `{"still_rising_at": {"bs": 4194304}, "over": {"bs": 1048576}, …}`) and leaves out which
//! step the "over" value was (it is found again among the steps).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Dimension, LatencyCurve, PartialStep, Saturation, SweepReport, Verdict};
use crate::model::finding::Finding;
use crate::model::why::UntilSteadyReport;
use crate::model::{ConfigReport, Meta};
use crate::stats::{IntervalFigures, IoErrorRecord};

/// A sweep as `--json` wrote it.
#[derive(Deserialize)]
pub(super) struct SavedSweep {
    #[serde(default)]
    meta: Meta,
    config: ConfigReport,
    dimension: Dimension,
    #[serde(default)]
    step_time_s: f64,
    steps: Vec<IntervalFigures>,
    #[serde(default)]
    saturation: Option<SavedSaturation>,
    #[serde(default)]
    latency_curve: Option<LatencyCurve>,
    #[serde(default)]
    partial_step: Option<PartialStep>,
    #[serde(default)]
    errors: Vec<IoErrorRecord>,
    #[serde(default)]
    interrupted_by: Option<String>,
    #[serde(default)]
    findings: Vec<Finding>,
    #[serde(default)]
    until_steady: Vec<UntilSteadyReport>,
    #[serde(default)]
    health: Option<crate::model::health::HealthAround>,
}

/// A finding as `Saturation`'s `Serialize` wrote it.
#[derive(Deserialize)]
struct SavedSaturation {
    saturated: bool,
    step: usize,
    #[serde(default)]
    still_rising_at: BTreeMap<String, u64>,
    #[serde(default)]
    over: BTreeMap<String, u64>,
    #[serde(default)]
    measured: BTreeMap<String, u64>,
    #[serde(default)]
    at_rate_cap: BTreeMap<String, u64>,
    #[serde(default)]
    rate_iops: Option<u64>,
    #[serde(default)]
    gain_pct: Option<f64>,
    #[serde(default)]
    suggest: Option<String>,
    #[serde(default)]
    iops: f64,
    #[serde(default)]
    bw_bytes_per_s: f64,
    #[serde(default)]
    summary: String,
    /// The saturated value, keyed by the dimension's name.
    #[serde(flatten)]
    keyed: BTreeMap<String, serde_json::Value>,
}

impl TryFrom<SavedSweep> for SweepReport {
    type Error = String;

    fn try_from(s: SavedSweep) -> Result<SweepReport, String> {
        let d = s.dimension;
        let saturation = s.saturation.map(|f| finding(f, d, &s.steps)).transpose()?;
        Ok(SweepReport {
            meta: s.meta,
            config: s.config,
            dimension: d,
            step_time_s: s.step_time_s,
            steps: s.steps,
            saturation,
            latency_curve: s.latency_curve,
            partial_step: s.partial_step,
            errors: s.errors,
            interrupted_by: s.interrupted_by,
            findings: s.findings,
            until_steady: s.until_steady,
            health: s.health,
        })
    }
}

/// The finding of a sweep of `d` over `steps` from its saved form.
fn finding(
    f: SavedSaturation,
    d: Dimension,
    steps: &[IntervalFigures],
) -> Result<Saturation, String> {
    let name = d.name();
    let missing = || format!("the sweep's saturation names no {name} value");
    let (value, verdict) = if f.saturated {
        let v = f.keyed.get(name).and_then(serde_json::Value::as_u64);
        (v.ok_or_else(missing)?, Verdict::Saturated)
    } else if let Some(&v) = f.still_rising_at.get(name) {
        let over_value = f.over.get(name).copied().unwrap_or(0);
        let over_step = steps
            .iter()
            .position(|s| d.value(&s.settings) == over_value)
            .unwrap_or(0);
        let verdict = Verdict::Rising {
            over_step,
            over_value,
            gain_pct: f.gain_pct,
            suggest: f.suggest,
        };
        (v, verdict)
    } else if let (Some(&v), Some(rate_iops)) = (f.at_rate_cap.get(name), f.rate_iops) {
        (v, Verdict::AtRateCap { rate_iops })
    } else {
        let v = f.measured.get(name).copied();
        (v.ok_or_else(missing)?, Verdict::OneStep)
    };
    Ok(Saturation {
        step: f.step,
        dimension: d,
        value,
        iops: f.iops,
        bw_bytes_per_s: f.bw_bytes_per_s,
        verdict,
        summary: f.summary,
    })
}
