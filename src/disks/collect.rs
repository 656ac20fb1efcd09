//! From shared seconds to the report: each target's one-second rows, the aggregate's row of
//! every second (counts added, each target's rate over its own window added, latency from
//! the targets' histograms merged), every target's latencies in one histogram for the whole
//! run, and at the end each target's `RunReport` with its identity, the aggregate, the
//! outliers and the kernel's count of every device. Used alike by the headless runner and
//! the TUI; it holds data only (no clock, no I/O).

use std::collections::VecDeque;

use super::clock::Second;
use crate::findings::conditions::{Conditions, Detector};
use crate::findings::{Finding, outliers};
use crate::model::disks::{Aggregate, KernelCount, TargetRun};
use crate::model::{ConfigReport, RunReport};
use crate::stats::snapshot::per_second;
use crate::stats::{
    Counts, IntervalFigures, Latency, LeftOut, PeriodTracker, ReadWrite, SideLatency, Snapshot,
    Window,
};

/// Who a target is, for tables and reports.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The kernel's name for a device (`sdb`), else the path as given.
    pub name: String,
    pub model: Option<String>,
    /// The link's short label.
    pub link: Option<String>,
    /// Its device's name in /proc/diskstats (the device under a file's filesystem).
    pub device: Option<String>,
    /// What its `RunReport` says it measured.
    pub config: ConfigReport,
}

#[derive(Debug, Clone, Default)]
struct Rows {
    rows: VecDeque<IntervalFigures>,
    latency: Latency,
    service: Latency,
}

/// The rows and merged latencies of a run so far.
#[derive(Debug, Clone)]
pub struct Collector {
    targets: Vec<Rows>,
    aggregate: VecDeque<IntervalFigures>,
    all_latency: Latency,
    all_service: Latency,
    /// Every target's latencies, reads and writes apart.
    all_sides: SideLatency,
    /// Rows kept per target (the last ones): bounds a run left open for days.
    max_rows: usize,
}

impl Collector {
    pub fn new(targets: usize, max_rows: usize) -> Collector {
        Collector {
            targets: vec![Rows::default(); targets],
            aggregate: VecDeque::new(),
            all_latency: Latency::default(),
            all_service: Latency::default(),
            all_sides: SideLatency::default(),
            max_rows,
        }
    }

    /// Takes in a shared second; returns each target's row of it (`None` where a target had
    /// no snapshot in it) and the aggregate's.
    pub fn second(&mut self, s: &Second) -> (Vec<Option<IntervalFigures>>, IntervalFigures) {
        let rows: Vec<Option<IntervalFigures>> = s
            .windows
            .iter()
            .zip(&s.ends)
            .zip(&s.periods)
            .map(|((w, end), period)| {
                (w.snapshots > 0).then(|| {
                    let mut f = w.figures();
                    if let Some(end) = end {
                        f.t_s = end.as_secs_f64();
                    }
                    // The period's id for now; `finish` turns it into its index.
                    f.period = *period;
                    f
                })
            })
            .collect();
        for ((t, w), row) in self.targets.iter_mut().zip(&s.windows).zip(&rows) {
            t.latency.add(&w.latency);
            t.service.add(&w.service_latency);
            self.all_latency.add(&w.latency);
            self.all_service.add(&w.service_latency);
            self.all_sides.add(&w.sides);
            if let Some(r) = row {
                push_bounded(&mut t.rows, r.clone(), self.max_rows);
            }
        }
        let aggregate = aggregate_row(&s.windows, &rows);
        push_bounded(&mut self.aggregate, aggregate.clone(), self.max_rows);
        (rows, aggregate)
    }

    /// Forgets everything (the engines' statistics were reset).
    pub fn reset(&mut self) {
        *self = Collector::new(self.targets.len(), self.max_rows);
    }

    /// Target `i`'s rows so far (each row's `period` the id of its period).
    pub fn rows(&self, i: usize) -> Vec<IntervalFigures> {
        self.targets[i].rows.iter().cloned().collect()
    }

