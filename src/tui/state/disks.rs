//! The disks screen's state, for a run on several targets: a row per target (who it is, its
//! last shared second, its IOPS second by second for the row's sparkline, the kernel's
//! %util, and whether it is an outlier now, judged over its last few seconds by the rule the
//! final table uses), the aggregate of the last second and a live sum, the settings every
//! target runs, the order (as given, or slowest first), the selection and scrolling, and —
//! when a row is opened — which target's single-target run screen shows. Each target keeps
//! a full `Run`, fed its own snapshots, so opening a row shows the existing run screen.
//!
//! No clock and no I/O: the session hands in snapshots, shared seconds and kernel rates.

use std::collections::VecDeque;
use std::time::Duration;

use super::run::Run;
use crate::disks::Identity;
use crate::disks::clock::Second;
use crate::disks::collect::Collector;
use crate::diskstats::KernelRates;
use crate::findings::outliers;
use crate::findings::thresholds::OUTLIER_WINDOW_S;
use crate::render::disks::LiveRow;
use crate::settings::{Knob, Settings};
use crate::stats::{IntervalFigures, Snapshot};

/// Seconds of per-target IOPS kept for the rows' sparklines.
pub const ROW_HISTORY: usize = 600;
/// Live sums kept for the aggregate's sparkline: a minute at 10 a second.
pub const SUM_HISTORY: usize = 600;
/// Seconds of rows kept for the report (an hour, as a single run keeps).
pub const KEPT_SECONDS: usize = 3600;

/// How the rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// As the targets were given.
    Given,
    /// Lowest IOPS of the last second first: the slow one on top.
    SlowestFirst,
}

/// One target's row.
#[derive(Debug, Clone)]
pub struct DiskRow {
    pub id: Identity,
    /// Its single-target run screen, fed its own snapshots.
    pub run: Run,
    /// IOPS of each shared second, oldest first.
    pub history: VecDeque<u64>,
    /// Its last shared second.
    pub now: Option<IntervalFigures>,
    /// The kernel's %util of its device over the last second.
    pub util_pct: Option<f64>,
    /// Ops and running seconds of its last `OUTLIER_WINDOW_S` seconds.
    recent: VecDeque<(u64, f64)>,
    /// How far below the group's median it is now, when that makes it an outlier.
    pub below_median_pct: Option<f64>,
    /// Its last snapshot's rate (of about 100 ms), for the live sum.
    pub latest_iops: f64,
}

impl DiskRow {
    /// IOPS over its recent seconds (`None` before the first).
    pub fn recent_iops(&self) -> Option<f64> {
        let (ops, secs) = self
            .recent
            .iter()
            .fold((0u64, 0.0), |(o, s), (a, b)| (o + a, s + b));
        (secs > 0.0).then(|| ops as f64 / secs)
    }
}

/// The disks screen.
#[derive(Debug, Clone)]
pub struct Disks {
    /// How the targets are driven: "io_uring, O_DIRECT".
    pub mode: String,
    pub settings: Settings,
    pub focus: Knob,
    pub paused: bool,
    pub write_allowed: bool,
    pub rows: Vec<DiskRow>,
    /// The aggregate's last shared second.
    pub now: Option<IntervalFigures>,
    /// The sum of every target's last snapshot rate, ten times a second, oldest first.
    pub sum_history: VecDeque<u64>,
    /// The group's clock at the last snapshot.
    pub elapsed: Duration,
    /// Errors and short I/Os of all targets so far.
    pub errors: u64,
    pub outlier_pct: f64,
    /// The median of the targets' recent IOPS, which outliers are judged against.
    pub median_iops: f64,
    pub order: Order,
    /// The selected row's place in the order shown (drawing keeps it on screen).
    pub selected: usize,
    /// The target whose run screen shows.
    pub open: Option<usize>,
    pub message: Option<String>,
    pub stopping: bool,
    /// Quitting after a minute asks once (where stdout is a terminal), as a single run's.
    pub ask_before_quit: bool,
    /// `q` was pressed once after a minute: `q` or `y` now quits.
    pub quit_asked: bool,
    /// Every target's shared seconds and merged latency, for the report at the end.
    pub collector: Collector,
}

impl Disks {
    /// A screen for the targets `ids` (each with the run screen it opens to).
    pub fn new(
        mode: String,
        settings: Settings,
        ids: Vec<(Identity, Run)>,
        outlier_pct: f64,
    ) -> Disks {
        let write_allowed = ids
            .first()
            .is_some_and(|(id, _)| id.config.target.write_allowed);
        let n = ids.len();
        Disks {
            mode,
            settings,
            focus: Knob::Threads,
            paused: false,
            write_allowed,
            rows: ids
                .into_iter()
                .map(|(id, run)| DiskRow {
                    id,
                    run,
                    history: VecDeque::with_capacity(ROW_HISTORY),
                    now: None,
                    util_pct: None,
                    recent: VecDeque::with_capacity(OUTLIER_WINDOW_S),
                    below_median_pct: None,
                    latest_iops: 0.0,
                })
                .collect(),
            now: None,
            sum_history: VecDeque::with_capacity(SUM_HISTORY),
            elapsed: Duration::ZERO,
            errors: 0,
            outlier_pct,
            median_iops: 0.0,
            order: Order::Given,
            selected: 0,
            open: None,
            message: None,
            stopping: false,
            ask_before_quit: false,
            quit_asked: false,
            collector: Collector::new(n, KEPT_SECONDS),
        }
    }

