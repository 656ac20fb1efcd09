//! Results that outlive the screen: the `RunReport` built from the snapshots of a headless run,
//! and its renderings as text lines, a text summary, JSON and CSV. Nothing here talks to the
//! engine; it only reads snapshots and windows.

use serde::Serialize;

use crate::settings::{IoEngine, Settings};
use crate::stats::snapshot::per_second;
use crate::stats::{
    Counts, IntervalFigures, IoErrorRecord, LatencySummary, LeftOut, Snapshot, ThreadSample,
};
use crate::sweep::{Dimension, LatencyCurve, PartialStep, Saturation};

/// What was tested and how.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigReport {
    pub target: String,
    pub target_kind: TargetKind,
    pub size_bytes: u64,
    /// Size of the block device the target is or lives on, when known.
    pub device_bytes: Option<u64>,
    pub span_bytes: u64,
    pub logical_block_size: u32,
    pub direct: bool,
    pub write_allowed: bool,
    /// Settings at the start of the run.
    pub threads: usize,
    /// I/Os in flight per thread (fio's iodepth).
    pub iodepth: usize,
    pub bs: u64,
    pub read_pct: u8,
    pub random_pct: u8,
    /// Total I/Os per second asked (0: unlimited); see `latency_basis`.
    pub rate_iops: u64,
    /// The requested run length, if any.
    pub duration_s: Option<f64>,
    /// "io_uring" or "psync" (fio's names).
    pub ioengine: IoEngine,
    /// Why the run is on psync although io_uring was not refused by the user: said once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ioengine_fallback: Option<String>,
    /// What a latency spans (`LATENCY_BASIS`).
    pub latency_basis: &'static str,
    /// `--fsync` and `--end-fsync`.
    #[serde(flatten)]
    pub durability: Durability,
    pub warnings: Vec<String>,
}

/// What kind of target a run measured; JSON says "block_device", "regular_file" or
/// "scratch_file".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    ScratchFile,
    BlockDevice,
    RegularFile,
}

/// The target's side of a `ConfigReport`: measured after opening it, or (for `--fio`) what
/// fio will lay out.
#[derive(Debug, Clone)]
pub struct TargetFacts {
    pub path: String,
    pub kind: TargetKind,
    pub size_bytes: u64,
    pub device_bytes: Option<u64>,
    pub span_bytes: u64,
    pub logical_block_size: u32,
    pub direct: bool,
    pub write_allowed: bool,
}

/// What every latency figure measures: fio's total latency `lat`, not its `clat`.
pub const LATENCY_BASIS: &str = "submission to completion reaped (fio's lat)";
/// What `latency_ns` measures with a rate: from the I/O's slot on its thread's timetable, so a
/// stall's backlog counts (coordinated omission corrected); `service_latency_ns` is then
/// `LATENCY_BASIS`.
pub const LATENCY_BASIS_PACED: &str = "due time on the rate's timetable to completion reaped (coordinated omission corrected); service_latency_ns: submission to completion reaped (fio's lat)";

/// What a latency spans at this rate (0: unlimited).
pub fn latency_basis(rate_iops: u64) -> &'static str {
    if rate_iops > 0 {
        LATENCY_BASIS_PACED
    } else {
        LATENCY_BASIS
    }
}

/// How writes are made durable, like fio's `fsync=N` and `end_fsync=1`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Durability {
    /// fdatasync after every this many writes of each thread; 0: never.
    pub fsync_every: u32,
    /// One fdatasync of the target after the run, timed and reported.
    pub end_fsync: bool,
}

impl ConfigReport {
    /// A target run with `s` for `duration` (`None`: until quit), no durability asked and no
    /// warnings yet.
    pub fn new(t: TargetFacts, s: Settings, duration: Option<std::time::Duration>) -> Self {
        ConfigReport {
            target: t.path,
            target_kind: t.kind,
            size_bytes: t.size_bytes,
            device_bytes: t.device_bytes,
            span_bytes: t.span_bytes,
            logical_block_size: t.logical_block_size,
            direct: t.direct,
            write_allowed: t.write_allowed,
            threads: s.threads,
            iodepth: s.iodepth,
            bs: s.bs,
            read_pct: s.read_pct,
            random_pct: s.random_pct,
            rate_iops: s.rate_iops,
            duration_s: duration.map(|d| d.as_secs_f64()),
            ioengine: IoEngine::Psync,
            ioengine_fallback: None,
            latency_basis: latency_basis(s.rate_iops),
            durability: Durability::default(),
            warnings: Vec::new(),
        }
    }

    /// Records the engine the run uses; a fallback to psync is also a warning, said once.
    pub fn with_engine(mut self, engine: Option<IoEngine>, fallback: Option<String>) -> Self {
        self.ioengine = engine.unwrap_or_default();
        self.warnings.extend(fallback.iter().cloned());
        self.ioengine_fallback = fallback;
        self
    }

    /// The same description with other settings (the ones in force now, a sweep's base).
    pub fn with_settings(self, s: Settings) -> Self {
        ConfigReport {
            threads: s.threads,
            iodepth: s.iodepth,
            bs: s.bs,
            read_pct: s.read_pct,
            random_pct: s.random_pct,
            rate_iops: s.rate_iops,
            latency_basis: latency_basis(s.rate_iops),
            ..self
        }
    }

