//! The run told setting by setting. A new period begins at every settings change (any knob,
//! the rate), at every resume from a pause and after a reset of the statistics; each keeps
//! its settings, where it starts and ends on the run's clock, what completed in it, its rates
//! over its own measured time and its latency percentiles from its own merged histogram (the
//! intervals' histograms added up: no latency is kept one by one). One `PeriodTracker` is
//! fed the engine's snapshots by whoever drives the run — the headless printer and the TUI
//! alike — and answers, for each snapshot, whether a period begins there (`Boundary`), so the
//! consumer cuts its one-second rows at the same place and tags them with the period's id.
//! `report()` gives the `Periods` block a run report carries. It reads snapshots only: no
//! clock, no engine, no drawing.
//!
//! The periods add up to the engine's totals exactly: a period's ops, bytes and latencies
//! are those of its snapshots, paused ones included (the engine counts what completes while
//! paused: normally nothing, the workers park at the pause), and its elapsed time leaves
//! paused and stopped intervals out, as the engine's own `total_elapsed` does.
//!
//! A reset (`r`) is read from the snapshots themselves: the engine's totals and their time
//! never go down except at a reset, which zeroes them. (Not "the last totals plus this
//! interval": exact on today's engine, but one miscounted hand-over would then erase the
//! story.) A reset within the run's first tick, before anything was counted, goes unseen and
//! loses nothing. The periods before it went with the totals they made up; `reset_at_s`
//! says when.
//!
//! The count is bounded by `MAX_PERIODS`: past it the two oldest become one row, which says
//! how many periods it holds (`merged`) and has no single settings when theirs differed. A
//! closed period keeps its exact percentiles and its histograms compacted to two significant
//! digits (some 17 KiB for a wide distribution, where the full one is about 100), so a merged
//! row's percentiles come from its merged histogram, within 1 %.

use std::collections::VecDeque;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::latency::LatencySummary;
use super::log2::Log2Histogram;
use super::sides::ReadWrite;
use super::snapshot::{Counts, LeftOut, Snapshot, per_second};
use super::window::Window;
use crate::settings::Settings;

/// Most periods kept; beyond, the oldest are merged. A TUI session of a hundred changes
/// keeps every one; each closed period costs its compacted histograms (tens of KiB at most).
pub const MAX_PERIODS: usize = 100;

/// Why a period began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Began {
    /// The run started.
    Start,
    /// A knob or the rate changed.
    Change,
    /// The run was resumed after a pause (its settings may have changed meanwhile).
    Resume,
    /// The statistics were reset.
    Reset,
}

/// One period: a stretch of the run under one setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Period {
    pub began: Began,
    /// The settings it ran under; `None` for a row of merged periods whose settings differed.
    pub settings: Option<Settings>,
    /// How many periods this row holds: 1, or more where the oldest were merged because the
    /// run had more than `MAX_PERIODS`.
    #[serde(default = "one")]
    pub merged: usize,
    /// Engine time, seconds into the run, at the start of its first interval and the end of
    /// its last running one.
    pub start_s: f64,
    pub end_s: f64,
    /// Measured time the rates divide by: paused and stopped intervals left out.
    pub elapsed_s: f64,
    #[serde(flatten)]
    pub counts: Counts,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// From its own merged histogram (from the due time with a rate, as every latency).
    pub latency_ns: LatencySummary,
    #[serde(default)]
    pub service_latency_ns: LatencySummary,
    /// Stopped intervals inside it (SIGSTOP, Ctrl-Z), not in the figures above.
    #[serde(default)]
    pub left_out: LeftOut,
    /// Reads, writes and trims apart (`read`, `write`, `trim`), where the period did more than one.
    #[serde(flatten)]
    pub sides: Option<ReadWrite>,
}

fn one() -> usize {
    1
}

/// A run report's story: its periods, the last reset, and the whole run's latency
/// distribution in log2 buckets (what the latency chart of a saved run draws). Serialized
/// flat into the report: `periods`, `reset_at_s`, `latency_log2_ns`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Periods {
    #[serde(rename = "periods", default)]
    pub list: Vec<Period>,
    /// When the statistics were last reset, seconds into the run; the periods before it are
    /// gone with the totals they made up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_at_s: Option<f64>,
    /// Every latency of the run in log2 buckets: index i counts those in `[2^i, 2^(i+1))` ns.
    /// The same I/Os as the totals' `latency_ns`.
    #[serde(rename = "latency_log2_ns", default)]
    pub latency_histogram: Log2Histogram,
}

impl Periods {
    /// How many periods were merged into the oldest rows (0 when every period has its row).
    pub fn merged_away(&self) -> usize {
        self.list.iter().map(|p| p.merged.saturating_sub(1)).sum()
    }
}

/// What a snapshot did to the periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// It belongs to the period already running (or to its pause).
    Within,
    /// A new period begins with it.
    Begins(Began),
    /// The first paused snapshot: the running period's measured time ends before it.
    Pauses,
}

impl Boundary {
    /// Whether a consumer's row in progress ends before this snapshot.
    pub fn cuts(self) -> bool {
        self != Boundary::Within
    }
}

/// The period running now.
#[derive(Debug, Clone)]
struct Open {
    id: usize,
    began: Began,
    settings: Settings,
    start: Duration,
    /// End of its last snapshot that was not paused.
    end: Duration,
    window: Window,
    /// Paused since its last running snapshot.
    paused: bool,
}

