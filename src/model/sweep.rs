//! The result of a sweep: the steps' figures, what the sweep varied (`Dimension`), and what it
//! found — where the curve saturates (`Saturation`) or, for a rate sweep, the latency-vs-load
//! curve (`LatencyCurve`) — with the step a stop cut short kept apart (`PartialStep`). The
//! finders that compute these live in `sweep`; this is the data `--json` writes, read back
//! for `--show --plot` (`saved_sweep` reads the finding's dimension-keyed JSON).

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use super::finding::Finding;
use super::why::UntilSteadyReport;
use super::{ConfigReport, Meta};
use crate::settings::Settings;
use crate::stats::{IntervalFigures, IoErrorRecord};
use crate::units::format_block_size;

/// Everything a sweep reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "saved_sweep::SavedSweep")]
pub struct SweepReport {
    /// What made it, where and when.
    pub meta: Meta,
    pub config: ConfigReport,
    pub dimension: Dimension,
    /// Measured time per step, ramp excluded.
    pub step_time_s: f64,
    pub steps: Vec<IntervalFigures>,
    pub saturation: Option<Saturation>,
    /// A rate sweep's latency-vs-load curve and where its p99 leaves the flat part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_curve: Option<LatencyCurve>,
    /// The step a stop cut short, with what it did (not part of `steps` or the finding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_step: Option<PartialStep>,
    pub errors: Vec<IoErrorRecord>,
    pub interrupted_by: Option<String>,
    /// Why the steps look as they do: the link, the queue's limits the steps crossed.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// `--until-steady`: how each measured step ended, in step order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub until_steady: Vec<UntilSteadyReport>,
    /// The drive's own health record at the start and the end of the sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<super::health::HealthAround>,
}

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    Threads,
    Bs,
    /// Queue depth per thread (`iodepth=1..256`).
    Iodepth,
    /// Total I/Os per second asked (`rate=curve`, `rate=1000,5000`); 0 is unlimited.
    Rate,
}

impl Dimension {
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Threads => "threads",
            Dimension::Bs => "bs",
            Dimension::Iodepth => "iodepth",
            Dimension::Rate => "rate",
        }
    }

    /// The value this dimension has in `s`.
    pub fn value(self, s: &Settings) -> u64 {
        match self {
            Dimension::Threads => s.threads as u64,
            Dimension::Bs => s.bs,
            Dimension::Iodepth => s.iodepth as u64,
            Dimension::Rate => s.rate_iops,
        }
    }

    /// `base` with this dimension set to `v`.
    pub fn with(self, base: Settings, v: u64) -> Settings {
        match self {
            Dimension::Threads => Settings {
                threads: v as usize,
                ..base
            },
            Dimension::Bs => Settings { bs: v, ..base },
            Dimension::Iodepth => Settings {
                iodepth: v as usize,
                ..base
            },
            Dimension::Rate => Settings {
                rate_iops: v,
                ..base
            },
        }
    }

    /// "16 threads" / "64k" / "depth 32".
    pub fn describe(self, v: u64) -> String {
        match self {
            Dimension::Threads if v == 1 => "1 thread".into(),
            Dimension::Threads => format!("{v} threads"),
            Dimension::Bs => format_block_size(v),
            Dimension::Iodepth => format!("depth {v}"),
            Dimension::Rate if v == 0 => "unlimited".into(),
            Dimension::Rate => format!("{} IOPS", crate::units::format_count_rate(v as f64)),
        }
    }
}

/// What the curve did.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// It flattened: the finding's step is where.
    Saturated,
    /// The last step still added more than the threshold over the best earlier step.
    Rising {
        /// The best earlier step and its value.
        over_step: usize,
        over_value: u64,
        /// The last step's gain over it, in percent (`None`: the earlier steps did no I/O).
        gain_pct: Option<f64>,
        /// The next range to sweep, as `--sweep` takes it (`None` at the dimension's limit).
        suggest: Option<String>,
    },
    /// Only one step did I/O: there is no curve yet.
    OneStep,
    /// The best step kept the `--rate` cap: the curve shows the cap, not the disk, so no
    /// saturation point is named (`rate_iops`: the cap).
    AtRateCap { rate_iops: u64 },
}

/// The finding of a sweep. `step` is the saturation step when saturated, else the last step
/// measured (the best so far). In JSON the value is keyed by the dimension:
/// `{"saturated": true, "step": 2, "threads": 16, …}`, or when still rising
/// `{"saturated": false, "still_rising_at": {"threads": 64}, "gain_pct": 31.0,
/// "suggest": "threads=64..1024", …}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Saturation {
    pub step: usize,
    pub dimension: Dimension,
    pub value: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub verdict: Verdict,
    /// The finding in words.
    pub summary: String,
}

impl Saturation {
    /// True when the curve flattened within the sweep.
    pub fn saturated(&self) -> bool {
        self.verdict == Verdict::Saturated
    }
}

impl Serialize for Saturation {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let keyed = |v: u64| std::collections::BTreeMap::from([(self.dimension.name(), v)]);
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("saturated", &self.saturated())?;
        m.serialize_entry("step", &self.step)?;
        let mut suggest = None;
        match &self.verdict {
            Verdict::Saturated => m.serialize_entry(self.dimension.name(), &self.value)?,
            Verdict::Rising {
                over_value,
                gain_pct,
                suggest: s,
                ..
            } => {
                m.serialize_entry("still_rising_at", &keyed(self.value))?;
                m.serialize_entry("over", &keyed(*over_value))?;
                m.serialize_entry("gain_pct", gain_pct)?;
                suggest = s.as_deref();
            }
            Verdict::OneStep => m.serialize_entry("measured", &keyed(self.value))?,
            Verdict::AtRateCap { rate_iops } => {
                m.serialize_entry("at_rate_cap", &keyed(self.value))?;
                m.serialize_entry("rate_iops", rate_iops)?;
            }
        }
        m.serialize_entry("iops", &self.iops)?;
        m.serialize_entry("bw_bytes_per_s", &self.bw_bytes_per_s)?;
        m.serialize_entry("suggest", &suggest)?;
        m.serialize_entry("summary", &self.summary)?;
        m.end()
    }
}

/// One paced step as the curve reads it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The asked rate in percent of the maximum.
    pub pct_of_max: f64,
    pub asked_iops: u64,
    /// What the step achieved.
    pub iops: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
}

/// The curve and where its p99 leaves the flat part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyCurve {
    /// IOPS of the unlimited step (or, without one, the most any step achieved).
    pub max_iops: f64,
    pub points: Vec<CurvePoint>,
    /// p99 at the lightest paced step: the flat part's reference.
    pub flat_p99_ns: u64,
    /// Index in `points` of the first step beyond `FLAT_FACTOR` × `flat_p99_ns`.
    pub leaves_flat_at: Option<usize>,
    pub summary: String,
}

/// A step that a stop cut short, with what it did until then. It is reported beside the
/// measured steps, never mixed into their findings (it is shorter, and may be ramp only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialStep {
    /// Index of the step among the series' steps (0-based).
    pub step: usize,
    /// How many steps the series had.
    pub of_steps: usize,
    /// True when the stop came during the uncounted ramp (the figures are the ramp's).
    pub ramp_only: bool,
    #[serde(flatten)]
    pub figures: IntervalFigures,
}

#[path = "saved_sweep.rs"]
mod saved_sweep;
