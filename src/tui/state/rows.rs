//! The rows a TUI run keeps for `e` and `--json FILE`: one per second of running time, as
//! headless prints them, each tagged with the id of its period (`PeriodTracker::current_id`),
//! and cut where a period ends so no row spans two settings. The row a period ends with would
//! often be a sliver — a change comes at any moment of a second — and a sliver's rate over a
//! few milliseconds is noise (a chart draws it as a spike). So a whole row is held back until
//! the next one is known: a period's last piece shorter than half a row joins the row before
//! it (a row of up to 1.5 s), unless the period had no whole row. A pause ends a period's
//! running time like a change; its paused snapshots (no running time, nothing completed)
//! make a row of their own that the resume closes. Each row carries the drive's temperature
//! read last when it closed (`temp_c`).

use std::collections::VecDeque;
use std::time::Duration;

use crate::stats::{Boundary, IntervalFigures, Snapshot, Window};

/// Running time in a row (as headless prints them).
pub const INTERVAL: Duration = Duration::from_secs(1);
/// Timer jitter a row's length may fall short by, as headless allows.
const SLACK: Duration = Duration::from_millis(50);
/// Rows kept: the last hour, so a run left open for days stays the same size (the totals and
/// the periods still cover the whole run).
pub const KEPT: usize = 3600;

/// The rows of a run so far.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// The rows done, oldest first (the last `KEPT`).
    pub kept: VecDeque<IntervalFigures>,
    /// The row being gathered, and its period's id.
    current: Window,
    current_period: usize,
    /// A whole row not yet kept (with the temperature when it closed), in case the next is
    /// its period's last sliver.
    held: Option<(Window, usize, Option<f64>)>,
    /// The drive's temperature read last.
    temp_c: Option<f64>,
}

impl Rows {
    /// Takes one snapshot; `boundary` is what it did to the periods, `period` the id of the
    /// period it belongs to and `temp_c` the drive's temperature read last (a row closing
    /// now carries it).
    pub fn push(&mut self, s: &Snapshot, boundary: Boundary, period: usize, temp_c: Option<f64>) {
        self.temp_c = temp_c;
        if boundary.cuts() {
            self.flush();
        }
        if self.current.snapshots == 0 {
            self.current_period = period;
        }
        self.current.push(s);
        if self.current.elapsed + SLACK >= INTERVAL {
            if let Some((w, p, t)) = self.held.take() {
                self.keep(w, p, t);
            }
            self.held = Some((self.current.take(), self.current_period, temp_c));
        }
    }

    /// Forgets every row (after a reset, their figures went with the engine's totals).
    pub fn clear(&mut self) {
        *self = Rows::default();
    }

    /// Every row so far, the one being gathered last (joined to the row before when it is
    /// that period's sliver).
    pub fn rows(&self) -> Vec<IntervalFigures> {
        let mut out: Vec<IntervalFigures> = self.kept.iter().cloned().collect();
        let mut pending = self.held.clone();
        let current = (self.current.snapshots > 0)
            .then(|| (self.current.clone(), self.current_period, self.temp_c));
        match (&mut pending, current) {
            (Some((held, p, _)), Some((w, q, _))) if sliver(&w, *p, q) => held.absorb(w),
            (_, Some(c)) => {
                out.extend(pending.take().map(|(w, p, t)| figures(&w, p, t)));
                pending = Some(c);
            }
            _ => {}
        }
        out.extend(pending.map(|(w, p, t)| figures(&w, p, t)));
        out
    }

    /// Ends the row being gathered where its period ends, the held row with it.
    fn flush(&mut self) {
        let current = std::mem::take(&mut self.current);
        let held = self.held.take();
        match (held, current.snapshots > 0) {
            (Some((mut h, p, t)), true) if sliver(&current, p, self.current_period) => {
                h.absorb(current);
                self.keep(h, p, t);
            }
            (held, has_current) => {
                if let Some((h, p, t)) = held {
                    self.keep(h, p, t);
                }
                if has_current {
                    self.keep(current, self.current_period, self.temp_c);
                }
            }
        }
    }

    fn keep(&mut self, w: Window, period: usize, temp_c: Option<f64>) {
        if self.kept.len() == KEPT {
            self.kept.pop_front();
        }
        self.kept.push_back(figures(&w, period, temp_c));
    }
}

