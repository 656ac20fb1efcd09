//! The result of a fleet: what ran where (`FleetConfig`), each host's totals and seconds
//! (`HostResult`), the fleet's aggregate and the hosts that fell behind. What `--fleet --json`
//! writes and `--show`/`--baseline` read back. Computed from fio's snapshots in
//! `fleet::results`; the hosts list is parsed in `fleet::hosts`.

use serde::{Deserialize, Serialize};

use super::Meta;
use crate::settings::{IoEngine, Settings};

/// fio's default server port.
pub const DEFAULT_PORT: u16 = 8765;
/// One host running `fio --server`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Host {
    pub name: String,
    pub port: u16,
}

impl Host {
    /// "a" or "a:8766": the port shown only when it is not fio's default.
    pub fn label(&self) -> String {
        match (self.port, self.name.contains(':')) {
            (DEFAULT_PORT, _) => self.name.clone(),
            (p, true) => format!("[{}]:{p}", self.name),
            (p, false) => format!("{}:{p}", self.name),
        }
    }
}

/// Everything a fleet reports (`--json FILE`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FleetReport {
    /// What made it, where (the controller, the host fio ran from) and when; unknown in
    /// older files.
    #[serde(default)]
    pub meta: Meta,
    pub fleet: FleetConfig,
    /// Finished hosts by IOPS, highest first; failed hosts last, with their reason.
    pub hosts: Vec<HostResult>,
    pub aggregate: Aggregate,
    /// The fleet's seconds: the hosts' k-th seconds added up.
    pub intervals: Vec<Interval>,
    /// Hosts more than `outlier_pct` below the median IOPS.
    pub outliers: Vec<String>,
    /// The job file every host ran.
    pub job_file: String,
    pub interrupted_by: Option<String>,
}

/// What was run, where.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FleetConfig {
    pub target: String,
    pub hosts: Vec<Host>,
    #[serde(flatten)]
    pub settings: Settings,
    pub ioengine: IoEngine,
    pub direct: bool,
    pub duration_s: f64,
    pub write_allowed: bool,
    pub outlier_pct: f64,
    /// fio on the controller ("fio-3.33").
    pub fio_version: Option<String>,
    /// What the latency figures span.
    pub latency_basis: String,
}

/// One host's figures over its whole run, or over one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Seconds the figures cover (fio's runtime, or the interval's length).
    pub elapsed_s: f64,
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub lat_mean_ns: f64,
    /// Whole-run figures only (fio's percentiles are cumulative).
    pub lat_p50_ns: Option<f64>,
    pub lat_p99_ns: Option<f64>,
}

/// One second of one host (or of the fleet): the difference of two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The host's runtime at the end of the interval, s.
    pub t_s: f64,
    #[serde(flatten)]
    pub figures: Figures,
}

/// How a host ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostState {
    Done,
    Failed,
}

/// One host's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostResult {
    pub host: String,
    pub port: u16,
    pub state: HostState,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Cumulative, over its whole run (`None` when it did no I/O at all).
    pub total: Option<Figures>,
    /// Per second, from its `--status-interval` snapshots.
    pub intervals: Vec<Interval>,
    /// More than the outlier share below the fleet's median IOPS.
    pub outlier: bool,
}

/// The fleet as a whole, over the hosts that finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub hosts_done: usize,
    pub hosts_failed: usize,
    /// Sum over hosts.
    pub ops: u64,
    pub bytes: u64,
    /// Sum of each host's rate.
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Weighted by each host's ops.
    pub lat_mean_ns: f64,
    /// The worst host's p99 (percentiles do not add across hosts).
    pub worst_p99_ns: Option<f64>,
    pub median_iops: f64,
}

impl HostResult {
    /// "a" or "a:8766", as `Host::label` says it.
    pub fn label(&self) -> String {
        Host {
            name: self.host.clone(),
            port: self.port,
        }
        .label()
    }
}

impl FleetReport {
    /// True when any host failed.
    pub fn had_failures(&self) -> bool {
        self.aggregate.hosts_failed > 0
    }
}