    /// Sets the durability options and says plainly what buffered writes measure.
    pub fn with_durability(mut self, d: Durability) -> Self {
        self.durability = d;
        let writes = self.read_pct < 100;
        if !self.direct && writes && d.fsync_every == 0 {
            self.warnings.push(format!(
                "buffered writes go to the page cache: the write figures measure memory, not the disk (nothing here waits for the device); add --fsync N to sync every N writes per thread{}, or drop --buffered",
                if d.end_fsync { "" } else { " and --end-fsync to time the final flush" }
            ));
        }
        if !writes && (d.fsync_every > 0 || d.end_fsync) {
            self.warnings.push(format!(
                "--fsync and --end-fsync do nothing here: --read {} writes nothing",
                self.read_pct
            ));
        }
        self
    }

    /// A 1 GiB block device at default settings, for unit tests.
    #[cfg(test)]
    pub(crate) fn example() -> Self {
        ConfigReport {
            target: "/dev/sdb".into(),
            target_kind: TargetKind::BlockDevice,
            size_bytes: 1 << 30,
            device_bytes: Some(1 << 30),
            span_bytes: 1 << 30,
            logical_block_size: 512,
            direct: true,
            write_allowed: false,
            threads: 1,
            iodepth: 1,
            bs: 4096,
            read_pct: 100,
            random_pct: 100,
            rate_iops: 0,
            duration_s: None,
            ioengine: IoEngine::Psync,
            ioengine_fallback: None,
            latency_basis: LATENCY_BASIS,
            durability: Durability::default(),
            warnings: vec![],
        }
    }

    pub fn settings(&self) -> Settings {
        Settings {
            threads: self.threads,
            iodepth: self.iodepth,
            bs: self.bs,
            read_pct: self.read_pct,
            random_pct: self.random_pct,
            rate_iops: self.rate_iops,
        }
    }
}

/// Cumulative figures of the whole run.
#[derive(Debug, Clone, Serialize)]
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
    pub service_latency_ns: LatencySummary,
}

/// One worker over the whole run.
#[derive(Debug, Clone, Serialize)]
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
        }
    }
}

/// Everything a headless run reports.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub config: ConfigReport,
    pub total: TotalReport,
    pub threads: Vec<ThreadReport>,
    pub intervals: Vec<IntervalFigures>,
    /// The settings in force at the end (they differ from `config`'s when they were changed
    /// during the run: TUI sliders, a sweep).
    pub final_settings: Settings,
    /// The first few failed or short I/Os, with offset and errno.
    pub errors: Vec<IoErrorRecord>,
    /// Intervals in which the process was stopped (SIGSTOP, Ctrl-Z): not in `total`.
    pub left_out: LeftOut,
    /// Written data still in the page cache at the end, and the `--end-fsync`; only for runs
    /// that wrote.
    pub writeback: Option<WritebackReport>,
    /// Set when the run was ended by a signal (e.g. "SIGINT").
    pub interrupted_by: Option<String>,
    /// CPU time the whole process used while the workers ran (headless runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuReport>,
}

/// User and system CPU seconds of the process (getrusage), over the run; fio's `usr_cpu` and
/// `sys_cpu` as times rather than shares of the runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CpuReport {
    pub user_s: f64,
    pub system_s: f64,
    /// (user + system) seconds per million complete I/Os.
    pub s_per_million_ios: f64,
}

impl CpuReport {
    /// The process's user and system CPU seconds so far.
    pub fn now() -> (f64, f64) {
        use nix::sys::resource::{UsageWho, getrusage};
        let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        getrusage(UsageWho::RUSAGE_SELF)
            .map(|u| (secs(u.user_time()), secs(u.system_time())))
            .unwrap_or_default()
    }

    /// The CPU used since `start` (from `now`), for `ios` complete I/Os.
    pub fn since(start: (f64, f64), ios: u64) -> CpuReport {
        let (user, system) = Self::now();
        let (user_s, system_s) = (user - start.0, system - start.1);
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

/// What became of the written data when the I/O stopped. No "durable bandwidth" is derived:
/// rewrites of a cached page coalesce, so bytes written over sync time would overstate it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
    /// Builds the report from the run's last snapshot and its intervals.
    pub fn new(config: ConfigReport, last: &Snapshot, intervals: Vec<IntervalFigures>) -> Self {
        RunReport {
            config,
            total: TotalReport {
                elapsed_s: last.total_elapsed.as_secs_f64(),
                counts: last.total,
                iops: last.total_iops(),
                bw_bytes_per_s: last.total_bw(),
                latency_ns: last.total_latency,
                service_latency_ns: last.total_service_latency,
            },
            threads: last.threads.iter().map(ThreadReport::of).collect(),
            intervals,
            final_settings: last.settings,
            errors: last.first_errors.clone(),
            left_out: last.total_left_out,
            writeback: None,
            interrupted_by: None,
            cpu: None,
        }
    }

    /// True when any I/O failed or came back short.
    pub fn had_io_errors(&self) -> bool {
        self.total.counts.errors > 0 || self.total.counts.short_ios > 0
    }
}

/// Everything a sweep reports.
#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
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
}
