//! The result of one run: what made it (`meta`), its cumulative totals, its periods (the run
//! told setting by setting, with the whole run's latency distribution), each worker's
//! share, the one-second intervals, the errors kept, what the page cache still held when
//! the I/O stopped, and the CPU the process used. What `--json` writes for a run; built from
//! the engine's snapshots by whoever drove the run (headless or the TUI), and read back for
//! `--show --plot` (fields later versions added take their defaults).

use serde::{Deserialize, Serialize};

use super::hot_spots::HotSpots;
use super::{ConfigReport, Meta, WhyReport};
use crate::settings::Settings;
use crate::stats::snapshot::per_second;
use crate::stats::{
    Counts, IntervalFigures, IoErrorRecord, LatencySummary, LeftOut, Periods, ReadWrite, Snapshot,
    ThreadSample,
};

/// Cumulative figures of the whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TotalReport {
    /// Run time the rates divide by: paused and stopped intervals excluded.
    pub elapsed_s: f64,
    #[serde(flatten)]
    pub counts: Counts,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// With a rate, from when each I/O was due (coordinated omission corrected); else from
    /// submission.
    pub latency_ns: LatencySummary,
    /// From submission to completion reaped; equal to `latency_ns` without a rate.
    #[serde(default)]
    pub service_latency_ns: LatencySummary,
    /// Reads and writes apart (`read`, `write`), where the run did both.
    #[serde(flatten)]
    pub sides: Option<ReadWrite>,
}

/// One worker over the whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadReport {
    pub id: usize,
    /// How long this worker ran.
    pub elapsed_s: f64,
    #[serde(flatten)]
    pub counts: Counts,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Mean latency of this worker's I/Os (per-thread percentiles are not kept: the run's
    /// histogram merges all threads).
    pub latency_mean_ns: f64,
    /// Its io_uring ring failed and it went on with pread/pwrite at depth 1.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fell_back: bool,
}

impl ThreadReport {
    pub fn of(t: &ThreadSample) -> Self {
        ThreadReport {
            id: t.id,
            elapsed_s: t.active_time.as_secs_f64(),
            counts: t.total,
            iops: per_second(t.total.ops, t.active_time),
            bw_bytes_per_s: per_second(t.total.bytes, t.active_time),
            latency_mean_ns: t.latency_mean_ns,
            fell_back: t.fell_back,
        }
    }
}

/// Everything a run reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    /// What made it, where and when (`Meta::default()`, unknown, in older files).
    #[serde(default)]
    pub meta: Meta,
    pub config: ConfigReport,
    pub total: TotalReport,
    /// The periods (`periods`), the last reset (`reset_at_s`) and the whole run's latency
    /// distribution (`latency_log2_ns`), flat in the JSON.
    #[serde(flatten)]
    pub periods: Periods,
    #[serde(default)]
    pub threads: Vec<ThreadReport>,
    /// One per second of running time, cut where a period ends (each names its `period`).
    pub intervals: Vec<IntervalFigures>,
    /// The settings in force at the end (they differ from `config`'s when they were changed
    /// during the run: TUI sliders, a sweep).
    pub final_settings: Settings,
    /// The first few failed or short I/Os, with offset and errno.
    #[serde(default)]
    pub errors: Vec<IoErrorRecord>,
    /// Intervals in which the process was stopped (SIGSTOP, Ctrl-Z): not in `total`.
    #[serde(default)]
    pub left_out: LeftOut,
    /// Written data still in the page cache at the end, and the `--end-fsync`; only for runs
    /// that wrote.
    #[serde(default)]
    pub writeback: Option<WritebackReport>,
    /// Set when the run was ended by a signal (e.g. "SIGINT").
    #[serde(default)]
    pub interrupted_by: Option<String>,
    /// Per period with a skewed `random_distribution`: the share of random I/Os on the
    /// hottest 1 % and 10 % of blocks, measured beside promised.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hot_spots: Vec<HotSpots>,
    /// CPU time the whole process used while the workers ran (headless runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuReport>,
    /// `findings`, `steady_state` and the NVMe thermal log: why the figures look as they do.
    #[serde(flatten)]
    pub why: WhyReport,
    /// `--verify`: what reading back the run's writes found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<super::verify::VerifyReport>,
    /// The last surface scan started from the run's screen (`S` in the TUI): its map and
    /// findings, as `--surface --json` writes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<Box<super::surface::SurfaceDoc>>,
}