    /// Target `i`'s report: its rows, each naming its period by index in `periods` (none
    /// where the period went with a reset), and those periods.
    fn run(
        &self,
        i: usize,
        config: ConfigReport,
        last: &Snapshot,
        periods: Option<&PeriodTracker>,
    ) -> RunReport {
        let mut rows = self.rows(i);
        for r in &mut rows {
            r.period = r.period.zip(periods).and_then(|(id, p)| p.index_of(id));
        }
        let run = RunReport::new(config, last, rows);
        match periods {
            Some(p) => run.with_periods(p.report()),
            None => run,
        }
    }

    /// The report's per-target runs and aggregate, from each target's last snapshot (`None`
    /// where an engine sent none: left out), the kernel's counts, the outlier share and how
    /// busy the CPU was. Also returns the outliers' names and the findings that say them.
    pub fn finish(&self, end: &Finish) -> Result<Report, String> {
        let mut targets = Vec::with_capacity(self.targets.len());
        for (i, id) in end.identities.iter().enumerate() {
            let last = end.lasts[i].ok_or_else(|| {
                format!("{}: the engine stopped before its first snapshot", id.name)
            })?;
            targets.push(TargetRun {
                name: id.name.clone(),
                model: id.model.clone(),
                link: id.link.clone(),
                device: id.device.clone(),
                kernel: end.kernel.get(i).copied().flatten(),
                below_median_pct: None,
                run: self.run(
                    i,
                    id.config.clone(),
                    last,
                    end.periods.get(i).copied().flatten(),
                ),
            });
        }
        let iops: Vec<Option<f64>> = targets.iter().map(|t| Some(t.run.total.iops)).collect();
        let mut verdict = outliers::judge(&iops, end.outlier_pct);
        let group = Conditions {
            direct: targets.iter().all(|t| t.run.config.target.direct),
            rows: 1,
            targets: targets.len(),
            ..Conditions::default()
        };
        if !group.allows(Detector::Outlier) {
            verdict.below_pct.fill(None);
        }
        let mut findings = Vec::new();
        let mut names = Vec::new();
        for (t, below) in targets.iter_mut().zip(&verdict.below_pct) {
            t.below_median_pct = *below;
            if let Some(b) = below {
                names.push(t.name.clone());
                findings.push(outliers::finding(&t.name, *b, verdict.members));
            }
        }
        let mut counts = Counts::default();
        for t in &targets {
            counts.add(&t.run.total.counts);
        }
        let aggregate = Aggregate {
            targets: targets.len(),
            elapsed_s: targets
                .iter()
                .map(|t| t.run.total.elapsed_s)
                .fold(0.0, f64::max),
            counts,
            iops: targets.iter().map(|t| t.run.total.iops).sum(),
            bw_bytes_per_s: targets.iter().map(|t| t.run.total.bw_bytes_per_s).sum(),
            latency_ns: self.all_latency.summary(),
            service_latency_ns: self.all_service.summary(),
            median_iops: verdict.median,
            cpu_busy_pct: end.cpu_busy_pct,
            intervals: self.aggregate.iter().cloned().collect(),
            sides: total_sides(&targets, &counts, &self.all_sides),
        };
        Ok(Report {
            targets,
            aggregate,
            outliers: names,
            findings,
        })
    }
}

/// What `Collector::finish` needs beyond the rows.
pub struct Finish<'a> {
    pub identities: &'a [Identity],
    pub lasts: Vec<Option<&'a Snapshot>>,
    /// Each target's periods (`SharedSeconds::periods`).
    pub periods: Vec<Option<&'a PeriodTracker>>,
    pub kernel: Vec<Option<KernelCount>>,
    pub outlier_pct: f64,
    pub cpu_busy_pct: Option<f64>,
}

/// The parts of a `DisksReport` a run produces.
#[derive(Debug, Clone)]
pub struct Report {
    pub targets: Vec<TargetRun>,
    pub aggregate: Aggregate,
    pub outliers: Vec<String>,
    pub findings: Vec<Finding>,
}

