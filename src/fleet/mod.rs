//! The same benchmark on many servers, through fio's client/server mode: each host runs
//! `fio --server`, and diskscope — the controller — writes one self-contained job file
//! (`fio::job::FioJob::fleet`, the writer `--fio` uses too), runs one `fio --client`
//! per host in parallel (`fio::client`), shows their live state (`live`), and reads what they
//! return as its own results (`results`): per-host totals and seconds, the aggregate, the
//! hosts that fall behind. No network protocol of diskscope's own: fio's is the one used.
//!
//! Safety: fio on a remote host cannot be held to diskscope's mount and stack checks (fio
//! only string-matches mtab, fio issue #1007), so a fleet run is read-only on block devices
//! and writes only to regular files, with `--allow-write`; fio never creates or lays out a
//! file on a fleet run (`allow_file_create=0`, `size=100%`).

pub mod hosts;
pub mod live;
pub mod results;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use crate::fio::client::{self, HostEvent, Job};
use crate::fio::job::FioJob;
use crate::model::{ConfigReport, TargetFacts, TargetKind};
use crate::settings::{IoEngine, Settings};
use hosts::Host;
use results::HostResult;

pub use crate::model::fleet::{FleetConfig, FleetReport};

/// Default share below the fleet's median IOPS that makes a host an outlier.
pub const DEFAULT_OUTLIER_PCT: f64 = crate::findings::thresholds::OUTLIER_BELOW_MEDIAN_PCT;

/// A fleet writes only to regular files: on a block device (a path under /dev/) it is
/// read-only, since fio on a remote host cannot be held to diskscope's mount checks.
pub fn check_writes(target: &str, read_pct: u8) -> Result<(), String> {
    if read_pct < 100 && target.starts_with("/dev/") {
        return Err(format!(
            "--fleet {}: a fleet writes only to regular files; on block devices it is \
             read-only, since fio on a remote host cannot be held to diskscope's mount \
             checks. Use --read 100, or a file path",
            crate::units::visible(target)
        ));
    }
    Ok(())
}

/// What a fleet runs, checked.
#[derive(Debug, Clone)]
pub struct FleetSpec {
    pub hosts: Vec<Host>,
    /// The path on every host.
    pub target: String,
    pub config: ConfigReport,
    pub outlier_pct: f64,
    pub runtime: Duration,
    /// The fio binary on this machine.
    pub fio: PathBuf,
    pub job_file: String,
}

/// One thing that happened during a fleet run.
#[derive(Debug, Clone, PartialEq)]
pub enum FleetEvent {
    Host(usize, HostEvent),
    /// A second passed.
    Tick,
}

impl FleetSpec {
    /// A fleet of `hosts` running `settings` on `target` (the path on each host).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        hosts: Vec<Host>,
        target: &str,
        settings: Settings,
        ioengine: Option<IoEngine>,
        direct: bool,
        write_allowed: bool,
        durability: crate::model::Durability,
        runtime: Duration,
        outlier_pct: f64,
        fio: PathBuf,
        drop_cache: bool,
    ) -> Result<FleetSpec, String> {
        let device = target.starts_with("/dev/");
        check_writes(target, settings.read_pct)?;
        // psync keeps one I/O in flight; a deeper queue needs io_uring on the hosts.
        let ioengine = ioengine.unwrap_or(if settings.iodepth > 1 {
            IoEngine::IoUring
        } else {
            IoEngine::Psync
        });
        let facts = TargetFacts {
            path: target.to_string(),
            kind: if device {
                TargetKind::BlockDevice
            } else {
                TargetKind::RegularFile
            },
            size_bytes: 0,
            device_bytes: None,
            span_bytes: 0,
            logical_block_size: 512,
            direct,
            write_allowed,
        };
        let mut config =
            ConfigReport::new(facts, settings, Some(runtime)).with_engine(Some(ioengine), None);
        config.durability = durability;
        // --drop-cache: fio on each host evicts the target's cached pages first.
        let job_file = FioJob::fleet(&config)?.drop_cache(drop_cache).job_file();
        Ok(FleetSpec {
            hosts,
            target: target.to_string(),
            config,
            outlier_pct,
            runtime,
            fio,
            job_file,
        })
    }

    /// What the report says was run.
    pub fn fleet_config(&self) -> FleetConfig {
        FleetConfig {
            target: self.target.clone(),
            hosts: self.hosts.clone(),
            settings: self.config.settings,
            ioengine: self.config.ioengine,
            direct: self.config.target.direct,
            duration_s: self.runtime.as_secs_f64(),
            write_allowed: self.config.target.write_allowed,
            outlier_pct: self.outlier_pct,
            fio_version: crate::fio::fio_version(&self.fio),
            latency_basis: crate::model::LATENCY_BASIS.to_string(),
        }
    }
}

/// Runs the fleet: every host at once, `on_event` called in this thread as things happen
/// (and once a second); `stop` asks every host's fio to stop early (it still reports).
pub fn run(
    spec: &FleetSpec,
    stop: &(dyn Fn() -> bool + Sync),
    on_event: &mut dyn FnMut(&FleetEvent),
) -> Result<FleetReport, String> {
    let job_path = std::env::temp_dir().join(format!("diskscope-fleet-{}.fio", std::process::id()));
    std::fs::write(&job_path, &spec.job_file)
        .map_err(|e| format!("{}: cannot write the job file: {e}", job_path.display()))?;
    let job = Job {
        fio: &spec.fio,
        job_file: &job_path,
        target: &spec.target,
        bs: spec.config.settings.bs,
        runtime: spec.runtime,
        writes: spec.config.settings.read_pct < 100,
    };
    let (tx, rx) = mpsc::channel();
    let outcomes = std::thread::scope(|s| {
        let handles: Vec<_> = spec
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let tx = tx.clone();
                let job = &job;
                s.spawn(move || {
                    client::run_host(&h.name, h.port, job, stop, &|e| {
                        let _ = tx.send(FleetEvent::Host(i, e));
                    })
                })
            })
            .collect();
        drop(tx);
        let mut next_tick = std::time::Instant::now() + Duration::from_secs(1);
        loop {
            let wait = next_tick.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(wait) {
                Ok(e) => on_event(&e),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    on_event(&FleetEvent::Tick);
                    next_tick += Duration::from_secs(1);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect::<Vec<_>>()
    });
    let _ = std::fs::remove_file(&job_path);
    let hosts: Vec<HostResult> = spec
        .hosts
        .iter()
        .zip(&outcomes)
        .map(|(h, o)| results::host_result(h, &o.entries, o.failure.clone()))
        .collect();
    Ok(results::report(
        spec.fleet_config(),
        hosts,
        spec.job_file.clone(),
    ))
}