/// Follows a run's snapshots and keeps its periods.
#[derive(Debug, Clone, Default)]
pub struct PeriodTracker {
    closed: VecDeque<Closed>,
    open: Option<Open>,
    /// Paused snapshots before any period ran (after a reset while paused): the next period
    /// takes them in.
    pending: Window,
    /// The engine's totals and their time at the last snapshot, to see a reset.
    totals: Option<(Counts, Duration)>,
    next_id: usize,
    reset_at: Option<Duration>,
    whole: Log2Histogram,
}

impl PeriodTracker {
    /// Takes in one snapshot and says whether a period begins with it.
    pub fn push(&mut self, s: &Snapshot) -> Boundary {
        let reset = self.after_reset(s);
        self.totals = Some((s.total, s.total_elapsed));
        if reset {
            *self = PeriodTracker {
                next_id: self.next_id,
                reset_at: Some(s.at.saturating_sub(s.interval_elapsed)),
                totals: self.totals,
                ..PeriodTracker::default()
            };
        }
        if s.stopped.is_none() {
            self.whole.add(&Log2Histogram::of(&s.interval_latency));
        }
        if s.paused {
            let Some(open) = &mut self.open else {
                self.pending.push(s);
                return Boundary::Within;
            };
            open.window.push(s);
            let first = !open.paused;
            open.paused = true;
            return if first {
                Boundary::Pauses
            } else {
                Boundary::Within
            };
        }
        let began = match &self.open {
            None if self.reset_at.is_some() => Some(Began::Reset),
            None => Some(Began::Start),
            Some(o) if o.paused => Some(Began::Resume),
            Some(o) if o.settings != s.settings => Some(Began::Change),
            Some(_) => None,
        };
        if let Some(b) = began {
            if let Some(previous) = self.open.take() {
                self.close(previous);
            }
            let id = self.next_id;
            self.next_id += 1;
            self.open = Some(Open {
                id,
                began: b,
                settings: s.settings,
                start: s.at.saturating_sub(s.interval_elapsed),
                end: s.at,
                window: std::mem::take(&mut self.pending),
                paused: false,
            });
        }
        if let Some(open) = &mut self.open {
            open.window.push(s);
            open.end = s.at;
        }
        began.map_or(Boundary::Within, Boundary::Begins)
    }

    /// The id of the period running now (or of the one the next running snapshot begins):
    /// 0, 1, 2 … in the order they began, never reused, a reset included. A consumer tags
    /// its rows with it; `index_of` turns it into the report's index.
    pub fn current_id(&self) -> usize {
        self.open.as_ref().map_or(self.next_id, |o| o.id)
    }

    /// The settings of the period running now.
    pub fn current_settings(&self) -> Option<Settings> {
        self.open.as_ref().map(|o| o.settings)
    }

    /// What the period running now has counted so far.
    pub fn current_counts(&self) -> Option<Counts> {
        self.open.as_ref().map(|o| o.window.counts)
    }

    /// Where the period with id `id` is in `report().list`: `None` when it went with a reset.
    pub fn index_of(&self, id: usize) -> Option<usize> {
        let firsts = self
            .closed
            .iter()
            .map(|c| c.first_id)
            .chain(self.open.as_ref().map(|o| o.id));
        let mut index = None;
        for (i, first) in firsts.enumerate() {
            if first > id {
                break;
            }
            index = Some(i);
        }
        index
    }

    /// Every period so far, the running one last, with the whole run's latency distribution.
    pub fn report(&self) -> Periods {
        let mut list: Vec<Period> = self.closed.iter().map(Closed::period).collect();
        list.extend(self.open.as_ref().map(Open::period));
        Periods {
            list,
            reset_at_s: self.reset_at.map(|d| d.as_secs_f64()),
            latency_histogram: self.whole.clone(),
        }
    }

    /// Whether `s` comes after a reset: a total, or their time, went down.
    fn after_reset(&self, s: &Snapshot) -> bool {
        let Some((was, elapsed)) = self.totals else {
            return false;
        };
        let now = &s.total;
        s.total_elapsed < elapsed
            || now.ops < was.ops
            || now.bytes < was.bytes
            || now.not_ops() < was.not_ops()
    }

    /// Keeps `p` as a closed period, merging the two oldest when there are too many.
    fn close(&mut self, p: Open) {
        self.closed.push_back(Closed::of(p));
        // The open period that follows counts too.
        while self.closed.len() >= MAX_PERIODS {
            let (Some(a), Some(b)) = (self.closed.pop_front(), self.closed.pop_front()) else {
                break;
            };
            self.closed.push_front(a.merge(b));
        }
    }
}

impl Open {
    fn period(&self) -> Period {
        let w = &self.window;
        Period {
            began: self.began,
            settings: Some(self.settings),
            merged: 1,
            start_s: self.start.as_secs_f64(),
            end_s: self.end.as_secs_f64(),
            elapsed_s: w.elapsed.as_secs_f64(),
            counts: w.counts,
            iops: per_second(w.counts.ops, w.elapsed),
            bw_bytes_per_s: per_second(w.counts.bytes, w.elapsed),
            latency_ns: w.latency.summary(),
            service_latency_ns: w.service_latency.summary(),
            left_out: w.left_out,
            sides: w.sides.figures(&w.counts, w.elapsed),
        }
    }
}

#[path = "periods_closed.rs"]
mod closed;
use closed::Closed;

#[cfg(test)]
#[path = "periods_tests.rs"]
mod tests;