    /// Takes in target `i`'s snapshot (its run screen's, and its live rate); `end` is where
    /// it ended on the group's clock. Target 0's snapshots pace the live sum.
    pub fn push_snapshot(&mut self, i: usize, s: Snapshot, end: Duration) {
        self.elapsed = self.elapsed.max(end);
        let Some(row) = self.rows.get_mut(i) else {
            return;
        };
        if s.stopped.is_none() && !s.paused {
            row.latest_iops = s.interval_iops();
        }
        row.run.push(s);
        // The report's seconds come from the shared clock (`collector`); the run screen's
        // own copy of them would only grow.
        row.run.rows.kept.clear();
        self.errors = self
            .rows
            .iter()
            .filter_map(|r| r.run.last.as_ref())
            .map(|s| s.total.errors + s.total.short_ios)
            .sum();
        if i == 0 {
            let sum: f64 = self.rows.iter().map(|r| r.latest_iops).sum();
            push_bounded(&mut self.sum_history, sum.round() as u64, SUM_HISTORY);
        }
    }

    /// Takes in a shared second: each row's figures, the aggregate's, and who is an outlier
    /// over the recent seconds.
    pub fn push_second(&mut self, second: &Second) {
        let (rows, all) = self.collector.second(second);
        for ((row, figures), w) in self.rows.iter_mut().zip(rows).zip(&second.windows) {
            let iops = figures.as_ref().map_or(0.0, |f| f.iops);
            push_bounded(&mut row.history, iops.round() as u64, ROW_HISTORY);
            if w.elapsed > Duration::ZERO {
                push_bounded(
                    &mut row.recent,
                    (w.counts.ops, w.elapsed.as_secs_f64()),
                    OUTLIER_WINDOW_S,
                );
            }
            row.now = figures;
        }
        self.now = Some(all);
        let recent: Vec<Option<f64>> = self.rows.iter().map(DiskRow::recent_iops).collect();
        let mut verdict = outliers::judge(&recent, self.outlier_pct);
        let group = crate::findings::conditions::Conditions {
            direct: self.rows.iter().all(|r| r.id.config.target.direct),
            rows: 1,
            targets: self.rows.len(),
            ..Default::default()
        };
        if !group.allows(crate::findings::conditions::Detector::Outlier) {
            verdict.below_pct.fill(None);
        }
        self.median_iops = verdict.median;
        for (row, below) in self.rows.iter_mut().zip(verdict.below_pct) {
            row.below_median_pct = below;
        }
    }

    /// The kernel's rates of each target's device over the last second.
    pub fn set_kernel(&mut self, rates: Vec<Option<KernelRates>>) {
        for (row, r) in self.rows.iter_mut().zip(rates) {
            row.util_pct = r.map(|r| r.util_pct);
            row.run.set_kernel(r);
        }
    }

    /// The targets' indexes in the order shown.
    pub fn order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.rows.len()).collect();
        if self.order == Order::SlowestFirst {
            let key = |i: &usize| self.rows[*i].now.as_ref().map_or(f64::INFINITY, |f| f.iops);
            idx.sort_by(|a, b| key(a).total_cmp(&key(b)));
        }
        idx
    }

    /// The rows as the live table shows them, in the order shown.
    pub fn live_rows(&self) -> Vec<LiveRow> {
        self.order()
            .into_iter()
            .map(|i| {
                let r = &self.rows[i];
                LiveRow {
                    name: r.id.name.clone(),
                    model: r.id.model.clone(),
                    link: r.id.link.clone(),
                    now: r.now.clone(),
                    util_pct: r.util_pct,
                    below_median_pct: r.below_median_pct,
                }
            })
            .collect()
    }

    /// The outliers now, as the findings word them ("sdf 38% below the median of 12").
    pub fn outliers(&self) -> Vec<String> {
        let members = self
            .rows
            .iter()
            .filter(|r| r.recent_iops().is_some())
            .count();
        self.rows
            .iter()
            .filter_map(|r| {
                let b = r.below_median_pct?;
                Some(outliers::finding(&r.id.name, b, members).text)
            })
            .collect()
    }

    /// Records the group's answer to a change: `settings` are those now in force on every
    /// target.
    pub fn applied(&mut self, result: Result<(), String>, settings: Settings) {
        self.settings = settings;
        for row in &mut self.rows {
            row.run.settings = settings;
            row.run.message = None;
        }
        self.message = result.err();
        if let (Some(m), Some(i)) = (&self.message, self.open) {
            self.rows[i].run.message = Some(m.clone());
        }
    }

    /// Forgets the history, as every engine's statistics were reset.
    pub fn clear_history(&mut self) {
        for row in &mut self.rows {
            row.run.clear_history();
            row.history.clear();
            row.recent.clear();
            row.now = None;
            row.below_median_pct = None;
        }
        self.now = None;
        self.sum_history.clear();
        self.collector.reset();
    }

    /// Moves the selection by `delta` rows.
    pub fn select(&mut self, delta: isize) {
        let last = self.rows.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }
}

fn push_bounded<T>(q: &mut VecDeque<T>, v: T, cap: usize) {
    if q.len() == cap {
        q.pop_front();
    }
    q.push_back(v);
}
