//! Running targets together, without a screen: their engines started as a `Group`, every
//! snapshot put on the group's clock and cut into shared seconds, each second handed to the
//! caller (for its lines), until `-T` of run time has passed or a stop is asked; then each
//! target's report, the aggregate, the outliers, and the kernel's count of every device and
//! the CPU over the run. `each_then_all` runs every target alone first, then all together,
//! and says what the two show.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::clock::{Clock, SharedSeconds};
use super::collect::{Collector, Finish, Identity, Report, kernel_count};
use super::cpu::{CpuTimes, process_seconds};
use super::group::Group;
use crate::diskstats::{DiskCounters, parse_diskstats};
use crate::engine::{Options, SnapshotSink};
use crate::findings::Finding;
use crate::findings::conditions::{Conditions, Detector, Pacing, ask};
use crate::findings::shared_limit::{self, AloneTogether};
use crate::model::CpuReport;
use crate::model::disks::AloneRun;
use crate::settings::Settings;
use crate::stats::{IntervalFigures, Snapshot};
use crate::target::open::Target;

/// Rows kept per target: an hour of seconds, as the TUI keeps.
const MAX_ROWS: usize = 3600;

/// One target of the run.
pub struct Member {
    pub target: Arc<Target>,
    pub id: Identity,
}

/// How every target runs.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub settings: Settings,
    pub options: Options,
    /// Run time of the run (of each phase, with `each_then_all`).
    pub duration: Duration,
    pub outlier_pct: f64,
}

/// What happened, for the caller's lines.
pub enum Progress<'a> {
    /// A phase of `each_then_all` begins: the targets about to run (one alone, or all).
    Phase(&'a [&'a Member]),
    /// A shared second: each target's row (`None`: it had no snapshot in it) and the sum.
    Second(&'a [Option<IntervalFigures>], &'a IntervalFigures),
}

/// One phase's result.
pub struct Phase {
    pub report: Report,
    pub cpu: CpuReport,
    /// How busy the machine's CPUs were, percent of all cores.
    pub cpu_busy_pct: Option<f64>,
}

enum Msg {
    Snapshot(usize, Box<Snapshot>, Instant),
    Done(usize),
}

/// Hands engine `i`'s snapshots, stamped with the time they were handed over, to the runner.
struct Stamped(usize, Sender<Msg>);

impl SnapshotSink for Stamped {
    fn send(&mut self, s: Snapshot) -> bool {
        self.1
            .send(Msg::Snapshot(self.0, Box::new(s), Instant::now()))
            .is_ok()
    }
    fn done(&mut self) {
        let _ = self.1.send(Msg::Done(self.0));
    }
}

fn diskstats() -> Vec<(String, DiskCounters)> {
    std::fs::read_to_string("/proc/diskstats")
        .map(|t| parse_diskstats(&t))
        .unwrap_or_default()
}

/// Runs `members` together for `plan.duration` of run time, or until `stop()`.
pub fn run(
    members: &[&Member],
    plan: &Plan,
    stop: &dyn Fn() -> bool,
    on: &mut dyn FnMut(Progress),
) -> Result<Phase, String> {
    let n = members.len();
    let targets: Vec<Arc<Target>> = members.iter().map(|m| m.target.clone()).collect();
    let (tx, rx) = mpsc::channel();
    let before = Readings::take();
    let origin = Instant::now();
    let group = Group::start(&targets, plan.settings, plan.options, |i| {
        Box::new(Stamped(i, tx.clone()))
    })?;
    drop(tx);
    let mut shared = SharedSeconds::new(Clock::new(origin, n), n);
    let mut collector = Collector::new(n, MAX_ROWS);
    let mut lasts: Vec<Option<Snapshot>> = vec![None; n];
    let mut stopped = vec![Duration::ZERO; n];
    let (mut stopping, mut done) = (false, 0);
    let mut handle = |seconds: Vec<super::clock::Second>, c: &mut Collector| {
        for s in seconds {
            let (rows, sum) = c.second(&s);
            on(Progress::Second(&rows, &sum));
        }
    };
    while done < n {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Msg::Snapshot(i, s, received)) => {
                let (end, seconds) = shared.push(i, &s, received);
                if s.stopped.is_some() {
                    stopped[i] += s.interval_elapsed;
                }
                if !stopping && end.saturating_sub(stopped[i]) >= plan.duration {
                    stopping = true;
                    shared.close();
                    group.request_stop();
                }
                handle(seconds, &mut collector);
                lasts[i] = Some(*s);
            }
            Ok(Msg::Done(i)) => {
                done += 1;
                handle(shared.done(i), &mut collector);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if !stopping && stop() {
            stopping = true;
            shared.close();
            group.request_stop();
        }
    }
    group.join();
    before.phase(members, (&collector, &shared), &lasts, plan.outlier_pct)
}