/// The aggregate's row of one second: counts added, each target's rate over its own window
/// added, latency merged from the windows' histograms; its time and length are the latest
/// end and the longest window among the targets.
pub fn aggregate_row(windows: &[Window], rows: &[Option<IntervalFigures>]) -> IntervalFigures {
    let mut counts = Counts::default();
    let mut latency = Latency::default();
    let mut service = Latency::default();
    let mut left_out = LeftOut::default();
    for w in windows {
        counts.add(&w.counts);
        latency.add(&w.latency);
        service.add(&w.service_latency);
        left_out.merge(&w.left_out);
    }
    let present = || rows.iter().flatten();
    IntervalFigures {
        t_s: present().map(|r| r.t_s).fold(0.0, f64::max),
        elapsed_s: present().map(|r| r.elapsed_s).fold(0.0, f64::max),
        settings: present().next().map(|r| r.settings).unwrap_or_default(),
        counts,
        iops: present().map(|r| r.iops).sum(),
        bw_bytes_per_s: present().map(|r| r.bw_bytes_per_s).sum(),
        latency_ns: latency.summary(),
        service_latency_ns: service.summary(),
        left_out,
        // Several drives have no one temperature; each target's own seconds carry none either
        // (no sensor is read per target yet).
        temp_c: None,
        // The aggregate's seconds are not cut into periods yet (each target's run screen
        // keeps its own).
        period: None,
        sides: aggregate_sides(windows, &counts),
    }
}

/// Reads, writes and trims apart in the aggregate's totals: ops and bytes added, each target's rate
/// added, each direction's latency merged from every target's.
fn total_sides(targets: &[TargetRun], counts: &Counts, latency: &SideLatency) -> Option<ReadWrite> {
    let mut rw = latency.figures(counts, std::time::Duration::ZERO)?;
    let sum = |pick: fn(&ReadWrite) -> f64| -> f64 {
        targets
            .iter()
            .filter_map(|t| t.run.total.sides.as_ref())
            .map(pick)
            .sum()
    };
    rw.read.iops = sum(|s| s.read.iops);
    rw.read.bw_bytes_per_s = sum(|s| s.read.bw_bytes_per_s);
    rw.write.iops = sum(|s| s.write.iops);
    rw.write.bw_bytes_per_s = sum(|s| s.write.bw_bytes_per_s);
    rw.trim.iops = sum(|s| s.trim.iops);
    rw.trim.bw_bytes_per_s = sum(|s| s.trim.bw_bytes_per_s);
    Some(rw)
}

/// Reads, writes and trims apart in the aggregate's row, as its totals: ops and bytes added, each
/// target's rate over its own window added, each direction's latency merged.
fn aggregate_sides(windows: &[Window], counts: &Counts) -> Option<ReadWrite> {
    let mut latency = SideLatency::default();
    for w in windows {
        latency.add(&w.sides);
    }
    let mut rw = latency.figures(counts, std::time::Duration::ZERO)?;
    let rate = |count: fn(&Counts) -> u64| -> f64 {
        windows
            .iter()
            .map(|w| per_second(count(&w.counts), w.elapsed))
            .sum()
    };
    rw.read.iops = rate(|c| c.read_ops);
    rw.read.bw_bytes_per_s = rate(|c| c.read_bytes);
    rw.write.iops = rate(|c| c.write_ops);
    rw.write.bw_bytes_per_s = rate(|c| c.write_bytes);
    rw.trim.iops = rate(|c| c.trim_ops);
    rw.trim.bw_bytes_per_s = rate(|c| c.trim_bytes);
    Some(rw)
}

fn push_bounded<T>(q: &mut VecDeque<T>, v: T, cap: usize) {
    if q.len() == cap {
        q.pop_front();
    }
    q.push_back(v);
}

/// The kernel's counts of `device` between two readings of /proc/diskstats.
pub fn kernel_count(
    before: &[(String, crate::diskstats::DiskCounters)],
    after: &[(String, crate::diskstats::DiskCounters)],
    device: &str,
) -> Option<KernelCount> {
    let find = |all: &[(String, crate::diskstats::DiskCounters)]| {
        all.iter().find(|(n, _)| n == device).map(|(_, c)| *c)
    };
    let (a, b) = (find(before)?, find(after)?);
    Some(KernelCount {
        reads_completed: b.reads_completed.saturating_sub(a.reads_completed),
        reads_merged: b.reads_merged.saturating_sub(a.reads_merged),
        writes_completed: b.writes_completed.saturating_sub(a.writes_completed),
        writes_merged: b.writes_merged.saturating_sub(a.writes_merged),
    })
}

#[cfg(test)]
#[path = "collect_tests.rs"]
mod tests;
