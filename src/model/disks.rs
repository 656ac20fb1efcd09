//! The result of one run on several targets at once: what every target ran (`DisksConfig`),
//! each target's own run (`TargetRun`: its `RunReport`, its name, model and link, and the
//! kernel's count of its device over the run), the aggregate (sums of ops and bytes; rates
//! added target by target; latency from the targets' histograms merged, never averaged), the
//! targets that fell behind, and with `--each-then-all` each target's run alone. What a
//! multi-target `--json` writes; built by `disks`, printed by `render::disks`.

use serde::{Deserialize, Serialize};

use super::Meta;
use super::finding::Finding;
use super::{CpuReport, RunReport};
use crate::settings::{IoEngine, Settings};
use crate::stats::{Counts, IntervalFigures, LatencySummary, ReadWrite};

/// Everything a run on several targets reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DisksReport {
    /// What made it (`stamp`): also each target's own `meta`.
    #[serde(default)]
    pub meta: Meta,
    pub disks: DisksConfig,
    /// One per target, in the order given; with `--each-then-all` the together phase.
    pub targets: Vec<TargetRun>,
    pub aggregate: Aggregate,
    /// Names of the targets more than `outlier_pct` below the median IOPS.
    pub outliers: Vec<String>,
    /// `--each-then-all`: each target alone for the same time, in the order given, before
    /// they all ran together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone: Option<Vec<AloneRun>>,
    /// The outliers and, with `--each-then-all`, alone against together, in words.
    pub findings: Vec<Finding>,
    pub interrupted_by: Option<String>,
    /// CPU time the whole process used while all targets ran together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuReport>,
}

/// What every target ran, and how the targets are judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisksConfig {
    /// The targets as given.
    pub targets: Vec<String>,
    /// The settings every target starts with (each target has its own threads × depth).
    #[serde(flatten)]
    pub settings: Settings,
    /// The requested run length (of each phase with `--each-then-all`).
    pub duration_s: Option<f64>,
    pub ioengine: IoEngine,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ioengine_fallback: Option<String>,
    pub direct: bool,
    pub write_allowed: bool,
    /// A target this many percent below the median IOPS is an outlier.
    pub outlier_pct: f64,
    pub each_then_all: bool,
    /// What a latency spans.
    pub latency_basis: String,
}

/// One target's run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetRun {
    /// How tables name it: the kernel's name for a device (`sdb`, `loop3`), else the path.
    pub name: String,
    /// The model of its device, from sysfs, when known.
    pub model: Option<String>,
    /// Its link in a narrow column (`PCIe 4.0 x4`, `SATA 6 Gb/s`, `virtio`), when known.
    pub link: Option<String>,
    /// The block device under it, by its name in /proc/diskstats: the target itself, or
    /// the device a file's filesystem is on (shared with whatever else is there).
    pub device: Option<String>,
    /// The kernel's own count of that device over the run, for checking the op count.
    pub kernel: Option<KernelCount>,
    /// Set when it is an outlier: how far below the median IOPS, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub below_median_pct: Option<f64>,
    #[serde(flatten)]
    pub run: RunReport,
}

/// What /proc/diskstats counted for a target's device between just before its engine
/// started and just after it stopped. For a file or directory target it is the whole
/// device under its filesystem, other programs' I/O included. Completed requests after
/// merging: `completed + merged` is the number of I/Os the device was sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelCount {
    pub reads_completed: u64,
    pub reads_merged: u64,
    pub writes_completed: u64,
    pub writes_merged: u64,
}

impl KernelCount {
    /// Reads and writes the device was sent, merged or not.
    pub fn ios(&self) -> u64 {
        self.reads_completed + self.reads_merged + self.writes_completed + self.writes_merged
    }
}

/// All targets together, over the same run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Aggregate {
    pub targets: usize,
    /// The longest target's run time (paused and stopped time excluded).
    pub elapsed_s: f64,
    /// Sums over the targets.
    #[serde(flatten)]
    pub counts: Counts,
    /// The sum of each target's rate over its own run time.
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Every target's latencies in one histogram (merged, not averaged).
    pub latency_ns: LatencySummary,
    pub service_latency_ns: LatencySummary,
    /// The median of the targets' IOPS: what an outlier is judged against.
    pub median_iops: f64,
    /// How busy the machine's CPUs were over the run, percent of all cores.
    pub cpu_busy_pct: Option<f64>,
    /// The run's seconds, each the same second of every target (the n-th window of each
    /// on one clock, within a sampling tick): counts added, rates each target's own over its
    /// window added, latency merged. `elapsed_s` is the longest target's window.
    pub intervals: Vec<IntervalFigures>,
    /// Reads and writes apart (`read`, `write`) where the targets did both: ops and bytes
    /// added, each target's rate added, latency merged.
    #[serde(flatten)]
    pub sides: Option<ReadWrite>,
}

/// One target run alone (`--each-then-all`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AloneRun {
    #[serde(flatten)]
    pub target: TargetRun,
    /// How busy the machine's CPUs were while it ran, percent of all cores.
    pub cpu_busy_pct: Option<f64>,
}

impl DisksReport {
    /// Records what made the run, on the report and on each target's run (alone too), as
    /// every JSON diskscope writes carries it.
    pub fn stamp(&mut self, meta: Meta) {
        let alone = self.alone.iter_mut().flatten().map(|a| &mut a.target);
        for t in self.targets.iter_mut().chain(alone) {
            t.run.meta = meta.clone();
        }
        self.meta = meta;
    }

    /// True when any I/O of any target failed or came back short.
    pub fn had_io_errors(&self) -> bool {
        self.targets.iter().any(|t| t.run.had_io_errors())
            || self
                .alone
                .iter()
                .flatten()
                .any(|a| a.target.run.had_io_errors())
    }
}