/// What is read around a phase: the kernel's counters of every device, the machine's CPU
/// times and this process's CPU seconds.
struct Readings {
    kernel: Vec<(String, DiskCounters)>,
    cpu: Option<CpuTimes>,
    process: (f64, f64),
}

impl Readings {
    fn take() -> Readings {
        Readings {
            kernel: diskstats(),
            cpu: CpuTimes::read("/proc".as_ref()),
            process: process_seconds(),
        }
    }

    /// The phase's result, read again now that its engines have stopped.
    fn phase(
        self,
        members: &[&Member],
        (collector, shared): (&Collector, &SharedSeconds),
        lasts: &[Option<Snapshot>],
        outlier_pct: f64,
    ) -> Result<Phase, String> {
        let after = Readings::take();
        let cpu_busy_pct = self
            .cpu
            .zip(after.cpu)
            .and_then(|(a, b)| b.busy_pct_since(&a));
        let identities: Vec<Identity> = members.iter().map(|m| m.id.clone()).collect();
        let kernel = identities
            .iter()
            .map(|id| kernel_count(&self.kernel, &after.kernel, id.device.as_deref()?))
            .collect();
        let report = collector.finish(&Finish {
            identities: &identities,
            lasts: lasts.iter().map(Option::as_ref).collect(),
            periods: (0..members.len())
                .map(|i| Some(shared.periods(i)))
                .collect(),
            kernel,
            outlier_pct,
            cpu_busy_pct,
        })?;
        let ios: u64 = report
            .targets
            .iter()
            .map(|t| t.run.total.counts.ops + t.run.left_out.counts.ops)
            .sum();
        Ok(Phase {
            report,
            cpu: CpuReport::between(self.process, after.process, ios),
            cpu_busy_pct,
        })
    }
}

/// What `each_then_all` measured.
pub struct EachThenAll {
    /// Each target alone, in the order given (fewer when a stop came).
    pub alone: Vec<AloneRun>,
    /// All together; `None` when a stop came before it.
    pub together: Option<Phase>,
    /// Alone against together, in words.
    pub findings: Vec<Finding>,
}

/// Every target alone, then all together, each for `plan.duration`; `shared_parents` are
/// the sentences `target::parent::shared` made of them.
pub fn each_then_all(
    members: &[&Member],
    plan: &Plan,
    shared_parents: Vec<String>,
    stop: &dyn Fn() -> bool,
    on: &mut dyn FnMut(Progress),
) -> Result<EachThenAll, String> {
    let mut alone = Vec::with_capacity(members.len());
    let cut_short = |alone| EachThenAll {
        alone,
        together: None,
        findings: vec![],
    };
    for m in members {
        if stop() {
            return Ok(cut_short(alone));
        }
        let one = [*m];
        on(Progress::Phase(&one));
        let mut phase = run(&one, plan, stop, on)?;
        let mut target = phase.report.targets.remove(0);
        target.run.cpu = Some(phase.cpu);
        alone.push(AloneRun {
            target,
            cpu_busy_pct: phase.cpu_busy_pct,
        });
    }
    if stop() {
        return Ok(cut_short(alone));
    }
    on(Progress::Phase(members));
    let together = run(members, plan, stop, on)?;
    // Alone against together says something of the disks only where they set the pace:
    // targets that kept a --rate cap alone and together add up whatever they share.
    let group = Conditions {
        direct: alone.iter().all(|a| a.target.run.config.target.direct),
        pacing: pacing_of(alone.iter().map(|a| &a.target.run)),
        rows: 1,
        targets: members.len(),
        ..Conditions::default()
    };
    let findings = ask(&group, Detector::SharedLimit, || {
        shared_limit::findings(&AloneTogether {
            alone_sum_bw_bytes_per_s: alone
                .iter()
                .map(|a| a.target.run.total.bw_bytes_per_s)
                .sum(),
            together_bw_bytes_per_s: together.report.aggregate.bw_bytes_per_s,
            cpu_busy_pct: together.cpu_busy_pct,
            shared_parents,
        })
    });
    Ok(EachThenAll {
        alone,
        together: Some(together),
        findings,
    })
}

/// Paced by the cap when any run alone kept its `--rate` (its timetable never fell behind):
/// its figure alone is the cap's, not the disk's.
fn pacing_of<'a>(runs: impl Iterator<Item = &'a crate::model::RunReport>) -> Pacing {
    let mut pacing = Pacing::Unpaced;
    for r in runs {
        let s = &r.config.settings;
        let c = &r.total.counts;
        match Pacing::of(s.rate_iops, c.due, c.issued, s.threads) {
            Pacing::AtCap => return Pacing::AtCap,
            Pacing::BehindCap => pacing = Pacing::BehindCap,
            Pacing::Unpaced => {}
        }
    }
    pacing
}