/// User and system CPU seconds of the process (getrusage), over the run; fio's `usr_cpu` and
/// `sys_cpu` as times rather than shares of the runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuReport {
    pub user_s: f64,
    pub system_s: f64,
    /// (user + system) seconds per million complete I/Os.
    pub s_per_million_ios: f64,
}

/// What became of the written data when the I/O stopped. No "durable bandwidth" is derived:
/// rewrites of a cached page coalesce, so bytes written over sync time would overstate it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WritebackReport {
    /// Bytes of the target the page cache held dirty or under writeback (not yet on the
    /// device) when the workers stopped; `None` where the kernel cannot say (before 6.5).
    pub target_pending_bytes: Option<u64>,
    /// Dirty + Writeback of /proc/meminfo at the same moment: all files of the whole system.
    pub system_dirty_bytes: Option<u64>,
    /// How long the `--end-fsync` took; `None` when not asked or when it failed.
    pub end_fsync_s: Option<f64>,
    pub end_fsync_error: Option<String>,
}

impl RunReport {
    /// Builds the report from the run's last snapshot and its intervals; the caller adds
    /// its provenance and periods (`with_meta`, `with_periods`).
    pub fn new(config: ConfigReport, last: &Snapshot, intervals: Vec<IntervalFigures>) -> Self {
        RunReport {
            meta: Meta::default(),
            config,
            total: TotalReport {
                elapsed_s: last.total_elapsed.as_secs_f64(),
                counts: last.total,
                iops: last.total_iops(),
                bw_bytes_per_s: last.total_bw(),
                latency_ns: last.total_latency,
                service_latency_ns: last.total_service_latency,
                sides: ReadWrite::of(
                    &last.total,
                    last.total_elapsed,
                    [
                        last.sides.total_read,
                        last.sides.total_write,
                        last.sides.total_trim,
                    ],
                ),
            },
            periods: Periods::default(),
            hot_spots: Vec::new(),
            threads: last.threads.iter().map(ThreadReport::of).collect(),
            intervals,
            final_settings: last.settings,
            errors: last.first_errors.clone(),
            left_out: last.total_left_out,
            writeback: None,
            interrupted_by: None,
            cpu: None,
            why: WhyReport::default(),
            verify: None,
            surface: None,
        }
    }

    /// A second of nothing on `ConfigReport::example()`, for unit tests.
    #[cfg(test)]
    pub(crate) fn example() -> Self {
        RunReport {
            meta: Meta::default(),
            config: ConfigReport::example(),
            total: TotalReport {
                elapsed_s: 1.0,
                counts: Counts::default(),
                iops: 0.0,
                bw_bytes_per_s: 0.0,
                latency_ns: LatencySummary::default(),
                service_latency_ns: LatencySummary::default(),
                sides: None,
            },
            periods: Periods::default(),
            hot_spots: Vec::new(),
            threads: vec![],
            intervals: vec![],
            final_settings: Settings::default(),
            errors: vec![],
            left_out: LeftOut::default(),
            writeback: None,
            interrupted_by: None,
            cpu: None,
            why: WhyReport::default(),
            verify: None,
            surface: None,
        }
    }

    /// The same report saying what made it.
    pub fn with_meta(self, meta: Meta) -> Self {
        RunReport { meta, ..self }
    }

    /// The same report with its periods.
    pub fn with_periods(self, periods: Periods) -> Self {
        let hot_spots = HotSpots::of_all(&periods.list, self.config.target.span_bytes);
        RunReport {
            periods,
            hot_spots,
            ..self
        }
    }

    /// True when any I/O failed or came back short.
    pub fn had_io_errors(&self) -> bool {
        self.total.counts.errors > 0 || self.total.counts.short_ios > 0
    }

    /// True when any I/O failed or came back short, or a `--verify` read back a bad stamp:
    /// what makes a run end with exit status 3.
    pub fn had_errors(&self) -> bool {
        self.had_io_errors() || self.verify.as_ref().is_some_and(|v| v.any_bad())
    }
}

impl CpuReport {
    /// The CPU used between two readings of the process's (user, system) seconds, for `ios`
    /// complete I/Os.
    pub fn between(start: (f64, f64), end: (f64, f64), ios: u64) -> CpuReport {
        let (user_s, system_s) = (end.0 - start.0, end.1 - start.1);
        CpuReport {
            user_s,
            system_s,
            s_per_million_ios: if ios > 0 {
                (user_s + system_s) * 1e6 / ios as f64
            } else {
                0.0
            },
        }
    }
}
