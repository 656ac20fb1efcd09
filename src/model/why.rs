//! Why the figures look as they do, as a run's result carries it: the findings in words
//! (`model::finding`), whether the figure was steady and over which window (`SteadyState`,
//! the SNIA PTS check's verdict), and the NVMe drive's own thermal log read before and after
//! the run (`ThermalLogs`). `WhyReport` gathers them for a run's JSON; the detectors that
//! fill it live in `findings`, the live tracking in `why`. Plain data.

use serde::{Deserialize, Serialize};

use super::disk::ThermalLog;
use super::finding::Finding;

/// Which figure the check judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMetric {
    Iops,
    Bandwidth,
}

/// What `--json` writes as `steady_state`; the window's members are null until reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    pub reached: bool,
    /// The figure judged: "iops", or "bandwidth" for purely sequential work.
    pub metric: SteadyMetric,
    /// Seconds into the run where the first window of the current steady stretch began.
    pub since_s: Option<f64>,
    pub round_s: f64,
    /// Rounds in the judged window.
    pub rounds: usize,
    /// I/Os and bytes over the window's real elapsed time (what a summary of the same span
    /// computes). The criteria use the rounds' plain average, as PTS does; the two differ
    /// only by the rounds' jitter in length.
    pub mean_iops: Option<f64>,
    pub mean_bw_bytes_per_s: Option<f64>,
    /// max − min across the window's rounds, % of the window's mean.
    pub excursion_pct: Option<f64>,
    /// The least-squares line's excursion across the window, % of the window's mean.
    pub slope_pct: Option<f64>,
    /// The judged window, seconds into the run, once reached.
    #[serde(default)]
    pub window_start_s: Option<f64>,
    #[serde(default)]
    pub window_end_s: Option<f64>,
    /// Latency of the window's I/Os, from its seconds' histograms merged (never averaged), ns;
    /// filled where the histograms were kept (a live run), else null.
    #[serde(default)]
    pub latency_mean_ns: Option<f64>,
    #[serde(default)]
    pub latency_p99_ns: Option<u64>,
}

/// The NVMe SMART / Health log's thermal fields read before and after a run (root only).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThermalLogs {
    pub before: ThermalLog,
    pub after: ThermalLog,
}

/// The steady-state check changing its mind: reached at `t_s`, or lost (a slowdown, a
/// drift) at `t_s`. `text` is the check's own line at that moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyChange {
    pub t_s: f64,
    pub steady: bool,
    pub text: String,
}

/// How a `--until-steady[=MAX]` run (or step) ended: steady, or at MAX without settling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UntilSteadyReport {
    pub max_s: f64,
    pub settled: bool,
    /// "steady since 0:25 (…)", or "never settled in 60 s (…)".
    pub text: String,
}

/// What a run's result says about why its figures look as they do: `findings`,
/// `steady_state` and `nvme_thermal_log` in the JSON, beside the figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WhyReport {
    /// Every finding, in reading order (link and queue first, then by time).
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// The steady-state check at the end of the run (or when `--until-steady` ended it);
    /// `None` where none was kept.
    #[serde(default)]
    pub steady_state: Option<SteadyState>,
    /// The check's own line at the end: "steady since 0:42 (…)", "settling: −9% per round".
    #[serde(default)]
    pub steady_text: Option<String>,
    /// `--until-steady`: how the run ended, when it was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_steady: Option<UntilSteadyReport>,
    /// Every time the check became steady or stopped being steady, oldest first.
    #[serde(default)]
    pub steady_changes: Vec<SteadyChange>,
    /// Present only where the drive's log could be read (root, NVMe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvme_thermal_log: Option<ThermalLogs>,
    /// The drive's own health record at the start and the end of the run (`health`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<super::health::HealthAround>,
}