/// Whether `w`, of period `q`, is the sliver a row of period `p` takes in: the same period,
/// under half a row of running time, and some of it (a pause's row has none: it stays apart).
fn sliver(w: &Window, p: usize, q: usize) -> bool {
    p == q && !w.elapsed.is_zero() && w.elapsed < INTERVAL / 2
}

fn figures(w: &Window, period: usize, temp_c: Option<f64>) -> IntervalFigures {
    IntervalFigures {
        period: Some(period),
        temp_c,
        ..w.figures()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use crate::stats::{Counts, Latency, PeriodTracker};

    /// Feeds `plan` — (threads, running snapshots of 100 ms, paused snapshots after) — as
    /// the engine would, through a tracker into rows.
    fn rows_of(plan: &[(usize, usize, usize)]) -> (Vec<IntervalFigures>, u64) {
        let (mut rows, mut t) = (Rows::default(), PeriodTracker::default());
        let (mut at, mut total, mut elapsed) = (Duration::ZERO, Counts::default(), Duration::ZERO);
        for &(threads, running, paused) in plan {
            for k in 0..running + paused {
                let is_paused = k >= running;
                let ops = if is_paused { 0 } else { 10 };
                let mut latency = Latency::default();
                latency.record_n(1000, ops);
                let interval = Counts {
                    ops,
                    ..Counts::default()
                };
                at += Duration::from_millis(100);
                total.add(&interval);
                if !is_paused {
                    elapsed += Duration::from_millis(100);
                }
                let s = Snapshot {
                    seq: 0,
                    at,
                    interval_elapsed: Duration::from_millis(100),
                    settings: Settings {
                        threads,
                        ..Settings::default()
                    },
                    paused: is_paused,
                    stopped: None,
                    interval,
                    interval_latency: latency,
                    interval_service_latency: None,
                    total,
                    total_elapsed: elapsed,
                    total_latency: Default::default(),
                    total_service_latency: Default::default(),
                    total_left_out: Default::default(),
                    sides: Default::default(),
                    threads: vec![],
                    first_errors: vec![],
                };
                let b = t.push(&s);
                rows.push(&s, b, t.current_id(), None);
            }
        }
        (rows.rows(), total.ops)
    }

    fn shape(rows: &[IntervalFigures]) -> Vec<(usize, u64)> {
        rows.iter()
            .map(|r| (r.period.unwrap(), (r.elapsed_s * 10.0).round() as u64))
            .collect()
    }

    #[test]
    fn a_periods_last_sliver_joins_the_row_before_it() {
        // 2.3 s at T1, then 1.7 s at T2: T1's 0.3 s joins its second row; T2's 0.7 s stays.
        let (rows, ops) = rows_of(&[(1, 23, 0), (2, 17, 0)]);
        assert_eq!(shape(&rows), [(0, 10), (0, 13), (1, 10), (1, 7)]);
        assert_eq!(rows.iter().map(|r| r.counts.ops).sum::<u64>(), ops);
        assert!(rows.iter().all(|r| r.latency_ns.count == r.counts.ops));
        // A period with no whole row keeps its piece as a row.
        let (rows, _) = rows_of(&[(1, 12, 0), (2, 3, 0), (4, 10, 0)]);
        assert_eq!(shape(&rows), [(0, 12), (1, 3), (2, 10)]);
    }

    #[test]
    fn a_pause_ends_the_running_rows_and_makes_a_row_of_its_own() {
        let (rows, ops) = rows_of(&[(1, 14, 20), (1, 10, 0)]);
        assert_eq!(shape(&rows), [(0, 14), (0, 0), (1, 10)]);
        assert_eq!(rows[1].counts.ops, 0);
        assert!((rows[1].t_s - 3.4).abs() < 1e-9, "{}", rows[1].t_s);
        assert_eq!(rows.iter().map(|r| r.counts.ops).sum::<u64>(), ops);
    }

    #[test]
    fn the_last_sliver_of_a_run_joins_its_row_too() {
        let (rows, _) = rows_of(&[(1, 32, 0)]);
        assert_eq!(shape(&rows), [(0, 10), (0, 10), (0, 12)]);
    }
}
